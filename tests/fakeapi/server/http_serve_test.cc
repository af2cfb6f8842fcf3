// HttpServer::Serve: the server's request handling in process, without a socket (what the fuzzer of
// tests/fuzz/fuzz_api_server drives), and the requests that fuzzer found answered with an exception
// (500 InternalError) instead of a Status of their own, each kept here once fixed.
#include "fakeapi/server/http_server.h"
#include "fakeapi/server/store.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <string>

namespace fakeapi {
namespace {

using json = kube::Json;

class HttpServeTest : public ::testing::Test {
 protected:
  HttpServeTest() {
    for (const char* ns : {"default", "other"})
      store.Create("namespaces", {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}});
    HttpServerOptions options;
    options.clock = &clock;
    options.on_internal_error = [this](const std::string& what) { thrown.push_back(what); };
    server = std::make_unique<HttpServer>(store, options);
  }

  // One request, as cpp-httplib hands it to a handler.
  httplib::Response Send(const std::string& method, const std::string& path, const std::string& body = "",
                         const std::string& content_type = "application/json") {
    httplib::Request req;
    req.method = method;
    req.path = path;
    req.target = path;
    req.body = body;
    if (!body.empty()) req.headers.emplace("Content-Type", content_type);
    httplib::Response res;
    server->Serve(req, res);
    return res;
  }

  kube::ManualClock clock;
  Store store{StoreOptions{.clock = &clock}};
  std::vector<std::string> thrown;
  std::unique_ptr<HttpServer> server;
};

TEST_F(HttpServeTest, ServesARequestInProcessWithoutStarting) {
  httplib::Response created = Send("POST", "/api/v1/namespaces/default/configmaps",
                                   R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"k":"v"}})");
  ASSERT_EQ(created.status, 201) << created.body;
  httplib::Response got = Send("GET", "/api/v1/namespaces/default/configmaps/a");
  ASSERT_EQ(got.status, 200);
  EXPECT_EQ(json::parse(got.body)["data"]["k"], "v");
  EXPECT_EQ(server->port(), 0);  // never bound
  EXPECT_TRUE(thrown.empty());
}

// Found by the fuzzer: a create whose body has no metadata, or metadata that is not a mapping,
// threw in the field manager ("cannot use erase() with null") and was answered 500.
TEST_F(HttpServeTest, CreateWithoutMetadataIsRefusedWithAStatusNotAnException) {
  for (const std::string body : {R"({"apiVersion":"v1","kind":"ConfigMap","data":{"k":"v"}})",
                                 R"({"apiVersion":"v1","kind":"ConfigMap","metadata":"cm","data":{"k":"v"}})",
                                 R"({"apiVersion":"v1"})"}) {
    httplib::Response res = Send("POST", "/api/v1/namespaces/default/configmaps", body);
    EXPECT_GE(res.status, 400) << body;
    EXPECT_LT(res.status, 500) << body << " -> " << res.body;
    EXPECT_EQ(json::parse(res.body)["kind"], "Status") << res.body;
  }
  EXPECT_TRUE(thrown.empty()) << thrown.front();
}

// Found by the fuzzer (corpus found-path-not-utf8): a namespace or name in the path that is not
// UTF-8 once percent-decoded reached the server-side apply, which threw writing it out. Such a
// path names nothing: 404 with a Status, for every verb.
TEST_F(HttpServeTest, APathSegmentThatIsNotUtf8NamesNothing) {
  for (const std::string path : {"/api/v1/namespaces/default\x95/configmaps/a", "/api/v1/namespaces/default/configmaps/a\xfe",
                                 "/api/v1/namespaces/\xff/configmaps"}) {
    for (const std::string method : {"GET", "PUT", "PATCH", "DELETE", "POST"}) {
      httplib::Response res = Send(method, path, method == "GET" || method == "DELETE" ? "" : R"({"kind":"ConfigMap"})",
                                   "application/merge-patch+json");
      EXPECT_EQ(res.status, 404) << method << " " << path << " -> " << res.body;
      EXPECT_EQ(json::parse(res.body)["kind"], "Status") << res.body;
    }
  }
  EXPECT_TRUE(thrown.empty()) << thrown.front();
}

// Found by the fuzzer: a YAML decoder that lets bytes through that are not UTF-8 made the object
// impossible to write as JSON, and the write threw. The server refuses such a body as a JSON
// parser refuses it.
TEST_F(HttpServeTest, AYamlBodyThatIsNotUtf8IsABadRequest) {
  HttpServerOptions options;
  options.clock = &clock;
  options.yaml = [](std::string_view) -> kube::Result<json> {
    return json{{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "bytes"}}}, {"data", {{"k", "\xff\xfe"}}}};
  };
  options.on_internal_error = [this](const std::string& what) { thrown.push_back(what); };
  HttpServer yaml_server(store, options);
  httplib::Request req;
  req.method = "POST";
  req.path = req.target = "/api/v1/namespaces/default/configmaps";
  req.headers.emplace("Content-Type", "application/yaml");
  req.body = "kind: ConfigMap\n";
  httplib::Response res;
  yaml_server.Serve(req, res);
  EXPECT_EQ(res.status, 400) << res.body;
  EXPECT_NE(res.body.find("not valid UTF-8"), std::string::npos) << res.body;
  EXPECT_TRUE(thrown.empty());
  EXPECT_FALSE(store.Get("configmaps", "default", "bytes").ok());
}

