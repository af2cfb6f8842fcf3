#!/bin/bash
# `dglsim serve` authentication and authorization over HTTP (docs/rbac.md): a non-loopback address
# without --token-auth-file refuses to start (exit 2); a bad token file is exit 2; with a token file,
# no token or an unknown one is kube-apiserver's 401 Status, the operator's service account token
# lists pods but cannot delete nodes (kube-apiserver's 403 body, word for word), access reviews and
# impersonation answer from the same RBAC; TokenRequest tokens are their service account;
# --anonymous-auth lets /healthz in but not the API. With kubectl on PATH, `kubectl auth can-i --as`
# and `kubectl create token` are checked too.
# Usage: serve_auth_test.sh DGLSIM SCENARIO
set -u
dglsim=$1
scenario=$2
tmp=$(mktemp -d)
serve_pid=""
cleanup() {
  [ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null && wait "$serve_pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $1"
  [ -f "$tmp/serve.err" ] && sed 's/^/  serve: /' "$tmp/serve.err" | tail -20
  exit 1
}
source "$(dirname "$0")/serve_lib.sh"

# Refusals to start.
"$dglsim" serve "$scenario" --port 0 --address 0.0.0.0 >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] || fail "--address 0.0.0.0 without --token-auth-file should exit 2"
grep -q "needs authentication" "$tmp/err" || fail "the refusal should say why: $(cat "$tmp/err")"
printf 'only-two,fields\n' >"$tmp/bad.csv"
"$dglsim" serve "$scenario" --port 0 --token-auth-file "$tmp/bad.csv" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] || fail "a malformed token file should exit 2"
grep -q "bad.csv:1: expected token,user,uid" "$tmp/err" || fail "the token file error should name the line: $(cat "$tmp/err")"

cat >"$tmp/tokens.csv" <<'CSV'
# token,user,uid,"groups"
op-token,system:serviceaccount:dgl-operator:dgl-operator,op-uid,"system:serviceaccounts,system:serviceaccounts:dgl-operator"
admin-token,alice,alice-uid,system:masters
CSV
start_serve "$dglsim" "$scenario" --speed max --token-auth-file "$tmp/tokens.csv"

status() { curl -s -o "$tmp/body" -w '%{http_code}' "$@"; }
[ "$(status "$url/api/v1/pods")" = 401 ] || fail "no token should be 401"
grep -q '"reason":"Unauthorized"' "$tmp/body" && grep -q '"message":"Unauthorized"' "$tmp/body" ||
  fail "the 401 body should be kube-apiserver's Unauthorized Status: $(cat "$tmp/body")"
[ "$(status -H 'Authorization: Bearer nope' "$url/api/v1/pods")" = 401 ] || fail "an unknown token should be 401"
op=(-H 'Authorization: Bearer op-token')
[ "$(status "${op[@]}" "$url/api/v1/pods")" = 200 ] || fail "the operator may list pods: $(cat "$tmp/body")"
[ "$(status "${op[@]}" -X DELETE "$url/api/v1/nodes/gpu-0")" = 403 ] || fail "the operator may not delete nodes"
grep -qF '"message":"nodes \"gpu-0\" is forbidden: User \"system:serviceaccount:dgl-operator:dgl-operator\" cannot delete resource \"nodes\" in API group \"\" at the cluster scope"' "$tmp/body" ||
  fail "the 403 body should be kube-apiserver's words: $(cat "$tmp/body")"
[ "$(status "${op[@]}" "$url/api/v1/namespaces/default/secrets")" = 403 ] || fail "the operator may not list secrets"
grep -qF 'cannot list resource \"secrets\" in API group \"\" in the namespace \"default\"' "$tmp/body" ||
  fail "a namespaced 403 names the namespace: $(cat "$tmp/body")"
# Escalation: the operator cannot create a Role granting what it does not hold.
role='{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"x","namespace":"default"},"rules":[{"apiGroups":[""],"resources":["secrets"],"verbs":["get"]}]}'
[ "$(status "${op[@]}" -X POST -H 'Content-Type: application/json' -d "$role" "$url/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles")" = 403 ] ||
  fail "a Role granting secrets should be refused to the operator: $(cat "$tmp/body")"
grep -qF 'is attempting to grant RBAC permissions not currently held' "$tmp/body" || fail "the escalation refusal: $(cat "$tmp/body")"
# Access reviews from the same evaluator.
sar='{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{"user":"system:serviceaccount:dgl-operator:dgl-operator","groups":["system:serviceaccounts"],"resourceAttributes":{"verb":"update","group":"kubeflow.org","resource":"dgljobs","subresource":"status","namespace":"default"}}}'
admin=(-H 'Authorization: Bearer admin-token')
status "${admin[@]}" -X POST -H 'Content-Type: application/json' -d "$sar" "$url/apis/authorization.k8s.io/v1/subjectaccessreviews" >/dev/null
grep -q '"allowed":true' "$tmp/body" || fail "the operator may update dgljobs/status: $(cat "$tmp/body")"
sar=${sar/dgljobs/nodes}
status "${admin[@]}" -X POST -H 'Content-Type: application/json' -d "$sar" "$url/apis/authorization.k8s.io/v1/subjectaccessreviews" >/dev/null
grep -q '"allowed":false' "$tmp/body" || fail "the operator may not update nodes/status: $(cat "$tmp/body")"
# Impersonation needs the impersonate verb: alice (system:masters) has it, the operator not.
[ "$(status "${admin[@]}" -H 'Impersonate-User: system:serviceaccount:dgl-operator:dgl-operator' "$url/api/v1/namespaces/default/secrets")" = 403 ] ||
  fail "alice as the operator may not list secrets"
