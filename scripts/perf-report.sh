#!/usr/bin/env bash
# Regenerates reports/performance.md and reports/performance/scaling.svg: the simulator's speed and
# memory at scale against the performance targets (docs/performance.md), from one run of everything side by side:
#   - the scale scenarios of scenarios/scale/ (fleet-day, fleet-week; fleet-week-10x with --large,
#     fleet-week-1m with --huge), each run whole by
#     `dglsim run` under GNU time: CPU seconds (user + sys), peak resident memory, engine events
#     and API writes per CPU second, simulated seconds per CPU second; per job, the engine events,
#     API writes and watch events (the fan-out) and the CPU per engine event, where growth comes from;
#   - the Google Benchmark cases of the targets: an API write with its watch fan-out against the
#     floor doing only the unavoidable work (fakeapi_bench), flow re-rates with 5,000 flows on one
#     link and an epoch of all-to-all traffic between 64 workers, exact and with a 1 % re-rate
#     window (network_bench); the floor is said to be untrustworthy (and the target's verdict
#     unknown) on a run where it measured more than the write, more for one watcher than for five,
#     or spread by more than a tenth over its repetitions;
#   - the regression suite (`dglsim suite scenarios`) and a sweep of 1,000 small points
#     (bench/sweep/thousand.yaml), each with --jobs 2, wall time (their targets are wall time on
#     2 cores);
#   - with `perf` installed, a profile of the fleet day: its top self-time entries, and the
#     inclusive share of the simulator's own functions (call stacks unwound from DWARF); and (not
#     with --quick) one of the fleet week, the CPU target's workload: the share of its samples in
#     each part of the simulator (the innermost frame of a sample's stack that belongs to one: the
#     API server, informers, operator, DGL models, kubelets, ...) and of each kind of work (the
#     function or library a sample was in: JSON object code, the malloc, byte compares, std::, the
#     simulator's own code), and, when the week took more than its 1 s, the reasons from them;
#     the larger weeks' CPU per job against the fleet week's, split into engine events per job
#     (which the watch fan-out grows) and CPU per engine event;
#   - before and after: the report it replaces is read first, and its commit, its scenarios' CPU
#     seconds and its profile are shown beside this run's (the report names the commit it measured,
#     "+changes" when the tree had uncommitted changes);
#   - with --baseline BIN, another dglsim (the previous commit's build, say) and this build run the
#     fleet day (7 pairs) and the fleet week (3 pairs; not with --quick) alternately, in this run:
#     each pair's CPU ratio, their median and range, both peaks and whether the trace hashes agree.
#     The machine's speed moves between hours, which "before" cannot tell from a change; a pair can.
# The machine (cores, CPU model) and its load average before and after are stated in the report:
# the machine is shared, so CPU time is the figure to read, not wall time.
#
#   - dglsim against KWOK: the section reports/performance/kwok-speed.md and its Targets row
#     (reports/performance/kwok-speed.json), as scripts/kwok-speed.sh last wrote them; with --kwok
#     that script runs first (10 to 15 more minutes: the real control plane runs in real time).
#
#   bash scripts/perf-report.sh [--quick | --large | --huge] [--kwok] [--baseline BIN] [BUILD_DIR]
#       BUILD_DIR: default build/ (RelWithDebInfo, built when missing); --quick: fleet-day only;
#       --large: the ten-times fleet week too (fleet-week-10x: ~139,000 pods, minutes of CPU and
#       under 1 GB); --huge: that and the million-pod week (fleet-week-1m: ~990,000 pods on 70,000
#       nodes, about half an hour of CPU and a few GB)
#
# Takes about a minute of CPU (the fleet week, run twice, is most of it; the benchmarks, suite and sweep about half a
# minute more), --large three to five minutes more, --huge half an hour or more, --baseline about
# six fleet weeks more. Run it on a quiet machine when you can; run nothing else big beside it.
# Exit code 2 for an unknown option or a baseline that is not an executable file.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

quick=0
kwok=0
large=0
huge=0
baseline=""
build=build
while (($#)); do
  case $1 in
    --quick) quick=1 ;;
    --kwok) kwok=1 ;;
    --large) large=1 ;;
    --huge) large=1; huge=1 ;;
    --baseline)
      (($# >= 2)) || { echo "perf-report: --baseline needs a dglsim binary" >&2; exit 2; }
      baseline=$2
      shift ;;
    --baseline=*) baseline=${1#--baseline=} ;;
    -*) echo "perf-report: unknown option $1 (--quick, --large, --huge, --kwok, --baseline BIN)" >&2; exit 2 ;;
    *) build=$1 ;;
  esac
  shift
done
if [[ -n $baseline && ( ! -f $baseline || ! -x $baseline ) ]]; then
  echo "perf-report: --baseline $baseline: not an executable file (a dglsim built from another commit)" >&2
  exit 2
fi
if [[ ! -x $build/sim/dglsim || ! -x $build/bench/fakeapi_bench || ! -x $build/bench/network_bench ]]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$build" -j "${DGLSIM_JOBS:-2}" --target dglsim fakeapi_bench network_bench
fi
command -v /usr/bin/time >/dev/null || { echo "perf-report: needs GNU time (/usr/bin/time; scripts/deps.sh installs it)" >&2; exit 2; }

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
scenarios=(fleet-day)
((quick)) || scenarios+=(fleet-week)
((large)) && scenarios+=(fleet-week-10x)
((huge)) && scenarios+=(fleet-week-1m)
# The malloc dglsim links (DGLSIM_ALLOCATOR): a figure of the build, said in the report.
allocator=$(ldd "$build/sim/dglsim" 2>/dev/null | grep -o -E 'lib(jemalloc|tcmalloc[a-z_]*)' | head -1 || true)
allocator=${allocator:-glibc malloc}

