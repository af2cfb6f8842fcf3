#!/usr/bin/python3
"""Conformance of `dglsim serve` with a client this project did not write: Debian's official
Kubernetes Python client (python3-kubernetes). Everything real clients need from the API server, through the client's typed
APIs where it has them, its dynamic client over every served kind, and raw requests where it has
no API for what is checked (a watch's wire form, the Accept header, server-side apply's query).

Usage: /usr/bin/python3 python_client_test.py DGLSIM SCENARIO REPO_ROOT
Exit codes: 0 every check passed, 1 a check failed, 77 the client is not installed (skipped).
"""
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

try:
    import kubernetes
    from kubernetes import client, utils, watch
    from kubernetes.client.rest import ApiException
    from kubernetes.dynamic import DynamicClient
except ImportError:
    print("SKIP: the kubernetes Python module is not installed for %s (Debian: python3-kubernetes)" % sys.executable)
    sys.exit(77)

DGLSIM, SCENARIO, ROOT = sys.argv[1], sys.argv[2], sys.argv[3]
NS = "conformance"
ROUND_TRIP_NS = "round-trip"  # the DGLJob there runs: its pods and events stay out of NS
failures = []


def check(name):
    """Runs a check; an exception or a failed assert is a failure with its message."""
    def wrap(fn):
        try:
            fn()
            print("ok: " + name)
        except Exception as e:  # noqa: BLE001 - every way a check can fail is reported
            failures.append(name)
            print("FAIL: %s: %s: %s" % (name, type(e).__name__, e))
        return fn
    return wrap


def expect_api_error(fn, status, *needles):
    try:
        fn()
    except ApiException as e:
        assert e.status == status, "status %s, expected %s: %s" % (e.status, status, e.body)
        for needle in needles:
            assert needle in (e.body or ""), "%r not in %s" % (needle, e.body)
        return json.loads(e.body) if e.body else {}
    raise AssertionError("no error, expected %d" % status)


def raw(method, path, body=None, headers=None):
    """A request without the client: (status, headers, body text)."""
    req = urllib.request.Request(URL + path, method=method, data=None if body is None else body.encode(),
                                 headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=20) as r:
            return r.status, dict(r.headers), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read().decode()


def configmap(name, data=None, labels=None):
    return client.V1ConfigMap(metadata=client.V1ObjectMeta(name=name, labels=labels), data=data or {"k": "v"})


# --- the server --------------------------------------------------------------------------------
work = tempfile.mkdtemp()
out = open(os.path.join(work, "serve.out"), "w+")
err = open(os.path.join(work, "serve.err"), "w+")
server = subprocess.Popen([DGLSIM, "serve", SCENARIO, "--port", "0", "--speed", "max", "--watch-history", "50"],
                          stdout=out, stderr=err)
URL = None
deadline = time.time() + 30
while time.time() < deadline and URL is None:
    out.seek(0)
    m = re.search(r"^serving on (http://\S+)$", out.read(), re.M)
    if m:
        URL = m.group(1)
    elif server.poll() is not None:
        break
    else:
        time.sleep(0.05)  # polling for the server's ready line, with a deadline
if URL is None:
    err.seek(0)
    print("FAIL: dglsim serve printed no ready line\n" + err.read())
    server.kill()
    sys.exit(1)

configuration = client.Configuration()
configuration.host = URL
api_client = client.ApiClient(configuration)
core = client.CoreV1Api(api_client)
core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=NS)))


@check("version: the server says 1.32")
def _():
    v = client.VersionApi(api_client).get_code()
    assert v.major == "1" and v.minor == "32", v


@check("nodes: the typed client reads them, nodeInfo complete (bootID, machineID, OS image, kernel, runtime)")
def _():
    nodes = core.list_node().items
    assert nodes
    info = nodes[0].status.node_info
    for field in ("boot_id", "machine_id", "system_uuid", "os_image", "kernel_version", "container_runtime_version",
                  "kube_proxy_version", "kubelet_version", "operating_system", "architecture"):
        assert getattr(info, field), field


