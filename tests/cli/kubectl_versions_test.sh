#!/usr/bin/env bash
# One kubectl version against `dglsim serve`: what a user of kubectl 1.27 to 1.33 does every day,
# run with that version's own binary (CTest runs this once per version, cli.kubectl_1.NN). version,
# wait (for a condition and for a deletion), get, get -w, describe, explain, create -f, the typed
# creates (`create configmap|namespace|serviceaccount|role|rolebinding|service`, which 1.32 and
# later send as protobuf), apply (client-side, then server-side), apply --dry-run=server, diff,
# get --chunk-size, patch (merge, strategic and JSON),
# logs (--tail, -f), `auth can-i` and `auth whoami` (protobuf reviews from 1.32 on) and delete.
# tests/cli/kubectl_e2e_test.sh goes deeper with the kubectl on PATH; this one goes wide.
#
# Usage: kubectl_versions_test.sh DGLSIM MINOR DATA_DIR   (DATA_DIR: tests/cli/kubectl-e2e)
# Exits 77 (CTest SKIP_RETURN_CODE) when kubectl 1.MINOR is not installed (kubectl_lib.sh says where
# it is looked for; DGLSIM_KUBECTL_DIR adds a folder).
set -uo pipefail

dglsim=${1:?usage: $0 DGLSIM MINOR DATA_DIR}
minor=${2:?usage: $0 DGLSIM MINOR DATA_DIR}
data=${3:?usage: $0 DGLSIM MINOR DATA_DIR}
here=$(cd "$(dirname "$0")" && pwd)
source "$here/dglsim_lib.sh"
source "$here/kubectl_lib.sh"
source "$here/serve_lib.sh"

if ! kubectl=$(kubectl_of_minor "$minor"); then
  echo "SKIP: kubectl 1.$minor is not installed (no kubectl.1.$minor beside kubectl, in the Google Cloud SDK or in \$DGLSIM_KUBECTL_DIR)"
  exit 77
fi

