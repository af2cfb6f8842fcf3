// What real controllers and tools need from the HTTP facade beyond kubectl's basics:
// OpenAPI v2, server-side apply with field ownership, dryRun, deletes answered as kube-apiserver
// answers them, deletecollection, Leases, ClusterRoles, bindings, evictions, access reviews, the
// events.k8s.io view, the Accept header, paging, exact lists, bookmarks and WatchList.
#include "tests/fakeapi/server/http_test_util.h"

#include <map>

namespace fakeapi {
namespace {

using namespace fakeapi::testing;

class HttpApiTest : public HttpServerTest {
 protected:
  static constexpr const char* kApply = "application/apply-patch+yaml";
  static constexpr const char* kMerge = "application/merge-patch+json";
  const std::string cms = "/api/v1/namespaces/default/configmaps";
  const std::string jobs = "/apis/kubeflow.org/v1alpha1/namespaces/default/dgljobs";
};

TEST_F(HttpApiTest, OpenApiV2IsServedAsJsonAndAsTheProtobufKubectl127Reads) {
  json doc = Body(client->Get("/openapi/v2"));
  EXPECT_EQ(doc["swagger"], "2.0");
  const json& job = doc["definitions"]["org.kubeflow.v1alpha1.DGLJob"];
  EXPECT_EQ(job["x-kubernetes-group-version-kind"][0]["kind"], "DGLJob");
  const json& patch = doc["paths"]["/apis/kubeflow.org/v1alpha1/namespaces/{namespace}/dgljobs/{name}"]["patch"];
  EXPECT_EQ(patch["parameters"][0]["name"], "fieldValidation");
  EXPECT_TRUE(doc["definitions"].contains("io.k8s.api.core.v1.Pod"));
  auto proto = client->Get("/openapi/v2", {{"Accept", "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"}});
  ASSERT_TRUE(proto);
  EXPECT_EQ(proto->status, 200);
  // Asked for with "@" (kubectl 1.27), served with "." as kube-apiserver does: Go's mime parser
  // refuses "@" in a media type.
  EXPECT_EQ(proto->get_header_value("Content-Type"), "application/com.github.proto-openapi.spec.v2.v1.0+protobuf");
  // Field 1 (swagger), length-delimited: 0x0a, 3, "2.0"; the definition names appear as strings.
  EXPECT_EQ(proto->body.substr(0, 5), std::string("\x0a\x03" "2.0", 5));
  EXPECT_NE(proto->body.find("org.kubeflow.v1alpha1.DGLJob"), std::string::npos);
  EXPECT_NE(proto->body.find("x-kubernetes-group-version-kind"), std::string::npos);
}

TEST_F(HttpApiTest, ServerSideApplyNeedsAFieldManagerAndForceOnlyGoesWithApply) {
  auto no_manager = Patch(cms + "/c", ConfigMap("c"), kApply);
  ExpectStatus(no_manager, 422, "Invalid");
  EXPECT_EQ(Body(no_manager)["message"],
            "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for apply patch");
  ASSERT_EQ(Post(cms, ConfigMap("c"))->status, 201);
  auto forced_merge = Patch(cms + "/c?force=true", {{"data", {{"a", "1"}}}}, kMerge);
  ExpectStatus(forced_merge, 422, "Invalid");
  EXPECT_EQ(Body(forced_merge)["message"],
            "PatchOptions.meta.k8s.io \"\" is invalid: force: Forbidden: may not be specified for non-apply patch");
}

TEST_F(HttpApiTest, ASecondManagerConflictsUnlessItForcesAndManagedFieldsSayWhoOwnsWhat) {
  json cm = ConfigMap("c", "default", {{"mode", "Skip"}, {"epochs", "1"}});
  ASSERT_EQ(Patch(cms + "/c?fieldManager=dgl-operator", cm, kApply)->status, 201);
  json mine = ConfigMap("c", "default", {{"mode", "DGL-API"}});
  auto conflict = Patch(cms + "/c?fieldManager=kubectl", mine, kApply);
  ExpectStatus(conflict, 409, "Conflict");
  EXPECT_EQ(Body(conflict)["message"], "Apply failed with 1 conflict: conflict with \"dgl-operator\": .data.mode");
  EXPECT_EQ(Body(conflict)["details"]["causes"][0]["field"], ".data.mode");
  auto forced = Patch(cms + "/c?fieldManager=kubectl&force=true", mine, kApply);
  ASSERT_EQ(forced->status, 200) << forced->body;
  json obj = Body(forced);
  EXPECT_EQ(obj["data"]["mode"], "DGL-API");
  std::map<std::string, json> owners;
  for (const json& e : obj["metadata"]["managedFields"]) owners[e["manager"]] = e["fieldsV1"];
  EXPECT_EQ(owners["kubectl"], json::parse(R"({"f:data":{"f:mode":{}}})"));
  EXPECT_EQ(owners["dgl-operator"], json::parse(R"({"f:data":{"f:epochs":{}}})"));
  // dgl-operator stops applying epochs: it owned it alone, so it goes.
  auto shrunk = Patch(cms + "/c?fieldManager=dgl-operator", ConfigMap("c", "default", json::object()), kApply);
  ASSERT_EQ(shrunk->status, 200);
  EXPECT_FALSE(Body(shrunk)["data"].contains("epochs"));
  EXPECT_EQ(Body(shrunk)["data"]["mode"], "DGL-API");
}

TEST_F(HttpApiTest, StatusWritesAreAttributedToTheirManagerWithTheStatusSubresource) {
  ASSERT_EQ(client->Post((jobs + "?fieldManager=kubectl-create").c_str(), DGLJob("j").dump(), "application/json")->status, 201);
  json job = Body(client->Get((jobs + "/j").c_str()));
  job["status"] = {{"phase", "Pending"}};
  auto put = client->Put((jobs + "/j/status?fieldManager=dgl-operator").c_str(), job.dump(), "application/json");
  ASSERT_EQ(put->status, 200) << put->body;
  auto patched = Patch(jobs + "/j/status?fieldManager=dgl-operator", {{"status", {{"restartCount", 0}}}}, kMerge);
  ASSERT_EQ(patched->status, 200) << patched->body;
  const json stored = Body(client->Get((jobs + "/j").c_str()));
  std::map<std::string, json> entries;
  for (const json& e : stored["metadata"]["managedFields"])
    entries[e["manager"].get<std::string>() + "/" + e.value("subresource", "")] = e["fieldsV1"];
  EXPECT_EQ(entries["dgl-operator/status"], json::parse(R"({"f:status":{".":{},"f:phase":{},"f:restartCount":{}}})"));
  EXPECT_EQ(entries["kubectl-create/"], json::parse(R"({"f:spec":{".":{},"f:partitionMode":{}}})")) << stored.dump();
  // An in-process status update (an actor writing from its copy) leaves what was recorded.
  json unattributed = Body(patched);
  unattributed["metadata"]["managedFields"] = json::array();
  unattributed["status"]["phase"] = "Training";
  ASSERT_TRUE(store.UpdateStatus("dgljobs.kubeflow.org", unattributed).ok());
  EXPECT_EQ(Body(client->Get((jobs + "/j").c_str()))["metadata"]["managedFields"].size(), 2u);
}

TEST_F(HttpApiTest, DryRunAllRunsEveryCheckAndStoresNothing) {
  const std::int64_t rv = store.CurrentResourceVersion();
  ASSERT_EQ(client->Post((cms + "?dryRun=All").c_str(), ConfigMap("dry").dump(), "application/json")->status, 201);
  EXPECT_FALSE(store.Get("configmaps", "default", "dry").ok());
  ASSERT_EQ(Post(cms, ConfigMap("real", "default", {{"k", "v"}}))->status, 201);
  const std::int64_t after_create = store.CurrentResourceVersion();
  auto patched = Patch(cms + "/real?dryRun=All", {{"data", {{"k", "w"}}}}, kMerge);
  EXPECT_EQ(Body(patched)["data"]["k"], "w");
  auto applied = Patch(cms + "/real?dryRun=All&fieldManager=kubectl", ConfigMap("real", "default", {{"k", "x"}}), kApply);
  EXPECT_EQ(applied->status, 409) << applied->body;  // a dry run conflicts as the real apply would
  EXPECT_EQ(client->Delete((cms + "/real?dryRun=All").c_str())->status, 200);
  EXPECT_EQ(store.CurrentResourceVersion(), after_create);
  EXPECT_GT(after_create, rv);
  EXPECT_EQ((*store.Get("configmaps", "default", "real").value())["data"]["k"], "v");
  ExpectStatus(client->Post((cms + "?dryRun=Some").c_str(), ConfigMap("x").dump(), "application/json"), 422, "Invalid");
}

TEST_F(HttpApiTest, DeletesAnswerAStatusOrTheObjectAsKubeApiserverDoesPerKind) {
  ASSERT_EQ(Post(cms, ConfigMap("c"))->status, 201);
  json status = Body(client->Delete((cms + "/c").c_str()));
  EXPECT_EQ(status["kind"], "Status");
  EXPECT_EQ(status["status"], "Success");
  EXPECT_EQ(status["details"]["name"], "c");
  EXPECT_EQ(status["details"]["kind"], "configmaps");
  EXPECT_FALSE(status["details"].value("uid", "").empty());
  ASSERT_EQ(Post(jobs, DGLJob("j"))->status, 201);
  json job_status = Body(client->Delete((jobs + "/j").c_str()));
  EXPECT_EQ(job_status["kind"], "Status");
  EXPECT_EQ(job_status["details"]["group"], "kubeflow.org");
  EXPECT_EQ(job_status["details"]["kind"], "dgljobs");
  ASSERT_EQ(Post("/api/v1/namespaces/default/pods", Pod("p"))->status, 201);
  EXPECT_EQ(Body(client->Delete("/api/v1/namespaces/default/pods/p"))["kind"], "Pod");
}

TEST_F(HttpApiTest, BuiltInListItemsCarryNoTypeMetaCustomResourceItemsDo) {
  // kube-apiserver 1.34: a typed list's items are Go structs without TypeMeta; a custom resource's
  // items are unstructured and keep apiVersion and kind.
  ASSERT_EQ(Post(cms, ConfigMap("typed"))->status, 201);
  json listed = Body(client->Get(cms.c_str()));
  ASSERT_FALSE(listed["items"].empty());
  EXPECT_EQ(listed["kind"], "ConfigMapList");
  EXPECT_FALSE(listed["items"][0].contains("kind")) << listed.dump();
  EXPECT_FALSE(listed["items"][0].contains("apiVersion")) << listed.dump();
  ASSERT_EQ(client->Post(jobs.c_str(), DGLJob("j").dump(), "application/json")->status, 201);
  json jobs_listed = Body(client->Get(jobs.c_str()));
  ASSERT_EQ(jobs_listed["items"].size(), 1u);
  EXPECT_EQ(jobs_listed["items"][0]["kind"], "DGLJob");
  EXPECT_EQ(jobs_listed["items"][0]["apiVersion"], "kubeflow.org/v1alpha1");
}

TEST_F(HttpApiTest, ACustomResourceIsCreatedWithoutTheStatusItsBodyCarries) {
  json job = DGLJob("with-status");
  job["status"] = {{"phase", "Running"}};
  auto r = client->Post(jobs.c_str(), job.dump(), "application/json");
  ASSERT_EQ(r->status, 201) << r->body;
  EXPECT_FALSE(Body(r).contains("status")) << r->body;
  EXPECT_FALSE(Body(client->Get((jobs + "/with-status").c_str())).contains("status"));
}

TEST_F(HttpApiTest, WritesWithoutAUserAgentOrFieldManagerAreAttributedToUnknown) {
  httplib::Headers no_agent = {{"User-Agent", ""}};
  auto r = client->Post(cms.c_str(), no_agent, ConfigMap("anon").dump(), "application/json");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 201) << r->body;
  EXPECT_EQ(Body(r)["metadata"]["managedFields"][0]["manager"], "unknown") << r->body;
}

TEST_F(HttpApiTest, DeleteCollectionDeletesWhatTheSelectorSelects) {
  for (const char* name : {"a", "b", "c"}) {
    json cm = ConfigMap(name);
    cm["metadata"]["labels"] = {{"group", std::string(name) == "c" ? "keep" : "drop"}};
    ASSERT_EQ(Post(cms, cm)->status, 201);
  }
  auto r = client->Delete((cms + "?labelSelector=group%3Ddrop").c_str());
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(Body(r)["kind"], "ConfigMapList");
  EXPECT_EQ(Body(r)["items"].size(), 2u);
  EXPECT_FALSE(Body(r)["items"][0].contains("kind")) << r->body;  // as a built-in list's items: no TypeMeta
  EXPECT_FALSE(store.Get("configmaps", "default", "a").ok());
  EXPECT_TRUE(store.Get("configmaps", "default", "c").ok());
}

TEST_F(HttpApiTest, LeasesClusterRolesAndBindingsAreServed) {
  json lease = {{"apiVersion", "coordination.k8s.io/v1"}, {"kind", "Lease"},
                {"metadata", {{"name", "dgl-operator"}, {"namespace", "default"}}},
                {"spec", {{"holderIdentity", "a"}, {"leaseDurationSeconds", 15}}}};
  auto created = Post("/apis/coordination.k8s.io/v1/namespaces/default/leases", lease);
  ASSERT_EQ(created->status, 201) << created->body;
  json role = {{"apiVersion", "rbac.authorization.k8s.io/v1"}, {"kind", "ClusterRole"}, {"metadata", {{"name", "r"}}},
               {"rules", json::array({{{"apiGroups", {""}}, {"resources", {"pods"}}, {"verbs", {"get"}}}})}};
  EXPECT_EQ(Post("/apis/rbac.authorization.k8s.io/v1/clusterroles", role)->status, 201);
  json binding = {{"apiVersion", "rbac.authorization.k8s.io/v1"}, {"kind", "ClusterRoleBinding"}, {"metadata", {{"name", "b"}}},
                  {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "ClusterRole"}, {"name", "r"}}}};
  EXPECT_EQ(Post("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", binding)->status, 201);
  json resources = Body(client->Get("/apis/coordination.k8s.io/v1"));
  EXPECT_EQ(resources["resources"][0]["name"], "leases");
}

