#!/usr/bin/env bash
# dgl-operator as a Deployment's kubelet and a Prometheus see it, against `dglsim serve --no-operator`:
# - probes before and after sync: started before its API server exists, the operator is live
#   (/healthz 200) and not ready (/readyz 500, "[-]informers failed"); once the server is up and its
#   informers have listed, /readyz is 200;
# - metrics: after a DGLJob has run to Succeeded, a scrape of /metrics parses as the Prometheus text
#   format (check_metrics.py, and `promtool check metrics` where installed) and holds every family (controller-runtime's, the work queue's,
#   client-go's REST client's, the DGLJob counters) with the labels they are documented with;
# - logs: with --log-format json every stderr line is one JSON object with ts (RFC 3339, fraction of
#   a second, UTC), level and msg, and the lines written while reconciling name the DGLJob;
# - leader election: of two replicas with --leader-elect the standby is ready and shows
#   leader_election_master_status 0, the leader 1;
# - `dglsim serve` (with its own operator) serves the same families at /metrics.
# Usage: operator_observability_test.sh DGLSIM DGL_OPERATOR DATA_DIR   (CTest passes all three)
set -uo pipefail

dglsim=${1:?usage: $0 DGLSIM DGL_OPERATOR DATA_DIR}
operator=${2:?usage: $0 DGLSIM DGL_OPERATOR DATA_DIR}
data=${3:?usage: $0 DGLSIM DGL_OPERATOR DATA_DIR}
for tool in curl jq python3; do
  if ! command -v "$tool" >/dev/null; then
    echo "SKIP: $tool is not installed"
    exit 77
  fi
done
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

tmp=$(mktemp -d)
serve_pid=""
op_pid=""
a_pid=""
b_pid=""
cleanup() {
  # Only the processes this script started, by pid.
  for pid in "$op_pid" "$a_pid" "$b_pid" "$serve_pid"; do [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null; done
  rm -rf "$tmp"
}
trap cleanup EXIT

fail() {
  echo "FAIL: $*"
  for f in serve.err operator.err a.err b.err; do
    [ -s "$tmp/$f" ] && sed "s/^/  $f: /" "$tmp/$f" | tail -20
  done
  exit 1
}

source "$here/serve_lib.sh"  # wait_for, start_serve

# The URL a JSON log announces for "serving WHAT on URL" (metrics, probes).
served() {  # LOG WHAT
  jq -r --arg w "$2" 'select(.msg | startswith("serving " + $w + " on ")) | .msg | sub("^serving [a-z ]+ on "; "")' "$1" 2>/dev/null | head -1
}
code_of() { curl -s -o "$tmp/body" -w '%{http_code}' "$1"; }

# --- probes before and after sync ---------------------------------------------------------------
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
"$operator" --server "http://127.0.0.1:$port" --resync 10s --log-format json \
  --metrics-bind-address 127.0.0.1:0 --health-probe-bind-address 127.0.0.1:0 2>"$tmp/operator.err" &
op_pid=$!
announced() { [ -n "$(served "$tmp/operator.err" probes)" ]; }
wait_for 10 announced || fail "the operator did not log where its probes are"
probes=$(served "$tmp/operator.err" probes)
metrics=$(served "$tmp/operator.err" metrics)
[ -n "$metrics" ] && [ "$metrics" != "$probes" ] || fail "metrics [$metrics] and probes [$probes] should be two listeners"
[ "$(code_of "$probes/healthz")" = 200 ] || fail "/healthz before the API server exists: $(cat "$tmp/body")"
[ "$(code_of "$probes/readyz")" = 500 ] || fail "/readyz before sync answered 200"
grep -q '^\[-\]informers failed: not synced' "$tmp/body" || fail "/readyz before sync says: $(cat "$tmp/body")"
[ "$(code_of "$metrics/metrics")" = 200 ] || fail "/metrics before sync"
[ "$(code_of "$probes/metrics")" = 404 ] || fail "the probes listener serves /metrics too"

# The API server comes up on the port the operator has been trying (start_serve picks its own).
"$dglsim" serve "$data/operator_http_e2e.yaml" --port "$port" --speed 30 --no-operator >"$tmp/serve.out" 2>"$tmp/serve.err" &
serve_pid=$!
wait_for 30 grep -qs '^serving on ' "$tmp/serve.out" || fail "dglsim serve printed no 'serving on' line"
url=$(sed -n 's/^serving on //p' "$tmp/serve.out")
ready() { [ "$(code_of "$probes/readyz")" = 200 ]; }
wait_for 20 ready || fail "/readyz did not turn 200 after the server came up: $(cat "$tmp/body")"
[ "$(code_of "$probes/readyz?verbose")" = 200 ] && grep -q '^\[+\]informers ok' "$tmp/body" ||
  fail "/readyz?verbose: $(cat "$tmp/body")"

# --- a job to Succeeded, then the scrape ---------------------------------------------------------
api="$url/apis/kubeflow.org/v1alpha1/namespaces/default/dgljobs"
job=$(jq -r .metadata.name "$data/operator_http_e2e_job.json")
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
  --data-binary @"$data/operator_http_e2e_job.json" "$api")