# timed_run BIN SCENARIO PREFIX: `BIN run` of scenarios/scale/SCENARIO.yaml under GNU time, its
# figures in PREFIX.time and its report in PREFIX.json; a failed run ends the script with its output.
timed_run() {
  /usr/bin/time -f '%U %S %e %M' -o "$3.time" "$1" run --quiet --json "$3.json" "scenarios/scale/$2.yaml" >"$3.out" || {
    echo "perf-report: $1 run scenarios/scale/$2.yaml failed:" >&2
    cat "$3.out" >&2
    exit 1
  }
}

if ((kwok)); then
  # dglsim against KWOK first (10 to 15 minutes of wall time): its section is read below.
  echo "perf-report: scripts/kwok-speed.sh" >&2
  bash scripts/kwok-speed.sh --no-report "$build"
fi
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
# The benchmarks first: their nanoseconds are the most sensitive to what ran just before (a
# multi-gigabyte run's memory being handed back, say).
echo "perf-report: benchmarks" >&2
"$build/bench/fakeapi_bench" --benchmark_filter='StatusWrite' --benchmark_repetitions=5 \
  --benchmark_report_aggregates_only=true --benchmark_format=json >"$out/fakeapi.json" 2>/dev/null
"$build/bench/network_bench" --benchmark_filter='OneLinkRerate|EpochAllToAll' --benchmark_repetitions=5 \
  --benchmark_report_aggregates_only=true --benchmark_format=json >"$out/network.json" 2>/dev/null
for s in "${scenarios[@]}"; do
  echo "perf-report: dglsim run scenarios/scale/$s.yaml" >&2
  timed_run "$build/sim/dglsim" "$s" "$out/$s"
done
echo "perf-report: dglsim suite scenarios; dglsim sweep bench/sweep/thousand.yaml" >&2
/usr/bin/time -f '%U %S %e %M' -o "$out/suite.time" "$build/sim/dglsim" suite --jobs 2 scenarios >"$out/suite.out" || {
  echo "perf-report: the suite failed:" >&2
  cat "$out/suite.out" >&2
  exit 1
}
/usr/bin/time -f '%U %S %e %M' -o "$out/sweep.time" "$build/sim/dglsim" sweep --jobs 2 --quiet bench/sweep/thousand.yaml >"$out/sweep.out" || {
  echo "perf-report: the sweep failed:" >&2
  cat "$out/sweep.out" >&2
  exit 1
}
# Pairs against the baseline: the two binaries alternate, which goes first alternating too.
paired=()
if [[ -n $baseline ]]; then
  paired=(fleet-day)
  ((quick)) || paired+=(fleet-week)
  for s in "${paired[@]}"; do
    pairs=7
    [[ $s == fleet-week ]] && pairs=3
    echo "perf-report: $pairs pairs of scenarios/scale/$s.yaml against $baseline" >&2
    for ((i = 0; i < pairs; i++)); do
      order=(base this)
      ((i % 2)) && order=(this base)
      for who in "${order[@]}"; do
        bin=$build/sim/dglsim
        [[ $who == base ]] && bin=$baseline
        timed_run "$bin" "$s" "$out/pair-$s-$i-$who"
      done
    done
  done
fi
profile=""
echo "perf-report: profiles of the fleet day and the fleet week (perf record)" >&2
# Call stacks unwound from DWARF (the build keeps no frame pointers): the self-time entries, and
# every sample's stack for the inclusive shares of the simulator's own functions.
if command -v perf >/dev/null && perf record -q -o "$out/perf.data" -F 2000 --call-graph dwarf,16384 \
     "$build/sim/dglsim" run --quiet scenarios/scale/fleet-day.yaml >/dev/null 2>&1; then
  perf report -i "$out/perf.data" --no-children --stdio -g none --percent-limit 1.5 2>/dev/null |
    grep -v '^#' | grep -v '^$' | head -15 >"$out/profile.txt" || true
  # (--no-inline: resolving inlined frames through addr2line takes minutes; the functions listed
  # are the ones not inlined)
  perf script -i "$out/perf.data" -F ip,sym --no-inline >"$out/stacks.txt" 2>/dev/null || true
  profile=$out/profile.txt
  # The fleet week, the CPU target's own workload, at a rate that gives a few thousand samples: each
  # sample's stack (with the library each frame is in) for where its CPU goes by part and by kind.
  if ((!quick)) && perf record -q -o "$out/week.data" -F 500 --call-graph dwarf,16384 \
       "$build/sim/dglsim" run --quiet scenarios/scale/fleet-week.yaml >/dev/null 2>&1; then
    perf script -i "$out/week.data" -F ip,sym,dso --no-inline >"$out/week-stacks.txt" 2>/dev/null || true
    rm -f "$out/week.data"
  fi
fi
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
# The code measured: its commit, marked when the tree had changes not committed.
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
[[ -n $(git status --porcelain --untracked-files=no 2>/dev/null) ]] && commit+="+changes"