TEST_F(HttpApiTest, PodsAreBoundAndEvictedOverHttp) {
  ASSERT_EQ(Post("/api/v1/namespaces/default/pods", Pod("p"))->status, 201);
  json binding = {{"apiVersion", "v1"}, {"kind", "Binding"}, {"metadata", {{"name", "p"}}},
                  {"target", {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", "n1"}}}};
  auto bound = Post("/api/v1/namespaces/default/pods/p/binding", binding);
  ASSERT_EQ(bound->status, 201) << bound->body;
  EXPECT_EQ(Body(bound)["status"], "Success");
  EXPECT_EQ((*store.Get("pods", "default", "p").value())["spec"]["nodeName"], "n1");
  ExpectStatus(Post("/api/v1/namespaces/default/pods/p/binding", binding), 409, "Conflict");
  json eviction = {{"apiVersion", "policy/v1"}, {"kind", "Eviction"}, {"metadata", {{"name", "p"}, {"namespace", "default"}}},
                   {"deleteOptions", {{"gracePeriodSeconds", 0}}}};
  auto evicted = Post("/api/v1/namespaces/default/pods/p/eviction", eviction);
  ASSERT_EQ(evicted->status, 201) << evicted->body;
  EXPECT_FALSE(store.Get("pods", "default", "p").ok());
  ExpectStatus(Post("/api/v1/namespaces/default/pods/p/eviction", eviction), 404, "NotFound");
}

TEST_F(HttpApiTest, AccessReviewsAllowEverything) {
  json review = {{"apiVersion", "authorization.k8s.io/v1"}, {"kind", "SelfSubjectAccessReview"},
                 {"spec", {{"resourceAttributes", {{"verb", "create"}, {"resource", "pods"}, {"namespace", "default"}}}}}};
  auto r = Post("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", review);
  ASSERT_EQ(r->status, 201) << r->body;
  EXPECT_EQ(Body(r)["status"]["allowed"], true);
  EXPECT_EQ(Body(r)["spec"]["resourceAttributes"]["verb"], "create");
  ExpectStatus(client->Get("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"), 405, "MethodNotAllowed");
}

// `kubectl auth whoami`: v1 from kubectl 1.28 on, v1beta1 for 1.27; nobody is authenticated.
TEST_F(HttpApiTest, SelfSubjectReviewSaysEveryRequestIsAnonymous) {
  auto group = client->Get("/apis/authentication.k8s.io");
  ASSERT_EQ(group->status, 200) << group->body;
  EXPECT_EQ(Body(group)["preferredVersion"]["version"], "v1");
  for (const std::string version : {"v1", "v1beta1"}) {
    json review = {{"apiVersion", "authentication.k8s.io/" + version}, {"kind", "SelfSubjectReview"}, {"metadata", json::object()}};
    auto r = Post("/apis/authentication.k8s.io/" + version + "/selfsubjectreviews", review);
    ASSERT_EQ(r->status, 201) << r->body;
    EXPECT_EQ(Body(r)["apiVersion"], "authentication.k8s.io/" + version);
    EXPECT_EQ(Body(r)["status"]["userInfo"]["username"], "system:anonymous");
    EXPECT_EQ(Body(r)["status"]["userInfo"]["groups"], json::array({"system:unauthenticated"}));
  }
  ExpectStatus(client->Get("/apis/authentication.k8s.io/v1/selfsubjectreviews"), 405, "MethodNotAllowed");
}

TEST_F(HttpApiTest, EventsK8sIoV1IsAViewOfTheCoreEvents) {
  json event = {{"apiVersion", "events.k8s.io/v1"}, {"kind", "Event"},
                {"metadata", {{"name", "e1"}, {"namespace", "default"}}},
                {"eventTime", "2026-01-01T00:00:00.000000Z"}, {"reportingController", "tester"},
                {"reportingInstance", "tester-1"}, {"action", "Testing"}, {"reason", "Tested"}, {"type", "Normal"},
                {"note", "it works"}, {"regarding", {{"kind", "Pod"}, {"name", "p"}, {"namespace", "default"}}}};
  auto created = Post("/apis/events.k8s.io/v1/namespaces/default/events", event);
  ASSERT_EQ(created->status, 201) << created->body;
  EXPECT_EQ(Body(created)["note"], "it works");
  auto core = store.Get("events", "default", "e1");
  ASSERT_TRUE(core.ok());
  EXPECT_EQ((**core)["message"], "it works");
  EXPECT_EQ((**core)["involvedObject"]["name"], "p");
  EXPECT_EQ((**core)["reportingComponent"], "tester");
  json listed = Body(client->Get("/apis/events.k8s.io/v1/namespaces/default/events?fieldSelector=regarding.name%3Dp"));
  ASSERT_EQ(listed["items"].size(), 1u) << listed.dump();
  EXPECT_EQ(listed["kind"], "EventList");
  EXPECT_EQ(listed["apiVersion"], "events.k8s.io/v1");
  EXPECT_EQ(listed["items"][0]["regarding"]["name"], "p");
}

TEST_F(HttpApiTest, TheAcceptHeaderPicksTheRepresentation) {
  ASSERT_EQ(Post("/api/v1/namespaces/default/pods", Pod("p"))->status, 201);
  auto partial = client->Get("/api/v1/pods", {{"Accept", "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"}});
  json body = Body(partial);
  EXPECT_EQ(body["kind"], "PartialObjectMetadataList");
  EXPECT_EQ(body["items"][0]["kind"], "PartialObjectMetadata");
  EXPECT_FALSE(body["items"][0].contains("spec"));
  auto one = client->Get("/api/v1/namespaces/default/pods/p", {{"Accept", "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"}});
  EXPECT_EQ(Body(one)["kind"], "PartialObjectMetadata");
  ExpectStatus(client->Get("/api/v1/pods", {{"Accept", "application/vnd.kubernetes.protobuf"}}), 406, "NotAcceptable");
  auto yaml = client->Get("/api/v1/pods", {{"Accept", "application/yaml"}});
  EXPECT_EQ(yaml->get_header_value("Content-Type"), "application/yaml; charset=utf-8");
  auto fallback = client->Get("/api/v1/pods", {{"Accept", "application/vnd.kubernetes.protobuf,application/json"}});
  EXPECT_EQ(Body(fallback)["kind"], "PodList");
}

TEST_F(HttpApiTest, ListsPageOverOneSnapshotAndAnExpiredTokenIs410WithTheNextToken) {
  for (const char* name : {"a", "b", "c"}) ASSERT_EQ(Post(cms, ConfigMap(name))->status, 201);
  json first = Body(client->Get((cms + "?limit=2").c_str()));
  ASSERT_EQ(first["items"].size(), 2u);
  const std::string token = first["metadata"]["continue"];
  EXPECT_EQ(first["metadata"]["remainingItemCount"], 1);
  ASSERT_EQ(Post(cms, ConfigMap("d"))->status, 201);
  json second = Body(client->Get((cms + "?limit=2&continue=" + token).c_str()));
  ASSERT_EQ(second["items"].size(), 1u);  // d came after the snapshot
  EXPECT_EQ(second["items"][0]["metadata"]["name"], "c");
  store.SetHistoryLimit(1);
  ASSERT_EQ(Post(cms, ConfigMap("e"))->status, 201);
  auto expired = client->Get((cms + "?limit=2&continue=" + token).c_str());
  ExpectStatus(expired, 410, "Expired");
  EXPECT_FALSE(Body(expired)["metadata"].value("continue", "").empty());
}

TEST_F(HttpApiTest, AnExactListAtAnOldVersionAndAFutureOneAsKubeApiserverAnswers) {
  HttpServerOptions options;
  options.resource_version_wait = 50 * kube::kMillisecond;
  Start(options);
  auto created = Post(cms, ConfigMap("a"));
  const std::string then = Body(created)["metadata"]["resourceVersion"];
  ASSERT_EQ(Post(cms, ConfigMap("b"))->status, 201);
  json past = Body(client->Get((cms + "?resourceVersion=" + then + "&resourceVersionMatch=Exact").c_str()));
  EXPECT_EQ(past["items"].size(), 1u);
  EXPECT_EQ(past["metadata"]["resourceVersion"], then);
  const std::string future = std::to_string(store.CurrentResourceVersion() + 100);
  auto later = client->Get((cms + "?resourceVersion=" + future).c_str());
  ExpectStatus(later, 504, "Timeout");
  EXPECT_EQ(Body(later)["details"]["causes"][0]["reason"], "ResourceVersionTooLarge");
  // kube-apiserver 1.34 refuses a list's unparsable version as a bad request.
  auto unparsable = client->Get((cms + "?resourceVersion=abc").c_str());
  ExpectStatus(unparsable, 400, "BadRequest");
  EXPECT_EQ(Body(unparsable)["message"],
            "invalid resource version: resourceVersion: Invalid value: \"abc\": strconv.ParseUint: parsing \"abc\": invalid syntax");
}

TEST_F(HttpApiTest, WatchesGetBookmarksAndWatchListEndsWithTheInitialEventsEndBookmark) {
  HttpServerOptions options;
  options.bookmark_interval = 20 * kube::kMillisecond;
  Start(options);
  ASSERT_EQ(Post(cms, ConfigMap("a"))->status, 201);
  Stream list_watch(server->port(),
                    cms + "?watch=true&allowWatchBookmarks=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan");
  ASSERT_TRUE(list_watch.WaitFor("k8s.io/initial-events-end"));
  auto events = list_watch.Events();
  ASSERT_GE(events.size(), 2u);
  EXPECT_EQ(events[0]["type"], "ADDED");
  EXPECT_EQ(events[1]["type"], "BOOKMARK");
  EXPECT_EQ(events[1]["object"]["metadata"]["annotations"]["k8s.io/initial-events-end"], "true");
  const std::string rv = std::to_string(store.CurrentResourceVersion());
  Stream plain(server->port(), cms + "?watch=true&allowWatchBookmarks=true&resourceVersion=" + rv);
  ASSERT_TRUE(plain.WaitFor("BOOKMARK"));  // periodic, with nothing else to say
  EXPECT_EQ(plain.Events()[0]["object"]["metadata"]["resourceVersion"], rv);
  server->Stop();
}

TEST_F(HttpApiTest, DeepDocumentsAndCopyBombsAreRefusedAndTheServerGoesOn) {
  std::string deep = R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep"},"data":{"k":)" +
                     std::string(100'000, '[') + std::string(100'000, ']') + "}}";
  ExpectStatus(client->Post(cms.c_str(), deep, "application/json"), 400, "BadRequest");
  ASSERT_EQ(Post(cms, ConfigMap("c", "default", {{"k", std::string(1000, 'x')}}))->status, 201);
  json bomb = json::array();
  for (int i = 0; i < 40; ++i) bomb.push_back({{"op", "copy"}, {"from", "/data"}, {"path", "/data/c" + std::to_string(i)}});
  ExpectStatus(Patch(cms + "/c", bomb, "application/json-patch+json"), 422, "Invalid");
  ExpectStatus(client->Patch((cms + "/c").c_str(), deep, kMerge), 400, "BadRequest");
  EXPECT_EQ(client->Get("/version")->status, 200);
}

TEST_F(HttpApiTest, AnObjectPastEtcdsLimitIsRefusedAsKubeApiserverPassesOnEtcdsAnswer) {
  // Each merge patch is well under the 3 MiB body limit; together they would make a 2 MB object,
  // which etcd (1.5 MiB) refuses. Before the bound, patches grew an object without end.
  const std::string mb(1'000'000, 'x');
  ASSERT_EQ(Post(jobs, DGLJob("big"))->status, 201);
  EXPECT_EQ(client->Patch((jobs + "/big").c_str(), json{{"spec", {{"a", mb}}}}.dump(), kMerge)->status, 200);
  // kube-apiserver's answer to etcd's refusal: 500, etcd's message, no reason (not an API status).
  ExpectStatus(client->Patch((jobs + "/big").c_str(), json{{"spec", {{"b", mb}}}}.dump(), kMerge), 500, "");
  EXPECT_EQ(Body(client->Patch((jobs + "/big").c_str(), json{{"spec", {{"b", mb}}}}.dump(), kMerge))["message"],
            "etcdserver: request is too large");
  json stored = Body(client->Get((jobs + "/big").c_str()));
  EXPECT_TRUE(stored["spec"].contains("a"));
  EXPECT_FALSE(stored["spec"].contains("b"));
  // A dry run never reaches etcd: kube-apiserver answers it as if the object fitted.
  EXPECT_EQ(client->Patch((jobs + "/big?dryRun=All").c_str(), json{{"spec", {{"b", mb}}}}.dump(), kMerge)->status, 200);
  // A PUT and a create of 2 MB (under the body limit) are refused the same way.
  stored["spec"]["b"] = mb;
  ExpectStatus(client->Put((jobs + "/big").c_str(), stored.dump(), "application/json"), 500, "");
  json fresh = DGLJob("fresh");
  fresh["spec"]["a"] = mb;
  fresh["spec"]["b"] = mb;
  ExpectStatus(Post(jobs, fresh), 500, "");
  // Copies within JSON patch's own 3 MiB copy bound, whose result passes 1.5 MiB.
  json copy = json::array({{{"op", "copy"}, {"from", "/spec/a"}, {"path", "/spec/c"}}});
  ExpectStatus(Patch(jobs + "/big", copy, "application/json-patch+json"), 500, "");
  EXPECT_EQ(client->Get("/version")->status, 200);
}

}  // namespace
}  // namespace fakeapi
