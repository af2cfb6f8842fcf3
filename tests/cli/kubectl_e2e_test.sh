#!/usr/bin/env bash
# The real kubectl against `dglsim serve`: discovery, get (tables, -A, -o wide/yaml/json), get -w,
# describe with events, create, apply (client-side and server-side), delete, logs and the errors
# (404, 409, 422), a DGLJob created over HTTP reconciled to Succeeded by the operator inside the
# simulation, and what real clients need: complete nodeInfo, namespace labels, deploy/rbac.yaml
# (cluster-scoped RBAC), Leases, server dry runs and `diff`, paged lists, server-side apply
# conflicts and force, `explain`; `auth can-i` and `auth whoami` (which kubectl 1.32 sends as protobuf).
#
# Usage: kubectl_e2e_test.sh DGLSIM
# Exits 77 (CTest SKIP_RETURN_CODE) when kubectl is not installed.
set -uo pipefail

DGLSIM=${1:?usage: kubectl_e2e_test.sh DGLSIM}
HERE=$(cd "$(dirname "$0")" && pwd)
DATA=$HERE/kubectl-e2e
source "$HERE/dglsim_lib.sh"   # fail
source "$HERE/kubectl_lib.sh"  # pass, expect_in, expect_re

if ! command -v kubectl >/dev/null 2>&1; then
  echo "SKIP: kubectl not found on PATH; the kubectl end-to-end test needs it"
  exit 77
fi

