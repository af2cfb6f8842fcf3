#!/usr/bin/env python3
"""Compares kube-scheduler's placements with dglsim's (scripts/scheduler-conformance.sh).

    compare.py decisions --input IN --real REAL --sim SIM     (dglsim place ran with follow: REAL)
    compare.py outcomes  --input IN --real REAL --sim SIM     (each placed on its own)

Prints one JSON object.

decisions: dglsim's scheduler decided each pod on the state kube-scheduler's earlier placements left
(dglsim place --follow), so every pod is a comparison of its own. A pod is "same" when both chose
the same node (or both found none), "tied" when they chose different nodes that kube-scheduler
scored equally (its selectHost picks among the best at random), else "different", with what made
the difference: the node one side's filters rejected (and why), or the plugins whose scores differ
between kube-scheduler's log and dglsim's Explain on the two nodes. Also counted: pods whose every
node's total score is the same on both sides ("scores_identical", of the pods kube-scheduler
scored: it does not score when a single node fits).

outcomes: the distribution of results, each scheduler on its own (past 100 nodes kube-scheduler
scores a sample of them, from a rotating start in its own node order): unschedulable pods, nodes by
number of pods placed, GPU nodes whole / partly used / full, GPUs left free on partly used nodes.
"""
import argparse
import json
import sys


def key(pod):
    return f"{pod['metadata'].get('namespace', 'default')}/{pod['metadata']['name']}"


def explain(r, s, real, sim):
    """Why kube-scheduler chose node r and dglsim node s (r != s)."""
    if s is None:
        why = sim.get("rejected", {}).get(r, "")
        return f"dglsim found no node ({sim.get('message', '')}); kube-scheduler chose {r}" + (
            f", which dglsim rejected: {why}" if why else "")
    if r is None:
        return f"kube-scheduler found no node ({real.get('message', '')}); dglsim chose {s}"
    if r in sim.get("rejected", {}):
        return f"filter: dglsim rejected {r} ({sim['rejected'][r]}), kube-scheduler's choice"
    if real["scores"] and s not in real["scores"]:
        return f"filter: kube-scheduler did not find {s} (dglsim's choice) feasible"
    if not real["scores"]:
        return f"filter: only {r} was feasible for kube-scheduler (it scores nothing then); dglsim chose {s}"
    diffs = []
    plugins = sorted((set(real["scores"][r]) | set(sim["scores"].get(r, {}))) - {"total"})
    for p in plugins:
        k = (real["scores"][r].get(p, 0), real["scores"][s].get(p, 0))
        d = (sim["scores"].get(r, {}).get(p, 0), sim["scores"].get(s, {}).get(p, 0))
        if k != d:
            diffs.append(f"{p}: kube-scheduler {r}={k[0]} {s}={k[1]}, dglsim {r}={d[0]} {s}={d[1]}")
    return "score: " + ("; ".join(diffs) if diffs else "no plugin differs (a tie-break)")


def decisions(inp, real, sim):
    real_by = {p["pod"]: p for p in real["placements"]}
    sim_by = {p["pod"]: p for p in sim["placements"]}
    out = {"pods": 0, "same": 0, "tied": 0, "different": 0, "scored": 0, "scores_identical": 0,
           "differences": [], "score_mismatches": []}
    for pod in inp["pods"]:
        k = key(pod)
        rp, sp = real_by[k], sim_by[k]
        r, s = rp["node"], sp["node"]
        out["pods"] += 1
        if rp["scores"] and r is not None:
            out["scored"] += 1
            mismatch = [n for n in rp["scores"] if rp["scores"][n].get("total") != sp["scores"].get(n, {}).get("total")]
            mismatch += [n for n in sp["scores"] if n not in rp["scores"]]
            if mismatch:
                n = mismatch[0]
                out["score_mismatches"].append({"pod": k, "nodes": len(mismatch), "example": n,
                                                "kube-scheduler": rp["scores"].get(n), "dglsim": sp["scores"].get(n)})
            else:
                out["scores_identical"] += 1
        if r == s:
            out["same"] += 1
        elif r is not None and s is not None and rp["scores"].get(s, {}).get("total") == rp["scores"].get(r, {}).get("total") \
                and rp["scores"]:
            out["tied"] += 1
        else:
            out["different"] += 1
            out["differences"].append({"pod": k, "kube-scheduler": r, "dglsim": s, "why": explain(r, s, rp, sp)})
    return out


