// The Kubernetes REST protocol over a Store: the server's lifecycle, routing, request bodies and
// responses. See http_server.h for the contract; the comments here say why the wire details are
// what they are (most of them are what real kubectl insists on).
#include "fakeapi/server/http_server.h"

#include "fakeapi/server/discovery.h"
#include "fakeapi/server/http_server_impl.h"
#include "fakeapi/server/wire.h"

#include <algorithm>
#include <chrono>
#include <csignal>

namespace fakeapi {

using nlohmann::json;
using wire::Dump;
using wire::kJson;
using wire::kText;
using wire::MediaParams;
using wire::Split;

void HttpServer::Impl::Run(const std::function<void()>& work) {
  if (options.executor) {
    options.executor(work);
  } else {
    std::lock_guard<std::mutex> lock(own_mutex);
    work();
  }
}

void HttpServer::Impl::SendJson(httplib::Response& res, int code, const json& body) {
  res.status = code;
  res.set_content(Dump(body), kJson);
}

void HttpServer::Impl::SendStatus(httplib::Response& res, const kube::Status& status) {
  SendJson(res, status.code(), status.ToJson());
}

// The store names core and custom kinds alike by plural; kube-apiserver qualifies custom ones
// ("dgljobs.kubeflow.org \"x\" not found"), and kubectl prints the message as is.
kube::Status HttpServer::Impl::Qualify(const kube::Status& status, const kube::ResourceType& type) {
  if (type.group.empty() || (!status.IsNotFound() && !status.IsAlreadyExists() && !status.IsConflict())) return status;
  json j = status.ToJson();
  std::string message = j.value("message", "");
  const std::string needle = type.plural + " \"";
  auto at = message.find(needle);
  if (at != std::string::npos && (at == 0 || (at >= 3 && message.compare(at - 3, 3, "on ") == 0)))
    message.replace(at, type.plural.size(), type.QualifiedName());
  j["message"] = message;
  if (j.contains("details") && j["details"].is_object()) j["details"]["group"] = type.group;
  return kube::Status::FromJson(j);
}

const kube::ResourceType* HttpServer::Impl::TypeIn(const std::string& group, const std::string& version, const std::string& plural) const {
  for (const auto& t : store.registry().All())
    if (t->group == group && t->version == version && t->plural == plural) return t.get();
  return nullptr;
}

// Resolves ".../namespaces/{ns}/{plural}/{name}/{sub}" or ".../{plural}/{name}/{sub}" below a
// group-version. False when the path names nothing.
bool HttpServer::Impl::Resolve(const std::string& group, const std::string& version, const std::vector<std::string>& rest,
             Target* target) const {
  if (rest.empty()) return false;
  std::size_t at = 0;
  if (rest[0] == "namespaces" && rest.size() >= 3) {
    const kube::ResourceType* t = TypeIn(group, version, rest[2]);
    if (t && t->namespaced) {
      target->ns = rest[1];
      at = 2;
    }
  }
  target->type = TypeIn(group, version, rest[at]);
  if (!target->type) return false;
  if (rest.size() > at + 3) return false;
  if (rest.size() > at + 1) target->name = rest[at + 1];
  if (rest.size() > at + 2) target->subresource = rest[at + 2];
  // A single namespaced object is only reachable through its namespace.
  if (target->type->namespaced && at == 0 && !target->name.empty()) return false;
  if (!target->type->namespaced && at != 0) return false;
  return true;
}


const TableConverter& HttpServer::Impl::ConverterFor(const kube::ResourceType& type) {
  auto it = converters.find(type.QualifiedName());
  if (it == converters.end()) it = converters.emplace(type.QualifiedName(), DefaultTableConverter(type.plural)).first;
  return it->second;
}

std::string HttpServer::Impl::TableVersion(const httplib::Request& req) {
  for (const std::string& range : Split(req.get_header_value("Accept"), ',')) {
    auto p = MediaParams(range);
    if (p["as"] == "Table" && p["g"] == "meta.k8s.io" && (p["v"] == "v1" || p["v"] == "v1beta1")) return p["v"];
  }
  return "";
}

// JSON, or YAML when the content type says so (and for server-side apply, whose YAML body
// kubectl happens to write as JSON).
kube::Result<json> HttpServer::Impl::ParseBody(const httplib::Request& req, bool yaml_allowed) {
  const std::string type = MediaParams(req.get_header_value("Content-Type"))[""];
  const bool yaml = type == "application/yaml" || type == "application/apply-patch+yaml";
  if (!type.empty() && !yaml && type.find("json") == std::string::npos)
    return kube::Status::UnsupportedMediaType("the body of the request was in an unknown format - accepted media types include: "
                                        "application/json, application/yaml");
  if (req.body.empty()) return kube::Status::BadRequest("the request has no body");
  json parsed = json::parse(req.body, nullptr, /*allow_exceptions=*/false);
  if (!parsed.is_discarded()) return parsed;
  if (yaml && yaml_allowed && options.yaml) return options.yaml(req.body);
  // Say where, as a Go decoder would ("invalid character ... at offset N").
  try {
    json strict = json::parse(req.body);
    (void)strict;
  } catch (const json::parse_error& e) {
    return kube::Status::BadRequest(std::string("the body of the request could not be decoded: ") + e.what());
  }
  return kube::Status::BadRequest("the body of the request could not be decoded");
}

namespace {

// The Status for a request cpp-httplib could not read or route (an oversized or stalled body, a
// malformed request line).
kube::Status ReadFailureStatus(int code, std::size_t max_body_bytes) {
  switch (HttpListener::CurrentReadFailure()) {
    case ReadFailure::kTooLarge: code = 413; break;
    case ReadFailure::kTimedOut: code = 408; break;
    default: break;
  }
  switch (code) {
    case 413:
      return kube::Status::TooLarge("the request body is larger than the limit of " + std::to_string(max_body_bytes) + " bytes");
    case 408: return wire::MakeStatus(408, "Timeout", "the request did not arrive in time");
    case 404: return wire::PathNotFound();
    case 400: return kube::Status::BadRequest("the request could not be read");
    default: return wire::MakeStatus(code, code >= 500 ? "InternalError" : "BadRequest", "the request failed");
  }
}

}  // namespace

void HttpServer::Impl::Handle(const httplib::Request& req, httplib::Response& res) {
  // A chunked body is read to at most twice the limit (http_listener.h); it is held to the limit here.
  if (req.body.size() > options.max_body_bytes)
    return SendStatus(res, ReadFailureStatus(413, options.max_body_bytes));
  try {
    Dispatch(req, res);
  } catch (const std::exception& e) {
    SendStatus(res, kube::Status::Internal(e.what()));
  } catch (...) {
    SendStatus(res, kube::Status::Internal("unexpected error"));
  }
}

void HttpServer::Impl::Dispatch(const httplib::Request& req, httplib::Response& res) {
  std::vector<std::string> segs;
  for (auto& s : Split(req.path, '/'))
    if (!s.empty()) segs.push_back(s);
  const bool get = req.method == "GET" || req.method == "HEAD";
  if (segs.empty()) {
    if (!get) return SendStatus(res, wire::MethodNotAllowed());
    return SendJson(res, 200, {{"paths", {"/api", "/api/v1", "/apis", "/openapi/v2", "/openapi/v3", "/version", "/healthz"}}});
  }
  if (segs[0] == "healthz" || segs[0] == "readyz" || segs[0] == "livez") {
    res.status = 200;
    res.set_content("ok", kText);
    return;
  }
  if (segs[0] == "version" && segs.size() == 1) {
    if (!get) return SendStatus(res, wire::MethodNotAllowed());
    return SendJson(res, 200, VersionInfo(options.git_version));
  }
  if (segs[0] == "openapi") return OpenApi(req, res, segs);
  if (segs[0] != "api" && segs[0] != "apis") return SendStatus(res, wire::PathNotFound());
  DispatchApi(req, res, segs);
}

// /api[/v1[/...]] and /apis[/GROUP[/VERSION[/...]]]: discovery documents, then resources.
void HttpServer::Impl::DispatchApi(const httplib::Request& req, httplib::Response& res, const std::vector<std::string>& segs) {
  const bool get = req.method == "GET" || req.method == "HEAD";
  const kube::Registry& registry = store.registry();
  const bool core = segs[0] == "api";
  const std::size_t rest_at = core ? 2 : 3;
  if (segs.size() < rest_at && !get) return SendStatus(res, wire::MethodNotAllowed());
  if (core && segs.size() == 1) {
    return SendJson(res, 200, {{"kind", "APIVersions"}, {"versions", {"v1"}},
                               {"serverAddressByClientCIDRs", json::array({{{"clientCIDR", "0.0.0.0/0"},
                                                                            {"serverAddress", options.address + ":" + std::to_string(bound_port)}}})}});
  }
  if (!core && segs.size() == 1) return SendJson(res, 200, ApiGroupList(registry));
  if (!core && segs.size() == 2) {
    if (ServedVersions(registry, segs[1]).empty()) return SendStatus(res, wire::PathNotFound());
    return SendJson(res, 200, ApiGroup(registry, segs[1]));
  }
  const std::string group = core ? "" : segs[1];
  const std::string& version = segs[rest_at - 1];
  if (!ServesGroupVersion(registry, group, version)) return SendStatus(res, wire::PathNotFound());
  if (segs.size() == rest_at) {
    if (!get) return SendStatus(res, wire::MethodNotAllowed());
    return SendJson(res, 200, ApiResourceList(registry, group, version));
  }
  Target target;
  if (!Resolve(group, version, std::vector<std::string>(segs.begin() + rest_at, segs.end()), &target))
    return SendStatus(res, wire::PathNotFound());
  Resource(req, res, target);
}

void HttpServer::Impl::OpenApi(const httplib::Request&, httplib::Response& res, const std::vector<std::string>& segs) {
  const kube::Registry& registry = store.registry();
  if (segs.size() < 2 || segs[1] != "v3") {
    // /openapi/v2 is protobuf only in kubectl's eyes; a 404 makes it use v3.
    return SendStatus(res, wire::PathNotFound());
  }
  if (segs.size() == 2) return SendJson(res, 200, OpenApiV3Root(registry, schemas, options.git_version));
  std::string group, version;
  if (segs.size() == 4 && segs[2] == "api") {
    version = segs[3];
  } else if (segs.size() == 5 && segs[2] == "apis") {
    group = segs[3];
    version = segs[4];
  } else {
    return SendStatus(res, wire::PathNotFound());
  }
  if (!ServesGroupVersion(registry, group, version)) return SendStatus(res, wire::PathNotFound());
  SendJson(res, 200, OpenApiV3Document(registry, schemas, group, version, options.git_version));
}

void HttpServer::Impl::Resource(const httplib::Request& req, httplib::Response& res, const Target& t) {
  const std::string& m = req.method;
  const kube::ResourceType& type = *t.type;
  if (t.name.empty()) {
    if (m == "GET" || m == "HEAD") {
      if (wire::Truthy(req.get_param_value("watch"))) return Watch(req, res, t);
      return List(req, res, t);
    }
    if (m == "POST") {
      if (type.namespaced && t.ns.empty())
        return SendStatus(res, kube::Status::MethodNotAllowed("POST on " + type.plural + " needs a namespace in the path"));
      return Create(req, res, t);
    }
    return SendStatus(res, wire::MethodNotAllowed());
  }
  if (!t.subresource.empty() && t.subresource != "status" && !(t.subresource == "log" && type.group.empty() && type.plural == "pods"))
    return SendStatus(res, wire::PathNotFound());
  if (t.subresource == "log") {
    if (m != "GET") return SendStatus(res, kube::Status::MethodNotAllowed("pods/log only supports GET"));
    return Logs(req, res, t);
  }
  if (m == "GET" || m == "HEAD") return GetOne(req, res, t);
  if (m == "PUT") return Update(req, res, t);
  if (m == "PATCH") return Patch(req, res, t);
  if (m == "DELETE") {
    if (!t.subresource.empty()) return SendStatus(res, kube::Status::MethodNotAllowed("the status subresource cannot be deleted"));
    return Delete(req, res, t);
  }
  SendStatus(res, wire::MethodNotAllowed());
}

HttpServer::HttpServer(Store& store, HttpServerOptions options) : impl_(std::make_unique<Impl>(store, std::move(options))) {}

HttpServer::~HttpServer() { Stop(); }

void HttpServer::SetTableConverter(const std::string& resource, TableConverter converter) {
  const kube::ResourceType* type = impl_->store.registry().Find(resource);
  impl_->converters[type ? type->QualifiedName() : resource] = std::move(converter);
}

void HttpServer::SetOpenApiSchema(const std::string& resource, nlohmann::json schema) {
  const kube::ResourceType* type = impl_->store.registry().Find(resource);
  impl_->schemas[type ? type->QualifiedName() : resource] = std::move(schema);
}

bool HttpServer::Impl::AdmitLongRunning(httplib::Response& res) {
  std::lock_guard<std::mutex> lock(streams_mu);
  if (long_running >= options.max_watches) {
    res.set_header("Retry-After", "1");
    SendStatus(res, wire::MakeStatus(429, "TooManyRequests", "Too many requests, please try again later."));
    return false;
  }
  ++long_running;
  return true;
}

void HttpServer::Impl::EndLongRunning() {
  std::lock_guard<std::mutex> lock(streams_mu);
  if (long_running > 0) --long_running;
}


void HttpServer::Impl::InstallHandlers() {
  auto handler = [this](const httplib::Request& req, httplib::Response& res) {
    HttpListener::MarkHandling();
    Handle(req, res);
  };
  const std::string all = ".*";
  server->Get(all, handler);
  server->Post(all, handler);
  server->Put(all, handler);
  server->Patch(all, handler);
  server->Delete(all, handler);
  server->Options(all, [](const httplib::Request&, httplib::Response& res) { res.status = 204; });
  // Errors cpp-httplib produces itself (an oversized body, a malformed request) get a Status too.
  server->set_error_handler(httplib::Server::HandlerWithResponse([this](const httplib::Request&, httplib::Response& res) {
    if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
    kube::Status s = ReadFailureStatus(res.status, options.max_body_bytes);
    res.status = s.code();
    res.set_content(Dump(s.ToJson()), kJson);
    return httplib::Server::HandlerResponse::Handled;
  }));
  server->set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
    res.status = 500;
    res.set_content(Dump(kube::Status::Internal("unexpected error").ToJson()), kJson);
  });
}