// Found auditing every read of client JSON that throws on a wrong type (json::value with a string
// default), after the fuzzer's first finds; each was a 500 from an exception. Each is now a 4xx
// Status, or a write that succeeds where kube-apiserver's would.
TEST_F(HttpServeTest, WrongTypesInRequestsAreStatusesNotExceptions) {
  ASSERT_TRUE(store.Create("pods", {{"apiVersion", "v1"}, {"kind", "Pod"},
                                    {"metadata", {{"name", "p"}, {"namespace", "default"}}},
                                    {"spec", {{"containers", json::array({{{"name", "main"}, {"image", "i"},
                                                                           {"ports", json::array({{{"name", nullptr}}})}}})}}}})
                  .ok());
  ASSERT_TRUE(store.Create("configmaps", {{"apiVersion", "v1"}, {"kind", "ConfigMap"},
                                          {"metadata", {{"name", "cm"}, {"namespace", "default"}}}}).ok());
  struct Case {
    std::string method, path, body, type;
    int low, high;  // the answer's status is in [low, high]
  };
  const std::string token = "eyJ2Ijo1LCJydiI6MSwic3RhcnQiOiJhIn0=";  // {"v":5,"rv":1,"start":"a"}
  const Case cases[] = {
      {"PUT", "/api/v1/namespaces/default/configmaps/cm", R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":5}})",
       "application/json", 400, 400},
      {"PUT", "/api/v1/namespaces/default/configmaps/cm",
       R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","namespace":[]}})", "application/json", 400, 400},
      {"POST", "/api/v1/namespaces/default/pods/p/binding",
       R"({"apiVersion":"v1","kind":"Binding","metadata":{"name":5},"target":{"name":"n"}})", "application/json", 200, 499},
      {"GET", "/api/v1/namespaces/default/configmaps?limit=1&continue=" + token, "", "", 400, 400},
      {"POST", "/api/v1/namespaces/default/pods",
       R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"q"},"spec":{"containers":[{"name":"a","image":5}]}})",
       "application/json", 422, 422},
      {"PATCH", "/api/v1/namespaces/default/pods/p", R"({"$patch": 1})", "application/strategic-merge-patch+json", 200, 200},
      {"PATCH", "/api/v1/namespaces/default/pods/p",
       R"({"spec":{"containers":[{"name":"main","ports":[{"name":null},{"name":"x","containerPort":1}]}]}})",
       "application/strategic-merge-patch+json", 200, 499},
      {"PATCH", "/api/v1/namespaces/default/configmaps/cm?fieldManager=m",
       R"({"apiVersion":1,"kind":"ConfigMap","metadata":{"name":"cm"}})", "application/apply-patch+yaml", 400, 400},
  };
  for (const Case& c : cases) {
    httplib::Request req;
    req.method = c.method;
    req.target = c.path;
    std::size_t query = c.path.find('?');
    req.path = c.path.substr(0, query);
    if (query != std::string::npos) httplib::detail::parse_query_text(c.path.substr(query + 1), req.params);
    req.body = c.body;
    if (!c.type.empty()) req.headers.emplace("Content-Type", c.type);
    httplib::Response res;
    server->Serve(req, res);
    EXPECT_GE(res.status, c.low) << c.method << " " << c.path << " " << c.body << " -> " << res.body;
    EXPECT_LE(res.status, c.high) << c.method << " " << c.path << " " << c.body << " -> " << res.body;
  }
  EXPECT_TRUE(thrown.empty()) << thrown.front();
}

TEST_F(HttpServeTest, AHandlerThatThrowsIsA500AndIsReported) {
  // No request is known to throw any more; a logs provider that throws stands in for a defect.
  HttpServerOptions options;
  options.clock = &clock;
  options.logs = [](const json&, const std::string&, bool) -> kube::Result<ContainerLog> {
    throw std::runtime_error("provider failed");
  };
  options.on_internal_error = [this](const std::string& what) { thrown.push_back(what); };
  HttpServer throwing(store, options);
  store.Create("pods", {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", {{"name", "p"}, {"namespace", "default"}}},
                        {"spec", {{"containers", json::array({{{"name", "main"}, {"image", "i"}}})}}}});
  httplib::Request req;
  req.method = "GET";
  req.path = req.target = "/api/v1/namespaces/default/pods/p/log";
  httplib::Response res;
  throwing.Serve(req, res);
  EXPECT_EQ(res.status, 500);
  EXPECT_EQ(json::parse(res.body)["reason"], "InternalError");
  ASSERT_EQ(thrown.size(), 1u);
  EXPECT_EQ(thrown[0], "provider failed");
}

}  // namespace
}  // namespace fakeapi
