#!/usr/bin/env bash
# The libFuzzer targets of tests/fuzz, run longer than CI runs them.
#
#   bash scripts/fuzz.sh [--runs N | --time SECONDS] [--jobs J] [--no-build] [TARGET...]
#
# Builds the targets with clang, libFuzzer, ASan and UBSan at -O1, every project file instrumented
# for libFuzzer's coverage feedback (DGLSIM_FUZZ, DGLSIM_FUZZ_FEEDBACK: CI's short runs go without
# it), in build-fuzz/ (DGLSIM_FUZZ_BUILD to change it) and runs each TARGET (default: all eight) in
# turn from its seed corpus (tests/fuzz/corpus/<target>, read only):
#   --runs N       N inputs per target from seed 1: the same work on every machine (default 100000)
#   --time SECONDS wall time per target instead, any seed (a long local run: --time 3600)
#   --jobs J       J fuzzing processes per target (libFuzzer -fork=J), sharing one corpus
# What a run finds is left in build-fuzz/tests/fuzz/work/<target>/: crash-*, leak-*, timeout-* and
# oom-* inputs (failures), slow-unit-* inputs (over 10 s: listed, not failures), and the corpus it
# grew (copy new inputs worth keeping into the seed corpus). Replay one input with
# `build-fuzz/tests/fuzz/<target> FILE`. Exits 1 when any target found a failure.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

all=(fuzz_api_server fuzz_dgljob fuzz_scenario_loader fuzz_yaml fuzz_patches fuzz_selectors fuzz_quantities fuzz_edge_list)
build=${DGLSIM_FUZZ_BUILD:-build-fuzz}
runs=100000
seconds=""
jobs=1
do_build=1
targets=()
usage() { echo "usage: scripts/fuzz.sh [--runs N | --time SECONDS] [--jobs J] [--no-build] [TARGET...]" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
    --runs) runs=${2:-}; shift ;;
    --time) seconds=${2:-}; shift ;;
    --jobs) jobs=${2:-}; shift ;;
    --no-build) do_build=0 ;;
    -*) usage ;;
    *) targets+=("$1") ;;
  esac
  shift
done
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "fuzz.sh: --runs takes a whole number, not '$runs'" >&2; exit 2; }
[[ -z $seconds || $seconds =~ ^[1-9][0-9]*$ ]] || { echo "fuzz.sh: --time takes seconds, not '$seconds'" >&2; exit 2; }
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "fuzz.sh: --jobs takes a whole number, not '$jobs'" >&2; exit 2; }
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")
for t in "${targets[@]}"; do
  [[ " ${all[*]} " == *" $t "* ]] || { echo "fuzz.sh: no target $t (one of: ${all[*]})" >&2; exit 2; }
done

if [ "$do_build" -eq 1 ]; then
  bash scripts/deps.sh
  launcher=()
  if command -v ccache >/dev/null 2>&1; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
  cmake -S . -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -g1" \
    -DDGLSIM_FUZZ=ON -DDGLSIM_FUZZ_FEEDBACK=ON -DDGLSIM_SANITIZE=ON -DDGLSIM_UNITY=ON -DDGLSIM_BENCH=OFF -DDGLSIM_UNIT_TESTS=OFF "${launcher[@]}" >/dev/null
  cmake --build "$build" -j "$(nproc)" --target "${targets[@]}"
fi
for t in "${targets[@]}"; do
  [ -x "$build/tests/fuzz/$t" ] || { echo "fuzz.sh: $build/tests/fuzz/$t is not built (clang with libFuzzer needed)" >&2; exit 2; }
done

extra=()
if [ -n "$seconds" ]; then extra=(-runs=-1 -max_total_time="$seconds" -seed=0); fi
if [ "$jobs" -gt 1 ]; then extra+=(-fork="$jobs" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1); fi
status=0
for t in "${targets[@]}"; do
  work=$build/tests/fuzz/work/$t
  echo "== $t"
  if bash tests/fuzz/run_fuzzer.sh "$build/tests/fuzz/$t" "tests/fuzz/corpus/$t" "$work" "$runs" "${extra[@]}" \
       >"$build/tests/fuzz/$t.log" 2>&1; then
    found=$(ls "$work" | grep -E '^(crash|leak|timeout|oom)-' || true)
  else
    found=$(ls "$work" | grep -E '^(crash|leak|timeout|oom)-' || echo "(the fuzzer failed: see $build/tests/fuzz/$t.log)")
  fi
  grep -E '^(Done|stat::number_of_executed_units|stat::average_exec_per_sec|stat::new_units_added)' "$build/tests/fuzz/$t.log" | sed 's/^/  /' || true
  # An input over libFuzzer's 10 s is listed to look at, not counted as a failure: on a loaded
  # machine a sanitized build crosses it with inputs that run within their bounds.
  slow=$(ls "$work" | grep -E '^slow-unit-' || true)
  [ -z "$slow" ] || printf '  slow (over 10 s here, replay to time it): %s\n' $slow
  if [ -n "$found" ]; then
    status=1
    echo "  FOUND (in $work):"
    printf '    %s\n' $found
    grep -E -A3 'fuzz property broken|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error' "$build/tests/fuzz/$t.log" | head -12 | sed 's/^/    /' || true
  fi
done
[ "$status" -eq 0 ] && echo "fuzz.sh: nothing found" || echo "fuzz.sh: FOUND something (above)"
exit "$status"
