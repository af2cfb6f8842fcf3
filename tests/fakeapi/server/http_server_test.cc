// The fake API over HTTP, driven with an HTTP client on a free loopback port: every route kubectl
// uses, every error as a Status, the body limit, malformed input, watch streaming, disconnects.
#include "tests/fakeapi/server/http_test_util.h"

namespace fakeapi {
namespace {

using namespace fakeapi::testing;

// ---- version, discovery, OpenAPI -------------------------------------------------------------

TEST_F(HttpServerTest, VersionSaysMinor32SoKubectlsDispatcherPicksItsDefaultClient) {
  auto r = client->Get("/version?timeout=5s");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->get_header_value("Content-Type").rfind("application/json", 0), 0u);
  json v = Body(r);
  EXPECT_EQ(v["major"], "1");
  EXPECT_EQ(v["minor"], "32");
  EXPECT_EQ(v["gitVersion"].get<std::string>().rfind("v1.32.", 0), 0u);
}

TEST_F(HttpServerTest, LegacyDiscoveryListsEveryGroupAndResourceWithVerbsAndShortNames) {
  json api = Body(client->Get("/api"));
  EXPECT_EQ(api["versions"], json::array({"v1"}));
  json apis = Body(client->Get("/apis"));
  EXPECT_EQ(apis["kind"], "APIGroupList");
  bool kubeflow = false;
  for (const json& g : apis["groups"])
    if (g["name"] == "kubeflow.org") {
      kubeflow = true;
      EXPECT_EQ(g["preferredVersion"]["groupVersion"], "kubeflow.org/v1alpha1");
    }
  EXPECT_TRUE(kubeflow) << apis.dump();

  json core = Body(client->Get("/api/v1"));
  EXPECT_EQ(core["kind"], "APIResourceList");
  EXPECT_EQ(core["groupVersion"], "v1");
  bool pods = false, nodes = false, log = false;
  for (const json& r : core["resources"]) {
    EXPECT_FALSE(r["verbs"].empty()) << r.dump();
    if (r["name"] == "pods") {
      pods = true;
      EXPECT_EQ(r["shortNames"], json::array({"po"}));
      EXPECT_TRUE(r["namespaced"].get<bool>());
    }
    if (r["name"] == "nodes") {
      nodes = true;
      EXPECT_FALSE(r["namespaced"].get<bool>());
    }
    if (r["name"] == "pods/log") log = true;
  }
  EXPECT_TRUE(pods && nodes && log) << core.dump();

  json dgl = Body(client->Get("/apis/kubeflow.org/v1alpha1"));
  ASSERT_EQ(dgl["groupVersion"], "kubeflow.org/v1alpha1");
  EXPECT_EQ(dgl["resources"][0]["name"], "dgljobs");
  EXPECT_EQ(dgl["resources"][0]["kind"], "DGLJob");
  EXPECT_EQ(Body(client->Get("/apis/kubeflow.org"))["kind"], "APIGroup");
}

TEST_F(HttpServerTest, OpenApiV3SaysTheServerValidatesFields) {
  json root = Body(client->Get("/openapi/v3"));
  ASSERT_TRUE(root["paths"].contains("apis/kubeflow.org/v1alpha1")) << root.dump();
  std::string url = root["paths"]["apis/kubeflow.org/v1alpha1"]["serverRelativeURL"];
  EXPECT_NE(url.find("?hash="), std::string::npos);
  auto r = client->Get(url.c_str());
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200);
  json doc = Body(r);
  const json& op = doc["paths"]["/apis/kubeflow.org/v1alpha1/namespaces/{namespace}/dgljobs/{name}"]["patch"];
  EXPECT_EQ(op["x-kubernetes-group-version-kind"]["kind"], "DGLJob");
  EXPECT_EQ(op["parameters"][0]["name"], "fieldValidation");
  EXPECT_TRUE(Body(client->Get("/openapi/v3/api/v1"))["paths"].contains("/api/v1/namespaces/{namespace}/pods/{name}"));
  ExpectStatus(client->Get("/openapi/v3/apis/nope.io/v1"), 404, "NotFound");
}

TEST_F(HttpServerTest, OpenApiPublishesASchemaGivenForAKindWithItsGroupVersionKind) {
  server->Stop();
  server = std::make_unique<HttpServer>(store, HttpServerOptions{.clock = &clock});
  server->SetOpenApiSchema("dgljobs", {{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}});
  ASSERT_TRUE(server->Start().ok());
  httplib::Client c("127.0.0.1", server->port());
  json doc = Body(c.Get("/openapi/v3/apis/kubeflow.org/v1alpha1"));
  const json& schema = doc["components"]["schemas"]["org.kubeflow.v1alpha1.DGLJob"];
  EXPECT_EQ(schema["x-kubernetes-group-version-kind"][0]["kind"], "DGLJob") << doc.dump();
}

// ---- reads -----------------------------------------------------------------------------------

TEST_F(HttpServerTest, CreateReturns201WithServerFieldsAndGetReturnsTheSameObject) {
  auto r = Post("/api/v1/namespaces/default/configmaps?fieldManager=kubectl-create&fieldValidation=Strict",
                ConfigMap("a", "default", {{"k", "v"}}));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 201) << r->body;
  json created = Body(r);
  EXPECT_FALSE(created["metadata"]["uid"].get<std::string>().empty());
  EXPECT_TRUE(created["metadata"]["resourceVersion"].is_string());
  EXPECT_EQ(created["metadata"]["creationTimestamp"], "2026-01-01T00:00:00Z");
  json got = Body(client->Get("/api/v1/namespaces/default/configmaps/a"));
  EXPECT_EQ(got, created);
}

