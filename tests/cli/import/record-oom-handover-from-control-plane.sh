#!/usr/bin/env bash
# Records the evidence of tests/cli/import/realk8s-oom-handover/ from a real control plane
# (scripts/control-plane.sh: kube-apiserver with its audit log, kube-scheduler,
# kube-controller-manager, kwok with kwok-oom-stage.yaml) with two dgl-operator replicas
# (--leader-elect) against it, as a user records it from a cluster (docs/reproducing-failures.md):
# three 4-GPU KWOK nodes and a CPU one, the DGLJob of job.yaml (three 4-GPU workers, backoffLimit
# 0); once it trains, the leading operator is killed (SIGKILL: no release) and the other takes the
# Lease over; then worker 1 is OOMKilled (kwok-oom-stage.yaml: the annotation kwok.dglsim.io/oom-kill
# stands in for the kernel's OOM killer) and the job fails. Then
# `kubectl get dgljobs,pods,nodes,events,leases -A -o yaml` and the audit log, trimmed to kubectl's
# requests, the writes of DGLJobs and Nodes and the operator's Lease (at the control plane's audit
# level for leases, Metadata: no bodies, so the import reads the hand-over from the dumped Lease).
#
# Usage: record-oom-handover-from-control-plane.sh CONTROL_PLANE_SH DGL_OPERATOR OUT_DIR
set -euo pipefail
cp_sh=${1:?usage: record-oom-handover-from-control-plane.sh CONTROL_PLANE_SH DGL_OPERATOR OUT_DIR}
operator=${2:?usage}
out=${3:?usage}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
dir=$(mktemp -d)
a_pid=
b_pid=
cleanup() {
  for pid in "$a_pid" "$b_pid"; do [ -n "$pid" ] && kill "$pid" 2>/dev/null; done
  wait 2>/dev/null
  bash "$cp_sh" down "$dir" >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap cleanup EXIT
bash "$cp_sh" up "$dir" --with scheduler,controller-manager,kwok --kwok-stages "$here/kwok-oom-stage.yaml"
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
start_operator() { # identity log
  "$operator" --server "$(cat "$dir/server")" --token "$token" --certificate-authority "$dir/pki/ca.crt" \
    --leader-elect --leader-elect-resource-namespace dgl-operator >"$dir/$1.log" 2>&1 &
}
start_operator a
a_pid=$!
holder() { kubectl -n dgl-operator get lease dgl-operator -o jsonpath='{.spec.holderIdentity}' 2>/dev/null || true; }
deadline=$((SECONDS + 60))
until [ -n "$(holder)" ]; do
  [ "$SECONDS" -ge "$deadline" ] && { echo "operator a never led" >&2; tail -20 "$dir/a.log" >&2; exit 1; }
  sleep 1
done
first=$(holder)
start_operator b
b_pid=$!
kubectl create -f "$here/realk8s-oom-handover/job.yaml" >/dev/null
phase() { kubectl get dgljob sage -o jsonpath='{.status.phase}'; }
wait_phase() { # phase seconds
  local deadline=$((SECONDS + $2))
  until [ "$(phase)" = "$1" ]; do
    [ "$SECONDS" -ge "$deadline" ] && { echo "no $1 after $2 s (phase $(phase))" >&2; tail -20 "$dir/a.log" "$dir/b.log" >&2; exit 1; }
    sleep 1
  done
}
wait_phase Training 180
kill -KILL "$a_pid"
wait "$a_pid" 2>/dev/null || true
a_pid=
echo "killed the leading operator ($first)"
deadline=$((SECONDS + 120))
until [ -n "$(holder)" ] && [ "$(holder)" != "$first" ]; do
  [ "$SECONDS" -ge "$deadline" ] && { echo "no other operator took the Lease" >&2; tail -20 "$dir/b.log" >&2; exit 1; }
  sleep 1
done
echo "the Lease went to $(holder)"
sleep 5
kubectl annotate pod sage-worker-1 kwok.dglsim.io/oom-kill=now >/dev/null
echo "sage-worker-1 OOMKilled"
wait_phase Failed 120
sleep 5
mkdir -p "$out"
kubectl get dgljobs,pods,nodes,events,leases -A -o yaml >"$out/dump.yaml"
grep -E '"userAgent":"kubectl|"verb":"(create|update|patch|delete)".*"resource":"(dgljobs|nodes)"|"resource":"leases","namespace":"dgl-operator"' \
  "$dir/audit.log" | grep -v '"subresource":"status"' | grep -vE '"verb":"(get|watch|list)"' >"$out/audit.log" || true
echo "recorded $(wc -l <"$out/audit.log") audit lines of $(wc -l <"$dir/audit.log"), $(wc -c <"$out/dump.yaml") bytes of YAML in $out"
