// The HttpClient against the project's own HttpServer (the real one, not a stand-in): the field manager on every
// write, pages of a list, and an expired watch as kube-apiserver answers it (a 200 stream whose
// ERROR event ends it with 410).
#include "fakeapi/client/http_client.h"
#include "fakeapi/server/http_server.h"
#include "fakeapi/server/store.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace kube {
namespace {

using json = kube::Json;

json ServerConfigMap(const std::string& name) {
  return {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"data", {{"k", "v"}}}};
}

class HttpClientServerTest : public ::testing::Test {
 protected:
  void Start(fakeapi::StoreOptions options) {
    options.clock = &clock;
    store = std::make_unique<fakeapi::Store>(options);
    server = std::make_unique<fakeapi::HttpServer>(*store, fakeapi::HttpServerOptions{.clock = &clock});
    ASSERT_TRUE(server->Start().ok());
    auto connected = HttpClient::Connect({.server = server->url(), .field_manager = "dgl-operator"});
    ASSERT_TRUE(connected.ok());
    client = std::move(connected).value();
  }
  void SetUp() override { Start({}); }

  ManualClock clock;
  std::unique_ptr<fakeapi::Store> store;
  std::unique_ptr<fakeapi::HttpServer> server;
  std::unique_ptr<HttpClient> client;
};

TEST_F(HttpClientServerTest, EveryWriteNamesTheClientsFieldManager) {
  ASSERT_TRUE(client->Create("configmaps", ServerConfigMap("c")).ok());
  ASSERT_TRUE(client->Patch("configmaps", "default", "c", {{"data", {{"k", "w"}}}}).ok());
  auto stored = store->Get("configmaps", "default", "c");
  ASSERT_TRUE(stored.ok());
  const json& managed = (**stored)["metadata"]["managedFields"];
  ASSERT_EQ(managed.size(), 1u) << managed.dump();
  EXPECT_EQ(managed[0]["manager"], "dgl-operator");
  EXPECT_EQ(managed[0]["operation"], "Update");
}

TEST_F(HttpClientServerTest, AListComesInPagesThatEndWithoutAToken) {
  for (const char* name : {"a", "b", "c"}) ASSERT_TRUE(client->Create("configmaps", ServerConfigMap(name)).ok());
  std::vector<std::string> names;
  ListOptions options{.namespace_ = "default", .limit = 2};
  int pages = 0;
  while (true) {
    auto page = client->List("configmaps", options);
    ASSERT_TRUE(page.ok()) << page.status().ToString();
    ++pages;
    for (const auto& obj : page->items) names.push_back(NameOf(*obj));
    if (page->continue_.empty()) break;
    options.continue_ = page->continue_;
  }
  EXPECT_EQ(pages, 2);
  EXPECT_EQ(names, (std::vector<std::string>{"a", "b", "c"}));
}

TEST_F(HttpClientServerTest, AWatchFromACompactedVersionEndsWithTheServersExpiredEvent) {
  Start(fakeapi::StoreOptions{.history_limit = 2});
  ASSERT_TRUE(client->Create("configmaps", ServerConfigMap("first")).ok());
  const std::string old = ResourceVersionOf(**store->Get("configmaps", "default", "first"));
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(client->Create("configmaps", ServerConfigMap("c" + std::to_string(i))).ok());
  auto watch = client->Watch("configmaps", {.resource_version = old});
  ASSERT_TRUE(watch.ok()) << watch.status().ToString();
  std::vector<WatchEvent> events;
  while ((*watch)->Poll(&events)) (*watch)->Wait(100 * kMillisecond);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].type, WatchEventType::kError);
  EXPECT_TRUE((*watch)->status().IsExpired()) << (*watch)->status().ToString();  // an Informer relists on this
}

}  // namespace
}  // namespace kube
