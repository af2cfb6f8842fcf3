// The state of an HttpServer and its request handlers, shared by the files that implement them:
// http_server.cc (lifecycle, routing, bodies, responses), rest_handlers.cc (reads and deletes),
// write_handlers.cc (create, update, patch, apply), subresource_handlers.cc (binding, eviction,
// access reviews), watch_handler.cc (watch streams) and log_handler.cc (pods/log). Internal to
// fakeapi/server.
#pragma once

#include "fakeapi/server/discovery.h"
#include "fakeapi/server/field_manager.h"
#include "fakeapi/server/http_listener.h"
#include "fakeapi/server/http_server.h"
#include "fakeapi/server/openapi.h"
#include "fakeapi/server/rbac.h"
#include "fakeapi/server/request_options.h"
#include "fakeapi/server/store.h"

#include <httplib.h>

#include <atomic>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace fakeapi {

// What a request's URL names.
struct Target {
  const ApiResource* resource = nullptr;   // what is served
  const kube::ResourceType* type = nullptr;  // the store kind behind it (nullptr for reviews)
  std::string ns;           // "" = cluster-scoped, or every namespace on a collection
  std::string name;         // "" = the collection
  std::string subresource;  // "", "status", "log", "binding", "eviction"
};

// A list item as kube-apiserver writes it: without apiVersion and kind for a built-in kind.
kube::Json ListItem(const Target& t, kube::Json item);

struct HttpServer::Impl {
  Impl(Store& s, HttpServerOptions o) : store(s), options(std::move(o)), catalog(s.registry()) {}

  Store& store;
  HttpServerOptions options;
  const ApiCatalog catalog;
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
  // Runs `work` (a read at a resourceVersion) until it no longer answers "too large resource
  // version", waiting up to options.resource_version_wait for the store to catch up, as
  // kube-apiserver's watch cache waits before its 504.
  kube::Status RunFresh(const std::function<kube::Status()>& work);
  // Both read the clock, which the simulation advances under the executor: call them inside Run.
  kube::Micros Now() const { return options.clock ? options.clock->Now() : 0; }
  FieldWrite FieldWriteFor(const Target& t, const std::string& manager) const;

  // Lifecycle (http_server.cc).
  void InstallHandlers();
  // Counts a watch or followed-log stream against max_watches; false (and a 429 in `res`) past it.
  bool AdmitLongRunning(httplib::Response& res);
  void EndLongRunning();

  // Responses.
  static void SendJson(httplib::Response& res, int code, const kube::Json& body,
                       const char* content_type = "application/json; charset=utf-8");
  static void SendStatus(httplib::Response& res, const kube::Status& status);
  // kube-apiserver qualifies custom kinds in messages ("dgljobs.kubeflow.org \"x\" not found").
  static kube::Status Qualify(const kube::Status& status, const Target& t);
  // An object as the client sees it (events.k8s.io events converted from core ones; an Event of
  // either version with the members Go writes even when empty: null times, "" strings, {} structs),
  // and back.
  static kube::Json Present(const Target& t, const kube::Json& stored);
  static kube::Json Absorb(const Target& t, kube::Json served);
  // The body of a read in the representation negotiated.
  kube::Json Represent(const Target& t, const Representation& r, const kube::Json& object);
  kube::Json RepresentList(const Target& t, const Representation& r, const kube::ListResult& listed,
                               const std::string& include);

