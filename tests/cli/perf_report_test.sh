#!/usr/bin/env bash
# scripts/perf-report.sh end to end with stand-ins for dglsim, the two benchmarks and perf (shell
# scripts printing fixed figures), in a copy of the script inside a scratch git repository:
#   - the report names the commit it measured, "+changes" once a tracked file differs;
#   - with no report before it, it says the replaced one named no commit and shows no comparison;
#   - with a report before it, that report's commit, its fleet-day CPU (with after / before) and its
#     profile appear as "before", and the next run shows this run's as "before" in turn;
#   - the inclusive shares of the simulator's functions from the stacks, templates stripped, the
#     frames of every sample (the event loop) left out;
#   - a dglsim linked with glibc's malloc (no allocator library in ldd's answer) is reported as such
#     instead of ending the script;
#   - a floor that measured more than the write, or spread over its repetitions, is said to be
#     untrustworthy and the API-write verdicts unknown; a steady one is not;
#   - without --quick, the fleet week's own profile: each sample's part (the innermost frame that
#     belongs to one) and kind (its leaf function or library) as shares, and, when the week took
#     more than its 1 s target, the reasons computed from them; with --large, the ten-times week's
#     CPU per job against the fleet week's, split into engine events per job and CPU per event;
#     none of it under --quick;
#   - --baseline BIN: the paired section (seven fleet-day pairs under --quick, whether the trace
#     hashes agree), none without it; exit code 2 and a message for a baseline that is not an
#     executable file and for an unknown option.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
expect() {  # expect FILE PATTERN WHAT: PATTERN (grep -E) must occur in FILE
  grep -q -E -- "$2" "$1" || fail "$3 (no line matching '$2')"
}
command -v /usr/bin/time >/dev/null || { echo "SKIP: needs GNU time (/usr/bin/time)"; exit 0; }

repo=$tmp/repo
mkdir -p "$repo/scripts" "$repo/reports" "$tmp/build/sim" "$tmp/build/bench"
cp "$(dirname "${BASH_SOURCE[0]}")/../../scripts/perf-report.sh" "$repo/scripts/"
echo "scratch" >"$repo/tracked.txt"
git -C "$repo" init -q
git -C "$repo" add scripts tracked.txt
git -C "$repo" -c user.name=test -c user.email=test@example.com commit -q -m scratch
commit=$(git -C "$repo" rev-parse --short HEAD)

cat >"$tmp/build/sim/dglsim" <<'SCRIPT'
#!/usr/bin/env bash
case $1 in
  run)
    json=""
    # With BURN_WEEK set, the fleet week spends 1.1 s of CPU (read from /proc, not slept): above its target.
    case "$*" in *fleet-week.yaml*) [ -n "${BURN_WEEK:-}" ] && while read -r -a f </proc/$$/stat && ((f[13] + f[14] < 110)); do :; done ;; esac
    while [ $# -gt 0 ]; do [ "$1" = --json ] && json=$2; shift; done
    [ -n "$json" ] && echo '{"events": 1000, "apiWrites": 200, "simulatedSeconds": 86400, "traceHash": "feedc0de",
      "passed": true, "watchEvents": 800, "jobs": [{"podsCreated": 10}, {"podsCreated": 20}]}' >"$json"
    exit 0 ;;
  suite) printf 'PASS a.yaml\nPASS b.yaml\nPASS c.yaml\n' ;;
  sweep) ;;
