// HttpClient against small HTTP servers written here: one serves a fakeapi::Store the way
// kube-apiserver lays out its REST paths (so every verb, error and watch can be compared with what
// the store itself returns), others answer with scripted responses (text errors, garbage, broken
// connections, concatenated watch events, in-stream ERRORs). An Informer runs over the client to
// prove list + watch + re-watch + relist-on-410 work unchanged across HTTP.
#include "fakeapi/client/http_client.h"

#include "fakeapi/client/informer.h"
#include "fakeapi/client/json.h"
#include "fakeapi/server/store.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace kube {

using fakeapi::AdmissionRequest;
using fakeapi::Store;
using fakeapi::StoreOptions;
namespace {

using json = kube::Json;

// Polls `done` until it holds or `timeout_ms` of wall time pass (for threads of other components).
template <class F>
bool Eventually(F done, int timeout_ms = 5000) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

// An httplib::Server on an ephemeral loopback port, listening on a thread of its own, with a log of
// the requests it got ("METHOD target").
class TestServer {
 public:
  TestServer() = default;
  ~TestServer() { Stop(); }

  httplib::Server& http() { return server_; }

  void Start() {
    // Logged before routing, so the entry exists by the time the client has its answer.
    server_.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response&) {
      std::lock_guard<std::mutex> lock(mu_);
      log_.push_back(req.method + " " + req.target);
      return httplib::Server::HandlerResponse::Unhandled;
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    ASSERT_GT(port_, 0);
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    ASSERT_TRUE(Eventually([this] { return server_.is_running(); }));
  }
  void Stop() {
    if (thread_.joinable()) {
      server_.stop();
      thread_.join();
    }
  }
  std::string Url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::vector<std::string> Log() const {
    std::lock_guard<std::mutex> lock(mu_);
    return log_;
  }
  bool Logged(const std::string& line) const {
    for (const std::string& l : Log()) {
      if (l == line) return true;
    }
    return false;
  }

 private:
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  mutable std::mutex mu_;
  std::vector<std::string> log_;
};

std::vector<std::string> Split(const std::string& path) {
  std::vector<std::string> out;
  std::string part;
  for (char c : path.substr(1)) {
    if (c == '/') {
      out.push_back(part);
      part.clear();
    } else {
      part.push_back(c);
    }
  }
  out.push_back(part);
  return out;
}

void SendStatus(httplib::Response& res, const Status& status) {
  res.status = status.code();
  res.set_content(status.ToJson().dump(), "application/json");
}

// Routes kube-apiserver's REST paths to a Store. List items go out without kind/apiVersion, as
// kube-apiserver sends them; watches stream one JSON event per line.
void ServeStore(httplib::Server& server, Store& store_ref, const std::atomic<bool>& stopping_ref) {
  Store* const store_ptr = &store_ref;
  const std::atomic<bool>* const stopping = &stopping_ref;
  struct Target {
    std::string resource, ns, name, subresource;
  };
  auto parse = [store_ptr](const httplib::Request& req, Target* t) {
    Store& store = *store_ptr;
    std::vector<std::string> s = Split(req.path);
    std::size_t i = 0;
    std::string group;
    if (s.size() >= 2 && s[0] == "api") {
      i = 2;
    } else if (s.size() >= 3 && s[0] == "apis") {
      group = s[1];
      i = 3;
    } else {
      return false;
    }
    if (i + 2 < s.size() && s[i] == "namespaces") {
      t->ns = s[i + 1];
      i += 2;
    }
    if (i >= s.size()) return false;
    t->resource = group.empty() ? s[i] : s[i] + "." + group;
    if (i + 1 < s.size()) t->name = s[i + 1];
    if (i + 2 < s.size()) t->subresource = s[i + 2];
    return store.registry().Find(t->resource) != nullptr;
  };
  auto send_object = [](httplib::Response& res, const Result<ObjectPtr>& r, int code = 200) {
    if (!r.ok()) return SendStatus(res, r.status());
    res.status = code;
    res.set_content((*r)->dump(), "application/json");
  };

  server.Get(".*", [store_ptr, stopping, parse, send_object](const httplib::Request& req, httplib::Response& res) {
    Store& store = *store_ptr;
    Target t;
    if (!parse(req, &t)) return SendStatus(res, Status::NotFound("resource", req.path));
    if (!t.name.empty()) return send_object(res, store.Get(t.resource, t.ns, t.name));
    if (req.get_param_value("watch") == "true") {
      WatchOptions options{.namespace_ = t.ns,
                           .label_selector = req.get_param_value("labelSelector"),
                           .field_selector = req.get_param_value("fieldSelector"),
                           .resource_version = req.get_param_value("resourceVersion")};
      Result<WatchPtr> watch = store.Watch(t.resource, options);
      if (!watch.ok()) return SendStatus(res, watch.status());
      WatchPtr stream = *watch;
      res.set_chunked_content_provider("application/json", [stream, stopping](std::size_t, httplib::DataSink& sink) {
        std::vector<WatchEvent> events;
        stream->Wait(20 * kMillisecond);
        const bool open = stream->Poll(&events);
        for (const WatchEvent& e : events) {
          std::string line = json{{"type", WatchEventTypeName(e.type)}, {"object", *e.object}}.dump() + "\n";
          if (!sink.write(line.data(), line.size())) return false;
        }
        if (!open || *stopping) {
          // The stream ends as a dropped connection does.
          sink.done();
        }
        return true;
      }, [stream](bool) { stream->Stop(); });
      return;
    }
    Result<ListResult> list = store.List(t.resource, {.namespace_ = t.ns,
                                                      .label_selector = req.get_param_value("labelSelector"),
                                                      .field_selector = req.get_param_value("fieldSelector")});
    if (!list.ok()) return SendStatus(res, list.status());
    const ResourceType* type = store.registry().Find(t.resource);
    json items = json::array();
    for (const ObjectPtr& o : list->items) {
      json item = *o;
      item.erase("kind");
      item.erase("apiVersion");
      items.push_back(std::move(item));
    }
    json body = {{"kind", type->kind + "List"},
                 {"apiVersion", type->ApiVersion()},
                 {"metadata", {{"resourceVersion", list->resource_version}}},
                 {"items", items}};
    res.set_content(body.dump(), "application/json");
  });
  server.Post(".*", [store_ptr, parse, send_object](const httplib::Request& req, httplib::Response& res) {
    Store& store = *store_ptr;
    Target t;
    if (!parse(req, &t)) return SendStatus(res, Status::NotFound("resource", req.path));
    json body = json::parse(req.body, nullptr, false);
    if (t.subresource == "binding") return send_object(res, store.Create("pods/binding", body, t.ns), 201);
    send_object(res, store.Create(t.resource, body, t.ns), 201);
  });
  server.Put(".*", [store_ptr, parse, send_object](const httplib::Request& req, httplib::Response& res) {
    Store& store = *store_ptr;
    Target t;
    if (!parse(req, &t)) return SendStatus(res, Status::NotFound("resource", req.path));
    json body = json::parse(req.body, nullptr, false);
    if (NameOf(body) != t.name || NamespaceOf(body) != t.ns) {
      return SendStatus(res, Status::BadRequest("the name or namespace of the object does not match the URL"));
    }
    send_object(res, t.subresource == "status" ? store.UpdateStatus(t.resource, body) : store.Update(t.resource, body));
  });
  server.Patch(".*", [store_ptr, parse, send_object](const httplib::Request& req, httplib::Response& res) {
    Store& store = *store_ptr;
    Target t;
    if (!parse(req, &t)) return SendStatus(res, Status::NotFound("resource", req.path));
    if (req.get_header_value("Content-Type") != "application/merge-patch+json") {
      return SendStatus(res, Status::UnsupportedMediaType(req.get_header_value("Content-Type")));
    }
    send_object(res, store.Patch(t.resource, t.ns, t.name, json::parse(req.body, nullptr, false), PatchType::kMerge,
                                 t.subresource));
  });
  server.Delete(".*", [store_ptr, parse, send_object](const httplib::Request& req, httplib::Response& res) {
    Store& store = *store_ptr;
    Target t;
    if (!parse(req, &t)) return SendStatus(res, Status::NotFound("resource", req.path));
    json body = json::parse(req.body, nullptr, false);
    DeleteOptions options;
    if (body.is_object()) {
      const std::string policy = body.value("propagationPolicy", "");
      if (policy == "Orphan") options.propagation = PropagationPolicy::kOrphan;
      if (policy == "Foreground") options.propagation = PropagationPolicy::kForeground;
      if (policy == "Background") options.propagation = PropagationPolicy::kBackground;
      if (body.contains("gracePeriodSeconds")) options.grace_period_seconds = body["gracePeriodSeconds"].get<std::int64_t>();
      if (body.contains("preconditions")) {
        const json& p = body["preconditions"];
        if (p.contains("uid")) options.precondition_uid = p["uid"].get<std::string>();
        if (p.contains("resourceVersion")) options.precondition_resource_version = p["resourceVersion"].get<std::string>();
      }
    }
    send_object(res, store.Delete(t.resource, t.ns, t.name, options));
  });
}

json ClientPod(const std::string& name, const std::string& ns = "default", json labels = json::object()) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"namespace", ns}, {"labels", labels}}},
          {"spec", {{"containers", json::array({{{"name", "c"}, {"image", "busybox"}}})}}}};
}

