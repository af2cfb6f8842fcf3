#!/usr/bin/env bash
# `kubectl apply --dry-run=server -k deploy/` on a real kube-apiserver (scripts/control-plane.sh up):
# the server validates every object of the kustomize base (the CRD's schema, the RBAC rules, the
# Deployment with its probes, the metrics Service) and accepts them. A dry run creates nothing, so
# the operator's Namespace is created first for real (the namespaced objects need it to exist).
# Exit 77 (skipped) when scripts/control-plane.sh, its binaries or Go are missing.
# Usage: kustomize_dry_run_test.sh SOURCE_DIR
set -uo pipefail
root=${1:?usage: $0 SOURCE_DIR}
cp=$root/scripts/control-plane.sh
[ -f "$cp" ] || { echo "SKIP: scripts/control-plane.sh is not there"; exit 77; }
command -v go >/dev/null || { echo "SKIP: Go is not installed"; exit 77; }
bindir=$(bash "$cp" bindir 2>/dev/null) || { echo "SKIP: the control plane is not built (bash scripts/control-plane.sh build)"; exit 77; }
kubectl=$bindir/kubectl
[ -x "$kubectl" ] || kubectl=$(command -v kubectl) || { echo "SKIP: no kubectl"; exit 77; }
tmp=$(mktemp -d)
cleanup() { bash "$cp" down "$tmp/cp" >/dev/null 2>&1; rm -rf "$tmp"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; [ -s "$tmp/out" ] && sed 's/^/  /' "$tmp/out"; exit 1; }

bash "$cp" up "$tmp/cp" --no-audit >"$tmp/up.log" 2>&1 || { cat "$tmp/up.log"; fail "control-plane.sh up failed"; }
k() { "$kubectl" --kubeconfig "$tmp/cp/kubeconfig" "$@"; }
k create namespace dgl-operator >"$tmp/out" 2>&1 || fail "create the namespace"
k apply --dry-run=server -k "$root/deploy" >"$tmp/out" 2>&1 || fail "kubectl apply --dry-run=server -k deploy/ was refused"
for object in customresourcedefinition.apiextensions.k8s.io/dgljobs.kubeflow.org deployment.apps/dgl-operator \
  service/dgl-operator-metrics clusterrole.rbac.authorization.k8s.io/dgl-operator; do
  grep -q "^$object .*(server dry run)$" "$tmp/out" || fail "$object is not in the dry run's output"
done
# A dry run leaves nothing behind.
k get deployment -n dgl-operator dgl-operator >/dev/null 2>&1 && fail "the dry run created the Deployment"
echo "ok: the real kube-apiserver accepts deploy/ (server dry run, $(grep -c 'server dry run' "$tmp/out") objects)"