@check("keep-alive: requests on one kept-alive connection answer fast")
def _():
    times = []
    for _ in range(50):
        start = time.perf_counter()
        client.VersionApi(api_client).get_code()
        times.append(time.perf_counter() - start)
    print("    median %.2f ms over 50 GET /version on one connection (Python client)" % (statistics.median(times) * 1000))
    # A write too: a body after the head is where Nagle and delayed ACKs cost 40 ms.
    core.create_namespaced_config_map(NS, configmap("keep-alive"))
    times = []
    for i in range(50):
        start = time.perf_counter()
        core.patch_namespaced_config_map("keep-alive", NS, {"data": {"k": str(i)}})
        times.append(time.perf_counter() - start)
    assert core.read_namespaced_config_map("keep-alive", NS).data["k"] == "49"
    print("    median %.2f ms over 50 PATCH of a ConfigMap on one connection (Python client)" % (statistics.median(times) * 1000))


@check("typed clients list every served kind")
def _():
    rbac = client.RbacAuthorizationV1Api(api_client)
    for lister in (core.list_pod_for_all_namespaces, core.list_namespace, core.list_service_for_all_namespaces,
                   core.list_config_map_for_all_namespaces, core.list_event_for_all_namespaces,
                   core.list_service_account_for_all_namespaces,
                   core.list_persistent_volume_claim_for_all_namespaces, rbac.list_role_for_all_namespaces,
                   rbac.list_role_binding_for_all_namespaces, rbac.list_cluster_role, rbac.list_cluster_role_binding,
                   client.CoordinationV1Api(api_client).list_lease_for_all_namespaces):
        lister()
    custom = client.CustomObjectsApi(api_client)
    custom.list_cluster_custom_object("kubeflow.org", "v1alpha1", "dgljobs")
    custom.list_cluster_custom_object("scheduling.x-k8s.io", "v1alpha1", "podgroups")


@check("dynamic client: discovery, then a list of every served kind that lists")
def _():
    dyn = DynamicClient(api_client)
    listed = set()
    for r in dyn.resources.search():
        if "list" in (r.verbs or []) and "/" not in r.name:
            dyn.get(r)
            listed.add("%s/%s" % (r.group_version, r.name))
    for wanted in ("v1/pods", "v1/nodes", "coordination.k8s.io/v1/leases", "events.k8s.io/v1/events",
                   "rbac.authorization.k8s.io/v1/clusterroles", "kubeflow.org/v1alpha1/dgljobs"):
        assert wanted in listed, wanted


def round_trip_bodies():
    """What a kind needs besides apiVersion, kind and metadata, for each kind discovery names as creatable."""
    job = json.load(open(os.path.join(ROOT, "tests", "cli", "operator_http_e2e_job.json")))
    # An Event is about an object of its own namespace (kube-apiserver refuses another's).
    pod = {"kind": "Pod", "name": "p", "namespace": ROUND_TRIP_NS}
    return {
        "v1/Pod": {"spec": {"containers": [{"name": "c", "image": "busybox:1.36"}], "schedulerName": "conformance-test"}},
        "v1/Node": {}, "v1/Namespace": {}, "v1/ServiceAccount": {},
        "v1/Service": {"spec": {"ports": [{"port": 80}]}},
        "v1/ConfigMap": {"data": {"k": "v"}},
        "v1/Event": {"involvedObject": pod, "reason": "Tested", "message": "m"},
        "v1/PersistentVolumeClaim": {"spec": {"accessModes": ["ReadWriteOnce"],
                                              "resources": {"requests": {"storage": "1Gi"}}}},
        "rbac.authorization.k8s.io/v1/Role": {"rules": []},
        "rbac.authorization.k8s.io/v1/ClusterRole": {"rules": []},
        "rbac.authorization.k8s.io/v1/RoleBinding": {
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "r"}, "subjects": []},
        "rbac.authorization.k8s.io/v1/ClusterRoleBinding": {
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "r"}, "subjects": []},
        "coordination.k8s.io/v1/Lease": {"spec": {"holderIdentity": "a"}},
        "events.k8s.io/v1/Event": {"eventTime": "2026-01-01T00:00:00.000000Z", "reportingController": "c",
                                   "reportingInstance": "i", "action": "A", "reason": "R", "type": "Normal",
                                   "regarding": pod},
        "scheduling.x-k8s.io/v1alpha1/PodGroup": {"spec": {"minMember": 1}},
        "kubeflow.org/v1alpha1/DGLJob": {"spec": job["spec"]},
    }