json Job(const std::string& name) {
  return {{"apiVersion", "kubeflow.org/v1alpha1"},
          {"kind", "DGLJob"},
          {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"spec", {{"partitionMode", "Skip"}}}};
}

// A Store served over HTTP, and an HttpClient talking to it.
class StoreOverHttpTest : public ::testing::Test {
 protected:
  void SetUp() override { StartWith(StoreOptions{.clock = &clock_}); }
  void StartWith(StoreOptions options) {
    store_ = std::make_unique<Store>(options);
    // "default" exists from the start, as in a real cluster.
    ASSERT_TRUE(store_->Create("namespaces", {{"metadata", {{"name", "other"}}}}).ok());
    ServeStore(server_.http(), *store_, stopping_);
    server_.Start();
    auto client = HttpClient::Connect({.server = server_.Url()});
    ASSERT_TRUE(client.ok()) << client.status().ToString();
    client_ = std::move(client).value();
  }
  void TearDown() override {
    stopping_ = true;
    if (store_) store_->DropWatches();
    server_.Stop();
  }

  ManualClock clock_;
  std::atomic<bool> stopping_{false};
  std::unique_ptr<Store> store_;
  TestServer server_;
  std::unique_ptr<HttpClient> client_;
};

TEST_F(StoreOverHttpTest, CreateGetUpdatePatchDeleteUseKubernetesPaths) {
  auto created = client_->Create("pods", ClientPod("p1"));
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_FALSE(UidOf(**created).empty());
  EXPECT_TRUE(server_.Logged("POST /api/v1/namespaces/default/pods"));

  auto got = client_->Get("pods", "default", "p1");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(**got, **store_->Get("pods", "default", "p1"));
  EXPECT_TRUE(server_.Logged("GET /api/v1/namespaces/default/pods/p1"));

  json changed = **got;
  changed["metadata"]["labels"]["a"] = "1";
  auto updated = client_->Update("pods", changed);
  ASSERT_TRUE(updated.ok()) << updated.status().ToString();
  EXPECT_EQ((*updated)->at("metadata").at("labels").at("a"), "1");
  EXPECT_TRUE(server_.Logged("PUT /api/v1/namespaces/default/pods/p1"));

  json with_status = **updated;
  with_status["status"] = {{"phase", "Running"}};
  auto status_updated = client_->UpdateStatus("pods", with_status);
  ASSERT_TRUE(status_updated.ok()) << status_updated.status().ToString();
  EXPECT_EQ((*status_updated)->at("status").at("phase"), "Running");
  EXPECT_TRUE(server_.Logged("PUT /api/v1/namespaces/default/pods/p1/status"));

  auto patched = client_->Patch("pods", "default", "p1", {{"metadata", {{"labels", {{"b", "2"}}}}}});
  ASSERT_TRUE(patched.ok()) << patched.status().ToString();
  EXPECT_EQ((*patched)->at("metadata").at("labels").at("b"), "2");
  EXPECT_TRUE(server_.Logged("PATCH /api/v1/namespaces/default/pods/p1"));

  auto status_patched = client_->Patch("pods", "default", "p1", {{"status", {{"phase", "Succeeded"}}}},
                                       PatchType::kMerge, "status");
  ASSERT_TRUE(status_patched.ok()) << status_patched.status().ToString();
  EXPECT_EQ((*store_->Get("pods", "default", "p1"))->at("status").at("phase"), "Succeeded");
  EXPECT_TRUE(server_.Logged("PATCH /api/v1/namespaces/default/pods/p1/status"));

  auto deleted = client_->Delete("pods", "default", "p1", {.grace_period_seconds = 0});
  ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();
  EXPECT_EQ(NameOf(**deleted), "p1");
  EXPECT_TRUE(server_.Logged("DELETE /api/v1/namespaces/default/pods/p1"));
  EXPECT_TRUE(store_->Get("pods", "default", "p1").status().IsNotFound());
}

