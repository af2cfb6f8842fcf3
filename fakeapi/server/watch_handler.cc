// Watches over HTTP: a chunked stream of JSON events, one per line, as kube-apiserver writes them.
// A resourceVersion older than the history is answered 200 with one ERROR event carrying the 410
// Status (what client-go's reflector and the Python client's watch expect); one newer than the
// store is waited for up to 3 s, then 504. With allowWatchBookmarks a BOOKMARK goes out every
// `bookmark_interval`; sendInitialEvents ends the initial ADDED events with the initial-events-end
// bookmark (in the store). Events come as the client asked: objects, Tables or PartialObjectMetadata.
#include "fakeapi/server/event_conversion.h"
#include "fakeapi/server/http_server_impl.h"
#include "fakeapi/server/table.h"
#include "fakeapi/server/wire.h"

#include <chrono>
#include <optional>

namespace fakeapi {

using json = kube::Json;
using SteadyClock = std::chrono::steady_clock;

struct HttpServer::Impl::WatchState {
  std::shared_ptr<kube::WatchStream> stream;
  Target target;
  Representation rep;
  std::string include;  // includeObject
  bool bookmarks = false;
  std::optional<SteadyClock::time_point> deadline;
  SteadyClock::time_point last_write;
  SteadyClock::time_point next_bookmark;
};

namespace {

// A stream that is nothing but the ERROR event of a watch the store refused as expired.
std::shared_ptr<std::string> ExpiredStream(const kube::Status& status) {
  json event = {{"type", "ERROR"}, {"object", status.ToJson()}};
  return std::make_shared<std::string>(wire::Dump(event) + "\n");
}

}  // namespace

void HttpServer::Impl::Watch(const httplib::Request& req, httplib::Response& res, const Target& t) {
  auto opts = WatchOptionsOf(req, t.ns);
  if (!opts.ok()) return SendStatus(res, opts.status());
  auto rep = NegotiateRepresentation(req.get_header_value("Accept"), true, true);
  if (!rep.ok()) return SendStatus(res, rep.status());
  kube::WatchOptions watch_options = *opts;
  if (t.resource->serving == Serving::kEventsView) watch_options.field_selector = EventsV1FieldSelectorToCore(watch_options.field_selector);
  auto state = std::make_shared<WatchState>();
  state->target = t;
  state->rep = *rep;
  state->include = req.get_param_value("includeObject");
  state->bookmarks = watch_options.allow_bookmarks;
  if (req.has_param("timeoutSeconds")) {
    auto secs = wire::ParseInt(req.get_param_value("timeoutSeconds"));
    if (!secs || *secs < 0) return SendStatus(res, kube::Status::BadRequest("timeoutSeconds must be a non-negative integer"));
    if (*secs > 0) state->deadline = SteadyClock::now() + std::chrono::seconds(*secs);
  }
  if (!AdmitLongRunning(res)) return;
  kube::Status failed = RunFresh([&] {
    auto watch = store.Watch(t.type->QualifiedName(), watch_options);
    if (!watch.ok()) return watch.status();
    state->stream = *watch;
    return kube::Status::Ok();
  });
  if (failed.IsExpired()) {
    EndLongRunning();
    auto body = ExpiredStream(failed);
    res.status = 200;
    res.set_chunked_content_provider(wire::kJson, [body](std::size_t, httplib::DataSink& sink) {
      if (!sink.write(body->data(), body->size())) return false;
      sink.done();
      return true;
    });
    return;
  }
  if (!failed.ok()) {
    EndLongRunning();
    return SendStatus(res, Qualify(failed, t));
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
  state->next_bookmark = state->last_write + std::chrono::microseconds(options.bookmark_interval);
  res.status = 200;
  res.set_chunked_content_provider(
      rep->content_type(), [this, state](std::size_t, httplib::DataSink& sink) { return PumpWatch(*state, sink); },
      [this, state](bool) {
        state->stream->Stop();
        std::lock_guard<std::mutex> lock(streams_mu);
        streams.erase(state->stream);
        if (long_running > 0) --long_running;
      });
}

json HttpServer::Impl::EventJson(const WatchState& state, const kube::WatchEvent& e) {
  json out = {{"type", kube::WatchEventTypeName(e.type)}};
  const Target& t = state.target;
  if (!e.object) {
    out["object"] = json::object();
  } else if (e.type == kube::WatchEventType::kError) {
    out["object"] = *e.object;
  } else if (state.rep.form == Representation::Form::kTable) {
    out["object"] = BuildTable(ConverterFor(*t.type), {e.object}, kube::ResourceVersionOf(*e.object), state.rep.version,
                               state.include, Now());
  } else {
    out["object"] = Represent(t, state.rep, *e.object);
  }
  return out;
}

// One turn of a watch stream: write what is queued (a bookmark first when one is due), or wait for
// it up to the keep-alive. Returning false (a failed write: the client went away) ends the
// connection.
bool HttpServer::Impl::PumpWatch(WatchState& state, httplib::DataSink& sink) {
  std::vector<kube::WatchEvent> events;
  if (state.bookmarks && SteadyClock::now() >= state.next_bookmark) {
    Run([&] { store.Bookmark(state.stream); });
    state.next_bookmark = SteadyClock::now() + std::chrono::microseconds(options.bookmark_interval);
  }
  bool open = state.stream->Poll(&events);
  const auto keepalive = std::chrono::microseconds(std::max<kube::Micros>(options.watch_keepalive, kube::kMillisecond));
  if (events.empty() && open && !stopping) {
    auto until = state.last_write + keepalive;
    if (state.deadline) until = std::min(until, *state.deadline);
    if (state.bookmarks) until = std::min(until, state.next_bookmark);
    auto wait = std::chrono::duration_cast<std::chrono::microseconds>(until - SteadyClock::now());
    if (wait.count() > 0) state.stream->Wait(wait.count());
    open = state.stream->Poll(&events);
  }
  const auto now = SteadyClock::now();
  if (!events.empty()) {
    std::string out;
    Run([&] {
      for (const kube::WatchEvent& e : events) {
        // kubectl prints every event of a Table watch as a row: a bookmark would be a blank one.
        if (e.type == kube::WatchEventType::kBookmark && state.rep.form == Representation::Form::kTable) continue;
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
