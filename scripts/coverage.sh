#!/usr/bin/env bash
# Line and branch coverage of the tests, per module, with a gate.
#
#   bash scripts/coverage.sh [--no-build] [--unit-only] [--gate PERCENT]
#
# Builds the tree with g++ --coverage at -O0 (DGLSIM_COVERAGE, each layer as one unit) in
# build-cov/ (DGLSIM_COVERAGE_BUILD to change it), runs every GoogleTest binary once (in
# $DGLSIM_JOBS shards side by side), the scenario suite and the shell tests (CTest labels scenario
# and cli: dglsim, dgl-operator and `dglsim serve` as users run them), then writes
#   reports/coverage/index.html   lcov's HTML report of the project's sources (not committed)
#   reports/coverage/summary.txt  the table printed at the end: lines and branches per module
# and exits 1 when line coverage of the API server (fakeapi/server), the client library
# (fakeapi/client) or the operator (operator/) is below the gate (90 % unless --gate says otherwise),
# naming each module short of it; 0 otherwise. --no-build reuses the build as it is (the GoogleTest
# binaries it holds: build only fakeapi_tests and operator_tests for a quick figure of the gated
# modules). --unit-only runs the GoogleTest binaries alone, not the scenario suite and the shell
# tests: quicker, and lower, as the scenarios drive the operator and the API server too.
#
# Branch figures are gcc's: they count the branches of inlined library code and of exception
# handling too, so they read lower than line coverage and are reported, not gated.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/gtest_shards.sh
root=$PWD

build=${DGLSIM_COVERAGE_BUILD:-build-cov}
jobs=${DGLSIM_JOBS:-$(nproc)}
gate=90
do_build=1
unit_only=0
started=$SECONDS
while [ $# -gt 0 ]; do
  case $1 in
    --no-build) do_build=0 ;;
    --unit-only) unit_only=1 ;;
    --gate) [ $# -ge 2 ] || { echo "coverage.sh: --gate takes a percentage" >&2; exit 2; }; gate=$2; shift ;;
    *) echo "usage: scripts/coverage.sh [--no-build] [--unit-only] [--gate PERCENT]" >&2; exit 2 ;;
  esac
  shift
done
if ! [[ $gate =~ ^[0-9]+([.][0-9]+)?$ ]]; then
  echo "coverage.sh: --gate takes a percentage, not '$gate'" >&2
  exit 2
fi

bash scripts/deps.sh
if [ "$do_build" -eq 1 ]; then
  launcher=()
  if command -v ccache >/dev/null 2>&1; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
  cmake -S . -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=g++ -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-O0 -g1" \
    -DDGLSIM_COVERAGE=ON -DDGLSIM_UNITY=ON -DDGLSIM_BENCH=OFF "${launcher[@]}" >/dev/null
  cmake --build "$build" -j "$jobs"
fi

lcov --quiet --zerocounters --directory "$build"
status=0
echo "== unit tests (each binary once, in shards run $jobs at a time)"
tail_50() { tail -50 "$1"; }
mapfile -t unit_bins < <(ls -S "$build"/tests/*_tests)
run_gtest_shards "$jobs" "$build" cov tail_50 "${unit_bins[@]}" || status=1
if [ "$unit_only" -eq 0 ]; then
  echo "== scenario suite and shell tests"
  ctest --test-dir "$build" --output-on-failure -j "$jobs" -L 'scenario|cli' || status=1
fi
if [ "$status" -ne 0 ]; then
  echo "coverage.sh: a test failed (above); the figures below count what ran"
fi

echo "== lcov"
rc=(--rc lcov_branch_coverage=1)
info=$build/coverage.info
lcov --quiet "${rc[@]}" --capture --directory "$build" --base-directory "$root" --output-file "$build/all.info" \
  2> >(grep -v -E "^geninfo: WARNING|^Subroutine .* redefined at" >&2 || true)
lcov --quiet "${rc[@]}" --extract "$build/all.info" "$root/fakeapi/*" "$root/operator/*" "$root/sim/*" \
  --output-file "$info"
rm -rf reports/coverage
mkdir -p reports/coverage
genhtml --quiet "${rc[@]}" --prefix "$root" --title "dglsim tests" --legend --output-directory reports/coverage "$info"

# "lines" and "branches" of one module: "hit total".
module_counts() {
  local part=$build/module.info
  if ! lcov --quiet "${rc[@]}" --extract "$info" "$root/$1/*" --output-file "$part" 2>/dev/null; then
    echo "0 0 0 0"
    return
  fi
  awk -F: '/^LH:/{lh+=$2} /^LF:/{lf+=$2} /^BRH:/{bh+=$2} /^BRF:/{bf+=$2} END{print lh+0, lf+0, bh+0, bf+0}' "$part"
}
percent() { awk -v h="$1" -v t="$2" 'BEGIN{ if (t == 0) print "-"; else printf "%.1f", 100 * h / t }'; }

gated=(fakeapi/server fakeapi/client operator)
modules=(fakeapi/client fakeapi/server operator operator/api operator/controller operator/admission operator/cmd
         sim/kernel sim/network sim/cluster sim/graph sim/dgl sim/harness/config sim/harness/run sim/harness/checks
         sim/harness/report sim/harness/chaos sim/harness/sweep sim/harness sim/cli)
summary=reports/coverage/summary.txt
{
  printf '%-22s %8s %15s %9s %15s\n' module lines "(hit/total)" branches "(hit/total)"
  for m in "${modules[@]}"; do
    read -r lh lf bh bf < <(module_counts "$m")
    printf '%-22s %7s%% %15s %8s%% %15s\n' "$m" "$(percent "$lh" "$lf")" "$lh/$lf" "$(percent "$bh" "$bf")" "$bh/$bf"
  done
  read -r lh lf bh bf < <(awk -F: '/^LH:/{lh+=$2} /^LF:/{lf+=$2} /^BRH:/{bh+=$2} /^BRF:/{bf+=$2} END{print lh+0, lf+0, bh+0, bf+0}' "$info")
  printf '%-22s %7s%% %15s %8s%% %15s\n' "all" "$(percent "$lh" "$lf")" "$lh/$lf" "$(percent "$bh" "$bf")" "$bh/$bf"
} | tee "$summary"
echo "coverage.sh: HTML report in reports/coverage/index.html"

for m in "${gated[@]}"; do
  read -r lh lf _ _ < <(module_counts "$m")
  if awk -v h="$lh" -v t="$lf" -v g="$gate" 'BEGIN{ exit !(t > 0 && 100 * h / t < g) }'; then
    echo "coverage.sh: FAILED: line coverage of $m is $(percent "$lh" "$lf") %, below the gate of $gate %"
    status=1
  fi
done
[ "$status" -eq 0 ] && echo "coverage.sh: line coverage of ${gated[*]} is at least $gate % each"
echo "coverage.sh: $((SECONDS - started)) s"
exit "$status"
