#!/usr/bin/env bash
# The real control plane of scripts/control-plane.sh, started and stopped as the tests that use it
# do: `up DIR --with scheduler,controller-manager,kwok` must leave every component ready; the
# kubeconfig it writes must be all that the built kubectl, the kubectl on PATH and the official
# Python client need; /version must report the pinned release; RBAC must be on; kube-scheduler must
# bind pods to a KWOK node and kwok must end them as their annotations say (the stages of
# tests/controlplane/kwok-stages.yaml: Succeeded, Failed with exit code 3) and remove a deleted one; the audit log must record the requests; and `down DIR` must
# leave no process and no listening port behind.
# Skipped (exit 77) when the control plane is not built (no Go, or `control-plane.sh build` not run).
# Usage: smoke_test.sh SOURCE_DIR
set -uo pipefail
src=${1:?usage: $0 SOURCE_DIR}
cp="bash $src/scripts/control-plane.sh"

bin=$($cp bindir) || { echo "SKIP: the control plane is not built (needs Go; bash scripts/control-plane.sh build)"; exit 77; }
release=$($cp version)
tmp=$(mktemp -d)
dir=$tmp/cp
cleanup() { $cp down "$dir" >/dev/null 2>&1; rm -rf "$tmp"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; for f in "$dir"/logs/*.log; do echo "--- $f"; tail -n 15 "$f"; done; exit 1; }

# wait_for SECONDS COMMAND...: polls until COMMAND succeeds.
wait_for() {
  local deadline=$((SECONDS + $1))
  shift
  until "$@" >/dev/null 2>&1; do
    [ $SECONDS -lt $deadline ] || return 1
    sleep 0.5
  done
}

$cp up "$dir" --with scheduler,controller-manager,kwok || fail "up failed"
for f in kubeconfig server token ports audit.log; do [ -s "$dir/$f" ] || fail "up wrote no $dir/$f"; done
server=$(cat "$dir/server")
[[ "$server" == https://127.0.0.1:* ]] || fail "server is '$server', not https on loopback"
mapfile -t pids < <(cat "$dir"/pids/*)
[ "${#pids[@]}" = 5 ] || fail "expected 5 processes (etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok), pid files: $(ls "$dir/pids")"

k() { "$bin/kubectl" --kubeconfig "$dir/kubeconfig" "$@"; }
version=$(k get --raw /version | jq -r .gitVersion)
[ "$version" = "$release" ] || fail "/version reports '$version', the pinned release is $release"
k version -o json | jq -e --arg v "$release" '.clientVersion.gitVersion == $v' >/dev/null ||
  fail "the built kubectl reports $(k version -o json | jq -c .clientVersion)"
if command -v kubectl >/dev/null 2>&1; then
  [ "$(kubectl --kubeconfig "$dir/kubeconfig" get --raw /version | jq -r .gitVersion)" = "$release" ] ||
    fail "the kubectl on PATH does not accept $dir/kubeconfig alone"
fi
if /usr/bin/python3 -c 'import kubernetes' 2>/dev/null; then
  got=$(/usr/bin/python3 -c '
import sys
from kubernetes import client, config
config.load_kube_config(config_file=sys.argv[1])
print(client.VersionApi().get_code().git_version)' "$dir/kubeconfig") || fail "the Python client refused $dir/kubeconfig"
  [ "$got" = "$release" ] || fail "the Python client read version '$got'"
fi

# RBAC is enforced: an unknown token is 401, a service account without roles is 403.
code=$(curl -s -o /dev/null -w '%{http_code}' --cacert "$dir/pki/ca.crt" -H 'Authorization: Bearer nope' "$server/api/v1/pods")
[ "$code" = 401 ] || fail "an unknown token got $code, not 401"
k create serviceaccount nobody >/dev/null || fail "create serviceaccount"
sa_token=$(k create token nobody) || fail "create token"
code=$(curl -s -o /dev/null -w '%{http_code}' --cacert "$dir/pki/ca.crt" -H "Authorization: Bearer $sa_token" "$server/api/v1/namespaces/default/pods")
[ "$code" = 403 ] || fail "a service account without roles listed pods: $code, not 403"

# A KWOK node, and a pod kube-scheduler binds to it and kwok runs to Succeeded.
k apply -f - >/dev/null <<'YAML' || fail "create the node"
apiVersion: v1
kind: Node
metadata:
  name: kwok-node-0
  annotations: {kwok.x-k8s.io/node: fake}
  labels: {type: kwok}
spec:
  taints: []
YAML
wait_for 60 k wait --for=condition=Ready node/kwok-node-0 --timeout=1s || fail "the KWOK node never became Ready"
# The default ServiceAccount comes from kube-controller-manager; pods are refused until it exists.
wait_for 60 k get serviceaccount default || fail "kube-controller-manager created no default ServiceAccount"
k apply -f - >/dev/null <<'YAML' || fail "create the pods"
apiVersion: v1
kind: Pod
metadata:
  name: smoke
  annotations: {dglsim.io/duration: 1s}
spec:
  restartPolicy: Never
  containers: [{name: main, image: busybox}]
---
apiVersion: v1
kind: Pod
metadata:
  name: smoke-fails
  annotations: {dglsim.io/duration: 1s, dglsim.io/exit-code: "3"}
spec:
  restartPolicy: Never
  containers: [{name: main, image: busybox}]
YAML
phase() { k get pod "$1" -o jsonpath='{.status.phase}'; }
ended() { [ "$(phase smoke)" = Succeeded ] && [ "$(phase smoke-fails)" = Failed ]; }
wait_for 60 ended || fail "the pods did not end as annotated: $(k get pods -o json | jq -c '[.items[] | {name: .metadata.name, node: .spec.nodeName, status: .status}]')"
[ "$(k get pod smoke -o jsonpath='{.spec.nodeName}')" = kwok-node-0 ] || fail "the pod was not bound to kwok-node-0"
exit_code() { k get pod "$1" -o jsonpath='{.status.containerStatuses[0].state.terminated.exitCode}'; }
[ "$(exit_code smoke)" = 0 ] || fail "the container of smoke exited $(exit_code smoke), not 0"
[ "$(exit_code smoke-fails)" = 3 ] || fail "the container of smoke-fails exited $(exit_code smoke-fails), not 3"
k delete pod smoke --wait=true --timeout=30s >/dev/null || fail "a deleted pod was not removed (kwok's pod-delete stage)"
grep -q '"resource":"pods"' "$dir/audit.log" || fail "the audit log recorded no pod request"

# down leaves nothing behind.
mapfile -t ports < <(awk '{print $2}' "$dir/ports")
$cp down "$dir" || fail "down failed"
# A process that has exited may stay a zombie for a moment, until init reaps it: not running.
running() { local state; state=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) && [ "$state" != Z ]; }
for pid in "${pids[@]}"; do
  if running "$pid"; then fail "process $pid ($(cat /proc/"$pid"/comm 2>/dev/null)) is still running after down"; fi
done
listening=$(ss -Hltn | awk '{print $4}')
for port in "${ports[@]}"; do
  if grep -qE "[:.]$port\$" <<<"$listening"; then fail "port $port is still listening after down"; fi
done
[ -z "$(ls -A "$dir/pids")" ] || fail "pid files left: $(ls "$dir/pids")"
$cp down "$dir" || fail "a second down failed"
echo "PASS: control plane $release up, used by kubectl, Python, kube-scheduler and kwok, and down without a trace"
