# Sourced by scripts/test.sh, scripts/coverage.sh and scripts/tsan.sh: one GoogleTest binary run
# once, split into shards run side by side (a sanitized binary takes about half a second to start,
# so a process per test would cost more than the tests).
#
#   run_gtest_shards BIN JOBS LOG_DIR TAG SHOW [GTEST_ARG...]
#
# Runs BIN in JOBS shards (GTEST_TOTAL_SHARDS, GTEST_SHARD_INDEX) with --gtest_brief=1 and the
# GTEST_ARGs, shard K's output in LOG_DIR/<binary>.<TAG>K.log. For each shard that fails it prints
# "-- <binary> shard K of JOBS FAILED:" and then runs SHOW with that log's path (cat, or a function
# that picks the lines worth reading). Returns 1 when a shard failed, else 0.
run_gtest_shards() {
  local bin=$1 jobs=$2 log_dir=$3 tag=$4 show=$5 name shard failed=0
  shift 5
  local pids=()
  name=$(basename "$bin")
  for ((shard = 0; shard < jobs; shard++)); do
    GTEST_TOTAL_SHARDS=$jobs GTEST_SHARD_INDEX=$shard "$bin" --gtest_brief=1 "$@" \
      >"$log_dir/$name.$tag$shard.log" 2>&1 &
    pids+=($!)
  done
  for ((shard = 0; shard < jobs; shard++)); do
    if ! wait "${pids[$shard]}"; then
      failed=1
      echo "-- $name shard $shard of $jobs FAILED:"
      "$show" "$log_dir/$name.$tag$shard.log"
    fi
  done
  return "$failed"
}
