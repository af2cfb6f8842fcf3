#!/usr/bin/env python3
"""RBAC refusals of `dglsim serve` compared with kube-apiserver's (docs/rbac.md).

The same requests go to both servers, as the same identities, under the same policy:

- the operator's service account (system:serviceaccount:dgl-operator:dgl-operator), with a token
  from each server's TokenRequest subresource, under deploy/rbac.yaml as the administrator applies
  it, then with each of its rules removed in turn: one probe per verb and resource of the file
  (lists, gets, creates with dryRun=All, updates and deletes of objects that do not exist);
- escalation attempts: the operator creating or updating a Role that grants more than it holds,
  binding cluster-admin; a user `rbac-diff-alice` (impersonated by the administrator) who may
  patch Roles and bindings trying every patch type to grant more, and an aggregationRule;
- access reviews: SelfSubjectAccessReviews as the operator, SubjectAccessReviews about it.

Each answer is reduced to its status code and, for a failure, its whole Status body; for an access
review, `status.allowed` (and `status.reason`, counted apart: kube-apiserver names the binding
that allowed). The two servers' answers are compared probe by probe: a refusal is identical when
the code and the Status body are equal word for word.

Usage:
  rbac_diff.py --fake URL --real-kubeconfig FILE [--out FILE.json] [--check]

The fake must serve with the operator's policy NOT preloaded (tests/apidiff/rbac-cluster.yaml: the
script applies deploy/rbac.yaml through the API on both servers). The real server needs the DGLJob
CRD applied (scripts/rbac-diff.sh does both). --check: exit 1 when a refusal differs.
Exit codes: 0 compared (and --check passed), 1 a difference under --check, 2 bad arguments or a
server that does not answer, 77 without PyYAML.
"""
import argparse
import copy
import http.client
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import driver  # noqa: E402  (Server, read_kubeconfig)

try:
    import yaml
except ImportError:  # pragma: no cover
    print("SKIP: PyYAML is not installed")
    sys.exit(77)

OP_NS, OP = "dgl-operator", "dgl-operator"
OP_USER = "system:serviceaccount:%s:%s" % (OP_NS, OP)
ALICE = "rbac-diff-alice"
RBAC = "/apis/rbac.authorization.k8s.io/v1"
NONE = "rbac-diff-none"  # a name nothing has
OBJ = "rbac-diff-obj"  # what the administrator creates of each kind, for the gets and updates


class Api:
    """One server: requests as the administrator, as a bearer token, or impersonating a user."""

    def __init__(self, server):
        self.server = server

    def call(self, method, path, body=None, content_type=None, token=None, as_user=None):
        conn = self.server.connect(30)
        headers = {"Authorization": "Bearer " + (token or self.server.token), "Accept": "application/json"}
        if as_user:
            headers["Impersonate-User"] = as_user
        data = None
        if body is not None:
            data = (body if isinstance(body, str) else json.dumps(body)).encode()
            headers["Content-Type"] = content_type or "application/json"
        try:
            conn.request(method, path, body=data, headers=headers)
            resp = conn.getresponse()
            raw = resp.read()
            return resp.status, driver.decode(raw)
        finally:
            conn.close()


def meta(name, ns=None):
    m = {"name": name}
    if ns:
        m["namespace"] = ns
    return m


def pod(name):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta(name, "default"),
            "spec": {"containers": [{"name": "c", "image": "busybox:1.36"}]}}


