#!/usr/bin/env python3
"""The fleet day on KWOK and in dglsim: the measuring half of scripts/kwok-speed.sh.

Subcommands (scripts/kwok-speed.sh calls them in this order; docs/performance.md, "Against KWOK"):

  twin REPORT.json MANIFESTS_DIR OUT_DIR --compress C --copies K [--hours H] [--jobs N]
      From the JSON report of `dglsim run scenarios/scale/fleet-day.yaml` (each job's submit time,
      phases and pods) writes the fleet day's twin that both paths run: K copies of its nodes
      (50 eight-GPU machines each) and of its jobs, every time divided by C. Each job is its
      template of scenarios/scale/manifests/ (found by partition mode and worker count) with the
      DGL containers replaced by the generic program (image busybox, command `task`), steered by the
      annotations tests/controlplane/kwok-stages.yaml plays on KWOK and dglsim's generic program
      reads: the launcher initializes for the job's Pending -> Training span and runs for its
      Training -> Succeeded span (dglsim.io/duration), the partitioner (DGL-API) runs for the
      Partitioning -> Partitioned span, workers run until the operator deletes them;
      ttlSecondsAfterFinished is divided by C too. --hours H keeps the jobs submitted in the day's
      first H hours; --jobs N the first N jobs, on one node per worker (the tiny test).
      Writes OUT_DIR/jobs.json ([{at, job}] in submit order), OUT_DIR/nodes.json (a v1 List) and
      OUT_DIR/twin.yaml (a dglsim scenario of the same nodes and jobs).
  kwok CONTROL_PLANE_DIR TWIN_DIR OPERATOR OUT.json [--deadline-slack S]
      The real path: the nodes created (KWOK makes them Ready), dgl-operator started with the
      admin kubeconfig, then each job created at its (compressed) time while two watches record
      every pod's and job's transitions. Ends when every job was seen in a terminal phase and no
      pod of the namespace is left, or at the deadline (the twin's last nominal end plus S
      seconds). CPU: utime + stime of every process of etcd, kube-apiserver, kube-scheduler,
      kube-controller-manager, kwok and dgl-operator (their process groups, /proc/PID/stat),
      between the first job's creation and the end; peak memory: the sum of their VmHWM.
  sim DGLSIM TWIN_DIR OUT.json
      The simulated path: `dglsim run twin.yaml` as a child process; CPU and peak resident memory
      from its rusage, pods and job phases from its JSON report.
  report WORK_DIR OUT_DIR --compress C --hours H [--commit C] [--kubernetes V] [--tiny 1] [--splice MD]
      Reads what scripts/kwok-speed.sh left in WORK_DIR (fleet-day.json/.time/.load, steps/twin-K.summary,
      steps/kwok-K.json, steps/sim-K.json) and writes OUT_DIR/kwok-speed.json, .csv and .md (the report
      section); --splice puts the section before "## Targets" of MD (replacing the one there) and its
      row into the Targets table. --tiny 1 first checks the mechanics of step 1 (both paths ran every
      job to Succeeded and every pod of the twin, the real path saw every pod run and be deleted, and
      every figure is there) and exits 1, saying what failed, when they do not hold.

The figures are written as JSON; a path that did not finish says why in "problems" (exit 0: the
caller decides). Exit 2 for bad usage or unreadable input, with the file and what is wrong.
"""
import argparse
import glob
import http.client
import json
import os
import ssl
import subprocess
import sys
import threading
import time
import urllib.parse

import yaml

NAMESPACE = "fleet"
NODES_PER_COPY = 50
NODE_CAPACITY = {"cpu": "96", "memory": "768Gi", "nvidia.com/gpu": "8",
                 "ephemeral-storage": "2Ti", "pods": "110"}
WORKER_FOREVER = "24h"  # workers run until the operator deletes them (cleanPodPolicy: All)
TERMINAL = ("Succeeded", "Failed")
# The real path keeps up with the compressed day when every job succeeds, every pod is gone by the
# deadline, and the jobs' lag (how much later than its compressed duration a job ends) does not
# grow: the median lag of the later half of the jobs (in submit order) is at most this many wall
# seconds above the earlier half's. A steady lag is latency (a 32-worker job's pods are created
# one request at a time); a growing one is a backlog, the real path falling behind real time. It
# has fallen behind, too, when a job ended before the operator created all its pods (KWOK ends a
# launcher's init containers after a set time, not when its workers run).
LAG_GROWTH_S = 5.0


def die(msg):
    print(f"kwok_speed.py: {msg}", file=sys.stderr)
    sys.exit(2)


def ms(seconds):
    return f"{max(0, round(seconds * 1000))}ms"


# ---------------------------------------------------------------------------------------------
# twin

def load_templates(manifests_dir):
    """(partition mode, workers) -> the DGLJob of that fleet template."""
    out = {}
    for path in sorted(glob.glob(os.path.join(manifests_dir, "*.yaml"))):
        try:
            job = yaml.safe_load(open(path))
            spec = job["spec"]
            out[(spec["partitionMode"], spec["dglReplicaSpecs"]["Worker"]["replicas"])] = job
        except (OSError, yaml.YAMLError, KeyError, TypeError) as e:
            die(f"{path}: not a DGLJob template ({e})")
    if not out:
        die(f"{manifests_dir}: no templates")
    return out


def generic_template(template, annotations):
    """A replica's pod template with its containers turned into the generic program."""
    spec = json.loads(json.dumps(template.get("spec", {})))
    for c in spec.get("containers", []):
        c["image"] = "busybox"
        c["command"] = ["task"]
        c.pop("args", None)
    return {"metadata": {"annotations": annotations}, "spec": spec}