TEST_F(StoreOverHttpTest, CustomResourcesLiveUnderApisGroupVersion) {
  ASSERT_TRUE(client_->Create("dgljobs", Job("j1")).ok());
  EXPECT_TRUE(server_.Logged("POST /apis/kubeflow.org/v1alpha1/namespaces/default/dgljobs"));
  ASSERT_TRUE(client_->Get("dgljobs.kubeflow.org", "default", "j1").ok());
  EXPECT_TRUE(server_.Logged("GET /apis/kubeflow.org/v1alpha1/namespaces/default/dgljobs/j1"));
  auto status = client_->Patch("dgl", "default", "j1", {{"status", {{"phase", "Training"}}}}, PatchType::kMerge,
                               "status");
  ASSERT_TRUE(status.ok()) << status.status().ToString();
  EXPECT_TRUE(server_.Logged("PATCH /apis/kubeflow.org/v1alpha1/namespaces/default/dgljobs/j1/status"));
  // Cluster-scoped kinds never carry a namespace in the path.
  ASSERT_TRUE(client_->Create("nodes", {{"metadata", {{"name", "n1"}}}}, "default").ok());
  EXPECT_TRUE(server_.Logged("POST /api/v1/nodes"));
  ASSERT_TRUE(client_->Get("nodes", "default", "n1").ok());
  EXPECT_TRUE(server_.Logged("GET /api/v1/nodes/n1"));
}

TEST_F(StoreOverHttpTest, CreateTakesTheNamespaceArgumentThenTheObjectsThenDefault) {
  json pod = ClientPod("p");
  pod["metadata"].erase("namespace");
  ASSERT_TRUE(client_->Create("pods", pod, "other").ok());
  EXPECT_TRUE(store_->Get("pods", "other", "p").ok());
  ASSERT_TRUE(client_->Create("pods", pod).ok());
  EXPECT_TRUE(store_->Get("pods", "default", "p").ok());
}

TEST_F(StoreOverHttpTest, PodBindingIsPostedToTheBindingSubresource) {
  ASSERT_TRUE(client_->Create("pods", ClientPod("p")).ok());
  json binding = {{"metadata", {{"name", "p"}, {"namespace", "default"}}}, {"target", {{"name", "node-1"}}}};
  auto bound = client_->Create("pods/binding", binding);
  ASSERT_TRUE(bound.ok()) << bound.status().ToString();
  EXPECT_TRUE(server_.Logged("POST /api/v1/namespaces/default/pods/p/binding"));
  EXPECT_EQ((*store_->Get("pods", "default", "p"))->at("spec").at("nodeName"), "node-1");
}

TEST_F(StoreOverHttpTest, ErrorsAreTheStatusesTheStoreReturns) {
  ASSERT_TRUE(client_->Create("pods", ClientPod("p")).ok());

  auto exists = client_->Create("pods", ClientPod("p"));
  auto exists_direct = store_->Create("pods", ClientPod("p"));
  EXPECT_TRUE(exists.status().IsAlreadyExists());
  EXPECT_EQ(exists.status().code(), 409);
  EXPECT_EQ(exists.status().message(), exists_direct.status().message());

  auto missing = client_->Get("pods", "default", "nope");
  EXPECT_TRUE(missing.status().IsNotFound());
  EXPECT_EQ(missing.status().code(), 404);
  EXPECT_EQ(missing.status().message(), store_->Get("pods", "default", "nope").status().message());

  json stale = **store_->Get("pods", "default", "p");
  ASSERT_TRUE(store_->Patch("pods", "default", "p", {{"metadata", {{"labels", {{"x", "1"}}}}}}).ok());
  stale["metadata"]["labels"]["y"] = "2";
  auto conflict = client_->Update("pods", stale);
  EXPECT_TRUE(conflict.status().IsConflict()) << conflict.status().ToString();
  EXPECT_EQ(conflict.status().code(), 409);
  EXPECT_EQ(conflict.status().message(), store_->Update("pods", stale).status().message());

  auto precondition = client_->Delete("pods", "default", "p", {.precondition_uid = std::string("not-the-uid")});
  EXPECT_TRUE(precondition.status().IsConflict()) << precondition.status().ToString();

  // The path's namespace is checked on the server; no namespace means "default".
  EXPECT_TRUE(client_->Get("pods", "", "p").ok());
  EXPECT_TRUE(client_->Get("pods", "other", "p").status().IsNotFound());

  EXPECT_TRUE(client_->Get("widgets", "default", "w").status().IsNotFound());
}

TEST_F(StoreOverHttpTest, InvalidKeepsItsCauses) {
  store_->AddValidator("configmaps", [](const AdmissionRequest& request) -> std::vector<StatusCause> {
    if (request.object != nullptr && request.object->contains("data")) return {};
    return {{"FieldValueRequired", "data", "Required value"}};
  });
  auto invalid = client_->Create("configmaps", {{"metadata", {{"name", "cm"}}}});
  ASSERT_TRUE(invalid.status().IsInvalid()) << invalid.status().ToString();
  EXPECT_EQ(invalid.status().code(), 422);
  ASSERT_EQ(invalid.status().causes().size(), 1u);
  EXPECT_EQ(invalid.status().causes()[0], (StatusCause{"FieldValueRequired", "data", "Required value"}));
}