def round_trip(dyn, r, extra):
    """create, get, merge patch, replace, list by label, delete, then a watch from the creation that
    saw the patch, the replace and the deletion (a namespace: its deletionTimestamp, it terminates)."""
    name, ns = "rt-" + r.kind.lower(), ROUND_TRIP_NS if r.namespaced else None
    created = dyn.create(r, body=dict(apiVersion=r.group_version, kind=r.kind, metadata={"name": name}, **extra),
                         namespace=ns)
    got = dyn.get(r, name=name, namespace=ns)
    assert got.metadata.uid == created.metadata.uid
    dyn.patch(r, name=name, namespace=ns, body={"metadata": {"labels": {"round-trip": "patched"}}},
              content_type="application/merge-patch+json")
    for attempt in range(10):  # a DGLJob's status is written by the operator meanwhile: retry on 409
        replaced = dyn.get(r, name=name, namespace=ns).to_dict()
        replaced["metadata"]["labels"] = {"round-trip": "replaced"}
        try:
            dyn.replace(r, body=replaced, namespace=ns)
            break
        except ApiException as e:
            assert e.status == 409 and attempt < 9, e
    listed = [i.metadata.name for i in dyn.get(r, namespace=ns, label_selector="round-trip=replaced").items]
    assert listed == [name], listed
    dyn.delete(r, name=name, namespace=ns)
    seen, stop = [], watch.Watch()
    for event in dyn.watch(r, namespace=ns, resource_version=created.metadata.resourceVersion,
                           field_selector="metadata.name=" + name, timeout=10, watcher=stop):
        meta = event["object"].metadata
        seen.append((meta.labels or {}).get("round-trip", "-"))
        if event["type"] == "DELETED" or meta.deletionTimestamp:
            seen.append("gone")
            stop.stop()
    assert "patched" in seen and seen.index("patched") < seen.index("replaced") < seen.index("gone"), seen


@check("dynamic client: create, get, patch, replace, list, delete and watch of every kind discovery names as creatable")
def _():
    dyn = DynamicClient(api_client)
    core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=ROUND_TRIP_NS)))
    bodies, creatable = round_trip_bodies(), {}
    for r in dyn.resources.search():
        # Kinds that can only be created (access reviews, Binding) are answers, not stored objects;
        # search() also yields each kind's list (PodList), with the verbs of the kind.
        verbs = set(r.verbs or [])
        if "create" in verbs and verbs != {"create"} and "/" not in r.name and not r.kind.endswith("List"):
            creatable.setdefault("%s/%s" % (r.group_version, r.kind), r)
    assert set(creatable) == set(bodies), "served and checked kinds differ: %s" % sorted(set(creatable) ^ set(bodies))
    for key in sorted(creatable):
        round_trip(dyn, creatable[key], bodies[key])


@check("deploy/rbac.yaml creates (Namespace, ServiceAccount, ClusterRole, ClusterRoleBinding, Role, RoleBinding)")
def _():
    utils.create_from_yaml(api_client, os.path.join(ROOT, "deploy", "rbac.yaml"))
    role = client.RbacAuthorizationV1Api(api_client).read_cluster_role("dgl-operator")
    assert any("dgljobs" in (r.resources or []) for r in role.rules)


