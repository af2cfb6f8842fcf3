#!/usr/bin/env bash
# Bad input past dglsim's limits (docs/limits.md), as a hostile but fair user tries it:
# files that are not regular files or are too big, edge lists that do not parse, regular
# expressions that would crash or hang std::regex, absurd sizes, and outputs that cannot be
# written. Each must end at once with exit code 2 and a located message: before the fixes these
# hung (FIFOs), read until memory ran out (/dev/zero), crashed (30,000 parentheses), ran for ever
# (`^(.*)*$x`), exited 0 on an unreadable graph, or exited 0 or 1 after losing a report.
# Usage: limits_test.sh DGLSIM_BINARY
set -uo pipefail

dglsim=${1:?usage: $0 DGLSIM_BINARY}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

deadline=60  # each case ends at once, or it hangs
source "$(dirname "${BASH_SOURCE[0]}")/dglsim_lib.sh"

# scenario NAME [sed expressions...]: the base scenario with the given substitutions, then its
# remaining placeholders filled (a real graph, two nodes, two workers, a harmless pattern); prints
# the file's path.
cp "$here/../../scenarios/graphs/karate.txt" "$tmp/karate.txt"
scenario() {
  local name=$1
  shift
  sed "$@" -e "s|EDGES|$tmp/karate.txt|" -e 's|NODES|2|' -e 's|REPLICAS|2|g' -e "s|PATTERN|g-worker-0|" -e 's|^EXTRA$||' \
    "$here/limits/base.yaml" >"$tmp/$name.yaml"
  echo "$tmp/$name.yaml"
}

run base 0 run "$(scenario base -e '')" --quiet

# --- Files that are not regular files: refused before anything is read, located at the field.
mkfifo "$tmp/fifo"
run scenario-fifo 2 validate "$tmp/fifo" && expect_line scenario-fifo err "^$tmp/fifo: is a FIFO \(named pipe\), not a regular file$"
run scenario-zero 2 run /dev/zero && expect_line scenario-zero err '^/dev/zero: is a character device'
run scenario-urandom 2 validate /dev/urandom && expect_line scenario-urandom err '^/dev/urandom: is a character device'
for target in "$tmp/fifo" /dev/zero /dev/urandom; do
  tag=$(basename "$target")
  run "edges-$tag" 2 run "$(scenario "edges-$tag" -e "s|EDGES|$target|")" &&
    expect_line "edges-$tag" err "datasets\[0\]\.edgeList: cannot use the edge list: \"$target\" (is a FIFO|is a character device)"
  run "manifest-$tag" 2 validate "$(scenario "manifest-$tag" -e '/^    inline:$/,/^EXTRA$/d' -e "s|^    dataset: graph$|    dataset: graph\n    manifest: $target|")" &&
    expect_line "manifest-$tag" err "jobs\[0\]\.manifest: cannot load \"$target\": (is a FIFO|is a character device)"
  run "nodes-$tag" 2 validate "$(scenario "nodes-$tag" -e "s|    - name: cpu|    - manifest: $target|" -e '/^      count: NODES$/d' -e '/^      capacity:/d')" &&
    expect_line "nodes-$tag" err "cluster\.nodes\[0\]\.manifest: cannot load \"$target\": (is a FIFO|is a character device)"
  run "calibration-$tag" 2 validate "$(scenario "calibration-$tag" -e "s|^seed: 3$|seed: 3\ncalibration: $target|")" &&
    expect_line "calibration-$tag" err "calibration: cannot read \"$target\": (is a FIFO|is a character device)"
done

# --- 8 MB of short list items (2,000,000 of them): refused by the value count while it is read (a 50 MB
# file is refused the same way; smaller here so that a sanitized -O0 build on a loaded machine stays
# inside a deadline of its own: 300 s; under ASan at -O0 and load 14 it passed 60 s).
{ scenario big-list -e '' >/dev/null; cat "$tmp/big-list.yaml"; echo 'x-padding:'; yes -- '- 1' | head -n 2000000; } >"$tmp/big.yaml"
deadline=300 run big-list 2 validate "$tmp/big.yaml" && expect_line big-list err "^$tmp/big.yaml:[0-9]+:[0-9]+: file too large: more than 1000000 values$"

# --- Edge lists that do not parse: a located error, not a job that "succeeds" on a stand-in graph.
printf 'abc def\n' >"$tmp/abc.txt"
: >"$tmp/empty.txt"
printf '1\n' >"$tmp/one.txt"
head -c 1048576 /dev/zero >"$tmp/nul.txt"
run edges-abc 2 run "$(scenario edges-abc -e "s|EDGES|$tmp/abc.txt|")" &&
  expect_line edges-abc err "datasets\[0\]\.edgeList: cannot use the edge list: $tmp/abc.txt:1: expected a node id \(a non-negative integer\), found 'abc'"
run edges-empty 2 validate "$(scenario edges-empty -e "s|EDGES|$tmp/empty.txt|")" &&
  expect_line edges-empty err "datasets\[0\]\.edgeList: cannot use the edge list: \"$tmp/empty.txt\" no edges"
run edges-one 2 run "$(scenario edges-one -e "s|EDGES|$tmp/one.txt|")" &&
  expect_line edges-one err "edgeList: cannot use the edge list: $tmp/one.txt:1: expected two node ids, found only '1'"
run edges-nul 2 run "$(scenario edges-nul -e "s|EDGES|$tmp/nul.txt|")" &&
  expect_line edges-nul err "edgeList: cannot use the edge list: $tmp/nul.txt:1: expected two node ids"

