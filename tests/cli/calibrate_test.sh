#!/usr/bin/env bash
# End-to-end test of `dglsim calibrate` as a user runs it: --quick writes a Calibration file with
# the keys the loader reads and positive fitted values; bad flags exit 2 without a crash.
# Usage: calibrate_test.sh DGLSIM_BINARY   (CTest passes it)
set -uo pipefail

dglsim=${1:?usage: $0 DGLSIM_BINARY}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

source "$(dirname "$0")/check_lib.sh"

# A positive number (integer, decimal or exponent form) as the value of KEY in FILE.
expect_positive() {
  local file=$1 key=$2
  local value
  value=$(sed -nE "s/^ *$key: *([0-9.eE+-]+) *$/\1/p" "$file" | head -1)
  if [ -z "$value" ]; then
    fail "$file: no numeric $key"
  elif ! awk -v v="$value" 'BEGIN { exit !(v + 0 > 0) }'; then
    fail "$file: $key is $value, expected a positive number"
  fi
}

calibration="$tmp/calibration.yaml"
if run quick 0 calibrate --quick --out "$calibration" --name test-machine; then
  expect_line quick out "^wrote $calibration$"
  expect_line quick out "nodes +edges +parts +seconds"
  expect_line quick out "^fit \(4 parts\): seconds = "
  expect_line quick out "^fit \(4 parts\): bytes   = "
  # stderr is not a terminal here: one line per measured point, no carriage returns.
  expect_line quick err "^calibrate: 1/[0-9]+ measured"
  if grep -q $'\r' "$tmp/quick.err"; then fail "quick: a progress bar was drawn on a non-terminal"; fi
  for key in apiVersion kind metadata partition points; do
    grep -qE "^$key:" "$calibration" || fail "calibration file: no top-level $key"
  done
  grep -qE '^apiVersion: dglsim/v1$' "$calibration" || fail "calibration file: wrong apiVersion"
  grep -qE '^kind: Calibration$' "$calibration" || fail "calibration file: wrong kind"
  grep -qE '^metadata: \{name: "test-machine"\}$' "$calibration" || fail "calibration file: wrong metadata.name"
  expect_positive "$calibration" metisEdgesPerSecond
  expect_positive "$calibration" metisBytesPerEdge
  grep -qE '^  metisFixedSeconds: [0-9.]+$' "$calibration" || fail "calibration file: no metisFixedSeconds"
  grep -qE '^  metisFixedBytes: [0-9]+$' "$calibration" || fail "calibration file: no metisFixedBytes"
  points=$(grep -cE '^  - \{nodes: [0-9]+, edges: [0-9]+, parts: 4, seconds: [0-9.]+, peakBytes: [0-9]+, edgeCut: [0-9]+\}$' "$calibration")
  [ "$points" -ge 2 ] || fail "calibration file: expected at least 2 points, found $points"
fi

# Without --out the YAML follows the table on stdout.
if run stdout 0 calibrate --sizes 4096 16384 --generator powerlaw --parts 2; then
  expect_line stdout out '^kind: Calibration$'
  expect_line stdout out '^  - \{nodes: 16384, edges: [0-9]+, parts: 2, '
fi

# Several part counts: every size at each, the cut in the table, the fit over the first part count.
if run parts 0 calibrate --sizes 2048 32768 --parts 4 16; then
  expect_line parts out ' cut$'
  expect_line parts out '^fit \(4 parts\): seconds = '
  expect_line parts out '^  structure: random'
  for n in 2048 32768; do
    for k in 4 16; do
      expect_line parts out "^  - \\{nodes: $n, edges: [0-9]+, parts: $k, seconds: [0-9.]+, peakBytes: [0-9]+, edgeCut: [0-9]+\\}$"
    done
  done
fi

# Bad flags and bad values: exit 2, the problem named, no crash.
run bad-flag 2 calibrate --frobnicate && expect_line bad-flag err 'frobnicate'
run bad-generator 2 calibrate --quick --generator erdos && expect_line bad-generator err 'generator'
run bad-parts 2 calibrate --quick --parts 1 && expect_line bad-parts err 'parts'
run bad-parts-text 2 calibrate --quick --parts many && expect_line bad-parts-text err 'parts'
run bad-size 2 calibrate --sizes 1024 abc && expect_line bad-size err 'sizes'
run size-below-parts 2 calibrate --sizes 4 1024 --parts 8 && expect_line size-below-parts err 'size 4 is out of range'
run size-below-more-parts 2 calibrate --sizes 64 1024 --parts 4 128 && expect_line size-below-more-parts err 'size 64 is out of range'
run one-of-parts-too-small 2 calibrate --quick --parts 4 1 && expect_line one-of-parts-too-small err 'parts'
run one-size 2 calibrate --sizes 1024 && expect_line one-size err 'two different sizes'
run quick-and-sizes 2 calibrate --quick --sizes 512 1024
run unwritable 2 calibrate --quick --out /nonexistent-dir/calibration.yaml &&
  expect_line unwritable err '/nonexistent-dir/calibration.yaml: cannot write'

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "calibrate CLI: all checks passed"