TEST_F(StoreOverHttpTest, ListPassesSelectorsAndFillsKindIntoItems) {
  ASSERT_TRUE(client_->Create("pods", ClientPod("a", "default", {{"tier", "web"}})).ok());
  ASSERT_TRUE(client_->Create("pods", ClientPod("b", "default", {{"tier", "db"}})).ok());
  ASSERT_TRUE(client_->Create("pods", ClientPod("c", "other", {{"tier", "web"}})).ok());

  auto all = client_->List("pods");
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  ASSERT_EQ(all->items.size(), 3u);
  EXPECT_EQ(all->resource_version, std::to_string(store_->CurrentResourceVersion()));
  EXPECT_EQ(all->items[0]->at("kind"), "Pod");
  EXPECT_EQ(all->items[0]->at("apiVersion"), "v1");
  EXPECT_TRUE(server_.Logged("GET /api/v1/pods"));

  auto web = client_->List("pods", {.label_selector = "tier in (web,cache)"});
  ASSERT_TRUE(web.ok()) << web.status().ToString();
  ASSERT_EQ(web->items.size(), 2u);
  EXPECT_TRUE(server_.Logged("GET /api/v1/pods?labelSelector=tier%20in%20%28web%2Ccache%29"));

  auto named = client_->List("pods", {.namespace_ = "default", .field_selector = "metadata.name=b"});
  ASSERT_TRUE(named.ok()) << named.status().ToString();
  ASSERT_EQ(named->items.size(), 1u);
  EXPECT_EQ(NameOf(*named->items[0]), "b");
  EXPECT_TRUE(server_.Logged("GET /api/v1/namespaces/default/pods?fieldSelector=metadata.name%3Db"));

  auto bad = client_->List("pods", {.label_selector = "tier in ("});
  EXPECT_EQ(bad.status().code(), store_->List("pods", {.label_selector = "tier in ("}).status().code());
  EXPECT_FALSE(bad.ok());
}

TEST_F(StoreOverHttpTest, WatchDeliversEventsAndWakesWaitersAndNotifier) {
  auto watch = client_->Watch("pods", {.namespace_ = "default",
                                       .resource_version = std::to_string(store_->CurrentResourceVersion())});
  ASSERT_TRUE(watch.ok()) << watch.status().ToString();
  std::atomic<int> notified{0};
  (*watch)->SetNotifier([&] { ++notified; });

  ASSERT_TRUE(client_->Create("pods", ClientPod("p")).ok());
  ASSERT_TRUE(client_->Patch("pods", "default", "p", {{"metadata", {{"labels", {{"a", "1"}}}}}}).ok());
  ASSERT_TRUE(client_->Delete("pods", "default", "p", {.grace_period_seconds = 0}).ok());
  ASSERT_TRUE(client_->Create("pods", ClientPod("elsewhere", "other")).ok());

  std::vector<WatchEvent> events;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (events.size() < 3 && std::chrono::steady_clock::now() < deadline) {
    (*watch)->Wait(100 * kMillisecond);
    ASSERT_TRUE((*watch)->Poll(&events));
  }
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].type, WatchEventType::kAdded);
  EXPECT_EQ(events[1].type, WatchEventType::kModified);
  EXPECT_EQ(events[2].type, WatchEventType::kDeleted);
  EXPECT_EQ(NameOf(*events[2].object), "p");
  EXPECT_EQ(events[0].object->at("kind"), "Pod");
  EXPECT_GE(notified.load(), 1);
  EXPECT_FALSE((*watch)->Ended());

  (*watch)->Stop();
  EXPECT_TRUE((*watch)->Ended());
  EXPECT_TRUE((*watch)->status().ok());
  EXPECT_FALSE((*watch)->Poll(&events));
}

TEST_F(StoreOverHttpTest, WatchFromEmptyVersionStartsWithSyntheticAdds) {
  ASSERT_TRUE(client_->Create("pods", ClientPod("a")).ok());
  ASSERT_TRUE(client_->Create("pods", ClientPod("b")).ok());
  auto watch = client_->Watch("pods", {.label_selector = ""});
  ASSERT_TRUE(watch.ok()) << watch.status().ToString();
  std::vector<WatchEvent> events;
  ASSERT_TRUE(Eventually([&] {
    (*watch)->Poll(&events);
    return events.size() >= 2;
  }));
  EXPECT_EQ(events[0].type, WatchEventType::kAdded);
  EXPECT_EQ(NameOf(*events[1].object), "b");
  EXPECT_TRUE(server_.Logged("GET /api/v1/pods?watch=true"));
}

TEST_F(StoreOverHttpTest, StopEndsAQuietWatchAtOnce) {
  auto watch = client_->Watch("pods", {.resource_version = std::to_string(store_->CurrentResourceVersion())});
  ASSERT_TRUE(watch.ok());
  const auto start = std::chrono::steady_clock::now();
  (*watch)->Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  EXPECT_TRUE((*watch)->Ended());
  EXPECT_TRUE((*watch)->status().ok());
}

TEST_F(StoreOverHttpTest, DroppedWatchEndsWithANonExpiredError) {
  auto watch = client_->Watch("pods", {.resource_version = std::to_string(store_->CurrentResourceVersion())});
  ASSERT_TRUE(watch.ok());
  std::atomic<bool> told{false};
  (*watch)->SetNotifier([&] { told = true; });
  store_->DropWatches();
  ASSERT_TRUE(Eventually([&] { return (*watch)->Ended(); }));
  EXPECT_TRUE(told.load());
  EXPECT_FALSE((*watch)->status().ok());
  EXPECT_FALSE((*watch)->status().IsExpired());
  EXPECT_EQ((*watch)->status().code(), 500);
}

class SmallHistoryTest : public StoreOverHttpTest {
 protected:
  void SetUp() override { StartWith(StoreOptions{.clock = &clock_, .history_limit = 4}); }
};

