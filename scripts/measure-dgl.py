#!/usr/bin/env python3
"""Measure the real DGL partitioning pipeline on this machine (reports/dgl-measured/).

What it runs, on synthetic graphs of growing size with and without locality (R-MAT, uniform random,
and a planted-community graph: 90 % of a node's edges inside its community of 1,024 nodes):

  partition_graph   dgl.distributed.partition_graph with METIS and with random assignment, at each
                    part count of --parts; DGL's own step lines (to homogeneous, to bidirected,
                    METIS, reshuffle, split, save) are parsed into the record.
  chunked           DGL's chunked pipeline, when --dgl-tools names the tools/ folder of the DGL
                    release that is installed (they are not in the wheel): chunk_graph.py writes the
                    chunked format, partition_algo/random_partition.py assigns the nodes, and
                    distpartitioning/data_proc_pipeline.py (what dispatch_data.py launches over ssh)
                    runs one rank per part on this machine, rendezvous over 127.0.0.1.

Every measurement runs in a fresh child process: wall time, CPU time (user + sys, from wait4) and
peak resident memory (ru_maxrss of that child; for the chunked pipeline's ranks, the largest rank's
and the sum over ranks, which run at once), the load average before and after. A watchdog kills a
child whose resident memory passes --mem-limit-gib (the machine is shared), and the record says so.

DGL and torch are measurement dependencies only, never CI's: install them outside the tree, e.g.

  python3 -m venv ~/.cache/dglsim/dgl-venv
  ~/.cache/dglsim/dgl-venv/bin/pip install torch==2.1.2 torchdata==0.7.1 dgl==2.1.0 'numpy<2' \
      pandas pyarrow pydantic pyyaml psutil
  ~/.cache/dglsim/dgl-venv/bin/python scripts/measure-dgl.py --quick --out /tmp/dgl-quick
  ~/.cache/dglsim/dgl-venv/bin/python scripts/measure-dgl.py --max-edges 64000000 \
      --dgl-tools ~/.cache/dglsim/dgl-tools-2.1.0/tools

Writes <out>/<generator><--name>.yaml (one record per measurement, with the machine, the versions and the
load) and prints one progress line per measurement to stderr. Exit 2 on bad arguments.
"""
import argparse
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

GENERATORS = ("rmat", "random", "community")
COMMUNITY = 1024
INTRA_SHARE = 0.9
FEAT_DIM_DEFAULT = 16

# DGL's step lines (python/dgl/distributed/partition.py, python/dgl/partition.py) -> record keys.
STEP_PATTERNS = [
    ("toHomogeneous", r"Converting to homogeneous graph takes ([0-9.]+)s"),
    ("toBidirected", r"Convert a graph into a bidirected graph: ([0-9.]+) seconds"),
    ("constraintWeights", r"Construct multi-constraint weights: ([0-9.]+) seconds"),
    ("metis", r"Metis partitioning: ([0-9.]+) seconds"),
    ("assignment", r"Assigning nodes to METIS partitions takes ([0-9.]+)s"),
    ("reshuffle", r"Reshuffle nodes and edges: ([0-9.]+) seconds"),
    ("split", r"Split the graph: ([0-9.]+) seconds"),
    ("splitTotal", r"Splitting the graph into partitions takes ([0-9.]+)s"),
    ("save", r"Save partitions: ([0-9.]+) seconds"),
]


# ---- graphs -----------------------------------------------------------------------------------------

