#!/usr/bin/env python3
"""The computed parts of reports/proposal-options.md: its findings and the options' tables.

    python3 scripts/proposal_conclusions.py conclusions DATA_DIR
    python3 scripts/proposal_conclusions.py options DATA_DIR

DATA_DIR holds the JSON results of the report's sweeps (`dglsim sweep --json`), one file per sweep:
placement-D.json, layout-D.json and options-D.json for each dataset D of DATASETS. Every sentence
is made from those results (which is cheaper, which fails and why), and names the sweep and the
point it comes from, so the report says what the data says after any change to the models. Each
question opens with one plain sentence (which choice wins, by how much, where it stops holding),
its figures in a table under it and a plot beside them; the detailed lines follow.
scripts/proposal-report.sh calls it; the standard library only.
"""

import json
import re
import sys

DATASETS = [("products", "ogbn-products"), ("papers100m", "ogbn-papers100M"), ("rmat1b", "rmat-1b")]
# Two makespans this close are "the same" in a sentence (the tables keep the exact figures).
SAME = 0.05


def duration(seconds):
    """dglsim's FormatSeconds: whole seconds as 1h2m3s."""
    s = int(round(seconds))
    h, m, s = s // 3600, s // 60 % 60, s % 60
    return (f"{h}h" if h else "") + (f"{m}m" if h or m else "") + f"{s}s"


def money(cost):
    return f"{cost:.2f}"


def percent(share):
    return "-" if share is None else f"{100 * share:.0f}%"


def gigabytes(b):
    return f"{b / 1e9:.0f} GB"


class Sweep:
    def __init__(self, data, name):
        with open(f"{data}/{name}.json") as f:
            self.points = json.load(f)["points"]
        self.name = name

    def find(self, **labels):
        """The one point whose parameters carry these labels (None when there is none)."""
        for p in self.points:
            if all(p["parameters"].get(k) == v for k, v in labels.items()):
                return p
        return None

    def where(self, **labels):
        return [p for p in self.points if all(p["parameters"].get(k) in (v if isinstance(v, tuple) else (v,))
                                              for k, v in labels.items())]

    def ref(self, p):
        return f"[{self.name} {p['point']}](#{self.name})"


def ok(p):
    return p is not None and p["outcome"] == "Succeeded"


def span(p):
    return p["spanSeconds"]


def stage(p, name):
    return (p.get("breakdownSeconds") or {}).get(name) or 0


def why(p):
    """What a failed point's reason says that matters: the failed container's last words for an MPI
    error (the rank's message data), else the Failed condition without the retries."""
    reason = p["reason"]
    said = re.search(r"\(([\w.-]+): (.*)\)$", reason)
    text = said.group(2) if p["lostTo"] == "MPI limit" and said else reason.split(": backoffLimit")[0]
    return text if len(text) <= 200 else text[:200] + "..."


def failure(p):
    """Why a point failed, in a few words: its kind and why."""
    return f"{p['lostTo']}: {why(p)}"


def cheapest(points, figure="cost"):
    good = [p for p in points if ok(p) and p[figure] is not None]
    return min(good, key=lambda p: (p[figure], p["makespanSeconds"], p["point"])) if good else None


def cheapest_busy(points):
    return cheapest(points, "busyCost")


def fastest(points):
    good = [p for p in points if ok(p)]
    return min(good, key=lambda p: (p["makespanSeconds"], p["cost"] or 0, p["point"])) if good else None


def compare(a, b):
    """'the same as', 'faster than' or 'slower than', by makespan."""
    if abs(a - b) <= SAME * max(a, b):
        return "about as fast as"
    return "faster than" if a < b else "slower than"


# ---- (a) partitioner pod or launcher init container -------------------------------------------------

def stage_changes(a, b, stages=("imagePull", "download", "prepare", "partition", "dispatch", "load", "training")):
    """'imagePull 148s against 197s' for the stages whose time differs by a second or more."""
    out = []
    for name in stages:
        x, y = stage(a, name), stage(b, name)
        if abs(x - y) >= 1:
            out.append(f"{name} {x:.1f}s against {y:.1f}s")
    return ", ".join(out) if out else "no stage differs by a second"