def twin_job(report_job, templates, compress, name):
    mode = report_job["partitionMode"]
    base = 2 if mode == "DGL-API" else 1  # the launcher, and DGL-API's partitioner
    sizes = sorted(w for (m, w) in templates if m == mode)
    fits = [w for w in sizes if w + base <= report_job["podsCreated"]]
    if not fits:
        die(f"job {report_job['name']}: no {mode} template has {report_job['podsCreated'] - base} workers or fewer")
    template = templates[(mode, fits[-1])]
    first, last = {}, {}
    for p in report_job["phases"]:
        first.setdefault(p["phase"], p["at"])
        last[p["phase"]] = p["at"]
    for needed in ("Pending", "Training", "Succeeded"):
        if needed not in last:
            die(f"job {report_job['name']}: never {needed} in the report: the twin needs a job that succeeded")
    init = (last["Training"] - first["Pending"]) / compress
    train = (last["Succeeded"] - last["Training"]) / compress
    replicas = template["spec"]["dglReplicaSpecs"]
    launcher = {"dglsim.io/duration": ms(train), "kwok.dglsim.io/init-duration": ms(init),
                "kwok.dglsim.io/init-running": "watcher-loop-partitioner" if mode == "DGL-API" else "dist-partitioner"}
    specs = {"Launcher": {"replicas": 1, "template": generic_template(replicas["Launcher"]["template"], launcher)},
             "Worker": {"replicas": fits[-1],
                        "template": generic_template(replicas["Worker"]["template"], {"dglsim.io/duration": WORKER_FOREVER})}}
    if mode == "DGL-API":
        part = (last.get("Partitioned", last["Training"]) - last.get("Partitioning", first["Pending"])) / compress
        specs["Partitioner"] = {"replicas": 1, "template": generic_template(replicas["Partitioner"]["template"],
                                                                           {"dglsim.io/duration": ms(part)})}
    run_policy = dict(template["spec"].get("runPolicy", {}))
    if "ttlSecondsAfterFinished" in run_policy:
        run_policy["ttlSecondsAfterFinished"] = max(1, round(run_policy["ttlSecondsAfterFinished"] / compress))
    job = {"apiVersion": "kubeflow.org/v1alpha1", "kind": "DGLJob",
           "metadata": {"name": name, "namespace": NAMESPACE},
           "spec": {"partitionMode": mode, "runPolicy": run_policy, "dglReplicaSpecs": specs}}
    nominal = (last["Succeeded"] - report_job["submitted"]) / compress
    pods = 1 + fits[-1] + (1 if mode == "DGL-API" else 0)
    return job, nominal, pods


def cmd_twin(a):
    try:
        report = json.load(open(a.report))
    except (OSError, ValueError) as e:
        die(f"{a.report}: {e}")
    templates = load_templates(a.manifests)
    jobs = sorted(report.get("jobs", []), key=lambda j: (j["submitted"], j["name"]))
    if a.hours:
        jobs = [j for j in jobs if j["submitted"] < a.hours * 3600]
    if a.jobs:
        jobs = jobs[:a.jobs]
    if not jobs:
        die(f"{a.report}: no job to run")
    entries = []
    for copy in range(a.copies):
        for j in jobs:
            job, nominal, pods = twin_job(j, templates, a.compress, f"c{copy}-{j['name']}")
            entries.append({"at": j["submitted"] / a.compress, "nominal": nominal, "pods": pods, "job": job})
    entries.sort(key=lambda e: (e["at"], e["job"]["metadata"]["name"]))
    # A few jobs (--jobs) get one node per worker, so none waits for another's machines.
    workers = sum(e["job"]["spec"]["dglReplicaSpecs"]["Worker"]["replicas"] for e in entries)
    nodes = NODES_PER_COPY * a.copies if not a.jobs else min(NODES_PER_COPY * a.copies, workers)
    os.makedirs(a.out, exist_ok=True)
    json.dump(entries, open(os.path.join(a.out, "jobs.json"), "w"), indent=1)
    node_list = {"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "v1", "kind": "Node",
         "metadata": {"name": f"gpu-{i}", "annotations": {"kwok.x-k8s.io/node": "fake"}},
         "status": {"capacity": NODE_CAPACITY, "allocatable": NODE_CAPACITY}} for i in range(nodes)]}
    json.dump(node_list, open(os.path.join(a.out, "nodes.json"), "w"))
    end = max(e["at"] + e["nominal"] for e in entries) if entries else 0
    scenario = {"apiVersion": "dglsim/v1", "kind": "Scenario",
                "metadata": {"name": "fleet-day-kwok-twin",
                             "description": f"the fleet day's pods and lifetimes, {a.copies}x, time divided by {a.compress:g}"},
                "seed": 1, "until": f"{round(end * 3 + 600)}s",
                # KWOK pulls no image and starts a bound pod at once: so do the twin's nodes.
                "cluster": {"nodes": [{"name": "gpu", "count": nodes, "capacity": NODE_CAPACITY}],
                            "images": {"defaultSize": "1Ki", "pullBandwidth": "100GBps"},
                            "timings": {"podStartup": "0s"}},
                "expect": [{"pods": {"namespace": NAMESPACE}, "count": 0, "at": "end"}, {"invariants": "all"}]}
    with open(os.path.join(a.out, "twin.yaml"), "w") as f:
        f.write("# Generated by tests/controlplane/kwok_speed.py twin: do not edit.\n")
        yaml.safe_dump(scenario, f, sort_keys=False, width=1 << 20)
        f.write("jobs:\n")  # each job inline as one line of JSON (a YAML flow mapping)
        for e in entries:
            f.write(f"  - at: {ms(e['at'])}\n    inline: {json.dumps(e['job'])}\n")
    print(json.dumps({"jobs": len(entries), "nodes": nodes, "pods": sum(e["pods"] for e in entries),
                      "nominal_end_s": round(end, 3)}))