@check("Leases: create, read, update (coordination.k8s.io/v1); a stale update is 409, as leader election needs")
def _():
    leases = client.CoordinationV1Api(api_client)
    lease = client.V1Lease(metadata=client.V1ObjectMeta(name="l"), spec=client.V1LeaseSpec(holder_identity="a", lease_duration_seconds=15))
    leases.create_namespaced_lease(NS, lease)
    got = leases.read_namespaced_lease("l", NS)
    got.spec.holder_identity = "b"
    assert leases.replace_namespaced_lease("l", NS, got).spec.holder_identity == "b"
    # A second candidate that read the lease before b took it must not take it over.
    got.spec.holder_identity = "c"
    expect_api_error(lambda: leases.replace_namespaced_lease("l", NS, got), 409, "the object has been modified")
    assert leases.read_namespaced_lease("l", NS).spec.holder_identity == "b"


@check("pods/binding and pods/eviction over HTTP")
def _():
    # A scheduler name nobody serves, so that the simulated scheduler does not bind it first.
    pod = client.V1Pod(metadata=client.V1ObjectMeta(name="p"),
                       spec=client.V1PodSpec(containers=[client.V1Container(name="c", image="busybox:1.36")],
                                             scheduler_name="conformance-test"))
    core.create_namespaced_pod(NS, pod)
    binding = client.V1Binding(metadata=client.V1ObjectMeta(name="p"),
                               target=client.V1ObjectReference(kind="Node", name="any-node"))
    # The client decodes the answer (a Status) as a Binding and fails on it: read it raw.
    r = core.create_namespaced_pod_binding("p", NS, binding, _preload_content=False)
    assert r.status == 201, r.status
    assert core.read_namespaced_pod("p", NS).spec.node_name == "any-node"
    eviction = client.V1Eviction(metadata=client.V1ObjectMeta(name="p", namespace=NS),
                                 delete_options=client.V1DeleteOptions(grace_period_seconds=0))
    core.create_namespaced_pod_eviction("p", NS, eviction)
    expect_api_error(lambda: core.read_namespaced_pod("p", NS), 404)


@check("events.k8s.io/v1: a view of the core events")
def _():
    events = client.EventsV1Api(api_client)
    event = client.EventsV1Event(metadata=client.V1ObjectMeta(name="e1"), event_time="2026-01-01T00:00:00.000000Z",
                                 reporting_controller="conformance", reporting_instance="t1", action="Test",
                                 reason="Tested", type="Normal", note="seen by both",
                                 regarding=client.V1ObjectReference(kind="Pod", name="p", namespace=NS))
    events.create_namespaced_event(NS, event)
    # One event by name: this client cannot read an events.k8s.io Event without eventTime (a core
    # Event from the operator, say), against kube-apiserver too (kubernetes-client/python#1826).
    assert events.list_namespaced_event(NS, field_selector="metadata.name=e1").items[0].note == "seen by both"
    assert core.read_namespaced_event("e1", NS).message == "seen by both"


@check("kubectl auth can-i and whoami: SelfSubjectAccessReview allows, SelfSubjectReview says anonymous")
def _():
    review = client.V1SelfSubjectAccessReview(spec=client.V1SelfSubjectAccessReviewSpec(
        resource_attributes=client.V1ResourceAttributes(verb="create", resource="pods", namespace=NS)))
    assert client.AuthorizationV1Api(api_client).create_self_subject_access_review(review).status.allowed
    # This client predates SelfSubjectReview (Kubernetes 1.28): its dynamic client finds it.
    whoami = DynamicClient(api_client).resources.get(api_version="authentication.k8s.io/v1", kind="SelfSubjectReview")
    answer = whoami.create(body={"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"})
    assert answer.status.userInfo.username == "system:anonymous", answer


