#!/usr/bin/env bash
# dglsim chaos in shards, as users and deploy/chaos-job.yaml run it:
#   - the Job's shards, each a separate process with only the environment an Indexed Job's pod has
#     (JOB_COMPLETION_INDEX, HOSTNAME, PATH) and the Job's shard count, all at once, writing to one
#     folder; `dglsim chaos merge` of that folder prints the unsharded campaign's failing seeds and
#     replay commands and writes its JSON and JUnit byte for byte, and exits as it does;
#   - merge --shrink writes the same shrunk scenario as the unsharded --shrink;
#   - merge refuses (exit 2, saying what) a shard missing or twice, another shard count, slices of
#     another seed range, a scenario changed since the shards ran; --shard refuses what only merge
#     does (--json, --junit, --shrink) and a shard it cannot place.
# Usage: chaos_shards_test.sh DGLSIM JOB.yaml
set -uo pipefail
dglsim=${1:?usage: $0 DGLSIM JOB.yaml} job=${2:?usage: $0 DGLSIM JOB.yaml}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
unset JOB_COMPLETION_INDEX  # only the shards below have one
# fail, run and expect_line.
source "$(dirname "${BASH_SOURCE[0]}")/dglsim_lib.sh"

# The Job's shard count and arguments, as deploy/chaos-job.yaml has them.
shards=$(sed -n 's/^ *completions: *\([0-9]*\).*/\1/p' "$job" | head -1)
grep -q "args: \[chaos, /chaos/in/scenario.yaml, --seeds, \"[0-9]*\.\.[0-9]*\", --shard, \"$shards\", .*--out, /chaos/out\]" "$job" ||
  fail "the Job does not run --shard $shards (index from JOB_COMPLETION_INDEX) with --out /chaos/out"
grep -q "args: \[chaos, merge, /chaos/out, " "$job" || fail "the Job's merge step does not run chaos merge /chaos/out"

# A small job on three 4-GPU nodes; GPUS is what each of its two workers asks for (8: never fits).
# Under --keep-expectations a seed passes only when a fault failed the job: a mix of both.
scenario() {
  cat <<YAML
apiVersion: dglsim/v1
kind: Scenario
metadata: {name: $1}
until: 6h
cluster:
  nodes:
    - {name: n, count: 3, capacity: {cpu: "32", memory: 128Gi, nvidia.com/gpu: "4", ephemeral-storage: 1Ti}}
  images: {defaultSize: 1G}
jobs:
  - at: 0s
    inline:
      apiVersion: kubeflow.org/v1alpha1
      kind: DGLJob
      metadata: {name: j, namespace: default}
      spec:
        partitionMode: DGL-API
        dglReplicaSpecs:
          Launcher:
            replicas: 1
            template:
              metadata: {annotations: {dglsim.io/duration: 10m}}
              spec: {containers: [{name: main, image: dgloperator/graphsage:v1, command: [dglrun]}]}
          Partitioner:
            replicas: 1
            template:
              metadata: {annotations: {dglsim.io/duration: 1m}}
              spec: {containers: [{name: main, image: dgloperator/graphsage:v1, command: [dglrun]}]}
          Worker:
            replicas: 2
            template:
              metadata: {annotations: {dglsim.io/duration: 10m}}
              spec:
                containers:
                  - {name: main, image: dgloperator/graphsage:v1, resources: {limits: {nvidia.com/gpu: "$2", cpu: "4", memory: 16Gi}}}
expect:
  - {job: j, phase: Failed}
YAML
}
cd "$tmp" || exit 1
scenario mixed 1 >mixed.yaml
scenario stuck 8 >stuck.yaml
flags=(--rate PodKill=3 --rate OOM=2 --keep-expectations)

# shards DIR N SCENARIO SEEDS FLAGS...: N shard processes at once, each with an Indexed Job pod's
# environment only (and, under CI's coverage build, where to write the coverage counts).
shards() {
  local dir=$1 n=$2 pids=() status=0
  shift 2
  mkdir -p "$dir"
  for ((i = 0; i < n; i++)); do
    env -i PATH="$PATH" HOSTNAME="dglsim-chaos-$i-x" JOB_COMPLETION_INDEX="$i" \
      ${LLVM_PROFILE_FILE:+LLVM_PROFILE_FILE="$LLVM_PROFILE_FILE"} ${ASAN_OPTIONS:+ASAN_OPTIONS="$ASAN_OPTIONS"} \
      ${UBSAN_OPTIONS:+UBSAN_OPTIONS="$UBSAN_OPTIONS"} \
      "$dglsim" chaos "$@" --shard "$n" --jobs 1 --out "$dir" >"$dir.$i.out" 2>"$dir.$i.err" &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid" || status=1; done
  [ "$status" -eq 0 ] || { fail "a shard of $dir exited non-zero"; cat "$dir".*.err; }
}

