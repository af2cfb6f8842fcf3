#!/usr/bin/env bash
# Builds and runs every test, as CI does (.ci/run calls this). Each piece of code is compiled once
# per build that needs it, and each test runs where it proves the most:
#   1. RelWithDebInfo build in build/ (the binaries users run, and the benchmarks so they keep
#      compiling; no GoogleTest binaries): the scenario suite and the shell tests of dglsim and
#      dgl-operator as users run them, then the chaos campaign (1,000 seeds of random faults over
#      scenarios/chaos/three-modes.yaml, every invariant checked; label chaos).
#   2. Debug build with AddressSanitizer and UndefinedBehaviorSanitizer in build-asan/: every
#      GoogleTest binary (each run once, in $DGLSIM_JOBS shards) and the shell tests again, so memory
#      errors and undefined behaviour fail the run.
# Installs missing Debian packages first (scripts/deps.sh). Exits non-zero if anything fails and
# prints how long each step took.
# DGLSIM_JOBS sets build and test parallelism (default: the number of cores).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

jobs=${DGLSIM_JOBS:-$(nproc)}
status=0
started=$SECONDS
step_started=$SECONDS
declare -a timings=()

step() {
  if [ "${#timings[@]}" -gt 0 ] || [ -n "${current:-}" ]; then
    timings+=("$(printf '%-44s %4d s' "$current" $((SECONDS - step_started)))")
  fi
  current=$1
  step_started=$SECONDS
  echo "== $1"
}

step "Debian packages (scripts/deps.sh)"
bash scripts/deps.sh

step "RelWithDebInfo build (build/)"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDGLSIM_WERROR=ON -DDGLSIM_UNIT_TESTS=OFF
cmake --build build -j "$jobs"

step "scenario suite and shell tests (build/)"
ctest --test-dir build --output-on-failure -j "$jobs" -L 'scenario|cli' || status=1

step "chaos campaign (build/)"
ctest --test-dir build --output-on-failure -j "$jobs" -L 'chaos' || status=1

step "Debug build with ASan + UBSan (build-asan/)"
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DDGLSIM_SANITIZE=ON -DDGLSIM_BENCH=OFF -DDGLSIM_WERROR=ON
cmake --build build-asan -j "$jobs"

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

step "unit tests under sanitizers (build-asan/tests/*_tests)"
# Each GoogleTest binary runs once, split into $jobs shards run side by side, rather than once per
# test through CTest: a sanitized binary takes about half a second to start, and a thousand starts
# were most of this step. A failing shard prints its log. (`ctest --test-dir build-asan -L unit`
# still runs every test in a process of its own.)
run_unit_binary() {
  local bin=$1 name shard pids=() failed=0
  name=$(basename "$bin")
  for ((shard = 0; shard < jobs; shard++)); do
    GTEST_TOTAL_SHARDS=$jobs GTEST_SHARD_INDEX=$shard "$bin" --gtest_brief=1 \
      >"build-asan/$name.shard$shard.log" 2>&1 &
    pids+=($!)
  done
  for ((shard = 0; shard < jobs; shard++)); do
    if ! wait "${pids[$shard]}"; then
      failed=1
      echo "-- $name shard $shard of $jobs FAILED:"
      cat "build-asan/$name.shard$shard.log"
    fi
  done
  [ "$failed" -eq 0 ] && echo "$name: every shard passed"
  return "$failed"
}
for bin in build-asan/tests/*_tests; do
  run_unit_binary "$bin" || status=1
done

step "shell tests under sanitizers (build-asan/)"
ctest --test-dir build-asan --output-on-failure -j "$jobs" -L 'cli' || status=1

step "done"
echo "test.sh: time per step"
printf '  %s\n' "${timings[@]}"
echo "  total $((SECONDS - started)) s"
if [ "$status" -eq 0 ]; then
  echo "test.sh: all tests passed (scenarios and shell tests on RelWithDebInfo; units and shell tests under ASan+UBSan)"
else
  echo "test.sh: FAILED (see the CTest output above)"
fi
exit "$status"
