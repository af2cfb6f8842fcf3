#!/usr/bin/env bash
# `dglsim models validate`: writes the validation table, exits 0 while every fitted point holds
# within the tolerance and 1 when one drifts, refuses bad input with 2; the committed
# reports/model-validation.md is what the command writes (docs/models.md links it rather than copying
# its figures).
# Usage: models_validate_test.sh DGLSIM_BINARY SOURCE_DIR
set -u
dglsim=$1
source_dir=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

"$dglsim" models validate --out "$tmp/table.md" >"$tmp/out" 2>"$tmp/err"
code=$?
[ "$code" -eq 0 ] || { fail "validate exited $code"; cat "$tmp/out" "$tmp/err"; }
grep -qE '^[0-9]+ points, [0-9]+ modelled, [0-9]+ fitted: 0 drifted past 10 %; [0-9]+ of [0-9]+ checks inside their 90 % bands' \
  "$tmp/out" || fail "no summary line: $(cat "$tmp/out")"
grep -q '^# Model validation' "$tmp/table.md" || fail "the table has no title"
grep -q '| METIS, time | 4846 s |' "$tmp/table.md" || fail "the table lacks the METIS step of the published log"
grep -q '## Unconfirmed parameters and their ranges' "$tmp/table.md" || fail "the table lacks the parameter ranges"

# The committed table is what the command writes (regenerate: dglsim models validate).
if [ -f "$source_dir/reports/model-validation.md" ]; then
  diff -q "$tmp/table.md" "$source_dir/reports/model-validation.md" >/dev/null ||
    fail "reports/model-validation.md is out of date: run 'build/sim/dglsim models validate' from the source directory"
else
  fail "reports/model-validation.md is missing"
fi
grep -q '^## Coverage of the checks by law' "$tmp/table.md" || fail "the table lacks the coverage by law"
grep -q '^## Leave-one-out bands' "$tmp/table.md" || fail "the table lacks the leave-one-out bands"

# A tighter tolerance makes fitted points drift: exit 1, each named on stderr.
"$dglsim" models validate --out "$tmp/tight.md" --tolerance 0.001 >"$tmp/tight.out" 2>"$tmp/tight.err"
code=$?
[ "$code" -eq 1 ] || fail "a drifted point should exit 1, got $code"
grep -q '^drifted: ' "$tmp/tight.err" || fail "drifted points are not named"

# Stdout, bad flags, unwritable paths.
"$dglsim" models validate --out - >"$tmp/stdout.md" 2>/dev/null || fail "--out - failed"
grep -q '^# Model validation' "$tmp/stdout.md" || fail "--out - wrote no table to stdout"
"$dglsim" models validate --out /nonexistent-dir/t.md >/dev/null 2>"$tmp/e1"; code=$?
[ "$code" -eq 2 ] || fail "an unwritable --out should exit 2, got $code"
grep -q 'nonexistent-dir' "$tmp/e1" || fail "the unwritable path is not named"
"$dglsim" models validate --tolerance 2 >/dev/null 2>&1; code=$?
[ "$code" -eq 2 ] || fail "--tolerance 2 should exit 2, got $code"
"$dglsim" models frobnicate >/dev/null 2>&1; code=$?
[ "$code" -eq 2 ] || fail "an unknown models subcommand should exit 2, got $code"
printf 'apiVersion: dglsim/v1\nkind: Calibration\npartition: {metisEdgesPerSecond: fast}\n' >"$tmp/bad.yaml"
"$dglsim" models validate --calibration "$tmp/bad.yaml" --out "$tmp/x.md" >/dev/null 2>"$tmp/e2"; code=$?
[ "$code" -eq 2 ] || fail "a bad calibration file should exit 2, got $code"
grep -q 'bad.yaml:3:' "$tmp/e2" || fail "the bad calibration file's line is not named: $(cat "$tmp/e2")"

if [ "$failures" -gt 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "models validate: all checks passed"