def placement_line(data, key, dataset):
    s = Sweep(data, f"placement-{key}")
    pod = s.find(placement="Pod", mode="SSP", jobs="1", headNodes="1")
    li = s.find(placement="LauncherInit", mode="SSP", jobs="1", headNodes="1")
    if not ok(pod) or not ok(li):
        bad = pod if not ok(pod) else li
        return f"- **(a) {dataset}**: SSP fails alone on the cluster ({s.ref(bad)}: {failure(bad)}), whichever the placement."
    held = stage(pod, "download") + stage(pod, "prepare") + stage(pod, "partition")
    line = (f"- **(a) {dataset}**, SSP, the partitioner in the launcher ({s.ref(li)}) against a partitioner pod "
            f"({s.ref(pod)}): makespan {duration(li['makespanSeconds'])} against {duration(pod['makespanSeconds'])} "
            f"({stage_changes(li, pod)}), cost {money(li['cost'])} against {money(pod['cost'])}, with nodes paid "
            f"while busy {money(li['busyCost'])} against {money(pod['busyCost'])}: the launcher asks for the head node "
            f"(its peak {gigabytes(li['peakMemoryBytes'].get('launcher', 0))}) and holds it for the whole job, the "
            f"partitioner pod for {duration(held)}.")
    burst_pod = s.find(placement="Pod", mode="SSP", jobs="4", headNodes="1")
    burst = {n: s.find(placement="LauncherInit", mode="SSP", jobs="4", headNodes=n) for n in ("1", "2", "4")}
    if ok(burst_pod) and all(ok(p) for p in burst.values()):
        enough = [n for n in ("1", "2", "4") if span(burst[n]) <= span(burst_pod) * (1 + SAME)]
        if enough and enough[0] == "1":
            need = "within 5% on that one head node"
        elif enough:
            need = f"LauncherInit needs {enough[0]} head nodes to do as well ({s.ref(burst[enough[0]])})"
        else:
            need = f"even on 4 head nodes LauncherInit takes {duration(span(burst['4']))} ({s.ref(burst['4'])})"
        line += (f" Four jobs at once on one head node: {duration(span(burst['1']))} ({s.ref(burst['1'])}) against "
                 f"{duration(span(burst_pod))} ({s.ref(burst_pod)}); {need}.")
    return line


# ---- (b) one worker pod per machine or server, sampler and trainer pods ----------------------------

def epoch(s, p):
    return f"{p['epochSeconds']:.2f}s ({s.ref(p)})"


def layout_line(data, key, dataset):
    s = Sweep(data, f"layout-{key}")
    worker = cheapest(s.where(layout="worker"))
    split = cheapest(s.where(layout=("server+trainer", "server+sampler+trainer")))
    failed = [p for p in s.where(layout="worker") if not ok(p)]
    if split is None or worker is None:
        which = "one worker pod per machine" if worker is None else "the split layouts"
        bad = failed[0] if worker is None else next(p for p in s.points if not ok(p))
        return f"- **(b) {dataset}**: {which} fail at every size ({s.ref(bad)}: {failure(bad)})."
    what = lambda p: (f"{p['label'].replace('layout=', '')}, {s.ref(p)}: cost {money(p['cost'])}, "
                      f"{p['epochSeconds']:.2f}s per epoch, GPU time training {percent(p['trainingGpuUtilization'])}")
    first, second = (worker, split) if (worker["cost"], worker["point"]) <= (split["cost"], split["point"]) else (split, worker)
    line = (f"- **(b) {dataset}**, cheapest: {what(first)}; against "
            f"{'the split layouts' if first is worker else 'one worker pod per machine'} at best {what(second)}.")
    w8 = s.find(layout="worker", trainers="8")
    t8 = {n: s.find(layout="server+trainer", trainers="8", servers=n) for n in ("2", "4")}
    t16 = s.find(layout="server+trainer", trainers="16", servers="2")
    if ok(w8) and all(ok(p) for p in t8.values()) and ok(t16):
        line += (f" At 8 GPU machines an epoch takes {epoch(s, w8)} with workers, {epoch(s, t8['2'])} with trainer pods "
                 f"fetching every feature from 2 server pods, {epoch(s, t8['4'])} from 4; 16 trainer pods on 2 servers: "
                 f"{epoch(s, t16)}.")
    if failed:
        line += " One worker per machine fails at " + ", ".join(p["label"] for p in failed) + f" ({failure(failed[0])})."
    return line


# ---- (c) options 1, 2 and 3 ------------------------------------------------------------------------

