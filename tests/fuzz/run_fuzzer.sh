#!/usr/bin/env bash
# run_fuzzer.sh FUZZER SEED_CORPUS WORK_DIR RUNS [libFuzzer flags...]
# Runs one libFuzzer target for RUNS inputs from seed 1, starting from SEED_CORPUS (read only): the
# same work on every machine. New inputs go to WORK_DIR/corpus and a crash, leak or timeout to
# WORK_DIR/crash-* (both emptied first); the exit code is the fuzzer's (0: nothing found). RUNS 0
# replays SEED_CORPUS only. Extra flags (e.g. -max_total_time=3600 -runs=-1 for a long local run)
# come last and win.
set -euo pipefail
if [ $# -lt 4 ]; then
  echo "usage: run_fuzzer.sh FUZZER SEED_CORPUS WORK_DIR RUNS [libFuzzer flags...]" >&2
  exit 2
fi
fuzzer=$1 seeds=$2 work=$3 runs=$4
shift 4
rm -rf "$work"
mkdir -p "$work/corpus"
# A dictionary beside the target's source (tests/fuzz/<target>.dict) gives the mutator the words of
# the format: paths, media types, patch directives.
dict=()
source_dir=$(dirname "${BASH_SOURCE[0]}")
[ -f "$source_dir/$(basename "$fuzzer").dict" ] && dict=(-dict="$source_dir/$(basename "$fuzzer").dict")
# Inputs up to 16 KB; 60 s for one input is a hang; 2 GB of memory is a leak or a blow-up.
exec "$fuzzer" -seed=1 -runs="$runs" -max_len=16384 -timeout=60 -rss_limit_mb=2048 -print_final_stats=1 \
  -artifact_prefix="$work/" "${dict[@]}" "$@" "$work/corpus" "$seeds"