def make_edges(np, gen, nodes, edges, seed):
    """Directed edge list (src, dst) as int64 arrays; deterministic for (gen, nodes, edges, seed)."""
    rng = np.random.default_rng(seed)
    if gen == "random":
        return rng.integers(0, nodes, edges, dtype=np.int64), rng.integers(0, nodes, edges, dtype=np.int64)
    if gen == "community":
        src = rng.integers(0, nodes, edges, dtype=np.int64)
        inside = rng.random(edges) < INTRA_SHARE
        base = (src // COMMUNITY) * COMMUNITY
        local = base + rng.integers(0, COMMUNITY, edges, dtype=np.int64)
        dst = np.where(inside, np.minimum(local, nodes - 1), rng.integers(0, nodes, edges, dtype=np.int64))
        # Ids say nothing about communities: permute them.
        perm = rng.permutation(nodes)
        return perm[src], perm[dst]
    # R-MAT, Graph500 parameters, nodes a power of two.
    scale = max(1, int(round(np.log2(nodes))))
    a, b, c = 0.57, 0.19, 0.19
    src = np.zeros(edges, dtype=np.int64)
    dst = np.zeros(edges, dtype=np.int64)
    for level in range(scale):
        r = rng.random(edges)
        bit = np.int64(1) << np.int64(scale - 1 - level)
        right = ((r >= a) & (r < a + b)) | (r >= a + b + c)
        down = r >= a + b
        src += bit * down
        dst += bit * right
        del r, right, down
    perm = rng.permutation(1 << scale)
    return perm[src], perm[dst]


def make_graph(gen, nodes, edges, feat_dim, seed):
    import numpy as np
    import torch
    import dgl
    src, dst = make_edges(np, gen, nodes, edges, seed)
    g = dgl.graph((torch.from_numpy(src), torch.from_numpy(dst)), num_nodes=nodes)
    del src, dst
    rng = np.random.default_rng(seed + 1)
    g.ndata["feat"] = torch.from_numpy(rng.random((nodes, feat_dim), dtype=np.float32))
    g.ndata["train_mask"] = torch.from_numpy(rng.random(nodes) < 0.1)
    return g


# ---- memory of this process -------------------------------------------------------------------------

def status_kib(field, pid="self"):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def reset_hwm():
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


# ---- children: one measurement each ------------------------------------------------------------------

def child_partition(args):
    import dgl
    t0 = time.perf_counter()
    g = make_graph(args.gen, args.nodes, args.edges, args.feat_dim, args.seed)
    gen_seconds = time.perf_counter() - t0
    gen_hwm = status_kib("VmHWM")
    rss_before = status_kib("VmRSS")
    reset = reset_hwm()
    ru0 = os.times()
    t0 = time.perf_counter()
    out = os.path.join(args.workdir, "parts")
    dgl.distributed.partition_graph(g, "g", args.parts, out, part_method=args.method,
                                    balance_ntypes=g.ndata["train_mask"] if args.balance else None,
                                    balance_edges=args.balance)
    wall = time.perf_counter() - t0
    ru1 = os.times()
    part_bytes = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(out) for f in fs)
    print("RESULT " + json.dumps({
        "genSeconds": round(gen_seconds, 3), "genPeakBytes": gen_hwm * 1024,
        "graphRssBytes": rss_before * 1024, "hwmReset": reset,
        "partitionWallSeconds": round(wall, 3),
        "partitionCpuSeconds": round((ru1.user - ru0.user) + (ru1.system - ru0.system), 3),
        "partitionPeakBytes": status_kib("VmHWM") * 1024 if reset else None,
        "partitionFilesBytes": part_bytes,
    }), flush=True)


def child_chunk(args):
    sys.path.insert(0, args.dgl_tools)
    from chunk_graph import chunk_graph  # DGL's tools/chunk_graph.py
    import numpy as np
    g = make_graph(args.gen, args.nodes, args.edges, args.feat_dim, args.seed)
    feat_path = os.path.join(args.workdir, "feat.npy")
    np.save(feat_path, g.ndata["feat"].numpy())
    del g.ndata["feat"], g.ndata["train_mask"]
    t0 = time.perf_counter()
    chunked = os.path.join(args.workdir, "chunked")
    chunk_graph(g, "g", {"_N": {"feat": feat_path}}, {"_E": {}}, args.parts, chunked)
    # DGL 2.1.0's random_partition.py reads num_nodes_per_type, which its chunk_graph.py does not write.
    meta_path = os.path.join(chunked, "metadata.json")
    with open(meta_path) as f:
        meta = json.load(f)
    meta.setdefault("num_nodes_per_type", [sum(c) for c in meta["num_nodes_per_chunk"]])
    with open(meta_path, "w") as f:
        json.dump(meta, f)
    print("RESULT " + json.dumps({"chunkWallSeconds": round(time.perf_counter() - t0, 3)}), flush=True)


