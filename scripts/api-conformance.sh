#!/usr/bin/env bash
# The differential API suite, end to end: one corpus of API interactions (tests/apidiff/corpus.py)
# sent by one driver to `dglsim serve` and to a real kube-apiserver with kube-controller-manager
# (scripts/control-plane.sh), the answers normalized and compared field by field
# (tests/apidiff/compare.py), and the report written.
#
#   bash scripts/api-conformance.sh [--dglsim PATH] [--out DIR] [--check] [--no-write]
#       --dglsim  the dglsim binary (default: build/sim/dglsim)
#       --out     where the raw answers and the servers' logs go (default: a temporary directory)
#       --check   exit 1 below the committed share of identical interactions or on a difference
#                 that is not a stated departure (tests/apidiff/departures.py)
#       --no-write  leave reports/ and docs/ alone (the CTest entry)
#   Writes reports/api-conformance.md, reports/api-conformance.json and the section "Measured by
#   the differential suite" of docs/api-departures.md.
#
#   bash scripts/api-conformance.sh --fake-only [--dglsim PATH] [--check]
#       No Go needed: the corpus against `dglsim serve` alone, compared with kube-apiserver's
#       answers as recorded in reports/api-conformance.json.
#
# DGLSIM_CONTROL_PLANE_SH: the control-plane script to use (default: scripts/control-plane.sh).
# Exit codes: 0 done (and --check passed); 1 a check failed or a server did not start; 77 without
# Go or the control plane's binaries (see scripts/control-plane.sh build), or without dglsim.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dglsim=$root/build/sim/dglsim
out= check= write=1 fake_only=
while [ $# -gt 0 ]; do
  case "$1" in
    --dglsim) dglsim=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --check) check=--check; shift ;;
    --no-write) write=; shift ;;
    --fake-only) fake_only=1; shift ;;
    *) echo "api-conformance.sh: unknown argument: $1" >&2; exit 2 ;;
  esac
done
[ -x "$dglsim" ] || { echo "SKIP: no dglsim binary at $dglsim (build it, or pass --dglsim)"; exit 77; }
py=$(command -v python3) || { echo "SKIP: python3 is not installed"; exit 77; }
apidiff=$root/tests/apidiff
plane_sh=${DGLSIM_CONTROL_PLANE_SH:-$root/scripts/control-plane.sh}  # another checkout's, while testing one

if [ -z "$fake_only" ]; then
  command -v go >/dev/null || { echo "SKIP: Go is not installed: no real control plane to compare with"; exit 77; }
  [ -f "$plane_sh" ] || { echo "SKIP: no $plane_sh"; exit 77; }
  bash "$plane_sh" bindir >/dev/null 2>&1 ||
    { echo "SKIP: the control plane is not built (bash scripts/control-plane.sh build)"; exit 77; }
fi

tmp=$(mktemp -d)
[ -n "$out" ] || out=$tmp
mkdir -p "$out"
serve_pid= plane=
cleanup() {
  [ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null && wait "$serve_pid" 2>/dev/null
  [ -n "$plane" ] && bash "$plane_sh" down "$plane" >/dev/null 2>&1
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "api-conformance.sh: $*" >&2; exit 1; }

# --- dglsim serve: an empty two-node cluster, no operator inside -----------------------------
"$dglsim" serve "$root/tests/cli/operator_http_e2e.yaml" --port 0 --speed max --no-operator \
  >"$out/serve.out" 2>"$out/serve.err" &
serve_pid=$!
for _ in $(seq 300); do
  grep -q '^serving on ' "$out/serve.out" 2>/dev/null && break
  kill -0 "$serve_pid" 2>/dev/null || break
  sleep 0.1  # polling for the ready line, with a deadline
done
url=$(sed -n 's/^serving on //p' "$out/serve.out")
[ -n "$url" ] || { cat "$out/serve.err" >&2; fail "dglsim serve printed no 'serving on' line"; }
"$py" "$apidiff/driver.py" --server "$url" --label fake --out "$out/fake.json" || fail "the driver failed against dglsim serve"
kill "$serve_pid" 2>/dev/null; wait "$serve_pid" 2>/dev/null; serve_pid=

if [ -n "$fake_only" ]; then
  exec "$py" "$apidiff/compare.py" --fake "$out/fake.json" --recorded "$root/reports/api-conformance.json" $check
fi

# --- kube-apiserver with kube-controller-manager (garbage collection, namespaces) ------------
plane=$out/plane
bash "$plane_sh" up "$plane" --with controller-manager --no-audit >"$out/plane.log" 2>&1 ||
  { cat "$out/plane.log" >&2; fail "the control plane did not start"; }
kubectl=$(bash "$plane_sh" bindir)/kubectl
"$kubectl" --kubeconfig "$plane/kubeconfig" apply --server-side -f "$root/deploy/crd.yaml" >"$out/crd.log" 2>&1 ||
  { cat "$out/crd.log" >&2; fail "deploy/crd.yaml was not applied"; }
"$kubectl" --kubeconfig "$plane/kubeconfig" wait --for=condition=Established --timeout=60s \
  crd/dgljobs.kubeflow.org >>"$out/crd.log" 2>&1 || { cat "$out/crd.log" >&2; fail "the DGLJob CRD is not Established"; }
"$py" "$apidiff/driver.py" --kubeconfig "$plane/kubeconfig" --label real --out "$out/real.json" ||
  fail "the driver failed against kube-apiserver"
bash "$plane_sh" down "$plane" >/dev/null 2>&1; plane=

args=(--fake "$out/fake.json" --real "$out/real.json")
if [ -n "$write" ]; then
  args+=(--report "$root/reports/api-conformance.md" --json "$root/reports/api-conformance.json"
         --docs "$root/docs/api-departures.md")
fi
"$py" "$apidiff/compare.py" "${args[@]}" $check
