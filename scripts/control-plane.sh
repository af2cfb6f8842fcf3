#!/usr/bin/env bash
# A real Kubernetes control plane on loopback, built from Go modules: the oracle the simulator's API
# server, the operator and the differential API suite are held against (docs/real-control-plane.md).
#
#   bash scripts/control-plane.sh build
#       Builds kube-apiserver, kube-controller-manager, kube-scheduler and kubectl (the module in
#       tests/controlplane/kubernetes: k8s.io/kubernetes with each staging module replaced by its
#       published v0.x release), etcd (tests/controlplane/etcd) and kwok (tests/controlplane/kwok),
#       at the versions those go.mod files pin, into
#         ${DGLSIM_CONTROL_PLANE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dglsim/control-plane}/
#           <kubernetes>-<etcd>-<kwok>/bin
#       A second build finds them there and returns at once. The cold build is long (tens of
#       minutes on 2 cores); it runs under nice with DGLSIM_GO_JOBS (default 2) packages at a time.
#       Go's module and build caches are Go's defaults. Builds into one cache wait for each other
#       (a lock file in it). Prints the binary directory last.
#   bash scripts/control-plane.sh bindir
#       Prints the binary directory (exit 77 when the binaries are not built).
#   bash scripts/control-plane.sh version
#       Prints the pinned Kubernetes version (what /version reports), e.g. v1.34.12.
#   bash scripts/control-plane.sh up DIR [--with scheduler,controller-manager,kwok] [--no-audit]
#                                    [--kwok-stages FILE]...
#       Starts etcd and kube-apiserver (and what --with names) on loopback ports it picks, each in
#       its own process group with its log in DIR/logs/ and its pid in DIR/pids/, waits until each
#       is ready (kube-apiserver's /readyz, the others' /healthz; DGLSIM_CONTROL_PLANE_TIMEOUT
#       seconds, default 120) and writes:
#         DIR/kubeconfig  server, CA data and an admin bearer token (group system:masters): kubectl
#                         and the Python client need nothing else
#         DIR/server      the URL, https://127.0.0.1:PORT
#         DIR/token       the admin token;  DIR/pki/ca.crt  the CA
#         DIR/ports       "component port" lines: the loopback ports chosen (all of them, used or not)
#         DIR/audit.log   kube-apiserver's audit log (JSON lines; Metadata for every request,
#                         RequestResponse for dgljobs, pods and nodes), unless --no-audit
#       kube-apiserver runs with --authorization-mode=Node,RBAC, so RBAC is enforced for every
#       identity but the admin. kube-controller-manager and kube-scheduler get their own tokens
#       (users system:kube-controller-manager and system:kube-scheduler, as kubeadm's certificates
#       name them) and kubeconfigs; kwok uses the admin kubeconfig and plays the stages of
#       tests/controlplane/kwok-stages.yaml (plus each --kwok-stages FILE): it manages the nodes
#       annotated kwok.x-k8s.io/node: fake, which tests create themselves.
#       DGLSIM_KUBE_SCHEDULER_FLAGS: more kube-scheduler flags, split on spaces (the placement
#       comparison sets --vmodule=schedule_one=10 to log every node's scores).
#   bash scripts/control-plane.sh down DIR
#       Stops every process up started (each process group: TERM, then KILL after 10 s) and waits
#       until each is gone, so no process and no port is left behind. Safe to run twice.
#
# Exit codes: 0 success; 77 Go missing (build) or binaries not built (up, bindir), so the tests
# that need them report themselves skipped; 2 bad usage (unknown command, argument or component);
# 1 anything else, with the failing component's last log lines on stderr (up stops what it had
# started before exiting).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
modules=$root/tests/controlplane

# The pinned versions, read from the modules' go.mod files so the cache key cannot drift from them.
module_version() { # go.mod module-path
  awk -v m="$2" '($1 == m && $2 ~ /^v/) {print $2; exit} ($1 == "require" && $2 == m) {print $3; exit}' "$1"
}
k8s_version=$(module_version "$modules/kubernetes/go.mod" k8s.io/kubernetes)
etcd_version=$(module_version "$modules/etcd/go.mod" go.etcd.io/etcd/server/v3)
kwok_version=$(module_version "$modules/kwok/go.mod" sigs.k8s.io/kwok)
cache_root=${DGLSIM_CONTROL_PLANE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dglsim/control-plane}
bin=$cache_root/$k8s_version-$etcd_version-$kwok_version/bin
binaries=(kube-apiserver kube-controller-manager kube-scheduler kubectl etcd kwok)

