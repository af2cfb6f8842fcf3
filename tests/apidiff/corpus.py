"""The differential API suite's corpus: the API interactions sent, in order, to `dglsim serve` and to
kube-apiserver (driver.py runs them; normalize.py and compare.py compare the answers).

Plain data: STEPS is a list of steps, each a dict:
  name         unique, `area/what`; the report and docs/api-departures.md name steps by it
  method, path the request (GET when no method); `${var}` in path, query and body is a saved value
  query        a dict, url-encoded onto the path
  body         JSON (sent as JSON; a string is sent as is)
  contentType  the body's Content-Type (application/json when absent)
  accept       the Accept header (application/json when absent)
  save         {var: dotted path in the answer's body} (or `events.N.path` for a watch's events)
  until        {status, path, equals|count|absent, timeout}: repeated (every 0.5 s) until the answer
               meets it (path: one dotted path, or a list that must all meet it) or the timeout passes, for what controllers do asynchronously (garbage
               collection, namespace deletion); the final answer is the one recorded
  watch        {events: N, timeout: S}: a watch, N events read (or fewer when S seconds pass)
  watchOpen    ID: a watch opened and held while the next steps write; `watchRead: ID` with
               `events` and `timeout` reads it (and closes it)
  select       [paths]: only these parts of the answer are compared (discovery, openapi:
               documents whose whole the fake does not serve). A path is dotted, or a list of
               parts when a key has dots; a part `key=value` picks the list element whose `key`
               is `value`
  compare      False: a setup or clean-up step, run but not compared
  only         "real" or "fake": run against that server only (never compared)
  admission    True: a manifest the fake's DGLJob admission refuses; the report classes the real
               server's answer (its CRD schema refuses it too, or only a webhook would)
  departure    the reason, when the answer differs by design: the report and
               docs/api-departures.md list it as a stated departure (compare.py fails on any
               difference without one)
"""
import copy

VARIABLES = {}  # values known before the run (none: every value is saved from an answer)

CM = "/api/v1/namespaces/%s/configmaps"
PODS = "/api/v1/namespaces/%s/pods"
JOBS = "/apis/kubeflow.org/v1alpha1/namespaces/%s/dgljobs"
LEASES = "/apis/coordination.k8s.io/v1/namespaces/%s/leases"
MERGE = "application/merge-patch+json"
STRATEGIC = "application/strategic-merge-patch+json"
JSONPATCH = "application/json-patch+json"
APPLY = "application/apply-patch+yaml"
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"
NAMESPACES = ["diff-crud", "diff-list", "diff-watch", "diff-patch", "diff-gc", "diff-gone", "diff-lease", "diff-crd",
              "diff-adm"]


def cm(name, data=None, labels=None, **meta):
    """A ConfigMap body (the corpus's plain object: no defaulting on either server)."""
    m = {"name": name}
    if labels:
        m["labels"] = labels
    m.update(meta)
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": m, "data": data or {"k": "v"}}


def owner(var_uid, name):
    return [{"apiVersion": "v1", "kind": "ConfigMap", "name": name, "uid": "${%s}" % var_uid}]


def job(name="job", workers=2):
    """The admission tests' minimal DGLJob (tests/operator/api/dgljob_admission_test.cc)."""
    return {"apiVersion": "kubeflow.org/v1alpha1", "kind": "DGLJob", "metadata": {"name": name},
            "spec": {"dglReplicaSpecs": {
                "Launcher": {"replicas": 1, "template": {"spec": {"containers": [
                    {"name": "main", "image": "dgl:1", "command": ["dglrun", "--num-servers=2"]}]}}},
                "Worker": {"replicas": workers, "template": {"spec": {"containers": [
                    {"name": "w", "image": "dgl:1"}]}}}}}}


def replica(n):
    return {"replicas": n, "template": {"spec": {"containers": [{"name": "m", "image": "dgl:1"}]}}}


def changed(base, *edits):
    """base with edits applied: (dotted path, value) sets, (dotted path,) removes."""
    out = copy.deepcopy(base)
    for edit in edits:
        parts = edit[0].split(".")
        cur = out
        for p in parts[:-1]:
            cur = cur[int(p)] if isinstance(cur, list) else cur.setdefault(p, {})
        last = int(parts[-1]) if isinstance(cur, list) else parts[-1]
        if len(edit) == 1:
            del cur[last]
        elif isinstance(cur, list) and last == len(cur):
            cur.append(edit[1])
        else:
            cur[last] = edit[1]
    return out


STEPS = []


def step(name, **kw):
    STEPS.append(dict(name=name, **kw))


