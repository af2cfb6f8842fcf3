// Shared by the HTTP server tests: a server on a free loopback port over a fresh Store, an HTTP
// client, a streaming GET on a thread of its own, raw sockets, and Status assertions.
#pragma once

#include "fakeapi/server/http_server.h"
#include "fakeapi/server/store.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace fakeapi::testing {

using json = kube::Json;
using namespace std::chrono_literals;

inline constexpr const char* kTableAccept =
    "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";

inline json Pod(const std::string& name, json labels = json::object()) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"namespace", "default"}, {"labels", labels}}},
          {"spec", {{"containers", json::array({{{"name", "main"}, {"image", "busybox:1.36"}}})}}}};
}

inline json ConfigMap(const std::string& name, const std::string& ns = "default", json data = json::object()) {
  return {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", name}, {"namespace", ns}}}, {"data", data}};
}

inline json DGLJob(const std::string& name) {
  return {{"apiVersion", "kubeflow.org/v1alpha1"},
          {"kind", "DGLJob"},
          {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"spec", {{"partitionMode", "Skip"}}}};
}

inline json Body(const httplib::Result& r) {
  if (!r) return json();
  return json::parse(r->body, nullptr, false);
}

// Polls `done` until it holds or the deadline passes (for effects on other threads).
template <class F>
bool Eventually(F done, std::chrono::milliseconds deadline = 5000ms) {
  auto until = std::chrono::steady_clock::now() + deadline;
  while (std::chrono::steady_clock::now() < until) {
    if (done()) return true;
    std::this_thread::sleep_for(5ms);
  }
  return done();
}

// A streaming GET on a thread of its own: collects the body as it arrives; the receiver stops
// (closing the connection) once `stop` is set.
class Stream {
 public:
  Stream(int port, std::string path, httplib::Headers headers = {}) {
    thread_ = std::thread([this, port, path = std::move(path), headers = std::move(headers)] {
      httplib::Client client("127.0.0.1", port);
      client.set_read_timeout(30, 0);
      auto r = client.Get(path, headers, [this](const char* data, size_t n) {
        std::lock_guard<std::mutex> lock(mu_);
        body_.append(data, n);
        cv_.notify_all();
        return !stop_.load();
      });
      std::lock_guard<std::mutex> lock(mu_);
      finished_ = true;
      if (r) status_ = r->status;
      cv_.notify_all();
    });
  }
  ~Stream() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  // Waits until the body contains `text`.
  bool WaitFor(const std::string& text, std::chrono::milliseconds deadline = 5000ms) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, deadline, [&] { return body_.find(text) != std::string::npos; });
  }
  bool WaitFinished(std::chrono::milliseconds deadline = 5000ms) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, deadline, [&] { return finished_; });
  }
  std::string body() {
    std::lock_guard<std::mutex> lock(mu_);
    return body_;
  }
  // The events received so far (blank keep-alive lines skipped).
  std::vector<json> Events() {
    std::vector<json> out;
    std::string text = body();
    std::size_t start = 0;
    while (true) {
      std::size_t nl = text.find('\n', start);
      if (nl == std::string::npos) break;
      std::string line = text.substr(start, nl - start);
      start = nl + 1;
      if (line.empty()) continue;
      out.push_back(json::parse(line, nullptr, false));
    }
    return out;
  }
  void Stop() { stop_ = true; }

 private:
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::string body_;
  bool finished_ = false;
  int status_ = 0;
  std::atomic<bool> stop_{false};
};

class HttpServerTest : public ::testing::Test {
 protected:
  void SetUp() override { Start(HttpServerOptions{}); }

  void Start(HttpServerOptions options) {
    if (server) server->Stop();
    options.clock = &clock;
    if (!options.logs)
      options.logs = [](const json& pod, const std::string& container, bool) -> kube::Result<ContainerLog> {
        if (kube::NameOf(pod) == "pending") return kube::Status::BadRequest("container \"" + container + "\" in pod \"pending\" is waiting to start");
        return ContainerLog{{"line 1", "line 2", "line 3 of " + container}, true};
      };
    server = std::make_unique<HttpServer>(store, options);
    kube::Status s = server->Start();
    ASSERT_TRUE(s.ok()) << s.ToString();
    client = std::make_unique<httplib::Client>("127.0.0.1", server->port());
    client->set_read_timeout(10, 0);
  }

  kube::ManualClock clock;
  Store store{StoreOptions{.clock = &clock}};
  std::unique_ptr<HttpServer> server;
  std::unique_ptr<httplib::Client> client;

  HttpServerTest() {
    for (const char* ns : {"default", "other"})
      store.Create("namespaces", {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}});
  }

  httplib::Result Post(const std::string& path, const json& body) {
    return client->Post(path.c_str(), body.dump(), "application/json");
  }
  httplib::Result Patch(const std::string& path, const json& body, const std::string& type) {
    return client->Patch(path.c_str(), body.dump(), type.c_str());
  }
  httplib::Result GetTable(const std::string& path) { return client->Get(path.c_str(), {{"Accept", kTableAccept}}); }
};

inline void ExpectStatus(const httplib::Result& r, int code, const std::string& reason) {
  ASSERT_TRUE(r) << "no response";
  EXPECT_EQ(r->status, code) << r->body;
  EXPECT_NE(r->get_header_value("Content-Type").find("application/json"), std::string::npos);
  json body = Body(r);
  EXPECT_EQ(body.value("kind", ""), "Status") << r->body;
  EXPECT_EQ(body.value("status", ""), "Failure") << r->body;
  EXPECT_EQ(body.value("reason", ""), reason) << r->body;
  EXPECT_EQ(body.value("code", 0), code) << r->body;
}


// A raw TCP connection to the server, for requests no HTTP client would send.
inline int Connect(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// Everything the server sends on `fd` until it closes the connection (or `deadline` passes).
inline std::string ReadUntilClosed(int fd, std::chrono::seconds deadline = 10s) {
  timeval tv{static_cast<time_t>(deadline.count()), 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  std::string out;
  char buf[4096];
  while (true) {
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  return out;
}

}  // namespace fakeapi::testing