mkdir -p reports/performance
PERF_BASELINE=$baseline PERF_PAIRED="${paired[*]}" \
  python3 - "$out" "$load_before" "$load_after" "$profile" "$allocator" "$commit" "${scenarios[@]}" <<'PY'
import json, math, os, platform, re, subprocess, sys

out, load_before, load_after, profile, allocator, commit = sys.argv[1:7]
scenarios = sys.argv[7:]

# The report this run replaces: its commit, each scenario's CPU and its profile, shown beside this
# run's as "before" (a report from before this section existed has no commit line: "unknown").
previous = {"commit": "unknown", "cpu": {}, "profile": []}
if os.path.exists("reports/performance.md"):
    text = open("reports/performance.md").read()
    m = re.search(r"^Code: commit `([^`]+)`", text, re.M)
    previous["commit"] = m.group(1) if m else "unknown"
    for m in re.finditer(r"^\| `([\w-]+)` \| [\d,]+ \| [\d,]+ \| [\d,]+ \| [\d,]+ \| [\d.]+ d \| ([\d.]+) \|", text, re.M):
        previous["cpu"][m.group(1)] = float(m.group(2))
    m = re.search(r"^## Profile of the fleet day[^\n]*\n(?:(?!```)[^\n]*\n)*```\n(.*?)```", text, re.M | re.S)
    previous["profile"] = m.group(1).splitlines() if m else []

def cpu_model():
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"

rows = []
for s in scenarios:
    user, sys_, wall, rss_kb = open(f"{out}/{s}.time").read().split()[:4]
    report = json.load(open(f"{out}/{s}.json"))
    # GNU time counts hundredths of a second: a run shorter than that is counted as one, so that the
    # rates per CPU second below stay finite.
    cpu = max(float(user) + float(sys_), 0.01)
    pods = sum(j.get("podsCreated", 0) or 0 for j in report.get("jobs", []))
    rows.append(dict(name=s, cpu=cpu, wall=float(wall), rss=int(rss_kb) * 1024, events=report["events"],
                     writes=report["apiWrites"], sim=report["simulatedSeconds"], jobs=len(report.get("jobs", [])),
                     pods=pods, hash=report["traceHash"], passed=report.get("passed"),
                     watch=report.get("watchEvents", 0)))

def bench(file, name, aggregate="median"):
    data = json.load(open(file))
    for b in data["benchmarks"]:
        if b.get("run_name") == name and b.get("aggregate_name") == aggregate:
            return b
    raise SystemExit(f"perf-report: benchmark {name} ({aggregate}) missing")

writes = {}
for n in (1, 5):
    fan, floor = (bench(f"{out}/fakeapi.json", f"BM_StatusWrite{k}/{n}") for k in ("FanOut", "Floor"))
    fan_sd, floor_sd = (bench(f"{out}/fakeapi.json", f"BM_StatusWrite{k}/{n}", "stddev") for k in ("FanOut", "Floor"))
    writes[n] = (fan["cpu_time"], floor["cpu_time"], fan["time_unit"], fan_sd["cpu_time"], floor_sd["cpu_time"])
# What makes the floor's figure untrustworthy on a run: it cannot cost more than the write it is the
# floor of, more for one watcher than for five (the same copy and four more pointer pushes), or vary
# by more than a tenth between repetitions.
floor_doubts = []
for n, (fan, floor, unit, _, floor_sd) in writes.items():
    if floor > fan:
        floor_doubts.append(f"with {n} watcher(s) the floor measured more ({floor:,.0f} {unit}) than the write ({fan:,.0f} {unit})")
    if floor_sd > 0.1 * floor:
        floor_doubts.append(f"the {n}-watcher floor's repetitions spread by ±{floor_sd:,.0f} {unit}, {100 * floor_sd / floor:.0f} % of its median")
if 1 in writes and 5 in writes and writes[1][1] > writes[5][1]:
    floor_doubts.append("the floor measured more for one watcher than for five, which its work cannot explain")
net = bench(f"{out}/network.json", "BM_OneLinkRerate/5000")
epoch_equal, epoch_spread, epoch_window = (bench(f"{out}/network.json", f"BM_EpochAllToAll/64/{k}")
                                           for k in ("0/0", "20/0", "20/10"))
def timed(name):
    user, sys_, wall, rss_kb = open(f"{out}/{name}.time").read().split()[:4]
    return float(user) + float(sys_), float(wall), int(rss_kb) * 1024
suite_cpu, suite_wall, _ = timed("suite")
sweep_cpu, sweep_wall, sweep_rss = timed("sweep")
suite_count = len(re.findall(r"^PASS ", open(f"{out}/suite.out").read(), re.M))

def mb(b): return f"{b / 1e6:,.0f} MB"
lines = []
w = lines.append
w("# Performance at scale")
w("")
w("Generated by `bash scripts/perf-report.sh`: every figure below comes from one run of that command, side by side.")
w(f"Machine: {os.cpu_count()} cores ({cpu_model()}), load average {load_before} before and {load_after} after "
  "(the machine is shared with other builds: CPU time, user + sys, is the figure to read; wall time is stated "
  f"only for completeness). Build: RelWithDebInfo (g++ -O2 -g), malloc: {allocator}. Every run is single-threaded (one core).")