# --- namespaces --------------------------------------------------------------------------------
for ns in NAMESPACES:
    step("namespace/create " + ns, method="POST", path="/api/v1/namespaces",
         body={"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
step("namespace/get", path="/api/v1/namespaces/diff-crud")
step("namespace/create again: 409 AlreadyExists", method="POST", path="/api/v1/namespaces",
     body={"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "diff-crud"}})

# --- create / get / update / delete, resourceVersion preconditions ------------------------------
C = CM % "diff-crud"
step("crud/create", method="POST", path=C, body=cm("a", {"x": "1"}), save={"rv_a1": "metadata.resourceVersion",
                                                                            "uid_a": "metadata.uid"})
step("crud/create again: 409 AlreadyExists", method="POST", path=C, body=cm("a"))
step("crud/get", path=C + "/a")
step("crud/get missing: 404", path=C + "/missing")
step("crud/update with the current resourceVersion", method="PUT", path=C + "/a",
     body=cm("a", {"x": "2"}, resourceVersion="${rv_a1}"), save={"rv_a2": "metadata.resourceVersion"})
step("crud/update with a stale resourceVersion: 409 Conflict", method="PUT", path=C + "/a",
     body=cm("a", {"x": "3"}, resourceVersion="${rv_a1}"))
step("crud/update without resourceVersion (unconditional)", method="PUT", path=C + "/a", body=cm("a", {"x": "4"}),
     save={"rv_a3": "metadata.resourceVersion"})
step("crud/update with a changed uid: 409", method="PUT", path=C + "/a",
     body=cm("a", {"x": "5"}, uid="0b0e2f6e-0000-4000-8000-000000000000"))
step("crud/update name differs from the path: 400", method="PUT", path=C + "/a", body=cm("b"))
step("crud/update missing: 404", method="PUT", path=C + "/missing", body=cm("missing"))
step("crud/get after updates", path=C + "/a")
step("crud/create invalid name: 422", method="POST", path=C, body=cm("A_b"))
step("crud/create invalid data key: 422", method="POST", path=C, body=cm("bad-key", {"no/slash": "v"}))
step("crud/create no name: 422", method="POST", path=C, body={"apiVersion": "v1", "kind": "ConfigMap",
                                                              "metadata": {}, "data": {}})
step("crud/create generateName", method="POST", path=C,
     body={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"generateName": "gen-"}},
     save={"gen_name": "metadata.name"})
step("crud/get the generated name", path=C + "/${gen_name}")
step("crud/create namespace differs from the path: 400", method="POST", path=C,
     body={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "other-ns", "namespace": "diff-list"}})
step("crud/create wrong kind in body: 400", method="POST", path=C,
     body={"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "kind"}})
step("crud/create malformed JSON: 400", method="POST", path=C, body="{\"metadata\": ", rawBody=True)
step("crud/create with resourceVersion set: 500", method="POST", path=C, body=cm("with-rv", resourceVersion="5"))
step("crud/delete with a stale resourceVersion precondition: 409", method="DELETE", path=C + "/a",
     body={"kind": "DeleteOptions", "apiVersion": "v1", "preconditions": {"resourceVersion": "${rv_a1}"}})
step("crud/delete with a wrong uid precondition: 409", method="DELETE", path=C + "/a",
     body={"kind": "DeleteOptions", "apiVersion": "v1",
           "preconditions": {"uid": "0b0e2f6e-0000-4000-8000-000000000000"}})
step("crud/delete dry-run", method="DELETE", path=C + "/a", query={"dryRun": "All"})
step("crud/get after the dry-run delete", path=C + "/a")
step("crud/delete with the current preconditions", method="DELETE", path=C + "/a",
     body={"kind": "DeleteOptions", "apiVersion": "v1",
           "preconditions": {"resourceVersion": "${rv_a3}", "uid": "${uid_a}"}})
step("crud/get after delete: 404", path=C + "/a")
step("crud/delete again: 404", method="DELETE", path=C + "/a")
step("crud/create again after delete (a new uid)", method="POST", path=C, body=cm("a", {"x": "new"}))
step("crud/create dry-run", method="POST", path=C, body=cm("dry"), query={"dryRun": "All"})
step("crud/get after the dry-run create: 404", path=C + "/dry")
step("crud/update dry-run", method="PUT", path=C + "/a", body=cm("a", {"x": "dry"}), query={"dryRun": "All"})
step("crud/get after the dry-run update", path=C + "/a")
step("crud/patch dry-run", method="PATCH", path=C + "/a", body={"data": {"x": "dry"}}, contentType=MERGE,
     query={"dryRun": "All"})
step("crud/dry-run with an unknown value: 422", method="POST", path=C, body=cm("dry2"), query={"dryRun": "Some"})
step("crud/unknown resource: 404", path="/api/v1/namespaces/diff-crud/gizmos")
step("crud/unknown group: 404", path="/apis/example.com/v1/gizmos")
step("crud/method not allowed on a collection: 405", method="PUT", path=C, body=cm("x"))
step("crud/get in a missing namespace: 404", path=CM % "nowhere" + "/a")
step("crud/create in a missing namespace: 404", method="POST", path=CM % "nowhere", body=cm("a"))

# --- lists: selectors, resourceVersion semantics, paging, Table --------------------------------
L = CM % "diff-list"
for i, tier in enumerate(["a", "b", "a", "b", "a"], start=1):
    step("list/create c%d" % i, method="POST", path=L, body=cm("c%d" % i, {"i": str(i)}, {"app": "diff", "tier": tier}),
         save={"rv_c%d" % i: "metadata.resourceVersion"})
SEL = {"labelSelector": "app=diff"}
step("list/labelSelector app=diff", path=L, query=SEL)
step("list/labelSelector tier=a", path=L, query={"labelSelector": "tier=a"})
step("list/labelSelector tier in (a,b),tier!=b", path=L, query={"labelSelector": "tier in (a,b),tier!=b"})
step("list/labelSelector !tier", path=L, query={"labelSelector": "!tier"})
step("list/labelSelector notin", path=L, query={"labelSelector": "app=diff,tier notin (a)"})
step("list/labelSelector invalid: 400", path=L, query={"labelSelector": "tier in a"})
step("list/fieldSelector metadata.name=c2", path=L, query={"fieldSelector": "metadata.name=c2"})
step("list/fieldSelector metadata.name!=c2 and a label", path=L,
     query={"fieldSelector": "metadata.name!=c2", "labelSelector": "tier=b"})
step("list/fieldSelector unsupported field: 400", path=L, query={"fieldSelector": "data.i=1"})
step("list/resourceVersion unset (most recent)", path=L, query=SEL)
step("list/resourceVersion=0 (any)", path=L, query=dict(SEL, resourceVersion="0"))
step("list/resourceVersion exact (as of c3)", path=L,
     query=dict(SEL, resourceVersion="${rv_c3}", resourceVersionMatch="Exact"))
step("list/resourceVersion NotOlderThan c3", path=L,
     query=dict(SEL, resourceVersion="${rv_c3}", resourceVersionMatch="NotOlderThan"))
step("list/resourceVersion c3 without a match (NotOlderThan)", path=L, query=dict(SEL, resourceVersion="${rv_c3}"))
step("list/resourceVersionMatch without resourceVersion: 422", path=L, query=dict(SEL, resourceVersionMatch="Exact"))
step("list/resourceVersionMatch unknown: 422", path=L,
     query=dict(SEL, resourceVersion="${rv_c3}", resourceVersionMatch="Newest"))
step("list/resourceVersion not a number", path=L, query=dict(SEL, resourceVersion="abc"))
step("list/resourceVersion too large: 504 Timeout", path=L,
     query=dict(SEL, resourceVersion="999999999", resourceVersionMatch="NotOlderThan"))
step("list/limit=2 page 1", path=L, query=dict(SEL, limit="2"), save={"cont1": "metadata.continue"})
step("list/limit=2 page 2", path=L, query=dict(SEL, limit="2", **{"continue": "${cont1}"}),
     save={"cont2": "metadata.continue"})
step("list/limit=2 page 3 (last)", path=L, query=dict(SEL, limit="2", **{"continue": "${cont2}"}))
step("list/continue with a resourceVersion: 400", path=L,
     query=dict(SEL, limit="2", resourceVersion="${rv_c3}", **{"continue": "${cont1}"}))
step("list/continue token invalid: 400", path=L, query=dict(SEL, limit="2", **{"continue": "not-a-token"}))
step("list/create c6 between pages", method="POST", path=L, body=cm("c6", {"i": "6"}, {"app": "diff", "tier": "a"}))
step("list/limit=2 page 2 after a write (the snapshot of page 1)", path=L,
     query=dict(SEL, limit="2", **{"continue": "${cont1}"}))
step("list/limit=2 with resourceVersion=0", path=L, query=dict(SEL, limit="2", resourceVersion="0"))
step("list/limit=2 exact resourceVersion", path=L,
     query=dict(SEL, limit="2", resourceVersion="${rv_c3}", resourceVersionMatch="Exact"))
step("list/across namespaces with a label", path="/api/v1/configmaps", query={"labelSelector": "app=diff"})
step("list/Table", path=L, query=SEL, accept=TABLE)
step("list/Table of one object", path=L + "/c1", accept=TABLE)
step("list/Table includeObject=Object", path=L, query=dict(SEL, includeObject="Object"), accept=TABLE)
step("list/Table includeObject=None", path=L, query=dict(SEL, includeObject="None"), accept=TABLE)
step("list/Table of namespaces by name", path="/api/v1/namespaces", query={"fieldSelector": "metadata.name=diff-list"},
     accept=TABLE)
step("list/Accept only an unknown type: 406", path=L, accept="application/x-unknown")
step("list/delete collection by label", method="DELETE", path=L, query={"labelSelector": "tier=b"})
step("list/after the collection delete", path=L, query=SEL)

# --- watches -----------------------------------------------------------------------------------
W = CM % "diff-watch"
step("watch/create w1", method="POST", path=W, body=cm("w1", labels={"app": "diff"}),
     save={"rv_w1": "metadata.resourceVersion"})
step("watch/open from w1's resourceVersion", path=W, query={"watch": "1", "resourceVersion": "${rv_w1}"},
     watchOpen="from-w1")
step("watch/open by label tier=x", path=W, query={"watch": "1", "resourceVersion": "${rv_w1}", "labelSelector": "tier=x"},
     watchOpen="by-label")
step("watch/open by field metadata.name=w1", path=W,
     query={"watch": "1", "resourceVersion": "${rv_w1}", "fieldSelector": "metadata.name=w1"}, watchOpen="by-field")
step("watch/create w2 (tier=x)", method="POST", path=W, body=cm("w2", labels={"app": "diff", "tier": "x"}),
     save={"rv_w2": "metadata.resourceVersion"})
step("watch/update w1", method="PATCH", path=W + "/w1", body={"data": {"k": "changed"}}, contentType=MERGE)
step("watch/label w1 tier=x (enters the label watch)", method="PATCH", path=W + "/w1",
     body={"metadata": {"labels": {"tier": "x"}}}, contentType=MERGE, save={"rv_w1_labelled": "metadata.resourceVersion"})
step("watch/unlabel w2 (leaves the label watch)", method="PATCH", path=W + "/w2",
     body={"metadata": {"labels": {"tier": None}}}, contentType=MERGE)
step("watch/delete w2", method="DELETE", path=W + "/w2")
step("watch/read from w1's resourceVersion", watchRead="from-w1", events=5, timeout=5)
step("watch/read by label", watchRead="by-label", events=3, timeout=3)
step("watch/read by field", watchRead="by-field", events=3, timeout=3)
step("watch/resume from a remembered resourceVersion", path=W, query={"watch": "1", "resourceVersion": "${rv_w2}"},
     watch={"events": 4, "timeout": 3})
step("watch/resourceVersion=0 (state first)", path=W, query={"watch": "1", "resourceVersion": "0"},
     watch={"events": 1, "timeout": 3})
step("watch/resourceVersion unset (state first)", path=W, query={"watch": "1"}, watch={"events": 1, "timeout": 3})
step("watch/sendInitialEvents with a bookmark at the end", path=W,
     query={"watch": "1", "sendInitialEvents": "true", "resourceVersionMatch": "NotOlderThan",
            "allowWatchBookmarks": "true"}, watch={"events": 2, "timeout": 3})
step("watch/sendInitialEvents without allowWatchBookmarks", path=W,
     query={"watch": "1", "sendInitialEvents": "true", "resourceVersionMatch": "NotOlderThan"},
     watch={"events": 1, "timeout": 3})
step("watch/bookmarks allowed, nothing happens, timeoutSeconds=2", path=W,
     query={"watch": "1", "resourceVersion": "${rv_w1_labelled}", "allowWatchBookmarks": "true", "timeoutSeconds": "2"},
     watch={"events": 3, "timeout": 5})
step("watch/timeoutSeconds=1 ends the stream", path=W,
     query={"watch": "1", "resourceVersion": "${rv_w1_labelled}", "timeoutSeconds": "1"}, watch={"events": 3, "timeout": 5})
step("watch/from resourceVersion 1 (before the history)", path=W, query={"watch": "1", "resourceVersion": "1"},
     watch={"events": 1, "timeout": 3})
step("watch/resourceVersion not a number: 500", path=W, query={"watch": "1", "resourceVersion": "x1"},
     watch={"events": 1, "timeout": 3})
step("watch/one object by name (fieldSelector) from rv=0", path=W,
     query={"watch": "1", "resourceVersion": "0", "fieldSelector": "metadata.name=w1"}, watch={"events": 1, "timeout": 3})
step("watch/Table stream", path=W, query={"watch": "1", "resourceVersion": "0"}, accept=TABLE,
     watch={"events": 1, "timeout": 3})
step("watch/list of a watch-capable namespace path via watch=true", path=W,
     query={"watch": "true", "resourceVersion": "${rv_w2}", "labelSelector": "app=diff"}, watch={"events": 3, "timeout": 3})

# --- the status subresource (pods) -------------------------------------------------------------
P = PODS % "diff-crud"
step("pods/wait for the default ServiceAccount", path="/api/v1/namespaces/diff-crud/serviceaccounts/default",
     until={"status": 200, "timeout": 30}, only="real")
POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p1", "labels": {"app": "diff"}},
       "spec": {"containers": [{"name": "c", "image": "busybox:1.36"}], "schedulerName": "diff-suite-none",
                "automountServiceAccountToken": False}}
step("status/create a pod", method="POST", path=P, body=POD, save={"rv_p1": "metadata.resourceVersion"})
step("status/get the pod's status subresource", path=P + "/p1/status")
step("status/put status", method="PUT", path=P + "/p1/status",
     body=changed(POD, ("status", {"phase": "Pending", "message": "held by the suite",
                                   "conditions": [{"type": "PodScheduled", "status": "False", "reason": "Held"}]}),
                  ("metadata.labels.app", "changed-by-status")))
step("status/put status: spec and labels unchanged, status written", path=P + "/p1")
step("status/put on the main resource ignores status", method="PUT", path=P + "/p1",
     body=changed(POD, ("status", {"phase": "Running"}), ("metadata.labels.extra", "yes")))
step("status/merge patch status", method="PATCH", path=P + "/p1/status",
     body={"status": {"message": "patched"}}, contentType=MERGE)
step("status/strategic merge patch of a container image", method="PATCH", path=P + "/p1",
     body={"spec": {"containers": [{"name": "c", "image": "busybox:1.37"}]}}, contentType=STRATEGIC)
step("status/update of an immutable pod field: 422", method="PATCH", path=P + "/p1",
     body={"spec": {"schedulerName": "other"}}, contentType=STRATEGIC)
step("status/status of a configmap (no such subresource): 404", path=C + "/a/status")
step("status/pod list by field spec.schedulerName", path=P, query={"fieldSelector": "spec.schedulerName=diff-suite-none"})
step("status/pod list by field status.phase", path=P, query={"fieldSelector": "status.phase=Pending"})
step("status/delete the pod (graceful)", method="DELETE", path=P + "/p1", query={"gracePeriodSeconds": "0"})

# --- patches -----------------------------------------------------------------------------------
PP = CM % "diff-patch"
step("patch/create p1", method="POST", path=PP, body=cm("p1", {"a": "1", "b": "2"}, {"app": "diff"}),
     save={"rv_p1": "metadata.resourceVersion"})
step("patch/merge: set one key, remove another", method="PATCH", path=PP + "/p1",
     body={"data": {"a": "x", "b": None}}, contentType=MERGE)
step("patch/merge with a stale resourceVersion: 409", method="PATCH", path=PP + "/p1",
     body={"metadata": {"resourceVersion": "${rv_p1}"}, "data": {"a": "y"}}, contentType=MERGE)
step("patch/merge of a missing object: 404", method="PATCH", path=PP + "/missing", body={"data": {}}, contentType=MERGE)
step("patch/merge that is not an object: 400", method="PATCH", path=PP + "/p1", body="[1]", contentType=MERGE,
     rawBody=True)
step("patch/merge making the object invalid: 422", method="PATCH", path=PP + "/p1",
     body={"data": {"bad/key": "v"}}, contentType=MERGE)
step("patch/json patch add and test", method="PATCH", path=PP + "/p1", contentType=JSONPATCH,
     body=[{"op": "test", "path": "/data/a", "value": "x"}, {"op": "add", "path": "/data/c", "value": "3"}])
step("patch/json patch failed test: 422", method="PATCH", path=PP + "/p1", contentType=JSONPATCH,
     body=[{"op": "test", "path": "/data/a", "value": "not-x"}])
step("patch/json patch remove a missing path: 422", method="PATCH", path=PP + "/p1", contentType=JSONPATCH,
     body=[{"op": "remove", "path": "/data/zzz"}])
step("patch/json patch move and copy", method="PATCH", path=PP + "/p1", contentType=JSONPATCH,
     body=[{"op": "copy", "from": "/data/a", "path": "/data/d"}, {"op": "move", "from": "/data/c", "path": "/data/e"}])
step("patch/json patch replace a label that is absent: 422", method="PATCH", path=PP + "/p1", contentType=JSONPATCH,
     body=[{"op": "replace", "path": "/metadata/labels/none", "value": "x"}])
step("patch/json patch not a list: 400", method="PATCH", path=PP + "/p1", contentType=JSONPATCH,
     body={"op": "add"})
step("patch/strategic merge on a configmap", method="PATCH", path=PP + "/p1", contentType=STRATEGIC,
     body={"metadata": {"labels": {"s": "1"}}, "data": {"f": "6"}})
step("patch/strategic merge $patch: replace of labels", method="PATCH", path=PP + "/p1", contentType=STRATEGIC,
     body={"metadata": {"labels": {"$patch": "replace", "only": "this"}}})
step("patch/unsupported patch type: 415", method="PATCH", path=PP + "/p1", contentType="application/xml",
     body="<x/>", rawBody=True)
step("patch/get after the patches", path=PP + "/p1")

# --- server-side apply -------------------------------------------------------------------------
SSA = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "s1", "labels": {"owner": "alice"}},
       "data": {"shared": "alice", "a": "1"}}
step("apply/create by alice", method="PATCH", path=PP + "/s1", body=SSA, contentType=APPLY,
     query={"fieldManager": "alice"})
step("apply/alice again, unchanged", method="PATCH", path=PP + "/s1", body=SSA, contentType=APPLY,
     query={"fieldManager": "alice"})
step("apply/bob conflicts on a field alice owns: 409", method="PATCH", path=PP + "/s1", contentType=APPLY,
     body={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "s1"}, "data": {"shared": "bob"}},
     query={"fieldManager": "bob"})