esac
SCRIPT
bench_json() {  # name cpu_time unit extra-json [stddev], as a median and a stddev (default 1)
  printf '{"run_name": "%s", "aggregate_name": "median", "cpu_time": %s, "time_unit": "%s"%s},' "$1" "$2" "$3" "$4"
  printf '{"run_name": "%s", "aggregate_name": "stddev", "cpu_time": %s, "time_unit": "%s"%s}' "$1" "${5:-1}" "$3" "$4"
}
fakeapi_bench() {  # floor-1 floor-1-stddev: the API-write benchmark's stand-in, its one-watcher floor as given
  {
    echo 'cat <<JSON'
    echo "{\"benchmarks\": [$(bench_json BM_StatusWriteFanOut/1 3000 ns ''), $(bench_json BM_StatusWriteFloor/1 "$1" ns '' "$2"),"
    echo "$(bench_json BM_StatusWriteFanOut/5 4000 ns ''), $(bench_json BM_StatusWriteFloor/5 2500 ns '')]}"
    echo 'JSON'
  } >"$tmp/build/bench/fakeapi_bench"
}
fakeapi_bench 2000 1
{
  echo 'cat <<JSON'
  echo "{\"benchmarks\": [$(bench_json BM_OneLinkRerate/5000 40 us ', "rerates_per_s": 25000, "flows_per_rerate": 5000'),"
  echo "$(bench_json BM_EpochAllToAll/64/0/0 2 ms ', "flows": 4032, "rerates_per_epoch": 2, "epoch_s": 0.5'),"
  echo "$(bench_json BM_EpochAllToAll/64/20/0 500 ms ', "flows": 4032, "rerates_per_epoch": 3960, "epoch_s": 0.5'),"
  echo "$(bench_json BM_EpochAllToAll/64/20/10 10 ms ', "flows": 4032, "rerates_per_epoch": 28, "epoch_s": 0.505')]}"
  echo 'JSON'
} >"$tmp/build/bench/network_bench"
chmod +x "$tmp/build/sim/dglsim" "$tmp/build/bench/fakeapi_bench" "$tmp/build/bench/network_bench"

# perf as a function the script inherits: `perf report` prints a fixed top entry, `perf script`
# three samples' stacks (leaf first): two through a reconcile pass, one of them through a templated
# informer, one through a kubelet; the event loop under all three.
perf() {
  case $1 in
    record) return 0 ;;
    report) echo "    42.00%  dglsim  dglsim  [.] stand_in::Hottest" ;;
    script)
      if [[ $* == *dso* ]]; then  # the fleet week's stacks, each frame with its library
        printf '\n\tffff01 kube::ReleaseTree(x, int) (/b/dglsim)\n\tffff02 fakeapi::Store::Impl::Publish(y) (/b/dglsim)\n'
        printf '\tffff03 sim::Kubelet::Flush(x) (/b/dglsim)\n\tffff04 sim::Engine::RunTop() (/b/dglsim)\n'
        printf '\n\tffff05 [unknown] (/usr/lib/libjemalloc.so.2)\n\tffff06 dgl::ReconcilePass::Run(int) (/b/dglsim)\n'
        printf '\tffff04 sim::Engine::RunTop() (/b/dglsim)\n'
        printf '\n\tffff03 sim::Kubelet::Flush(x) (/b/dglsim)\n\tffff04 sim::Engine::RunTop() (/b/dglsim)\n'
        printf '\n\tffff07 __memcmp_evex_movbe (/usr/lib/libc.so.6)\n\tffff08 kube::Member(a, b) (/b/dglsim)\n'
        printf '\tffff09 dgl::JobPods::All() const (/b/dglsim)\n\tffff04 sim::Engine::RunTop() (/b/dglsim)\n\n'
        return 0
      fi
      printf '\n\tffff01 memcmp\n\tffff02 dgl::ReconcilePass::Run(int)\n\tffff03 sim::Engine::RunTop()\n'
      printf '\n\tffff04 operator new\n\tffff05 kube::Informer<std::map<a, b> >::Pump[abi:cxx11](long)\n'
      printf '\tffff06 dgl::ReconcilePass::Run(int)\n\tffff03 sim::Engine::RunTop()\n'
      printf '\n\tffff07 sim::Kubelet::Flush(x)\n\tffff03 sim::Engine::RunTop()\n\n'
      ;;
  esac
}
export -f perf

run() {  # run LOG: one --quick run, its output in LOG
  bash "$repo/scripts/perf-report.sh" --quick "$tmp/build" >"$1" 2>&1 || fail "perf-report.sh exited non-zero: $(tail -3 "$1")"
}
report=$repo/reports/performance.md