w("")
prev_code = f"commit `{previous['commit']}`" if previous["commit"] != "unknown" else "its commit not named"
was = f"was of {prev_code}" if previous["commit"] != "unknown" else "did not name its commit"
w(f"Code: commit `{commit}`. The report it replaced {was}: its figures are shown as \"before\" where they are "
  "compared (another run, perhaps at another load: read a ratio near 1 as no change).")
w("")
w("## Scale scenarios (`dglsim run`, whole process)")
w("")
w("| scenario | jobs | pods | engine events | API writes | simulated | CPU s | wall s | peak memory | events / CPU s | API writes / CPU s | simulated s / CPU s | verdict | trace hash |")
w("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for r in rows:
    w(f"| `{r['name']}` | {r['jobs']:,} | {r['pods']:,} | {r['events']:,} | {r['writes']:,} | {r['sim'] / 86400:.2f} d | "
      f"{r['cpu']:.2f} | {r['wall']:.1f} | {mb(r['rss'])} | {r['events'] / r['cpu']:,.0f} | {r['writes'] / r['cpu']:,.0f} | "
      f"{r['sim'] / r['cpu']:,.0f} | {'PASS' if r['passed'] else 'FAIL'} | `{r['hash']}` |")
w("")
before = [r for r in rows if r["name"] in previous["cpu"]]
if before:
    w(f"Before and after: CPU seconds in the report this one replaced ({prev_code}) and in this run.")
    w("")
    w("| scenario | before | after | after / before |")
    w("|---|---|---|---|")
    for r in before:
        b = previous["cpu"][r["name"]]
        w(f"| `{r['name']}` | {b:.2f} | {r['cpu']:.2f} | {r['cpu'] / b:.2f} |" if b > 0 else f"| `{r['name']}` | {b:.2f} | {r['cpu']:.2f} | - |")
    w("")
baseline = os.environ.get("PERF_BASELINE", "")
paired = os.environ.get("PERF_PAIRED", "").split()
if baseline and paired:
    w("## Paired against a baseline binary (`--baseline`)")
    w("")
    w(f"`{baseline}` and this build ran each scenario alternately in this run (which went first alternating too): "
      "the CPU ratio of each pair, this build over the baseline, with its median and range. Unlike \"before\" above, "
      "a pair's two runs meet the machine at the same speed, so this is the figure to read for what a change did.")
    w("")
    w("| scenario | pairs | baseline CPU s (median) | this build CPU s (median) | ratio (median) | ratio range | peak memory (baseline, this build) | same trace hash |")
    w("|---|---|---|---|---|---|---|---|")
    def median(xs):
        xs = sorted(xs)
        n = len(xs)
        return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2
    for s in paired:
        runs = {"base": [], "this": []}
        hashes = {"base": set(), "this": set()}
        i = 0
        while os.path.exists(f"{out}/pair-{s}-{i}-base.time"):
            for who in runs:
                user, sys_, wall, rss_kb = open(f"{out}/pair-{s}-{i}-{who}.time").read().split()[:4]
                runs[who].append((max(float(user) + float(sys_), 0.01), int(rss_kb) * 1024))
                hashes[who].add(json.load(open(f"{out}/pair-{s}-{i}-{who}.json"))["traceHash"])
            i += 1
        ratios = [t[0] / b[0] for b, t in zip(runs["base"], runs["this"])]
        same = "yes" if hashes["base"] == hashes["this"] and len(hashes["this"]) == 1 else "no"
        w(f"| `{s}` | {i} | {median([c for c, _ in runs['base']]):.2f} | {median([c for c, _ in runs['this']]):.2f} | "
          f"{median(ratios):.2f} | {min(ratios):.2f} to {max(ratios):.2f} | "
          f"{mb(max(r for _, r in runs['base']))}, {mb(max(r for _, r in runs['this']))} | {same} |")
    w("")
w("## API writes against the floor (`fakeapi_bench`, median of 5, CPU time)")
w("")
w("A pod status merge patch with N watches open on pods, against a floor doing only the unavoidable work "
  "(copy the object with the field set and a new resourceVersion, keep it in a map as an immutable shared "
  "pointer, queue the pointer to each watcher, keep the version in a history as long as the store's and free "
  "the oldest; bench/fakeapi_bench.cc says exactly what).")
w("")
w("| watchers | write (median, stddev) | floor (median, stddev) | ratio (target: at most 2) |")
w("|---|---|---|---|")
for n, (fan, floor, unit, fan_sd, floor_sd) in writes.items():
    w(f"| {n} | {fan:,.0f} {unit} (±{fan_sd:,.0f}) | {floor:,.0f} {unit} (±{floor_sd:,.0f}) | {fan / floor:.2f} |")
if floor_doubts:
    w("")
    w("On this run the floor's own figure is not trustworthy, so neither is the ratio: " + "; ".join(floor_doubts) +
      ". The machine was busy: run the command again on a quieter one.")
w("")
w("## Flow network (`network_bench`, median of 5, CPU time)")
w("")
rps = net.get("rerates_per_s", 0)
w(f"5,000 downloads from the shared store alive on one link while one more flow starts and is cancelled: "
  f"{rps:,.0f} re-rates per CPU second, {net.get('flows_per_rerate', 0):,.0f} flows re-rated each time, "
  f"{net.get('one_link_share', 0) * 100:.0f} % of them one-link re-rates that visit only the changed class "
  f"(target: 50,000 re-rates/s).")
w("")
def ms(b): return b["cpu_time"] * {"ms": 1, "us": 1e-3, "ns": 1e-6, "s": 1e3}[b["time_unit"]]
w(f"An epoch of all-to-all traffic between 64 workers ({epoch_equal.get('flows', 0):,.0f} flows of 100 MB on 100 Gbit/s NICs, all "
  f"started at once): {ms(epoch_equal):,.1f} ms of CPU when the flows are equal and end together "
  f"({epoch_equal.get('rerates_per_epoch', 0):,.0f} re-rates); {ms(epoch_spread):,.0f} ms when their sizes spread by +-20 %, "
  f"so that each ending re-rates the flows still running ({epoch_spread.get('rerates_per_epoch', 0):,.0f} re-rates). "
  f"With the network's re-rate window at 1 % (`cluster.network.rerateWindow: 0.01`: an ending's re-rate may wait 1 % "
  f"of the flow's age, so endings close together share one), the spread epoch costs {ms(epoch_window):,.1f} ms "
  f"({epoch_window.get('rerates_per_epoch', 0):,.0f} re-rates) and lasts {epoch_window.get('epoch_s', 0):.4f} s of "
  f"simulated time against the exact {epoch_spread.get('epoch_s', 0):.4f} s "
  f"({(epoch_window.get('epoch_s', 0) / max(epoch_spread.get('epoch_s', 0), 1e-9) - 1) * 100:+.2f} %).")
w("")
w("## Suite and sweep (wall time, `--jobs 2`)")
w("")
w(f"`dglsim suite scenarios` ({suite_count} scenarios): {suite_wall:.2f} s wall, {suite_cpu:.2f} s CPU. "
  f"`dglsim sweep bench/sweep/thousand.yaml` (1,000 small points): {sweep_wall:.1f} s wall, {sweep_cpu:.1f} s CPU, {mb(sweep_rss)} peak.")
w("")
# dglsim against KWOK: the section scripts/kwok-speed.sh wrote last (run here with --kwok), carried
# over as it is, and its row in the Targets table.
kwok_md, kwok_json = "reports/performance/kwok-speed.md", "reports/performance/kwok-speed.json"
if os.path.exists(kwok_md) and os.path.exists(kwok_json):
    w(open(kwok_md).read().rstrip("\n"))
    w("")
w("## Targets")
w("")
w("| target | measured | met |")
w("|---|---|---|")
week = next((r for r in rows if r["name"] == "fleet-week"), None)
if week:
    w(f"| fleet week: under 1 s of CPU | {week['cpu']:.1f} s | {'yes' if week['cpu'] < 1 else 'no: ' + format(week['cpu'] / 1, '.0f') + 'x over'} |")
    w(f"| fleet week: under 300 MB peak | {mb(week['rss'])} | {'yes' if week['rss'] < 300e6 else 'no: ' + format(week['rss'] / 300e6, '.1f') + 'x over'} |")
for n, (fan, floor, unit, _, _) in writes.items():
    verdict = "unknown: the floor was noisy (above)" if floor_doubts else ("yes" if fan / floor <= 2 else "no")
    w(f"| API write within 2x of the floor, {n} watcher(s) | {fan / floor:.2f}x | {verdict} |")
w(f"| 50,000 re-rates/s with 5,000 flows on one link | {rps:,.0f}/s | {'yes' if rps >= 50000 else 'no'} |")
# "Not dominating": an epoch's traffic costs less CPU than the largest scale run spends on an average
# job whole (its pods, API writes, reconciles and flows).
ref = rows[-1]
job_ms = ref["cpu"] / max(ref["jobs"], 1) * 1e3
verdict = lambda b: "yes" if ms(b) < job_ms else "no"
w(f"| an epoch of 64 workers' all-to-all (4,032 flows) under the CPU of an average {ref['name']} job ({job_ms:,.0f} ms) | "
  f"{ms(epoch_equal):,.1f} ms (equal flows), {ms(epoch_spread):,.0f} ms (sizes +-20 %), "
  f"{ms(epoch_window):,.1f} ms (sizes +-20 %, rerateWindow 0.01) | "
  f"equal: {verdict(epoch_equal)}; spread: {verdict(epoch_spread)} exact, {verdict(epoch_window)} with the window |")
w(f"| 1,000 small scenarios swept in under a minute on 2 cores | {sweep_wall:.1f} s | {'yes' if sweep_wall < 60 else 'no'} |")
w(f"| the regression suite in under 2 s | {suite_wall:.2f} s | {'yes' if suite_wall < 2 else 'no'} |")
big = next((r for r in rows if r["name"] == "fleet-week-10x"), None)
if big:
    w(f"| 10,000 nodes / ~140,000 pods: under 10 s of CPU | {big['cpu']:.1f} s | {'yes' if big['cpu'] < 10 else 'no: ' + format(big['cpu'] / 10, '.0f') + 'x over'} |")
    w(f"| 10,000 nodes / ~140,000 pods: under 1 GB peak | {mb(big['rss'])} | {'yes' if big['rss'] < 1e9 else 'no: ' + format(big['rss'] / 1e9, '.1f') + 'x over'} |")
else:
    w("| 10,000 nodes / ~140,000 pods under 10 s and 1 GB | not in this run (`--large`) | - |")
huge_row = next((r for r in rows if r["name"] == "fleet-week-1m"), None)
if huge_row:
    w(f"| ~1 M pods under 2 min of CPU ({huge_row['pods']:,} pods on 70,000 nodes) | {huge_row['cpu']:.0f} s | "
      f"{'yes' if huge_row['cpu'] < 120 else 'no: ' + format(huge_row['cpu'] / 120, '.0f') + 'x over'} |")
    w(f"| ~1 M pods under 8 GB peak | {mb(huge_row['rss'])} | {'yes' if huge_row['rss'] < 8e9 else 'no'} |")
else:
    w("| ~1 M pods under 2 min and 8 GB | not in this run (`--huge`) | - |")
# Growth against n log n between consecutive scale runs: (CPU ratio) / (n log n ratio); at most 1 is n log n or better.
for a, b in zip(rows, rows[1:]):
    if a["pods"] > 1 and b["pods"] > a["pods"]:
        nlogn = b["pods"] * math.log(b["pods"]) / (a["pods"] * math.log(a["pods"]))
        g = (b["cpu"] / a["cpu"]) / nlogn
        w(f"| CPU grows no faster than n log n, {a['name']} -> {b['name']} ({b['pods'] / a['pods']:.1f}x the pods) | "
          f"{b['cpu'] / a['cpu']:.1f}x the CPU against {nlogn:.1f}x for n log n (ratio {g:.2f}) | {'yes' if g <= 1 else 'no'} |")
if os.path.exists(kwok_md) and os.path.exists(kwok_json):
    w(json.load(open(kwok_json))["target_row"])
w("")
# ---- the fleet week's CPU by part and by kind, from its own profile ----------------------------
# Each sample goes to one part: the innermost frame of its stack that belongs to one (a store write
# the kubelet makes is the API server's; the JSON helpers every part calls belong to none, so they
# count for their caller). And to one kind, by the function it was in (its leaf frame).
PARTS = [
    ("API server: store, admission, watch fan-out, garbage collector", r"^fakeapi::"),
    ("informers and their caches", r"^kube::Informer::|^sim::PumpedInformer"),
    ("operator: reconciles", r"^dgl::"),
    ("DGL workload models", r"^sim::dglmodels::"),
    ("kubelets and container programs", r"^sim::(Kubelet|ProgramRegistry|\w*Program)"),
    ("scheduler", r"^sim::Scheduler"),
    ("node lifecycle", r"^sim::NodeLifecycle"),
    ("network", r"^sim::Network"),
    ("run records and invariant checks", r"^harness::(Recorder|InvariantChecker)"),
    ("scenario loading", r"^harness::(LoadScenario|loading::)|^YAML::"),
    ("event engine", r"^sim::Engine"),
]
JSON_CODE = r"^(nlohmann::|kube::detail::FlatMembers|kube::(JsonAt|JsonString|Member|ReleaseTree|SealTree|MakeObject))"
KINDS = [
    ("JSON object code (nlohmann::json, its flat members, tree walks and frees)", lambda sym, dso: re.match(JSON_CODE, sym)),
    ("memory allocation (the malloc)", lambda sym, dso: "malloc" in dso or re.match(r"^(operator new|operator delete|malloc|free)\b", sym)),
    ("byte compares and copies (libc memcmp, memmove, ...)", lambda sym, dso: "libc" in dso and re.match(r"^_*(mem|str)", sym)),
    ("standard containers and strings (std::)", lambda sym, dso: sym.startswith(("std::", "__gnu_cxx::"))),
    ("kernel (page faults, system calls)", lambda sym, dso: "kernel" in dso),
]

def plain_name(name):
    name = re.sub(r"\(.*", "", name)
    while re.search(r"<[^<>]*>", name):
        name = re.sub(r"<[^<>]*>", "", name)
    return name.replace("[abi:cxx11]", "").strip()

def stack_samples(path):
    """Each sample of `perf script -F ip,sym,dso`: its frames, leaf first, as (function, library)."""
    stack = []
    for line in open(path, errors="replace"):
        line = line.strip()
        if not line:
            if stack:
                yield stack
            stack = []
            continue
        rest = line.split(None, 1)[1] if " " in line else ""
        m = re.match(r"^(.*) \(([^()]*)\)$", rest)
        sym, dso = (m.group(1), m.group(2)) if m else (rest, "")
        stack.append((plain_name(sym), dso))
    if stack:
        yield stack

week_stacks = os.path.join(out, "week-stacks.txt")
week_row = next((r for r in rows if r["name"] == "fleet-week"), None)
if week_row and os.path.exists(week_stacks) and os.path.getsize(week_stacks) > 0:
    parts, kinds, frees, n = {}, {}, 0, 0
    for st in stack_samples(week_stacks):
        n += 1
        part = next((p for sym, _ in st for p, pat in PARTS if re.search(pat, sym)), "other")
        parts[part] = parts.get(part, 0) + 1
        sym, dso = st[0]
        kind = next((k for k, f in KINDS if f(sym, dso)), None)
        if kind is None:
            kind = "the simulator's own code" if dso.endswith("dglsim") else f"other libraries ({dso.rsplit('/', 1)[-1] or 'unknown'})"
        kinds[kind] = kinds.get(kind, 0) + 1
        if any(s == "kube::ReleaseTree" or s.endswith("json_value::destroy") for s, _ in st):
            frees += 1
    if n:
        share = lambda c: c / n
        ranked_parts = sorted(parts.items(), key=lambda x: (-x[1], x[0]))
        ranked_kinds = sorted(kinds.items(), key=lambda x: (-x[1], x[0]))
        w("## Where the fleet week's CPU goes (`perf record --call-graph dwarf` of the fleet week)")
        w("")
        w(f"{n:,} samples of one more run of `fleet-week`. By part: each sample counted once, for the innermost frame "
          "of its stack that belongs to a part (a store write the kubelet makes is the API server's; the JSON helpers "
          "every part calls count for their caller). By kind: the function the sample was in.")
        w("")
        w("| share | part |")
        w("|---|---|")
        for name, c in ranked_parts:
            w(f"| {100 * share(c):.1f} % | {name} |")
        w("")
        w("| share | kind of work |")
        w("|---|---|")
        for name, c in ranked_kinds:
            w(f"| {100 * share(c):.1f} % | {name} |")
        w("")
        if week_row["cpu"] >= 1:
            top_name, top_c = ranked_parts[0]
            representation = sum(c for name, c in kinds.items() if not name.startswith(("the simulator", "kernel", "other")))
            own = kinds.get("the simulator's own code", 0)
            w(f"Why the fleet week misses its 1 s: it took {week_row['cpu']:.1f} s, so every part must become "
              f"{week_row['cpu']:.1f}x cheaper, not just one of them. The largest part, the {top_name.split(':')[0]}, holds "
              f"{100 * share(top_c):.0f} % of the samples: without it at all the week would still take "
              f"{week_row['cpu'] * (1 - share(top_c)):.1f} s. {100 * share(representation):.0f} % of the samples are in "
              f"JSON object code, the malloc, byte compares and copies or standard containers, against "
              f"{100 * share(own):.0f} % in the simulator's own logic: the cost of keeping every API object as a JSON "
              "tree, which each write copies along the path it changes, each reader searches by key, and the watch "
              f"history frees long after, out of the cache ({100 * share(frees):.0f} % of the samples free JSON trees). "
              "Closing the gap takes typed objects in the store and the caches (fixed-layout pods and jobs, JSON only at "
              "the HTTP edge), a change of the representation every part reads and writes, not a hot spot to fix.")
            w("")
        # The larger weeks against the fleet week: their CPU per job, split into engine events per
        # job (which the watch fan-out grows) and CPU per engine event.
        week_job = week_row["cpu"] / max(week_row["jobs"], 1)
        for name, target in (("fleet-week-10x", 10), ("fleet-week-1m", 120)):
            r = next((x for x in rows if x["name"] == name), None)
            if not r:
                continue
            per_job = r["cpu"] / max(r["jobs"], 1)
            events = lambda x: x["events"] / max(x["jobs"], 1)
            per_event = lambda x: x["cpu"] / max(x["events"], 1)
            fan = lambda x: x["watch"] / max(x["writes"], 1)
            at_week = week_job * r["jobs"]
            w(f"`{name}` took {r['cpu']:.1f} s (target {target} s): {per_job * 1e3:.1f} ms of CPU per job against the fleet "
              f"week's {week_job * 1e3:.1f} ms ({per_job / week_job:.2f}x), that is {events(r) / events(week_row):.2f}x the "
              f"engine events per job ({fan(r):.1f} watch events per API write against {fan(week_row):.1f}: the watch fan-out "
              f"grows with the jobs running at once) and {per_event(r) / per_event(week_row):.2f}x the CPU per engine event. "
              f"At the fleet week's cost per job it would take {at_week:.0f} s, {'still over' if at_week >= target else 'under'} "
              f"its {target} s.")
            w("")
if len(rows) > 1:
    w("## Where the growth comes from")
    w("")
    w("Per job: the engine events and API writes the workload makes, the events the API server queues to watchers "
      "(each write once for every watch it concerns), and the CPU each engine event costs. A column that stays flat "
      "from row to row grows linearly with the jobs; the cost of an event growing is the simulator's, the events "
      "or the watch fan-out growing is the workload's.")
    w("")
    w("| scenario | engine events / job | API writes / job | watch events / API write | CPU ms / job | CPU us / engine event |")
    w("|---|---|---|---|---|---|")
    for r in rows:
        j = max(r["jobs"], 1)
        w(f"| `{r['name']}` | {r['events'] / j:,.0f} | {r['writes'] / j:,.0f} | {r['watch'] / max(r['writes'], 1):.1f} | "
          f"{r['cpu'] / j * 1e3:,.1f} | {r['cpu'] / max(r['events'], 1) * 1e6:.1f} |")
    w("")
    w("The launcher's `watcher-loop` init containers each watch every pod of their namespace, as the original "
      "operator's watcher-loop does (Qihoo360/dgl-operator, watcher-loop/app/server.go: a client-go pod informer on "
      "the namespace, no selector): every pod write in the "
      "namespace reaches every watcher-loop alive in it, and each one starts with a list of the whole namespace. "
      "Their number grows with the jobs running at once, so the watch fan-out per write, and the informer wake-ups "
      "it causes (engine events), grow with the cluster's concurrency: that term is quadratic in a real cluster too.")
    w("")
    w("![CPU seconds against pods](performance/scaling.svg)")
    w("")
def inclusive_shares(path, top=15):
    """The share of samples whose stack holds each of the simulator's own functions (dgl::, sim::,
    kube::, fakeapi::, harness::), counted once a sample, names without arguments or templates;
    the frames every sample holds (main, the event loop) are left out."""
    samples, stack = [], set()
    for line in open(path, errors="replace"):
        line = line.strip()
        if not line:
            if stack:
                samples.append(stack)
            stack = set()
            continue
        name = plain_name(line.split(None, 1)[1] if " " in line else line)
        if re.match(r"(dgl|sim|kube|fakeapi|harness)::\w", name):
            stack.add(name)
    if stack:
        samples.append(stack)
    counts = {}
    for st in samples:
        for name in st:
            counts[name] = counts.get(name, 0) + 1
    n = len(samples)
    ranked = sorted(((c / n, name) for name, c in counts.items() if c / n < 0.9), key=lambda x: (-x[0], x[1]))
    return n, ranked[:top]

stacks = os.path.join(out, "stacks.txt")
if profile and os.path.exists(stacks) and os.path.getsize(stacks) > 0:
    n, ranked = inclusive_shares(stacks)
    if ranked:
        w("## Where the fleet day's CPU goes (`perf record --call-graph dwarf`, inclusive)")
        w("")
        w(f"The share of {n:,} samples whose call stack holds each of the simulator's own functions (a function "
          "and the ones it calls; shares overlap, and the event loop and what sits above it are left out).")
        w("")
        w("| share | function |")
        w("|---|---|")
        for share, name in ranked:
            w(f"| {100 * share:.1f} % | `{name}` |")
        w("")
if profile:
    w("## Profile of the fleet day (`perf record`, self time, top entries)")
    w("")
    w(f"This run (commit `{commit}`):")
    w("")
    w("```")
    for line in open(profile):
        w(re.sub(r"\s+", " ", line.strip())[:160])
    w("```")
    w("")
    if previous["profile"]:
        w(f"Before: the report this one replaced ({prev_code}):")
        w("")
        w("```")
        for line in previous["profile"]:
            w(line)
        w("```")
        w("")
open("reports/performance.md", "w").write("\n".join(lines))

# The scaling curve: CPU seconds against pods, log-log, with n log n through the smallest point.
if len(rows) > 1:
    W, H, L, B = 520, 320, 70, 50
    xs = [max(r["pods"], 1) for r in rows]
    ys = [max(r["cpu"], 1e-3) for r in rows]
    x0, x1 = math.log10(min(xs)) - 0.3, math.log10(max(xs)) + 0.3
    y0, y1 = math.log10(min(ys)) - 0.5, math.log10(max(ys)) + 0.5
    px = lambda x: L + (math.log10(x) - x0) / (x1 - x0) * (W - L - 20)
    py = lambda y: H - B - (math.log10(y) - y0) / (y1 - y0) * (H - B - 20)
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="11">',
           f'<rect width="{W}" height="{H}" fill="white"/>',
           f'<line x1="{L}" y1="{H - B}" x2="{W - 20}" y2="{H - B}" stroke="black"/>',
           f'<line x1="{L}" y1="20" x2="{L}" y2="{H - B}" stroke="black"/>',
           f'<text x="{(L + W) / 2}" y="{H - 12}" text-anchor="middle">pods (log)</text>',
           f'<text x="16" y="{(H - B) / 2}" transform="rotate(-90 16 {(H - B) / 2})" text-anchor="middle">CPU seconds (log)</text>']
    n0, c0 = xs[0], ys[0]
    ref = [(x, c0 * x * math.log(x) / (n0 * math.log(n0))) for x in (10 ** (x0 + 0.3), 10 ** (x1 - 0.3))]
    svg.append(f'<polyline fill="none" stroke="#999" stroke-dasharray="4 3" points="{" ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in ref)}"/>')
    svg.append(f'<text x="{px(ref[1][0]) - 4:.1f}" y="{py(ref[1][1]) - 6:.1f}" text-anchor="end" fill="#666">n log n</text>')
    svg.append(f'<polyline fill="none" stroke="#1f77b4" stroke-width="2" points="{" ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in zip(xs, ys))}"/>')
    for d in range(math.ceil(x0), math.floor(x1) + 1):  # decade ticks
        svg.append(f'<line x1="{px(10 ** d):.1f}" y1="{H - B}" x2="{px(10 ** d):.1f}" y2="{H - B + 5}" stroke="black"/>')
        svg.append(f'<text x="{px(10 ** d):.1f}" y="{H - B + 17}" text-anchor="middle">{10 ** d:,}</text>')
    for d in range(math.ceil(y0), math.floor(y1) + 1):
        svg.append(f'<line x1="{L - 5}" y1="{py(10 ** d):.1f}" x2="{L}" y2="{py(10 ** d):.1f}" stroke="black"/>')
        svg.append(f'<text x="{L - 8}" y="{py(10 ** d) + 4:.1f}" text-anchor="end">{10.0 ** d:g}</text>')
    for r, x, y in zip(rows, xs, ys):
        right = px(x) > (L + W) / 2  # labels of points on the right run leftwards, inside the plot
        svg.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="4" fill="#1f77b4"/>')
        svg.append(f'<text x="{px(x) + (-8 if right else 8):.1f}" y="{py(y) + (16 if right else 4):.1f}" '
                   f'text-anchor="{"end" if right else "start"}">{r["name"]}: {r["pods"]:,} pods, {r["cpu"]:.1f} s</text>')
    svg.append("</svg>")
    open("reports/performance/scaling.svg", "w").write("\n".join(svg) + "\n")
print("perf-report: wrote reports/performance.md" + (" and reports/performance/scaling.svg" if len(rows) > 1 else ""))
PY
