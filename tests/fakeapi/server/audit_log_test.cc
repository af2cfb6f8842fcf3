// The audit log: kube-apiserver's audit.k8s.io/v1 Event lines, from an AuditingClient (what the
// simulation's actors call) and from the HTTP server (what kubectl asks).
#include "fakeapi/server/audit_log.h"

#include "fakeapi/server/http_server.h"
#include "fakeapi/server/store.h"

#include <gtest/gtest.h>
#include <httplib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace fakeapi {
namespace {

using json = kube::Json;

std::vector<json> AuditLines(const std::string& path) {
  std::vector<json> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) out.push_back(json::parse(line));
  return out;
}

std::string AuditPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("dglsim-audit-" + std::to_string(::getpid()) + "-" + name)).string();
}

TEST(AuditLogTest, AuditingClientLogsEachCallWithItsIdentityAndCode) {
  kube::ManualClock clock;
  Store store(StoreOptions{.clock = &clock});
  store.Create("namespaces", {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "default"}}}});
  AuditLog log(&clock);
  const std::string path = AuditPath("client.log");
  ASSERT_TRUE(log.Open(path).ok());
  AuditingClient client(store, store.registry(), log, IdentityOfActor("kubelet/gpu-0"));
  clock.Advance(5 * kube::kSecond);
  ASSERT_TRUE(client.Create("configmaps", {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "c"}}}}, "default").ok());
  EXPECT_FALSE(client.Get("pods", "default", "missing").ok());
  log.Flush();
  const std::vector<json> lines = AuditLines(path);
  ASSERT_EQ(lines.size(), 2u);
  const json& create = lines[0];
  EXPECT_EQ(create["apiVersion"], "audit.k8s.io/v1");
  EXPECT_EQ(create["kind"], "Event");
  EXPECT_EQ(create["level"], "Metadata");
  EXPECT_EQ(create["stage"], "ResponseComplete");
  EXPECT_EQ(create["verb"], "create");
  EXPECT_EQ(create["user"]["username"], "system:node:gpu-0");
  EXPECT_EQ(create["objectRef"]["resource"], "configmaps");
  EXPECT_EQ(create["objectRef"]["namespace"], "default");
  EXPECT_EQ(create["objectRef"]["name"], "c");
  EXPECT_EQ(create["responseStatus"]["code"], 201);
  EXPECT_EQ(create["requestURI"], "/api/v1/namespaces/default/configmaps/c");
  EXPECT_EQ(create["requestReceivedTimestamp"], kube::FormatMicroTime(clock.Now()));
  EXPECT_EQ(lines[1]["verb"], "get");
  EXPECT_EQ(lines[1]["responseStatus"]["code"], 404);
  EXPECT_NE(create["auditID"], lines[1]["auditID"]);
}

TEST(AuditLogTest, HttpServerLogsResourceRequestsAsItsUser) {
  kube::ManualClock clock;
  Store store(StoreOptions{.clock = &clock});
  store.Create("namespaces", {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "default"}}}});
  AuditLog log(&clock);
  const std::string path = AuditPath("http.log");
  ASSERT_TRUE(log.Open(path).ok());
  HttpServerOptions options;
  options.clock = &clock;
  options.audit = &log;
  HttpServer server(store, options);
  auto send = [&](const std::string& method, const std::string& target, const std::string& user = "") {
    httplib::Request req;
    req.method = method;
    req.target = target;
    req.path = target.substr(0, target.find('?'));
    if (target.find("watch=true") != std::string::npos) req.params.emplace("watch", "true");
    if (!user.empty()) req.headers.emplace("Impersonate-User", user);
    httplib::Response res;
    server.Serve(req, res);
    return res.status;
  };
  EXPECT_EQ(send("GET", "/version"), 200);  // not a resource: not logged
  EXPECT_EQ(send("GET", "/api/v1/namespaces/default/pods"), 200);
  EXPECT_EQ(send("DELETE", "/apis/kubeflow.org/v1alpha1/namespaces/default/dgljobs/j", "alice"), 404);
  log.Flush();
  const std::vector<json> lines = AuditLines(path);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0]["verb"], "list");
  EXPECT_EQ(lines[0]["user"]["username"], "system:admin");
  EXPECT_EQ(lines[0]["objectRef"]["resource"], "pods");
  EXPECT_EQ(lines[1]["verb"], "delete");
  EXPECT_EQ(lines[1]["user"]["username"], "alice");
  EXPECT_EQ(lines[1]["objectRef"]["apiGroup"], "kubeflow.org");
  EXPECT_EQ(lines[1]["objectRef"]["name"], "j");
  EXPECT_EQ(lines[1]["responseStatus"]["code"], 404);
}

}  // namespace
}  // namespace fakeapi