step("apply/bob takes a field of his own", method="PATCH", path=PP + "/s1", contentType=APPLY,
     body={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "s1"}, "data": {"b": "2"}},
     query={"fieldManager": "bob"})
step("apply/bob forces the shared field", method="PATCH", path=PP + "/s1", contentType=APPLY,
     body={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "s1"}, "data": {"b": "2", "shared": "bob"}},
     query={"fieldManager": "bob", "force": "true"})
step("apply/alice drops a field she alone owns (removed)", method="PATCH", path=PP + "/s1", contentType=APPLY,
     body={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "s1", "labels": {"owner": "alice"}}},
     query={"fieldManager": "alice"})
step("apply/an update by carol shows as Update in managedFields", method="PUT", path=PP + "/s1",
     body={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "s1", "labels": {"owner": "alice"}},
           "data": {"b": "2", "shared": "bob", "c": "carol"}}, query={"fieldManager": "carol"})
step("apply/without a fieldManager: 422", method="PATCH", path=PP + "/s1", contentType=APPLY, body=SSA)
step("apply/force on a non-apply patch: 422", method="PATCH", path=PP + "/s1", contentType=MERGE,
     body={"data": {"z": "1"}}, query={"force": "true"})
step("apply/body without kind: 400", method="PATCH", path=PP + "/s2", contentType=APPLY,
     body={"metadata": {"name": "s2"}}, query={"fieldManager": "alice"})