tmp=$(mktemp -d)
serve_pid=""
watch_pid=""
cleanup() {
  # Only the processes this script started, by pid.
  [ -n "$watch_pid" ] && kill "$watch_pid" 2>/dev/null
  [ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null && wait "$serve_pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
failures=0
# A fresh HOME and an empty kubeconfig (kubectl 1.27 warns about a missing one on every command): no
# credentials, no discovery cached from another server that had this port.
export HOME=$tmp/home KUBECONFIG=$tmp/kubeconfig
mkdir -p "$HOME"
printf 'apiVersion: v1\nkind: Config\n' >"$KUBECONFIG"

start_serve "$dglsim" "$data/scenario.yaml" --speed max
[ -n "${url:-}" ] || { cat "$tmp/serve.err"; exit 1; }
echo "kubectl 1.$minor ($kubectl) against $url"
k() { timeout -k 5 60 "$kubectl" --server "$url" --cache-dir "$tmp/cache" --request-timeout 20s "$@" 2>&1; }

# --- reads ----------------------------------------------------------------------------------------
out=$(k version -o json)
expect_in "version: this client, the server's 1.32" "$out" "\"gitVersion\": \"v1.$minor." "\"gitVersion\": \"v1.32"
out=$(k wait dgljob/seeded --for=condition=Succeeded --timeout=60s)
expect_in "wait --for=condition: the scenario's job succeeds" "$out" "dgljob.kubeflow.org/seeded condition met"
out=$(k get dgljobs)
expect_re "get dgljobs: the server's columns" "$out" "^seeded +Succeeded +Skip +0 +[0-9]"
out=$(k get pods -o wide)
expect_re "get pods -o wide: the launcher ran on gpu-0" "$out" "^seeded-launcher +0/1 +Completed +0 .* gpu-0"
out=$(k describe dgljob seeded)
expect_in "describe: the object and its events" "$out" "Kind:" "DGLJob" "Events:" "DGLJobCreated"
out=$(k explain dgljob.spec.partitionMode)
expect_re "explain: the CRD's schema (OpenAPI v2 for 1.27 and 1.28, v3 after)" "$out" "^FIELD: +partitionMode"

# --- logs -----------------------------------------------------------------------------------------
out=$(k logs seeded-launcher)
[ "$(grep -c . <<<"$out")" -ge 2 ] && pass "logs: the launcher's lines" || fail "logs: expected lines, got [$out]"
out=$(k logs seeded-launcher --tail=1)
[ "$(grep -c . <<<"$out")" -eq 1 ] && pass "logs --tail=1: one line" || fail "logs --tail=1: got [$out]"
out=$(k logs -f seeded-launcher)
code=$?
[ "$code" -eq 0 ] && [ -n "$out" ] && pass "logs -f: ends with the finished container" || fail "logs -f: exit $code, [$out]"

# --- writes ---------------------------------------------------------------------------------------
# A watch of configmaps sees the typed create (protobuf from 1.32 on) that follows.
timeout -k 5 30 "$kubectl" --server "$url" --cache-dir "$tmp/cache" get configmaps -w >"$tmp/watch.out" 2>&1 &
watch_pid=$!
wait_for 20 grep -q "^NAME" "$tmp/watch.out" || fail "get -w printed no table"
out=$(k create configmap e2e-typed --from-literal=k=v)
expect_in "create configmap (typed)" "$out" "configmap/e2e-typed created"
wait_for 20 grep -q "^e2e-typed " "$tmp/watch.out" && pass "get -w: the new configmap's row streamed" ||
  { fail "get -w: no row for e2e-typed"; sed 's/^/    | /' "$tmp/watch.out"; }
kill "$watch_pid" 2>/dev/null
wait "$watch_pid" 2>/dev/null
watch_pid=""
out=$(k get configmap e2e-typed -o jsonpath='{.data.k}')
expect_re "the typed create stored its data" "$out" "^v$"

out=$(k auth can-i create pods)
expect_re "auth can-i create pods" "$out" "^yes$"
out=$(k auth can-i --list)
expect_in "auth can-i --list" "$out" "*.*"
out=$(k auth whoami)
expect_in "auth whoami (SelfSubjectReview: v1beta1 for 1.27, v1 after, protobuf from 1.32 on)" "$out" "system:anonymous"

while IFS='|' read -r args created; do
  out=$(k create $args </dev/null)
  expect_in "create ${args%% *} (typed)" "$out" "$created"
done <<'TYPED'
namespace e2e-ns|namespace/e2e-ns created
serviceaccount e2e-sa|serviceaccount/e2e-sa created
role e2e-role --verb=get,list --resource=pods|role.rbac.authorization.k8s.io/e2e-role created
rolebinding e2e-rb --role=e2e-role --serviceaccount=default:e2e-sa|rolebinding.rbac.authorization.k8s.io/e2e-rb created
service clusterip e2e-svc --tcp=80:8080|service/e2e-svc created
TYPED
out=$(k get rolebinding e2e-rb -o jsonpath='{.subjects[0].name}/{.roleRef.name}')
expect_in "the typed rolebinding's subject and role" "$out" "e2e-sa/e2e-role"
out=$(k get service e2e-svc -o jsonpath='{.spec.ports[0].port}/{.spec.ports[0].targetPort}')
expect_in "the typed service's ports" "$out" "80/8080"

out=$(k create -f "$data/job.yaml")
expect_in "create -f" "$out" "dgljob.kubeflow.org/e2e-created created"
out=$(k apply -f "$data/configmap.yaml")
expect_in "apply -f (new)" "$out" "configmap/e2e-settings created"
sed 's/epochs: "1"/epochs: "3"/' "$data/configmap.yaml" >"$tmp/configmap2.yaml"
out=$(k apply -f "$tmp/configmap2.yaml")
expect_in "apply -f (changed): a strategic merge patch" "$out" "configmap/e2e-settings configured"
out=$(k apply --server-side --force-conflicts -f "$data/configmap.yaml")
expect_in "apply --server-side" "$out" "configmap/e2e-settings serverside-applied"
# What people run before a change: a server dry run and diff (both send dryRun=All).
sed 's/e2e-settings/e2e-dry/' "$data/configmap.yaml" >"$tmp/dry.yaml"
out=$(k apply --dry-run=server -f "$tmp/dry.yaml")
expect_in "apply --dry-run=server" "$out" "configmap/e2e-dry created (server dry run)"
out=$(k get configmap e2e-dry)
expect_in "a server dry run stores nothing" "$out" "NotFound"
out=$(k diff -f "$tmp/configmap2.yaml")
code=$?
expect_in "diff: the change a manifest would make" "$out" '-  epochs: "1"' '+  epochs: "3"'
[ "$code" -eq 1 ] && pass "diff exits 1 when there are differences" || fail "diff exited $code"
out=$(k get configmaps --chunk-size=1 -o name)
expect_in "get --chunk-size=1 pages through every object" "$out" "configmap/e2e-typed" "configmap/e2e-settings"

out=$(k patch dgljob e2e-created --type=merge -p '{"metadata":{"labels":{"stage":"patched"}}}')
expect_in "patch --type=merge" "$out" "dgljob.kubeflow.org/e2e-created patched"
out=$(k patch configmap e2e-settings -p '{"data":{"mode":"DGL-API"}}')
expect_in "patch (strategic)" "$out" "configmap/e2e-settings patched"
out=$(k patch configmap e2e-settings --type=json -p '[{"op":"remove","path":"/data/epochs"}]')
expect_in "patch --type=json" "$out" "configmap/e2e-settings patched"
out=$(k get configmap e2e-settings -o jsonpath='{.data}')
expect_in "the patches are stored" "$out" '"mode":"DGL-API"'
grep -q epochs <<<"$out" && fail "patch --type=json did not remove data.epochs: [$out]"
out=$(k get dgljob e2e-created -o jsonpath='{.metadata.labels.stage}')
expect_in "the merge patch is stored" "$out" "patched"

# --- delete ---------------------------------------------------------------------------------------
out=$(k delete dgljob e2e-created --wait=false)
expect_in "delete" "$out" 'dgljob.kubeflow.org "e2e-created" deleted'
out=$(k wait --for=delete pod/e2e-created-launcher --timeout=60s)
code=$?
[ "$code" -eq 0 ] && pass "wait --for=delete: the deleted job's pod goes" || fail "wait --for=delete: exit $code, [$out]"
out=$(k delete -f "$data/configmap.yaml")
expect_in "delete -f" "$out" 'configmap "e2e-settings" deleted'
out=$(k get dgljob e2e-created)
expect_in "a deleted object is NotFound" "$out" 'Error from server (NotFound): dgljobs.kubeflow.org "e2e-created" not found'

if ! kill -0 "$serve_pid" 2>/dev/null; then fail "dglsim serve died"; fi
if grep -qE 'AddressSanitizer|LeakSanitizer|runtime error:|terminate called' "$tmp/serve.err"; then
  fail "dglsim serve reported a crash or a sanitizer error"
fi
if [ "$failures" -gt 0 ]; then
  echo "kubectl 1.$minor: $failures check(s) failed"
  sed 's/^/  serve stderr: /' "$tmp/serve.err" | tail -40
  exit 1
fi
echo "kubectl 1.$minor: all checks passed"
