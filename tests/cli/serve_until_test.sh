#!/usr/bin/env bash
# `dglsim serve --speed max` stops simulated time where `dglsim run` stops it, and kubectl then shows
# what the run reports: scenarios/node-lost-worker-unschedulable.yaml (a job one GPU node short for
# good, waiting for ever) stops at its until (3h), not years later; the job's age reads 3h; its
# phase and every pod's phase are the run's; the job's condition names the unschedulable worker and
# the scheduler's reason, as the run's closing notes do. Also: --audit-log writes kubectl's
# requests and the simulated components' calls in kube-apiserver's audit format.
#
# Usage: serve_until_test.sh DGLSIM SCENARIO
# Exits 77 (CTest SKIP_RETURN_CODE) when kubectl is not installed.
set -uo pipefail
dglsim=${1:?usage: serve_until_test.sh DGLSIM SCENARIO}
scenario=${2:?usage: serve_until_test.sh DGLSIM SCENARIO}
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v kubectl >/dev/null 2>&1; then
  echo "SKIP: kubectl not found on PATH"
  exit 77
fi
tmp=$(mktemp -d)
serve_pid=
trap '[ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT
failures=0
source "$here/dglsim_lib.sh"   # fail, run, expect_line
source "$here/kubectl_lib.sh"  # pass, expect_in
source "$here/serve_lib.sh"    # wait_for, start_serve
export HOME=$tmp/home KUBECONFIG=$tmp/none
mkdir -p "$HOME"

run run 0 run "$scenario"
start_serve "$dglsim" "$scenario" --speed max --audit-log "$tmp/audit.log"
wait_for 120 grep -q '^simulated time stopped at ' "$tmp/serve.out" || fail "serve: simulated time never stopped"
expect_in "serve: time stops at until" "$(cat "$tmp/serve.out")" "simulated time stopped at 3h: the scenario's until (3h)"
k() { kubectl --server "$url" "$@" 2>&1; }
jobs=$(k get dgljobs)
expect_re "the job's age is the run's 3h, its phase and restarts the run's" "$jobs" '^sage +Partitioned +DGL-API +3 +1 +3h$'
# Every pod's phase is the one the run's closing notes give (the notes list the pods not done).
pods=$(k get pods -o jsonpath='{range .items[*]}{.metadata.name} {.status.phase}{"\n"}{end}')
while read -r name phase; do
  [ -z "$name" ] && continue
  case "$phase" in
    Succeeded|Failed) continue ;;
  esac
  grep -qF "waits on pod default/$name, $phase" "$tmp/run.out" ||
    fail "kubectl shows pod $name $phase; the run's notes do not: $(grep -F "$name" "$tmp/run.out")"
done <<<"$pods"
expect_in "kubectl: the pods the run names" "$pods" "sage-worker-2 Pending" "sage-worker-0 Running" "sage-launcher Pending"
message=$(k get dgljob sage -o jsonpath='{.status.conditions[?(@.type=="Partitioned")].message}')
expect_in "the condition names the unschedulable worker and the scheduler's reason" "$message" \
  "waiting for the workers: pod sage-worker-2 is unschedulable: 0/4 nodes are available" "Insufficient nvidia.com/gpu"
restarting=$(k get dgljob sage -o jsonpath='{.status.conditions[?(@.type=="Restarting")].message}')
expect_in "the ended Restarting condition says so" "$restarting" "No longer Restarting: the job moved on to Pending"
kill "$serve_pid"
wait "$serve_pid"
serve_pid=
grep -q '"username":"system:admin".*"verb":"list"\|"verb":"list".*"username":"system:admin"' "$tmp/audit.log" ||
  grep -q '"username":"system:admin"' "$tmp/audit.log" || fail "audit: kubectl's requests are not in the audit log"
grep -q '"username":"system:kube-scheduler"' "$tmp/audit.log" || fail "audit: the scheduler's calls are not in the audit log"
grep -q '"requestURI":"/apis/kubeflow.org/v1alpha1/namespaces/default/dgljobs/sage"' "$tmp/audit.log" ||
  fail "audit: kubectl's get of the job is not in the audit log"

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "serve until: all checks passed"