# ---- the parent: run children, watch their memory ------------------------------------------------------

class Watch:
    """Runs a command; records wall time, wait4's CPU time and ru_maxrss; kills it past the limit."""

    def __init__(self, cmd, limit_bytes, env=None, log=None, cwd=None):
        self.cmd, self.limit, self.env, self.log, self.cwd = cmd, limit_bytes, env, log, cwd
        self.killed = False
        self.done = False

    def start(self):
        self.t0 = time.perf_counter()
        self.out = open(self.log, "w+") if self.log else tempfile.TemporaryFile("w+")
        # In its scratch folder: METIS may leave files (metis<pid>.*) in the working directory.
        self.proc = subprocess.Popen(self.cmd, stdout=self.out, stderr=subprocess.STDOUT, env=self.env, cwd=self.cwd)
        self.thread = threading.Thread(target=self._watch, daemon=True)
        self.thread.start()
        return self

    def _watch(self):
        # Never poll(): that would reap the child before wait4 reads its resource usage.
        while not self.done:
            if status_kib("VmRSS", self.proc.pid) * 1024 > self.limit:
                self.killed = True
                self.proc.kill()
                return
            time.sleep(0.2)

    def wait(self):
        _, status, ru = os.wait4(self.proc.pid, 0)
        self.done = True
        self.proc.returncode = os.waitstatus_to_exitcode(status)
        self.wall = time.perf_counter() - self.t0
        self.cpu = ru.ru_utime + ru.ru_stime
        self.maxrss = ru.ru_maxrss * 1024
        self.out.seek(0)
        self.text = self.out.read()
        self.out.close()
        return self


def run_one(cmd, limit, env=None, log=None, cwd=None):
    return Watch(cmd, limit, env, log, cwd).start().wait()


def result_of(text):
    for line in text.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    return {}


def steps_of(text):
    steps = {}
    for key, pattern in STEP_PATTERNS:
        values = [float(v) for v in re.findall(pattern, text)]
        if values:
            steps[key] = round(sum(values), 3)
    return steps


def load():
    return [round(x, 2) for x in os.getloadavg()]


def child_cmd(args, kind, gen, nodes, edges, parts, method, workdir):
    cmd = [sys.executable, os.path.abspath(__file__), "--child", kind, "--gen", gen, "--nodes", str(nodes),
           "--edges", str(edges), "--parts", str(parts), "--method", method, "--workdir", workdir,
           "--feat-dim", str(args.feat_dim), "--seed", str(args.seed)]
    if args.balance:
        cmd.append("--balance")
    if args.dgl_tools:
        cmd += ["--dgl-tools", args.dgl_tools]
    return cmd