TEST_F(HttpServerTest, ListIsAKindListWithResourceVersionAndAllNamespacesWithoutOne) {
  Post("/api/v1/namespaces/default/configmaps", ConfigMap("a"));
  Post("/api/v1/namespaces/other/configmaps", ConfigMap("b", "other"));
  json one = Body(client->Get("/api/v1/namespaces/default/configmaps?limit=500"));
  EXPECT_EQ(one["kind"], "ConfigMapList");
  EXPECT_EQ(one["apiVersion"], "v1");
  EXPECT_TRUE(one["metadata"]["resourceVersion"].is_string());
  ASSERT_EQ(one["items"].size(), 1u);
  EXPECT_FALSE(one["items"][0].contains("kind"));  // a built-in list's items carry no TypeMeta
  json all = Body(client->Get("/api/v1/configmaps"));
  EXPECT_EQ(all["items"].size(), 2u);
  json nodes = Body(client->Get("/api/v1/nodes"));
  EXPECT_EQ(nodes["kind"], "NodeList");
}

TEST_F(HttpServerTest, LabelAndFieldSelectorsFilterListsAndBadOnesAre400) {
  store.Create("pods", Pod("a", {{"app", "x"}}));
  store.Create("pods", Pod("b", {{"app", "y"}}));
  json by_label = Body(client->Get("/api/v1/namespaces/default/pods?labelSelector=app%3Dx"));
  ASSERT_EQ(by_label["items"].size(), 1u);
  EXPECT_EQ(by_label["items"][0]["metadata"]["name"], "a");
  json by_field = Body(client->Get("/api/v1/pods?fieldSelector=metadata.name%3Db"));
  ASSERT_EQ(by_field["items"].size(), 1u);
  EXPECT_EQ(by_field["items"][0]["metadata"]["name"], "b");
  ExpectStatus(client->Get("/api/v1/pods?labelSelector=app%20in%20(x"), 400, "BadRequest");
  ExpectStatus(client->Get("/api/v1/pods?fieldSelector=spec.nope%3D1"), 400, "BadRequest");
}

TEST_F(HttpServerTest, EventsFilterByInvolvedObjectAsDescribeAsks) {
  auto job = store.Create("dgljobs", DGLJob("j"));
  ASSERT_TRUE(job.ok()) << job.status().ToString();
  const std::string uid = kube::UidOf(**job);
  for (const auto& [name, obj_uid] : std::vector<std::pair<std::string, std::string>>{{"e1", uid}, {"e2", "other"}})
    store.Create("events", {{"metadata", {{"name", name}, {"namespace", "default"}}},
                            {"involvedObject", {{"kind", "DGLJob"}, {"name", "j"}, {"namespace", "default"}, {"uid", obj_uid}}},
                            {"reason", "Created"}, {"message", "hello"}, {"type", "Normal"}});
  json events = Body(client->Get(("/api/v1/namespaces/default/events?fieldSelector=involvedObject.namespace%3Ddefault%2C"
                                  "involvedObject.kind%3DDGLJob%2CinvolvedObject.uid%3D" + uid +
                                  "%2CinvolvedObject.name%3Dj&limit=500").c_str()));
  ASSERT_EQ(events["items"].size(), 1u) << events.dump();
  EXPECT_EQ(events["items"][0]["metadata"]["name"], "e1");
}

TEST_F(HttpServerTest, PodTableHasKubectlColumnsAgesAndPartialObjectMetadataRows) {
  json pod = Pod("web", {{"app", "x"}});
  pod["spec"]["nodeName"] = "node-1";
  store.Create("pods", pod);
  store.Patch("pods", "default", "web",
              {{"status", {{"phase", "Running"}, {"podIP", "10.0.0.5"},
                           {"containerStatuses", json::array({{{"name", "main"}, {"ready", true}, {"restartCount", 2},
                                                               {"state", {{"running", json::object()}}}}})}}}},
              kube::PatchType::kMerge, "status");
  clock.Advance(5 * 60 * kube::kSecond);
  auto r = GetTable("/api/v1/namespaces/default/pods?limit=500");
  ASSERT_TRUE(r);
  json table = Body(r);
  EXPECT_EQ(table["kind"], "Table");
  EXPECT_EQ(table["apiVersion"], "meta.k8s.io/v1");
  EXPECT_TRUE(table["metadata"]["resourceVersion"].is_string());
  std::vector<std::string> names;
  for (const json& c : table["columnDefinitions"]) names.push_back(c["name"]);
  EXPECT_EQ(names, (std::vector<std::string>{"Name", "Ready", "Status", "Restarts", "Age", "IP", "Node"}));
  EXPECT_EQ(table["columnDefinitions"][5]["priority"], 1);  // IP only with -o wide
  ASSERT_EQ(table["rows"].size(), 1u);
  EXPECT_EQ(table["rows"][0]["cells"], json::array({"web", "1/1", "Running", 2, "5m", "10.0.0.5", "node-1"}));
  const json& object = table["rows"][0]["object"];
  EXPECT_EQ(object["kind"], "PartialObjectMetadata");
  EXPECT_EQ(object["apiVersion"], "meta.k8s.io/v1");
  EXPECT_EQ(object["metadata"]["namespace"], "default");
  EXPECT_EQ(object["metadata"]["labels"]["app"], "x");
  // One object as a Table has one row; includeObject=Object carries the whole object.
  json single = Body(GetTable("/api/v1/namespaces/default/pods/web?includeObject=Object"));
  ASSERT_EQ(single["rows"].size(), 1u);
  EXPECT_EQ(single["rows"][0]["object"]["kind"], "Pod");
}