step("apply/name differs from the path: 400", method="PATCH", path=PP + "/s3", contentType=APPLY,
     body={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "other"}}, query={"fieldManager": "alice"})
step("apply/dry-run create", method="PATCH", path=PP + "/s4", contentType=APPLY,
     body={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "s4"}}, query={"fieldManager": "alice",
                                                                                       "dryRun": "All"})
step("apply/dry-run created nothing: 404", path=PP + "/s4")
step("apply/get with managedFields", path=PP + "/s1")

# --- finalizers and deletion propagation -------------------------------------------------------
G = CM % "diff-gc"
step("finalizers/create held by a finalizer", method="POST", path=G,
     body=cm("f1", finalizers=["example.com/hold"]))
step("finalizers/delete: marked, not removed", method="DELETE", path=G + "/f1")
step("finalizers/get: deletionTimestamp set", path=G + "/f1")
step("finalizers/a new finalizer while deleting: 422", method="PATCH", path=G + "/f1", contentType=JSONPATCH,
     body=[{"op": "add", "path": "/metadata/finalizers/-", "value": "example.com/more"}])
step("finalizers/data can still change while deleting", method="PATCH", path=G + "/f1", contentType=MERGE,
     body={"data": {"k": "while-deleting"}})
step("finalizers/delete again: still there", method="DELETE", path=G + "/f1")
step("finalizers/remove the finalizer: the object goes", method="PATCH", path=G + "/f1", contentType=MERGE,
     body={"metadata": {"finalizers": None}})