# 1. No report before it.
run "$tmp/first.log"
expect "$report" "^Code: commit \`$commit\`\. The report it replaced did not name its commit" "first run: commit and no predecessor"
expect "$report" "malloc: glibc malloc" "first run: a dglsim without an allocator library"
expect "$report" "the spread epoch costs 10\.0 ms \(28 re-rates\) and lasts 0\.5050 s of simulated time against the exact 0\.5000 s \(\+1\.00 %\)" "first run: the epoch with a re-rate window"
expect "$report" "ms \(sizes \+-20 %, rerateWindow 0\.01\) \| equal: (yes|no); spread: (yes|no) exact, (yes|no) with the window \|$" "first run: the epoch's verdicts, exact and with the window"
expect "$report" '^\| `fleet-day` \| 2 \| 30 \| 1,000 \| 200 \| 1\.00 d \|' "first run: the scenario's row"
expect "$report" "^This run \(commit \`$commit\`\):" "first run: the profile names the commit"
expect "$report" "stand_in::Hottest" "first run: the profile's entry"
expect "$report" '^\| 66\.7 % \| `dgl::ReconcilePass::Run` \|$' "first run: the inclusive share of a function in two samples of three"
expect "$report" '^\| 33\.3 % \| `kube::Informer::Pump` \|$' "first run: an inclusive share, the name without templates"
expect "$report" '^\| 33\.3 % \| `sim::Kubelet::Flush` \|$' "first run: an inclusive share"
grep -q '`sim::Engine::RunTop`' "$report" && fail "first run: the event loop, in every sample, is listed"
grep -q "^Before and after" "$report" && fail "first run: a comparison without a report before it"
grep -q "not trustworthy" "$report" && fail "first run: a steady floor called untrustworthy"
expect "$report" '^\| API write within 2x of the floor, 1 watcher\(s\) \| 1\.50x \| yes \|$' "first run: the API write's verdict"
grep -q "^Before: the report" "$report" && fail "first run: a previous profile without a report before it"

# 1b. A floor measured above the write it is the floor of, and spread over its repetitions.
fakeapi_bench 3300 500
run "$tmp/noisy.log"
expect "$report" "floor's own figure is not trustworthy.*with 1 watcher\(s\) the floor measured more \(3,300 ns\) than the write \(3,000 ns\).*spread by ±500 ns, 15 % of its median.*more for one watcher than for five" "noisy floor: each doubt said"
expect "$report" '^\| API write within 2x of the floor, 5 watcher\(s\) \| 1\.60x \| unknown: the floor was noisy \(above\) \|$' "noisy floor: no verdict"
fakeapi_bench 2000 1

# 2. A report before it, written as an earlier run would have: commit, fleet-day CPU 2.00, profile.
cat >"$report" <<'MD'
# Performance at scale

Code: commit `abc1234`. The report it replaced did not name its commit.

| scenario | jobs | pods | engine events | API writes | simulated | CPU s | wall s |
|---|---|---|---|---|---|---|---|
| `fleet-day` | 2 | 30 | 1,000 | 200 | 1.00 d | 2.00 | 2.0 |

## Profile of the fleet day (`perf record -g`, self time, top entries)

This run (commit `abc1234`):

```
50.00% dglsim dglsim [.] earlier::Hottest
```
MD
echo "changed" >"$repo/tracked.txt"
run "$tmp/second.log"
expect "$report" "^Code: commit \`$commit\+changes\`\. The report it replaced was of commit \`abc1234\`" "second run: both commits"
expect "$report" '^\| `fleet-day` \| 2\.00 \| [0-9.]+ \| [0-9.]+ \|$' "second run: before and after of the fleet day"
expect "$report" '^Before: the report this one replaced \(commit `abc1234`\):' "second run: the previous profile's heading"
expect "$report" "^50\.00% dglsim dglsim \[\.\] earlier::Hottest$" "second run: the previous profile's entry"
expect "$report" "stand_in::Hottest" "second run: this run's profile"

# 3. The next run compares with the second.
run "$tmp/third.log"
expect "$report" "The report it replaced was of commit \`$commit\+changes\`" "third run: the second run's commit as before"
grep -q "earlier::Hottest" "$report" && fail "third run: still shows the first report's profile"
expect "$report" "^Before: the report this one replaced \(commit \`$commit\+changes\`\):" "third run: the second run's profile as before"

# 4. --baseline: seven pairs of the fleet day (--quick), the baseline's hash the same, then another.
cp "$tmp/build/sim/dglsim" "$tmp/baseline-dglsim"
bash "$repo/scripts/perf-report.sh" --quick --baseline "$tmp/baseline-dglsim" "$tmp/build" >"$tmp/fourth.log" 2>&1 ||
  fail "perf-report.sh --baseline exited non-zero: $(tail -3 "$tmp/fourth.log")"