die() { echo "control-plane.sh: $*" >&2; exit 1; }

built() {
  local b
  for b in "${binaries[@]}"; do [ -x "$bin/$b" ] || return 1; done
}

# ---------------------------------------------------------------------------------------------
# build

k8s_ldflags() {
  local v=$k8s_version major minor flags="-s -w" pkg
  major=${v#v}; major=${major%%.*}
  minor=${v#v"$major".}; minor=${minor%%.*}
  # What hack/lib/version.sh sets, with fixed values for what a module build cannot know.
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    flags+=" -X $pkg.gitVersion=$v -X $pkg.gitMajor=$major -X $pkg.gitMinor=$minor"
    flags+=" -X $pkg.gitCommit=0000000000000000000000000000000000000000 -X $pkg.gitTreeState=clean"
    flags+=" -X $pkg.buildDate=1970-01-01T00:00:00Z"
  done
  echo "$flags"
}

cmd_build() {
  if ! command -v go >/dev/null 2>&1; then
    echo "control-plane.sh: Go is not installed: cannot build the control plane (skipped)" >&2
    exit 77
  fi
  if built; then
    echo "control plane $k8s_version, etcd $etcd_version, kwok $kwok_version: already built"
    echo "$bin"
    return 0
  fi
  local jobs=${DGLSIM_GO_JOBS:-2} staging
  mkdir -p "$cache_root"
  # One build at a time per cache: a second `build` (another worktree, another test run) waits
  # for the first and then finds the binaries.
  exec 9>"$cache_root/.build.lock"
  if ! flock -n 9; then
    echo "control-plane.sh: another build is running; waiting for it" >&2
    flock 9
  fi
  if built; then
    echo "$bin"
    return 0
  fi
  staging=$(mktemp -d "$cache_root/.build.XXXXXX")
  trap 'rm -rf "$staging"' EXIT
  echo "building kubernetes $k8s_version, etcd $etcd_version, kwok $kwok_version into $bin" >&2
  (cd "$modules/kubernetes" && GOMAXPROCS=$jobs nice -n 10 go build -p "$jobs" \
    -ldflags "$(k8s_ldflags)" -o "$staging/" \
    k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager \
    k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kubectl)
  (cd "$modules/etcd" && GOMAXPROCS=$jobs nice -n 10 go build -p "$jobs" -ldflags "-s -w" \
    -o "$staging/etcd" go.etcd.io/etcd/server/v3)
  (cd "$modules/kwok" && GOMAXPROCS=$jobs nice -n 10 go build -p "$jobs" -ldflags "-s -w" \
    -o "$staging/kwok" sigs.k8s.io/kwok/cmd/kwok)
  local b
  for b in "${binaries[@]}"; do [ -x "$staging/$b" ] || die "build produced no $b"; done
  chmod 755 "$staging"
  mkdir -p "$(dirname "$bin")"
  rm -rf "$bin"
  mv "$staging" "$bin"
  trap - EXIT
  echo "$bin"
}

cmd_bindir() {
  if ! built; then
    echo "control-plane.sh: the control plane is not built: run 'bash scripts/control-plane.sh build'" >&2
    exit 77
  fi
  echo "$bin"
}

# ---------------------------------------------------------------------------------------------
# up / down

# Free loopback ports, all distinct: every socket is held open until all are chosen.
free_ports() { # count
  /usr/bin/python3 - "$1" <<'EOF'
import socket, sys
held = []
for _ in range(int(sys.argv[1])):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    held.append(s)
print(" ".join(str(s.getsockname()[1]) for s in held))
EOF
}

# The last lines of a component's log, to stderr.
log_tail() { # name
  local log=$dir/logs/$1.log
  echo "---- last lines of $log" >&2
  tail -n "${DGLSIM_CONTROL_PLANE_LOG_LINES:-40}" "$log" >&2 2>/dev/null || true
  echo "----" >&2
}

# Starts a component in its own session (so its process group is its pid) with its log and pid.
start() { # name command...
  local name=$1
  shift
  setsid "$@" >"$dir/logs/$name.log" 2>&1 </dev/null &
  echo $! >"$dir/pids/$name"
}

# Waits until `probe` succeeds, the component dies, or the timeout passes.
wait_ready() { # name probe-command...
  local name=$1 pid deadline
  shift
  pid=$(cat "$dir/pids/$name")
  deadline=$((SECONDS + ${DGLSIM_CONTROL_PLANE_TIMEOUT:-120}))
  until "$@" >/dev/null 2>&1; do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "control-plane.sh: $name exited before it was ready" >&2
      log_tail "$name"
      return 1
    fi
    if [ $SECONDS -ge $deadline ]; then
      echo "control-plane.sh: $name not ready after ${DGLSIM_CONTROL_PLANE_TIMEOUT:-120} s" >&2
      log_tail "$name"
      return 1
    fi
    sleep 0.2
  done
}

https_ok() { # url [token]: a 200 answer whose body is "ok"
  local auth=()
  [ -n "${2:-}" ] && auth=(-H "Authorization: Bearer $2")
  [ "$(curl -sS --max-time 5 --cacert "$dir/pki/ca.crt" "${auth[@]}" "$1")" = ok ]
}
https_ok_insecure() { # url: components serving their own self-signed certificate
  [ "$(curl -sSk --max-time 5 "$1")" = ok ]
}

make_pki() {
  local p=$dir/pki
  mkdir -p "$p"
  openssl req -x509 -newkey rsa:2048 -nodes -keyout "$p/ca.key" -out "$p/ca.crt" -days 3650 \
    -subj "/CN=dglsim-control-plane-ca" 2>/dev/null
  openssl req -newkey rsa:2048 -nodes -keyout "$p/apiserver.key" -out "$p/apiserver.csr" \
    -subj "/CN=kube-apiserver" 2>/dev/null
  printf 'subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local,IP:10.0.0.1\nextendedKeyUsage=serverAuth\nkeyUsage=digitalSignature,keyEncipherment\n' >"$p/apiserver.ext"
  openssl x509 -req -in "$p/apiserver.csr" -CA "$p/ca.crt" -CAkey "$p/ca.key" -CAcreateserial \
    -out "$p/apiserver.crt" -days 3650 -extfile "$p/apiserver.ext" 2>/dev/null
  openssl genrsa -out "$p/sa.key" 2048 2>/dev/null
  openssl rsa -in "$p/sa.key" -pubout -out "$p/sa.pub" 2>/dev/null
}

write_kubeconfig() { # file user token
  local ca
  ca=$(base64 -w0 <"$dir/pki/ca.crt")
  cat >"$1" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: dglsim-control-plane
  cluster:
    server: $server
    certificate-authority-data: $ca
users:
- name: $2
  user:
    token: $3
contexts:
- name: $2@dglsim-control-plane
  context:
    cluster: dglsim-control-plane
    user: $2
    namespace: default
current-context: $2@dglsim-control-plane
EOF
}

write_audit_policy() {
  cat >"$dir/audit-policy.yaml" <<'EOF'
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: RequestResponse
  resources:
  - group: ""
    resources: [pods, nodes]
  - group: kubeflow.org
    resources: [dgljobs, dgljobs/status]
- level: Metadata
EOF
}

start_etcd() {
  start etcd "$bin/etcd" --name default --data-dir "$dir/etcd" --unsafe-no-fsync \
    --listen-client-urls "http://127.0.0.1:$etcd_port" --advertise-client-urls "http://127.0.0.1:$etcd_port" \
    --listen-peer-urls "http://127.0.0.1:$etcd_peer_port" \
    --initial-advertise-peer-urls "http://127.0.0.1:$etcd_peer_port" \
    --initial-cluster "default=http://127.0.0.1:$etcd_peer_port" --log-level warn
  wait_ready etcd curl -fsS --max-time 5 "http://127.0.0.1:$etcd_port/health"
}

start_apiserver() {
  local audit=()
  if [ "$with_audit" = 1 ]; then
    write_audit_policy
    audit=(--audit-policy-file="$dir/audit-policy.yaml" --audit-log-path="$dir/audit.log"
      --audit-log-format=json --audit-log-maxbackup=1 --audit-log-maxsize=500)
  fi
  start kube-apiserver "$bin/kube-apiserver" --etcd-servers="http://127.0.0.1:$etcd_port" \
    --bind-address=127.0.0.1 --advertise-address=127.0.0.1 --secure-port="$apiserver_port" \
    --tls-cert-file="$dir/pki/apiserver.crt" --tls-private-key-file="$dir/pki/apiserver.key" \
    --client-ca-file="$dir/pki/ca.crt" --token-auth-file="$dir/tokens.csv" \
    --service-account-issuer=https://kubernetes.default.svc.cluster.local \
    --service-account-key-file="$dir/pki/sa.pub" --service-account-signing-key-file="$dir/pki/sa.key" \
    --service-cluster-ip-range=10.0.0.0/24 --authorization-mode=Node,RBAC --allow-privileged=true \
    --profiling=false --cert-dir="$dir/pki" "${audit[@]}"
  wait_ready kube-apiserver https_ok "$server/readyz" "$admin_token"
}

start_controller_manager() {
  start kube-controller-manager "$bin/kube-controller-manager" \
    --kubeconfig="$dir/kube-controller-manager.kubeconfig" \
    --authentication-kubeconfig="$dir/kube-controller-manager.kubeconfig" \
    --authorization-kubeconfig="$dir/kube-controller-manager.kubeconfig" \
    --bind-address=127.0.0.1 --secure-port="$kcm_port" --leader-elect=false \
    --use-service-account-credentials=true --service-account-private-key-file="$dir/pki/sa.key" \
    --root-ca-file="$dir/pki/ca.crt" --cluster-signing-cert-file="$dir/pki/ca.crt" \
    --cluster-signing-key-file="$dir/pki/ca.key" --cert-dir="$dir/kcm-certs" --profiling=false
  wait_ready kube-controller-manager https_ok_insecure "https://127.0.0.1:$kcm_port/healthz"
}

start_scheduler() {
  start kube-scheduler "$bin/kube-scheduler" --kubeconfig="$dir/kube-scheduler.kubeconfig" \
    --authentication-kubeconfig="$dir/kube-scheduler.kubeconfig" \
    --authorization-kubeconfig="$dir/kube-scheduler.kubeconfig" \
    --bind-address=127.0.0.1 --secure-port="$scheduler_port" --leader-elect=false \
    --cert-dir="$dir/scheduler-certs" --profiling=false ${DGLSIM_KUBE_SCHEDULER_FLAGS:-}
  wait_ready kube-scheduler https_ok_insecure "https://127.0.0.1:$scheduler_port/healthz"
}

start_kwok() {
  local configs=(--config "$modules/kwok-stages.yaml") f
  for f in "${kwok_stages[@]}"; do configs+=(--config "$f"); done
  start kwok "$bin/kwok" --kubeconfig="$dir/kubeconfig" "${configs[@]}" \
    --manage-all-nodes=false --manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake \
    --manage-nodes-with-label-selector= --disregard-status-with-annotation-selector=kwok.x-k8s.io/status=custom \
    --disregard-status-with-label-selector= --cidr=10.244.0.1/16 --node-ip=10.1.0.1 \
    --server-address="127.0.0.1:$kwok_port"
  wait_ready kwok curl -fsS --max-time 5 "http://127.0.0.1:$kwok_port/healthz"
}

cmd_up() {
  dir=${1:-}
  [ -n "$dir" ] || { echo "usage: control-plane.sh up DIR [--with scheduler,controller-manager,kwok] [--no-audit] [--kwok-stages FILE]" >&2; exit 2; }
  shift
  local with="" c
  with_audit=1
  kwok_stages=()
  while [ $# -gt 0 ]; do
    case "$1" in
      --with) with=${2:-}; shift 2 ;;
      --with=*) with=${1#--with=}; shift ;;
      --no-audit) with_audit=0; shift ;;
      --kwok-stages) kwok_stages+=("${2:-}"); shift 2 ;;
      *) echo "control-plane.sh up: unknown argument '$1'" >&2; exit 2 ;;
    esac
  done
  for c in ${with//,/ }; do
    case "$c" in
      scheduler|controller-manager|kwok) ;;
      *) echo "control-plane.sh up: --with: unknown component '$c' (scheduler, controller-manager, kwok)" >&2; exit 2 ;;
    esac
  done
  if ! built; then
    echo "control-plane.sh: the control plane is not built: run 'bash scripts/control-plane.sh build'" >&2
    exit 77
  fi
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  if [ -d "$dir/pids" ] && [ -n "$(ls -A "$dir/pids" 2>/dev/null)" ]; then
    die "$dir already has a running control plane (run 'control-plane.sh down $dir' first)"
  fi
  rm -rf "$dir/etcd" "$dir/logs" "$dir/pids" "$dir/audit.log"
  mkdir -p "$dir/logs" "$dir/pids"
  read -r etcd_port etcd_peer_port apiserver_port kcm_port scheduler_port kwok_port <<<"$(free_ports 6)"
  server=https://127.0.0.1:$apiserver_port
  make_pki
  admin_token=$(openssl rand -hex 24)
  local kcm_token scheduler_token
  kcm_token=$(openssl rand -hex 24)
  scheduler_token=$(openssl rand -hex 24)
  {
    echo "$admin_token,admin,admin-uid,\"system:masters\""
    echo "$kcm_token,system:kube-controller-manager,kube-controller-manager-uid"
    echo "$scheduler_token,system:kube-scheduler,kube-scheduler-uid"
  } >"$dir/tokens.csv"
  echo "$admin_token" >"$dir/token"
  echo "$server" >"$dir/server"
  printf 'etcd %s\netcd-peer %s\nkube-apiserver %s\nkube-controller-manager %s\nkube-scheduler %s\nkwok %s\n' \
    "$etcd_port" "$etcd_peer_port" "$apiserver_port" "$kcm_port" "$scheduler_port" "$kwok_port" >"$dir/ports"
  write_kubeconfig "$dir/kubeconfig" admin "$admin_token"
  write_kubeconfig "$dir/kube-controller-manager.kubeconfig" system:kube-controller-manager "$kcm_token"
  write_kubeconfig "$dir/kube-scheduler.kubeconfig" system:kube-scheduler "$scheduler_token"
  trap 'stop_all; exit 1' ERR INT TERM
  start_etcd || { stop_all; exit 1; }
  start_apiserver || { stop_all; exit 1; }
  for c in ${with//,/ }; do
    case "$c" in
      controller-manager) start_controller_manager || { stop_all; exit 1; } ;;
      scheduler) start_scheduler || { stop_all; exit 1; } ;;
      kwok) start_kwok || { stop_all; exit 1; } ;;
    esac
  done
  trap - ERR INT TERM
  echo "control plane $k8s_version up at $server (kubeconfig $dir/kubeconfig)"
}