def probes():
    """(name, method, path, body) for every verb and resource of deploy/rbac.yaml."""
    d, core, dgl = "/api/v1/namespaces/default", "/api/v1", "/apis/kubeflow.org/v1alpha1"
    lease_path = "/apis/coordination.k8s.io/v1/namespaces/%s/leases" % OP_NS
    with open(os.path.join(ROOT, "tests", "cli", "operator_http_e2e_job.json")) as f:
        job = dict(json.load(f), metadata=meta(NONE, "default"))
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta(NONE, "default"), "data": {}}
    svc = {"apiVersion": "v1", "kind": "Service", "metadata": meta(NONE, "default"),
           "spec": {"clusterIP": "None", "ports": [{"port": 30050}], "selector": {"a": "b"}}}
    sa = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": meta(NONE, "default")}
    ev = {"apiVersion": "v1", "kind": "Event", "metadata": meta(NONE, "default"), "reason": "R", "message": "m",
          "type": "Normal", "involvedObject": {"kind": "Pod", "name": "p", "namespace": "default"}}
    role = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": meta(NONE, "default"),
            "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}]}
    rb = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": meta(NONE, "default"),
          "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "rbac-diff-role"},
          "subjects": [{"kind": "ServiceAccount", "name": "x", "namespace": "default"}]}
    pg = {"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup", "metadata": meta(NONE, "default"),
          "spec": {"minMember": 1}}
    lease = {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": meta(NONE, OP_NS), "spec": {}}
    dry = "?dryRun=All"
    return [
        ("list dgljobs", "GET", dgl + "/dgljobs", None),
        ("delete dgljob", "DELETE", dgl + "/namespaces/default/dgljobs/" + NONE, None),
        ("update dgljobs/status", "PUT", dgl + "/namespaces/default/dgljobs/%s/status" % OBJ + dry, None),
        ("list pods", "GET", core + "/pods", None),
        ("get pod", "GET", d + "/pods/" + OBJ, None),
        ("create pod", "POST", d + "/pods" + dry, pod(NONE)),
        ("update pod", "PUT", d + "/pods/" + OBJ + dry, None),
        ("delete pod", "DELETE", d + "/pods/" + NONE, None),
        ("list configmaps", "GET", core + "/configmaps", None),
        ("create configmap", "POST", d + "/configmaps" + dry, cm),
        ("update configmap", "PUT", d + "/configmaps/" + OBJ + dry, None),
        ("list services", "GET", core + "/services", None),
        ("create service", "POST", d + "/services" + dry, svc),
        ("update service", "PUT", d + "/services/" + OBJ + dry, None),
        ("list serviceaccounts", "GET", core + "/serviceaccounts", None),
        ("create serviceaccount", "POST", d + "/serviceaccounts" + dry, sa),
        ("list nodes", "GET", core + "/nodes", None),
        ("get event", "GET", d + "/events/" + OBJ, None),
        ("create event", "POST", d + "/events" + dry, ev),
        ("update event", "PUT", d + "/events/" + OBJ + dry, None),
        ("list roles", "GET", RBAC + "/roles", None),
        ("create role", "POST", RBAC + "/namespaces/default/roles" + dry, role),
        ("update role", "PUT", RBAC + "/namespaces/default/roles/" + OBJ + dry, None),
        ("list rolebindings", "GET", RBAC + "/rolebindings", None),
        ("create rolebinding", "POST", RBAC + "/namespaces/default/rolebindings" + dry, rb),
        ("list podgroups", "GET", "/apis/scheduling.x-k8s.io/v1alpha1/podgroups", None),
        ("create podgroup", "POST", "/apis/scheduling.x-k8s.io/v1alpha1/namespaces/default/podgroups" + dry, pg),
        ("get lease", "GET", lease_path + "/" + OBJ, None),
        ("create lease", "POST", lease_path + dry, lease),
        ("update lease", "PUT", lease_path + "/" + OBJ + dry, None),
    ]


def reduce(status, body):
    """What is compared: the code, and a failure's whole Status body."""
    if status >= 400 and isinstance(body, dict) and body.get("kind") == "Status":
        return {"code": status, "status": body}
    return {"code": status}


def review_spec(verb, resource, ns="default", group="", sub="", name=""):
    attrs = {"verb": verb, "resource": resource, "group": group, "namespace": ns}
    if sub:
        attrs["subresource"] = sub
    if name:
        attrs["name"] = name
    return {"resourceAttributes": attrs}


class Run:
    def __init__(self, api, label):
        self.api = api
        self.label = label
        self.records = {}
        self.op_token = None

    def must(self, what, status, body, ok=(200, 201)):
        if status not in ok:
            raise SystemExit("rbac_diff: %s: %s: %s %s" % (self.label, what, status, json.dumps(body)[:400]))
        return body

    def setup(self, rbac_docs):
        a = self.api
        for ns in (OP_NS,):
            a.call("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": meta(ns)})
        a.call("POST", "/api/v1/namespaces/%s/serviceaccounts" % OP_NS,
               {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": meta(OP, OP_NS)})
        for doc in rbac_docs:
            kind = doc["kind"]
            if kind in ("Namespace", "ServiceAccount"):
                continue
            plural = kind.lower() + "s"
            ns = doc["metadata"].get("namespace")
            path = RBAC + ("/namespaces/%s/%s" % (ns, plural) if ns else "/" + plural)
            self.must("create " + kind, *a.call("POST", path, doc))
        # What the escalation probes need: a Role to bind and to patch, and alice, who may write
        # Roles, bindings and ClusterRoles but holds only pods get.
        self.must("rbac-diff-role", *a.call("POST", RBAC + "/namespaces/default/roles", {
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": meta("rbac-diff-role", "default"),
            "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}]}))
        self.must("alice's role", *a.call("POST", RBAC + "/clusterroles", {
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": meta("rbac-diff-alice"),
            "rules": [{"apiGroups": ["rbac.authorization.k8s.io"], "resources": ["roles", "rolebindings", "clusterroles"],
                       "verbs": ["get", "create", "update", "patch"]},
                      {"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}]}))
        self.must("alice's binding", *a.call("POST", RBAC + "/clusterrolebindings", {
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding", "metadata": meta("rbac-diff-alice"),
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "rbac-diff-alice"},
            "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": ALICE}]}))
        # The objects the gets and updates name (the updates are dry runs: nothing changes), and the
        # namespace's default ServiceAccount, without which kube-apiserver refuses pods.
        a.call("POST", "/api/v1/namespaces/default/serviceaccounts",
               {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": meta("default", "default")})
        for name, method, path, body in probes():
            if name.startswith("create "):
                self.wait_ready(path.split("?")[0])
                self.must("the administrator's " + name[7:], *a.call("POST", path.split("?")[0],
                                                                      dict(body, metadata=dict(body["metadata"], name=OBJ))))
        with open(os.path.join(ROOT, "tests", "cli", "operator_http_e2e_job.json")) as f:
            job = json.load(f)
        job["metadata"] = meta(OBJ, "default")
        self.wait_ready("/apis/kubeflow.org/v1alpha1/dgljobs")
        self.must("the administrator's dgljob", *a.call("POST", "/apis/kubeflow.org/v1alpha1/namespaces/default/dgljobs", job))
        body = self.must("TokenRequest", *a.call("POST", "/api/v1/namespaces/%s/serviceaccounts/%s/token" % (OP_NS, OP), {
            "apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest",
            # Two days: `dglsim serve --speed max` runs simulated time ahead with every write.
            "spec": {"expirationSeconds": 172800}}))
        self.op_token = body["status"]["token"]

    def wait_ready(self, collection):
        """A custom resource's storage answers 429 for a moment after its CRD is Established."""
        for _ in range(100):
            status, _ = self.api.call("GET", collection)
            if status != 429:
                return
            time.sleep(0.1)  # polling the new storage, with a deadline

    def allowed(self, spec):
        status, body = self.api.call("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", {
            "apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview", "spec": spec}, token=self.op_token)
        return status == 201 and body.get("status", {}).get("allowed") is True

    def wait_until(self, spec, want):
        """kube-apiserver's authorizer reads RBAC through informers: wait for a change to land."""
        for _ in range(200):
            if self.allowed(spec) == want:
                return
            time.sleep(0.05)  # polling the authorizer's view, with a deadline
        raise SystemExit("rbac_diff: %s: the authorizer never saw the change for %s (allowed: %s)"
                         % (self.label, json.dumps(spec), want))

    def probe_all(self, variant):
        for name, method, path, body in probes():
            for _ in range(5):
                if method == "PUT":  # an update sends the object as it is (the administrator reads it)
                    body = self.must("read " + name, *self.api.call("GET", path.split("?")[0].removesuffix("/status")))
                status, answer = self.api.call(method, path, body, token=self.op_token)
                if status != 409:  # the simulation wrote the pod between the read and the update
                    break
            self.records["%s | %s" % (variant, name)] = reduce(status, answer)


def rule_spec(doc, rule):
    """A SelfSubjectAccessReview the rule (alone) answers: its first verb of its first resource."""
    resource = rule["resources"][0]
    sub = ""
    if "/" in resource:
        resource, sub = resource.split("/", 1)
    ns = doc["metadata"].get("namespace", "default")
    name = rule.get("resourceNames", [""])[0]
    return review_spec(rule["verbs"][0], resource, ns, rule["apiGroups"][0], sub, name)


def each_rule_removed(runs, rbac_docs):
    for doc in rbac_docs:
        if doc["kind"] not in ("Role", "ClusterRole"):
            continue
        ns = doc["metadata"].get("namespace")
        path = RBAC + ("/namespaces/%s/roles/" % ns if ns else "/clusterroles/") + doc["metadata"]["name"]
        for i, rule in enumerate(doc["rules"]):
            variant = "%s %s without rule #%d" % (doc["kind"], doc["metadata"]["name"], i)
            spec = rule_spec(doc, rule)
            for r in runs:
                cut = copy.deepcopy(doc)
                del cut["rules"][i]
                r.must("remove a rule", *r.api.call("PUT", path, cut))
                r.wait_until(spec, False)
                r.probe_all(variant)
                r.must("put it back", *r.api.call("PUT", path, doc))
                r.wait_until(spec, True)


def escalations(r):
    secrets = {"apiGroups": [""], "resources": ["secrets"], "verbs": ["get"]}
    role_path = RBAC + "/namespaces/default/roles/rbac-diff-role"
    grant = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": meta("rbac-diff-more", "default"),
             "rules": [secrets]}
    admin_binding = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
                     "metadata": meta("rbac-diff-admin", "default"),
                     "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "cluster-admin"},
                     "subjects": [{"kind": "ServiceAccount", "name": OP, "namespace": OP_NS}]}
    agg = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": meta("rbac-diff-agg"),
           "aggregationRule": {"clusterRoleSelectors": [{"matchLabels": {"rbac-diff": "x"}}]}}
    status, current = r.api.call("GET", role_path)
    updated = copy.deepcopy(current)
    updated["rules"].append(secrets)
    updated["metadata"].pop("resourceVersion", None)
    apply = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": meta("rbac-diff-role", "default"),
             "rules": [current["rules"][0], secrets]}
    cases = [
        ("operator creates a Role granting secrets", "POST", RBAC + "/namespaces/default/roles", grant, None, None),
        ("operator binds cluster-admin", "POST", RBAC + "/namespaces/default/rolebindings", admin_binding, None, None),
        ("operator updates a Role to grant secrets", "PUT", role_path, updated, None, None),
        ("alice creates a Role granting secrets", "POST", RBAC + "/namespaces/default/roles", grant, None, ALICE),
        ("alice merge-patches a Role to grant secrets", "PATCH", role_path,
         {"rules": [current["rules"][0], secrets]}, "application/merge-patch+json", ALICE),
        ("alice strategic-patches a Role to grant secrets", "PATCH", role_path,
         {"rules": [current["rules"][0], secrets]}, "application/strategic-merge-patch+json", ALICE),
        ("alice JSON-patches a Role to grant secrets", "PATCH", role_path,
         [{"op": "add", "path": "/rules/-", "value": secrets}], "application/json-patch+json", ALICE),
        ("alice applies a Role granting secrets", "PATCH", role_path + "?fieldManager=alice&force=true", apply,
         "application/apply-patch+yaml", ALICE),
        ("alice binds cluster-admin", "POST", RBAC + "/namespaces/default/rolebindings", admin_binding, None, ALICE),
        ("alice creates an aggregated ClusterRole", "POST", RBAC + "/clusterroles", agg, None, ALICE),
        ("alice patches a Role within what she holds", "PATCH", role_path,
         {"metadata": {"labels": {"rbac-diff": "y"}}}, "application/merge-patch+json", ALICE),
    ]
    for name, method, path, body, ctype, as_user in cases:
        token = None if as_user else r.op_token
        status, answer = r.api.call(method, path, body, ctype, token=token, as_user=as_user)
        r.records["escalation | " + name] = reduce(status, answer)


def reviews(r):
    asks = [
        ("list pods", review_spec("list", "pods", "")),
        ("create pods/exec", review_spec("create", "pods", "default", sub="exec", name="w-0")),
        ("update dgljobs/status", review_spec("update", "dgljobs", "default", "kubeflow.org", "status")),
        ("delete nodes", review_spec("delete", "nodes", "")),
        ("get secrets", review_spec("get", "secrets")),
        ("create leases in dgl-operator", review_spec("create", "leases", OP_NS, "coordination.k8s.io")),
        ("create leases in default", review_spec("create", "leases", "default", "coordination.k8s.io")),
        ("get /apis", {"nonResourceAttributes": {"verb": "get", "path": "/apis"}}),
        ("get /metrics", {"nonResourceAttributes": {"verb": "get", "path": "/metrics"}}),
    ]
    for name, spec in asks:
        status, body = r.api.call("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", {
            "apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview", "spec": spec}, token=r.op_token)
        st = body.get("status", {}) if isinstance(body, dict) else {}
        r.records["can-i (self) | " + name] = {"code": status, "allowed": st.get("allowed"), "reason": st.get("reason", "")}
        sar = dict(spec, user=OP_USER, groups=["system:serviceaccounts", "system:serviceaccounts:" + OP_NS,
                                                "system:authenticated"])
        status, body = r.api.call("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", {
            "apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview", "spec": sar})
        st = body.get("status", {}) if isinstance(body, dict) else {}
        r.records["can-i (subject) | " + name] = {"code": status, "allowed": st.get("allowed"), "reason": st.get("reason", "")}


def compare(fake, real):
    """Per probe: same (code, Status body, allowed), and the refusals among them."""
    rows, refusals, identical_refusals, identical, reasons = [], 0, 0, 0, 0
    for key in real:
        f, k = fake.get(key), real[key]
        same = f is not None and {x: v for x, v in f.items() if x != "reason"} == {x: v for x, v in k.items() if x != "reason"}
        identical += same
        if "reason" in k:
            reasons += f is not None and f.get("reason") == k.get("reason")
        refused = k["code"] == 403 or (f is not None and f["code"] == 403) or k.get("allowed") is False
        if refused:
            refusals += 1
            identical_refusals += same
        rows.append({"probe": key, "identical": same, "refusal": refused, "fake": f, "real": k})
    return {"probes": len(real), "identical": identical, "refusals": refusals,
            "identical_refusals": identical_refusals,
            "review_reasons_identical": reasons,
            "reviews": sum(1 for k in real if "reason" in real[k]), "rows": rows}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--fake", required=True)
    p.add_argument("--real-kubeconfig", required=True)
    p.add_argument("--out")
    p.add_argument("--check", action="store_true")
    args = p.parse_args()
    with open(os.path.join(ROOT, "deploy", "rbac.yaml")) as f:
        rbac_docs = [d for d in yaml.safe_load_all(f) if d]
    server, token, ca = driver.read_kubeconfig(args.real_kubeconfig)
    runs = [Run(Api(driver.Server(args.fake, None, None, False)), "dglsim serve"),
            Run(Api(driver.Server(server, token, ca, False)), "kube-apiserver")]
    for r in runs:
        r.setup(rbac_docs)
    for r in runs:
        r.probe_all("deploy/rbac.yaml")
    each_rule_removed(runs, rbac_docs)
    for r in runs:
        escalations(r)
        reviews(r)
    result = compare(runs[0].records, runs[1].records)
    for row in result["rows"]:
        if not row["identical"]:
            print("DIFFERS %s\n  fake: %s\n  real: %s" % (row["probe"], json.dumps(row["fake"]), json.dumps(row["real"])))
    print("rbac_diff: %d probes, %d identical; %d refusals, %d identical word for word; access-review reasons "
          "identical: %d of %d" % (result["probes"], result["identical"], result["refusals"],
                                   result["identical_refusals"], result["review_reasons_identical"], result["reviews"]))
    if args.out:
        with open(args.out, "w") as f:
            json.dump(result, f, indent=1, sort_keys=True)
    if args.check and result["identical_refusals"] < result["refusals"]:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
