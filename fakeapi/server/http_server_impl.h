// The state of an HttpServer and its request handlers, shared by the files that implement them:
// http_server.cc (lifecycle, routing, bodies, responses), rest_handlers.cc (the verbs),
// watch_handler.cc (watch streams) and log_handler.cc (pods/log). Internal to fakeapi/server.
#pragma once

#include "fakeapi/server/http_listener.h"
#include "fakeapi/server/http_server.h"
#include "fakeapi/server/openapi.h"
#include "fakeapi/server/store.h"

#include <httplib.h>

#include <atomic>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace fakeapi {

// What a request's URL names.
struct Target {
  const kube::ResourceType* type = nullptr;
  std::string ns;           // "" = cluster-scoped, or every namespace on a collection
  std::string name;         // "" = the collection
  std::string subresource;  // "", "status", "log", ...
};

struct HttpServer::Impl {
  Impl(Store& s, HttpServerOptions o) : store(s), options(std::move(o)) {}

  Store& store;
  HttpServerOptions options;
  std::map<std::string, TableConverter> converters;  // by qualified resource name
  OpenApiSchemas schemas;                            // by qualified resource name
  std::unique_ptr<HttpListener> server;
  std::thread listener;
  std::atomic<bool> listener_done{false};
  int bound_port = 0;
  bool started = false;
  std::mutex own_mutex;  // the executor when none is given
  std::atomic<bool> stopping{false};
  std::mutex streams_mu;
  std::set<std::shared_ptr<kube::WatchStream>> streams;  // open watches, woken on Stop
  std::size_t long_running = 0;                          // open watch and followed-log streams
  std::condition_variable stop_cv;                       // wakes log streams on Stop

  // Runs `work` with the store to itself (the executor).
  void Run(const std::function<void()>& work);
  kube::Micros Now() const { return options.clock ? options.clock->Now() : 0; }

  // Lifecycle (http_server.cc).
  void InstallHandlers();
  // Counts a watch or followed-log stream against max_watches; false (and a 429 in `res`) past it.
  bool AdmitLongRunning(httplib::Response& res);
  void EndLongRunning();

  // Responses.
  static void SendJson(httplib::Response& res, int code, const nlohmann::json& body);
  static void SendStatus(httplib::Response& res, const kube::Status& status);
  // kube-apiserver qualifies custom kinds in messages ("dgljobs.kubeflow.org \"x\" not found").
  static kube::Status Qualify(const kube::Status& status, const kube::ResourceType& type);

  // Routing (http_server.cc).
  void Handle(const httplib::Request& req, httplib::Response& res);
  void Dispatch(const httplib::Request& req, httplib::Response& res);
  void DispatchApi(const httplib::Request& req, httplib::Response& res, const std::vector<std::string>& segs);
  void OpenApi(const httplib::Request& req, httplib::Response& res, const std::vector<std::string>& segs);
  const kube::ResourceType* TypeIn(const std::string& group, const std::string& version, const std::string& plural) const;
  bool Resolve(const std::string& group, const std::string& version, const std::vector<std::string>& rest,
               Target* target) const;
  void Resource(const httplib::Request& req, httplib::Response& res, const Target& t);
  // JSON, or YAML when the content type says so and `yaml_allowed`.
  kube::Result<nlohmann::json> ParseBody(const httplib::Request& req, bool yaml_allowed);
  // "v1" or "v1beta1" when the client asks for a meta.k8s.io Table, else "".
  static std::string TableVersion(const httplib::Request& req);
  const TableConverter& ConverterFor(const kube::ResourceType& type);

  // The verbs (rest_handlers.cc).
  void List(const httplib::Request& req, httplib::Response& res, const Target& t);
  void GetOne(const httplib::Request& req, httplib::Response& res, const Target& t);
  void Create(const httplib::Request& req, httplib::Response& res, const Target& t);
  void Update(const httplib::Request& req, httplib::Response& res, const Target& t);
  void Patch(const httplib::Request& req, httplib::Response& res, const Target& t);
  void ApplyCreate(httplib::Response& res, const Target& t, const nlohmann::json& applied);
  void Delete(const httplib::Request& req, httplib::Response& res, const Target& t);

  // Watches (watch_handler.cc).
  struct WatchState;
  void Watch(const httplib::Request& req, httplib::Response& res, const Target& t);
  nlohmann::json EventJson(const WatchState& state, const kube::WatchEvent& e);
  bool PumpWatch(WatchState& state, httplib::DataSink& sink);

  // Logs (log_handler.cc).
  void Logs(const httplib::Request& req, httplib::Response& res, const Target& t);
  void FollowLog(httplib::Response& res, const Target& t, const std::string& container, bool previous,
                 std::string text, std::size_t sent);
};

}  // namespace fakeapi