# ---------------------------------------------------------------------------------------------
# the real path

class Api:
    def __init__(self, cpdir):
        server = open(os.path.join(cpdir, "server")).read().strip()
        u = urllib.parse.urlparse(server)
        self.host, self.port = u.hostname, u.port
        self.token = open(os.path.join(cpdir, "token")).read().strip()
        self.ctx = ssl.create_default_context(cafile=os.path.join(cpdir, "pki", "ca.crt"))

    def conn(self, timeout=60):
        return http.client.HTTPSConnection(self.host, self.port, context=self.ctx, timeout=timeout)

    def headers(self):
        return {"Authorization": f"Bearer {self.token}", "Content-Type": "application/json",
                "Accept": "application/json"}

    def call(self, conn, method, path, body=None):
        conn.request(method, path, body=None if body is None else json.dumps(body), headers=self.headers())
        r = conn.getresponse()
        data = r.read()
        try:
            return r.status, json.loads(data) if data else {}
        except ValueError:
            return r.status, {"raw": data[:200].decode(errors="replace")}


class Watch(threading.Thread):
    """Lists PATH then watches it, calling on_event(type, object, monotonic time) for each event;
    reconnects from the last resourceVersion when the server closes the stream."""

    def __init__(self, api, path, on_event):
        super().__init__(daemon=True)
        self.api, self.path, self.on_event = api, path, on_event
        self.ready = threading.Event()
        self.error = None

    def run(self):
        try:
            conn = self.api.conn()
            deadline = time.monotonic() + 60
            while True:  # a CRD just Established may answer 404 or 429 ("storage is (re)initializing") a while
                status, lst = self.api.call(conn, "GET", self.path)
                if status == 200 or status not in (404, 429) or time.monotonic() > deadline:
                    break
                time.sleep(0.5)
            if status != 200:
                raise RuntimeError(f"GET {self.path}: {status} {lst}")
            now = time.monotonic()
            for item in lst.get("items", []):
                self.on_event("ADDED", item, now)
            rv = lst["metadata"]["resourceVersion"]
            self.ready.set()
            while True:
                conn = self.api.conn(timeout=None)
                conn.request("GET", f"{self.path}?watch=1&allowWatchBookmarks=true&timeoutSeconds=3600&resourceVersion={rv}",
                             headers=self.api.headers())
                r = conn.getresponse()
                if r.status != 200:
                    raise RuntimeError(f"watch {self.path}: {r.status}")
                while True:
                    line = r.readline()
                    if not line:
                        break
                    ev = json.loads(line)
                    obj = ev["object"]
                    if ev["type"] == "ERROR":
                        raise RuntimeError(f"watch {self.path}: {obj.get('message')}")
                    rv = obj["metadata"]["resourceVersion"]
                    if ev["type"] != "BOOKMARK":
                        self.on_event(ev["type"], obj, time.monotonic())
        except Exception as e:  # noqa: BLE001 -- reported as a problem of the run
            self.error = str(e)
            self.ready.set()


class Tracker:
    """What the watches saw: per pod its creation, Running, terminal phase and deletion; per job
    its phases."""

    def __init__(self):
        self.lock = threading.Lock()
        self.pods = {}  # uid -> {name, created, running, phase, ended, deleted}
        self.jobs = {}  # name -> {phases: {phase: first time}, deleted}

    def pod(self, kind, obj, now):
        uid = obj["metadata"]["uid"]
        with self.lock:
            p = self.pods.setdefault(uid, {"name": obj["metadata"]["name"], "created": now, "running": None,
                                           "phase": None, "ended": None, "deleted": None})
            phase = obj.get("status", {}).get("phase")
            if phase == "Running" and p["running"] is None:
                p["running"] = now
            if phase in TERMINAL and p["ended"] is None:
                p["ended"] = now
            p["phase"] = phase or p["phase"]
            if kind == "DELETED":
                p["deleted"] = now

    def job(self, kind, obj, now):
        with self.lock:
            j = self.jobs.setdefault(obj["metadata"]["name"], {"phases": {}, "deleted": None})
            phase = obj.get("status", {}).get("phase")
            if phase:
                j["phases"].setdefault(phase, now)
            if kind == "DELETED":
                j["deleted"] = now


def group_procs(pgid):
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                fields = open(f"/proc/{d}/stat").read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == pgid:  # field 5 of stat, the process group
                out.append(int(d))
    return out


