#!/usr/bin/env bash
# Two dgl-operator processes with --leader-elect against one `dglsim serve --no-operator`: exactly
# one becomes the leader and reconciles (the other writes nothing); a DGLJob is reconciled by the
# leader; the leader is killed (SIGKILL: no release) and the other takes over once the lease
# has expired (never before), and reconciles the next job; on SIGTERM the new leader releases
# the Lease and exits 0. deploy/operator.yaml runs two replicas with --leader-elect.
# Usage: operator_leader_election_test.sh DGLSIM DGL_OPERATOR DATA_DIR   (CTest passes all three)
set -uo pipefail

dglsim=${1:?usage: $0 DGLSIM DGL_OPERATOR DATA_DIR}
operator=${2:?usage: $0 DGLSIM DGL_OPERATOR DATA_DIR}
data=${3:?usage: $0 DGLSIM DGL_OPERATOR DATA_DIR}
for tool in curl jq; do
  if ! command -v "$tool" >/dev/null; then
    echo "SKIP: $tool is not installed"
    exit 77
  fi
done

tmp=$(mktemp -d)
serve_pid=""
a_pid=""
b_pid=""
watch_pid=""
cleanup() {
  # Only the processes this script started, by pid.
  for pid in "$a_pid" "$b_pid" "$serve_pid" "$watch_pid"; do [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null; done
  rm -rf "$tmp"
}
trap cleanup EXIT

fail() {
  echo "FAIL: $*"
  for f in serve.err a.err b.err; do
    [ -s "$tmp/$f" ] && sed "s/^/  $f: /" "$tmp/$f" | tail -30
  done
  exit 1
}

source "$(dirname "${BASH_SOURCE[0]}")/serve_lib.sh"  # wait_for, start_serve

# deploy/operator.yaml runs what this test runs: two replicas, each with --leader-elect.
deploy="$data/../../deploy/operator.yaml"
grep -qE '^  replicas: 2$' "$deploy" || fail "$deploy does not run two replicas"
grep -qE '^ +args: \[.*"--leader-elect"' "$deploy" || fail "$deploy does not pass --leader-elect"

lease=3   # seconds; renew deadline 2 s, retry period 0.5 s
start_serve "$dglsim" "$data/operator_http_e2e.yaml" --speed 30 --no-operator

start_operator() {  # NAME: a candidate with short durations, its log in $tmp/NAME.err
  "$operator" --server "$url" --resync 10s --leader-elect --leader-elect-identity "$1" \
    --leader-elect-lease-duration ${lease}s --leader-elect-renew-deadline 2s --leader-elect-retry-period 500ms \
    2>"$tmp/$1.err" &
}
start_operator a
a_pid=$!
wait_for 10 grep -q 'became the leader' "$tmp/a.err" || fail "the first candidate did not become the leader"
start_operator b
b_pid=$!
wait_for 10 grep -q 'waiting (held by a)' "$tmp/b.err" || fail "the second candidate does not wait for the first"

holder() { curl -s "$url/apis/coordination.k8s.io/v1/namespaces/default/leases/dgl-operator" | jq -r '.spec.holderIdentity'; }
[ "$(holder)" = a ] || fail "the Lease is held by [$(holder)], not a"

submit() {  # NAME: the e2e job under another name
  jq --arg n "$1" '.metadata.name = $n' "$data/operator_http_e2e_job.json" >"$tmp/$1.json"
  local code
  code=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
    --data-binary @"$tmp/$1.json" "$url/apis/kubeflow.org/v1alpha1/namespaces/default/dgljobs")
  [ "$code" = 201 ] || fail "POST of $1 answered $code"
}
submit first
wait_for 30 grep -q 'create pods default/first-' "$tmp/a.err" || fail "the leader did not reconcile the first job"
if grep -qE '^[^ ]+ (create|update|patch|delete)' "$tmp/b.err"; then fail "the follower wrote while not leading"; fi

# Every version of the Lease from here on, as a watch sees it: the property below is checked on
# the times the candidates wrote into it, not on this script's clock (on a loaded machine the
# leader's last renewal can come well before the kill).
leases="$url/apis/coordination.k8s.io/v1/namespaces/default/leases"
curl -sN "$leases?watch=1" >"$tmp/lease.watch" &
watch_pid=$!
wait_for 10 grep -q '"holderIdentity":"a"' "$tmp/lease.watch" || fail "the Lease watch shows no version held by a"

# Kill the leader without letting it release the Lease: the follower must wait for it to expire.
killed_at=$(date +%s.%N)
kill -KILL "$a_pid"
wait "$a_pid" 2>/dev/null
a_pid=""
wait_for $((lease + 15)) grep -q 'became the leader' "$tmp/b.err" || fail "the second candidate never took over"
took=$(awk -v a="$killed_at" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
wait_for 10 grep -q '"holderIdentity":"b"' "$tmp/lease.watch" || fail "the Lease watch never showed b holding it"
kill "$watch_pid" 2>/dev/null
wait "$watch_pid" 2>/dev/null
# The property: b acquired the Lease at least a lease duration after a last renewed it. b measures
# the expiry from when it saw a's last renewal, and takes its clock reading just before that read,
# so a's stamp may be later than b's sighting by one request's latency: 0.6 s of slack.
seconds() { date -u -d "$1" +%s.%N; }
last_renew=$(jq -r 'select(.object.metadata.name == "dgl-operator" and .object.spec.holderIdentity == "a") | .object.spec.renewTime' "$tmp/lease.watch" | tail -1)
acquired=$(jq -r 'select(.object.metadata.name == "dgl-operator" and .object.spec.holderIdentity == "b") | .object.spec.acquireTime' "$tmp/lease.watch" | head -1)
[ -n "$last_renew" ] && [ -n "$acquired" ] || fail "the Lease versions lack renewTime or acquireTime: $(cat "$tmp/lease.watch")"
gap=$(awk -v a="$(seconds "$last_renew")" -v b="$(seconds "$acquired")" 'BEGIN { printf "%.2f", b - a }')
awk -v g="$gap" -v l="$lease" 'BEGIN { exit !(g >= l - 0.6) }' ||
  fail "b acquired the Lease at $acquired, ${gap}s after a last renewed it at $last_renew: before the ${lease}s lease could expire"
[ "$(holder)" = b ] || fail "the Lease is held by [$(holder)] after the takeover"
echo "takeover ${took}s after the leader was killed, ${gap}s after its last renewal (lease ${lease}s)"

submit second
wait_for 30 grep -q 'create pods default/second-' "$tmp/b.err" || fail "the new leader did not reconcile the next job"

kill -TERM "$b_pid"
wait "$b_pid"
code=$?
b_pid=""
[ "$code" -eq 0 ] || fail "the leader exited $code after SIGTERM"
grep -q 'released the lease' "$tmp/b.err" || fail "the leader did not release the Lease on SIGTERM"
[ "$(holder)" = "" ] || fail "the Lease still names [$(holder)] after release"
echo "PASS: one leader at a time, takeover only once the lease expired, release on SIGTERM"
