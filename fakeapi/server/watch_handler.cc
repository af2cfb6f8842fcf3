// Watches over HTTP: a chunked stream of JSON events, one per line, as kube-apiserver writes them.
#include "fakeapi/server/http_server_impl.h"
#include "fakeapi/server/table.h"
#include "fakeapi/server/wire.h"

#include <chrono>
#include <optional>

namespace fakeapi {

using nlohmann::json;
using SteadyClock = std::chrono::steady_clock;

struct HttpServer::Impl::WatchState {
  std::shared_ptr<kube::WatchStream> stream;
  const kube::ResourceType* type = nullptr;
  std::string table;    // "" = objects, else the Table version
  std::string include;  // includeObject
  std::optional<SteadyClock::time_point> deadline;
  SteadyClock::time_point last_write;
};

void HttpServer::Impl::Watch(const httplib::Request& req, httplib::Response& res, const Target& t) {
  kube::WatchOptions opts;
  opts.namespace_ = t.ns;
  opts.label_selector = req.get_param_value("labelSelector");
  opts.field_selector = req.get_param_value("fieldSelector");
  opts.resource_version = req.get_param_value("resourceVersion");
  opts.allow_bookmarks = wire::Truthy(req.get_param_value("allowWatchBookmarks"));
  auto state = std::make_shared<WatchState>();
  state->type = t.type;
  state->table = TableVersion(req);
  state->include = req.get_param_value("includeObject");
  if (req.has_param("timeoutSeconds")) {
    auto secs = wire::ParseInt(req.get_param_value("timeoutSeconds"));
    if (!secs || *secs < 0) return SendStatus(res, kube::Status::BadRequest("timeoutSeconds must be a non-negative integer"));
    if (*secs > 0) state->deadline = SteadyClock::now() + std::chrono::seconds(*secs);
  }
  if (!AdmitLongRunning(res)) return;
  kube::Status failed;
  Run([&] {
    auto watch = store.Watch(t.type->QualifiedName(), opts);
    if (!watch.ok()) {
      failed = watch.status();
      return;
    }
    state->stream = *watch;
  });
  if (!failed.ok()) {
    EndLongRunning();
    return SendStatus(res, failed);
  }
  {
    std::lock_guard<std::mutex> lock(streams_mu);
    if (stopping) {
      state->stream->Stop();
      if (long_running > 0) --long_running;
      return SendStatus(res, wire::MakeStatus(503, "ServiceUnavailable", "the server is shutting down"));
    }
    streams.insert(state->stream);
  }
  state->last_write = SteadyClock::now();
  res.status = 200;
  res.set_chunked_content_provider(
      wire::kJson, [this, state](std::size_t, httplib::DataSink& sink) { return PumpWatch(*state, sink); },
      [this, state](bool) {
        state->stream->Stop();
        std::lock_guard<std::mutex> lock(streams_mu);
        streams.erase(state->stream);
        if (long_running > 0) --long_running;
      });
}

json HttpServer::Impl::EventJson(const WatchState& state, const kube::WatchEvent& e) {
  json out = {{"type", kube::WatchEventTypeName(e.type)}};
  if (!e.object) {
    out["object"] = json::object();
  } else if (!state.table.empty() && (e.type == kube::WatchEventType::kAdded || e.type == kube::WatchEventType::kModified ||
                                      e.type == kube::WatchEventType::kDeleted)) {
    out["object"] = BuildTable(ConverterFor(*state.type), {e.object}, kube::ResourceVersionOf(*e.object), state.table,
                               state.include, Now());
  } else {
    out["object"] = *e.object;
  }
  return out;
}

// One turn of a watch stream: write what is queued, or wait for it up to the keep-alive.
// Returning false (a failed write: the client went away) ends the connection.
bool HttpServer::Impl::PumpWatch(WatchState& state, httplib::DataSink& sink) {
  std::vector<kube::WatchEvent> events;
  bool open = state.stream->Poll(&events);
  const auto keepalive = std::chrono::microseconds(std::max<kube::Micros>(options.watch_keepalive, kube::kMillisecond));
  if (events.empty() && open && !stopping) {
    auto wait = std::chrono::duration_cast<std::chrono::microseconds>(state.last_write + keepalive - SteadyClock::now());
    if (state.deadline)
      wait = std::min(wait, std::chrono::duration_cast<std::chrono::microseconds>(*state.deadline - SteadyClock::now()));
    if (wait.count() > 0) state.stream->Wait(wait.count());
    open = state.stream->Poll(&events);
  }
  const auto now = SteadyClock::now();
  if (!events.empty()) {
    std::string out;
    Run([&] {
      for (const kube::WatchEvent& e : events) {
        if (e.type == kube::WatchEventType::kBookmark && !state.table.empty()) continue;
        out += wire::Dump(EventJson(state, e));
        out += '\n';
      }
    });
    if (!out.empty()) {
      if (!sink.write(out.data(), out.size())) return false;
      state.last_write = now;
    }
  } else if (open && now - state.last_write >= keepalive) {
    if (!sink.write("\n", 1)) return false;
    state.last_write = now;
  }
  if (!open || stopping || (state.deadline && now >= *state.deadline)) sink.done();
  return true;
}


}  // namespace fakeapi