# The unsharded campaign, then the Job's shards and their merge.
run whole 1 chaos mixed.yaml --seeds 1..16 "${flags[@]}" --jobs 2 --json whole.json --junit whole.xml
passed=$(sed -n 's/^chaos: 16 seeds (1\.\.16), \([0-9]*\) passed, \([0-9]*\) failed, .*/\1 \2/p' "$tmp/whole.out")
read -r p f <<<"${passed:-0 0}"
[ "$p" -gt 0 ] && [ "$f" -gt 0 ] || fail "the campaign should mix passing and failing seeds (passed $p, failed $f)"
shards out "$shards" mixed.yaml --seeds 1..16 "${flags[@]}"
[ "$(ls out/mixed.chaos-shard-*-of-"$shards".json | wc -l)" -eq "$shards" ] || fail "not one slice per shard"
grep -q "^chaos: shard 1/$shards: [0-9]* of 16 seeds (1\.\.16), " out.1.out || fail "shard 1 prints no total"
if run merged 1 chaos merge out --json merged.json --junit merged.xml; then
  cmp -s whole.json merged.json || fail "the merged JSON differs from the unsharded one"
  cmp -s whole.xml merged.xml || fail "the merged JUnit differs from the unsharded one"
  diff <(grep -v '^chaos: ' whole.out) <(grep -v '^chaos: ' merged.out) ||
    fail "merge prints other failing seeds or replay commands than the unsharded campaign"
  expect_line merged out "^chaos: 16 seeds \(1\.\.16\), $p passed, $f failed, merged from $shards shards$"
fi
grep -q '"replay": "dglsim chaos mixed.yaml --seeds [0-9]*\.\.[0-9]* --rate PodKill=3 --rate OOM=2 --keep-expectations"' merged.json ||
  fail "the merged JSON holds no replay command"

# --shrink: the merge shrinks the campaign's first failing seed as the unsharded command does.
mkdir -p shrunk-whole shrunk-merged
run shrink-whole 1 chaos stuck.yaml --seeds 3..6 --rate PodKill=2 --shrink --write-scenario shrunk-whole
shards stuck-out 2 stuck.yaml --seeds 3..6 --rate PodKill=2
if run shrink-merged 1 chaos merge stuck-out --shrink --write-scenario shrunk-merged; then
  expect_line shrink-merged out '^shrink: seed 3 fails jobsTerminalOrProgressing'
  diff <(ls shrunk-whole) <(ls shrunk-merged) >/dev/null || fail "merge --write-scenario wrote other files"
  for f in shrunk-whole/*.yaml; do
    cmp -s "$f" "shrunk-merged/${f##*/}" || fail "merge wrote another ${f##*/}"
  done
  [ -s shrunk-merged/stuck-seed-3-shrunk.yaml ] || fail "merge --shrink wrote no stuck-seed-3-shrunk.yaml"
fi

# What merge refuses: exit 2, saying what, writing nothing.
mkdir -p missing twice
cp out/mixed.chaos-shard-0-of-"$shards".json missing/
run missing 2 chaos merge missing --json never.json && expect_line missing err "^shard 1 of $shards is missing$"
[ ! -e never.json ] || fail "a refused merge wrote its JSON"
cp out/*.json twice/ && cp out/mixed.chaos-shard-0-of-"$shards".json twice/copy.chaos-shard-0-of-"$shards".json
run twice 2 chaos merge twice && expect_line twice err "shard 0 again \(also in "
run three 0 chaos mixed.yaml --seeds 1..16 "${flags[@]}" --shard 2/3 --out three
run mixed-count 2 chaos merge out three/mixed.chaos-shard-2-of-3.json && expect_line mixed-count err "shard 2 of 3, the others are of $shards$"
run other-shard 0 chaos mixed.yaml --seeds 1..20 "${flags[@]}" --shard 1/"$shards" --out other-range
mkdir -p both && cp out/*.json both/ && cp other-range/mixed.chaos-shard-1-of-"$shards".json both/other.chaos-shard-1-of-"$shards".json
run other-range 2 chaos merge both && expect_line other-range err 'a slice of another chaos campaign: seeds \{"first":1,"last":20\} here, \{"first":1,"last":16\} in '
echo "# changed" >>stuck.yaml
run changed 2 chaos merge stuck-out --shrink && expect_line changed err "stuck.yaml: not the scenario the shards ran"
run not-json 2 chaos merge mixed.yaml && expect_line not-json err "mixed.yaml: cannot read a JSON slice: not JSON"

# What --shard refuses.
run shard-json 2 chaos mixed.yaml --seeds 1..4 --shard 0/2 --json x.json && expect_line shard-json err '^--json with --shard: '
run shard-shrink 2 chaos mixed.yaml --seeds 1..4 --shard 0/2 --shrink && expect_line shard-shrink err '^--shrink with --shard: '
run shard-range 2 chaos mixed.yaml --seeds 1..4 --shard 2/2 && expect_line shard-range err '^--shard 2/2: expected I/N'
run shard-index 2 chaos mixed.yaml --seeds 1..4 --shard 2 && expect_line shard-index err '^--shard 2: JOB_COMPLETION_INDEX is not set'
run out-alone 2 chaos mixed.yaml --seeds 1..4 --out somewhere && expect_line out-alone err '^--out somewhere: only with --shard'

if [ "$failures" -gt 0 ]; then
  echo "chaos_shards_test: $failures failure(s)"
  exit 1
fi
echo "chaos_shards_test: all checks passed"