def proc_cpu(pid):
    """utime + stime + the reaped children's, in seconds."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def proc_hwm(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return 0


def sample(components):
    """component -> (CPU seconds, peak RSS bytes), over every process of its group."""
    out = {}
    for name, pgid in components.items():
        cpu = rss = 0
        for pid in group_procs(pgid):
            try:
                cpu += proc_cpu(pid)
                rss += proc_hwm(pid)
            except OSError:
                pass
        out[name] = (cpu, rss)
    return out


def create_nodes(api, twin):
    conn = api.conn()
    nodes = json.load(open(os.path.join(twin, "nodes.json")))["items"]
    for n in nodes:
        status, body = api.call(conn, "POST", "/api/v1/nodes", n)
        if status not in (201, 409):
            raise RuntimeError(f"create node {n['metadata']['name']}: {status} {body}")
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        status, body = api.call(conn, "GET", "/api/v1/nodes")
        ready = sum(1 for n in body.get("items", []) for c in n.get("status", {}).get("conditions", [])
                    if c["type"] == "Ready" and c["status"] == "True")
        if ready >= len(nodes):
            return len(nodes)
        time.sleep(0.5)
    raise RuntimeError(f"only {ready} of {len(nodes)} KWOK nodes became Ready in 120 s")


def percentile(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else None


def cmd_kwok(a):
    api = Api(a.cpdir)
    entries = json.load(open(os.path.join(a.twin, "jobs.json")))
    problems = []
    conn = api.conn()
    status, body = api.call(conn, "POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                                                  "metadata": {"name": NAMESPACE}})
    if status not in (201, 409):
        die(f"create namespace {NAMESPACE}: {status} {body}")
    deadline = time.monotonic() + 60  # kube-controller-manager creates its default ServiceAccount
    while api.call(conn, "GET", f"/api/v1/namespaces/{NAMESPACE}/serviceaccounts/default")[0] != 200:
        if time.monotonic() > deadline:
            die(f"no default ServiceAccount in {NAMESPACE} after 60 s")
        time.sleep(0.2)
    nodes = create_nodes(api, a.twin)
    tracker = Tracker()
    watches = [Watch(api, f"/api/v1/namespaces/{NAMESPACE}/pods", tracker.pod),
               Watch(api, f"/apis/kubeflow.org/v1alpha1/namespaces/{NAMESPACE}/dgljobs", tracker.job)]
    for w in watches:
        w.start()
        w.ready.wait(60)
        if w.error:
            die(w.error)
    op_log = open(a.out + ".operator.log", "w")
    operator = subprocess.Popen([a.operator, "--kubeconfig", os.path.join(a.cpdir, "kubeconfig"),
                                 "--namespace", NAMESPACE], stdout=op_log, stderr=subprocess.STDOUT,
                                start_new_session=True)
    components = {name: int(open(os.path.join(a.cpdir, "pids", name)).read())
                  for name in sorted(os.listdir(os.path.join(a.cpdir, "pids")))}
    components["dgl-operator"] = operator.pid
    time.sleep(1)  # the operator's informers list before the first job arrives (not a synchronisation: any delay works)
    loads = [os.getloadavg()[0]]
    before = sample(components)
    driver_before = time.process_time()
    t0 = time.monotonic()
    submitted = {}
    for e in entries:
        delay = t0 + e["at"] - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        status, body = api.call(conn, "POST", f"/apis/kubeflow.org/v1alpha1/namespaces/{NAMESPACE}/dgljobs", e["job"])
        submitted[e["job"]["metadata"]["name"]] = time.monotonic()
        if status != 201:
            problems.append(f"create {e['job']['metadata']['name']}: {status} {body.get('message', body)}")
        if len(loads) < (time.monotonic() - t0) / 5:
            loads.append(os.getloadavg()[0])
    nominal_end = max(e["at"] + e["nominal"] for e in entries)
    deadline = t0 + nominal_end + a.deadline_slack
    names = [e["job"]["metadata"]["name"] for e in entries]

    def done():
        with tracker.lock:
            jobs_done = all(n in tracker.jobs and any(p in tracker.jobs[n]["phases"] for p in TERMINAL) for n in names)
            pods_gone = all(p["deleted"] is not None for p in tracker.pods.values())
        return jobs_done and pods_gone

    while not done() and time.monotonic() < deadline and operator.poll() is None:
        time.sleep(0.2)
        if len(loads) < (time.monotonic() - t0) / 5:
            loads.append(os.getloadavg()[0])
    t1 = time.monotonic()
    after = sample(components)
    driver_cpu = time.process_time() - driver_before
    loads.append(os.getloadavg()[0])
    if operator.poll() is not None:
        problems.append(f"dgl-operator exited with {operator.returncode}")
    operator.terminate()
    try:
        operator.wait(10)
    except subprocess.TimeoutExpired:
        operator.kill()
    for w in watches:
        if w.error:
            problems.append(w.error)
    if not done():
        problems.append(f"not done {a.deadline_slack:g} s after the nominal end ({nominal_end:.1f} s)")
    write_kwok_result(a, entries, tracker, submitted, components, before, after, t0, t1, nodes, loads,
                      driver_cpu, problems)


def write_kwok_result(a, entries, tracker, submitted, components, before, after, t0, t1, nodes, loads,
                      driver_cpu, problems):
    with tracker.lock:
        pods = list(tracker.pods.values())
        jobs = dict(tracker.jobs)
    phases = {}
    lags = []
    for e in entries:
        n = e["job"]["metadata"]["name"]
        j = jobs.get(n, {"phases": {}})
        end = next((p for p in TERMINAL if p in j["phases"]), None)
        phases[end or "unfinished"] = phases.get(end or "unfinished", 0) + 1
        if end and n in submitted:
            lags.append(j["phases"][end] - submitted[n] - e["nominal"])
    starts = [p["running"] - p["created"] for p in pods if p["running"] is not None]
    ended = sum(1 for p in pods if p["deleted"] is not None and p["running"] is not None)
    cpu = {k: round(after[k][0] - before[k][0], 3) for k in components}
    result = {
        "path": "kwok", "jobs": len(entries), "nodes": nodes, "pods": len(pods),
        "pods_expected": sum(e["pods"] for e in entries),
        "pods_ran_and_deleted": ended, "pods_left": sum(1 for p in pods if p["deleted"] is None),
        "job_phases": phases, "wall_s": round(t1 - t0, 3), "nominal_end_s": round(max(e["at"] + e["nominal"] for e in entries), 3),
        "cpu_s": round(sum(cpu.values()), 3), "cpu_by_process": cpu,
        "peak_rss_bytes": sum(after[k][1] for k in components),
        "peak_rss_by_process": {k: after[k][1] for k in components},
        "job_lag_s": {"p50": percentile(lags, 0.5), "p95": percentile(lags, 0.95), "max": max(lags) if lags else None},
        "pod_start_s": {"p50": percentile(starts, 0.5), "p95": percentile(starts, 0.95)},
        "load": {"min": min(loads), "max": max(loads), "mean": round(sum(loads) / len(loads), 2)},
        "driver_cpu_s": round(driver_cpu, 3), "problems": problems,
    }
    half = len(lags) // 2
    growth = percentile(lags[half:], 0.5) - percentile(lags[:half] or lags, 0.5) if lags else None
    result["job_lags_s"] = [round(x, 3) for x in lags]
    result["job_lag_growth_s"] = growth
    result["kept_up"] = (not problems and phases.get("Succeeded", 0) == len(entries) and lags != []
                         and growth <= LAG_GROWTH_S and result["pods_left"] == 0
                         and result["pods"] == result["pods_expected"])
    json.dump(result, open(a.out, "w"), indent=1)
    print(json.dumps({k: result[k] for k in ("jobs", "pods", "wall_s", "cpu_s", "job_phases", "job_lag_s", "problems")}))


# ---------------------------------------------------------------------------------------------
# the simulated path

def cmd_sim(a):
    scenario = os.path.join(a.twin, "twin.yaml")
    report = a.out + ".report.json"
    loads = [os.getloadavg()[0]]
    t0 = time.monotonic()
    before = os.times()
    proc = subprocess.run([a.dglsim, "run", "--quiet", "--json", report, scenario],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    t1 = time.monotonic()
    after = os.times()
    usage = __import__("resource").getrusage(__import__("resource").RUSAGE_CHILDREN)
    loads.append(os.getloadavg()[0])
    problems = [] if proc.returncode == 0 else [f"dglsim run exited {proc.returncode}: {proc.stdout[-400:]}"]
    try:
        rep = json.load(open(report))
    except (OSError, ValueError) as e:
        rep = {"jobs": []}
        problems.append(f"{report}: {e}")
    phases = {}
    for j in rep["jobs"]:
        phases[j["phase"]] = phases.get(j["phase"], 0) + 1
    entries = json.load(open(os.path.join(a.twin, "jobs.json")))
    result = {
        "path": "dglsim", "jobs": len(rep["jobs"]), "nodes": rep.get("cluster", {}).get("nodes"),
        "pods": sum(j.get("podsCreated", 0) for j in rep["jobs"]),
        "pods_expected": sum(e["pods"] for e in entries),
        "job_phases": phases, "wall_s": round(t1 - t0, 3),
        "cpu_s": round((after.children_user + after.children_system) - (before.children_user + before.children_system), 3),
        "peak_rss_bytes": usage.ru_maxrss * 1024, "simulated_s": rep.get("simulatedSeconds"),
        "passed": rep.get("passed"), "load": {"min": min(loads), "max": max(loads), "mean": round(sum(loads) / len(loads), 2)},
        "problems": problems,
    }
    # The simulator keeps up when it ran every job to Succeeded in fewer CPU seconds than the
    # compressed day lasts on the real path (CPU, not wall: on a shared machine its wall time is
    # what the other processes left it; it is single-threaded).
    result["nominal_end_s"] = round(max(e["at"] + e["nominal"] for e in entries), 3)
    result["kept_up"] = (not problems and phases.get("Succeeded", 0) == len(entries)
                         and result["cpu_s"] <= result["nominal_end_s"])
    os.remove(report) if os.path.exists(report) else None
    json.dump(result, open(a.out, "w"), indent=1)
    print(json.dumps({k: result[k] for k in ("jobs", "pods", "wall_s", "cpu_s", "job_phases", "problems")}))


# ---------------------------------------------------------------------------------------------
# the report

SECTION = "## Against KWOK"
TARGET_PREFIX = "| dglsim against KWOK"


def mb(b):
    return f"{b / 1e6:,.0f} MB"


def rate(pods, seconds):
    return pods / seconds if seconds else 0.0


def step_label(step):
    """A step's name: "x4" for four copies of the nodes and jobs, "j3" for the first 3 jobs alone."""
    return f"x{step}" if step.isdigit() else f"first {step[1:]} jobs"


