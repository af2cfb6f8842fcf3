#!/usr/bin/env python3
"""The input of the placement comparison with kube-scheduler (scripts/scheduler-conformance.sh).

    gen_input.py --dglsim BIN --nodes N --copies K --seed S --out INPUT.json [--work DIR]

The pods are the ones the operator really creates: K copies of each job of job-shapes.json run
through the operator inside `dglsim serve --speed max` (on a roomy cluster whose nodes carry the
labels and taints the jobs select and tolerate), and the pods and Services it made are read back
over HTTP once simulated time stops. They are cleaned of what the API server sets (uid, status,
nodeName, the token volume, priority) and ordered by creation (time, then name).

The cluster the comparison places them on is generated from the seed: N nodes, in three zones,
each with its kubernetes.io/hostname label:
  - 40 % "a100" nodes: 96 cores, 768Gi, 8 GPUs, accelerator=nvidia-a100, taint nvidia.com/gpu:NoSchedule
  - 20 % "t4" nodes: 32 cores, 128Gi, 2 GPUs, accelerator=nvidia-t4, the same taint
  - 40 % "cpu" nodes: 64 cores, 256Gi; one in four is a spot node (pool=spot, taint
    spot=true:PreferNoSchedule)
About a third of the nodes already run a filler pod (namespace "other") of random size, some GPUs
included. Every node is Ready; its allocatable is its capacity.

Output: {"nodes", "services", "preplaced", "pods", "serviceAccounts"} (dglsim place's input; the
real run creates the service accounts the pods name).
"""
import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))


def scenario(shapes, copies):
    jobs = []
    for shape in shapes:
        for i in range(copies):
            jobs.append({"at": "0s", "inline": {
                "apiVersion": "kubeflow.org/v1alpha1", "kind": "DGLJob",
                "metadata": {"name": f"{shape['name']}-{i}", "namespace": "default"},
                "spec": shape["spec"]}})
    gpu_taint = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
    return {
        "apiVersion": "dglsim/v1", "kind": "Scenario",
        "metadata": {"name": "scheduler-conformance-pods",
                     "description": "the operator's pods for the placement comparison with kube-scheduler"},
        "seed": 1, "until": "20m",
        "cluster": {"nodes": [
            {"name": "a100", "count": 4 * copies + 1,
             "capacity": {"cpu": "96", "memory": "768Gi", "nvidia.com/gpu": "8"},
             "labels": {"accelerator": "nvidia-a100"}, "taints": [gpu_taint]},
            {"name": "t4", "count": 6 * copies + 1, "capacity": {"cpu": "32", "memory": "128Gi", "nvidia.com/gpu": "2"},
             "labels": {"accelerator": "nvidia-t4"}, "taints": [gpu_taint]},
            {"name": "cpu", "count": 3 * copies + 1, "capacity": {"cpu": "64", "memory": "256Gi"}}]},
        "jobs": jobs,
    }


def operator_objects(dglsim, scenario_file, work):
    """Runs the scenario behind `dglsim serve` and returns (pods, services) once time stops."""
    out_path = os.path.join(work, "serve.out")
    with open(out_path, "w") as out, open(os.path.join(work, "serve.err"), "w") as err:
        proc = subprocess.Popen([dglsim, "serve", scenario_file, "--port", "0", "--speed", "max"],
                                stdout=out, stderr=err)
    try:
        url = None
        deadline = time.time() + 900
        while time.time() < deadline:
            text = open(out_path).read()
            for line in text.splitlines():
                if line.startswith("serving on "):
                    url = line[len("serving on "):].strip()
            if url and "simulated time stopped" in text:
                break
            if proc.poll() is not None:
                sys.exit(f"dglsim serve exited {proc.returncode}: {open(os.path.join(work, 'serve.err')).read()}")
            time.sleep(0.1)
        else:
            sys.exit("dglsim serve: simulated time did not stop within 900 s")

        def get(path):
            with urllib.request.urlopen(url + path, timeout=30) as r:
                return json.load(r)["items"]
        return get("/api/v1/namespaces/default/pods"), get("/api/v1/namespaces/default/services")
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def clean_pod(pod):
    meta = pod["metadata"]
    spec = dict(pod["spec"])
    for field in ("nodeName", "priority", "preemptionPolicy"):
        spec.pop(field, None)
    token = [v["name"] for v in spec.get("volumes", []) if v["name"].startswith("kube-api-access-")]
    spec["volumes"] = [v for v in spec.get("volumes", []) if v["name"] not in token]
    for kind in ("containers", "initContainers"):
        for c in spec.get(kind, []):
            c["volumeMounts"] = [m for m in c.get("volumeMounts", []) if m["name"] not in token]
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": meta["name"], "namespace": meta["namespace"], "labels": meta.get("labels", {}),
                         "annotations": meta.get("annotations", {})},
            "spec": spec}