step("finalizers/get: 404", path=G + "/f1")
for mode in ("Background", "Foreground", "Orphan"):
    o = "owner-" + mode.lower()
    var = "uid_owner_" + mode.lower()  # ${name}: letters, digits and _ only
    step("gc/%s: create the owner" % mode, method="POST", path=G, body=cm(o), save={var: "metadata.uid"})
    for d in ("1", "2"):
        step("gc/%s: create dependent %s" % (mode, d), method="POST", path=G,
             body=cm("%s-dep%s" % (o, d), labels={"owner": o}, ownerReferences=[
                 dict(owner(var, o)[0], blockOwnerDeletion=(d == "1"))]))
    step("gc/%s: delete the owner" % mode, method="DELETE", path=G + "/" + o,
         body={"kind": "DeleteOptions", "apiVersion": "v1", "propagationPolicy": mode})
    step("gc/%s: the owner is gone" % mode, path=G + "/" + o, until={"status": 404, "timeout": 60})
    if mode == "Orphan":
        step("gc/Orphan: the dependents stay, their ownerReferences removed", path=G,
             query={"labelSelector": "owner=" + o},
             until={"path": ["items.0.metadata.ownerReferences", "items.1.metadata.ownerReferences"],
                    "absent": True, "timeout": 60})
    else:
        step("gc/%s: the dependents are collected" % mode, path=G, query={"labelSelector": "owner=" + o},
             until={"path": "items", "count": 0, "timeout": 60})
step("gc/a dependent of an owner that never existed is collected", method="POST", path=G,
     body=cm("orphaned", labels={"owner": "ghost"},
             ownerReferences=[{"apiVersion": "v1", "kind": "ConfigMap", "name": "ghost",
                               "uid": "0b0e2f6e-0000-4000-8000-00000000beef"}]))