def measure_partition(args, gen, nodes, edges, parts, method):
    workdir = tempfile.mkdtemp(prefix="dglm-", dir=args.scratch)
    try:
        before = load()
        w = run_one(child_cmd(args, "partition", gen, nodes, edges, parts, method, workdir), args.limit, cwd=workdir)
        rec = {"step": "partition_graph", "method": method, "generator": gen, "nodes": nodes,
               "edges": edges, "parts": parts, "featDim": args.feat_dim, "balance": args.balance,
               "loadBefore": before, "loadAfter": load(), "wallSeconds": round(w.wall, 3),
               "cpuSeconds": round(w.cpu, 3), "peakRssBytes": w.maxrss, "exitCode": w.proc.returncode}
        rec.update(result_of(w.text))
        rec["dglSteps"] = steps_of(w.text)
        m = re.search(r"Partition a graph with \d+ nodes and (\d+) edges into \d+ parts and get (\d+) edge cuts", w.text)
        if m:  # METIS's view: the bidirected graph, self loops and duplicates dropped
            rec["symEdges"], rec["edgeCut"] = int(m.group(1)), int(m.group(2))
        if w.killed:
            rec["note"] = f"killed: resident memory passed {args.mem_limit_gib} GiB"
        elif w.proc.returncode != 0:
            rec["note"] = "failed: " + " | ".join(w.text.strip().splitlines()[-3:])
        return rec
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def measure_chunked(args, gen, nodes, edges, parts):
    """chunk_graph, random_partition.py, then data_proc_pipeline.py with one rank per part."""
    tools = args.dgl_tools
    workdir = tempfile.mkdtemp(prefix="dglc-", dir=args.scratch)
    rec = {"step": "chunked", "generator": gen, "nodes": nodes, "edges": edges, "parts": parts,
           "featDim": args.feat_dim, "loadBefore": load()}
    try:
        w = run_one(child_cmd(args, "chunk", gen, nodes, edges, parts, "random", workdir), args.limit, cwd=workdir)
        rec["chunkGraph"] = {"wallSeconds": round(w.wall, 3), "cpuSeconds": round(w.cpu, 3), "peakRssBytes": w.maxrss,
                             "stepWallSeconds": result_of(w.text).get("chunkWallSeconds")}
        if w.proc.returncode != 0:
            rec["note"] = "chunk_graph failed: " + " | ".join(w.text.strip().splitlines()[-3:])
            return rec
        chunked = os.path.join(workdir, "chunked")
        env = dict(os.environ, PYTHONPATH=tools + os.pathsep + os.environ.get("PYTHONPATH", ""))
        w = run_one([sys.executable, os.path.join(tools, "partition_algo", "random_partition.py"),
                     "--in_dir", chunked, "--out_dir", os.path.join(workdir, "assign"),
                     "--num_partitions", str(parts)], args.limit, env=env, cwd=workdir)
        rec["randomPartition"] = {"wallSeconds": round(w.wall, 3), "cpuSeconds": round(w.cpu, 3),
                                  "peakRssBytes": w.maxrss, "exitCode": w.proc.returncode}
        if w.proc.returncode != 0:
            rec["note"] = "random_partition.py failed: " + " | ".join(w.text.strip().splitlines()[-3:])
            return rec
        rec["dispatch"] = run_dispatch(args, tools, workdir, chunked, parts, env)
        if rec["dispatch"].get("note"):
            rec["note"] = rec["dispatch"].pop("note")
        return rec
    finally:
        rec["loadAfter"] = load()
        shutil.rmtree(workdir, ignore_errors=True)


