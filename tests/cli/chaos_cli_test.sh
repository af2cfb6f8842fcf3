#!/usr/bin/env bash
# End-to-end test of `dglsim chaos` as a user runs it: exit codes (0 no seed fails, 1 one does, 2 bad
# input, located), the failing seeds with their replay command, the JSON and JUnit summaries, the
# same results whatever --jobs, --write-scenario files that `dglsim run` replays to the same trace
# hash, and --shrink writing a scenario that still fails.
# Usage: chaos_cli_test.sh DGLSIM_BINARY
set -uo pipefail

dglsim=${1:?usage: $0 DGLSIM_BINARY}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

# fail, run and expect_line.
source "$(dirname "${BASH_SOURCE[0]}")/dglsim_lib.sh"

# json_field FILE EXPR: a Python expression over the JSON document `d`.
json_field() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

# A small job on three 4-GPU nodes; GPUS is what each of its two workers asks for (8: never fits).
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
scenario small 1 >"$tmp/small.yaml"
scenario stuck 8 >"$tmp/stuck.yaml"
mkdir -p "$tmp/out" "$tmp/shrunk"

# Bad input: exit 2, nothing run, messages that say where.
run no-seeds 2 chaos "$tmp/small.yaml"
run bad-seeds 2 chaos "$tmp/small.yaml" --seeds 5..2 && expect_line bad-seeds err '^--seeds: .*empty'
run garbage-seeds 2 chaos "$tmp/small.yaml" --seeds x..y && expect_line garbage-seeds err '^--seeds: expected A\.\.B'
run negative-seed 2 chaos "$tmp/small.yaml" --seeds=-1 && expect_line negative-seed err '^--seeds'
run unknown-kind 2 chaos "$tmp/small.yaml" --seeds 1 --rate NodeFire=1 && expect_line unknown-kind err 'unknown fault kind "NodeFire" \(kinds: NodeDown'
run bad-rate 2 chaos "$tmp/small.yaml" --seeds 1 --rate PodKill=-1 && expect_line bad-rate err '^--rate PodKill=-1: expected KIND=MEAN'
run bad-max-for 2 chaos "$tmp/small.yaml" --seeds 1 --max-for soon && expect_line bad-max-for err '^--max-for soon'
run bad-conflict 2 chaos "$tmp/small.yaml" --seeds 1 --max-conflict-rate 2
run missing-scenario 2 chaos "$tmp/none.yaml" --seeds 1 && expect_line missing-scenario err 'none\.yaml'
printf 'apiVersion: dglsim/v1\nkind: Scenario\nuntil: soon\ncluster: {nodes: [{name: n}]}\n' >"$tmp/bad.yaml"
run bad-scenario 2 chaos "$tmp/bad.yaml" --seeds 1 && expect_line bad-scenario err 'bad\.yaml:3:[0-9]+: until: '
run json-missing-dir 2 chaos "$tmp/small.yaml" --seeds 1 --json "$tmp/nowhere/x.json" && expect_line json-missing-dir err 'no such directory'
run write-missing-dir 2 chaos "$tmp/small.yaml" --seeds 1 --write-scenario "$tmp/nowhere" && expect_line write-missing-dir err '^--write-scenario .*no such directory'

# A passing campaign: exit 0, summaries, the same results whatever --jobs.
if run pass-1 0 chaos "$tmp/small.yaml" --seeds 1..6 --jobs 1 --json "$tmp/pass-1.json" --junit "$tmp/pass.xml"; then
  expect_line pass-1 out '^chaos: 6 seeds \(1\.\.6\), 6 passed, 0 failed'
  expect_line pass-1 err 'chaos: 6/6 seeds, 0 failed'
  [ "$(json_field "$tmp/pass-1.json" 'd["failed"], d["passed"], d["seeds"]["count"]')" = "0 6 6" ] || fail "pass-1: JSON counts"
  [ "$(grep -c '<testcase ' "$tmp/pass.xml")" -eq 6 ] || fail "pass-1: JUnit has not 6 test cases"
  python3 -c "import xml.dom.minidom,sys; xml.dom.minidom.parse(sys.argv[1])" "$tmp/pass.xml" || fail "pass-1: JUnit is not XML"
fi
if run pass-2 0 chaos "$tmp/small.yaml" --seeds 1..6 --jobs 3 --json "$tmp/pass-2.json" --junit "$tmp/pass-2.xml"; then
  # No wall-clock time in the reports: they are the same byte for byte.
  cmp -s "$tmp/pass-1.json" "$tmp/pass-2.json" || fail "pass: the JSON summary differs between --jobs 1 and --jobs 3"
  cmp -s "$tmp/pass.xml" "$tmp/pass-2.xml" || fail "pass: the JUnit report differs between --jobs 1 and --jobs 3"
fi
# One KIND=MEAN per --rate: the scenario may come after it.
run rate-first 0 chaos --rate PodKill=0 "$tmp/small.yaml" --seeds 2
# --keep-expectations judges the scenario's own expect: list (the job succeeds, the scenario says Failed).
run keep 1 chaos "$tmp/small.yaml" --seeds 1 --keep-expectations --rate WatchDrop=0 && expect_line keep out '^FAIL seed 1: expectation: '

# A failing campaign: exit 1, each failing seed with its replay command.
if run stuck 1 chaos "$tmp/stuck.yaml" --seeds 3..4 --rate PodKill=2 --json "$tmp/stuck.json"; then
  expect_line stuck out '^FAIL seed 3: jobsTerminalOrProgressing: job default/j'
  expect_line stuck out "^  replay: dglsim chaos $tmp/stuck.yaml --seeds 4\.\.4 --rate PodKill=2 --write-scenario DIR"
  expect_line stuck out '^chaos: 2 seeds \(3\.\.4\), 0 passed, 2 failed'
  [ "$(json_field "$tmp/stuck.json" 'd["failuresByKind"]["jobsTerminalOrProgressing"]')" = 2 ] || fail "stuck: failuresByKind"
fi
# The replay writes seed 4's scenario; `dglsim run` of it reproduces the trace hash and fails too.
if run replay 1 chaos "$tmp/stuck.yaml" --seeds 4..4 --rate PodKill=2 --write-scenario "$tmp/out" --json "$tmp/replay.json"; then
  expect_line replay out "^wrote $tmp/out/stuck-seed-4\.yaml"
  if run rerun 1 run "$tmp/out/stuck-seed-4.yaml" --json "$tmp/rerun.json"; then
    [ "$(json_field "$tmp/replay.json" 'd["failures"][0]["traceHash"]')" = "$(json_field "$tmp/rerun.json" 'd["traceHash"]')" ] ||
      fail "replay: dglsim run of the written scenario gives another trace hash"
  fi
fi
# --shrink: each step printed, a scenario written that still fails.
if run shrink 1 chaos "$tmp/stuck.yaml" --seeds 4 --rate PodKill=2 --shrink --write-scenario "$tmp/shrunk"; then
  expect_line shrink out '^shrink: seed 4 fails jobsTerminalOrProgressing with [0-9]+ drawn faults'
  expect_line shrink out '^shrink: dropped every drawn fault -> 0 faults, still fails'
  expect_line shrink out "^wrote $tmp/shrunk/stuck-seed-4-shrunk\.yaml"
  run shrunk-run 1 run "$tmp/shrunk/stuck-seed-4-shrunk.yaml" && expect_line shrunk-run out 'jobsTerminalOrProgressing'
fi

if [ "$failures" -gt 0 ]; then
  echo "chaos_cli_test: $failures failure(s)"
  exit 1
fi
echo "chaos_cli_test: all checks passed"