TEST_F(SmallHistoryTest, WatchFromACompactedVersionIsExpiredLikeTheStore) {
  ASSERT_TRUE(client_->Create("pods", ClientPod("p0")).ok());
  const std::string old_version = ResourceVersionOf(**store_->Get("pods", "default", "p0"));
  for (int i = 1; i <= 10; ++i) ASSERT_TRUE(client_->Create("pods", ClientPod("p" + std::to_string(i))).ok());
  auto direct = store_->Watch("pods", {.resource_version = old_version});
  ASSERT_TRUE(direct.status().IsExpired());
  auto watch = client_->Watch("pods", {.resource_version = old_version});
  ASSERT_FALSE(watch.ok());
  EXPECT_TRUE(watch.status().IsExpired());
  EXPECT_EQ(watch.status().code(), 410);
  EXPECT_EQ(watch.status().message(), direct.status().message());
}

TEST_F(SmallHistoryTest, InformerListsWatchesRewatchesAndRelistsOverHttp) {
  ASSERT_TRUE(client_->Create("pods", ClientPod("a")).ok());
  Informer informer(*client_, "pods", {.namespace_ = "default"});
  std::vector<std::string> seen;
  informer.AddEventHandler({.on_add = [&](const ObjectPtr& o) { seen.push_back("add " + NameOf(*o)); },
                            .on_update = [&](const ObjectPtr&, const ObjectPtr& o) { seen.push_back("update " + NameOf(*o)); },
                            .on_delete = [&](const ObjectPtr& o) { seen.push_back("delete " + NameOf(*o)); }});
  std::mutex mu;
  std::condition_variable cv;
  int wakeups = 0;
  informer.SetNotifier([&] {
    std::lock_guard<std::mutex> lock(mu);
    ++wakeups;
    cv.notify_all();
  });
  ASSERT_TRUE(informer.Start().ok()) << informer.last_error().ToString();
  EXPECT_EQ(informer.Size(), 1u);

  // Watch events arrive on the reader thread; the informer applies them when pumped.
  ASSERT_TRUE(store_->Create("pods", ClientPod("b")).ok());
  ASSERT_TRUE(Eventually([&] {
    informer.Pump();
    return informer.Size() == 2;
  }));
  {
    std::unique_lock<std::mutex> lock(mu);
    EXPECT_GE(wakeups, 1);
  }

  // A dropped connection: re-watch from the last version, no relist, no duplicate handler calls.
  store_->DropWatches();
  ASSERT_TRUE(store_->Patch("pods", "default", "b", {{"metadata", {{"labels", {{"v", "2"}}}}}}).ok());
  ASSERT_TRUE(Eventually([&] {
    informer.Pump();
    auto b = informer.Get("default", "b");
    return b && b->at("metadata").at("labels").contains("v");
  }));
  EXPECT_EQ(informer.stats().rewatches, 1);
  EXPECT_EQ(informer.stats().relists, 0);

  // Dropped while more changes happen than the server keeps: the re-watch gets 410, the informer
  // relists and reports exactly the differences.
  informer.Pump();
  const std::int64_t relists_before = informer.stats().relists;
  store_->DropWatches();
  ASSERT_TRUE(store_->Delete("pods", "default", "a", {.grace_period_seconds = 0}).ok());
  for (int i = 0; i < 8; ++i) ASSERT_TRUE(store_->Create("pods", ClientPod("n" + std::to_string(i))).ok());
  seen.clear();
  ASSERT_TRUE(Eventually([&] {
    informer.Pump();
    return informer.Size() == 9;
  }));
  EXPECT_EQ(informer.stats().relists, relists_before + 1);
  EXPECT_EQ(informer.Get("default", "a"), nullptr);
  EXPECT_NE(std::find(seen.begin(), seen.end(), "delete a"), seen.end());
  EXPECT_NE(std::find(seen.begin(), seen.end(), "add n7"), seen.end());
  EXPECT_TRUE(informer.last_error().ok());
  informer.Stop();
}

// --- Scripted servers: what a Store never says. ---

class ScriptedTest : public ::testing::Test {
 protected:
  void Start() {
    server_.Start();
    auto client = HttpClient::Connect({.server = server_.Url(), .bearer_token = "s3cret"});
    ASSERT_TRUE(client.ok());
    client_ = std::move(client).value();
  }
  TestServer server_;
  std::unique_ptr<HttpClient> client_;
};

TEST_F(ScriptedTest, ErrorsWithoutAStatusBodyAreMappedByCode) {
  server_.http().Get("/api/v1/namespaces/default/pods/(.*)", [](const httplib::Request& req, httplib::Response& res) {
    const std::string name = req.matches[1];
    if (name == "text500") {
      res.status = 500;
      res.set_content("boom", "text/plain");
    } else if (name == "status500") {
      res.status = 500;
      res.set_content(Status::Internal("etcd is down").ToJson().dump(), "application/json");
    } else if (name == "bare404") {
      res.status = 404;
    } else if (name == "bare409") {
      res.status = 409;
      res.set_content("conflict", "text/plain");
    } else if (name == "bare410") {
      res.status = 410;
    } else if (name == "forbidden") {
      res.status = 403;
      json body = {{"kind", "Status"}, {"apiVersion", "v1"}, {"status", "Failure"}, {"reason", "Forbidden"},
                   {"message", "pods \"forbidden\" is forbidden: User cannot get resource"}};
      res.set_content(body.dump(), "application/json");
    } else if (name == "garbage") {
      res.set_content("<html>not json</html>", "text/html");
    } else if (name == "unavailable") {
      res.status = 503;
      res.set_content("try later", "text/plain");
    }
  });
  Start();
  auto text500 = client_->Get("pods", "default", "text500");
  EXPECT_EQ(text500.status().code(), 500);
  EXPECT_EQ(text500.status().reason(), "InternalError");
  EXPECT_NE(text500.status().message().find("boom"), std::string::npos);

  auto status500 = client_->Get("pods", "default", "status500");
  EXPECT_EQ(status500.status().code(), 500);
  EXPECT_EQ(status500.status().message(), Status::Internal("etcd is down").message());

  auto bare404 = client_->Get("pods", "default", "bare404");
  EXPECT_TRUE(bare404.status().IsNotFound());
  EXPECT_EQ(bare404.status().message(), Status::NotFound("pods", "bare404").message());

  EXPECT_TRUE(client_->Get("pods", "default", "bare409").status().IsConflict());
  EXPECT_TRUE(client_->Get("pods", "default", "bare410").status().IsExpired());

  auto forbidden = client_->Get("pods", "default", "forbidden");
  EXPECT_EQ(forbidden.status().code(), 403);  // from the response, the body had no code
  EXPECT_EQ(forbidden.status().reason(), "Forbidden");

  auto garbage = client_->Get("pods", "default", "garbage");
  EXPECT_EQ(garbage.status().code(), 500);

  auto unavailable = client_->Get("pods", "default", "unavailable");
  EXPECT_EQ(unavailable.status().code(), 503);
  EXPECT_EQ(unavailable.status().reason(), "ServiceUnavailable");
}

