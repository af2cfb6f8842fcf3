#!/usr/bin/env bash
# dgl-operator as a user runs it, without any API server: `crd` prints exactly deploy/crd.yaml (so
# the checked-in CRD cannot drift from the schema the code generates), and bad input is refused
# with exit code 2 and a message, never a crash or a hang.
# Usage: dgl_operator_cli_test.sh DGL_OPERATOR CRD_YAML   (CTest passes both)
set -uo pipefail

operator=${1:?usage: $0 DGL_OPERATOR CRD_YAML}
crd=${2:?usage: $0 DGL_OPERATOR CRD_YAML}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

"$operator" crd >"$tmp/crd.yaml" 2>"$tmp/crd.err" || fail "dgl-operator crd exited $?"
diff -u "$crd" "$tmp/crd.yaml" >"$tmp/crd.diff" ||
  { fail "deploy/crd.yaml differs from \`dgl-operator crd\`; regenerate it:"; cat "$tmp/crd.diff"; }

# refuse NAME EXPECTED_STDERR_REGEX ARGS...: exit code 2 within 10 s, the message on stderr.
refuse() {
  local name=$1 regex=$2
  shift 2
  # A clean environment: no in-cluster variables leak in from a CI pod.
  env -u KUBERNETES_SERVICE_HOST -u KUBERNETES_SERVICE_PORT timeout 10 "$operator" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
  local code=$?
  [ "$code" -eq 2 ] || { fail "$name: dgl-operator $* exited $code, expected 2"; sed 's/^/  /' "$tmp/$name.err"; return; }
  grep -qE "$regex" "$tmp/$name.err" || { fail "$name: stderr does not match /$regex/"; sed 's/^/  /' "$tmp/$name.err"; }
  if grep -qE 'AddressSanitizer|runtime error:|terminate called|LeakSanitizer' "$tmp/$name.err"; then
    fail "$name: crashed"
  fi
}

refuse not-http 'must start with http:// or https://' --server ftp://example.com
refuse bad-port 'bad port' --server http://127.0.0.1:99999
refuse bad-resync 'not a positive duration' --server http://127.0.0.1:1 --resync soon
refuse zero-workers 'must be >= 1' --server http://127.0.0.1:1 --workers 0
refuse no-cluster 'not running in a cluster' --resync 30s
refuse unknown-flag 'unknown|not expected|extras' --serverr http://x
refuse bad-renew-deadline 'renew deadline must be longer than the retry period' \
  --server http://127.0.0.1:1 --leader-elect --leader-elect-retry-period 10s
refuse bad-lease-duration 'lease duration must be longer than the renew deadline' \
  --server http://127.0.0.1:1 --leader-elect --leader-elect-lease-duration 5s
refuse bad-election-duration 'take durations' --server http://127.0.0.1:1 --leader-elect --leader-elect-retry-period soon
refuse bad-log-format 'log-format' --server http://127.0.0.1:1 --log-format xml
refuse bad-metrics-address 'metrics-bind-address.*not an address' --server http://127.0.0.1:1 --metrics-bind-address 8080
refuse bad-probe-port 'health-probe-bind-address.*port must be a number' --server http://127.0.0.1:1 \
  --health-probe-bind-address :70000
refuse unbindable-address 'cannot listen on 192.0.2.1:8080' --server http://127.0.0.1:1 --metrics-bind-address 192.0.2.1:8080

# --kubeconfig: unreadable, malformed or unusable files are refused with the file and field path.
cat >"$tmp/certs.kubeconfig" <<'EOF'
apiVersion: v1
kind: Config
current-context: c
contexts: [{name: c, context: {cluster: k, user: u}}]
clusters: [{name: k, cluster: {server: "https://127.0.0.1:6443", certificate-authority-data: "LS0t"}}]
users: [{name: u, user: {client-certificate-data: "LS0t", client-key-data: "LS0t"}}]
EOF
cat >"$tmp/no-server.kubeconfig" <<'EOF'
current-context: c
contexts: [{name: c, context: {cluster: k}}]
clusters: [{name: k, cluster: {insecure-skip-tls-verify: true}}]
EOF
cat >"$tmp/not-pem.kubeconfig" <<'EOF'
current-context: c
contexts: [{name: c, context: {cluster: k}}]
clusters: [{name: k, cluster: {server: "https://127.0.0.1:6443", certificate-authority-data: "bm90IGEgY2VydA=="}}]
EOF
printf 'clusters: [\n' >"$tmp/broken.kubeconfig"
refuse kubeconfig-missing 'kubeconfig .*/missing.kubeconfig: \(file\): cannot be read' --kubeconfig "$tmp/missing.kubeconfig"
refuse kubeconfig-client-cert 'users\[0\]\.user\.client-certificate.*not supported' --kubeconfig "$tmp/certs.kubeconfig"
refuse kubeconfig-no-server 'clusters\[0\]\.cluster\.server: missing' --kubeconfig "$tmp/no-server.kubeconfig"
refuse kubeconfig-no-context 'contexts: no entry named "other"' --kubeconfig "$tmp/no-server.kubeconfig" --context other
refuse kubeconfig-not-pem 'holds no PEM certificate' --kubeconfig "$tmp/not-pem.kubeconfig"
refuse kubeconfig-yaml 'broken.kubeconfig: line ' --kubeconfig "$tmp/broken.kubeconfig"
refuse context-alone 'context needs --kubeconfig' --server http://127.0.0.1:1 --context c

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "PASS: dgl-operator crd and bad input"