[ "$code" = 201 ] || fail "POST the DGLJob answered $code"
phase() { curl -s "$api/$job" | jq -r '.status.phase // ""'; }
succeeded() { [ "$(phase)" = Succeeded ]; }
wait_for 120 succeeded || fail "the job did not succeed within 120 s (phase: $(phase))"
mode=$(jq -r '.spec.partitionMode // "DGL-API"' "$data/operator_http_e2e_job.json")
# The status update that marks success is seen through the watch a moment later.
jobl="job_namespace=\"default\",framework=\"dgl\",partition_mode=\"$mode\""
counted() { curl -s "$metrics/metrics" | grep -q "^training_operator_jobs_successful_total{$jobl} 1$"; }
wait_for 10 counted || fail "training_operator_jobs_successful_total is not 1"
curl -s -D "$tmp/headers" "$metrics/metrics" >"$tmp/scrape.txt"
grep -qi '^content-type: text/plain; version=0.0.4' "$tmp/headers" || fail "/metrics Content-Type: $(grep -i content-type "$tmp/headers")"
host="127.0.0.1:$port"
python3 "$here/check_metrics.py" "$tmp/scrape.txt" \
  family=controller_runtime_reconcile_total:counter:controller,result \
  family=controller_runtime_reconcile_errors_total:counter:controller \
  family=controller_runtime_reconcile_time_seconds:histogram:controller \
  family=controller_runtime_max_concurrent_reconciles:gauge:controller \
  family=controller_runtime_active_workers:gauge:controller \
  family=workqueue_depth:gauge:controller,name,priority \
  family=workqueue_adds_total:counter:controller,name \
  family=workqueue_retries_total:counter:controller,name \
  family=workqueue_queue_duration_seconds:histogram:controller,name \
  family=workqueue_work_duration_seconds:histogram:controller,name \
  family=workqueue_unfinished_work_seconds:gauge:controller,name \
  family=workqueue_longest_running_processor_seconds:gauge:controller,name \
  family=rest_client_requests_total:counter:code,method,host \
  family=rest_client_request_duration_seconds:histogram:verb,host \
  family=training_operator_jobs_created_total:counter:job_namespace,framework,partition_mode \
  family=training_operator_jobs_successful_total:counter:job_namespace,framework,partition_mode \
  family=dgl_operator_jobs_running:gauge:job_namespace,framework,partition_mode \
  family=dgl_operator_job_stage_duration_seconds:histogram:job_namespace,framework,partition_mode,stage \
  absent=leader_election_master_status \
  "value=controller_runtime_reconcile_total{controller=\"dgljob\",result=\"success\"}>0" \
  "value=controller_runtime_max_concurrent_reconciles{controller=\"dgljob\"}==1" \
  "value=workqueue_adds_total{controller=\"dgljob\",name=\"dgljob\"}>0" \
  "value=rest_client_requests_total{code=\"201\",method=\"POST\",host=\"$host\"}>0" \
  "value=rest_client_requests_total{code=\"200\",method=\"GET\",host=\"$host\"}>0" \
  "value=training_operator_jobs_created_total{$jobl}==1" \
  "value=training_operator_jobs_successful_total{$jobl}==1" \
  "value=dgl_operator_jobs_running{$jobl}==0" \
  "value=dgl_operator_job_stage_duration_seconds_count{$jobl,stage=\"training\"}==1" ||
  fail "the scrape does not hold what it should (above); $(wc -l <"$tmp/scrape.txt") lines"
# Prometheus's own linter too, where Debian's prometheus package has installed it.
if command -v promtool >/dev/null; then
  promtool check metrics <"$tmp/scrape.txt" || fail "promtool check metrics refuses the scrape"
fi