step("gc/the dependent of a missing owner is gone", path=G + "/orphaned", until={"status": 404, "timeout": 60})
step("gc/propagationPolicy unknown: 422", method="DELETE", path=G + "/x",
     body={"kind": "DeleteOptions", "apiVersion": "v1", "propagationPolicy": "Sideways"})
step("gc/orphanDependents and propagationPolicy together: 422", method="DELETE", path=G + "/x",
     body={"kind": "DeleteOptions", "apiVersion": "v1", "propagationPolicy": "Orphan", "orphanDependents": True})

# --- namespace deletion ------------------------------------------------------------------------
N = CM % "diff-gone"
step("namespace-delete/content with a finalizer", method="POST", path=N, body=cm("held", finalizers=["example.com/hold"]))
step("namespace-delete/plain content", method="POST", path=N, body=cm("plain"))
step("namespace-delete/delete the namespace", method="DELETE", path="/api/v1/namespaces/diff-gone")
step("namespace-delete/the namespace is Terminating", path="/api/v1/namespaces/diff-gone",
     select=["metadata.name", "metadata.deletionTimestamp", "spec", "status.phase"])
step("namespace-delete/new content is refused: 403", method="POST", path=N, body=cm("late"))
step("namespace-delete/plain content is deleted", path=N + "/plain", until={"status": 404, "timeout": 60})
step("namespace-delete/held content waits for its finalizer", path=N + "/held",
     select=["metadata.name", "metadata.finalizers", "metadata.deletionTimestamp"])
step("namespace-delete/remove the finalizer", method="PATCH", path=N + "/held", contentType=MERGE,
     body={"metadata": {"finalizers": None}})
step("namespace-delete/the namespace is gone", path="/api/v1/namespaces/diff-gone", until={"status": 404, "timeout": 60})
step("namespace-delete/delete a missing namespace: 404", method="DELETE", path="/api/v1/namespaces/diff-gone")
step("namespace-delete/default cannot be deleted: 403", method="DELETE", path="/api/v1/namespaces/default",
     query={"dryRun": "All"})

# --- Leases and Events -------------------------------------------------------------------------
LE = LEASES % "diff-lease"
LEASE = {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": "leader"},
         "spec": {"holderIdentity": "a", "leaseDurationSeconds": 15, "acquireTime": "2001-02-03T04:05:00.000000Z",
                  "renewTime": "2001-02-03T04:05:00.000000Z", "leaseTransitions": 0}}
step("lease/create", method="POST", path=LE, body=LEASE, save={"rv_lease": "metadata.resourceVersion"})
step("lease/renew with the resourceVersion", method="PUT", path=LE + "/leader",
     body=changed(LEASE, ("metadata.resourceVersion", "${rv_lease}"),
                  ("spec.renewTime", "2001-02-03T04:05:05.000000Z")))
step("lease/take over with the stale resourceVersion: 409", method="PUT", path=LE + "/leader",
     body=changed(LEASE, ("metadata.resourceVersion", "${rv_lease}"), ("spec.holderIdentity", "b"),
                  ("spec.leaseTransitions", 1)))
step("lease/get", path=LE + "/leader")
step("lease/invalid duration: 422", method="POST", path=LE, body=changed(LEASE, ("metadata.name", "bad"),
                                                                          ("spec.leaseDurationSeconds", 0)))
step("lease/list", path=LE)
EV = "/api/v1/namespaces/diff-lease/events"
EVENT = {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "e1"},
         "involvedObject": {"kind": "Lease", "namespace": "diff-lease", "name": "leader", "apiVersion": "coordination.k8s.io/v1"},
         "reason": "Tested", "message": "by the differential suite", "type": "Normal",
         "source": {"component": "diff-suite"}, "count": 1,
         "firstTimestamp": "2001-02-03T04:05:00Z", "lastTimestamp": "2001-02-03T04:05:00Z"}
step("event/create core v1", method="POST", path=EV, body=EVENT)
step("event/get core v1", path=EV + "/e1")
step("event/get through events.k8s.io/v1", path="/apis/events.k8s.io/v1/namespaces/diff-lease/events/e1")
step("event/list by involvedObject.name", path=EV, query={"fieldSelector": "involvedObject.name=leader"})
step("event/list by reason and type", path=EV, query={"fieldSelector": "reason=Tested,type=Normal"})
EV2 = {"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": {"name": "e2"},
       "eventTime": "2001-02-03T04:05:00.000000Z", "reportingController": "diff-suite/ctl",
       "reportingInstance": "diff-suite-1", "action": "Test", "reason": "Tested", "type": "Normal", "note": "n",
       "regarding": {"kind": "Lease", "namespace": "diff-lease", "name": "leader"}}
step("event/create events.k8s.io/v1", method="POST", path="/apis/events.k8s.io/v1/namespaces/diff-lease/events", body=EV2)
step("event/get core v1 view of events.k8s.io", path=EV + "/e2")
step("event/events.k8s.io without eventTime: 422", method="POST",
     path="/apis/events.k8s.io/v1/namespaces/diff-lease/events", body=changed(EV2, ("metadata.name", "e3"), ("eventTime",)))
step("event/core v1 without involvedObject namespace: 422", method="POST", path=EV,
     body=changed(EVENT, ("metadata.name", "e4"), ("involvedObject.namespace", "elsewhere")))

# --- discovery, version, openapi ---------------------------------------------------------------
step("discovery/version keys", path="/version", select=["major"])
step("discovery/api", path="/api", select=["kind", "versions"])
step("discovery/apis group names the fake serves", path="/apis",
     select=["kind", "groups.name=coordination.k8s.io", "groups.name=events.k8s.io",
             "groups.name=rbac.authorization.k8s.io"])