# Whether a process group has a member that is not a zombie.
group_alive() { # pgid
  local p state
  for p in $(pgrep -g "$1" 2>/dev/null); do
    state=$(awk '{print $3}' "/proc/$p/stat" 2>/dev/null) || continue
    [ "$state" != Z ] && return 0
  done
  return 1
}

# Stops every process group under DIR/pids, TERM first, KILL after 10 s, and waits for each.
stop_all() {
  local f pid deadline
  [ -d "$dir/pids" ] || return 0
  # Reverse start order: the components before kube-apiserver, kube-apiserver before etcd.
  for f in kwok kube-scheduler kube-controller-manager kube-apiserver etcd; do
    [ -f "$dir/pids/$f" ] || continue
    pid=$(cat "$dir/pids/$f")
    kill -TERM -- "-$pid" 2>/dev/null || true
    deadline=$((SECONDS + 10))
    while group_alive "$pid"; do
      if [ $SECONDS -ge $deadline ]; then
        kill -KILL -- "-$pid" 2>/dev/null || true
      fi
      sleep 0.1
    done
    wait "$pid" 2>/dev/null || true # reaps it when this shell started it (up failing half-way)
    rm -f "$dir/pids/$f"
  done
}

cmd_down() {
  dir=${1:-}
  [ -n "$dir" ] || { echo "usage: control-plane.sh down DIR" >&2; exit 2; }
  [ -d "$dir" ] || return 0
  dir=$(cd "$dir" && pwd)
  stop_all
}

case "${1:-}" in
  build) cmd_build ;;
  bindir) cmd_bindir ;;
  version) echo "$k8s_version" ;;
  up) shift; cmd_up "$@" ;;
  down) shift; cmd_down "$@" ;;
  *) echo "usage: control-plane.sh build | bindir | version | up DIR [--with scheduler,controller-manager,kwok] [--no-audit] | down DIR" >&2; exit 2 ;;
esac
