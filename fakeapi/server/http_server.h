// The HttpServer serves a Store over HTTP/1.1 with the Kubernetes REST protocol, well enough for
// real kubectl (1.27-1.33) and for clients written against kube-apiserver (client-go, the official
// Python client): version, legacy discovery (discovery.h: the store's kinds, an events.k8s.io/v1
// view of the events, bindings, evictions, access reviews, SelfSubjectReview), OpenAPI v2 (JSON and
// protobuf) and v3, list (at a resourceVersion, in pages), get, watch, create, update, the four
// patch types with field ownership, delete and deletecollection, dryRun=All on every write,
// pods/log, request bodies as JSON, YAML or, for the kinds client-go's typed clients post, protobuf
// (protobuf_body.h; 415 for other kinds), every answer as JSON or YAML, objects, Tables or
// PartialObjectMetadata as the Accept header asks (406 when it asks only for protobuf), and every
// error as a metav1.Status. See shared/reference/kubectl-surface.md for what kubectl needs and why.
//
// It is generic: it knows the kinds only through the store's Registry. Anything specific to a
// deployment comes in through hooks: Table converters per resource, OpenAPI schemas per resource,
// a provider of container logs, a YAML decoder (fakeapi has no YAML parser of its own), the text
// of GET /metrics (the simulated operator's metrics in `dglsim serve`) and an executor that serialises store access with whatever else drives the store (the simulator).
//
// Patches:
// - application/merge-patch+json: RFC 7386, exactly.
// - application/strategic-merge-patch+json (built-in kinds only, 415 for custom resources as in
//   kube-apiserver): see strategic_merge.h; lists merge by their usual key rather than by the Go
//   types' patch tags (a departure).
// - application/apply-patch+yaml (server-side apply): fieldManager required (422), field ownership
//   in managedFields with conflicts (409) unless force, fields a manager stops applying removed
//   when it owned them alone (field_manager.h). `force` on any other patch is 422.
// - application/json-patch+json: RFC 6902 with kube-apiserver's bounds (json_patch.h).
// Bodies nested deeper than kMaxJsonDepth are refused (400), and a create, update or patch whose
// object would pass kMaxObjectBytes (1.5 MiB of JSON, etcd's limit) is answered as kube-apiserver
// answers etcd's refusal: 500 "etcdserver: request is too large" (json_bounds.h).
//
// As kube-apiserver writes them: a built-in kind's list items carry no apiVersion and kind; a custom
// resource with a status subresource is created without the status its body carries; a write
// without a fieldManager and without a User-Agent is attributed to "unknown"; a namespace's
// kubernetes.io/metadata.name label belongs to its creator, and a namespace created over HTTP gets
// kube-controller-manager's kube-root-ca.crt ConfigMap (empty ca.crt: the fake serves plain HTTP);
// a pod created or updated over HTTP gets kube-apiserver's decode-time defaults (owned by the
// writer), its Priority admission and QoS class, and a metadata.generation (pods the simulation
// writes in process keep the store's lighter defaults, for speed); an Event is written with the
// members Go writes even when empty; a list at resourceVersion 0 is served whole (no pages), as
// kube-apiserver 1.34 serves it from its watch cache; a group or version nobody serves is Go's
// plain-text "404 page not found"; an unknown resource, 405, 406 and 415 carry empty details; a
// JSON patch that does not apply is kube-apiserver's generic 422.
//
// Deletes answer with the object for pods, services, service accounts and PVCs and for objects
// still held by finalizers or a grace period, and with a Success Status (details: name, group,
// kind as the plural, uid) otherwise, as kube-apiserver's registries do.
//
// Watches: one JSON object per event, newline-separated, chunked; a quiet stream gets a single
// newline every `watch_keepalive` of wall time, which JSON stream decoders skip as whitespace and
// which lets the server notice a client that went away; with allowWatchBookmarks a BOOKMARK every
// `bookmark_interval`. `timeoutSeconds` ends a stream after that much wall time. A watch from a
// resourceVersion older than the history is a 200 stream with one ERROR event (410 Expired), as
// kube-apiserver answers. Responses are never compressed (a compressed watch would be held back in
// the compressor's buffer).
//
// Connections (http_listener.h): TCP_NODELAY and keep-alive, so a reused connection answers in
// well under a millisecond; at most `max_connections`, the idlest or slowest evicted for a new one;
// a request must arrive whole within `request_timeout` and within the body limit (chunked or not);
// at most `max_watches` watch and log streams (429 TooManyRequests past it). One client that
// misbehaves (hundreds of stalled uploads, a flood of watches) leaves the others served.
//
// Thread model: each connection is served on a thread of its own. Every access to the store, to
// the clock and to the hooks happens inside `executor`, one request at a time; watch streams wait
// on their own WatchStream outside it.
//
// In process: Serve() answers one request as cpp-httplib hands it to a connection's handler, with
// no socket, listener or thread (the fuzzer of tests/fuzz drives the server this way). A handler
// that throws is a defect (every input is meant to be answered with a Status of its own): the
// client gets 500 InternalError and `on_internal_error` hears of it.
#pragma once

#include "clock/clock.h"
#include "fakeapi/client/json.h"
#include "fakeapi/client/status.h"
#include "fakeapi/server/audit_log.h"
#include "fakeapi/server/table.h"

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace httplib {
struct Request;
struct Response;
}  // namespace httplib

