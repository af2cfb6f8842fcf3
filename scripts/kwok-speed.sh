#!/usr/bin/env bash
# dglsim against KWOK: the fleet day's nodes, jobs, pods and pod lifetimes (compressed in time) run
# through the real control plane of scripts/control-plane.sh (etcd, kube-apiserver, kube-scheduler,
# kube-controller-manager, KWOK v0.8) with `dgl-operator --kubeconfig`, and through dglsim, in one
# run on one machine (docs/performance.md, "Against KWOK"):
#   1. `dglsim run scenarios/scale/fleet-day.yaml --json`: each job's submit time, phases and pods
#      under the DGL workload models; that run's CPU and peak memory are reported too.
#   2. For each step of --steps (j3,1,2,4,8: K copies of the day's 50 eight-GPU nodes and of its
#      jobs submitted in its first --hours hours, jN the first N of those jobs alone on one node per
#      worker), tests/controlplane/kwok_speed.py `twin` writes the
#      jobs with every time divided by --compress; `kwok` runs them on a fresh control plane
#      (up --no-audit; down after) and `sim` runs the same jobs in dglsim. Growing stops after the
#      first step the real path does not keep up with (a job not Succeeded, a pod left at the
#      deadline, fewer pods than the twin's because a job ended before its operator created them
#      all, or the jobs' lag growing: the median lag of the later half of the jobs more than 5 s of
#      wall time above the earlier half's), or when --budget seconds
#      have passed; dglsim alone then goes on doubling K while a step costs under 10 s of CPU.
#   3. tests/controlplane/kwok_speed.py `report` writes OUT/kwok-speed.json (every figure),
#      OUT/kwok-speed.csv (a row per path and step) and OUT/kwok-speed.md (the report section) and,
#      unless --no-report, puts that section and its Targets row into reports/performance.md
#      (scripts/perf-report.sh carries them over from OUT/kwok-speed.md when it rewrites the file).
#
#   bash scripts/kwok-speed.sh [--tiny] [--compress C] [--hours H] [--steps LIST] [--budget S]
#                              [--out DIR] [--no-report] [--dglsim BIN --operator BIN] [BUILD_DIR]
#       BUILD_DIR: default build/ (dglsim and dgl-operator built when missing, unless --dglsim and
#       --operator name the binaries); --compress: 20; --hours: 1; OUT: default
#       reports/performance; --tiny: the one step j3 (the first 3 jobs) at --compress 60, no report
#       (what CTest's realk8s.kwok_speed runs: it checks the mechanics, never a time).
#
# Takes about 10 to 15 minutes by default (a step of the fleet's size is about 3 minutes of wall
# time, plus half a minute to start and stop the control plane). The machine is usually shared: CPU seconds are the
# figures to compare; the load average during each measurement is recorded beside it.
# Exit codes: 0 done (--tiny: both paths ran every pod to its end and the figures were written);
# 1 a path failed (--tiny) or a command failed; 2 bad usage; 77 the control plane is not built (no
# Go), or curl, jq, GNU time or python3-yaml is missing.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

tiny=0
compress=20
hours=1
steps=j3,1,2,4,8
budget=600
outdir=reports/performance
report=1
build=build
dglsim=""
operator=""
while (($#)); do
  case $1 in
    --tiny) tiny=1; report=0; steps=j3; compress=60 ;;
    --compress|--hours|--steps|--budget|--out|--dglsim|--operator)
      (($# >= 2)) || { echo "kwok-speed: $1 needs a value" >&2; exit 2; }
      case $1 in
        --compress) compress=$2 ;; --hours) hours=$2 ;; --steps) steps=$2 ;;
        --budget) budget=$2 ;; --out) outdir=$2 ;;
        --dglsim) dglsim=$2 ;; --operator) operator=$2 ;;
      esac
      shift ;;
    --no-report) report=0 ;;
    -*) echo "kwok-speed: unknown option $1 (--tiny, --compress, --hours, --steps, --budget, --out, --no-report)" >&2; exit 2 ;;
    *) build=$1 ;;
  esac
  shift
done
[[ $steps =~ ^j?[1-9][0-9]*(,j?[1-9][0-9]*)*$ ]] || { echo "kwok-speed: --steps: a comma-separated list of copies, or jN for the first N jobs (j3,1,2,4)" >&2; exit 2; }
[[ $budget =~ ^[0-9]+$ ]] || { echo "kwok-speed: --budget: whole seconds" >&2; exit 2; }
for tool in curl jq python3 /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed"; exit 77; }
done
python3 -c 'import yaml' 2>/dev/null || { echo "SKIP: python3-yaml is not installed"; exit 77; }
bin=$(bash scripts/control-plane.sh bindir) || { echo "SKIP: the control plane is not built (needs Go; bash scripts/control-plane.sh build)"; exit 77; }
if [[ -z $dglsim || -z $operator ]]; then
  if [[ ! -x $build/sim/dglsim || ! -x $build/operator/dgl-operator ]]; then
    cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
    cmake --build "$build" -j "${DGLSIM_JOBS:-2}" --target dglsim dgl-operator
  fi
  dglsim=${dglsim:-$build/sim/dglsim}
  operator=${operator:-$build/operator/dgl-operator}