# --- Regular expressions: bounded to compile, linear to match.
run regex-deep 2 validate "$(scenario regex-deep -e "s|PATTERN|$(printf '(%.0s' $(seq 30000))a$(printf ')%.0s' $(seq 30000))|")" &&
  expect_line regex-deep err 'expect\[1\]\.matches: invalid regular expression "\(+\.\.\.": longer than 1000 bytes \(60001\)'
run regex-backtrack 1 run "$(scenario regex-backtrack -e 's|PATTERN|^(.*)*$x|')" &&
  expect_line regex-backtrack out 'FAIL configMap default/g-config key ipconfig line 0 matches \^\(\.\*\)\*\$x'
run regex-backref 2 validate "$(scenario regex-backref -e 's|PATTERN|(g)\\1|')" &&
  expect_line regex-backref err 'invalid escape sequence'

# --- Absurd sizes.
run replicas-int32 2 validate "$(scenario replicas-int32 -e 's|REPLICAS|2147483648|g')" &&
  expect_line replicas-int32 err 'spec\.dglReplicaSpecs\.Worker\.replicas: Invalid value: 2147483648: must be of type int32'
run workers-1e7 2 validate "$(scenario workers-1e7 -e 's|REPLICAS|10000000|g')" &&
  expect_line workers-1e7 err 'spec\.dglReplicaSpecs: 10000001 pods of this job run at once, but the cluster holds at most 220 pods'
templates=$(for i in $(seq 200); do printf '    - {name: t%d, count: 100000, capacity: {cpu: "96"}}\\n' "$i"; done)
run templates-200 2 validate "$(scenario templates-200 -e "s|^    - name: cpu$|$templates    - name: cpu|")" &&
  expect_line templates-200 err 'cluster\.nodes\[1\]\.count: the cluster would have 200000 nodes; a scenario holds at most 100000'
arrivals='arrivals:\n  - {name: a, process: Poisson, meanInterval: 1s, count: 100000, templates: [{inline: {apiVersion: kubeflow.org/v1alpha1, kind: DGLJob, metadata: {name: x}, spec: {partitionMode: Skip, dglReplicaSpecs: {Launcher: {replicas: 1, template: {spec: {containers: [{name: m, image: i}]}}}}}}}]}'
run jobs-1e5 2 validate "$(scenario jobs-1e5 -e "s|^EXTRA$|$arrivals|")" &&
  expect_line jobs-1e5 err 'arrivals\[0\]\.count: draws 100000 jobs \(100001 with the scenario.s others\); a scenario submits at most 100000'
run dataset-huge 2 validate "$(scenario dataset-huge -e "s|{name: graph, edgeList: [^}]*}|{name: graph, nodes: 1000000000000000, edges: 1, featureDim: 1048576}|")" &&
  expect_line dataset-huge err 'datasets\[0\]\.nodes: must be at most 1099511627776, got 1000000000000000'
run features-huge 2 validate "$(scenario features-huge -e "s|{name: graph, edgeList: [^}]*}|{name: graph, nodes: 1000000000000, edges: 1, featureDim: 1048576}|")" &&
  expect_line features-huge err 'datasets\[0\]\.featureDim: the features would take 3725 PiB'
run gpus-huge 2 validate "$(scenario gpus-huge -e 's|capacity: {cpu: "96", memory: 384Gi}|capacity: {cpu: "96", memory: 384Gi, nvidia.com/gpu: "4611686018427387"}|')" &&
  expect_line gpus-huge err 'cluster\.nodes\[0\]\.capacity\[nvidia\.com/gpu\]: 4611686018427387 GPUs on one node; at most 1024'

# --- Outputs that cannot be written, and seeds that are not seeds: exit 2, checked before the work.
good=$(scenario good -e '')
run json-full 2 run "$good" --json /dev/full --quiet && expect_line json-full err '^/dev/full: cannot write the JSON report: No space left on device$'
"$dglsim" run "$good" >/dev/full 2>"$tmp/stdout-full.err"
[ $? -eq 2 ] || fail "stdout-full: a summary written to /dev/full did not exit 2"
expect_line stdout-full err '^dglsim: cannot write to standard output'
run junit-full 2 suite "$good" --junit /dev/full && expect_line junit-full err '^/dev/full: cannot write the JUnit report: No space left on device$'
if run junit-nodir 2 suite "$good" --junit "$tmp/no/such/dir/report.xml"; then
  expect_line junit-nodir err "^$tmp/no/such/dir/report.xml: cannot write the JUnit report: no such directory"
  grep -q PASS "$tmp/junit-nodir.out" && fail "junit-nodir: scenarios ran before the report's path was refused"
fi
if run calibrate-nodir 2 calibrate --quick --out "$tmp/no/such/dir/cal.yaml"; then
  expect_line calibrate-nodir err "cannot write the calibration file: no such directory"
  grep -q measured "$tmp/calibrate-nodir.err" && fail "calibrate-nodir: measured before the --out path was refused"
fi
for command in run serve; do
  run "seed-$command" 2 "$command" "$good" --seed -1 && expect_line "seed-$command" err 'a seed is a whole number from 0 to 9223372036854775807, not "-1"'
done
run seed-calibrate 2 calibrate --quick --seed -1 && expect_line seed-calibrate err 'not "-1"'
run seed-too-big 2 run "$good" --seed 9223372036854775808
run seed-max 0 run "$good" --seed 9223372036854775807 --quiet

if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all limits checks passed"
