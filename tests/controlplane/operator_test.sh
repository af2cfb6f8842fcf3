#!/usr/bin/env bash
# dgl-operator on a real control plane: kube-apiserver, kube-controller-manager, kube-scheduler and
# four KWOK nodes (scripts/control-plane.sh), deploy/crd.yaml and deploy/rbac.yaml applied, the
# operator started with `--kubeconfig` holding the token of its own ServiceAccount (so RBAC is the
# deploy's, not an admin's). The pods run as tests/controlplane/kwok-stages.yaml plays them, steered
# by the annotations the simulator's generic program reads (dglsim.io/duration,
# dglsim.io/exit-code).
#
#  1. The jobs of operator/compared-jobs.json (one per partition mode, DistParMETIS with eleven
#     workers so that ipconfig must be in numeric order past ten, and one whose worker fails with
#     backoffLimit 0) run to their end. Each job's phase, the conditions that hold at the end
#     (those of the phases passed through must be in phase order; which intermediate phases were
#     observed depends on timing and is only reported), replica statuses, pods,
#     ConfigMap, Service, ServiceAccounts, Roles and RoleBindings, with their labels and owner
#     references (operator/normalize.jq), must equal what `dglsim serve` records for the same jobs
#     on a simulated twin of the cluster (operator/cluster.yaml) with the operator inside it.
#  2. A job deleted while it runs: the real garbage collector leaves none of its objects behind.
#  3. Two replicas with --leader-elect: the leader is killed (SIGKILL), the other takes the Lease
#     over and runs the next job to Succeeded.
#
# Skipped (exit 77) when the control plane is not built (no Go), or jq or curl is missing.
# Usage: operator_test.sh SOURCE_DIR DGLSIM DGL_OPERATOR
set -uo pipefail
src=${1:?usage: $0 SOURCE_DIR DGLSIM DGL_OPERATOR}
dglsim=${2:?usage: $0 SOURCE_DIR DGLSIM DGL_OPERATOR}
operator=${3:?usage: $0 SOURCE_DIR DGLSIM DGL_OPERATOR}
data=$src/tests/controlplane/operator
cp="bash $src/scripts/control-plane.sh"
for tool in curl jq; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed"; exit 77; }
done
bin=$($cp bindir) || { echo "SKIP: the control plane is not built (needs Go; bash scripts/control-plane.sh build)"; exit 77; }

