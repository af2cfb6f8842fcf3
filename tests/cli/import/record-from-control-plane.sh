#!/usr/bin/env bash
# Records the evidence of tests/cli/import/realk8s-node-lost/ from a real control plane
# (scripts/control-plane.sh: kube-apiserver with its audit log, kube-scheduler,
# kube-controller-manager, kwok) with dgl-operator running against it, as a user records it from a
# cluster (docs/reproducing-failures.md): three 4-GPU KWOK nodes and a CPU one, the DGLJob of
# job.yaml (three 4-GPU workers), and, once it trains, the node of its third worker deleted for
# good; then `kubectl get dgljobs,pods,nodes,events,leases -A -o yaml` and the audit log, trimmed
# to kubectl's requests and the writes of DGLJobs and Nodes (as kube-apiserver logged them: with
# request and response bodies, the control plane's audit policy for those kinds).
#
# Usage: record-from-control-plane.sh CONTROL_PLANE_SH DGL_OPERATOR OUT_DIR
set -euo pipefail
cp_sh=${1:?usage: record-from-control-plane.sh CONTROL_PLANE_SH DGL_OPERATOR OUT_DIR}
operator=${2:?usage}
out=${3:?usage}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
dir=$(mktemp -d)
op_pid=
cleanup() {
  [ -n "$op_pid" ] && kill "$op_pid" 2>/dev/null
  wait 2>/dev/null
  bash "$cp_sh" down "$dir" >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap cleanup EXIT
bash "$cp_sh" up "$dir" --with scheduler,controller-manager,kwok
export KUBECONFIG=$dir/kubeconfig
kubectl apply -f "$root/deploy/crd.yaml" -f "$root/deploy/rbac.yaml" >/dev/null
node() { # name cpu memory gpus
  local gpu=""
  [ "$4" != 0 ] && gpu=", nvidia.com/gpu: \"$4\""
  kubectl apply -f - >/dev/null <<EON
apiVersion: v1
kind: Node
metadata: {name: $1, annotations: {kwok.x-k8s.io/node: fake}, labels: {kubernetes.io/hostname: $1}}
status:
  capacity: {cpu: "$2", memory: $3, ephemeral-storage: 1Ti, pods: "110"$gpu}
  allocatable: {cpu: "$2", memory: $3, ephemeral-storage: 1Ti, pods: "110"$gpu}
EON
}
for n in 0 1 2; do node gpu-$n 48 384Gi 4; done
node cpu-0 32 256Gi 0
token=$(kubectl -n dgl-operator create token dgl-operator --duration 2h)
"$operator" --server "$(cat "$dir/server")" --token "$token" --certificate-authority "$dir/pki/ca.crt" \
  --leader-elect --leader-elect-resource-namespace dgl-operator >"$dir/operator.log" 2>&1 &
op_pid=$!
kubectl create -f "$here/realk8s-node-lost/job.yaml" >/dev/null
phase() { kubectl get dgljob sage -o jsonpath='{.status.phase}'; }
wait_phase() { # phase seconds
  local deadline=$((SECONDS + $2))
  until [ "$(phase)" = "$1" ]; do
    [ "$SECONDS" -ge "$deadline" ] && { echo "no $1 after $2 s (phase $(phase))" >&2; tail -20 "$dir/operator.log" >&2; exit 1; }
    sleep 1
  done
}
wait_phase Training 180
lost=$(kubectl get pod sage-worker-2 -o jsonpath='{.spec.nodeName}')
kubectl delete node "$lost" >/dev/null
echo "deleted node $lost under sage-worker-2"
wait_phase Restarting 180
# Let the restarted run settle (it cannot place its third worker), then take the evidence.
deadline=$((SECONDS + 120))
until [ "$(kubectl get pod sage-worker-2 -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].reason}' 2>/dev/null)" = Unschedulable ]; do
  [ "$SECONDS" -ge "$deadline" ] && break
  sleep 1
done
sleep 5
mkdir -p "$out"
kubectl get dgljobs,pods,nodes,events,leases -A -o yaml >"$out/dump.yaml"
# kubectl's requests (its user agent; kwok uses the admin's credentials too), and every write of
# DGLJobs and Nodes (their status updates and node heartbeats left out) and the operator's Lease's
# creation.
grep -E '"userAgent":"kubectl|"verb":"(create|update|patch|delete)".*"resource":"(dgljobs|nodes)"|"verb":"create".*"resource":"leases","namespace":"dgl-operator"' \
  "$dir/audit.log" | grep -v '"subresource":"status"' >"$out/audit.log" || true
echo "recorded $(wc -l <"$out/audit.log") audit lines of $(wc -l <"$dir/audit.log"), $(wc -c <"$out/dump.yaml") bytes of YAML in $out"