def run_dispatch(args, tools, workdir, chunked, parts, env):
    """What dispatch_data.py launches on each machine, here all ranks on one machine (loopback)."""
    port = 29000 + (os.getpid() % 2000)
    pipeline = os.path.join(tools, "distpartitioning", "data_proc_pipeline.py")
    watches = []
    t0 = time.perf_counter()
    for rank in range(parts):
        renv = dict(env, RANK=str(rank), WORLD_SIZE=str(parts), MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
        cmd = [sys.executable, pipeline, "--world-size", str(parts), "--partitions-dir",
               os.path.join(workdir, "assign"), "--input-dir", chunked, "--graph-name", "g", "--schema",
               "metadata.json", "--num-parts", str(parts), "--output", os.path.join(workdir, "out"),
               "--process-group-timeout", "3600", "--log-level", "debug"]
        watches.append(Watch(cmd, args.limit, env=renv, log=os.path.join(workdir, f"rank{rank}.log"), cwd=workdir).start())
    for w in watches:
        w.wait()
    wall = time.perf_counter() - t0
    out = {"ranks": parts, "wallSeconds": round(wall, 3), "cpuSeconds": round(sum(w.cpu for w in watches), 3),
           "maxRankPeakRssBytes": max(w.maxrss for w in watches),
           "sumRankPeakRssBytes": sum(w.maxrss for w in watches),
           "exitCodes": [w.proc.returncode for w in watches]}
    out["phases"] = dispatch_phases(watches[0].text)
    bad = [w for w in watches if w.proc.returncode != 0]
    if any(w.killed for w in watches):
        out["note"] = f"a rank was killed: resident memory passed {args.mem_limit_gib} GiB"
    elif bad:
        out["note"] = "data_proc_pipeline.py failed: " + " | ".join(bad[0].text.strip().splitlines()[-3:])
    return out


def dispatch_phases(text):
    """Rank 0's phases: seconds from "Pipeline Begin" to each of data_proc_pipeline.py's memory
    snapshots (logged at debug level), the first time each tag appears."""
    import datetime as dt
    marks, first = {}, None
    for day, ms, tag in re.findall(r"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d),(\d+) PID:\d+\] \[Rank: \d+ "
                                   r"MEMORY_SNAPSHOT\].* - ([A-Za-z_ ]+?): ", text):
        t = dt.datetime.strptime(day, "%Y-%m-%d %H:%M:%S").timestamp() + int(ms) / 1000
        first = t if first is None else first
        marks.setdefault(tag, round(t - first, 3))
    return marks


# ---- output -----------------------------------------------------------------------------------------

def versions():
    out = {"python": platform.python_version()}
    for mod in ("dgl", "torch", "numpy", "scipy"):
        try:
            out[mod] = __import__(mod).__version__
        except Exception as e:  # noqa: BLE001 - a missing module is a fact to record
            out[mod] = f"missing ({type(e).__name__})"
    return out


def machine():
    mem = 0
    try:
        with open("/proc/meminfo") as f:
            mem = int(f.readline().split()[1]) * 1024
    except OSError:
        pass
    cpu = platform.processor()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {"cpus": os.cpu_count(), "cpuModel": cpu, "memoryBytes": mem, "kernel": platform.release()}


def to_yaml(value, indent=0):
    pad = " " * indent
    if isinstance(value, dict):
        lines = []
        for k, v in value.items():
            if isinstance(v, (dict, list)) and v:
                lines.append(f"{pad}{k}:")
                lines.append(to_yaml(v, indent + 2))
            else:
                lines.append(f"{pad}{k}: {json.dumps(v)}")
        return "\n".join(lines)
    if isinstance(value, list):
        if all(not isinstance(v, (dict, list)) for v in value):
            return pad + json.dumps(value)
        return "\n".join(f"{pad}- {json.dumps(v, separators=(', ', ': '))}" for v in value)
    return pad + json.dumps(value)


def write(out_dir, gen, header, records, name=""):
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, f"{gen}{name}.yaml")
    doc = dict(header)
    doc["generator"] = gen
    doc["records"] = records
    with open(path, "w") as f:
        f.write("# scripts/measure-dgl.py: the real DGL pipeline measured on this machine; times in seconds,\n"
                "# memory in bytes (peakRssBytes: the child process's ru_maxrss), load: 1/5/15-minute averages.\n")
        f.write(to_yaml(doc) + "\n")
    return path


def sizes(args):
    out = []
    e = args.min_edges
    while e <= args.max_edges:
        out.append(e)
        e *= args.step
    return out


def fmt_bytes(b):
    return f"{(b or 0) / 2**30:.2f} GiB"