def load_steps(work):
    """step id -> {twin, kwok, sim}, in the order scripts/kwok-speed.sh ran them (steps/order)."""
    steps = {}
    for step in open(os.path.join(work, "steps", "order")).read().split():
        st = steps.setdefault(step, {})
        st["twin"] = json.loads(open(os.path.join(work, "steps", f"twin-{step}.summary")).read())
        for kind in ("kwok", "sim"):
            path = os.path.join(work, "steps", f"{kind}-{step}.json")
            if os.path.exists(path):
                st[kind] = json.load(open(path))
    return steps


def check_tiny(steps):
    """The mechanics the CTest entry asserts: both paths ran every pod to its end."""
    bad = []
    first = next(iter(steps.values()), {})
    if "kwok" not in first or "sim" not in first:
        return ["the step did not run on both paths"]
    for path in ("kwok", "sim"):
        r = first[path]
        if r["problems"]:
            bad.append(f"{path}: {r['problems']}")
        if r["job_phases"].get("Succeeded", 0) != r["jobs"] or r["jobs"] != first["twin"]["jobs"]:
            bad.append(f"{path}: jobs {r['job_phases']}, not all {first['twin']['jobs']} Succeeded")
        # KWOK ends a launcher's init containers after a set time, not when its workers run: a
        # lagging operator may see a job end before it created every worker (fewer pods, never more).
        if r["pods"] != r["pods_expected"] and (path == "sim" or not r["jobs"] <= r["pods"] <= r["pods_expected"]):
            bad.append(f"{path}: {r['pods']} pods, the twin has {r['pods_expected']}")
        if not (r["cpu_s"] > 0 and r["wall_s"] > 0 and r["peak_rss_bytes"] > 0):
            bad.append(f"{path}: a figure is missing (cpu {r['cpu_s']}, wall {r['wall_s']}, peak {r['peak_rss_bytes']})")
    k = first["kwok"]
    # Every pod's end on the real path is its deletion (cleanPodPolicy All, then the job's TTL);
    # a worker the operator deletes before kwok started it (its job over) ended too, unrun.
    if k.get("pods_left") != 0 or not 0 < k.get("pods_ran_and_deleted", 0) <= k["pods"]:
        bad.append(f"kwok: {k.get('pods_ran_and_deleted')} of {k['pods']} pods ran and were deleted, {k.get('pods_left')} left")
    if set(k["cpu_by_process"]) != {"etcd", "kube-apiserver", "kube-scheduler", "kube-controller-manager", "kwok", "dgl-operator"}:
        bad.append(f"kwok: CPU of {sorted(k['cpu_by_process'])}, not of every process")
    return bad