TEST_F(ScriptedTest, BearerTokenIsSentOnEveryRequest) {
  std::mutex mu;
  std::vector<std::string> authorizations;
  auto record = [&](const httplib::Request& req, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(mu);
    authorizations.push_back(req.get_header_value("Authorization"));
    res.set_content(R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[]})",
                    "application/json");
  };
  server_.http().Get("/api/v1/pods", record);
  Start();
  ASSERT_TRUE(client_->List("pods").ok());
  auto watch = client_->Watch("pods", {.resource_version = "1"});
  if (watch.ok()) (*watch)->Stop();
  std::lock_guard<std::mutex> lock(mu);
  ASSERT_EQ(authorizations.size(), 2u);
  EXPECT_EQ(authorizations[0], "Bearer s3cret");
  EXPECT_EQ(authorizations[1], "Bearer s3cret");
}

TEST_F(ScriptedTest, DeleteAnsweredWithSuccessStatusReturnsTheObjectsName) {
  server_.http().Delete("/apis/kubeflow.org/v1alpha1/namespaces/ns/dgljobs/j",
                        [](const httplib::Request& req, httplib::Response& res) {
                          json body = json::parse(req.body);
                          EXPECT_EQ(body["propagationPolicy"], "Foreground");
                          EXPECT_EQ(body["preconditions"]["resourceVersion"], "42");
                          res.set_content(R"({"kind":"Status","apiVersion":"v1","status":"Success","details":{"name":"j","uid":"u-1"}})",
                                          "application/json");
                        });
  Start();
  auto deleted = client_->Delete("dgljobs", "ns", "j",
                                 {.propagation = PropagationPolicy::kForeground,
                                  .precondition_resource_version = std::string("42")});
  ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();
  EXPECT_EQ(KeyOf(**deleted), "ns/j");
  EXPECT_EQ(UidOf(**deleted), "u-1");
  EXPECT_EQ((*deleted)->at("kind"), "DGLJob");
}

TEST_F(ScriptedTest, RequestsReuseAKeepAliveConnection) {
  std::mutex mu;
  std::set<int> ports;  // the client's side of each request's connection
  int requests = 0;
  server_.http().Get("/api/v1/namespaces/default/pods/(.*)", [&](const httplib::Request& req, httplib::Response& res) {
    {
      std::lock_guard<std::mutex> lock(mu);
      ports.insert(req.remote_port);
      ++requests;
    }
    res.set_content(ClientPod(req.matches[1]).dump(), "application/json");
  });
  server_.http().Post("/api/v1/namespaces/default/pods", [&](const httplib::Request& req, httplib::Response& res) {
    {
      std::lock_guard<std::mutex> lock(mu);
      ports.insert(req.remote_port);
      ++requests;
    }
    res.status = 201;
    res.set_content(req.body, "application/json");
  });
  server_.http().set_keep_alive_max_count(100);  // cpp-httplib's server closes after 5 by default
  Start();
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(client_->Get("pods", "default", "p" + std::to_string(i)).ok());
    ASSERT_TRUE(client_->Create("pods", ClientPod("q" + std::to_string(i))).ok());
  }
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_EQ(requests, 8);
  EXPECT_EQ(ports.size(), 1u) << "eight requests in a row opened " << ports.size() << " connections";
}

TEST_F(ScriptedTest, AServerThatClosesEachConnectionIsStillServed) {
  // The server closes every connection after its answer (Connection: close): the pooled
  // connection is open again for the next request.
  std::mutex mu;
  int answered = 0;
  server_.http().Get("/api/v1/namespaces/default/pods/(.*)", [&](const httplib::Request& req, httplib::Response& res) {
    {
      std::lock_guard<std::mutex> lock(mu);
      ++answered;
    }
    res.set_header("Connection", "close");
    res.set_content(ClientPod(req.matches[1]).dump(), "application/json");
  });
  Start();
  for (int i = 0; i < 3; ++i) {
    auto got = client_->Get("pods", "default", "p" + std::to_string(i));
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(NameOf(**got), "p" + std::to_string(i));
  }
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_EQ(answered, 3);
}

TEST_F(ScriptedTest, AGetBrokenOnAReusedConnectionIsSentAgainAWriteIsNot) {
  // The second request on any connection breaks without an answer, as when the server closed an
  // idle connection just as the request left.
  std::mutex mu;
  std::set<int> seen;
  int gets = 0;
  auto break_reused = [&](const httplib::Request& req, httplib::Response& res, const std::string& body) {
    std::lock_guard<std::mutex> lock(mu);
    if (!seen.insert(req.remote_port).second) {
      res.set_content_provider(1000, "application/json", [](std::size_t, std::size_t, httplib::DataSink&) { return false; });
      return;
    }
    res.set_content(body, "application/json");
  };
  server_.http().Get("/api/v1/namespaces/default/pods/(.*)", [&](const httplib::Request& req, httplib::Response& res) {
    {
      std::lock_guard<std::mutex> lock(mu);
      ++gets;
    }
    break_reused(req, res, ClientPod(req.matches[1]).dump());
  });
  server_.http().Post("/api/v1/namespaces/default/pods", [&](const httplib::Request& req, httplib::Response& res) {
    break_reused(req, res, req.body);
  });
  Start();
  ASSERT_TRUE(client_->Get("pods", "default", "a").ok());
  auto again = client_->Get("pods", "default", "b");  // broken on the reused connection, then resent
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(NameOf(**again), "b");
  auto created = client_->Create("pods", ClientPod("c"));  // broken on the reused connection: not resent
  EXPECT_EQ(created.status().code(), 504) << created.status().ToString();
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_EQ(gets, 3);
}