fi
for b in "$dglsim" "$operator"; do
  [[ -f $b && -x $b ]] || { echo "kwok-speed: $b: not an executable file" >&2; exit 2; }
done
dglsim=$(cd "$(dirname "$dglsim")" && pwd)/$(basename "$dglsim")
operator=$(cd "$(dirname "$operator")" && pwd)/$(basename "$operator")
driver="python3 $root/tests/controlplane/kwok_speed.py"

# DGLSIM_KWOK_SPEED_WORK=DIR keeps the intermediate files there (the twins, each path's figures)
# instead of in a temporary directory removed at the end.
work=${DGLSIM_KWOK_SPEED_WORK:-$(mktemp -d)}
mkdir -p "$work"
work=$(cd "$work" && pwd)
cp_dir=$work/cp
cleanup() {
  bash scripts/control-plane.sh down "$cp_dir" >/dev/null 2>&1 || true
  [[ -n ${DGLSIM_KWOK_SPEED_WORK:-} ]] || rm -rf "$work"
}
trap cleanup EXIT
rm -rf "$work/steps"
mkdir -p "$work/steps"

# 1. The fleet day under the DGL workload models: its jobs' times, and its own figures.
echo "kwok-speed: dglsim run scenarios/scale/fleet-day.yaml" >&2
/usr/bin/time -f '%U %S %e %M' -o "$work/fleet-day.time" "$dglsim" run --quiet --json "$work/fleet-day.json" \
  scenarios/scale/fleet-day.yaml >"$work/fleet-day.out" || { cat "$work/fleet-day.out" >&2; exit 1; }
echo "$(cut -d' ' -f1-3 /proc/loadavg)" >"$work/fleet-day.load"

twin() { # STEP DIR: STEP is K (copies) or jN (the first N jobs, one node per worker)
  local size=(--copies "$1")
  [[ $1 == j* ]] && size=(--copies 1 --jobs "${1#j}")
  $driver twin "$work/fleet-day.json" scenarios/scale/manifests "$2" --compress "$compress" \
    --hours "$hours" "${size[@]}" >"$2.summary"
  echo "$1" >>"$work/steps/order"
}

# 2. The steps: both paths while the real one keeps up, then the simulator alone.
start=$SECONDS
last_k=0
ran=0
for k in ${steps//,/ }; do
  if ((ran && SECONDS - start > budget)); then
    echo "kwok-speed: the budget of $budget s is spent; no more real-path steps" >&2
    break
  fi
  twin "$k" "$work/steps/twin-$k"
  echo "kwok-speed: step $k: $(cat "$work/steps/twin-$k.summary")" >&2
  bash scripts/control-plane.sh up "$cp_dir" --with scheduler,controller-manager,kwok --no-audit >/dev/null
  "$bin/kubectl" --kubeconfig "$cp_dir/kubeconfig" apply -f deploy/crd.yaml >/dev/null
  # kubectl wait fails at once ("conditions accessor error") when the CRD has no conditions yet.
  for _ in $(seq 60); do
    "$bin/kubectl" --kubeconfig "$cp_dir/kubeconfig" wait --for=condition=Established crd/dgljobs.kubeflow.org \
      --timeout=60s >/dev/null 2>&1 && break
    sleep 1
  done
  slack=30
  ((tiny)) && slack=120  # a safety net, not a speed limit: the tiny run checks mechanics only
  $driver kwok "$cp_dir" "$work/steps/twin-$k" "$operator" "$work/steps/kwok-$k.json" --deadline-slack "$slack" >&2
  bash scripts/control-plane.sh down "$cp_dir" >/dev/null
  $driver sim "$dglsim" "$work/steps/twin-$k" "$work/steps/sim-$k.json" >&2
  ran=1
  [[ $k == j* ]] || last_k=$k
  jq -e .kept_up "$work/steps/kwok-$k.json" >/dev/null || break
done
if ((!tiny)); then
  k=$last_k
  while ((k < 1024)); do
    k=$((k == 0 ? 1 : k * 2))
    [[ -f $work/steps/sim-$k.json ]] && continue
    twin "$k" "$work/steps/twin-$k"
    echo "kwok-speed: dglsim step $k: $(cat "$work/steps/twin-$k.summary")" >&2
    $driver sim "$dglsim" "$work/steps/twin-$k" "$work/steps/sim-$k.json" >&2
    jq -e '.kept_up and .cpu_s < 10' "$work/steps/sim-$k.json" >/dev/null || break
  done
fi

# 3. The figures and the report section.
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
[[ -z $(git status --porcelain --untracked-files=no 2>/dev/null) ]] || commit+="+changes"
mkdir -p "$outdir"
splice=()
((report)) && splice=(--splice reports/performance.md)
build_type=$(sed -n 's/^CMAKE_BUILD_TYPE:STRING=//p' "$(dirname "$dglsim")/../CMakeCache.txt" 2>/dev/null || true)
$driver report "$work" "$outdir" --compress "$compress" --hours "$hours" --commit "$commit" \
  --build "${build_type:-unknown} build ($(basename "$(dirname "$(dirname "$dglsim")")")/)" \
  --kubernetes "$(bash scripts/control-plane.sh version)" --tiny "$tiny" "${splice[@]}"