def option_points(data, key):
    """Each option's configurations: (sweep, point) pairs."""
    opts = Sweep(data, f"options-{key}")
    place = Sweep(data, f"placement-{key}")
    layout = Sweep(data, f"layout-{key}")
    one = [(opts, p) for p in opts.where(mode="MSP", worker="fixed-1-1-1")]
    two = ([(opts, p) for p in opts.where(mode=("SSP", "SMP"))] +
           [(place, p) for p in place.where(placement="Pod", jobs="1")] +
           [(layout, p) for p in layout.where(layout="worker")])
    three = ([(opts, p) for p in opts.points] + [(place, p) for p in place.where(jobs="1")] +
             [(layout, p) for p in layout.points])
    return {"1": one, "2": two, "3": three}


def best_of(pairs, pick):
    chosen = pick([p for _, p in pairs])
    return None if chosen is None else next((s, p) for s, p in pairs if p is chosen)


def failures_text(pairs):
    """Failed configurations grouped by kind: 'MPI limit in 2 (options-x 3, options-x 4; e.g. ...)'."""
    groups = {}
    for s, p in pairs:
        if not ok(p):
            groups.setdefault(p["lostTo"], []).append((s, p))
    out = []
    for kind, items in sorted(groups.items()):
        s, first = items[0]
        points = ", ".join(f"{sweep.name} {p['point']}" for sweep, p in items[:6]) + (
            f" and {len(items) - 6} more" if len(items) > 6 else "")
        out.append(f"{kind} in {len(items)} ({points}; e.g. {s.ref(first)} {first['label']}: {why(first)})")
    return "; ".join(out) if out else "none"


def options_table(data):
    lines = ["| dataset | option | runs it | configurations that fail, and why | cheapest (whole cluster) | "
             "cheapest (nodes paid while busy) | fastest |",
             "|---|---|---|---|---|---|---|"]
    for key, dataset in DATASETS:
        for option, pairs in option_points(data, key).items():
            good = [p for _, p in pairs if ok(p)]

            def cell(b, figure):
                if b is None:
                    return "-"
                return (f"{b[0].ref(b[1])} {b[1]['label']}: {money(b[1][figure])}, "
                        f"makespan {duration(b[1]['makespanSeconds'])}")
            lines.append(f"| {dataset} | {option} | {'yes' if good else '**no**'} ({len(good)} of {len(pairs)}) | "
                         f"{failures_text(pairs).replace('|', '/')} | {cell(best_of(pairs, cheapest), 'cost')} | "
                         f"{cell(best_of(pairs, cheapest_busy), 'busyCost')} | {cell(best_of(pairs, fastest), 'cost')} |")
    return "\n".join(lines)


def options_lines(data):
    cannot, one_fail, out = [], [], []
    for key, dataset in DATASETS:
        per = option_points(data, key)
        if not any(ok(p) for _, p in per["1"]):
            cannot.append(dataset)
        bad = [p for _, p in per["1"] if not ok(p)]
        if bad:
            one_fail.append(f"on {dataset} {len(bad)} of its {len(per['1'])} sizes fail: {failures_text(per['1'])}")
        words = []
        for o in ("1", "2", "3"):
            c, b = best_of(per[o], cheapest), best_of(per[o], cheapest_busy)
            if c is None:
                words.append(f"option {o} cannot run it")
                continue
            words.append(f"option {o} {money(c[1]['cost'])} ({c[0].ref(c[1])} {c[1]['label']}), "
                         f"{money(b[1]['busyCost'])} with nodes paid while busy ({b[0].ref(b[1])})")
        out.append(f"- **(c) {dataset}**, cheapest configuration: " + "; ".join(words) + ".")
    head = ("- **(c) option 1** (MSP only, a fixed 1 server / 1 sampler / 1 trainer worker per GPU) "
            + (f"cannot run {', '.join(cannot)} at any size" if cannot else "runs every dataset at some size")
            + ("; " + "; ".join(one_fail) if one_fail else "") + ".")
    return [head] + out


def names(items):
    items = list(items)
    return ", ".join(items[:-1]) + (" and " if len(items) > 1 else "") + items[-1] if items else "none"


def share_range(shares):
    """'12%' or '3% to 12%' for a list of fractions."""
    lo, hi = min(shares), max(shares)
    return f"{100 * lo:.0f}%" if round(100 * lo) == round(100 * hi) else f"{100 * lo:.0f}% to {100 * hi:.0f}%"


