#!/usr/bin/env bash
# `dglsim run --metrics FILE`: the in-simulation operator's metrics at the end of
# scenarios/operator-restart.yaml, where the operator crashes and restarts twice mid-job. The scrape
# parses as the Prometheus text format (check_metrics.py), counts the job once although three
# operator incarnations saw it (created 1, successful 1), measured both stages across the restarts,
# ends with an empty work queue and no running job, and is the same byte for byte on a second run.
# A path that cannot be written is refused before the run (exit 2).
# Usage: sim_metrics_test.sh DGLSIM SOURCE_DIR
set -uo pipefail
dglsim=${1:?usage: $0 DGLSIM SOURCE_DIR}
root=${2:?usage: $0 DGLSIM SOURCE_DIR}
command -v python3 >/dev/null || { echo "SKIP: python3 is not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

scenario=$root/scenarios/operator-restart.yaml
"$dglsim" run --quiet "$scenario" --metrics "$tmp/a.txt" || fail "dglsim run exited $?"
"$dglsim" run --quiet "$scenario" --metrics "$tmp/b.txt" || fail "dglsim run exited $? (second run)"
cmp -s "$tmp/a.txt" "$tmp/b.txt" || fail "two runs of one scenario and seed wrote different scrapes"
job='job_namespace="default",framework="dgl",partition_mode="DGL-API"'
python3 "$root/tests/cli/check_metrics.py" "$tmp/a.txt" \
  family=controller_runtime_reconcile_total:counter:controller,result \
  family=controller_runtime_reconcile_time_seconds:histogram:controller \
  family=workqueue_queue_duration_seconds:histogram:controller,name \
  family=rest_client_requests_total:counter:code,method,host \
  family=rest_client_request_duration_seconds:histogram:verb,host \
  family=dgl_operator_job_stage_duration_seconds:histogram:job_namespace,framework,partition_mode,stage \
  "value=training_operator_jobs_created_total{$job}==1" \
  "value=training_operator_jobs_successful_total{$job}==1" \
  "value=dgl_operator_jobs_running{$job}==0" \
  "value=dgl_operator_job_stage_duration_seconds_count{$job,stage=\"partitioning\"}==1" \
  "value=dgl_operator_job_stage_duration_seconds_count{$job,stage=\"training\"}==1" \
  "value=dgl_operator_job_stage_duration_seconds_sum{$job,stage=\"training\"}>=600" \
  'value=workqueue_depth{controller="dgljob",name="dgljob",priority=""}==0' \
  'value=controller_runtime_reconcile_total{controller="dgljob",result="success"}>0' \
  'value=rest_client_requests_total{code="201",method="POST",host="simulation"}>0' ||
  fail "the scrape does not hold what it should"
if command -v promtool >/dev/null; then  # Debian's prometheus package
  promtool check metrics <"$tmp/a.txt" || fail "promtool check metrics refuses the scrape"
fi
mkdir "$tmp/dir"
"$dglsim" run --quiet "$scenario" --metrics "$tmp/dir" 2>"$tmp/err"
[ $? = 2 ] || fail "--metrics to a directory did not exit 2"
grep -q "cannot write the metrics" "$tmp/err" || fail "no message for an unwritable --metrics: $(cat "$tmp/err")"
echo "ok: dglsim run --metrics"