WORK=$(mktemp -d)
SERVER_PID=
cleanup() {
  if [ -n "$SERVER_PID" ]; then
    kill "$SERVER_PID" 2>/dev/null
    wait "$SERVER_PID" 2>/dev/null
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT

# A fresh HOME and caches: no kubeconfig, no discovery cached from another server on this port.
export HOME=$WORK/home
export KUBECONFIG=$WORK/kubeconfig-none
mkdir -p "$HOME"

failures=0

"$DGLSIM" serve "$DATA/scenario.yaml" --port 0 --speed max >"$WORK/serve.out" 2>"$WORK/serve.err" &
SERVER_PID=$!
URL=
for _ in $(seq 1 300); do
  URL=$(sed -n 's/^serving on \(http:[^ ]*\)$/\1/p' "$WORK/serve.out")
  [ -n "$URL" ] && break
  if ! kill -0 "$SERVER_PID" 2>/dev/null; then break; fi
  sleep 0.1  # polling for the server to come up, with a deadline
done
if [ -z "$URL" ]; then
  echo "FAIL: dglsim serve printed no ready line"
  cat "$WORK/serve.out" "$WORK/serve.err"
  exit 1
fi
echo "server: $URL"

k() { kubectl --server "$URL" --cache-dir "$WORK/cache" --request-timeout 20s "$@" 2>&1; }

# Polls until `kubectl get dgljob NAME` reports PHASE (the simulation runs at full speed).
wait_phase() {
  local name=$1 phase=$2 got=
  for _ in $(seq 1 300); do
    got=$(kubectl --server "$URL" --cache-dir "$WORK/cache" get dgljob "$name" -o jsonpath='{.status.phase}' 2>/dev/null)
    [ "$got" = "$phase" ] && return 0
    sleep 0.1
  done
  echo "    (dgljob $name is in phase [$got], not $phase)"
  return 1
}

# --- version and discovery ---------------------------------------------------------------------
out=$(k version)
expect_in "kubectl version shows the server" "$out" "Server Version: v1.32"

out=$(k api-resources)
expect_in "api-resources lists DGLJobs and the core kinds with short names" "$out" \
  "dgljobs" "kubeflow.org/v1alpha1" "DGLJob" "pods" "po " "nodes" "events"

# --- reads -------------------------------------------------------------------------------------
if wait_phase seeded Succeeded; then pass "the scenario's job reached Succeeded"; else fail "the scenario's job never reached Succeeded"; fi

out=$(k get dgljobs)
expect_in "get dgljobs has the DGLJob columns" "$out" "NAME" "PHASE" "MODE" "WORKERS" "AGE"
expect_re "get dgljobs shows the scenario's job" "$out" "^seeded +Succeeded +Skip +0 +[0-9]"

out=$(k get dgljobs -o wide)
expect_in "get dgljobs -o wide adds RESTARTS" "$out" "RESTARTS"

out=$(k get pods -A)
expect_in "get pods -A has namespaces and pod columns" "$out" "NAMESPACE" "READY" "STATUS" "RESTARTS" "default" "seeded-launcher"

out=$(k get po -o wide)
expect_in "get po -o wide adds IP and NODE" "$out" "IP" "NODE" "gpu-0"
expect_re "the launcher pod completed on gpu-0" "$out" "^seeded-launcher +0/1 +Completed +0 .* gpu-0"

out=$(k get nodes)
expect_in "get nodes shows the node Ready" "$out" "STATUS" "ROLES" "VERSION" "gpu-0"
expect_re "the node is Ready" "$out" "^gpu-0 +Ready"

out=$(k get events)
expect_in "get events has the event columns" "$out" "LAST SEEN" "TYPE" "REASON" "OBJECT" "MESSAGE" "dgljob/seeded"

out=$(k get events -A)
expect_in "get events -A adds the namespace" "$out" "NAMESPACE"

out=$(k get dgljob seeded -o yaml)
expect_in "get -o yaml is the object" "$out" "kind: DGLJob" "apiVersion: kubeflow.org/v1alpha1" "phase: Succeeded" "uid:"

out=$(k get dgljobs -o json)
expect_in "get -o json lists the objects" "$out" '"kind": "DGLJob"' '"name": "seeded"' '"items"'

out=$(k get pods -l training.kubeflow.org/job-name=seeded -o name)
expect_in "a label selector selects the job's pods" "$out" "pod/seeded-launcher"

out=$(k get pods --field-selector spec.nodeName=nowhere)
expect_in "a field selector that matches nothing" "$out" "No resources found"

out=$(k describe dgljob seeded)
expect_in "describe dgljob shows the object and its events" "$out" "Name:" "seeded" "Kind:" "DGLJob" "Events:" "DGLJobCreated"

# --- logs --------------------------------------------------------------------------------------
out=$(k logs seeded-launcher)
if [ -n "$out" ] && ! grep -q "Error" <<<"$out"; then pass "logs returns the launcher's log lines"; else
  fail "logs returned nothing or an error:"
  echo "$out" | sed 's/^/    | /'
fi
out=$(k logs seeded-launcher -c nope)
expect_in "logs of an unknown container is a clean error" "$out" "is not valid for pod seeded-launcher"
out=$(k logs nope-pod)
expect_in "logs of a missing pod is NotFound" "$out" 'pods "nope-pod" not found'

# --- watch, create, reconcile ------------------------------------------------------------------
timeout 15 kubectl --server "$URL" --cache-dir "$WORK/cache" get dgljobs -w >"$WORK/watch.out" 2>&1 &
WATCH_PID=$!
# The watch has listed (and so holds a resourceVersion to watch from) once it printed the list.
for _ in $(seq 1 100); do grep -q "^seeded" "$WORK/watch.out" && break; sleep 0.1; done
out=$(k create -f "$DATA/job.yaml")
expect_in "create -f" "$out" "dgljob.kubeflow.org/e2e-created created"
if wait_phase e2e-created Succeeded; then pass "the created job was reconciled to Succeeded"; else fail "the created job never reached Succeeded"; fi
for _ in $(seq 1 100); do grep -qE "^e2e-created +Succeeded" "$WORK/watch.out" && break; sleep 0.1; done
kill "$WATCH_PID" 2>/dev/null
wait "$WATCH_PID" 2>/dev/null
out=$(cat "$WORK/watch.out")
expect_in "get -w printed the existing job first" "$out" "NAME" "seeded"
expect_re "get -w streamed the new job's rows as it ran" "$out" "^e2e-created +(Pending|Training)"
expect_re "get -w streamed the new job reaching Succeeded" "$out" "^e2e-created +Succeeded"

out=$(timeout 5 kubectl --server "$URL" --cache-dir "$WORK/cache" get pods -w 2>&1)
expect_in "get pods -w prints the current pods, then keeps streaming" "$out" "e2e-created-launcher"

out=$(k create -f "$DATA/job.yaml")
expect_in "create of an existing object is 409 AlreadyExists" "$out" \
  'Error from server (AlreadyExists)' 'dgljobs.kubeflow.org "e2e-created" already exists'

out=$(k create -f "$DATA/invalid.yaml")
expect_in "an invalid DGLJob is 422 Invalid with its field" "$out" 'The DGLJob "e2e-invalid" is invalid' "spec.partitionMode"

out=$(k get dgljob nope)
expect_in "get of a missing object is 404 NotFound" "$out" 'Error from server (NotFound): dgljobs.kubeflow.org "nope" not found'

out=$(k get widgets)
expect_in "an unknown resource type" "$out" 'the server doesn'"'"'t have a resource type "widgets"'

# --- apply -------------------------------------------------------------------------------------
out=$(k apply -f "$DATA/applied.yaml")
expect_in "apply -f of a new object creates it" "$out" "dgljob.kubeflow.org/e2e-applied created"
out=$(k apply -f "$DATA/applied.yaml")
expect_in "apply -f again is unchanged" "$out" "dgljob.kubeflow.org/e2e-applied unchanged"
sed 's/team: graph/team: vision/' "$DATA/applied.yaml" >"$WORK/applied2.yaml"
out=$(k apply -f "$WORK/applied2.yaml")
expect_in "apply -f of a change patches it" "$out" "dgljob.kubeflow.org/e2e-applied configured"
out=$(k get dgljob e2e-applied -o jsonpath='{.metadata.labels.team}')
expect_in "the applied change is stored" "$out" "vision"

out=$(k apply -f "$DATA/configmap.yaml")
expect_in "apply -f of a core kind" "$out" "configmap/e2e-settings created"
sed 's/epochs: "1"/epochs: "3"/' "$DATA/configmap.yaml" >"$WORK/configmap2.yaml"
out=$(k apply -f "$WORK/configmap2.yaml")
expect_in "apply -f of a core kind sends a strategic merge patch" "$out" "configmap/e2e-settings configured"
out=$(k get configmap e2e-settings -o jsonpath='{.data.epochs}/{.data.mode}')
expect_in "the strategic merge patch kept the other keys" "$out" "3/Skip"

sed 's/e2e-applied/e2e-ssa/g' "$DATA/applied.yaml" >"$WORK/ssa.yaml"
out=$(k apply --server-side -f "$WORK/ssa.yaml")
expect_in "apply --server-side creates" "$out" "dgljob.kubeflow.org/e2e-ssa serverside-applied"
sed 's/team: graph/team: ssa/' "$WORK/ssa.yaml" >"$WORK/ssa2.yaml"
out=$(k apply --server-side -f "$WORK/ssa2.yaml")
expect_in "apply --server-side again" "$out" "dgljob.kubeflow.org/e2e-ssa serverside-applied"
out=$(k get dgljob e2e-ssa -o jsonpath='{.metadata.labels.team}')
expect_in "the server-side applied change is stored" "$out" "ssa"

out=$(k label dgljob e2e-ssa stage=test)
expect_in "label patches" "$out" "dgljob.kubeflow.org/e2e-ssa labeled"

# --- what real clients need ----------------------------------------------------------------
out=$(k get nodes -o wide)
expect_re "get nodes -o wide shows OS image, kernel and runtime" "$out" \
  "^gpu-0 +Ready .*dglsim simulated node +simulated +dglsim://simulated"
out=$(k get namespace default --show-labels)
expect_in "namespaces carry kubernetes.io/metadata.name" "$out" "kubernetes.io/metadata.name=default"
# kubectl 1.32 sends `auth can-i`'s SelfSubjectAccessReview as protobuf (protobuf_body.h).
out=$(k auth can-i create pods)
expect_re "auth can-i create pods (a protobuf review) answers yes" "$out" "^yes$"
out=$(k auth whoami)
expect_in "auth whoami: every request is anonymous" "$out" "system:anonymous" "system:unauthenticated"
out=$(k apply -f "$HERE/../../deploy/rbac.yaml")
expect_in "deploy/rbac.yaml applies (ClusterRole, ClusterRoleBinding, the leader election Role)" "$out" \
  "clusterrole.rbac.authorization.k8s.io/dgl-operator created" \
  "clusterrolebinding.rbac.authorization.k8s.io/dgl-operator created" \
  "role.rbac.authorization.k8s.io/dgl-operator-leader-election created"
out=$(k create -f - <<'LEASE'
apiVersion: coordination.k8s.io/v1
kind: Lease
metadata: {name: e2e-lease}
spec: {holderIdentity: e2e-a, leaseDurationSeconds: 15}
LEASE
)
expect_in "create a Lease" "$out" "lease.coordination.k8s.io/e2e-lease created"
out=$(k get lease e2e-lease -o jsonpath='{.spec.holderIdentity}/{.spec.leaseDurationSeconds}')
expect_in "get the Lease back" "$out" "e2e-a/15"
out=$(k get leases)
expect_in "get leases prints the Lease's columns" "$out" "HOLDER" "e2e-lease" "e2e-a"

sed 's/e2e-settings/e2e-dry/' "$DATA/configmap.yaml" >"$WORK/dry.yaml"
out=$(k apply --dry-run=server -f "$WORK/dry.yaml")
expect_in "apply --dry-run=server answers" "$out" "configmap/e2e-dry created (server dry run)"
out=$(k get configmap e2e-dry)
expect_in "a server dry run stores nothing" "$out" "NotFound"
out=$(k diff -f "$DATA/configmap.yaml")
diff_code=$?
expect_in "diff shows the change a manifest would make" "$out" '-  epochs: "3"' '+  epochs: "1"'
[ "$diff_code" -eq 1 ] && pass "diff exits 1 when there are differences" || fail "diff exited $diff_code"

for i in 1 2 3; do
  out=$(printf 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: e2e-page-%s}\ndata: {k: v}\n' "$i" | k create -f -)
  expect_in "create e2e-page-$i" "$out" "configmap/e2e-page-$i created"
done
out=$(k get configmaps --chunk-size=1 -o name)
expect_in "get --chunk-size=1 pages through every object" "$out" \
  "configmap/e2e-page-1" "configmap/e2e-page-2" "configmap/e2e-page-3" "configmap/e2e-settings"

out=$(k apply --server-side --field-manager=other -f "$DATA/configmap.yaml")
expect_in "apply --server-side by a second manager conflicts" "$out" "conflict" "kubectl-client-side-apply" ".data.epochs"
out=$(k apply --server-side --field-manager=other --force-conflicts -f "$DATA/configmap.yaml")
expect_in "apply --server-side --force-conflicts takes the fields over" "$out" "configmap/e2e-settings serverside-applied"
out=$(k get configmap e2e-settings --show-managed-fields -o jsonpath='{.metadata.managedFields[*].manager}')
expect_in "managedFields name both managers" "$out" "other" "kubectl-client-side-apply"
out=$(k get configmap e2e-settings -o jsonpath='{.data.epochs}')
expect_in "the forced apply's value is stored" "$out" "1"

out=$(k explain dgljob.spec.partitionMode)
expect_in "explain reads the CRD's schema" "$out" "FIELD: partitionMode" "DGL-API"

# --- delete ------------------------------------------------------------------------------------
out=$(k delete dgljob e2e-created)
expect_in "delete" "$out" 'dgljob.kubeflow.org "e2e-created" deleted'
out=$(k get dgljob e2e-created)
expect_in "a deleted object is gone" "$out" "NotFound"
out=$(k delete -f "$DATA/configmap.yaml")
expect_in "delete -f" "$out" 'configmap "e2e-settings" deleted'
out=$(k delete dgljob nope)
expect_in "delete of a missing object is NotFound" "$out" 'Error from server (NotFound)'

if ! kill -0 "$SERVER_PID" 2>/dev/null; then fail "dglsim serve died"; cat "$WORK/serve.err"; fi
if [ "$failures" -gt 0 ]; then
  echo "kubectl e2e: $failures check(s) failed"
  echo "--- dglsim serve stderr:"
  cat "$WORK/serve.err"
  exit 1
fi
echo "kubectl e2e: all checks passed"