kube::Status HttpServer::Start() {
  Impl& d = *impl_;
  if (d.started) return kube::Status::Ok();
  if (!d.options.clock) return kube::Status::BadRequest("HttpServerOptions.clock is required");
  // A client that goes away mid-write must cost an error return, not the process.
  std::signal(SIGPIPE, SIG_IGN);
  ListenerLimits limits;
  limits.max_connections = std::max<std::size_t>(d.options.max_connections, 1);
  // Headers (Go's default limit is 1 MiB) and twice the body, for chunked framing; the body itself
  // is held to max_body_bytes exactly once read.
  limits.max_request_bytes = (1 << 20) + 2 * d.options.max_body_bytes;
  limits.request_timeout = d.options.request_timeout;
  limits.idle_timeout = d.options.idle_timeout;
  d.server = std::make_unique<HttpListener>(limits);
  d.server->set_payload_max_length(d.options.max_body_bytes);
  // SO_REUSEADDR only: cpp-httplib's default SO_REUSEPORT would let a second server bind a port
  // already in use and take half its connections.
  d.server->set_socket_options([](socket_t sock) {
    int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  d.InstallHandlers();
  int port = d.options.port;
  if (port == 0) {
    port = d.server->bind_to_any_port(d.options.address);
    if (port < 0) return kube::Status::Internal("cannot bind to " + d.options.address);
  } else if (!d.server->bind_to_port(d.options.address, port)) {
    return kube::Status::Internal("cannot bind to " + d.options.address + ":" + std::to_string(port));
  }
  d.server->WidenBacklog();
  d.bound_port = port;
  d.started = true;
  d.listener_done = false;
  d.listener = std::thread([this] {
    impl_->server->listen_after_bind();
    impl_->listener_done = true;
  });
  // cpp-httplib's stop() does nothing until the accept loop runs: wait for it, so that a Stop()
  // right after Start() cannot miss it.
  while (!d.server->is_running() && !d.listener_done) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return kube::Status::Ok();
}

void HttpServer::Stop() {
  Impl& d = *impl_;
  if (!d.started) return;
  {
    std::lock_guard<std::mutex> lock(d.streams_mu);
    d.stopping = true;
    for (const auto& s : d.streams) s->Stop();
  }
  d.stop_cv.notify_all();
  d.server->stop();
  d.server->CloseAll();
  if (d.listener.joinable()) d.listener.join();
  d.started = false;
}

int HttpServer::port() const { return impl_->bound_port; }

std::string HttpServer::url() const { return "http://" + impl_->options.address + ":" + std::to_string(impl_->bound_port); }

}  // namespace fakeapi