def picture(path, alt):
    """The finding's plot, floated beside its sentence and table where the Markdown renderer allows."""
    return f'<img src="{path}" align="right" width="420" alt="{alt}">'


def placement_finding(data):
    """(a): the plain sentence, then one row per dataset."""
    rows, faster, later, dearer_busy = [], [], [], []
    for key, dataset in DATASETS:
        s = Sweep(data, f"placement-{key}")
        pod = s.find(placement="Pod", mode="SSP", jobs="1", headNodes="1")
        li = s.find(placement="LauncherInit", mode="SSP", jobs="1", headNodes="1")
        if not (ok(pod) and ok(li)):
            rows.append(f"| {dataset} | fails | fails | - | - | - | - | {s.ref(pod)}, {s.ref(li)} |")
            continue
        faster.append(1 - li["makespanSeconds"] / pod["makespanSeconds"])
        if li["busyCost"] > pod["busyCost"]:
            dearer_busy.append(dataset)
        burst_pod = s.find(placement="Pod", mode="SSP", jobs="4", headNodes="1")
        burst_li = s.find(placement="LauncherInit", mode="SSP", jobs="4", headNodes="1")
        burst = "-", "-"
        refs = f"{s.ref(li)}, {s.ref(pod)}"
        if ok(burst_pod) and ok(burst_li):
            burst = duration(span(burst_li)), duration(span(burst_pod))
            refs += f"; {s.ref(burst_li)}, {s.ref(burst_pod)}"
            if span(burst_li) > span(burst_pod) * (1 + SAME):
                later.append((span(burst_li) / span(burst_pod) - 1, dataset))
        rows.append(f"| {dataset} | {duration(li['makespanSeconds'])} | {duration(pod['makespanSeconds'])} | "
                    f"{money(li['busyCost'])} | {money(pod['busyCost'])} | {burst[0]} | {burst[1]} | {refs} |")
    sentence = "**(a)** "
    if faster and min(faster) > 0:
        sentence += (f"The partitioner in the launcher's init container ends a lone job sooner than a partitioner pod "
                     f"({share_range(faster)} sooner: no image to pull, no partitions to copy)")
    elif faster:
        sentence += f"A lone job's makespan changes by {share_range(faster)} with the partitioner in the launcher"
    else:
        sentence += "Neither placement runs a lone SSP job on these clusters"
    if later:
        sentence += (f", but the launcher then holds the head node to the end, so four jobs sharing one head node "
                     f"end up to {100 * max(later)[0]:.0f}% later ({names(d for _, d in later)})")
    if dearer_busy:
        sentence += f"; paid only while busy, it is dearer on {names(dearer_busy)}"
    table = ["| dataset | makespan, init container | makespan, pod | busy cost, init container | busy cost, pod | "
             "4 jobs on 1 head node, init container | 4 jobs, pod | points |",
             "|---|---|---|---|---|---|---|---|"] + rows
    return [picture("proposal-options/placement-products-makespan-vs-jobs.svg",
                    "makespan against the number of jobs, ogbn-products"), "", sentence + ".", ""] + table