@check("deletecollection with a label selector")
def _():
    for name in ("dc-a", "dc-b", "dc-keep"):
        core.create_namespaced_config_map(NS, configmap(name, labels={"set": "keep" if name == "dc-keep" else "drop"}))
    core.delete_collection_namespaced_config_map(NS, label_selector="set=drop")
    names = [c.metadata.name for c in core.list_namespaced_config_map(NS, label_selector="set").items]
    assert names == ["dc-keep"], names


@check("a watch from a too-old resourceVersion: 200 and an ERROR event carrying 410")
def _():
    old = core.create_namespaced_config_map(NS, configmap("w-old")).metadata.resource_version
    for i in range(60):  # past --watch-history 50
        core.create_namespaced_config_map(NS, configmap("w-%d" % i))
    r = core.list_namespaced_config_map(NS, watch=True, resource_version=old, _preload_content=False)
    assert r.status == 200, r.status
    event = json.loads(r.data.decode().splitlines()[0])
    assert event["type"] == "ERROR" and event["object"]["code"] == 410, event
    try:
        for _ in watch.Watch().stream(core.list_namespaced_config_map, NS, resource_version=old, timeout_seconds=5):
            pass
        raise AssertionError("the client's watch did not raise")
    except ApiException as e:
        assert e.status == 410, e.status


@check("an object whose owner does not exist is collected promptly")
def _():
    orphan = configmap("orphan")
    orphan.metadata.owner_references = [client.V1OwnerReference(api_version="v1", kind="ConfigMap", name="gone",
                                                                uid="00000000-0000-4000-8000-000000000000")]
    core.create_namespaced_config_map(NS, orphan)
    until = time.time() + 10
    while time.time() < until:
        try:
            core.read_namespaced_config_map("orphan", NS)
            time.sleep(0.05)  # polling for the collector, with a deadline
        except ApiException as e:
            assert e.status == 404
            return
    raise AssertionError("still there after 10 s")


def apply(name, body, manager=None, force=None, path_kind="configmaps"):
    query = []
    if manager:
        query.append(("fieldManager", manager))
    if force is not None:
        query.append(("force", "true" if force else "false"))
    return api_client.call_api("/api/v1/namespaces/{namespace}/%s/{name}" % path_kind, "PATCH",
                               path_params={"namespace": NS, "name": name}, query_params=query,
                               header_params={"Content-Type": "application/apply-patch+yaml", "Accept": "application/json"},
                               body=json.dumps(body), response_type="object", _return_http_data_only=True)


@check("server-side apply: fieldManager required, force only for apply, conflicts, force, removal")
def _():
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "ssa", "namespace": NS},
          "data": {"mode": "Skip", "epochs": "1"}}
    expect_api_error(lambda: apply("ssa", cm), 422, "fieldManager: Required value: is required for apply patch")
    apply("ssa", cm, manager="dgl-operator")
    expect_api_error(lambda: core.patch_namespaced_config_map("ssa", NS, {"data": {"x": "1"}}, force=True), 422,
                     "force: Forbidden: may not be specified for non-apply patch")
    mine = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "ssa", "namespace": NS}, "data": {"mode": "DGL-API"}}
    conflict = expect_api_error(lambda: apply("ssa", mine, manager="kubectl"), 409)
    assert conflict["message"] == 'Apply failed with 1 conflict: conflict with "dgl-operator": .data.mode', conflict
    obj = apply("ssa", mine, manager="kubectl", force=True)
    owners = {e["manager"]: e["fieldsV1"] for e in obj["metadata"]["managedFields"]}
    assert owners["kubectl"] == {"f:data": {"f:mode": {}}} and owners["dgl-operator"] == {"f:data": {"f:epochs": {}}}, owners
    shrunk = apply("ssa", {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "ssa", "namespace": NS}},
                   manager="dgl-operator")
    assert "epochs" not in shrunk["data"] and shrunk["data"]["mode"] == "DGL-API", shrunk["data"]
    dyn = DynamicClient(api_client)
    cms = dyn.resources.get(api_version="v1", kind="ConfigMap")
    # This client's server_side_apply cannot send a dict (its REST layer refuses a non-JSON content
    # type with a dict body before any request): give it the configuration as text.
    applied = dyn.server_side_apply(cms, body=json.dumps(mine), name="ssa", namespace=NS, field_manager="kubectl")
    assert applied.data.mode == "DGL-API"