# --- the JSON log, line by line ------------------------------------------------------------------
kill -TERM "$op_pid"
wait "$op_pid" || fail "the operator did not exit 0 on SIGTERM"
op_pid=""
python3 - "$tmp/operator.err" "$job" <<'EOF' || fail "the JSON log does not hold what it should"
import json, re, sys
path, job = sys.argv[1], sys.argv[2]
lines = open(path).read().splitlines()
assert lines, "no log lines"
about_job = 0
for n, line in enumerate(lines, 1):
    obj = json.loads(line)  # every line one JSON object
    assert isinstance(obj, dict), "line %d is not an object" % n
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", obj.get("ts", "")), "line %d: ts %r" % (n, obj.get("ts"))
    assert obj.get("level") in ("info", "error"), "line %d: level %r" % (n, obj.get("level"))
    assert isinstance(obj.get("msg"), str) and obj["msg"], "line %d: no msg" % n
    assert obj.get("logger") == "dgl-operator", "line %d: logger %r" % (n, obj.get("logger"))
    if obj["level"] == "error":
        assert obj.get("error"), "line %d: an error line without error" % n
    if "DGLJob" in obj:
        assert obj["DGLJob"] == {"name": obj["name"], "namespace": obj["namespace"]}, "line %d" % n
        assert obj.get("controller") == "dgljob", "line %d: controller %r" % (n, obj.get("controller"))
        if obj["DGLJob"] == {"name": job, "namespace": "default"}:
            about_job += 1
assert about_job > 0, "no line names the DGLJob default/%s" % job
assert any(o["msg"].startswith("create pods default/%s-launcher" % job) for o in map(json.loads, lines))
print("ok: %d JSON log lines, %d about the job" % (len(lines), about_job))
EOF

# --- two replicas: the standby is ready, its leader status 0 -------------------------------------
start_replica() {  # NAME
  "$operator" --server "$url" --resync 10s --leader-elect --leader-elect-identity "$1" \
    --leader-elect-lease-duration 3s --leader-elect-renew-deadline 2s --leader-elect-retry-period 500ms \
    --metrics-bind-address 127.0.0.1:0 --health-probe-bind-address 127.0.0.1:0 2>"$tmp/$1.err" &
}
start_replica a
a_pid=$!
wait_for 10 grep -qs 'became the leader' "$tmp/a.err" || fail "a did not become the leader"
start_replica b
b_pid=$!
wait_for 10 grep -qs 'waiting (held by a)' "$tmp/b.err" || fail "b does not wait for a"
text_url() { sed -n "s/^[^ ]* serving $2 on //p" "$tmp/$1.err" | head -1; }  # NAME WHAT (text log)
[ "$(code_of "$(text_url b probes)/readyz")" = 200 ] || fail "the standby's /readyz: $(cat "$tmp/body")"
grep -q "standby" <<<"$(curl -s "$(text_url b probes)/readyz?verbose")" || fail "the standby's verbose /readyz does not say standby"
curl -s "$(text_url b metrics)/metrics" >"$tmp/b.txt"
curl -s "$(text_url a metrics)/metrics" >"$tmp/a.txt"
python3 "$here/check_metrics.py" "$tmp/b.txt" 'value=leader_election_master_status{name="dgl-operator"}==0' \
  absent=controller_runtime_reconcile_total || fail "the standby's scrape"
python3 "$here/check_metrics.py" "$tmp/a.txt" 'value=leader_election_master_status{name="dgl-operator"}==1' \
  family=leader_election_master_status:gauge:name || fail "the leader's scrape"
kill -TERM "$a_pid" "$b_pid"
wait "$a_pid" "$b_pid"
a_pid=""
b_pid=""
kill -TERM "$serve_pid"
wait "$serve_pid"
serve_pid=""

# --- dglsim serve's own operator, at the server's /metrics ---------------------------------------
rm -f "$tmp/serve.out"  # the next "serving on" line is the new server's
start_serve "$dglsim" "$data/operator_http_e2e.yaml" --speed max
api="$url/apis/kubeflow.org/v1alpha1/namespaces/default/dgljobs"
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
  --data-binary @"$data/operator_http_e2e_job.json" "$api")
[ "$code" = 201 ] || fail "POST the DGLJob to the served simulation answered $code"
wait_for 60 succeeded || fail "the served simulation's operator did not run the job (phase: $(phase))"
scraped() { curl -s "$url/metrics" >"$tmp/serve.txt" && grep -q "^training_operator_jobs_successful_total{$jobl} 1$" "$tmp/serve.txt"; }
wait_for 10 scraped || fail "dglsim serve's /metrics does not count the job's success"
python3 "$here/check_metrics.py" "$tmp/serve.txt" \
  family=controller_runtime_reconcile_total:counter:controller,result \
  family=workqueue_adds_total:counter:controller,name \
  family=rest_client_requests_total:counter:code,method,host \
  family=training_operator_jobs_successful_total:counter:job_namespace,framework,partition_mode \
  'value=rest_client_requests_total{code="201",method="POST",host="simulation"}>0' ||
  fail "dglsim serve's /metrics"
kill -TERM "$serve_pid"
wait "$serve_pid"
serve_pid=""
echo "ok: probes, metrics, JSON logs, leader status and dglsim serve's /metrics"
