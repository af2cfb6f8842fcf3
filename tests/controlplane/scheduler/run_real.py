#!/usr/bin/env python3
"""Places the comparison's pods with the real kube-scheduler (scripts/scheduler-conformance.sh).

    run_real.py --cp DIR --input INPUT.json --out REAL.json

DIR is a control plane `scripts/control-plane.sh up DIR --with scheduler` started, with
DGLSIM_KUBE_SCHEDULER_FLAGS=--vmodule=schedule_one=10 so that kube-scheduler logs every node's
per-plugin scores. Plain HTTPS with the admin token; nothing but the standard library.

Creates the namespaces and service accounts the pods need, the Services, the nodes (Ready, their
allocatable as given, no taint but their own) and the preplaced pods (spec.nodeName set: no scheduler involved), then waits
until kube-scheduler has seen them all (a probe pod held to the last node by its hostname binds
there: the scheduler's informers deliver a resource's events in order). Then each pod in turn:
created, and waited for until it is bound or PodScheduled=False (Unschedulable); an unschedulable
pod is deleted before the next, so none is placed later. Output:
{"placements": [{"pod", "node" (null: unschedulable), "message", "scores": {node: {plugin: score,
"total"}}}]}, the scores read from kube-scheduler's log ("Plugin scored node for pod", "Calculated
node's final score for pod"; absent when a single node was feasible: kube-scheduler does not score
then).
"""
import argparse
import json
import os
import re
import ssl
import sys
import time
import urllib.error
import urllib.request


class Api:
    def __init__(self, cp):
        self.server = open(os.path.join(cp, "server")).read().strip()
        self.token = open(os.path.join(cp, "token")).read().strip()
        self.ctx = ssl.create_default_context(cafile=os.path.join(cp, "pki", "ca.crt"))

    def call(self, method, path, body=None, content_type="application/json"):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.server + path, data=data, method=method,
                                     headers={"Authorization": "Bearer " + self.token, "Content-Type": content_type})
        try:
            with urllib.request.urlopen(req, context=self.ctx, timeout=30) as r:
                return r.status, json.load(r)
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read() or b"{}")

    def create(self, path, body, ok_exists=False):
        code, out = self.call("POST", path, body)
        if code in (200, 201) or (ok_exists and code == 409):
            return out
        sys.exit(f"POST {path} {body.get('metadata', {}).get('name')}: {code} {out.get('message')}")