def clean_service(svc):
    meta = svc["metadata"]
    spec = {k: v for k, v in svc["spec"].items() if k in ("selector", "ports", "clusterIP")}
    if spec.get("clusterIP") != "None":
        spec.pop("clusterIP", None)
    return {"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": meta["name"], "namespace": meta["namespace"], "labels": meta.get("labels", {})},
            "spec": spec}


def node(name, zone, cpu, memory, gpus, labels, taints):
    capacity = {"cpu": str(cpu), "memory": f"{memory}Gi", "pods": "110", "ephemeral-storage": "1Ti"}
    if gpus:
        capacity["nvidia.com/gpu"] = str(gpus)
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux",
                                                  "topology.kubernetes.io/zone": zone, **labels}},
            "spec": {"taints": taints} if taints else {},
            "status": {"capacity": capacity, "allocatable": dict(capacity),
                       "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady",
                                       "message": "kubelet is posting ready status"}]}}


def cluster(n, rng):
    gpu_taint = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
    nodes, fillers = [], []
    a100, t4 = round(n * 0.4), round(n * 0.2)
    for i in range(n):
        zone = "zone-" + "abc"[i % 3]
        if i < a100:
            nd = node(f"a100-{i:03d}", zone, 96, 768, 8, {"accelerator": "nvidia-a100"}, [gpu_taint])
        elif i < a100 + t4:
            nd = node(f"t4-{i - a100:03d}", zone, 32, 128, 2, {"accelerator": "nvidia-t4"}, [gpu_taint])
        else:
            j = i - a100 - t4
            spot = j % 4 == 3
            nd = node(f"cpu-{j:03d}", zone, 64, 256, 0, {"pool": "spot"} if spot else {},
                      [{"key": "spot", "value": "true", "effect": "PreferNoSchedule"}] if spot else [])
        nodes.append(nd)
        if rng.random() < 0.35:
            cap = nd["status"]["capacity"]
            requests = {"cpu": f"{rng.randint(1, int(cap['cpu']) // 2)}", "memory": f"{rng.randint(1, 64)}Gi"}
            gpus = int(cap.get("nvidia.com/gpu", "0"))
            if gpus and rng.random() < 0.6:
                requests["nvidia.com/gpu"] = str(rng.randint(1, gpus))
            fillers.append({"apiVersion": "v1", "kind": "Pod",
                            "metadata": {"name": f"filler-{i:03d}", "namespace": "other", "labels": {"app": "filler"}},
                            "spec": {"nodeName": nd["metadata"]["name"], "tolerations": [{"operator": "Exists"}],
                                     "containers": [{"name": "main", "image": "busybox:1.36",
                                                     "resources": {"requests": requests, "limits": requests}}]}})
    return nodes, fillers


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dglsim", required=True)
    ap.add_argument("--nodes", type=int, required=True)
    ap.add_argument("--copies", type=int, required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", required=True)
    ap.add_argument("--work")
    args = ap.parse_args()
    shapes = json.load(open(os.path.join(HERE, "job-shapes.json")))["shapes"]
    work = args.work or tempfile.mkdtemp(prefix="sched-gen-")
    os.makedirs(work, exist_ok=True)
    scenario_file = os.path.join(work, "pods-scenario.yaml")
    with open(scenario_file, "w") as f:
        json.dump(scenario(shapes, args.copies), f, indent=1)  # JSON is YAML
    pods, services = operator_objects(args.dglsim, scenario_file, work)
    pods.sort(key=lambda p: (p["metadata"]["creationTimestamp"], p["metadata"]["name"]))
    pods = [clean_pod(p) for p in pods]
    expected = sum(sum(r["replicas"] for r in s["spec"]["dglReplicaSpecs"].values()) for s in shapes) * args.copies
    if len(pods) != expected:
        sys.exit(f"the operator created {len(pods)} pods, not the {expected} of the jobs' replicas")
    nodes, fillers = cluster(args.nodes, random.Random(args.seed))
    accounts = sorted({p["spec"].get("serviceAccountName", "default") for p in pods})
    out = {"nodes": nodes, "services": [clean_service(s) for s in services if s["spec"].get("selector")],
           "preplaced": fillers, "pods": pods, "serviceAccounts": accounts}
    with open(args.out, "w") as f:
        json.dump(out, f, indent=1)
    print(f"{args.out}: {len(nodes)} nodes, {len(fillers)} preplaced, {len(pods)} pods, {len(out['services'])} services")


if __name__ == "__main__":
    main()