def measure_size(args, header, gen, edges, records):
    nodes = max(1024, edges // args.edge_factor)
    if gen == "rmat":
        nodes = 1 << max(10, (nodes - 1).bit_length())
    if args.dgl_tools:
        for parts in args.chunked_parts:
            rec = measure_chunked(args, gen, nodes, edges, parts)
            records.append(rec)
            d = rec.get("dispatch", {})
            print(f"[{time.strftime('%H:%M:%S')}] {gen} {edges:,} edges chunked {parts} ranks: dispatch wall "
                  f"{d.get('wallSeconds', 0):.1f} s cpu {d.get('cpuSeconds', 0):.1f} s peak/rank "
                  f"{fmt_bytes(d.get('maxRankPeakRssBytes'))} load {rec['loadBefore'][0]} "
                  f"{rec.get('note', '')}", file=sys.stderr, flush=True)
            write(args.out, gen, header, records, args.name)
    for method in args.methods:
        for parts in args.parts:
            rec = measure_partition(args, gen, nodes, edges, parts, method)
            records.append(rec)
            print(f"[{time.strftime('%H:%M:%S')}] {gen} {edges:,} edges {method} {parts} parts: "
                  f"wall {rec['wallSeconds']:.1f} s cpu {rec['cpuSeconds']:.1f} s peak "
                  f"{fmt_bytes(rec['peakRssBytes'])} load {rec['loadBefore'][0]} "
                  f"{rec.get('note', '')}", file=sys.stderr, flush=True)
            write(args.out, gen, header, records, args.name)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", default="reports/dgl-measured")
    p.add_argument("--generators", nargs="+", default=list(GENERATORS), choices=GENERATORS)
    p.add_argument("--min-edges", type=int, default=1_000_000)
    p.add_argument("--max-edges", type=int, default=32_000_000)
    p.add_argument("--step", type=int, default=4, help="size multiplier between measurements")
    p.add_argument("--edge-factor", type=int, default=16, help="directed edges per node")
    p.add_argument("--parts", nargs="+", type=int, default=[2, 8])
    p.add_argument("--methods", nargs="+", default=["metis", "random"], choices=["metis", "random"])
    p.add_argument("--feat-dim", type=int, default=FEAT_DIM_DEFAULT)
    p.add_argument("--balance", action="store_true", help="--balance-train --balance-edges as the DGL examples")
    p.add_argument("--dgl-tools", default=None, help="DGL's tools/ folder of the installed release (chunked pipeline)")
    p.add_argument("--chunked-parts", nargs="+", type=int, default=[2, 4])
    p.add_argument("--mem-limit-gib", type=float, default=8.0)
    p.add_argument("--scratch", default=None, help="folder for partitions (default: the system's temp)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--name", default="", help="suffix of the files written: <out>/<generator><name>.yaml")
    p.add_argument("--quick", action="store_true", help="one small graph per generator, 2 parts: seconds")
    # child mode
    p.add_argument("--child", choices=["partition", "chunk"], help=argparse.SUPPRESS)
    p.add_argument("--gen", help=argparse.SUPPRESS)
    p.add_argument("--nodes", type=int, help=argparse.SUPPRESS)
    p.add_argument("--edges", type=int, help=argparse.SUPPRESS)
    p.add_argument("--method", help=argparse.SUPPRESS)
    p.add_argument("--workdir", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        os.environ.setdefault("DGLBACKEND", "pytorch")
        args.parts = args.parts[0]
        return child_partition(args) if args.child == "partition" else child_chunk(args)
    if args.quick:
        args.min_edges = args.max_edges = 200_000
        args.parts, args.chunked_parts = [2], [2]
    if args.min_edges < 1000 or args.max_edges < args.min_edges or args.step < 2 or min(args.parts) < 1:
        p.error("need 1000 <= --min-edges <= --max-edges, --step >= 2 and --parts >= 1")
    if args.dgl_tools:
        args.dgl_tools = os.path.abspath(os.path.expanduser(args.dgl_tools))
    if args.dgl_tools and not os.path.isfile(os.path.join(args.dgl_tools, "distpartitioning", "data_proc_pipeline.py")):
        p.error(f"--dgl-tools {args.dgl_tools}: no distpartitioning/data_proc_pipeline.py there")
    args.limit = int(args.mem_limit_gib * 2**30)
    header = {"apiVersion": "dglsim/v1", "kind": "DglMeasurements", "machine": machine(), "versions": versions(),
              "settings": {"edgeFactor": args.edge_factor, "featDim": args.feat_dim, "balance": args.balance,
                           "memLimitGiB": args.mem_limit_gib, "seed": args.seed,
                           "chunkedTools": "DGL tools/ beside the wheel" if args.dgl_tools else "not run"}}
    records = {gen: [] for gen in args.generators}
    # Sizes outermost, so that every generator has its small sizes before any has its largest.
    for edges in sizes(args):
        for gen in args.generators:
            measure_size(args, header, gen, edges, records[gen])
    for gen in args.generators:
        print(f"wrote {write(args.out, gen, header, records[gen], args.name)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