  // Authentication, impersonation, authorization (auth_filter.cc): false (and the 401 or 403 in
  // `res`) when the request may not go on; `*user` is who it runs as.
  bool Admit(const httplib::Request& req, httplib::Response& res, rbac::UserInfo* user);
  bool Impersonate(const httplib::Request& req, httplib::Response& res, rbac::UserInfo* user);
  // The service account of a token TokenRequest issued, from an Authorization header value
  // (token_request.cc): nullopt when the header holds none; `*refused` when it holds one that has
  // expired or whose service account is gone or replaced (401).
  std::optional<rbac::UserInfo> ServiceAccountBearer(const std::string& authorization, bool* refused);
  // POST serviceaccounts/NAME/token: a TokenRequest answered with a token (token_request.cc).
  void IssueToken(const httplib::Request& req, httplib::Response& res, const Target& t);
  // The user of the request this thread is serving (nullptr outside one), for the reviews.
  static const rbac::UserInfo* CurrentUser();
  class RequestUser {  // sets CurrentUser() for a scope
   public:
    explicit RequestUser(const rbac::UserInfo* user);
    ~RequestUser();
    RequestUser(const RequestUser&) = delete;
    RequestUser& operator=(const RequestUser&) = delete;

   private:
    const rbac::UserInfo* previous_;
  };

  // Routing (http_server.cc).
  void Handle(const httplib::Request& req, httplib::Response& res);  // Answer, then Audit
  void Answer(const httplib::Request& req, httplib::Response& res);
  void Audit(const httplib::Request& req, const httplib::Response& res, kube::Micros received);
  void Dispatch(const httplib::Request& req, httplib::Response& res);
  void DispatchApi(const httplib::Request& req, httplib::Response& res, const std::vector<std::string>& segs);
  void OpenApi(const httplib::Request& req, httplib::Response& res, const std::vector<std::string>& segs);
  bool Resolve(const std::string& group, const std::string& version, const std::vector<std::string>& rest,
               Target* target) const;
  void Resource(const httplib::Request& req, httplib::Response& res, const Target& t);
  void Collection(const httplib::Request& req, httplib::Response& res, const Target& t);
  void Subresource(const httplib::Request& req, httplib::Response& res, const Target& t);
  // JSON, YAML when the content type says so and `yaml_allowed`, or protobuf for the kinds
  // protobuf_body.h decodes; refused when nested too deep.
  kube::Result<kube::Json> ParseBody(const httplib::Request& req, bool yaml_allowed);
  const TableConverter& ConverterFor(const kube::ResourceType& type);

  // Reads and deletes (rest_handlers.cc).
  void List(const httplib::Request& req, httplib::Response& res, const Target& t);
  void GetOne(const httplib::Request& req, httplib::Response& res, const Target& t);
  void Delete(const httplib::Request& req, httplib::Response& res, const Target& t);
  void DeleteCollection(const httplib::Request& req, httplib::Response& res, const Target& t);

  // Writes (write_handlers.cc).
  void Create(const httplib::Request& req, httplib::Response& res, const Target& t);
  // kube-controller-manager's root-CA publisher, for a namespace created over HTTP: its
  // kube-root-ca.crt ConfigMap (an empty ca.crt: the fake serves plain HTTP).
  void PublishRootCa(const std::string& ns);
  void Update(const httplib::Request& req, httplib::Response& res, const Target& t);
  void Patch(const httplib::Request& req, httplib::Response& res, const Target& t);

  // Subresources and reviews (subresource_handlers.cc).
  void Bind(const httplib::Request& req, httplib::Response& res, const Target& t);
  void Evict(const httplib::Request& req, httplib::Response& res, const Target& t);
  void Review(const httplib::Request& req, httplib::Response& res, const Target& t);
  // The status of an access review (or SelfSubjectReview) as the authorizer answers it for the
  // review's subject (auth_filter.cc). Inside the executor.
  kube::Json ReviewStatus(const Target& t, const kube::Json& review) const;

  // Watches (watch_handler.cc).
  struct WatchState;
  void Watch(const httplib::Request& req, httplib::Response& res, const Target& t);
  kube::Json EventJson(const WatchState& state, const kube::WatchEvent& e);
  bool PumpWatch(WatchState& state, httplib::DataSink& sink);

  // Logs (log_handler.cc).
  void Logs(const httplib::Request& req, httplib::Response& res, const Target& t);
  void FollowLog(httplib::Response& res, const Target& t, const std::string& container, bool previous,
                 std::string text, std::size_t sent);
};

}  // namespace fakeapi