def layout_finding(data):
    """(b): the plain sentence, then one row per dataset."""
    rows, worker_wins, split_wins, slower = [], [], [], []
    for key, dataset in DATASETS:
        s = Sweep(data, f"layout-{key}")
        worker = cheapest(s.where(layout="worker"))
        split = cheapest(s.where(layout=("server+trainer", "server+sampler+trainer")))
        if worker is None or split is None:
            rows.append(f"| {dataset} | - | - | - | - | - | - | one layout fails at every size |")
            continue
        if worker["cost"] <= split["cost"]:
            worker_wins.append((1 - worker["cost"] / split["cost"], dataset))
        else:
            split_wins.append((1 - split["cost"] / worker["cost"], dataset))
        w8 = s.find(layout="worker", trainers="8")
        t8 = s.find(layout="server+trainer", trainers="8", servers="2")
        epochs = ("-", "-")
        refs = f"{s.ref(worker)}, {s.ref(split)}"
        if ok(w8) and ok(t8):
            epochs = f"{w8['epochSeconds']:.2f}s", f"{t8['epochSeconds']:.2f}s"
            refs += f"; {s.ref(w8)}, {s.ref(t8)}"
            slower.append(t8["epochSeconds"] / w8["epochSeconds"])
        rows.append(f"| {dataset} | {money(worker['cost'])} | {worker['epochSeconds']:.2f}s | {money(split['cost'])} | "
                    f"{split['epochSeconds']:.2f}s | {epochs[0]} | {epochs[1]} | {refs} |")
    parts = []
    if worker_wins:
        parts.append(f"one worker pod per GPU machine is the cheapest layout on {names(d for _, d in worker_wins)} "
                     f"({share_range([w for w, _ in worker_wins])} cheaper than the best split layout)")
    if split_wins:
        parts.append(f"separate server, sampler and trainer pods are cheapest on {names(d for _, d in split_wins)} "
                     f"({share_range([w for w, _ in split_wins])} cheaper)")
    said = "; ".join(parts) or "neither layout runs these jobs"
    sentence = "**(b)** " + said[0].upper() + said[1:]
    if slower and min(slower) > 1:
        sentence += (f": trainer pods hold no partition and fetch every feature from the servers, so at 8 GPU "
                     f"machines their epochs take {min(slower):.1f} to {max(slower):.1f} times as long")
    table = ["| dataset | cheapest with workers: cost | its epoch | cheapest split: cost | its epoch | "
             "epoch at 8 machines, workers | trainer pods on 2 servers | points |",
             "|---|---|---|---|---|---|---|---|"] + rows
    return [picture("proposal-options/layout-papers100m-epoch-vs-trainers.svg",
                    "time per epoch against trainers, ogbn-papers100M"), "", sentence + ".", ""] + table


def options_finding(data):
    """(c): the plain sentence, then one row per dataset."""
    rows, one_fails, one_matches, two_dearer = [], [], [], []
    for key, dataset in DATASETS:
        per = option_points(data, key)
        c = {o: best_of(pairs, cheapest) for o, pairs in per.items()}
        bad = [p for _, p in per["1"] if not ok(p)]
        if bad:
            one_fails.append(f"{dataset} ({len(bad)} of {len(per['1'])} sizes, "
                             f"{names(sorted({p['lostTo'] for p in bad}))})")
        if c["1"] and c["3"] and c["1"][1]["cost"] <= c["3"][1]["cost"] * (1 + SAME):
            one_matches.append(dataset)
        if c["2"] and c["3"] and c["2"][1]["cost"] > c["3"][1]["cost"] * (1 + SAME):
            two_dearer.append(c["2"][1]["cost"] / c["3"][1]["cost"])
        cell = lambda o: "cannot run it" if c[o] is None else f"{money(c[o][1]['cost'])}"
        refs = ", ".join(c[o][0].ref(c[o][1]) for o in ("1", "2", "3") if c[o] is not None)
        rows.append(f"| {dataset} | {cell('1')} | {len(bad)} of {len(per['1'])} | {cell('2')} | {cell('3')} | {refs} |")
    sentence = "**(c)** Option 3 (an operator with everything) is never dearer than the others, since it can run any of their configurations"
    if one_matches:
        sentence += f"; option 1 (MSP only) matches it on {names(one_matches)}"
        if one_fails:
            sentence += f" but fails at small sizes on {names(one_fails)}"
    if two_dearer:
        sentence += (f"; option 2, which cannot run MSP, costs {min(two_dearer):.1f} to {max(two_dearer):.1f} "
                     f"times as much")
    table = ["| dataset | option 1: cheapest cost | option 1: sizes that fail | option 2: cheapest cost | "
             "option 3: cheapest cost | points |",
             "|---|---|---|---|---|---|"] + rows
    return [picture("proposal-options/options-papers100m-cost-vs-machines.svg",
                    "cost against machines, ogbn-papers100M"), "", sentence + ".", ""] + table


def findings(data):
    """The findings a reader takes in at a glance: per question, one plain sentence, its figures in a
    table, its picture beside them."""
    out = []
    for finding in (placement_finding, layout_finding, options_finding):
        out += finding(data) + ["", '<br clear="right">', ""]
    return out


def main():
    what, data = sys.argv[1], sys.argv[2]
    if what == "conclusions":
        lines = findings(data) + ["In detail:", ""]
        lines += [placement_line(data, k, d) for k, d in DATASETS]
        lines += [layout_line(data, k, d) for k, d in DATASETS]
        lines += options_lines(data)
        print("\n".join(lines))
    elif what == "options":
        print(options_table(data))
    else:
        sys.exit(f"usage: {sys.argv[0]} conclusions|options DATA_DIR")


if __name__ == "__main__":
    main()