for res in ("configmaps", "pods", "pods/status", "pods/log", "namespaces", "events", "nodes", "services",
            "serviceaccounts", "persistentvolumeclaims"):
    step("discovery/api/v1 " + res, path="/api/v1", select=["kind", "groupVersion", "resources.name=" + res])
step("discovery/coordination.k8s.io/v1 leases", path="/apis/coordination.k8s.io/v1",
     select=["groupVersion", "resources.name=leases"])
step("discovery/events.k8s.io/v1 events", path="/apis/events.k8s.io/v1", select=["groupVersion", "resources.name=events"])
step("discovery/unknown group version: 404", path="/apis/nothing.example.com/v1")
step("discovery/healthz", path="/healthz")
step("discovery/readyz", path="/readyz")
step("discovery/livez", path="/livez")
step("openapi/v2 ConfigMap definition", path="/openapi/v2",
     select=["swagger", ["definitions", "io.k8s.api.core.v1.ConfigMap"]])
step("openapi/v3 index has api/v1", path="/openapi/v3", select=[["paths", "api/v1"]])
step("openapi/v3 api/v1 ConfigMap schema", path="/openapi/v3/api/v1",
     select=["openapi", ["components", "schemas", "io.k8s.api.core.v1.ConfigMap"]])

# --- the DGLJob custom resource ----------------------------------------------------------------
J = JOBS % "diff-crd"
step("crd/wait until the DGLJob CRD is served", path=J, until={"status": 200, "timeout": 60}, compare=False)
step("crd/discovery of kubeflow.org/v1alpha1", path="/apis/kubeflow.org/v1alpha1",
     select=["groupVersion", "resources.name=dgljobs", "resources.name=dgljobs/status"])
step("crd/create a minimal job (defaulting)", method="POST", path=J, body=job("j1"),
     save={"rv_j1": "metadata.resourceVersion"})
step("crd/get", path=J + "/j1")
step("crd/create with unknown fields (pruning)", method="POST", path=J,
     body=changed(job("j2"), ("spec.unknownField", "x"), ("spec.dglReplicaSpecs.Worker.bogus", 1),
                  ("status", {"phase": "Running"})))
step("crd/get the pruned job", path=J + "/j2")
step("crd/create with a string replicas: 422", method="POST", path=J,
     body=changed(job("j3"), ("spec.dglReplicaSpecs.Worker.replicas", "2")))
step("crd/create with an invalid name: 422", method="POST", path=J, body=job("J_bad"))
step("crd/status: put status", method="PUT", path=J + "/j1/status",
     body=changed(job("j1"), ("metadata.resourceVersion", "${rv_j1}"), ("status", {"phase": "Pending"}),
                  ("spec.dglReplicaSpecs.Worker.replicas", 5)))
step("crd/status: the spec is unchanged, status written", path=J + "/j1",
     select=["spec.dglReplicaSpecs.Worker.replicas", "status"])
step("crd/status: merge patch on the main resource ignores status", method="PATCH", path=J + "/j1",
     contentType=MERGE, body={"status": {"phase": "Succeeded"}, "metadata": {"labels": {"patched": "yes"}}})
step("crd/status: merge patch of status", method="PATCH", path=J + "/j1/status", contentType=MERGE,
     body={"status": {"phase": "Training", "restartCount": 1}})
step("crd/strategic merge patch: 415", method="PATCH", path=J + "/j1", contentType=STRATEGIC,
     body={"metadata": {"labels": {"x": "y"}}})
step("crd/json patch", method="PATCH", path=J + "/j1", contentType=JSONPATCH,
     body=[{"op": "replace", "path": "/spec/dglReplicaSpecs/Worker/replicas", "value": 3}])
step("crd/server-side apply", method="PATCH", path=J + "/j4", contentType=APPLY, body=job("j4"),
     query={"fieldManager": "alice"})
step("crd/Table with the printer columns", path=J, accept=TABLE)
step("crd/list", path=J)
step("crd/watch from rv=0", path=J, query={"watch": "1", "resourceVersion": "0", "fieldSelector": "metadata.name=j1"},
     watch={"events": 1, "timeout": 3})
step("crd/fieldSelector status.phase is not supported: 400", path=J, query={"fieldSelector": "status.phase=Pending"})
step("crd/delete", method="DELETE", path=J + "/j1")
step("crd/get after delete: 404", path=J + "/j1")