TEST_F(HttpServerTest, LeaseTableNamesTheHolder) {
  store.Create("leases", {{"apiVersion", "coordination.k8s.io/v1"}, {"kind", "Lease"},
                          {"metadata", {{"name", "dgl-operator"}, {"namespace", "default"}}},
                          {"spec", {{"holderIdentity", "replica-a"}, {"leaseDurationSeconds", 15}}}});
  json table = Body(GetTable("/apis/coordination.k8s.io/v1/namespaces/default/leases"));
  std::vector<std::string> names;
  for (const json& c : table["columnDefinitions"]) names.push_back(c["name"]);
  EXPECT_EQ(names, (std::vector<std::string>{"Name", "Holder", "Age"}));
  ASSERT_EQ(table["rows"].size(), 1u);
  EXPECT_EQ(table["rows"][0]["cells"][1], "replica-a");
}

TEST_F(HttpServerTest, PodStatusColumnShowsWaitingReasonsInitProgressAndTermination) {
  int ready = 0;
  (void)ready;
  json pod = Pod("p");
  pod["spec"]["initContainers"] = json::array({{{"name", "init"}, {"image", "x"}}});
  store.Create("pods", pod);
  store.Patch("pods", "default", "p",
              {{"status", {{"phase", "Pending"},
                           {"initContainerStatuses", json::array({{{"name", "init"}, {"state", {{"running", json::object()}}}}})}}}},
              kube::PatchType::kMerge, "status");
  EXPECT_EQ(Body(GetTable("/api/v1/namespaces/default/pods/p"))["rows"][0]["cells"][2], "Init:0/1");
  store.Patch("pods", "default", "p",
              {{"status", {{"initContainerStatuses", json::array({{{"name", "init"}, {"state", {{"terminated", {{"exitCode", 0}}}}}}})},
                           {"containerStatuses", json::array({{{"name", "main"}, {"state", {{"waiting", {{"reason", "ImagePullBackOff"}}}}}}})}}}},
              kube::PatchType::kMerge, "status");
  EXPECT_EQ(Body(GetTable("/api/v1/namespaces/default/pods/p"))["rows"][0]["cells"][2], "ImagePullBackOff");
}

TEST_F(HttpServerTest, ConvertersReplaceTheDefaultTable) {
  server->Stop();
  server = std::make_unique<HttpServer>(store, HttpServerOptions{.clock = &clock});
  TableConverter conv;
  conv.columns = {TableColumn{.name = "Name", .format = "name"}, TableColumn{.name = "Phase"}};
  conv.cells = [](const json& obj, kube::Micros) { return json::array({kube::NameOf(obj), "Training"}); };
  server->SetTableConverter("dgljobs", conv);
  ASSERT_TRUE(server->Start().ok());
  ASSERT_TRUE(store.Create("dgljobs", DGLJob("j")).ok());
  httplib::Client c("127.0.0.1", server->port());
  json table = Body(c.Get("/apis/kubeflow.org/v1alpha1/namespaces/default/dgljobs", {{"Accept", kTableAccept}}));
  EXPECT_EQ(table["rows"][0]["cells"], json::array({"j", "Training"})) << table.dump();
}

TEST(HumanAgeTest, PrintsAgesTheWayKubectlDoes) {
  EXPECT_EQ(HumanAge(0), "0s");
  EXPECT_EQ(HumanAge(-500 * kube::kMillisecond), "0s");
  EXPECT_EQ(HumanAge(-5 * kube::kSecond), "<invalid>");
  EXPECT_EQ(HumanAge(45 * kube::kSecond), "45s");
  EXPECT_EQ(HumanAge(119 * kube::kSecond), "119s");
  EXPECT_EQ(HumanAge(150 * kube::kSecond), "2m30s");
  EXPECT_EQ(HumanAge(5 * 60 * kube::kSecond), "5m");
  EXPECT_EQ(HumanAge(17 * 60 * kube::kSecond), "17m");
  EXPECT_EQ(HumanAge((5 * 60 + 12) * 60 * kube::kSecond), "5h12m");
  EXPECT_EQ(HumanAge(30LL * 3600 * kube::kSecond), "30h");
  EXPECT_EQ(HumanAge((3 * 24 + 4) * 3600LL * kube::kSecond), "3d4h");
  EXPECT_EQ(HumanAge(400LL * 86400 * kube::kSecond), "400d");
  EXPECT_EQ(HumanAge((3 * 365 + 10) * 86400LL * kube::kSecond), "3y10d");
}

// ---- errors ----------------------------------------------------------------------------------

TEST_F(HttpServerTest, MissingObjectIs404NamedAsKubectlPrintsIt) {
  auto r = client->Get("/apis/kubeflow.org/v1alpha1/namespaces/default/dgljobs/nope");
  ExpectStatus(r, 404, "NotFound");
  EXPECT_EQ(Body(r)["message"], "dgljobs.kubeflow.org \"nope\" not found");
  EXPECT_EQ(Body(r)["details"]["group"], "kubeflow.org");
  EXPECT_EQ(Body(client->Get("/api/v1/namespaces/default/pods/nope"))["message"], "pods \"nope\" not found");
}