def summarize(steps, fleet_day):
    rows = []
    for k, st in steps.items():
        for path in ("kwok", "sim"):
            if path not in st:
                continue
            r = st[path]
            rows.append({"step": k, "label": step_label(k), "path": "kwok" if path == "kwok" else "dglsim", "nodes": st["twin"]["nodes"],
                         "jobs": r["jobs"], "pods": r["pods"], "wall_s": r["wall_s"], "cpu_s": r["cpu_s"],
                         "lifecycles_per_wall_s": round(rate(r["pods"], r["wall_s"]), 2),
                         "lifecycles_per_cpu_s": round(rate(r["pods"], r["cpu_s"]), 2),
                         "peak_rss_bytes": r["peak_rss_bytes"], "kept_up": r["kept_up"],
                         "load_mean": r["load"]["mean"], "load_max": r["load"]["max"],
                         "job_lag_p50_s": (r.get("job_lag_s") or {}).get("p50"),
                         "job_lag_p95_s": (r.get("job_lag_s") or {}).get("p95"),
                         "job_lag_growth_s": r.get("job_lag_growth_s")})
    # The ratio at every step both paths ran; the headline at the fleet day's own size (x1: its
    # 50 nodes), else at the first such step.
    ratios = []
    for k, st in steps.items():
        if "kwok" in st and "sim" in st:
            kw, sm = st["kwok"], st["sim"]
            ratios.append({"step": k, "label": step_label(k), "pods": sm["pods"], "kwok_kept_up": kw["kept_up"],
                           "cpu": rate(sm["pods"], sm["cpu_s"]) / max(rate(kw["pods"], kw["cpu_s"]), 1e-9),
                           "wall": rate(sm["pods"], sm["wall_s"]) / max(rate(kw["pods"], kw["wall_s"]), 1e-9),
                           "memory": kw["peak_rss_bytes"] / max(sm["peak_rss_bytes"], 1)})
    ratio = next((r for r in ratios if r["step"] == "1"), ratios[0] if ratios else None)
    return rows, ratio, ratios


def cmd_report(a):
    steps = load_steps(a.work)
    if a.tiny:
        bad = check_tiny(steps)
        for b in bad:
            print(f"FAIL: {b}")
        if bad:
            sys.exit(1)
    t = open(os.path.join(a.work, "fleet-day.time")).read().split()
    fd_report = json.load(open(os.path.join(a.work, "fleet-day.json")))
    fleet_day = {"pods": sum(j.get("podsCreated", 0) for j in fd_report["jobs"]), "jobs": len(fd_report["jobs"]),
                 "cpu_s": float(t[0]) + float(t[1]), "wall_s": float(t[2]), "peak_rss_bytes": int(t[3]) * 1024,
                 "simulated_s": fd_report["simulatedSeconds"],
                 "load": open(os.path.join(a.work, "fleet-day.load")).read().split()}
    rows, ratio, ratios = summarize(steps, fleet_day)
    kwok_held = [r for r in rows if r["path"] == "kwok" and r["kept_up"]]
    sim_held = [r for r in rows if r["path"] == "dglsim" and r["kept_up"]]
    figures = {"commit": a.commit, "build": a.build, "kubernetes": a.kubernetes, "kwok": "v0.8.0", "compress": a.compress,
               "hours": a.hours, "cores": os.cpu_count(), "fleet_day": fleet_day, "steps": rows, "ratio": ratio, "ratios": ratios,
               "largest_kwok": kwok_held[-1] if kwok_held else None,
               "largest_dglsim": sim_held[-1] if sim_held else None,
               "cpu_by_process": {k: st["kwok"]["cpu_by_process"] for k, st in steps.items() if "kwok" in st},
               "peak_rss_by_process": {k: st["kwok"]["peak_rss_by_process"] for k, st in steps.items() if "kwok" in st}}
    md = section(figures)
    figures["target_row"] = target_row(figures)
    os.makedirs(a.out, exist_ok=True)
    json.dump(figures, open(os.path.join(a.out, "kwok-speed.json"), "w"), indent=1)
    with open(os.path.join(a.out, "kwok-speed.csv"), "w") as f:
        cols = list(rows[0]) if rows else []
        f.write(",".join(cols) + "\n")
        for r in rows:
            f.write(",".join("" if r[c] is None else str(r[c]) for c in cols) + "\n")
    open(os.path.join(a.out, "kwok-speed.md"), "w").write(md)
    if a.splice:
        splice(a.splice, md, figures["target_row"])
    print(f"kwok-speed: wrote {a.out}/kwok-speed.json, .csv, .md" + (f" and the section of {a.splice}" if a.splice else ""))


