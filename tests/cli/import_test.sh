#!/usr/bin/env bash
# `dglsim import` end to end, on evidence nobody here wrote by hand: kubectl's dumps (YAML and JSON)
# and the audit log recorded from `dglsim serve` of scenarios/node-lost-worker-unschedulable.yaml
# (tests/cli/import/serve-node-lost/, recorded by tests/cli/import/record-from-serve.sh), and from a
# real control plane (tests/cli/import/realk8s-node-lost/, record-from-control-plane.sh): the
# imported scenario loads, and `dglsim run` of it reproduces the recorded phase, condition and
# restarts (its expectations pass), and --shrink keeps the one fault that matters; and a worker
# OOMKilled after an operator hand-over, recorded on the real control plane too
# (tests/cli/import/realk8s-oom-handover/). Also: bad evidence is refused with a located message and exit 2;
# the audit log `dglsim run --audit-log` writes is read back by the import.
#
# Usage: import_test.sh DGLSIM
set -uo pipefail
dglsim=${1:?usage: import_test.sh DGLSIM}
here=$(cd "$(dirname "$0")" && pwd)
data=$here/import/serve-node-lost
tmp=$(mktemp -d)
mkdir -p "$tmp/shrink"
trap 'rm -rf "$tmp"' EXIT
failures=0
source "$here/dglsim_lib.sh"  # fail, run, expect_line

# The recorded evidence, imported and replayed.
run import-yaml 0 import "$data/dump.yaml" --audit-log "$data/audit.log" -o "$tmp/replay.yaml"
expect_line import-yaml err '^assumed: '
expect_line import-yaml err '^not used: '
expect_line import-yaml err "^dglsim import: wrote $tmp/replay.yaml"
grep -q '^# Assumptions:' "$tmp/replay.yaml" || fail "import-yaml: the scenario lists no assumptions"
grep -q '^# Evidence not used:' "$tmp/replay.yaml" || fail "import-yaml: the scenario lists no unused evidence"
grep -qE '^    node: gpu-1$' "$tmp/replay.yaml" && grep -qE '^    kind: NodeDown$' "$tmp/replay.yaml" ||
  fail "import-yaml: no NodeDown fault for the lost node"
# The fault anchored to the job's progress, as the recorded scenario defines it: 1m into Training.
grep -qE '^    when: \{job: default/sage, phase: Training\}$' "$tmp/replay.yaml" && grep -qE '^  - after: 1m$' "$tmp/replay.yaml" ||
  fail "import-yaml: the NodeDown is not anchored 1m into the job's Training"
grep -qE '\{job: default/sage, phase: Partitioned\}' "$tmp/replay.yaml" || fail "import-yaml: no expectation of the recorded phase"
grep -qE '\{job: default/sage, restarts: 1\}' "$tmp/replay.yaml" || fail "import-yaml: no expectation of the recorded restarts"
run validate 0 validate "$tmp/replay.yaml"
run replay 0 run "$tmp/replay.yaml"
expect_line replay out 'PASS job default/sage phase Partitioned'

# --shrink: the one NodeDown is needed (without it, or later, the job succeeds); the shrunk file replays.
run shrink 0 import "$data/dump.yaml" --audit-log "$data/audit.log" -o "$tmp/shrink/replay.yaml" --shrink
expect_line shrink out '^shrink: 1 -> 1 faults still reproduce the evidence'
expect_line shrink out "^wrote $tmp/shrink/replay-shrunk.yaml"
run shrunk-replay 0 run "$tmp/shrink/replay-shrunk.yaml"

# The same evidence as JSON gives the same scenario (but for the header's file names).
run import-json 0 import "$data/dump.json" --audit-log "$data/audit.log" -o "$tmp/replay-json.yaml" --name replay
same() { sed 1d "$1" | sed -E 's/dump\.(yaml|json)(:[0-9]+:[0-9]+)?/DUMP/g'; }
if ! diff <(same "$tmp/replay.yaml") <(same "$tmp/replay-json.yaml") >"$tmp/json.diff"; then
  fail "import-json: YAML and JSON dumps of the same cluster import differently"
  head -20 "$tmp/json.diff"
fi

# A simulated run's audit log is read back by the import.
run run-audit 0 run "$tmp/replay.yaml" --audit-log "$tmp/run-audit.log" --quiet
grep -q '"apiVersion":"audit.k8s.io/v1"' "$tmp/run-audit.log" || fail "run-audit: no audit events written"
grep -q '"username":"system:kube-scheduler"' "$tmp/run-audit.log" || fail "run-audit: the scheduler's calls are not logged as its own"
run import-run-audit 0 import "$data/dump.yaml" --audit-log "$tmp/run-audit.log" -o "$tmp/replay2.yaml"

