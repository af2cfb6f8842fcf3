#!/usr/bin/env python3
"""The computed parts of reports/proposal-options.md: its conclusions and the options' tables.

    python3 scripts/proposal_conclusions.py conclusions DATA_DIR
    python3 scripts/proposal_conclusions.py options DATA_DIR

DATA_DIR holds the JSON results of the report's sweeps (`dglsim sweep --json`), one file per sweep:
placement-D.json, layout-D.json and options-D.json for each dataset D of DATASETS. Every sentence
is made from those results (which is cheaper, which fails and why), and names the sweep and the
point it comes from, so the report says what the data says after any change to the models.
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


def summary_lines(data):
    """One line per question over the three datasets, each figure with the points it comes from."""
    a_alone, a_busy, a_burst, a_same, less_pulled, less_copied = [], [], [], [], True, True
    for key, dataset in DATASETS:
        s = Sweep(data, f"placement-{key}")
        pod = s.find(placement="Pod", mode="SSP", jobs="1", headNodes="1")
        li = s.find(placement="LauncherInit", mode="SSP", jobs="1", headNodes="1")
        if not (ok(pod) and ok(li)):
            continue
        a_alone.append(f"{dataset} {duration(li['makespanSeconds'])} against {duration(pod['makespanSeconds'])} "
                       f"({s.ref(li)}, {s.ref(pod)})")
        less_pulled = less_pulled and stage(li, "imagePull") < stage(pod, "imagePull")
        less_copied = less_copied and stage(li, "dispatch") < stage(pod, "dispatch")
        a_busy.append(f"{dataset} {money(li['busyCost'])} against {money(pod['busyCost'])}")
        burst_pod = s.find(placement="Pod", mode="SSP", jobs="4", headNodes="1")
        burst_li = s.find(placement="LauncherInit", mode="SSP", jobs="4", headNodes="1")
        if ok(burst_pod) and ok(burst_li):
            text = (f"{dataset} ({duration(span(burst_li))} against {duration(span(burst_pod))}, "
                    f"{s.ref(burst_li)}, {s.ref(burst_pod)})")
            (a_burst if span(burst_li) > span(burst_pod) * (1 + SAME) else a_same).append(text)
    why = [w for w, holds in (("the launcher's image is already on the head node", less_pulled),
                              ("no partition is copied to the launcher", less_copied)) if holds]
    line = (f"- **(a)** With the partitioner in the launcher's init container, a lone SSP job ends in "
            f"{names(a_alone)} with a partitioner pod{' (' + ' and '.join(why) + ')' if why else ''}; but the launcher "
            f"then holds the head node to the end: with nodes paid only while busy the job costs {names(a_busy)}")
    if a_burst or a_same:
        line += "; four jobs at once on one head node end"
        if a_burst:
            line += f" later on {names(a_burst)}"
        if a_same:
            line += f"{',' if a_burst else ''} within 5% on {names(a_same)}"
    lines = [line + "."]
    worker_wins, split_wins = [], []
    for key, dataset in DATASETS:
        s = Sweep(data, f"layout-{key}")
        worker = cheapest(s.where(layout="worker"))
        split = cheapest(s.where(layout=("server+trainer", "server+sampler+trainer")))
        if worker is None or split is None:
            continue
        text = f"{dataset} ({money(worker['cost'])} against {money(split['cost'])}, {s.ref(worker)}, {s.ref(split)})"
        (worker_wins if worker["cost"] <= split["cost"] else split_wins).append(text)
    b = "- **(b)** The cheapest layout is "
    if worker_wins:
        b += f"one worker pod per GPU machine on {names(worker_wins)}"
    if split_wins:
        b += f"{'; ' if worker_wins else ''}separate server, sampler and trainer pods on {names(split_wins)}"
    lines.append(b + ". Trainer pods fetch every feature they train on from the server pods (epochs below).")
    one_cheapest, one_fails, two_dearer = [], [], []
    for key, dataset in DATASETS:
        per = option_points(data, key)
        c = {o: best_of(pairs, cheapest) for o, pairs in per.items()}
        bad = [p for _, p in per["1"] if not ok(p)]
        if bad:
            one_fails.append(f"{dataset} at {len(bad)} of {len(per['1'])} sizes ({names(sorted({p['lostTo'] for p in bad}))})")
        if c["1"] and c["3"] and c["1"][1]["cost"] <= c["3"][1]["cost"] * (1 + SAME):
            one_cheapest.append(f"{dataset} ({money(c['1'][1]['cost'])}, {c['1'][0].ref(c['1'][1])})")
        if c["2"] and c["3"] and c["2"][1]["cost"] > c["3"][1]["cost"] * (1 + SAME):
            two_dearer.append(f"{dataset} ({c['2'][1]['cost'] / c['3'][1]['cost']:.1f} times, {c['2'][0].ref(c['2'][1])})")
    lines.append(f"- **(c)** Option 1 (MSP only, a fixed 1/1/1 worker per GPU) fails on {names(one_fails)}, yet its "
                 f"best configuration is as cheap as option 3's on {names(one_cheapest)}; option 2, which cannot run "
                 f"MSP, costs more than option 3 on {names(two_dearer)}.")
    return lines


def main():
    what, data = sys.argv[1], sys.argv[2]
    if what == "conclusions":
        lines = summary_lines(data) + ["", "In detail:", ""]
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
