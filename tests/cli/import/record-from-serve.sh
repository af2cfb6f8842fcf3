#!/usr/bin/env bash
# Records the evidence of tests/cli/import/serve-node-lost/ from `dglsim serve` with the real
# kubectl, as a user records it from a cluster (docs/reproducing-failures.md):
#   dglsim serve scenarios/node-lost-worker-unschedulable.yaml --speed max --audit-log ...
#   kubectl get dgljobs,pods,nodes,events,leases -A -o yaml   (and -o json)
# once simulated time has stopped at the scenario's until. The audit log is trimmed to kubectl's
# requests (they say when the dump was taken) and the writes of DGLJobs, Nodes and Leases (the
# components' other calls say nothing a replay needs) to keep the test data small.
#
# Usage: record-from-serve.sh DGLSIM OUT_DIR
set -euo pipefail
dglsim=${1:?usage: record-from-serve.sh DGLSIM OUT_DIR}
out=${2:?usage: record-from-serve.sh DGLSIM OUT_DIR}
here=$(cd "$(dirname "$0")" && pwd)
scenario=$here/../../../scenarios/node-lost-worker-unschedulable.yaml
tmp=$(mktemp -d)
fail() { echo "record-from-serve: $*" >&2; sed 's/^/  serve: /' "$tmp/serve.out" "$tmp/serve.err" >&2 || true; exit 1; }
source "$here/../serve_lib.sh"  # wait_for, start_serve
trap '[ -n "${serve_pid:-}" ] && kill "$serve_pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT
export HOME=$tmp/home KUBECONFIG=$tmp/none
mkdir -p "$HOME" "$out"
start_serve "$dglsim" "$scenario" --speed max --audit-log "$tmp/audit-full.log"
wait_for 120 grep -q '^simulated time stopped at ' "$tmp/serve.out" || fail "simulated time did not stop"
kubectl --server "$url" get dgljobs,pods,nodes,events,leases -A -o yaml >"$out/dump.yaml"
kubectl --server "$url" get dgljobs,pods,nodes,events,leases -A -o json >"$out/dump.json"
kill "$serve_pid"
wait "$serve_pid" || true
serve_pid=
grep -E '"username":"system:admin"|"resource":"(dgljobs|nodes|leases)".*"verb":"(create|update|patch|delete)"' \
  "$tmp/audit-full.log" >"$out/audit.log"
echo "recorded $(wc -l <"$out/audit.log") audit lines of $(wc -l <"$tmp/audit-full.log"), $(wc -c <"$out/dump.yaml") bytes of YAML in $out"