# Evidence from a real control plane (tests/cli/import/realk8s-node-lost/, recorded by
# record-from-control-plane.sh: kube-apiserver, kube-scheduler, kube-controller-manager, kwok nodes
# and dgl-operator; the node of worker 2 deleted once the job trained). The deletion is replayed as
# a NodeDeleted of the node of sage-worker-2 and the pods are pinned where kube-scheduler put them;
# the replay reproduces every expectation: the phase, the condition, the restart and its reason
# (WorkerFailed: the pod garbage collector failed and deleted the deleted node's pods), with the
# worker left unschedulable. --shrink keeps the one deletion.
real=$here/import/realk8s-node-lost
mkdir -p "$tmp/real"
run import-real 0 import "$real/dump.yaml" --audit-log "$real/audit.log" -o "$tmp/real/real.yaml" --shrink
grep -qE '^    kind: NodeDeleted$' "$tmp/real/real.yaml" && grep -qE '^    nodeOf: default/sage-worker-2$' "$tmp/real/real.yaml" ||
  fail "import-real: the deleted node is not replayed as the deletion of the node of sage-worker-2"
grep -A1 -E '^      - nodes: \[gpu-0, gpu-0\]$' "$tmp/real/real.yaml" | grep -qE '^        pod: default/sage-launcher$' ||
  fail "import-real: the launcher is not pinned to gpu-0, where it ran twice"
expect_line import-real out '^shrink: 1 -> 1 faults still reproduce the evidence'
run replay-real 0 run "$tmp/real/real.yaml"
expect_line replay-real out 'PASS job default/sage phase Partitioned'
expect_line replay-real out 'PASS job default/sage condition Partitioned reason PartitionerSucceeded'
expect_line replay-real out 'PASS job default/sage condition Restarting reason WorkerFailed'
expect_line replay-real out 'PASS job default/sage restarts 1'
expect_line replay-real out 'waits on pod default/sage-worker-2, Pending: unschedulable'
expect_line replay-real out 'NodeDeleted gpu-2'
run shrunk-real 0 run "$tmp/real/real-shrunk.yaml"

# A worker OOMKilled after the operator's Lease changed hands, on a real control plane
# (tests/cli/import/realk8s-oom-handover/, recorded by record-oom-handover-from-control-plane.sh:
# two dgl-operator replicas with --leader-elect, the leader killed once the job trained, then
# worker 1 OOMKilled through a kwok stage; backoffLimit 0, so the job failed). The import replays
# the hand-over as an OperatorRestart and the OOM as an OOM of sage-worker-1; the replay reproduces
# the failure (phase, reason, no restart, every invariant), and --shrink finds the OOM alone enough.
oom=$here/import/realk8s-oom-handover
mkdir -p "$tmp/oom"
run import-oom 0 import "$oom/dump.yaml" --audit-log "$oom/audit.log" -o "$tmp/oom/oom.yaml" --shrink
grep -qE '^    kind: OperatorRestart$' "$tmp/oom/oom.yaml" || fail "import-oom: the Lease hand-over is not replayed"
grep -A1 -E '^    kind: OOM$' "$tmp/oom/oom.yaml" | grep -qE '^    pod: default/sage-worker-1$' ||
  fail "import-oom: the OOMKilled worker is not replayed"
expect_line import-oom out '^shrink: 2 -> 1 faults still reproduce the evidence'
grep -qE '^    kind: OOM$' "$tmp/oom/oom-shrunk.yaml" && ! grep -qE '^    kind: OperatorRestart$' "$tmp/oom/oom-shrunk.yaml" ||
  fail "import-oom: the shrunk scenario does not keep the OOM alone"
run replay-oom 0 run "$tmp/oom/oom.yaml"
expect_line replay-oom out 'PASS job default/sage phase Failed'
expect_line replay-oom out 'PASS job default/sage condition Failed reason WorkerFailed'
expect_line replay-oom out 'PASS job default/sage restarts 0'
expect_line replay-oom out 'PASS invariants all'

# Bad evidence: located, exit 2, no scenario.
printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n' >"$tmp/pod.yaml"
run not-a-list 2 import "$tmp/pod.yaml" -o "$tmp/bad.yaml"
expect_line not-a-list err "^$tmp/pod.yaml:2:7: kind: not a List"
[ -e "$tmp/bad.yaml" ] && fail "not-a-list: a scenario was written from bad evidence"
head -c 2000 "$data/dump.json" >"$tmp/cut.json"
run truncated 2 import "$tmp/cut.json" -o "$tmp/bad.yaml"
expect_line truncated err "^$tmp/cut.json:[0-9]+:[0-9]+: .*truncated"
printf 'apiVersion: v1\nkind: List\nitems:\n- {apiVersion: x/v1, kind: Widget, metadata: {name: w}}\n' >"$tmp/widget.yaml"
run unknown-kind 2 import "$tmp/widget.yaml" -o "$tmp/bad.yaml"
expect_line unknown-kind err "^$tmp/widget.yaml:4:[0-9]+: items\[0\]\.kind: unknown kind \"Widget\""
printf '{"kind":"Event","apiVersion":"audit.k8s.io/v1"\n' >"$tmp/bad-audit.log"
run bad-audit 2 import "$data/dump.yaml" --audit-log "$tmp/bad-audit.log" -o "$tmp/bad.yaml"
expect_line bad-audit err "^$tmp/bad-audit.log:1: not one JSON object"

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "import: all checks passed"