TEST_F(HttpServerTest, UnknownPathsAndResourcesAre404Status) {
  for (const char* path : {"/nope", "/api/v1/widgets", "/api/v1/namespaces/default/pods/a/b/c/d", "/api/v1/nodes/n/exec",
                           "/api/v1/namespaces/default/nodes/n", "/api/v1/pods/a"}) {
    SCOPED_TRACE(path);
    ExpectStatus(client->Get(path), 404, "NotFound");
  }
  // A group or version nobody serves has no handler in kube-apiserver: Go's plain-text 404.
  for (const char* path : {"/api/v2", "/apis/nope.io/v1/things", "/apis/nope.io"}) {
    SCOPED_TRACE(path);
    auto r = client->Get(path);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 404);
    EXPECT_EQ(r->body, "404 page not found\n");
    EXPECT_NE(r->get_header_value("Content-Type").find("text/plain"), std::string::npos);
  }
  // An unknown resource of a served version is a Status with empty details.
  EXPECT_EQ(Body(client->Get("/api/v1/widgets"))["details"], json::object());
}

TEST_F(HttpServerTest, CreatingTwiceIs409AlreadyExists) {
  ASSERT_EQ(Post("/apis/kubeflow.org/v1alpha1/namespaces/default/dgljobs", DGLJob("j"))->status, 201);
  auto r = Post("/apis/kubeflow.org/v1alpha1/namespaces/default/dgljobs", DGLJob("j"));
  ExpectStatus(r, 409, "AlreadyExists");
  EXPECT_EQ(Body(r)["message"], "dgljobs.kubeflow.org \"j\" already exists");
}

TEST_F(HttpServerTest, UpdateWithAStaleResourceVersionIs409Conflict) {
  json created = Body(Post("/api/v1/namespaces/default/configmaps", ConfigMap("a")));
  json first = created;
  first["data"] = {{"k", "1"}};
  auto ok = client->Put("/api/v1/namespaces/default/configmaps/a", first.dump(), "application/json");
  ASSERT_EQ(ok->status, 200) << ok->body;
  json stale = created;
  stale["data"] = {{"k", "2"}};
  auto r = client->Put("/api/v1/namespaces/default/configmaps/a", stale.dump(), "application/json");
  ExpectStatus(r, 409, "Conflict");
  // The body and the URL must name the same object.
  ExpectStatus(client->Put("/api/v1/namespaces/default/configmaps/b", first.dump(), "application/json"), 400, "BadRequest");
}

TEST_F(HttpServerTest, AdmissionRejectionIs422InvalidWithCauses) {
  store.AddValidator("configmaps", [](const AdmissionRequest& req) -> std::vector<kube::StatusCause> {
    if (req.object->contains("data") && (*req.object)["data"].contains("bad"))
      return {{"FieldValueInvalid", "data.bad", "Invalid value: \"x\": must not be bad"}};
    return {};
  });
  auto r = Post("/api/v1/namespaces/default/configmaps", ConfigMap("a", "default", {{"bad", "x"}}));
  ExpectStatus(r, 422, "Invalid");
  json body = Body(r);
  EXPECT_EQ(body["details"]["kind"], "ConfigMap");
  EXPECT_EQ(body["details"]["name"], "a");
  EXPECT_EQ(body["details"]["causes"][0]["field"], "data.bad");
  EXPECT_EQ(body["details"]["causes"][0]["reason"], "FieldValueInvalid");
  // A name the API does not accept is Invalid too.
  ExpectStatus(Post("/api/v1/namespaces/default/configmaps", ConfigMap("Not_A_Name")), 422, "Invalid");
}

TEST_F(HttpServerTest, MalformedBodiesAre400AndUnknownMediaTypes415) {
  auto r = client->Post("/api/v1/namespaces/default/configmaps", "{\"metadata\": {", "application/json");
  ExpectStatus(r, 400, "BadRequest");
  ExpectStatus(client->Post("/api/v1/namespaces/default/configmaps", "[1,2]", "application/json"), 400, "BadRequest");
  ExpectStatus(client->Post("/api/v1/namespaces/default/configmaps", "", "application/json"), 400, "BadRequest");
  // YAML without a decoder is refused as malformed, not crashed on.
  ExpectStatus(client->Post("/api/v1/namespaces/default/configmaps", "metadata:\n  name: a\n", "application/yaml"), 400,
               "BadRequest");
  // Protobuf without its envelope is malformed (protobuf_body_test.cc has the rest); CBOR is unknown.
  ExpectStatus(client->Post("/api/v1/namespaces/default/configmaps", "x", "application/vnd.kubernetes.protobuf"), 400,
               "BadRequest");
  ExpectStatus(client->Post("/api/v1/namespaces/default/configmaps", "x", "application/cbor"), 415, "UnsupportedMediaType");
  ExpectStatus(client->Patch("/api/v1/namespaces/default/configmaps/a", "{}", "text/plain"), 415, "UnsupportedMediaType");
  ExpectStatus(client->Patch("/api/v1/namespaces/default/configmaps/a", "{", "application/merge-patch+json"), 400,
               "BadRequest");
  // Invalid UTF-8 in a name from the URL still gets a well-formed Status.
  auto bad = client->Get("/api/v1/namespaces/default/configmaps/%ff%fe");
  ExpectStatus(bad, 404, "NotFound");
}