# --- every manifest our DGLJob admission refuses in the project's tests ------------------------
# (tests/operator/api/dgljob_admission_test.cc and dgljob_api_test.cc), sent to both servers.
BASE = job("refused")
REFUSED = [
    ("Worker replicas 0 and an unknown partitionMode", ("spec.partitionMode", "Fast"),
     ("spec.dglReplicaSpecs.Worker.replicas", 0)),
    ("Worker replicas 0", ("spec.dglReplicaSpecs.Worker.replicas", 0)),
    ("Worker replicas missing", ("spec.dglReplicaSpecs.Worker.replicas",)),
    ("Worker replicas a string", ("spec.dglReplicaSpecs.Worker.replicas", "2")),
    ("Worker replicas 2.5", ("spec.dglReplicaSpecs.Worker.replicas", 2.5)),
    ("Launcher replicas 2", ("spec.dglReplicaSpecs.Launcher.replicas", 2)),
    ("Partitioner replicas 2", ("spec.dglReplicaSpecs.Partitioner", replica(2))),
    ("partitionMode METIS", ("spec.partitionMode", "METIS")),
    ("no Launcher", ("spec.dglReplicaSpecs.Launcher",)),
    ("no Worker outside Skip", ("spec.dglReplicaSpecs.Worker",)),
    ("no dglReplicaSpecs", ("spec.dglReplicaSpecs",)),
    ("no spec", ("spec",)),
    ("an unknown replica type", ("spec.dglReplicaSpecs.Evaluator", {})),
    ("a Worker without a template", ("spec.dglReplicaSpecs.Worker.template",)),
    ("a Worker template without a spec", ("spec.dglReplicaSpecs.Worker.template.spec",)),
    ("no Launcher containers", ("spec.dglReplicaSpecs.Launcher.template.spec.containers", [])),
    ("Launcher containers missing", ("spec.dglReplicaSpecs.Launcher.template.spec.containers",)),
    ("a container without an image", ("spec.dglReplicaSpecs.Worker.template.spec.containers.0.image",)),
    ("a container without a name", ("spec.dglReplicaSpecs.Worker.template.spec.containers.0.name",)),
    ("a container name Main_1", ("spec.dglReplicaSpecs.Worker.template.spec.containers.0.name", "Main_1")),
    ("command a string", ("spec.dglReplicaSpecs.Launcher.template.spec.containers.0.command", "dglrun")),
    ("args with a number", ("spec.dglReplicaSpecs.Launcher.template.spec.containers.0.args", ["--num-servers", 2])),
    ("a GPU limit of 1.5", ("spec.dglReplicaSpecs.Worker.template.spec.containers.0.resources",
                            {"limits": {"nvidia.com/gpu": "1.5"}})),
    ("restartPolicy Always", ("spec.dglReplicaSpecs.Worker.restartPolicy", "Always")),
    ("slotsPerWorker 0", ("spec.slotsPerWorker", 0)),
    ("numServers -1", ("spec.numServers", -1)),
    ("cleanPodPolicy OnCompletion", ("spec.runPolicy", {"cleanPodPolicy": "OnCompletion"})),
    ("ttlSecondsAfterFinished -1", ("spec.runPolicy", {"ttlSecondsAfterFinished": -1})),
    ("activeDeadlineSeconds 0", ("spec.runPolicy", {"activeDeadlineSeconds": 0})),
    ("backoffLimit -1", ("spec.runPolicy", {"backoffLimit": -1})),
    ("suspend a string", ("spec.runPolicy", {"suspend": "true"})),
    ("minAvailable 0", ("spec.runPolicy", {"schedulingPolicy": {"minAvailable": 0}})),
    ("minAvailable 5 of 4 pods", ("spec.runPolicy", {"schedulingPolicy": {"minAvailable": 5}})),
    ("queue a number", ("spec.runPolicy", {"schedulingPolicy": {"queue": 3}})),
    ("priorityClass empty", ("spec.runPolicy", {"schedulingPolicy": {"priorityClass": ""}})),
    ("scheduleTimeoutSeconds 0", ("spec.runPolicy", {"schedulingPolicy": {"scheduleTimeoutSeconds": 0}})),
    ("schedulingPolicy a number", ("spec.runPolicy", {"schedulingPolicy": 1})),
    ("name My-Job", ("metadata.name", "My-Job")),
    ("name job.x", ("metadata.name", "job.x")),
    ("name of 52 characters", ("metadata.name", "a" * 52)),
    ("top-level cleanPodPolicy", ("spec.cleanPodPolicy", "All")),
    ("trainers without servers", ("spec.dglReplicaSpecs.Worker",), ("spec.dglReplicaSpecs.Trainer", replica(2))),
    ("servers without trainers", ("spec.dglReplicaSpecs.Worker",), ("spec.dglReplicaSpecs.Server", replica(2))),
    ("samplers alone", ("spec.dglReplicaSpecs.Worker",), ("spec.dglReplicaSpecs.Sampler", replica(2))),
    ("more partitions than server pods", ("spec.dglReplicaSpecs.Worker",), ("spec.dglReplicaSpecs.Server", replica(1)),
     ("spec.dglReplicaSpecs.Trainer", replica(2)),
     ("spec.dglReplicaSpecs.Launcher.template.spec.containers.0.command", ["dglrun", "--num-partitions", "2"])),
    ("roles in Skip mode", ("spec.partitionMode", "Skip"), ("spec.dglReplicaSpecs.Trainer", replica(1))),
    ("a role with no pods", ("spec.dglReplicaSpecs.Sampler", replica(0))),
    ("LauncherInit without a partitioner", ("spec.partitionMode", "DistParMETIS"),
     ("spec.partitionerPlacement", "LauncherInit")),
    ("an unknown placement", ("spec.partitionerPlacement", "Node")),
    ("a LauncherInit partitioner with a nodeSelector", ("spec.partitionerPlacement", "LauncherInit"),
     ("spec.dglReplicaSpecs.Partitioner", changed(replica(1), ("template.spec.nodeSelector", {"pool": "big"})))),
    ("a LauncherInit partitioner with two replicas", ("spec.partitionerPlacement", "LauncherInit"),
     ("spec.dglReplicaSpecs.Partitioner", replica(2))),
    ("a LauncherInit partitioner with two containers", ("spec.partitionerPlacement", "LauncherInit"),
     ("spec.dglReplicaSpecs.Partitioner", changed(replica(1), ("template.spec.containers.1",
                                                               {"name": "sidecar", "image": "x:1"})))),
    ("a LauncherInit partitioner with labels of its own", ("spec.partitionerPlacement", "LauncherInit"),
     ("spec.dglReplicaSpecs.Partitioner", changed(replica(1), ("template.metadata", {"labels": {"pool": "big"}})))),
    ("more partitions than worker pods",
     ("spec.dglReplicaSpecs.Launcher.template.spec.containers.0.command", ["dglrun", "--num-partitions", "3"])),
]
A = JOBS % "diff-adm"
for title, *edits in REFUSED:
    step("admission/" + title, method="POST", path=A, body=changed(BASE, *edits), admission=True)
    step("admission/clean up after: " + title, method="DELETE", path=A + "/" + changed(BASE, *edits)
         .get("metadata", {}).get("name", "refused"), compare=False)

# --- clean-up --------------------------------------------------------------------------------------
step("cleanup/delete the pod namespace's configmap", method="DELETE", path=C + "/a", compare=False)