def target_row(f):
    r = f["ratio"]
    if not r:
        return f"{TARGET_PREFIX}: pod lifecycles per CPU second | not measured | - |"
    held = "" if r["kwok_kept_up"] else ", where the real path fell behind"
    return (f"{TARGET_PREFIX}: pod lifecycles per CPU second, the fleet day's pods ({r['label']}, {r['pods']:,} pods){held} "
            f"| {r['cpu']:,.0f}x (peak memory {r['memory']:,.0f}x smaller) | no target: a peer measured |")


def section(f):
    w = []
    r = f["ratio"]
    steps = f["steps"]
    w.append(f"{SECTION} (`scripts/kwok-speed.sh`)")
    w.append("")
    w.append(f"The fleet day's nodes (50 eight-GPU machines per copy), its jobs submitted in its first {f['hours']:g} h "
             f"and their pods' lifetimes (as `dglsim run` of `fleet-day.yaml` times them under the DGL workload models), "
             f"every time divided by {f['compress']:g}, run twice on this machine in one run: through etcd, kube-apiserver, "
             f"kube-scheduler and kube-controller-manager {f['kubernetes']} with KWOK {f['kwok']} playing the nodes and pods "
             f"and `dgl-operator --kubeconfig` running the jobs (the real path), and through `dglsim run` of the same jobs "
             f"and nodes. Step xK runs K copies of the nodes and of the jobs at once (\"first N jobs\": those alone, "
             f"on one node per worker); the real path's steps grow "
             f"until it falls behind (a job not Succeeded, a pod left 30 s after the compressed day's end, a job that "
             f"ended before the operator had created all its pods, or the jobs' lag growing: the median lag of the later "
             f"half of the jobs more than 5 s above the earlier half's; a steady lag is latency, not a backlog), dglsim's while it needs fewer CPU seconds than the real path's day lasts. A "
             f"pod lifecycle is a pod created, bound, run and deleted. CPU is user + system seconds: on the real path "
             f"the sum over etcd, kube-apiserver, kube-scheduler, kube-controller-manager, kwok and dgl-operator from "
             f"the first job's creation to the end (the driver's watches are not counted); peak memory is the sum of "
             f"their peak resident sets. Code: commit `{f['commit']}`, dglsim and dgl-operator of a {f['build']}; "
             f"{f['cores']} cores.")
    w.append("")
    w.append("The machine was shared with other builds while this ran (the load average below is the one-minute "
             "figure, sampled every 5 s during each measurement): the real path runs in real time and its wall "
             "figures are what the compression asked for, its CPU seconds and dglsim's are the figures to compare.")
    w.append("")
    w.append("| step | path | nodes | jobs | pods | wall s | CPU s | lifecycles / wall s | lifecycles / CPU s | peak memory | job lag p50 / p95 (growth) | load (mean, max) | kept up |")
    w.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for s in steps:
        lag = "-" if s["job_lag_p50_s"] is None else f"{s['job_lag_p50_s']:.1f} / {s['job_lag_p95_s']:.1f} s"
        if s.get("job_lag_growth_s") is not None:
            lag += f" ({s['job_lag_growth_s']:+.1f} s)"
        w.append(f"| {s['label']} | {'real path (KWOK)' if s['path'] == 'kwok' else 'dglsim'} | {s['nodes']:,} | {s['jobs']:,} | "
                 f"{s['pods']:,} | {s['wall_s']:,.1f} | {s['cpu_s']:,.2f} | {s['lifecycles_per_wall_s']:,.1f} | "
                 f"{s['lifecycles_per_cpu_s']:,.1f} | {mb(s['peak_rss_bytes'])} | {lag} | {s['load_mean']:.1f}, {s['load_max']:.1f} | "
                 f"{'yes' if s['kept_up'] else 'no'} |")
    w.append("")
    if f["cpu_by_process"]:
        w.append("The real path's CPU seconds and peak memory by process:")
        w.append("")
        names = sorted(next(iter(f["cpu_by_process"].values())))
        w.append("| step | " + " | ".join(names) + " |")
        w.append("|---|" + "---|" * len(names))
        for k, cpu in f["cpu_by_process"].items():
            rss = f["peak_rss_by_process"][k]
            w.append(f"| {step_label(k)} | " + " | ".join(f"{cpu.get(n, 0):,.1f} s, {mb(rss.get(n, 0))}" for n in names) + " |")
        w.append("")
    if r and r["step"] in f["cpu_by_process"]:
        cpu = f["cpu_by_process"][r["step"]]
        top = max(cpu, key=cpu.get)
        w.append(f"At step {r['label']} the real path's CPU went mostly to {top} ({100 * cpu[top] / max(sum(cpu.values()), 1e-9):.0f} %); "
                 f"kwok itself spent {cpu.get('kwok', 0):.1f} s."
                 + (" dgl-operator's HTTPS client (fakeapi/client/http_client.cc) opens a new connection for every "
                    "request, with a new TLS context, certificate store and handshake, and sends its requests one at "
                    "a time: most of its CPU and its lag here are that, not its reconciles."
                    if top == "dgl-operator" else ""))
        w.append("")
    fd = f["fleet_day"]
    w.append(f"For scale: the fleet day itself under the DGL workload models (`dglsim run scenarios/scale/fleet-day.yaml`, "
             f"{fd['pods']:,} pods over {fd['simulated_s'] / 3600:.1f} simulated hours) took {fd['cpu_s']:.2f} CPU s and "
             f"{mb(fd['peak_rss_bytes'])}: {rate(fd['pods'], fd['cpu_s']):,.0f} lifecycles per CPU second, with the models' "
             f"work (partitioning, data loading, training epochs, the network) besides.")
    w.append("")
    if r:
        w.append(f"**Ratio** at step {r['label']}, the fleet day's own 50 nodes"
                 + ("" if r["kwok_kept_up"] else " (where the real path fell behind)")
                 + f": dglsim handles {r['cpu']:,.0f} times as many pod lifecycles per CPU second as the real path, "
                 f"{r['wall']:,.0f} times as many per wall second (the real path's wall time is the compressed day's "
                 f"by design), in {r['memory']:,.0f} times less memory. At each step both ran:")
        w.append("")
        w.append("| step | pods | lifecycles per CPU s, dglsim / real path | per wall s | peak memory, real path / dglsim | real path kept up |")
        w.append("|---|---|---|---|---|---|")
        for x in f["ratios"]:
            w.append(f"| {x['label']} | {x['pods']:,} | {x['cpu']:,.0f}x | {x['wall']:,.0f}x | {x['memory']:,.0f}x | "
                     f"{'yes' if x['kwok_kept_up'] else 'no'} |")
        w.append("")
    lk, ls = f["largest_kwok"], f["largest_dglsim"]
    w.append("**Largest cluster held**: the real path, "
             + (f"{lk['nodes']:,} nodes and {lk['pods']:,} pods ({lk['label']}, {lk['lifecycles_per_wall_s']:,.1f} "
                f"lifecycles per wall second)" if lk else "none of the steps (it fell behind at the first)")
             + "; dglsim, "
             + (f"{ls['nodes']:,} nodes and {ls['pods']:,} pods ({ls['label']}) in this run, which stops after a step of 10 CPU "
                f"seconds or more; the scale scenarios above take it to 70,000 nodes and about a million pods"
                if ls else "none of the steps")
             + ".")
    w.append("")
    w.append("What the real path does that dglsim does not: a real kube-apiserver (authentication, RBAC, admission, "
             "validation, etcd persistence, watch caches), the real kube-scheduler and the real controllers (garbage "
             "collector, node lifecycle, service accounts, endpoints), and the operator's real HTTPS client, all in "
             "real time: what it measures includes the protocols' and the processes' costs, and lag a real cluster "
             "would show. What dglsim does that the real path does not: simulated time (a day takes what its events "
             "cost, not a day; the same seed gives the same run), and, in `fleet-day.yaml` itself, the DGL workload "
             "models (partitioning, data loading, epochs, the network and storage flows, image pulls): KWOK's pods "
             "only change phase after a delay given to them, which is why both paths here run the generic program "
             "with the durations the models computed. Neither path runs a kubelet or a container.")
    w.append("")
    return "\n".join(w) + "\n"


