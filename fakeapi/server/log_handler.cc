// pods/log over HTTP: the simulated container's log lines from the provider, with tailLines,
// previous and follow (a chunked stream of new lines until the container finishes).
#include "fakeapi/client/json_path.h"
#include "fakeapi/server/http_server_impl.h"
#include "fakeapi/server/wire.h"

#include <algorithm>
#include <chrono>
#include <optional>

namespace fakeapi {

using json = kube::Json;

namespace {


}  // namespace

void HttpServer::Impl::Logs(const httplib::Request& req, httplib::Response& res, const Target& t) {
  const bool previous = wire::Truthy(req.get_param_value("previous"));
  const bool follow = wire::Truthy(req.get_param_value("follow"));
  std::optional<std::int64_t> tail;
  if (req.has_param("tailLines")) {
    tail = wire::ParseInt(req.get_param_value("tailLines"));
    if (!tail || *tail < 0) return SendStatus(res, kube::Status::BadRequest("tailLines must be a non-negative integer"));
  }
  std::string container = req.get_param_value("container");
  kube::Status failed;
  ContainerLog log;
  Run([&] {
    auto pod = store.Get("pods", t.ns, t.name);
    if (!pod.ok()) {
      failed = pod.status();
      return;
    }
    std::vector<std::string> names;
    for (const char* list : {"initContainers", "containers"})
      for (const json& c : kube::JsonArray(**pod, {"spec", list})) names.push_back(kube::JsonString(c, {"name"}));
    const json& app = kube::JsonArray(**pod, {"spec", "containers"});
    if (container.empty()) {
      if (app.size() != 1) {
        std::string choices;
        for (const json& c : app) choices += (choices.empty() ? "" : " ") + kube::JsonString(c, {"name"});
        failed = kube::Status::BadRequest("a container name must be specified for pod " + t.name + ", choose one of: [" + choices + "]");
        return;
      }
      container = kube::JsonString(app[0], {"name"});
    } else if (std::find(names.begin(), names.end(), container) == names.end()) {
      failed = kube::Status::BadRequest("container " + container + " is not valid for pod " + t.name);
      return;
    }
    if (!options.logs) return;
    auto got = options.logs(**pod, container, previous);
    if (!got.ok()) {
      failed = got.status();
      return;
    }
    log = std::move(got.value());
  });
  if (!failed.ok()) return SendStatus(res, failed);
  std::size_t from = 0;
  if (tail && static_cast<std::size_t>(*tail) < log.lines.size()) from = log.lines.size() - static_cast<std::size_t>(*tail);
  std::string text;
  for (std::size_t i = from; i < log.lines.size(); ++i) text += log.lines[i] + "\n";
  if (!follow || log.finished || !options.logs) {
    res.status = 200;
    res.set_content(text, wire::kText);
    return;
  }
  FollowLog(res, t, container, previous, std::move(text), log.lines.size());
}

// Follow: what is there now, then every new line until the container finishes.
void HttpServer::Impl::FollowLog(httplib::Response& res, const Target& t, const std::string& container, bool previous,
                                 std::string text, std::size_t sent) {
  if (!AdmitLongRunning(res)) return;
  struct FollowState {
    std::string pending;
    std::size_t sent = 0;  // lines of the log already sent
    bool done = false;
  };
  auto state = std::make_shared<FollowState>();
  state->pending = std::move(text);
  state->sent = sent;
  const std::string ns = t.ns, pod_name = t.name;
  res.status = 200;
  auto provider = [this, state, ns, pod_name, container, previous](std::size_t, httplib::DataSink& sink) {
    if (!state->pending.empty()) {
      if (!sink.write(state->pending.data(), state->pending.size())) return false;
      state->pending.clear();
    }
    if (state->done || stopping) {
      sink.done();
      return true;
    }
    {
      std::unique_lock<std::mutex> lock(streams_mu);
      stop_cv.wait_for(lock, std::chrono::microseconds(std::max<kube::Micros>(options.log_poll, kube::kMillisecond)),
                       [&] { return stopping.load(); });
    }
    Run([&] {
      auto pod = store.Get("pods", ns, pod_name);
      if (!pod.ok()) {
        state->done = true;
        return;
      }
      auto got = options.logs(**pod, container, previous);
      if (!got.ok()) {
        state->done = true;
        return;
      }
      if (got->lines.size() < state->sent) state->sent = 0;  // a new run of the container
      for (std::size_t i = state->sent; i < got->lines.size(); ++i) state->pending += got->lines[i] + "\n";
      state->sent = got->lines.size();
      state->done = got->finished;
    });
    if (state->pending.empty() && !sink.is_writable()) return false;
    return true;
  };
  res.set_chunked_content_provider(wire::kText, provider, [this](bool) { EndLongRunning(); });
}

}  // namespace fakeapi