tmp=$(mktemp -d)
dir=$tmp/cp
declare -A op_pids=()
serve_pid=""
cleanup() {
  # Only the processes this script started, by pid.
  for pid in "${op_pids[@]}" $serve_pid; do kill -KILL "$pid" 2>/dev/null; done
  $cp down "$dir" >/dev/null 2>&1
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*"
  for f in "$tmp"/operator-*.log "$tmp/serve.err"; do
    [ -s "$f" ] && { echo "--- $f"; tail -n 25 "$f"; }
  done
  for f in "$dir"/logs/*.log; do [ -s "$f" ] && { echo "--- $f"; tail -n 8 "$f"; }; done
  exit 1
}
source "$src/tests/cli/serve_lib.sh"  # wait_for, start_serve

k() { "$bin/kubectl" --kubeconfig "$dir/kubeconfig" "$@"; }
jobs_api=apis/kubeflow.org/v1alpha1/namespaces/default/dgljobs
mapfile -t compared < <(jq -r .metadata.name "$data/compared-jobs.json")

# --- the real control plane, the CRD, the RBAC, four KWOK nodes --------------------------------
$cp up "$dir" --with scheduler,controller-manager,kwok || fail "control-plane.sh up failed"
k apply -f "$src/deploy/crd.yaml" >/dev/null || fail "apply deploy/crd.yaml"
k apply -f "$src/deploy/rbac.yaml" >/dev/null || fail "apply deploy/rbac.yaml"
k wait --for=condition=Established crd/dgljobs.kubeflow.org --timeout=60s >/dev/null || fail "the CRD was not established"
for i in 0 1 2 3; do
  k apply -f - >/dev/null <<EOF || fail "create node kwok-$i"
apiVersion: v1
kind: Node
metadata:
  name: kwok-$i
  annotations: {kwok.x-k8s.io/node: fake}
status:
  capacity: {cpu: "64", memory: 256Gi, ephemeral-storage: 1Ti, pods: "110"}
  allocatable: {cpu: "64", memory: 256Gi, ephemeral-storage: 1Ti, pods: "110"}
EOF
done
k wait --for=condition=Ready node --all --timeout=60s >/dev/null || fail "the KWOK nodes did not become Ready"
wait_for 60 k get serviceaccount default >/dev/null 2>&1 || fail "no default ServiceAccount (kube-controller-manager)"

# The operator's kubeconfig: the cluster of the admin's, the token of its ServiceAccount.
token=$(k -n dgl-operator create token dgl-operator --duration 2h) || fail "create a token for dgl-operator"
jq -n --arg server "$(cat "$dir/server")" --arg ca "$(base64 -w0 <"$dir/pki/ca.crt")" --arg token "$token" '{
  apiVersion: "v1", kind: "Config", "current-context": "dgl-operator",
  clusters: [{name: "real", cluster: {server: $server, "certificate-authority-data": $ca}}],
  users: [{name: "dgl-operator", user: {token: $token}}],
  contexts: [{name: "dgl-operator", context: {cluster: "real", user: "dgl-operator"}}]}' >"$tmp/operator.kubeconfig"

# start_operator NAME ARGS...: dgl-operator in the background, its log in $tmp/operator-NAME.log.
start_operator() {
  local name=$1
  shift
  "$operator" --kubeconfig "$tmp/operator.kubeconfig" --resync 5s "$@" >"$tmp/operator-$name.log" 2>&1 &
  op_pids[$name]=$!
}

# --- 1. the compared jobs, on the real control plane -------------------------------------------
start_operator main
wait_for 20 grep -q 'dgl-operator starting' "$tmp/operator-main.log" || fail "dgl-operator did not start"
k create -f "$data/compared-jobs.json" >/dev/null || fail "create the DGLJobs"
# And the job that is deleted while it runs (part 2), at the same time.
k create -f "$data/deleted-job.json" >/dev/null || fail "create the job to delete"

# settled GET: every job of the comparison has ended and no pod of theirs is pending or going away.
settled() {
  local get=$1 names
  names=$(jq -s '[.[].metadata.name]' "$data/compared-jobs.json")
  $get "/$jobs_api" | jq -e --argjson names "$names" '
    [.items[] | select(.metadata.name as $n | $names | index($n)) | .status.phase] as $phases
    | ($phases | length) == ($names | length) and all($phases[]; . == "Succeeded" or . == "Failed")' >/dev/null &&
  $get "/api/v1/namespaces/default/pods" | jq -e --argjson names "$names" '
    [.items[] | select(.metadata.labels["training.kubeflow.org/job-name"] as $j | $names | index($j))
              | select(.metadata.deletionTimestamp != null or .status.phase == "Pending")]
    | length == 0' >/dev/null
}
real_get() { k get --raw "$1"; }
wait_for 240 settled real_get ||
  fail "the jobs did not end on the real control plane: $(k get dgljobs -o json | jq -c '[.items[] | {name: .metadata.name, phase: .status.phase, conditions: [.status.conditions[]? | select(.status == "True") | .reason]}]')"

# collect GET JOB: the objects of one job as normalize.jq reads them.
collect() {
  local get=$1 job=$2 selector
  selector=$(jq -rn --arg j "$job" '"training.kubeflow.org/job-name=\($j)" | @uri')
  jq -n --argjson job "$($get "/$jobs_api/$job")" \
    --argjson pods "$($get "/api/v1/namespaces/default/pods?labelSelector=$selector")" \
    --argjson cms "$($get "/api/v1/namespaces/default/configmaps?labelSelector=$selector")" \
    --argjson svcs "$($get "/api/v1/namespaces/default/services?labelSelector=$selector")" \
    --argjson sas "$($get "/api/v1/namespaces/default/serviceaccounts?labelSelector=$selector")" \
    --argjson roles "$($get "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles?labelSelector=$selector")" \
    --argjson rbs "$($get "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings?labelSelector=$selector")" \
    '{jobs: [$job], pods: $pods.items, configmaps: $cms.items, services: $svcs.items,
      serviceaccounts: $sas.items, roles: $roles.items, rolebindings: $rbs.items}' |
    jq -S -f "$data/normalize.jq"
}
mkdir -p "$tmp/real" "$tmp/sim"
for job in "${compared[@]}"; do
  collect real_get "$job" >"$tmp/real/$job.json" || fail "collect $job from the real server"
  real_get "/$jobs_api/$job" >"$tmp/real/$job.full.json"
done

# The ConfigMap of the eleven-worker job lists worker-0 ... worker-10 in numeric order.
order=$(jq -r '.configmaps[0].data.ipconfig' "$tmp/real/mode-distparmetis.json" | awk 'NF {print $4}' | paste -sd' ')
expected=$(for i in $(seq 0 10); do echo "mode-distparmetis-worker-$i"; done | paste -sd' ')
[ "$order" = "$expected" ] || fail "ipconfig on the real server lists [$order], not [$expected]"

# --- 1b. the same jobs in the simulator --------------------------------------------------------
{
  cat "$data/cluster.yaml"
  echo "jobs:"
  while IFS= read -r line; do
    echo "  - at: 0s"
    echo "    inline: $line"
  done <"$data/compared-jobs.json"
} >"$tmp/twin.yaml"
start_serve "$dglsim" "$tmp/twin.yaml" --speed max
sim_get() { curl -sf "$url$1"; }
wait_for 120 settled sim_get || fail "the jobs did not end in the simulator"
for job in "${compared[@]}"; do
  collect sim_get "$job" >"$tmp/sim/$job.json" || fail "collect $job from dglsim serve"
  sim_get "/$jobs_api/$job" >"$tmp/sim/$job.full.json"
done
kill -TERM "$serve_pid" 2>/dev/null
wait "$serve_pid" 2>/dev/null
serve_pid=""

differences=0
for job in "${compared[@]}"; do
  if ! diff -u "$tmp/sim/$job.json" "$tmp/real/$job.json" >"$tmp/$job.diff"; then
    echo "DIFFERENT: $job (--- simulator, +++ real control plane)"
    cat "$tmp/$job.diff"
    differences=$((differences + 1))
  fi
done
# The phases each job went through, as its conditions record them, only ever moved forward (on
# both sides); where the two saw different intermediate phases, say so (timing, not a failure).
for job in "${compared[@]}"; do
  for side in sim real; do
    jq -e '[.status.conditions[]?.type | {Created: 0, Partitioning: 1, Partitioned: 2, Training: 3, Succeeded: 4, Failed: 4}[.]]
           | . == sort' "$tmp/$side/$job.full.json" >/dev/null ||
      fail "$job ($side): conditions out of phase order: $(jq -c '[.status.conditions[]? | .type]' "$tmp/$side/$job.full.json")"
  done
  sim_path=$(jq -c '[.status.conditions[]?.type]' "$tmp/sim/$job.full.json")
  real_path=$(jq -c '[.status.conditions[]?.type]' "$tmp/real/$job.full.json")
  [ "$sim_path" = "$real_path" ] || echo "note: $job was seen in $sim_path in the simulator, $real_path on the real control plane"
done
[ "$differences" -eq 0 ] || fail "$differences of ${#compared[@]} jobs differ between the simulator and the real control plane"
jq -e '.job.phase == "Failed" and ([.job.conditions[] | select(.status == "True") | .reason] | index("WorkerFailed"))' \
  "$tmp/real/worker-fails.json" >/dev/null || fail "worker-fails did not fail with WorkerFailed: $(jq -c .job "$tmp/real/worker-fails.json")"
for job in mode-dgl-api mode-parmetis mode-distparmetis mode-skip; do
  jq -e '.job.phase == "Succeeded"' "$tmp/real/$job.json" >/dev/null || fail "$job did not succeed: $(jq -c .job "$tmp/real/$job.json")"
done
echo "the ${#compared[@]} jobs ended on the real control plane exactly as in the simulator"

# --- 2. deleted while running: the garbage collector leaves nothing ---------------------------
running() { [ "$(k get dgljob deleted-while-running -o jsonpath='{.status.phase}')" = Training ]; }
wait_for 60 running || fail "deleted-while-running never reached Training: $(k get dgljob deleted-while-running -o json | jq -c .status)"
k delete dgljob deleted-while-running --wait=false >/dev/null || fail "delete the running job"
leftovers() {
  local kind
  for kind in pods configmaps services serviceaccounts roles.rbac.authorization.k8s.io rolebindings.rbac.authorization.k8s.io; do
    k get "$kind" -l training.kubeflow.org/job-name=deleted-while-running -o name
  done
  k get dgljob deleted-while-running -o name 2>/dev/null
}
gone() { [ -z "$(leftovers)" ]; }
wait_for 60 gone || fail "60 s after deleting the job these remain: $(leftovers | tr '\n' ' ')"
echo "the deleted job's objects were all collected"

# --- 3. two replicas with --leader-elect; the leader is killed --------------------------------
kill -TERM "${op_pids[main]}"
wait "${op_pids[main]}" 2>/dev/null
unset 'op_pids[main]'
election=(--leader-elect --leader-elect-resource-namespace dgl-operator --leader-elect-lease-duration 6s
  --leader-elect-renew-deadline 4s --leader-elect-retry-period 1s)
start_operator a "${election[@]}" --leader-elect-identity a
wait_for 30 grep -q 'became the leader' "$tmp/operator-a.log" || fail "replica a did not become the leader"
start_operator b "${election[@]}" --leader-elect-identity b
wait_for 10 grep -q 'dgl-operator starting\|waiting\|candidate' "$tmp/operator-b.log" || true
holder() { k -n dgl-operator get lease dgl-operator -o jsonpath='{.spec.holderIdentity}'; }
[ "$(holder)" = a ] || fail "the Lease is held by [$(holder)], not a"
k create -f "$data/takeover-job.json" >/dev/null || fail "create the takeover job"
wait_for 30 grep -q 'create pods default/after-takeover-' "$tmp/operator-a.log" || fail "the leader did not start the job"
kill -KILL "${op_pids[a]}"
wait "${op_pids[a]}" 2>/dev/null
unset 'op_pids[a]'
wait_for 40 grep -q 'became the leader' "$tmp/operator-b.log" || fail "replica b never took over"
[ "$(holder)" = b ] || fail "the Lease is held by [$(holder)] after the takeover, not b"
succeeded() { [ "$(k get dgljob after-takeover -o jsonpath='{.status.phase}')" = Succeeded ]; }
wait_for 120 succeeded || fail "the job did not succeed after the takeover: $(k get dgljob after-takeover -o json | jq -c .status)"
grep -q 'update status .*after-takeover' "$tmp/operator-b.log" || fail "replica b wrote nothing for the job"
echo "PASS: partition modes, a failing worker, deletion and a leader's death behave on kube-apiserver as in the simulator"
