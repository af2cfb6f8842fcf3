// The HttpServer serves a Store over HTTP/1.1 with the Kubernetes REST protocol, well enough for
// real kubectl (1.27-1.33) and for any client written against kube-apiserver: version, legacy
// discovery, OpenAPI v3 (so that `kubectl create/apply` validate), list/get as objects or as
// server-side Tables, watch as a chunked stream (Tables too), create, update, the four patch types,
// delete with propagation, pods/log, and every error as a metav1.Status. See
// shared/reference/kubectl-surface.md for what kubectl needs and why.
//
// It is generic: it knows the kinds only through the store's Registry. Anything specific to a
// deployment comes in through hooks: Table converters per resource, OpenAPI schemas per resource,
// a provider of container logs, a YAML decoder (fakeapi has no YAML parser of its own) and an
// executor that serialises store access with whatever else drives the store (the simulator).
//
// Patch semantics (documented departures from kube-apiserver):
// - application/merge-patch+json: RFC 7386, exactly.
// - application/strategic-merge-patch+json: a merge patch in which lists whose elements all carry
//   a merge key (name, containerPort, port, mountPath, devicePath, ip, type) merge element by
//   element, elements with "$patch": "delete" are removed, "$deleteFromPrimitiveList/<field>"
//   removes values, and other "$" directives are ignored; every other list is replaced. That is
//   what kubectl's three-way patches of built-in kinds need.
// - application/apply-patch+yaml (server-side apply): creates the object when absent, else merges
//   the applied configuration in (strategic for built-in kinds, RFC 7386 for custom resources).
//   There is no field ownership: no managedFields, never a 409 conflict between managers, and a
//   field left out of a later apply is kept rather than removed.
// - application/json-patch+json: RFC 6902.
//
// Watches: one JSON object per event, newline-separated, chunked; a quiet stream gets a single
// newline every `watch_keepalive` of wall time, which JSON stream decoders skip as whitespace and
// which lets the server notice a client that went away. `timeoutSeconds` ends a stream after that
// much wall time. Responses are never compressed (a compressed watch would be held back in the
// compressor's buffer).
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
#pragma once

#include "fakeapi/client/clock.h"
#include "fakeapi/client/status.h"
#include "fakeapi/server/table.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace fakeapi {

class Store;

// A container's log, as the provider knows it.
struct ContainerLog {
  std::vector<std::string> lines;
  bool finished = true;  // the container will write no more (ends a `follow` stream)
};
// Called inside the executor with the pod as stored and a container name the server checked is in
// its spec. An error Status goes to the client as is (e.g. BadRequest "... is waiting to start").
using LogsProvider = std::function<kube::Result<ContainerLog>(const nlohmann::json& pod, const std::string& container,
                                                        bool previous)>;

// Runs `work` with the store to itself (e.g. under the lock the simulation holds while it steps).
using Executor = std::function<void(const std::function<void()>& work)>;
// YAML (one document) to JSON, for application/yaml and apply-patch+yaml bodies that are not JSON.
// An error Status (BadRequest) when the text is not valid YAML.
using YamlDecoder = std::function<kube::Result<nlohmann::json>(std::string_view text)>;

struct HttpServerOptions {
  std::string address = "127.0.0.1";
  int port = 0;                              // 0 = a free port, chosen by the kernel
  std::size_t max_body_bytes = 3 * 1024 * 1024;  // kube-apiserver's request limit; 413 above
  std::size_t max_connections = 512;         // open connections, each on a thread (see http_listener.h)
  std::size_t max_watches = 256;             // open watch and followed-log streams; past it 429
  kube::Micros request_timeout = 30 * kube::kSecond;  // wall time for a request to arrive whole
  kube::Micros idle_timeout = 90 * kube::kSecond;     // a kept-alive connection without a request
  kube::Micros watch_keepalive = 1 * kube::kSecond;      // wall time
  kube::Micros log_poll = 200 * kube::kMillisecond;      // wall time between looks at a followed log
  std::string git_version = "v1.32.0-fakeapi";  // kubectl's dispatcher picks its client by minor
  const kube::Clock* clock = nullptr;              // required: the store's clock (ages, Table rows)
  Executor executor;                         // unset: a mutex of the server's own
  LogsProvider logs;                         // unset: every container's log is empty
  YamlDecoder yaml;                          // unset: only JSON bodies are accepted
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
  void SetOpenApiSchema(const std::string& resource, nlohmann::json schema);

  // Binds and starts serving on a thread of its own. Error when the address cannot be bound.
  kube::Status Start();
  // Stops accepting, ends every open watch and log stream, and joins every thread. Idempotent.
  void Stop();
  // The bound port (after Start), and "http://address:port".
  int port() const;
  std::string url() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace fakeapi