TEST_F(ScriptedTest, UnreachableServerIsServiceUnavailable) {
  // Port 1 is privileged and nothing listens there: the connection is refused.
  auto client = HttpClient::Connect({.server = "http://127.0.0.1:1",
                                     .connect_timeout = 2 * kSecond});
  ASSERT_TRUE(client.ok());
  auto got = (*client)->Get("pods", "default", "p");
  EXPECT_EQ(got.status().code(), 503) << got.status().ToString();
  auto watch = (*client)->Watch("pods");
  EXPECT_EQ(watch.status().code(), 503) << watch.status().ToString();
}

TEST_F(ScriptedTest, ConnectionClosedMidResponseIsATimeoutThatMayHaveApplied) {
  server_.http().Post("/api/v1/namespaces/default/pods", [](const httplib::Request&, httplib::Response& res) {
    // Promises a body and closes the connection without it.
    res.set_content_provider(1000, "application/json", [](std::size_t, std::size_t, httplib::DataSink&) {
      return false;
    });
  });
  Start();
  auto created = client_->Create("pods", ClientPod("p"));
  EXPECT_EQ(created.status().code(), 504) << created.status().ToString();
  EXPECT_EQ(created.status().reason(), "Timeout");
}

TEST_F(ScriptedTest, WatchEventsMayBeConcatenatedAndSplitAnywhere) {
  server_.http().Get("/api/v1/pods", [](const httplib::Request&, httplib::Response& res) {
    // Two events with no newline between them, cut in the middle of a string, then keep-alive
    // blank lines, then a BOOKMARK; then the server closes the stream.
    res.set_chunked_content_provider("application/json", [](std::size_t, httplib::DataSink& sink) {
      const std::string a = R"({"type":"ADDED","object":{"metadata":{"name":"a{b\"}","namespace":"default","resourceVersion":"5"}}})";
      const std::string b = R"({"type":"MODIFIED","object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":"x","namespace":"default","resourceVersion":"6"}}})";
      const std::string all = a + b + "\n\n  \n" + R"({"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"9"}}})";
      for (std::size_t i = 0; i < all.size(); i += 7) {
        std::string piece = all.substr(i, 7);
        if (!sink.write(piece.data(), piece.size())) return false;
      }
      sink.done();
      return true;
    });
  });
  Start();
  auto watch = client_->Watch("pods", {.resource_version = "4", .allow_bookmarks = true});
  ASSERT_TRUE(watch.ok()) << watch.status().ToString();
  std::vector<WatchEvent> events;
  ASSERT_TRUE(Eventually([&] { return !(*watch)->Poll(&events); }));
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].type, WatchEventType::kAdded);
  EXPECT_EQ(NameOf(*events[0].object), "a{b\"}");
  EXPECT_EQ(events[0].object->at("kind"), "Pod");  // filled in
  EXPECT_EQ(events[1].type, WatchEventType::kModified);
  EXPECT_EQ(events[2].type, WatchEventType::kBookmark);
  EXPECT_EQ(ResourceVersionOf(*events[2].object), "9");
  // The server closed the stream: an error that is not Expired, so an informer re-watches.
  EXPECT_EQ((*watch)->status().code(), 500);
  EXPECT_TRUE(server_.Logged("GET /api/v1/pods?watch=true&resourceVersion=4&allowWatchBookmarks=true"));
}

TEST_F(ScriptedTest, InStreamExpiredErrorEndsTheStreamWithExpired) {
  server_.http().Get("/api/v1/pods", [](const httplib::Request&, httplib::Response& res) {
    res.set_chunked_content_provider("application/json", [](std::size_t offset, httplib::DataSink& sink) {
      json error = {{"type", "ERROR"},
                    {"object", {{"kind", "Status"}, {"apiVersion", "v1"}, {"status", "Failure"},
                                {"message", "too old resource version: 1 (50)"}, {"reason", "Expired"}, {"code", 410}}}};
      if (offset > 0) {
        // Holds the stream open (an idle server loop): the client must end it on the ERROR.
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        return true;
      }
      std::string text = error.dump() + "\n" + R"({"type":"ADDED","object":{"metadata":{"name":"late"}}})" + "\n";
      return sink.write(text.data(), text.size());
    });
  });
  Start();
  auto watch = client_->Watch("pods", {.resource_version = "1"});
  ASSERT_TRUE(watch.ok()) << watch.status().ToString();
  std::vector<WatchEvent> events;
  ASSERT_TRUE(Eventually([&] { return !(*watch)->Poll(&events); }));
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].type, WatchEventType::kError);
  EXPECT_TRUE((*watch)->status().IsExpired());
  EXPECT_EQ(Status::FromJson(*events[0].object).code(), 410);
  (*watch)->Stop();
  server_.Stop();
}

TEST_F(ScriptedTest, GarbageOnAWatchStreamEndsItWithAnError) {
  server_.http().Get("/api/v1/pods", [](const httplib::Request&, httplib::Response& res) {
    res.set_chunked_content_provider("application/json", [](std::size_t, httplib::DataSink& sink) {
      std::string text = "hello, not json\n";
      sink.write(text.data(), text.size());
      sink.done();
      return true;
    });
  });
  Start();
  auto watch = client_->Watch("pods", {.resource_version = "1"});
  ASSERT_TRUE(watch.ok());
  std::vector<WatchEvent> events;
  ASSERT_TRUE(Eventually([&] { return !(*watch)->Poll(&events); }));
  EXPECT_TRUE(events.empty());
  EXPECT_EQ((*watch)->status().code(), 500);
}

TEST_F(ScriptedTest, RefusedWatchReturnsTheStatusFromWatch) {
  server_.http().Get("/api/v1/pods", [](const httplib::Request&, httplib::Response& res) {
    SendStatus(res, Status::Forbidden("pods is forbidden: cannot watch"));
  });
  Start();
  auto watch = client_->Watch("pods", {.resource_version = "1"});
  EXPECT_EQ(watch.status().code(), 403);
  EXPECT_EQ(watch.status().message(), "pods is forbidden: cannot watch");
}