@check("watch bookmarks and sendInitialEvents ending with the initial-events-end bookmark")
def _():
    status, _, body = raw("GET", "/api/v1/namespaces/%s/configmaps?watch=true&allowWatchBookmarks=true&sendInitialEvents=true"
                          "&resourceVersionMatch=NotOlderThan&timeoutSeconds=2" % NS)
    assert status == 200
    events = [json.loads(line) for line in body.splitlines() if line.strip()]
    marks = [i for i, e in enumerate(events) if e["type"] == "BOOKMARK"]
    assert marks, [e["type"] for e in events]
    end = events[marks[0]]["object"]["metadata"]
    assert end["annotations"]["k8s.io/initial-events-end"] == "true", end
    assert all(e["type"] == "ADDED" for e in events[:marks[0]]) and marks[0] > 0


@check("resourceVersion: Exact at an old version, 410 once compacted, 504 for a future one, 500 for a word")
def _():
    then = core.create_namespaced_config_map(NS, configmap("rv-a")).metadata.resource_version
    core.create_namespaced_config_map(NS, configmap("rv-b"))
    past = core.list_namespaced_config_map(NS, resource_version=then, resource_version_match="Exact")
    names = [c.metadata.name for c in past.items]
    assert "rv-a" in names and "rv-b" not in names, names
    for i in range(60):
        core.create_namespaced_config_map(NS, configmap("rv-fill-%d" % i))
    expect_api_error(lambda: core.list_namespaced_config_map(NS, resource_version=then, resource_version_match="Exact"),
                     410, "too old")
    future = str(int(core.list_namespaced_config_map(NS).metadata.resource_version) + 1000)
    expect_api_error(lambda: core.list_namespaced_config_map(NS, resource_version=future), 504, "Too large resource version")
    expect_api_error(lambda: core.list_namespaced_config_map(NS, resource_version="latest"), 400, "strconv.ParseUint")


@check("paging: limit and continue over one snapshot; an expired token is 410")
def _():
    first = core.list_namespaced_config_map(NS, limit=5)
    assert len(first.items) == 5 and first.metadata._continue
    core.create_namespaced_config_map(NS, configmap("aaa-after-the-snapshot"))
    seen = [c.metadata.name for c in first.items]
    token = first.metadata._continue
    while token:
        page = core.list_namespaced_config_map(NS, limit=20, _continue=token)
        seen += [c.metadata.name for c in page.items]
        token = page.metadata._continue
    assert "aaa-after-the-snapshot" not in seen
    stale = core.list_namespaced_config_map(NS, limit=1).metadata._continue
    for i in range(60):
        core.create_namespaced_config_map(NS, configmap("page-fill-%d" % i))
    body = expect_api_error(lambda: core.list_namespaced_config_map(NS, limit=1, _continue=stale), 410)
    assert body["metadata"]["continue"], body