TEST_F(HttpServerTest, YamlBodiesGoThroughTheDecoderWhenOneIsGiven) {
  HttpServerOptions options;
  options.yaml = [](std::string_view text) -> kube::Result<json> {
    if (text.find("name: from-yaml") == std::string_view::npos) return kube::Status::BadRequest("not the expected YAML");
    return json{{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "from-yaml"}}}};
  };
  Start(options);
  auto r = client->Post("/api/v1/namespaces/default/configmaps", "metadata:\n  name: from-yaml\n", "application/yaml");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 201) << r->body;
  ExpectStatus(client->Post("/api/v1/namespaces/default/configmaps", "- nope", "application/yaml"), 400, "BadRequest");
}

TEST_F(HttpServerTest, BodiesOverTheLimitAre413) {
  HttpServerOptions options;
  options.max_body_bytes = 1024;
  Start(options);
  json big = ConfigMap("big", "default", {{"k", std::string(4096, 'x')}});
  ExpectStatus(Post("/api/v1/namespaces/default/configmaps", big), 413, "RequestEntityTooLarge");
  EXPECT_FALSE(store.Get("configmaps", "default", "big").ok());
  // The server goes on serving.
  EXPECT_EQ(Post("/api/v1/namespaces/default/configmaps", ConfigMap("small"))->status, 201);
}

TEST_F(HttpServerTest, WrongMethodsAre405) {
  ExpectStatus(client->Put("/api/v1/namespaces/default/configmaps", "{}", "application/json"), 405, "MethodNotAllowed");
  ExpectStatus(client->Post("/api/v1/pods", Pod("x").dump(), "application/json"), 405, "MethodNotAllowed");
  ExpectStatus(client->Post("/version", "{}", "application/json"), 405, "MethodNotAllowed");
}

