#!/usr/bin/env bash
# CI's coverage gate: line coverage of the API server (fakeapi/server), the client library
# (fakeapi/client) and the operator (operator/) must each reach the gate, 90 % unless told otherwise.
#
#   bash scripts/coverage_gate.sh BUILD_DIR [--gate PERCENT]
#
# BUILD_DIR is a clang build configured with -DDGLSIM_GATED_COVERAGE=ON (scripts/test.sh's build-ci/),
# whose tests ran with LLVM_PROFILE_FILE pointing into BUILD_DIR/profiles/ (test.sh does that for
# every step: units, scenarios, shell tests, chaos, fuzz). Merges those profiles with llvm-profdata,
# reads them against every test binary and program of the build with llvm-cov, prints a line per
# module (lines, functions and branches covered) into BUILD_DIR/coverage-gate.txt and the terminal,
# and exits 1 naming each module under the gate, 2 on bad use or when there is nothing to read.
# scripts/coverage.sh is the full report (lcov HTML, every module, a g++ build of its own).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD

usage() { echo "usage: scripts/coverage_gate.sh BUILD_DIR [--gate PERCENT]" >&2; exit 2; }
[ $# -ge 1 ] || usage
build=$1
shift
gate=90
while [ $# -gt 0 ]; do
  case $1 in
    --gate) [ $# -ge 2 ] || usage; gate=$2; shift ;;
    *) usage ;;
  esac
  shift
done
[[ $gate =~ ^[0-9]+([.][0-9]+)?$ ]] || { echo "coverage_gate.sh: --gate takes a percentage, not '$gate'" >&2; exit 2; }
for tool in llvm-profdata llvm-cov; do
  command -v "$tool" >/dev/null || { echo "coverage_gate.sh: needs $tool (Debian package llvm; scripts/deps.sh installs it)" >&2; exit 2; }
done
profiles=$build/profiles
shopt -s nullglob
raw=("$profiles"/*.profraw)
if [ ${#raw[@]} -eq 0 ]; then
  echo "coverage_gate.sh: no profiles in $profiles (configure with -DDGLSIM_GATED_COVERAGE=ON and run the tests with LLVM_PROFILE_FILE=$profiles/%4m.profraw)" >&2
  exit 2
fi
merged=$profiles/merged.profdata
llvm-profdata merge -sparse "${raw[@]}" -o "$merged"

# Every program the tests ran: the GoogleTest binaries, the fuzz targets, dglsim and dgl-operator.
# llvm-cov takes the first as its argument and the others after -object.
objects=()
for bin in "$build"/tests/*_tests "$build"/tests/fuzz/fuzz_* "$build"/sim/dglsim "$build"/operator/dgl-operator; do
  [ -f "$bin" ] && [ -x "$bin" ] || continue
  if [ ${#objects[@]} -eq 0 ]; then objects=("$bin"); else objects+=(-object "$bin"); fi
done
[ ${#objects[@]} -gt 0 ] || { echo "coverage_gate.sh: no programs in $build" >&2; exit 2; }

summary=$build/coverage-gate.txt
printf '%-16s %18s %18s %18s\n' module lines functions branches | tee "$summary"
short=()
for module in fakeapi/server fakeapi/client operator; do
  # The TOTAL row of llvm-cov 14: regions (3 columns), functions (3), lines (3), branches (3).
  total=$(llvm-cov report "${objects[@]}" -instr-profile "$merged" "$root/$module" | awk '$1 == "TOTAL"') ||
    { echo "coverage_gate.sh: llvm-cov could not read the profiles against the programs of $build" >&2; exit 2; }
  [ -n "$total" ] || { echo "coverage_gate.sh: llvm-cov found no code of $module" >&2; exit 2; }
  read -r _ _ _ _ functions fmissed _ lines lmissed lcover branches bmissed bcover <<<"$total"
  printf '%-16s %18s %18s %18s\n' "$module" \
    "$lcover of $lines" "$((functions - fmissed)) of $functions" "$bcover of $branches" | tee -a "$summary"
  if awk -v c="${lcover%\%}" -v g="$gate" 'BEGIN { exit !(c + 0 < g + 0) }'; then
    short+=("$module (${lcover} of lines)")
  fi
done
if [ ${#short[@]} -gt 0 ]; then
  echo "coverage_gate.sh: under the gate of $gate % of lines: ${short[*]}"
  exit 1
fi
echo "coverage_gate.sh: every gated module covers at least $gate % of its lines"
