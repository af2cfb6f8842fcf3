# Sourced by scripts/test.sh, scripts/coverage.sh and scripts/tsan.sh: GoogleTest binaries, each run
# once, split into shards that a pool of JOBS processes runs side by side (a sanitized binary takes
# about half a second to start, so a process per test would cost more than the tests).
#
#   run_gtest_shards JOBS LOG_DIR TAG SHOW BIN... [-- GTEST_ARG...]
#
# Splits each BIN into 2 x JOBS shards (GTEST_TOTAL_SHARDS, GTEST_SHARD_INDEX) and runs every shard
# of every binary, the binaries in the order given, at most JOBS at a time, each with
# --gtest_brief=1 and the GTEST_ARGs; shard K's output goes to LOG_DIR/<binary>.<TAG>K.log. Twice as
# many shards as processes, all binaries in one pool: a slow shard, or the last shards of one
# binary, no longer hold the other cores idle until they end (one pool of JOBS shards per binary,
# run one binary after the other, left a core idle for a third of CI's unit-test step). For each
# shard that fails it prints "-- <binary> shard K of N FAILED:" and then runs SHOW with that log's
# path (cat, or a function that picks the lines worth reading). Returns 1 when a shard failed, else 0.
run_gtest_shards() {
  local jobs=$1 log_dir=$2 tag=$3 show=$4
  shift 4
  local bins=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    bins+=("$1")
    shift
  done
  [ $# -gt 0 ] && shift  # the --
  local shards=$((jobs * 2)) running=0 failed=0 bin name shard log
  local logs=() labels=()
  for bin in "${bins[@]}"; do
    name=$(basename "$bin")
    for ((shard = 0; shard < shards; shard++)); do
      if ((running >= jobs)); then
        wait -n || true  # a shard's own status is in its .rc file
        running=$((running - 1))
      fi
      log="$log_dir/$name.$tag$shard.log"
      rm -f "$log.rc"
      (
        GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$shard "$bin" --gtest_brief=1 "$@" >"$log" 2>&1
        echo $? >"$log.rc"
      ) &
      running=$((running + 1))
      logs+=("$log")
      labels+=("$name shard $shard of $shards")
    done
  done
  wait
  local i
  for i in "${!logs[@]}"; do
    if [ "$(cat "${logs[$i]}.rc" 2>/dev/null)" != "0" ]; then
      failed=1
      echo "-- ${labels[$i]} FAILED:"
      "$show" "${logs[$i]}"
    fi
  done
  return "$failed"
}
