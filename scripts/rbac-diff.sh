#!/usr/bin/env bash
# RBAC refusals of `dglsim serve` compared with kube-apiserver's, word for word
# (tests/apidiff/rbac_diff.py, docs/rbac.md): deploy/rbac.yaml and each of its rules removed,
# escalation attempts on every write and patch type, access reviews, as the operator's service
# account (a TokenRequest token on each server) and an impersonated user.
#
#   bash scripts/rbac-diff.sh [--dglsim PATH] [--out FILE.json] [--check]
#
# The real side is scripts/control-plane.sh's kube-apiserver (Node,RBAC authorization) with the
# DGLJob CRD and a PodGroup CRD applied. Exit codes: 0 compared (and --check passed); 1 a refusal
# differs under --check, or a server did not start; 77 without Go, the control plane's binaries,
# dglsim or PyYAML.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dglsim=$root/build/sim/dglsim
out= check=
while [ $# -gt 0 ]; do
  case "$1" in
    --dglsim) dglsim=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --check) check=--check; shift ;;
    *) echo "rbac-diff.sh: unknown argument: $1" >&2; exit 2 ;;
  esac
done
[ -x "$dglsim" ] || { echo "SKIP: no dglsim binary at $dglsim (build it, or pass --dglsim)"; exit 77; }
py=$(command -v python3) || { echo "SKIP: python3 is not installed"; exit 77; }
"$py" -c 'import yaml' 2>/dev/null || { echo "SKIP: PyYAML is not installed"; exit 77; }
plane_sh=${DGLSIM_CONTROL_PLANE_SH:-$root/scripts/control-plane.sh}
command -v go >/dev/null || { echo "SKIP: Go is not installed: no real control plane to compare with"; exit 77; }
bash "$plane_sh" bindir >/dev/null 2>&1 ||
  { echo "SKIP: the control plane is not built (bash scripts/control-plane.sh build)"; exit 77; }

tmp=$(mktemp -d)
serve_pid= plane=
cleanup() {
  [ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null && wait "$serve_pid" 2>/dev/null
  [ -n "$plane" ] && bash "$plane_sh" down "$plane" >/dev/null 2>&1
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "rbac-diff.sh: $*" >&2; exit 1; }

"$dglsim" serve "$root/tests/apidiff/rbac-cluster.yaml" --port 0 --speed max --no-operator \
  >"$tmp/serve.out" 2>"$tmp/serve.err" &
serve_pid=$!
for _ in $(seq 300); do
  grep -q '^serving on ' "$tmp/serve.out" 2>/dev/null && break
  kill -0 "$serve_pid" 2>/dev/null || break
  sleep 0.1  # polling for the ready line, with a deadline
done
url=$(sed -n 's/^serving on //p' "$tmp/serve.out")
[ -n "$url" ] || { cat "$tmp/serve.err" >&2; fail "dglsim serve printed no 'serving on' line"; }

plane=$tmp/plane
bash "$plane_sh" up "$plane" --no-audit >"$tmp/plane.log" 2>&1 ||
  { cat "$tmp/plane.log" >&2; fail "the control plane did not start"; }
kubectl=$(bash "$plane_sh" bindir)/kubectl
k() { "$kubectl" --kubeconfig "$plane/kubeconfig" "$@"; }
k apply --server-side -f "$root/deploy/crd.yaml" >"$tmp/crd.log" 2>&1 || { cat "$tmp/crd.log" >&2; fail "deploy/crd.yaml"; }
k apply --server-side -f - >>"$tmp/crd.log" 2>&1 <<'YAML' || { cat "$tmp/crd.log" >&2; fail "the PodGroup CRD"; }
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: podgroups.scheduling.x-k8s.io}
spec:
  group: scheduling.x-k8s.io
  names: {kind: PodGroup, listKind: PodGroupList, plural: podgroups, singular: podgroup, shortNames: [pg, pgs]}
  scope: Namespaced
  versions:
    - name: v1alpha1
      served: true
      storage: true
      subresources: {status: {}}
      schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
YAML
k wait --for=condition=Established --timeout=60s crd/dgljobs.kubeflow.org crd/podgroups.scheduling.x-k8s.io \
  >>"$tmp/crd.log" 2>&1 || { cat "$tmp/crd.log" >&2; fail "the CRDs are not Established"; }
args=(--fake "$url" --real-kubeconfig "$plane/kubeconfig")
[ -n "$out" ] && args+=(--out "$out")
"$py" "$root/tests/apidiff/rbac_diff.py" "${args[@]}" $check
