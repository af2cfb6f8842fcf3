#!/usr/bin/env bash
# The multi-threaded parts under ThreadSanitizer.
#
#   bash scripts/tsan.sh [--no-build] [--unit-only]
#
# Builds the tree with clang -fsanitize=thread (DGLSIM_SANITIZE=thread, -O1, each layer as one
# unit) in build-tsan/ (DGLSIM_TSAN_BUILD to change it), then runs, each under TSan:
#   1. every GoogleTest binary (in $DGLSIM_JOBS shards): the HTTP server and client with their
#      threads, the informer, the work queue and leader election of the real operator, the suite,
#      sweep and chaos thread pools, the simulator core they run;
#   2. the runners on more threads than cores: `dglsim suite scenarios/ --jobs 4`, `dglsim chaos`
#      over 40 seeds with --jobs 4 and `dglsim sweep` with --jobs 4;
#   3. the servers and the operator as processes (CTest): `dglsim serve` under kubectl and the
#      Python client, `dgl-operator` against `dglsim serve --no-operator`, leader election between
#      two operators, the sweep's shards.
# A data race or a lock-order inversion fails the step that saw it (TSan's exit code 66) and is
# printed with both stacks. Exits non-zero if any step failed. --no-build reuses the build as it is
# (the GoogleTest binaries it holds: fakeapi_tests alone covers the HTTP server, client, informer,
# work queue and leader election); --unit-only runs step 1 only. Not part of CI (scripts/test.sh):
# a second full build of the tree would not fit its time budget.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/gtest_shards.sh

build=${DGLSIM_TSAN_BUILD:-build-tsan}
jobs=${DGLSIM_JOBS:-$(nproc)}
do_build=1
unit_only=0
for arg in "$@"; do
  case $arg in
    --no-build) do_build=0 ;;
    --unit-only) unit_only=1 ;;
    *) echo "usage: scripts/tsan.sh [--no-build] [--unit-only]" >&2; exit 2 ;;
  esac
done

bash scripts/deps.sh
if [ "$do_build" -eq 1 ]; then
  launcher=()
  if command -v ccache >/dev/null 2>&1; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
  cmake -S . -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -g1" \
    -DDGLSIM_SANITIZE=thread -DDGLSIM_UNITY=ON -DDGLSIM_BENCH=OFF "${launcher[@]}" >/dev/null
  cmake --build "$build" -j "$jobs"
fi

# second_deadlock_stack: both stacks of a lock-order inversion. scripts/tsan.supp: the one report
# that is not a race (a static in Debian's uninstrumented cpp-httplib), with its reasons.
export TSAN_OPTIONS=${TSAN_OPTIONS:-second_deadlock_stack=1:history_size=4:suppressions=$PWD/scripts/tsan.supp}
status=0
started=$SECONDS

echo "== unit tests under TSan (in shards run $jobs at a time)"
tsan_reports() { grep -A40 "WARNING: ThreadSanitizer\|FAILED\|Failure" "$1" | head -120; }
mapfile -t unit_bins < <(ls -S "$build"/tests/*_tests)
run_gtest_shards "$jobs" "$build" tsan tsan_reports "${unit_bins[@]}" || status=1
echo "unit tests under TSan: done"

if [ "$unit_only" -eq 0 ]; then
  dglsim=$build/sim/dglsim
  run_step() {
    local what=$1
    shift
    echo "== $what"
    if ! "$@" >"$build/step.log" 2>&1; then
      status=1
      echo "-- FAILED: $*"
      if grep -q "WARNING: ThreadSanitizer" "$build/step.log"; then
        grep -A40 "WARNING: ThreadSanitizer" "$build/step.log" | head -120
      else
        tail -40 "$build/step.log"
      fi
    fi
  }
  run_step "dglsim suite scenarios/ --jobs 4" "$dglsim" suite scenarios --jobs 4
  run_step "dglsim chaos, 40 seeds, --jobs 4" "$dglsim" chaos scenarios/chaos/three-modes.yaml --seeds 1..40 --jobs 4
  run_step "dglsim sweep, --jobs 4" "$dglsim" sweep tests/sim/data/sweep/small-sweep.yaml --jobs 4 --out "$build/tsan-sweep"

  echo "== servers and operator processes (CTest)"
  ctest --test-dir "$build" --output-on-failure -j "$jobs" \
    -R '^cli\.(kubectl_e2e|python_client|operator_http_e2e|operator_leader_election|sweep_shards|chaos)$' || status=1
fi

echo "tsan.sh: $((SECONDS - started)) s of tests"
if [ "$status" -eq 0 ]; then
  echo "tsan.sh: no data race or lock-order inversion reported"
else
  echo "tsan.sh: FAILED (see above)"
fi
exit "$status"