def wait(what, predicate, seconds=60):
    """Polls predicate() until it returns something true; that is the answer."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        got = predicate()
        if got:
            return got
        time.sleep(0.01)
    sys.exit(f"timed out waiting for {what}")


def pod_path(pod):
    return f"/api/v1/namespaces/{pod['metadata'].get('namespace', 'default')}/pods"


def outcome(api, pod):
    """(node, message) once the pod is bound or found unschedulable, else None."""
    code, got = api.call("GET", pod_path(pod) + "/" + pod["metadata"]["name"])
    if code != 200:
        return None
    if got["spec"].get("nodeName"):
        return (got["spec"]["nodeName"], None)
    for c in got.get("status", {}).get("conditions", []):
        if c["type"] == "PodScheduled" and c["status"] == "False" and c.get("reason") == "Unschedulable":
            return (None, c.get("message", ""))
    return None


def delete_now(api, pod):
    path = pod_path(pod) + "/" + pod["metadata"]["name"]
    api.call("DELETE", path, {"kind": "DeleteOptions", "apiVersion": "v1", "gracePeriodSeconds": 0})
    wait("deletion of " + pod["metadata"]["name"], lambda: api.call("GET", path)[0] == 404)


def setup(api, inp):
    namespaces = {o["metadata"].get("namespace", "default") for o in inp["pods"] + inp["preplaced"] + inp["services"]}
    for ns in sorted(namespaces):
        api.create("/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}, True)
        accounts = {"default"} | ({a for a in inp.get("serviceAccounts", [])} if ns == "default" else set())
        for sa in sorted(accounts):
            api.create(f"/api/v1/namespaces/{ns}/serviceaccounts",
                       {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": sa}}, True)
    for svc in inp["services"]:
        api.create(f"/api/v1/namespaces/{svc['metadata'].get('namespace', 'default')}/services", svc)
    for node in inp["nodes"]:
        api.create("/api/v1/nodes", node)
        # The status as given (create may drop it): allocatable, Ready.
        code, out = api.call("PATCH", f"/api/v1/nodes/{node['metadata']['name']}/status",
                             {"status": node["status"]}, "application/merge-patch+json")
        if code != 200:
            sys.exit(f"status of node {node['metadata']['name']}: {code} {out.get('message')}")
        # kube-apiserver's TaintNodesByCondition admission gives a new node the not-ready taint,
        # which the node lifecycle controller lifts once the node is Ready; there is none here.
        code, out = api.call("PATCH", f"/api/v1/nodes/{node['metadata']['name']}",
                             {"spec": {"taints": node.get("spec", {}).get("taints", [])}}, "application/merge-patch+json")
        if code != 200:
            sys.exit(f"taints of node {node['metadata']['name']}: {code} {out.get('message')}")
    for pod in inp["preplaced"]:
        api.create(pod_path(pod), pod)
    last = inp["nodes"][-1]["metadata"]["name"]
    probe = {"apiVersion": "v1", "kind": "Pod",
             "metadata": {"name": "conformance-probe", "namespace": "default"},
             "spec": {"nodeSelector": {"kubernetes.io/hostname": last}, "tolerations": [{"operator": "Exists"}],
                      "containers": [{"name": "main", "image": "busybox:1.36"}]}}
    api.create(pod_path(probe), probe)
    node, message = wait("the probe pod's binding", lambda: outcome(api, probe))
    if node != last:
        sys.exit(f"the probe pod was not bound to {last}: {message}")
    delete_now(api, probe)


LINE = re.compile(r'"(Plugin scored node for pod|Calculated node\'s final score for pod)" pod="([^"]+)"'
                  r'(?: plugin="([^"]+)")? node="([^"]+)" score=(-?\d+)')


def scores_from_log(log_file):
    """{pod: {node: {plugin: score, "total": score}}}, the last scoring of each pod."""
    scores = {}
    current = {}
    for line in open(log_file, errors="replace"):
        m = LINE.search(line)
        if not m:
            continue
        kind, pod, plugin, node, score = m.groups()
        if kind.startswith("Plugin"):
            if pod in current and node in current[pod] and plugin in current[pod][node]:
                current[pod] = {}  # a new scoring of the pod
            current.setdefault(pod, {}).setdefault(node, {})[plugin] = int(score)
        else:
            current.setdefault(pod, {}).setdefault(node, {})["total"] = int(score)
            scores[pod] = current[pod]
    return scores


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cp", required=True)
    ap.add_argument("--input", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    inp = json.load(open(args.input))
    api = Api(args.cp)
    setup(api, inp)
    placements = []
    started = time.time()
    for pod in inp["pods"]:
        api.create(pod_path(pod), pod)
        node, message = wait("a decision on " + pod["metadata"]["name"], lambda: outcome(api, pod))
        if node is None:
            delete_now(api, pod)
        key = f"{pod['metadata'].get('namespace', 'default')}/{pod['metadata']['name']}"
        placements.append({"pod": key, "node": node, "message": message})
    elapsed = time.time() - started
    scores = scores_from_log(os.path.join(args.cp, "logs", "kube-scheduler.log"))
    for p in placements:
        p["scores"] = scores.get(p["pod"], {})
    with open(args.out, "w") as f:
        json.dump({"placements": placements, "seconds": round(elapsed, 1)}, f, indent=1)
    print(f"{args.out}: {len(placements)} pods placed by kube-scheduler in {elapsed:.1f} s")


if __name__ == "__main__":
    main()