@check("deletes: a Status for ConfigMaps and DGLJobs, the object for pods")
def _():
    core.create_namespaced_config_map(NS, configmap("del"))
    status = core.delete_namespaced_config_map("del", NS)
    assert status.status == "Success" and status.details.kind == "configmaps" and status.details.uid, status
    custom = client.CustomObjectsApi(api_client)
    job = json.load(open(os.path.join(ROOT, "tests", "cli", "operator_http_e2e_job.json")))
    job["metadata"].update(name="deleted-job", namespace=NS)
    custom.create_namespaced_custom_object("kubeflow.org", "v1alpha1", NS, "dgljobs", job)
    answer = custom.delete_namespaced_custom_object("kubeflow.org", "v1alpha1", NS, "dgljobs", "deleted-job")
    assert answer["kind"] == "Status" and answer["details"]["group"] == "kubeflow.org", answer
    pod = client.V1Pod(metadata=client.V1ObjectMeta(name="del-pod"),
                       spec=client.V1PodSpec(containers=[client.V1Container(name="c", image="busybox:1.36")]))
    core.create_namespaced_pod(NS, pod)
    assert core.delete_namespaced_pod("del-pod", NS).kind == "Pod"


@check("metadata: namespaces carry kubernetes.io/metadata.name, ConfigMaps no generation, DGLJobs one")
def _():
    assert core.read_namespace(NS).metadata.labels["kubernetes.io/metadata.name"] == NS
    assert core.create_namespaced_config_map(NS, configmap("gen")).metadata.generation is None
    custom = client.CustomObjectsApi(api_client)
    job = json.load(open(os.path.join(ROOT, "tests", "cli", "operator_http_e2e_job.json")))
    job["metadata"].update(name="gen-job", namespace=NS)
    assert custom.create_namespaced_custom_object("kubeflow.org", "v1alpha1", NS, "dgljobs", job)["metadata"]["generation"] == 1


@check("the Accept header: PartialObjectMetadataList, YAML, 406 for protobuf only")
def _():
    status, _, body = raw("GET", "/api/v1/namespaces/%s/configmaps" % NS,
                          headers={"Accept": "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"})
    doc = json.loads(body)
    assert status == 200 and doc["kind"] == "PartialObjectMetadataList" and "data" not in doc["items"][0], doc["kind"]
    status, headers, _ = raw("GET", "/api/v1/namespaces/%s/configmaps" % NS, headers={"Accept": "application/yaml"})
    assert status == 200 and headers["Content-Type"].startswith("application/yaml"), headers
    status, _, body = raw("GET", "/api/v1/pods", headers={"Accept": "application/vnd.kubernetes.protobuf"})
    assert status == 406 and json.loads(body)["reason"] == "NotAcceptable", (status, body)


@check("dryRun=All on create, patch and delete stores nothing")
def _():
    core.create_namespaced_config_map(NS, configmap("dry"), dry_run="All")
    expect_api_error(lambda: core.read_namespaced_config_map("dry", NS), 404)
    core.create_namespaced_config_map(NS, configmap("dry-real"))
    patched = core.patch_namespaced_config_map("dry-real", NS, {"data": {"k": "w"}}, dry_run="All")
    assert patched.data["k"] == "w"
    core.delete_namespaced_config_map("dry-real", NS, dry_run="All")
    assert core.read_namespaced_config_map("dry-real", NS).data["k"] == "v"


@check("an informer-style watch: the list's resourceVersion, then the changes")
def _():
    listed = core.list_namespaced_config_map(NS)
    core.create_namespaced_config_map(NS, configmap("watched"))
    seen = []
    for event in watch.Watch().stream(core.list_namespaced_config_map, NS, resource_version=listed.metadata.resource_version,
                                      timeout_seconds=2):
        seen.append((event["type"], event["object"].metadata.name))
        if event["object"].metadata.name == "watched":
            break
    assert ("ADDED", "watched") in seen, seen


server.terminate()
server.wait(timeout=10)
if server.returncode != 0:
    failures.append("dglsim serve exit code %s" % server.returncode)
    err.seek(0)
    print(err.read()[-3000:])
if failures:
    print("python client conformance: %d check(s) failed: %s" % (len(failures), ", ".join(failures)))
    sys.exit(1)
print("python client conformance: all checks passed (kubernetes %s)" % kubernetes.__version__)