def splice(path, md, row):
    """Replaces (or adds, before "## Targets") the section in PATH, and its row of the Targets table."""
    lines = open(path).read().split("\n")
    out, skip = [], False
    for line in lines:
        if line.startswith(SECTION):
            skip = True
            continue
        if skip and line.startswith("## "):
            skip = False
        if not skip and not line.startswith(TARGET_PREFIX):
            out.append(line)
    try:
        at = out.index("## Targets")
    except ValueError:
        die(f"{path}: no '## Targets' section to put the section before")
    out[at:at] = md.rstrip("\n").split("\n") + [""]
    at = out.index("## Targets") + 1
    while at < len(out) and not out[at].startswith("|"):
        at += 1
    while at < len(out) and out[at].startswith("|"):
        at += 1
    out.insert(at, row)
    open(path, "w").write("\n".join(out))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("twin")
    t.add_argument("report")
    t.add_argument("manifests")
    t.add_argument("out")
    t.add_argument("--compress", type=float, required=True)
    t.add_argument("--copies", type=int, default=1)
    t.add_argument("--jobs", type=int, default=0)
    t.add_argument("--hours", type=float, default=0)
    k = sub.add_parser("kwok")
    k.add_argument("cpdir")
    k.add_argument("twin")
    k.add_argument("operator")
    k.add_argument("out")
    k.add_argument("--deadline-slack", type=float, default=60)
    s = sub.add_parser("sim")
    s.add_argument("dglsim")
    s.add_argument("twin")
    s.add_argument("out")
    r = sub.add_parser("report")
    r.add_argument("work")
    r.add_argument("out")
    r.add_argument("--compress", type=float, required=True)
    r.add_argument("--hours", type=float, required=True)
    r.add_argument("--commit", default="unknown")
    r.add_argument("--kubernetes", default="unknown")
    r.add_argument("--build", default="unknown")
    r.add_argument("--tiny", type=int, default=0)
    r.add_argument("--splice")
    a = p.parse_args()
    if getattr(a, "compress", 1) <= 0 or getattr(a, "copies", 1) < 1:
        die("--compress must be positive and --copies at least 1")
    {"twin": cmd_twin, "kwok": cmd_kwok, "sim": cmd_sim, "report": cmd_report}[a.cmd](a)


if __name__ == "__main__":
    main()
