#!/usr/bin/env bash
# dglsim sweep as users and deploy/sweep-job.yaml run it:
#   - the Job's shards, each a separate process with only the environment an Indexed Job's pod has
#     (JOB_COMPLETION_INDEX, HOSTNAME, PATH) and the Job's own arguments, all at once, writing to
#     one folder; `dglsim sweep merge` of that folder gives the unsharded outputs byte for byte;
#   - a point printed by --scenario-of and run alone by `dglsim run` has the sweep's trace hash;
#   - a bad sweep file: exit 2, located, nothing written; a missing shard: merge refuses.
# Usage: sweep_shards_test.sh DGLSIM SWEEP.yaml JOB.yaml
set -u
dglsim=$1 sweep=$2 job=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0 checks=0
check() {  # check NAME COMMAND...
  checks=$((checks + 1))
  if "${@:2}"; then echo "ok   $1"; else echo "FAIL $1"; failures=$((failures + 1)); fi
}

# The Job's shard count and arguments, as deploy/sweep-job.yaml has them.
shards=$(sed -n 's/^ *completions: *\([0-9]*\).*/\1/p' "$job" | head -1)
check "the Job runs --shard $shards with the index from JOB_COMPLETION_INDEX" \
  grep -q "args: \[sweep, /sweep/in/sweep.yaml, --shard, \"$shards\"" "$job"
name=$(sed -n 's/.*metadata: {name: \([a-z0-9-]*\).*/\1/p' "$sweep" | head -1)

"$dglsim" sweep "$sweep" --jobs 2 --out "$work/whole" --quiet
check "the unsharded sweep writes its outputs" test -s "$work/whole/$name.csv" -a -s "$work/whole/$name.html"

mkdir -p "$work/out"
pids=()
for ((i = 0; i < shards; i++)); do
  # The Job's environment; plus, under CI's coverage build, where to write the coverage counts.
  env -i PATH="$PATH" HOSTNAME="dglsim-sweep-$i-x" JOB_COMPLETION_INDEX="$i" \
    ${LLVM_PROFILE_FILE:+LLVM_PROFILE_FILE="$LLVM_PROFILE_FILE"} \
    "$dglsim" sweep "$sweep" --shard "$shards" --jobs 1 --out "$work/out" --quiet &
  pids+=($!)
done
status=0
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
check "every shard process exits 0" test "$status" -eq 0
check "every shard wrote its slice" test "$(ls "$work/out"/*.shard-*-of-"$shards".json | wc -l)" -eq "$shards"

"$dglsim" sweep merge "$work/out" --out "$work/merged" --quiet
for ext in csv json html; do
  check "merged $ext equals the unsharded $ext byte for byte" cmp -s "$work/whole/$name.$ext" "$work/merged/$name.$ext"
done

rm "$work/out/$name.shard-1-of-$shards.json"
"$dglsim" sweep merge "$work/out" --out "$work/bad" > "$work/merge.out" 2> "$work/merge.err"
check "a merge with a shard missing exits 2" test $? -eq 2
check "and says which" grep -q "shard 1 of $shards is missing" "$work/merge.err"

# A point alone: its scenario, run by dglsim run, gives the sweep's trace hash for its first seed.
"$dglsim" sweep "$sweep" --scenario-of 3 > "$work/point3.yaml"
"$dglsim" run "$work/point3.yaml" --json "$work/point3.json" > /dev/null
hash=$(sed -n 's/.*"traceHash": "\([0-9a-f]*\)".*/\1/p' "$work/point3.json" | head -1)
check "point 3 run alone has the sweep's trace hash ($hash)" grep -q "^[0-9]*,3,[^,]*,.*,$hash$" "$work/whole/$name.csv"

# A bad sweep file is refused before anything runs.
sed -e 's/values: \[1, 2, 4\]/values: [1, 0, 4]/' -e "s|^base: |base: $(cd "$(dirname "$sweep")" && pwd)/|" "$sweep" > "$work/bad-$$.yaml"
"$dglsim" sweep "$work/bad-$$.yaml" --out "$work/never" > "$work/bad.out" 2> "$work/bad.err"
code=$?
check "a bad sweep file exits 2" test "$code" -eq 2
check "with the value's place" grep -q "bad-$$.yaml:[0-9]*:[0-9]*: parameters\[0\].values\[1\]: point [0-9]* (workers=0 .*): .*replicas" "$work/bad.err"
check "and writes nothing" test ! -e "$work/never"

echo "$((checks - failures)) passed, $failures failed"
test "$failures" -eq 0