def outcome(inp, placements):
    nodes = {n["metadata"]["name"]: n for n in inp["nodes"]}
    gpus = {n: int(v["status"]["allocatable"].get("nvidia.com/gpu", "0")) for n, v in nodes.items()}
    used = {n: 0 for n in nodes}

    def gpu_request(pod):
        total = 0
        for c in pod["spec"]["containers"]:
            res = c.get("resources", {})
            total += int(res.get("requests", {}).get("nvidia.com/gpu", res.get("limits", {}).get("nvidia.com/gpu", "0")))
        return total
    for pod in inp["preplaced"]:
        used[pod["spec"]["nodeName"]] += gpu_request(pod)
    pods = {key(p): p for p in inp["pods"]}
    per_node = {n: 0 for n in nodes}
    unschedulable = 0
    for p in placements:
        if p["node"] is None:
            unschedulable += 1
            continue
        per_node[p["node"]] += 1
        used[p["node"]] += gpu_request(pods[p["pod"]])
    histogram = {}
    for n, count in per_node.items():
        histogram[count] = histogram.get(count, 0) + 1
    gpu_nodes = [n for n in nodes if gpus[n] > 0]
    partly = [n for n in gpu_nodes if 0 < used[n] < gpus[n]]
    return {"unschedulable": unschedulable,
            "nodes_by_pods": {str(k): histogram[k] for k in sorted(histogram)},
            "gpu_nodes_free": sum(1 for n in gpu_nodes if used[n] == 0),
            "gpu_nodes_partly_used": len(partly),
            "gpu_nodes_full": sum(1 for n in gpu_nodes if used[n] >= gpus[n]),
            "gpus_free_on_partly_used": sum(gpus[n] - used[n] for n in partly)}


def outcomes(inp, real, sim, tolerance):
    a, b = outcome(inp, real["placements"]), outcome(inp, sim["placements"])
    keys = set(a["nodes_by_pods"]) | set(b["nodes_by_pods"])
    n = len(inp["nodes"])
    # Total variation distance between the two distributions of nodes by pod count.
    tvd = sum(abs(a["nodes_by_pods"].get(k, 0) - b["nodes_by_pods"].get(k, 0)) for k in keys) / (2 * n)
    pods = len(inp["pods"])
    checks = {
        "unschedulable": abs(a["unschedulable"] - b["unschedulable"]) <= max(2, round(tolerance * pods)),
        "nodes_by_pods": tvd <= tolerance,
        "gpu_nodes_partly_used": abs(a["gpu_nodes_partly_used"] - b["gpu_nodes_partly_used"])
        <= max(2, round(tolerance * sum(1 for x in inp["nodes"] if "nvidia.com/gpu" in x["status"]["allocatable"]))),
    }
    same = sum(1 for x, y in zip(real["placements"], sim["placements"]) if x["node"] == y["node"])
    return {"kube-scheduler": a, "dglsim": b, "nodes_by_pods_distance": round(tvd, 3), "tolerance": tolerance,
            "within_tolerance": checks, "same_node": same, "pods": pods}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["decisions", "outcomes"])
    ap.add_argument("--input", required=True)
    ap.add_argument("--real", required=True)
    ap.add_argument("--sim", required=True)
    ap.add_argument("--tolerance", type=float, default=0.1)
    args = ap.parse_args()
    inp, real, sim = (json.load(open(f)) for f in (args.input, args.real, args.sim))
    if [p["pod"] for p in real["placements"]] != [p["pod"] for p in sim["placements"]]:
        sys.exit("the two runs placed different pods")
    result = decisions(inp, real, sim) if args.mode == "decisions" else outcomes(inp, real, sim, args.tolerance)
    json.dump(result, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