TEST(HttpClientConfigTest, RejectsUnusableServerUrls) {
  for (const char* url : {"", "localhost:8080", "ftp://x", "http://", "http://host:port", "http://h:99999",
                          "http://[::1", "http://user@h:1"}) {
    auto client = HttpClient::Connect({.server = url});
    EXPECT_FALSE(client.ok()) << url;
    EXPECT_EQ(client.status().code(), 400) << url;
  }
  for (const char* url : {"http://localhost", "http://127.0.0.1:8080/", "http://[::1]:6443", "http://h:1/prefix"}) {
    EXPECT_TRUE(HttpClient::Connect({.server = url}).ok()) << url;
  }
  EXPECT_EQ(HttpClient::Connect({.server = "https://h:6443"}).ok(), HttpsSupported());
}

TEST(HttpClientConfigTest, InClusterOptionsReadTheServiceAccount) {
  const std::filesystem::path root = std::filesystem::path(::testing::TempDir()) / "incluster";
  const std::filesystem::path dir = root / "var/run/secrets/kubernetes.io/serviceaccount";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "token") << "tok-123\n";
  std::ofstream(dir / "ca.crt") << "-----BEGIN CERTIFICATE-----\n";
  ::setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1", 1);
  ::setenv("KUBERNETES_SERVICE_PORT", "443", 1);
  auto options = InClusterOptions(root.string());
  ASSERT_TRUE(options.ok()) << options.status().ToString();
  EXPECT_EQ(options->server, "https://10.96.0.1:443");
  EXPECT_EQ(options->bearer_token, "tok-123");
  EXPECT_EQ(options->ca_cert_file, (dir / "ca.crt").string());
  EXPECT_EQ(options->bearer_token_file, (dir / "token").string());

  ::setenv("KUBERNETES_SERVICE_HOST", "fd00::1", 1);
  EXPECT_EQ(InClusterOptions(root.string())->server, "https://[fd00::1]:443");

  ::unsetenv("KUBERNETES_SERVICE_HOST");
  EXPECT_EQ(InClusterOptions(root.string()).status().code(), 400);
  ::unsetenv("KUBERNETES_SERVICE_PORT");
  std::filesystem::remove_all(root);
}

TEST_F(ScriptedTest, PathPrefixOfTheServerUrlIsKept) {
  server_.http().Get("/k8s/api/v1/namespaces/default/pods/p", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(R"({"metadata":{"name":"p","namespace":"default"}})", "application/json");
  });
  server_.Start();
  auto client = HttpClient::Connect({.server = server_.Url() + "/k8s/"});
  ASSERT_TRUE(client.ok());
  auto got = (*client)->Get("pods", "default", "p");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ((*got)->at("kind"), "Pod");
}

}  // namespace
}  // namespace kube

namespace kube {
namespace {

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// An https server (cpp-httplib's SSLServer) with the certificates of data/tls/, which the client
// must verify against a CA given as PEM text (a kubeconfig's certificate-authority-data) or as a
// file, refuse with an unrelated CA, accept with verification off, and send the token to.
class TlsServerTest : public ::testing::Test {
 protected:
  const std::string dir_ = std::string(DGLSIM_SOURCE_DIR) + "/tests/fakeapi/client/data/tls/";

  void SetUp() override {
    if (!HttpsSupported()) GTEST_SKIP() << "cpp-httplib without OpenSSL";
    server_ = std::make_unique<httplib::SSLServer>((dir_ + "server.crt").c_str(), (dir_ + "server.key").c_str());
    ASSERT_TRUE(server_->is_valid());
    server_->Get("/api/v1/namespaces/default/pods/p", [this](const httplib::Request& req, httplib::Response& res) {
      std::lock_guard<std::mutex> lock(mu_);
      authorization_ = req.get_header_value("Authorization");
      res.set_content(R"({"metadata":{"name":"p","namespace":"default"}})", "application/json");
    });
    const int port = server_->bind_to_any_port("127.0.0.1");
    ASSERT_GT(port, 0);
    url_ = "https://127.0.0.1:" + std::to_string(port);
    thread_ = std::thread([this] { server_->listen_after_bind(); });
    ASSERT_TRUE(Eventually([this] { return server_->is_running(); }));
  }
  void TearDown() override {
    if (server_) server_->stop();
    if (thread_.joinable()) thread_.join();
  }

  // The code of GET pods/p with these options (0 when it succeeded).
  int Get(HttpClientOptions options) {
    options.server = url_;
    options.bearer_token = "tok-tls";
    auto client = HttpClient::Connect(std::move(options));
    if (!client.ok()) return client.status().code();
    auto pod = (*client)->Get("pods", "default", "p");
    if (!pod.ok()) return pod.status().code();
    return NameOf(**pod) == "p" ? 0 : -1;
  }
  std::string Authorization() {
    std::lock_guard<std::mutex> lock(mu_);
    return authorization_;
  }

  std::unique_ptr<httplib::SSLServer> server_;
  std::thread thread_;
  std::string url_;
  std::mutex mu_;
  std::string authorization_;
};

TEST_F(TlsServerTest, VerifiesTheServerWithCaDataHeldInMemory) {
  HttpClientOptions options;
  options.ca_cert_pem = ReadText(dir_ + "ca.crt");
  EXPECT_EQ(Get(options), 0);
  EXPECT_EQ(Authorization(), "Bearer tok-tls");
}

TEST_F(TlsServerTest, VerifiesTheServerWithACaFile) {
  HttpClientOptions options;
  options.ca_cert_file = dir_ + "ca.crt";
  EXPECT_EQ(Get(options), 0);
}

TEST_F(TlsServerTest, RefusesAServerAnotherCaSignedUnlessVerificationIsOff) {
  HttpClientOptions options;
  options.ca_cert_pem = ReadText(dir_ + "other-ca.crt");
  EXPECT_EQ(Get(options), 503);
  EXPECT_EQ(Authorization(), "");  // nothing was sent to an unverified server
  options.insecure_skip_tls_verify = true;
  EXPECT_EQ(Get(options), 0);
}

TEST_F(TlsServerTest, CaDataWithoutACertificateIsRefusedAtConnect) {
  HttpClientOptions options;
  options.ca_cert_pem = "not a certificate";
  EXPECT_EQ(Get(options), 400);
}

}  // namespace
}  // namespace kube