TEST_F(HttpServerTest, GarbageOnTheSocketGetsAnErrorAndTheServerGoesOn) {
  const std::vector<std::string> garbage = {
      "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03garbage-tls-hello\r\n\r\n",
      "GET\r\n\r\n",
      "GET /version HTTP/1.1\r\nContent-Length: -5\r\n\r\n",
      "POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
      std::string(70000, 'A') + "\r\n\r\n",
      "PATCH /api/v1/namespaces/default/configmaps/a HTTP/1.1\r\nHost: x\r\nContent-Type: application/json-patch+json\r\n"
      "Content-Length: 40\r\n\r\n[{\"op\":\"explode\",\"path\":\"/x\"}]          ",
  };
  for (const std::string& bytes : garbage) {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    ASSERT_GE(fd, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(server->port()));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    (void)!::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    ::shutdown(fd, SHUT_WR);
    char buf[512];
    timeval tv{5, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    (void)!::recv(fd, buf, sizeof buf, 0);
    ::close(fd);
  }
  auto r = client->Get("/version");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
}

TEST_F(HttpServerTest, ResponsesAreNeverCompressed) {
  Post("/api/v1/namespaces/default/configmaps", ConfigMap("a", "default", {{"k", std::string(2000, 'x')}}));
  httplib::Client raw("127.0.0.1", server->port());
  raw.set_decompress(false);
  auto r = raw.Get("/api/v1/configmaps", {{"Accept-Encoding", "gzip, br"}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->get_header_value("Content-Encoding"), "");
  EXPECT_EQ(Body(r)["kind"], "ConfigMapList");
}

// ---- writes ----------------------------------------------------------------------------------

TEST_F(HttpServerTest, MergePatchFollowsRfc7386AndKeepsLastAppliedAnnotations) {
  json cm = ConfigMap("a", "default", {{"a", "1"}, {"b", "2"}});
  cm["metadata"]["annotations"] = {{"kubectl.kubernetes.io/last-applied-configuration", "{}"}};
  Post("/api/v1/namespaces/default/configmaps", cm);
  auto r = Patch("/api/v1/namespaces/default/configmaps/a?fieldManager=kubectl-label",
                 {{"data", {{"b", nullptr}, {"c", "3"}}}, {"metadata", {{"labels", {{"x", "1"}}}}}},
                 "application/merge-patch+json");
  ASSERT_EQ(r->status, 200) << r->body;
  json got = Body(r);
  EXPECT_EQ(got["data"], json({{"a", "1"}, {"c", "3"}}));
  EXPECT_EQ(got["metadata"]["labels"]["x"], "1");
  EXPECT_EQ(got["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"], "{}");
  ExpectStatus(Patch("/api/v1/namespaces/default/configmaps/zz", {{"data", {}}}, "application/merge-patch+json"), 404,
               "NotFound");
}

TEST_F(HttpServerTest, StrategicMergePatchMergesContainersByNameAndHonoursDirectives) {
  json pod = Pod("p");
  pod["spec"]["containers"].push_back({{"name", "side"}, {"image", "side:1"}});
  pod["metadata"]["finalizers"] = {"a", "b"};
  store.Create("pods", pod);
  json patch = {{"spec", {{"$setElementOrder/containers", json::array({{{"name", "main"}}, {{"name", "side"}}})},
                          {"containers", json::array({{{"name", "side"}, {"image", "side:2"}}})}}},
                {"metadata", {{"$deleteFromPrimitiveList/finalizers", {"a"}}, {"labels", {{"l", "v"}}}}}};
  auto r = Patch("/api/v1/namespaces/default/pods/p", patch, "application/strategic-merge-patch+json");
  ASSERT_EQ(r->status, 200) << r->body;
  json got = Body(r);
  ASSERT_EQ(got["spec"]["containers"].size(), 2u);
  EXPECT_EQ(got["spec"]["containers"][0]["image"], "busybox:1.36");
  EXPECT_EQ(got["spec"]["containers"][1]["image"], "side:2");
  EXPECT_EQ(got["metadata"]["finalizers"], json::array({"b"}));
  EXPECT_EQ(got["metadata"]["labels"]["l"], "v");
  EXPECT_FALSE(got["spec"].contains("$setElementOrder/containers"));
  // Elements marked "$patch": "delete" go, matched by their merge key (a Service's port).
  store.Create("services", {{"metadata", {{"name", "s"}, {"namespace", "default"}}},
                            {"spec", {{"ports", json::array({{{"port", 80}, {"name", "http"}}, {{"port", 443}, {"name", "https"}}})}}}});
  json remove = {{"spec", {{"ports", json::array({{{"port", 443}, {"$patch", "delete"}}})}}}};
  auto removed = Patch("/api/v1/namespaces/default/services/s", remove, "application/strategic-merge-patch+json");
  ASSERT_EQ(removed->status, 200) << removed->body;
  json service = Body(removed);
  const json& ports = service["spec"]["ports"];
  ASSERT_EQ(ports.size(), 1u) << removed->body;
  EXPECT_EQ(ports[0]["port"], 80);
}

TEST_F(HttpServerTest, JsonPatchAppliesOperationsAndRejectsBadOnes) {
  Post("/api/v1/namespaces/default/configmaps", ConfigMap("a", "default", {{"a", "1"}}));
  json ops = json::array({{{"op", "add"}, {"path", "/data/b"}, {"value", "2"}}, {{"op", "remove"}, {"path", "/data/a"}}});
  auto r = Patch("/api/v1/namespaces/default/configmaps/a", ops, "application/json-patch+json");
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(Body(r)["data"], json({{"b", "2"}}));
  ExpectStatus(Patch("/api/v1/namespaces/default/configmaps/a", json::array({{{"op", "remove"}, {"path", "/nope/x"}}}),
                     "application/json-patch+json"),
               422, "Invalid");
  ExpectStatus(Patch("/api/v1/namespaces/default/configmaps/a", json::object(), "application/json-patch+json"), 400,
               "BadRequest");
}

TEST_F(HttpServerTest, ServerSideApplyCreatesThenMerges) {
  const std::string path = "/apis/kubeflow.org/v1alpha1/namespaces/default/dgljobs/j?fieldManager=kubectl&fieldValidation=Strict&force=false";
  json job = DGLJob("j");
  auto created = Patch(path, job, "application/apply-patch+yaml");
  ASSERT_TRUE(created);
  EXPECT_EQ(created->status, 201) << created->body;
  job["metadata"]["labels"] = {{"team", "graph"}};
  auto merged = Patch(path, job, "application/apply-patch+yaml");
  ASSERT_EQ(merged->status, 200) << merged->body;
  EXPECT_EQ(Body(merged)["metadata"]["labels"]["team"], "graph");
  EXPECT_EQ(Body(merged)["metadata"]["uid"], Body(created)["metadata"]["uid"]);
  // Applying something that does not say what it is cannot create it.
  ExpectStatus(Patch("/apis/kubeflow.org/v1alpha1/namespaces/default/dgljobs/k?fieldManager=kubectl", {{"spec", json::object()}},
                     "application/apply-patch+yaml"),
               400, "BadRequest");
}

TEST_F(HttpServerTest, StatusSubresourceUpdatesOnlyStatus) {
  Post("/apis/kubeflow.org/v1alpha1/namespaces/default/dgljobs", DGLJob("j"));
  auto r = Patch("/apis/kubeflow.org/v1alpha1/namespaces/default/dgljobs/j/status",
                 {{"status", {{"phase", "Training"}}}, {"spec", {{"partitionMode", "DGL-API"}}}}, "application/merge-patch+json");
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(Body(r)["status"]["phase"], "Training");
  EXPECT_EQ(Body(r)["spec"]["partitionMode"], "Skip");
  // And a patch of the object ignores status, as with a real status subresource.
  json after = Body(Patch("/apis/kubeflow.org/v1alpha1/namespaces/default/dgljobs/j", {{"status", {{"phase", "Failed"}}}},
                          "application/merge-patch+json"));
  EXPECT_EQ(after["status"]["phase"], "Training");
}

TEST_F(HttpServerTest, DeleteHonoursThePropagationPolicy) {
  auto owner_for = [&](const std::string& name) {
    json owner = Body(Post("/api/v1/namespaces/default/configmaps", ConfigMap(name)));
    json dep = ConfigMap(name + "-dep");
    dep["metadata"]["ownerReferences"] = json::array({{{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"name", name},
                                                       {"uid", owner["metadata"]["uid"]}, {"controller", true}}});
    EXPECT_EQ(Post("/api/v1/namespaces/default/configmaps", dep)->status, 201);
  };
  owner_for("orphaner");
  auto r = client->Delete("/api/v1/namespaces/default/configmaps/orphaner", "{\"propagationPolicy\":\"Orphan\"}",
                          "application/json");
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_TRUE(Eventually([&] { return !store.Get("configmaps", "default", "orphaner").ok(); }));
  EXPECT_TRUE(store.Get("configmaps", "default", "orphaner-dep").ok());

  owner_for("cascader");
  r = client->Delete("/api/v1/namespaces/default/configmaps/cascader", "{\"propagationPolicy\":\"Background\"}",
                     "application/json");
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_FALSE(store.Get("configmaps", "default", "cascader-dep").ok());

  ExpectStatus(client->Delete("/api/v1/namespaces/default/configmaps/orphaner-dep", "{\"propagationPolicy\":\"Sometimes\"}",
                              "application/json"),
               422, "Invalid");
  ExpectStatus(client->Delete("/api/v1/namespaces/default/configmaps/nope"), 404, "NotFound");
  EXPECT_EQ(client->Delete("/api/v1/namespaces/default/configmaps/orphaner-dep?propagationPolicy=Foreground")->status, 200);
}

// ---- logs ------------------------------------------------------------------------------------

TEST_F(HttpServerTest, PodLogsComeFromTheProviderWithTailAndContainerChecks) {
  store.Create("pods", Pod("web"));
  auto r = client->Get("/api/v1/namespaces/default/pods/web/log?container=main");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "line 1\nline 2\nline 3 of main\n");
  EXPECT_EQ(r->get_header_value("Content-Type").rfind("text/plain", 0), 0u);
  EXPECT_EQ(client->Get("/api/v1/namespaces/default/pods/web/log?tailLines=1")->body, "line 3 of main\n");
  ExpectStatus(client->Get("/api/v1/namespaces/default/pods/web/log?container=nope"), 400, "BadRequest");
  ExpectStatus(client->Get("/api/v1/namespaces/default/pods/web/log?tailLines=x"), 400, "BadRequest");
  ExpectStatus(client->Get("/api/v1/namespaces/default/pods/nope/log"), 404, "NotFound");
  store.Create("pods", Pod("pending"));
  ExpectStatus(client->Get("/api/v1/namespaces/default/pods/pending/log"), 400, "BadRequest");
}

TEST_F(HttpServerTest, FollowedLogsStreamNewLinesUntilTheContainerFinishes) {
  std::mutex mu;
  std::vector<std::string> lines = {"first"};
  bool finished = false;
  HttpServerOptions options;
  options.log_poll = 10 * kube::kMillisecond;
  options.logs = [&](const json&, const std::string&, bool) -> kube::Result<ContainerLog> {
    std::lock_guard<std::mutex> lock(mu);
    return ContainerLog{lines, finished};
  };
  Start(options);
  store.Create("pods", Pod("web"));
  Stream follow(server->port(), "/api/v1/namespaces/default/pods/web/log?follow=true");
  ASSERT_TRUE(follow.WaitFor("first\n"));
  {
    std::lock_guard<std::mutex> lock(mu);
    lines.push_back("second");
  }
  ASSERT_TRUE(follow.WaitFor("second\n"));
  {
    std::lock_guard<std::mutex> lock(mu);
    finished = true;
  }
  EXPECT_TRUE(follow.WaitFinished());
  EXPECT_EQ(follow.body(), "first\nsecond\n");
}

// ---- watch -----------------------------------------------------------------------------------

TEST_F(HttpServerTest, WatchStreamsOnlyEventsAfterTheResourceVersion) {
  Post("/api/v1/namespaces/default/configmaps", ConfigMap("before"));
  std::string rv = Body(client->Get("/api/v1/namespaces/default/configmaps"))["metadata"]["resourceVersion"];
  Stream watch(server->port(), "/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=" + rv);
  Post("/api/v1/namespaces/default/configmaps", ConfigMap("after"));
  ASSERT_TRUE(watch.WaitFor("\"after\""));
  Patch("/api/v1/namespaces/default/configmaps/after", {{"data", {{"k", "v"}}}}, "application/merge-patch+json");
  client->Delete("/api/v1/namespaces/default/configmaps/after");
  ASSERT_TRUE(watch.WaitFor("DELETED"));
  auto events = watch.Events();
  ASSERT_EQ(events.size(), 3u) << watch.body();
  EXPECT_EQ(events[0]["type"], "ADDED");
  EXPECT_EQ(events[0]["object"]["metadata"]["name"], "after");
  EXPECT_EQ(events[1]["type"], "MODIFIED");
  EXPECT_EQ(events[2]["type"], "DELETED");
  EXPECT_EQ(watch.body().find("\"before\""), std::string::npos);
}

TEST_F(HttpServerTest, SingleObjectWatchFromZeroStartsWithTheCurrentState) {
  Post("/apis/kubeflow.org/v1alpha1/namespaces/default/dgljobs", DGLJob("j"));
  Post("/apis/kubeflow.org/v1alpha1/namespaces/default/dgljobs", DGLJob("k"));
  Stream watch(server->port(), "/apis/kubeflow.org/v1alpha1/namespaces/default/dgljobs?fieldSelector=metadata.name%3Dj&resourceVersion=0&watch=true",
               {{"Accept", kTableAccept}});
  ASSERT_TRUE(watch.WaitFor("\n"));
  auto events = watch.Events();
  ASSERT_EQ(events.size(), 1u) << watch.body();
  EXPECT_EQ(events[0]["type"], "ADDED");
  EXPECT_EQ(events[0]["object"]["kind"], "Table");
  EXPECT_EQ(events[0]["object"]["rows"][0]["cells"][0], "j");
  EXPECT_EQ(events[0]["object"]["rows"][0]["object"]["kind"], "PartialObjectMetadata");
}

TEST_F(HttpServerTest, AWatchFromAnExpiredResourceVersionIsAnErrorEventIn200AsKubeApiserverSendsIt) {
  server->Stop();
  Store small(StoreOptions{.clock = &clock, .history_limit = 2});
  small.Create("namespaces", {{"metadata", {{"name", "default"}}}});
  for (int i = 0; i < 6; ++i) small.Create("configmaps", ConfigMap("c" + std::to_string(i)));
  HttpServer s(small, HttpServerOptions{.clock = &clock});
  ASSERT_TRUE(s.Start().ok());
  httplib::Client c("127.0.0.1", s.port());
  auto r = c.Get("/api/v1/configmaps?watch=1&resourceVersion=1");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  json event = json::parse(r->body.substr(0, r->body.find('\n')), nullptr, false);
  EXPECT_EQ(event["type"], "ERROR") << r->body;
  EXPECT_EQ(event["object"]["kind"], "Status");
  EXPECT_EQ(event["object"]["code"], 410);
  EXPECT_EQ(event["object"]["reason"], "Expired");
  // Not a number: kube-apiserver's parser error, as a 500 (kubernetes/kubernetes#101350).
  auto bad = c.Get("/api/v1/configmaps?watch=1&resourceVersion=abc");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 500);
  EXPECT_NE(Body(bad).value("message", "").find("strconv.ParseUint: parsing \"abc\": invalid syntax"), std::string::npos);
}

