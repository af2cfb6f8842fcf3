#!/usr/bin/env bash
# `dglsim place`: the simulated scheduler alone on given nodes and pods (the placement comparison
# with kube-scheduler drives it). Two nodes, a Service selecting app=x, a pod of app=x already on
# the bigger node: an app=y pod goes to the bigger node, an app=x pod is spread to the other
# (PodTopologySpread's default constraints), a pod too big for both is unschedulable; every
# feasible node's scores are given per plugin; the output is the same on a second run; with
# `follow`, a pod is put where the other scheduler put it and the next decision starts from there;
# bad input exits 2 naming the field.
# Usage: place_test.sh DGLSIM
set -uo pipefail
dglsim=${1:?usage: $0 DGLSIM}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

node() { # name cpu
  jq -n --arg n "$1" --arg cpu "$2" '{metadata: {name: $n, labels: {"kubernetes.io/hostname": $n}},
    status: {allocatable: {cpu: $cpu, memory: "1000Gi", pods: "110"},
             conditions: [{type: "Ready", status: "True"}]}}'
}
pod() { # name app cpu
  jq -n --arg n "$1" --arg app "$2" --arg cpu "$3" '{metadata: {name: $n, namespace: "default", labels: {app: $app}},
    spec: {containers: [{name: "main", image: "busybox", resources: {requests: {cpu: $cpu, memory: "1Gi"}}}]}}'
}
jq -n --argjson a "$(node a 100)" --argjson b "$(node b 10)" \
  --argjson x0 "$(pod x0 x 1 | jq '.spec.nodeName = "a"')" \
  --argjson y1 "$(pod y1 y 1)" --argjson x1 "$(pod x1 x 1)" --argjson big "$(pod big z 500)" '{
    nodes: [$a, $b],
    services: [{metadata: {name: "x", namespace: "default"}, spec: {clusterIP: "None", selector: {app: "x"}}}],
    preplaced: [$x0], pods: [$y1, $x1, $big]}' >"$tmp/input.json"

"$dglsim" place "$tmp/input.json" --out "$tmp/out.json" || fail "place exited $?"
got=$(jq -c '[.placements[] | [.pod, .node]]' "$tmp/out.json")
[ "$got" = '[["default/y1","a"],["default/x1","b"],["default/big",null]]' ] || fail "placements: $got"
jq -e '.placements[2].message | startswith("0/2 nodes are available: 2 Insufficient cpu")' "$tmp/out.json" >/dev/null ||
  fail "the unschedulable pod's message: $(jq '.placements[2].message' "$tmp/out.json")"
jq -e '.placements[1].scores.a.PodTopologySpread < .placements[1].scores.b.PodTopologySpread and
       (.placements[1].scores.b | .total == .NodeResourcesFit + .NodeResourcesBalancedAllocation + .TaintToleration + .PodTopologySpread) and
       (.placements[0].scores.a | has("PodTopologySpread") | not)' "$tmp/out.json" >/dev/null ||
  fail "per-plugin scores: $(jq -c '[.placements[0:2][] | .scores]' "$tmp/out.json")"
"$dglsim" place "$tmp/input.json" >"$tmp/again.json" || fail "second run exited $?"
cmp -s "$tmp/out.json" "$tmp/again.json" || fail "a second run gave another output"

# Following another scheduler: y1 put on b, so x1 (spread away from a) now scores b lower.
jq '.follow = {"default/y1": "b", "default/x1": "b", "default/big": null}' "$tmp/input.json" >"$tmp/follow.json"
"$dglsim" place "$tmp/follow.json" --out "$tmp/followed.json" || fail "place with follow exited $?"
jq -e '.placements[0].node == "a" and .placements[1].scores.b.NodeResourcesFit < 94' "$tmp/followed.json" >/dev/null ||
  fail "follow: $(jq -c '[.placements[] | {pod, node, b: .scores.b}]' "$tmp/followed.json")"

echo '{"pods": [{"metadata": {}}]}' >"$tmp/bad.json"
out=$("$dglsim" place "$tmp/bad.json" 2>&1); code=$?
[ $code = 2 ] || fail "bad input exited $code"
[[ "$out" == *"bad.json: pods[0].metadata.name: missing"* ]] || fail "bad input said: $out"
echo "PASS: dglsim place"