namespace fakeapi {

class Store;
class Authentication;
class ServiceAccountTokens;
namespace rbac {
class Authorizer;
}  // namespace rbac

// A container's log, as the provider knows it.
struct ContainerLog {
  std::vector<std::string> lines;
  bool finished = true;  // the container will write no more (ends a `follow` stream)
};
// Called inside the executor with the pod as stored and a container name the server checked is in
// its spec. An error Status goes to the client as is (e.g. BadRequest "... is waiting to start").
using LogsProvider = std::function<kube::Result<ContainerLog>(const kube::Json& pod, const std::string& container,
                                                        bool previous)>;

// Runs `work` with the store to itself (e.g. under the lock the simulation holds while it steps).
using Executor = std::function<void(const std::function<void()>& work)>;
// YAML (one document) to JSON, for application/yaml and apply-patch+yaml bodies that are not JSON.
// An error Status (BadRequest) when the text is not valid YAML.
using YamlDecoder = std::function<kube::Result<kube::Json>(std::string_view text)>;

struct HttpServerOptions {
  std::string address = "127.0.0.1";
  int port = 0;                              // 0 = a free port, chosen by the kernel
  std::size_t max_body_bytes = 3 * 1024 * 1024;  // kube-apiserver's request limit; 413 above
  std::size_t max_connections = 512;         // open connections, each on a thread (see http_listener.h)
  std::size_t max_watches = 256;             // open watch and followed-log streams; past it 429
  kube::Micros request_timeout = 30 * kube::kSecond;  // wall time for a request to arrive whole
  kube::Micros idle_timeout = 90 * kube::kSecond;     // a kept-alive connection without a request
  kube::Micros watch_keepalive = 1 * kube::kSecond;      // wall time
  kube::Micros bookmark_interval = 60 * kube::kSecond;   // wall time, as kube-apiserver's watch cache
  // How long a read at a resourceVersion newer than the store waits for it before the 504 (wall
  // time; kube-apiserver's watch cache waits 3 s).
  kube::Micros resource_version_wait = 3 * kube::kSecond;
  kube::Micros log_poll = 200 * kube::kMillisecond;      // wall time between looks at a followed log
  std::string git_version = "v1.32.0-fakeapi";  // kubectl's dispatcher picks its client by minor
  const kube::Clock* clock = nullptr;              // required: the store's clock (ages, Table rows)
  Executor executor;                         // unset: a mutex of the server's own
  LogsProvider logs;                         // unset: every container's log is empty
  YamlDecoder yaml;                          // unset: only JSON bodies are accepted
  // Called with the exception's message when a handler throws (a defect: the client gets 500
  // InternalError); on the request's thread, outside the executor. Unset: nothing.
  std::function<void(const std::string& what)> on_internal_error;
  // GET /metrics: called inside the executor, its text served as the Prometheus text format
  // (kube::kMetricsContentType). Unset: /metrics is 404, as any unknown path.
  std::function<std::string()> metrics;
  // Every request on a resource is logged here once answered (audit_log.h), under the
  // Impersonate-User header's identity, else `audit_user` (the audit log does not take the user
  // that `authentication` below gives: a fixed identity stands for it). Unset: no audit log.
  AuditLog* audit = nullptr;
  std::string audit_user = "system:admin";
  // Who may do what, checked before a request is routed (auth_filter.cc): its user from the
  // Authorization header (authentication.h; 401 without a valid token), impersonation (kubectl
  // --as), then the authorizer (rbac.h; 403 with kube-apiserver's Forbidden body, the escalation
  // checks on RBAC writes). SubjectAccessReviews and SelfSubjectAccessReviews are answered by the
  // same authorizer, SelfSubjectReview with the request's user. Unset authentication: every request
  // is anonymous and a superuser (below). Unset authorizer: every request is allowed and every access
  // review answers allowed. The authorizer is used inside the executor and must outlive the server.
  // Without authentication a request is system:anonymous in system:unauthenticated and
  // system:masters (allowed everything; impersonation with kubectl --as is then how to ask as
  // someone else).
  std::shared_ptr<const Authentication> authentication;
  const rbac::Authorizer* authorizer = nullptr;
  // Issues the tokens of the TokenRequest subresource (serviceaccounts/NAME/token, `kubectl create
  // token`) and recognizes them in the Authorization header, with or without `authentication`
  // (service_account_tokens.h). Unset: serviceaccounts/NAME/token answers 404.
  std::shared_ptr<ServiceAccountTokens> service_account_tokens;
};

class HttpServer {
 public:
  // `store` must outlive the server.
  HttpServer(Store& store, HttpServerOptions options);
  ~HttpServer();  // Stop()
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Hooks. REQUIRES: called before Start().
  // Table rows for a resource (any name the registry resolves), replacing the default.
  void SetTableConverter(const std::string& resource, TableConverter converter);
  // The OpenAPI v3 schema of a resource's kind, published in /openapi/v3 (for `kubectl explain`).
  // Without one a kind is published with a schema that accepts anything.
  void SetOpenApiSchema(const std::string& resource, kube::Json schema);

  // Binds and starts serving on a thread of its own. Error when the address cannot be bound.
  kube::Status Start();
  // Stops accepting, ends every open watch and log stream, and joins every thread. Idempotent.
  void Stop();
  // Answers one request in process, as a connection's handler does once cpp-httplib has read it:
  // `req.method`, `req.path` (percent-decoded), `req.params` (the query), `req.headers` and
  // `req.body`. Needs no Start(). A watch or a followed log comes back as `res`'s chunked content
  // provider, for the caller to pull; destroying `res` ends it.
  void Serve(const httplib::Request& req, httplib::Response& res);
  // The bound port (after Start), and "http://address:port".
  int port() const;
  std::string url() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace fakeapi