[ "$(status "${op[@]}" -H 'Impersonate-User: alice' "$url/api/v1/pods")" = 403 ] || fail "the operator may not impersonate"
# Service-account tokens (TokenRequest): alice asks for one; it is the service account under RBAC.
json=(-H 'Content-Type: application/json')
status "${admin[@]}" "${json[@]}" -X POST -d '{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"reader"}}' \
  "$url/api/v1/namespaces/default/serviceaccounts" >/dev/null
[ "$(status "${op[@]}" "${json[@]}" -X POST -d '{"spec":{}}' "$url/api/v1/namespaces/default/serviceaccounts/reader/token")" = 403 ] ||
  fail "the operator may not ask for another account's token: $(cat "$tmp/body")"
[ "$(status "${admin[@]}" "${json[@]}" -X POST -d '{"spec":{}}' "$url/api/v1/namespaces/default/serviceaccounts/reader/token")" = 201 ] ||
  fail "alice asks for a token: $(cat "$tmp/body")"
sa_token=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["status"]["token"])' "$tmp/body")
[ "$(status -H "Authorization: Bearer $sa_token" "$url/api/v1/namespaces/default/pods")" = 403 ] ||
  fail "a service account bound to nothing may not list pods: $(cat "$tmp/body")"
grep -qF 'User \"system:serviceaccount:default:reader\" cannot list resource \"pods\"' "$tmp/body" ||
  fail "the token's user is the service account: $(cat "$tmp/body")"
[ "$(status -H "Authorization: Bearer ${sa_token}x" "$url/api/v1/namespaces/default/pods")" = 401 ] ||
  fail "a token that was not issued is 401"
kill "$serve_pid"; wait "$serve_pid" 2>/dev/null; serve_pid=""

# The loopback default (no flags): anonymous and a superuser; `kubectl auth can-i --as` asks RBAC
# about someone else (kubectl sends no bearer token over plain HTTP, so it is checked here).
if command -v kubectl >/dev/null; then
  start_serve "$dglsim" "$scenario" --speed max
  # A discovery cache of its own: another test's server may have had this port before.
  k() { kubectl --server "$url" --cache-dir "$tmp/kube-cache" "$@" 2>>"$tmp/kubectl.err"; }
  [ "$(k auth can-i list pods --as system:serviceaccount:dgl-operator:dgl-operator)" = yes ] ||
    fail "kubectl auth can-i list pods --as the operator: $(cat "$tmp/kubectl.err")"
  [ "$(k auth can-i delete nodes --as system:serviceaccount:dgl-operator:dgl-operator 2>/dev/null)" = no ] || fail "kubectl auth can-i delete nodes --as the operator"
  [ "$(k auth can-i create pods 2>/dev/null)" = yes ] || fail "kubectl auth can-i create pods as the loopback superuser"
  # `kubectl create token`: the token is the operator's service account (kubectl sends no token
  # over plain HTTP, so curl presents it).
  k create namespace dgl-operator >/dev/null 2>&1
  k create serviceaccount dgl-operator -n dgl-operator >/dev/null || fail "kubectl create serviceaccount: $(cat "$tmp/kubectl.err")"
  token=$(k create token dgl-operator -n dgl-operator) || fail "kubectl create token: $(cat "$tmp/kubectl.err")"
  [ "$(status -H "Authorization: Bearer $token" "$url/api/v1/pods")" = 200 ] || fail "the token lists pods as the operator"
  [ "$(status -H "Authorization: Bearer $token" -X DELETE "$url/api/v1/nodes/gpu-0")" = 403 ] ||
    fail "the operator's token may not delete nodes"
  grep -qF 'User \"system:serviceaccount:dgl-operator:dgl-operator\" cannot delete resource \"nodes\"' "$tmp/body" ||
    fail "the token's 403 names the service account: $(cat "$tmp/body")"
  kill "$serve_pid"; wait "$serve_pid" 2>/dev/null; serve_pid=""
fi

# Anonymous requests, when allowed, see the public info only.
start_serve "$dglsim" "$scenario" --speed max --token-auth-file "$tmp/tokens.csv" --anonymous-auth
[ "$(status "$url/healthz")" = 200 ] || fail "anonymous /healthz"
[ "$(status "$url/api/v1/pods")" = 403 ] || fail "anonymous may not list pods"
grep -qF 'User \"system:anonymous\" cannot list resource \"pods\"' "$tmp/body" || fail "anonymous 403: $(cat "$tmp/body")"
[ "$(status "$url/apis")" = 403 ] || fail "anonymous may not read discovery (system:discovery is for system:authenticated)"
grep -qF '"message":"forbidden: User \"system:anonymous\" cannot get path \"/apis\""' "$tmp/body" || fail "path 403: $(cat "$tmp/body")"
echo "serve auth: ok"
