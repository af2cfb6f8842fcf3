#!/usr/bin/env bash
# End to end over real HTTP: `dglsim serve --no-operator` runs a simulated cluster behind the fake
# API server, `dgl-operator --server URL` runs as a process of its own, a DGLJob is POSTed with curl,
# and the job must end exactly as the same job does with the operator inside the simulation
# (`dglsim run`): Succeeded, no restarts, the same conditions and the worker ipconfig in order;
# every write of the operator carries its field manager, dgl-operator.
# Then both processes stop cleanly on SIGTERM.
# Usage: operator_http_e2e_test.sh DGLSIM DGL_OPERATOR DATA_DIR   (CTest passes all three)
#
# The simulation runs at --speed 10 (10 simulated seconds per wall second), not max: simulated
# time does not wait for an operator outside the simulation, so at max speed a partitioner gives up
# waiting for the launcher's address (2 s retries, 150 attempts) before a wall-clock operator has
# written it. Not 30 either: on a loaded machine (load 16 on two cores, sanitized build) each of the
# operator's writes took 0.3 to 1 s of wall time, up to half a simulated minute at 30x, and the
# launcher started before its hostfile named the workers (exit 1, one restart). At 10x the test
# passed there in 33 s.
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

if ! "$dglsim" --help 2>/dev/null | grep -qE '^\s+serve\b'; then
  echo "SKIP: this dglsim has no 'serve' subcommand"
  exit 77
fi

tmp=$(mktemp -d)
serve_pid=""
operator_pid=""
cleanup() {
  # Only the two processes this script started, by pid.
  [ -n "$operator_pid" ] && kill -KILL "$operator_pid" 2>/dev/null
  [ -n "$serve_pid" ] && kill -KILL "$serve_pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT

fail() {
  echo "FAIL: $*"
  for f in serve.out serve.err operator.err; do
    [ -s "$tmp/$f" ] && sed "s/^/  $f: /" "$tmp/$f" | tail -40
  done
  exit 1
}

source "$(dirname "${BASH_SOURCE[0]}")/serve_lib.sh"  # wait_for, start_serve

# exited PID: the child is gone or a zombie waiting to be reaped.
exited() {
  local state
  state=$(ps -o stat= -p "$1" 2>/dev/null) || return 0
  [[ "$state" == Z* ]]
}

# stop NAME PID: SIGTERM, then the process must exit 0 within 10 s.
stop() {
  local name=$1 pid=$2
  kill -TERM "$pid" 2>/dev/null || fail "$name (pid $pid) was no longer running"
  wait_for 10 exited "$pid" || fail "$name did not exit within 10 s of SIGTERM"
  wait "$pid"
  local code=$?
  [ "$code" -eq 0 ] || fail "$name exited $code after SIGTERM"
}

job=arxiv-e2e
scenario="$data/operator_http_e2e.yaml"
manifest="$data/operator_http_e2e_job.json"

# --- in-process reference: the same cluster, the same job, the operator inside the simulation ---
{
  cat "$scenario"
  echo "jobs:"
  echo "  - at: 0s"
  echo "    inline: $(jq -c . "$manifest")"
  echo "expect:"
  echo "  - {job: $job, phase: Succeeded}"
  echo "  - {job: $job, restarts: 0}"
  echo "  - {job: $job, condition: Succeeded}"
} >"$tmp/in-process.yaml"
"$dglsim" run --quiet "$tmp/in-process.yaml" >"$tmp/in-process.out" 2>&1 ||
  { cat "$tmp/in-process.out"; fail "the job does not succeed in-process; the HTTP comparison would mean nothing"; }

# --- the API server ---
start_serve "$dglsim" "$scenario" --speed 10 --no-operator
api="$url/apis/kubeflow.org/v1alpha1/namespaces/default/dgljobs"

# --- the operator, out of process ---
"$operator" --server "$url" --resync 10s 2>"$tmp/operator.err" &
operator_pid=$!
wait_for 10 grep -q 'dgl-operator starting' "$tmp/operator.err" || fail "dgl-operator did not start"

code=$(curl -s -o "$tmp/created.json" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
  --data-binary @"$manifest" "$api")
[ "$code" = 201 ] || fail "POST the DGLJob answered $code: $(cat "$tmp/created.json")"

phase() { curl -s "$api/$job" | jq -r '.status.phase // ""'; }
terminal() {
  local p
  p=$(phase)
  [ "$p" = Succeeded ] || [ "$p" = Failed ]
}
wait_for 120 terminal || fail "the job did not finish within 120 s (phase: $(phase))"

curl -s "$api/$job" >"$tmp/job.json"
[ "$(jq -r .status.phase "$tmp/job.json")" = Succeeded ] ||
  fail "the job ended $(jq -c .status "$tmp/job.json"), in-process it Succeeded"
[ "$(jq -r '.status.restartCount // 0' "$tmp/job.json")" = 0 ] ||
  fail "restartCount $(jq .status.restartCount "$tmp/job.json"), in-process 0; conditions $(jq -c .status.conditions "$tmp/job.json"); events: $(curl -s "$url/api/v1/namespaces/default/events" | jq -c '[.items[] | {reason, message}]')"
[ "$(jq -r '.status.conditions[] | select(.type=="Succeeded") | .status' "$tmp/job.json")" = True ] ||
  fail "no Succeeded=True condition: $(jq -c .status.conditions "$tmp/job.json")"
[ "$(jq -r '.status.completionTime // ""' "$tmp/job.json")" != "" ] || fail "no completionTime"

# The operator's ConfigMap names both workers, in index order.
curl -s "$url/api/v1/namespaces/default/configmaps/$job-config" | jq -r '.data.ipconfig' >"$tmp/ipconfig"
awk 'NF {print $4}' "$tmp/ipconfig" | paste -sd' ' | grep -qx "$job-worker-0 $job-worker-1" ||
  fail "ipconfig is not worker-0 then worker-1: $(cat "$tmp/ipconfig")"

# Every write of the operator names it as field manager: the objects it made are owned
# by dgl-operator alone, and the job's status by dgl-operator through the status subresource.
managers() { curl -s "$url/$1" | jq -r '[.metadata.managedFields[]? | "\(.manager)/\(.operation)/\(.subresource // "")"] | unique | join(" ")'; }
for made in "api/v1/namespaces/default/configmaps/$job-config" "api/v1/namespaces/default/pods/$job-launcher"; do
  [ "$(managers "$made")" = "dgl-operator/Update/" ] || fail "$made: managedFields [$(managers "$made")], expected dgl-operator/Update/ only"
done
grep -qw "dgl-operator/Update/status" <<<"$(managers "${api#"$url/"}/$job")" ||
  fail "the job's managedFields [$(managers "${api#"$url/"}/$job")] have no dgl-operator/Update/status"

# Its writes went over HTTP, logged one line each.
grep -q "create pods default/$job-launcher: ok" "$tmp/operator.err" || fail "the operator log has no launcher creation"
grep -q "update status (phase Succeeded) dgljobs default/$job: ok" "$tmp/operator.err" ||
  fail "the operator log has no Succeeded status update"
if grep -qE 'AddressSanitizer|runtime error:|terminate called|LeakSanitizer' "$tmp/operator.err"; then
  fail "the operator reported a sanitizer error"
fi

stop dgl-operator "$operator_pid"
operator_pid=""
grep -q 'dgl-operator stopped' "$tmp/operator.err" || fail "the operator did not log its clean stop"
stop "dglsim serve" "$serve_pid"
serve_pid=""
echo "PASS: $job Succeeded over HTTP with the operator out of process, as in-process"
