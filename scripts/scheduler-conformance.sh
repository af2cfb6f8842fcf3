#!/usr/bin/env bash
# Placements of the simulated scheduler against the real kube-scheduler's (docs/scheduler-conformance.md):
# writes reports/scheduler-conformance.md (and .json beside it).
#
#   bash scripts/scheduler-conformance.sh [--dglsim BIN] [--quick] [--check] [--no-write]
#
# For each case (20, 50, 100, 300 and 500 nodes: a cluster size and a number of copies of the jobs of
# tests/controlplane/scheduler/job-shapes.json), tests/controlplane/scheduler/gen_input.py makes the
# input: the pods the operator creates for those jobs (run through `dglsim serve`), a generated
# cluster of GPU and CPU nodes with labels, taints, zones and filler pods. Then:
#   1. kube-scheduler v1.34.12 (scripts/control-plane.sh up --with scheduler, default profile, its
#      default percentageOfNodesToScore) places the pods one at a time (run_real.py), logging every
#      node's per-plugin scores (--vmodule=schedule_one=10);
#   2. up to 100 nodes, where kube-scheduler scores every feasible node: `dglsim place` decides each
#      pod on the state kube-scheduler's earlier placements left (follow), and compare.py counts
#      same / tied / different decisions and explains each difference;
#   3. every case: `dglsim place` places the pods on its own (percentageOfNodesToScore 0, as
#      kube-scheduler), and compare.py compares the outcomes: unschedulable pods, nodes by pod
#      count, GPU fragmentation, within a tolerance of 10 %.
# --quick: the 20-node case only (the CTest realk8s.scheduler_conformance). --check: exit 1 when a
# decision differs (beyond ties), up to 100 nodes, or an outcome is out of tolerance past 100. --no-write: leave reports/ alone
# and print the report instead.
# Exit 77 when the control plane is not built (no Go) or python3 is missing; 2 on bad usage.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
here=$root/tests/controlplane/scheduler
dglsim=$root/build/sim/dglsim
quick=0 check=0 write=1
while [ $# -gt 0 ]; do
  case "$1" in
    --dglsim) dglsim=${2:?}; shift 2 ;;
    --quick) quick=1; shift ;;
    --check) check=1; shift ;;
    --no-write) write=0; shift ;;
    *) echo "usage: $0 [--dglsim BIN] [--quick] [--check] [--no-write]" >&2; exit 2 ;;
  esac
done
command -v python3 >/dev/null || { echo "SKIP: python3 is missing"; exit 77; }
bash "$root/scripts/control-plane.sh" bindir >/dev/null ||
  { echo "SKIP: the control plane is not built (needs Go; bash scripts/control-plane.sh build)"; exit 77; }
[ -x "$dglsim" ] || { echo "no dglsim at $dglsim (build it, or pass --dglsim)" >&2; exit 2; }

tmp=$(mktemp -d)
cp_dir=""
cleanup() {
  [ -n "$cp_dir" ] && bash "$root/scripts/control-plane.sh" down "$cp_dir" >/dev/null 2>&1
  rm -rf "$tmp"
}
trap cleanup EXIT

# size copies: the cases. Up to 100 nodes every decision is compared; past 100, the outcomes.
if [ "$quick" = 1 ]; then cases=("20 2"); else cases=("20 2" "50 5" "100 10" "300 30" "500 40"); fi

results=()
for c in "${cases[@]}"; do
  read -r size copies <<<"$c"
  d=$tmp/n$size
  mkdir -p "$d"
  python3 "$here/gen_input.py" --dglsim "$dglsim" --nodes "$size" --copies "$copies" --seed "$size" \
    --out "$d/input.json" --work "$d/gen" >&2
  cp_dir=$d/cp
  DGLSIM_KUBE_SCHEDULER_FLAGS=--vmodule=schedule_one=10 \
    bash "$root/scripts/control-plane.sh" up "$cp_dir" --with scheduler --no-audit >&2
  python3 "$here/run_real.py" --cp "$cp_dir" --input "$d/input.json" --out "$d/real.json" >&2
  bash "$root/scripts/control-plane.sh" down "$cp_dir" >&2
  cp_dir=""
  "$dglsim" place "$d/input.json" --out "$d/sim-own.json"
  python3 "$here/compare.py" outcomes --input "$d/input.json" --real "$d/real.json" --sim "$d/sim-own.json" \
    >"$d/outcomes.json"
  if [ "$size" -le 100 ]; then
    python3 - "$d/input.json" "$d/real.json" "$d/follow-input.json" <<'EOF'
import json, sys
inp = json.load(open(sys.argv[1]))
inp["follow"] = {p["pod"]: p["node"] for p in json.load(open(sys.argv[2]))["placements"]}
json.dump(inp, open(sys.argv[3], "w"))
EOF
    "$dglsim" place "$d/follow-input.json" --out "$d/sim-follow.json"
    python3 "$here/compare.py" decisions --input "$d/input.json" --real "$d/real.json" --sim "$d/sim-follow.json" \
      >"$d/decisions.json"
  fi
  results+=("$d")
done

out_md=$root/reports/scheduler-conformance.md
out_json=$root/reports/scheduler-conformance.json
[ "$write" = 1 ] || { out_md=$tmp/scheduler-conformance.md; out_json=$tmp/scheduler-conformance.json; }
status=0
python3 "$here/report.py" --md "$out_md" --json "$out_json" --check "$check" "${results[@]}" || status=$?
if [ "$write" = 1 ]; then echo "wrote $out_md" >&2; else cat "$out_md"; fi
exit $status
