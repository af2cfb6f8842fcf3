// The HttpServer's lifecycle: its listener, handlers and limits. See http_server.h for the
// contract; routing.cc, representation.cc and the *_handler(s).cc files serve the requests.
#include "fakeapi/server/http_server.h"

#include "fakeapi/server/http_server_impl.h"
#include "fakeapi/server/wire.h"

#include <algorithm>
#include <chrono>
#include <csignal>

namespace fakeapi {

using json = kube::Json;
using wire::Dump;
using wire::kJson;

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

HttpServer::HttpServer(Store& store, HttpServerOptions options) : impl_(std::make_unique<Impl>(store, std::move(options))) {}

HttpServer::~HttpServer() { Stop(); }

void HttpServer::SetTableConverter(const std::string& resource, TableConverter converter) {
  const kube::ResourceType* type = impl_->store.registry().Find(resource);
  impl_->converters[type ? type->QualifiedName() : resource] = std::move(converter);
}

void HttpServer::SetOpenApiSchema(const std::string& resource, kube::Json schema) {
  const kube::ResourceType* type = impl_->store.registry().Find(resource);
  impl_->schemas[type ? type->QualifiedName() : resource] = std::move(schema);
}

bool HttpServer::Impl::AdmitLongRunning(httplib::Response& res) {
  std::lock_guard<std::mutex> lock(streams_mu);
  if (long_running >= options.max_watches) {
    res.set_header("Retry-After", "1");
    SendStatus(res, kube::Status::TooManyRequests("Too many requests, please try again later."));
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

void HttpServer::Serve(const httplib::Request& req, httplib::Response& res) { impl_->Handle(req, res); }

int HttpServer::port() const { return impl_->bound_port; }

std::string HttpServer::url() const { return "http://" + impl_->options.address + ":" + std::to_string(impl_->bound_port); }

}  // namespace fakeapi