expect "$report" '^## Paired against a baseline binary' "baseline: its section"
expect "$report" '^\| `fleet-day` \| 7 \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ to [0-9.]+ \| [0-9,]+ MB, [0-9,]+ MB \| yes \|$' "baseline: seven pairs, the same trace hash"
grep -q 'fleet-week` | 3 |' "$report" && fail "baseline: the fleet week paired under --quick"
sed 's/feedc0de/0ddba11/' "$tmp/build/sim/dglsim" >"$tmp/baseline-dglsim"
bash "$repo/scripts/perf-report.sh" --quick --baseline="$tmp/baseline-dglsim" "$tmp/build" >"$tmp/fifth.log" 2>&1 ||
  fail "perf-report.sh --baseline= exited non-zero: $(tail -3 "$tmp/fifth.log")"
expect "$report" '^\| `fleet-day` \| 7 \| .* \| no \|$' "baseline: another trace hash is told"
grep -q '^## Paired against' <(bash "$repo/scripts/perf-report.sh" --quick "$tmp/build" >/dev/null 2>&1; cat "$report") &&
  fail "without --baseline: a paired section"
# Bad input: a baseline that is not an executable file, an option the script does not know.
bash "$repo/scripts/perf-report.sh" --quick --baseline "$tmp/no-such-dglsim" "$tmp/build" >"$tmp/bad.log" 2>&1
[ $? -eq 2 ] || fail "a missing baseline: exit code not 2"
expect "$tmp/bad.log" "--baseline $tmp/no-such-dglsim: not an executable file" "a missing baseline: its message"
bash "$repo/scripts/perf-report.sh" --fast "$tmp/build" >"$tmp/bad.log" 2>&1
[ $? -eq 2 ] || fail "an unknown option: exit code not 2"
expect "$tmp/bad.log" "unknown option --fast" "an unknown option: its message"

# 5. Without --quick: the fleet week's own profile, by part and by kind; over its 1 s, the reasons.
BURN_WEEK=1 bash "$repo/scripts/perf-report.sh" "$tmp/build" >"$tmp/week.log" 2>&1 ||
  fail "perf-report.sh without --quick exited non-zero: $(tail -3 "$tmp/week.log")"
expect "$report" "^## Where the fleet week's CPU goes" "week: its section"
expect "$report" '^\| 50\.0 % \| operator: reconciles \|$' "week: a part, through a JSON helper that belongs to none"
expect "$report" '^\| 25\.0 % \| API server: store, admission, watch fan-out, garbage collector \|$' "week: the innermost part decides"
expect "$report" '^\| 25\.0 % \| kubelets and container programs \|$' "week: a part"
expect "$report" '^\| 25\.0 % \| JSON object code' "week: a kind by its function"
expect "$report" '^\| 25\.0 % \| memory allocation \(the malloc\) \|$' "week: a kind by its library"
expect "$report" '^\| 25\.0 % \| byte compares and copies' "week: libc's compares"
expect "$report" "^\\| 25\\.0 % \\| the simulator's own code \\|$" "week: the simulator's own"
expect "$report" "^Why the fleet week misses its 1 s: it took 1\.[0-9] s.*The largest part, the operator, holds 50 %.*would still take 0\.[0-9] s\. 75 % of the samples.*against 25 % in the simulator's own logic.*\(25 % of the samples free JSON trees\)" "week: the reasons, from the figures"
bash "$repo/scripts/perf-report.sh" "$tmp/build" >"$tmp/week2.log" 2>&1 || fail "perf-report.sh without --quick exited non-zero"
grep -q "^## Where the fleet week's CPU goes" "$report" || fail "week under its target: the breakdown left out"
grep -q "^Why the fleet week misses" "$report" && fail "week under its target: reasons for a miss"
BURN_WEEK=1 bash "$repo/scripts/perf-report.sh" --large "$tmp/build" >"$tmp/large.log" 2>&1 ||
  fail "perf-report.sh --large exited non-zero: $(tail -3 "$tmp/large.log")"
expect "$report" "^\`fleet-week-10x\` took 0\.[0-9] s \(target 10 s\): [0-9.]+ ms of CPU per job against the fleet week's 5[0-9]{2}\.[0-9] ms \(0\.[0-9]{2}x\), that is 1\.00x the engine events per job \(4\.0 watch events per API write against 4\.0: .*\) and 0\.[0-9]{2}x the CPU per engine event\. At the fleet week's cost per job it would take 1 s, under its 10 s\.$" "--large: the ten-times week against the fleet week"
run "$tmp/quick.log"
grep -q "^## Where the fleet week's CPU goes" "$report" && fail "--quick: a fleet week profile without a fleet week run"

if [ "$failures" -gt 0 ]; then
  echo "perf_report_test: $failures failure(s)"
  exit 1
fi
echo "perf_report_test: all passed"