TEST_F(HttpServerTest, AQuietWatchGetsBlankKeepAlivesAndTimeoutSecondsEndsIt) {
  HttpServerOptions options;
  options.watch_keepalive = 20 * kube::kMillisecond;
  Start(options);
  Stream watch(server->port(), "/api/v1/configmaps?watch=true&resourceVersion=1&timeoutSeconds=1");
  EXPECT_TRUE(watch.WaitFor("\n"));
  EXPECT_TRUE(watch.WaitFinished(3000ms));
  EXPECT_TRUE(watch.Events().empty()) << watch.body();
}

TEST_F(HttpServerTest, AClientThatGoesAwayMidWatchReleasesItsStream) {
  HttpServerOptions options;
  options.watch_keepalive = 20 * kube::kMillisecond;
  Start(options);
  {
    Stream watch(server->port(), "/api/v1/configmaps?watch=true");
    Post("/api/v1/namespaces/default/configmaps", ConfigMap("x"));
    ASSERT_TRUE(watch.WaitFor("ADDED"));
    EXPECT_EQ(store.Stats().watchers, 1);
    watch.Stop();  // the receiver cancels on the next chunk: the client closes the connection
  }
  EXPECT_TRUE(Eventually([&] { return store.Stats().watchers == 0; })) << store.Stats().watchers;
  // A raw client that just closes its socket costs nothing either.
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(server->port()));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  const std::string req = "GET /api/v1/pods?watch=true HTTP/1.1\r\nHost: x\r\n\r\n";
  ASSERT_EQ(::send(fd, req.data(), req.size(), MSG_NOSIGNAL), static_cast<ssize_t>(req.size()));
  EXPECT_TRUE(Eventually([&] { return store.Stats().watchers == 1; }));
  ::close(fd);
  EXPECT_TRUE(Eventually([&] { return store.Stats().watchers == 0; })) << store.Stats().watchers;
  EXPECT_EQ(client->Get("/version")->status, 200);
}

TEST_F(HttpServerTest, ManyOpenWatchesDoNotStarveOtherRequests) {
  std::vector<std::unique_ptr<Stream>> watches;
  for (int i = 0; i < 20; ++i) watches.push_back(std::make_unique<Stream>(server->port(), "/api/v1/pods?watch=true"));
  EXPECT_TRUE(Eventually([&] { return store.Stats().watchers == 20; })) << store.Stats().watchers;
  auto r = client->Get("/api/v1/pods");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  server->Stop();  // ends the streams at once rather than at each one's next keep-alive
}

TEST_F(HttpServerTest, StopEndsOpenWatchesAndReturns) {
  Stream watch(server->port(), "/api/v1/configmaps?watch=true");
  ASSERT_TRUE(Eventually([&] { return store.Stats().watchers == 1; }));
  server->Stop();
  EXPECT_TRUE(watch.WaitFinished());
  EXPECT_EQ(store.Stats().watchers, 0);
}

TEST_F(HttpServerTest, EveryRequestRunsInsideTheExecutor) {
  std::atomic<int> runs{0};
  std::mutex mu;
  HttpServerOptions options;
  options.executor = [&](const std::function<void()>& work) {
    std::lock_guard<std::mutex> lock(mu);
    ++runs;
    work();
  };
  Start(options);
  Post("/api/v1/namespaces/default/configmaps", ConfigMap("a"));
  client->Get("/api/v1/configmaps");
  client->Get("/api/v1/namespaces/default/configmaps/a");
  EXPECT_EQ(runs.load(), 3);
}

TEST_F(HttpServerTest, PortZeroPicksAFreePortAndATakenPortIsAnError) {
  EXPECT_GT(server->port(), 0);
  HttpServer second(store, HttpServerOptions{.port = server->port(), .clock = &clock});
  EXPECT_FALSE(second.Start().ok());
  EXPECT_EQ(server->url(), "http://127.0.0.1:" + std::to_string(server->port()));
}

}  // namespace
}  // namespace fakeapi
