#include "operator/cmd/observability.h"

#include <httplib.h>
#include <nlohmann/json.hpp>

#include <thread>

namespace dgl_operator {

std::optional<LogFormat> ParseLogFormat(const std::string& text) {
  if (text == "text") return LogFormat::kText;
  if (text == "json") return LogFormat::kJson;
  return std::nullopt;
}

std::string FormatLogLine(LogFormat format, kube::Micros now, const LogLine& line) {
  const std::string ts = kube::FormatMicroTime(now);
  const std::size_t slash = line.job_key.find('/');
  const std::string ns = slash == std::string::npos ? "" : line.job_key.substr(0, slash);
  const std::string name = slash == std::string::npos ? line.job_key : line.job_key.substr(slash + 1);
  if (format == LogFormat::kText) {
    std::string out = ts + " " + line.msg;
    if (!line.failure.empty()) out += ": " + line.failure;
    if (!line.job_key.empty()) out += " (DGLJob " + line.job_key + ")";
    return out;
  }
  // Keys in the order zap writes them: time, level, logger, message, then the context.
  nlohmann::ordered_json j;
  j["ts"] = ts;
  j["level"] = line.error ? "error" : "info";
  j["logger"] = "dgl-operator";
  j["msg"] = line.msg;
  if (!line.job_key.empty()) {
    j["controller"] = "dgljob";
    j["controllerGroup"] = "kubeflow.org";
    j["controllerKind"] = "DGLJob";
    j["DGLJob"] = {{"name", name}, {"namespace", ns}};
    j["namespace"] = ns;
    j["name"] = name;
  }
  if (!line.failure.empty()) j["error"] = line.failure;
  // Invalid UTF-8 (an object name never has it, an error text might) is replaced, never thrown on.
  return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

// --- probes -------------------------------------------------------------------------------------

void ProbeState::Set(Phase phase, std::string detail) {
  std::lock_guard<std::mutex> lock(mu_);
  phase_ = phase;
  detail_ = std::move(detail);
}

std::pair<int, std::string> ProbeState::Healthz(bool verbose) const {
  return {200, verbose ? "[+]ping ok\nhealthz check passed\n" : "ok"};
}

std::pair<int, std::string> ProbeState::Readyz(bool verbose) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::string check;
  bool ok = true;
  switch (phase_) {
    case Phase::kStarting:
      ok = false;
      check = "[-]informers failed: not started";
      break;
    case Phase::kCandidate: check = "[+]informers ok (standby: waiting for the Lease)"; break;
    case Phase::kSyncing:
      ok = false;
      check = "[-]informers failed: not synced: " + detail_;
      break;
    case Phase::kSynced: check = "[+]informers ok"; break;
  }
  if (ok) return {200, verbose ? "[+]ping ok\n" + check + "\nreadyz check passed\n" : "ok"};
  return {500, "[+]ping ok\n" + check + "\nreadyz check failed\n"};
}

// --- addresses ----------------------------------------------------------------------------------

std::optional<BindAddress> ParseBindAddress(const std::string& text, std::string* error) {
  if (text == "0") return BindAddress{"", -1};
  const std::size_t colon = text.rfind(':');
  if (colon == std::string::npos) {
    *error = "\"" + text + "\" is not an address: \":PORT\", \"HOST:PORT\" or \"0\" to turn it off";
    return std::nullopt;
  }
  std::string host = text.substr(0, colon);
  const std::string port = text.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos ||
      std::stoi(port) > 65535) {
    *error = "\"" + text + "\": the port must be a number from 0 to 65535";
    return std::nullopt;
  }
  return BindAddress{host.empty() ? "0.0.0.0" : host, std::stoi(port)};
}

// --- server -------------------------------------------------------------------------------------

struct ObservabilityServer::Listener {
  httplib::Server server;
  std::thread thread;
};

ObservabilityServer::ObservabilityServer(const kube::MetricsRegistry& registry, const ProbeState& probes)
    : registry_(registry), probes_(probes) {}

ObservabilityServer::~ObservabilityServer() { Stop(); }

kube::Status ObservabilityServer::Start(const BindAddress& metrics, const BindAddress& probes,
                                        std::vector<std::string>* urls) {
  struct Want {
    BindAddress address;
    bool metrics;
    bool probes;
  };
  std::vector<Want> wants;
  const bool same = metrics.port >= 0 && metrics.port != 0 && metrics.host == probes.host && metrics.port == probes.port;
  if (same) {
    wants.push_back({metrics, true, true});
  } else {
    if (metrics.port >= 0) wants.push_back({metrics, true, false});
    if (probes.port >= 0) wants.push_back({probes, false, true});
  }
  for (const Want& want : wants) {
    auto l = std::make_unique<Listener>();
    if (want.metrics) {
      l->server.Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
        res.set_content(registry_.Expose(), kube::kMetricsContentType);
      });
    }
    if (want.probes) {
      auto probe = [this](bool ready) {
        return [this, ready](const httplib::Request& req, httplib::Response& res) {
          auto [code, body] = ready ? probes_.Readyz(req.has_param("verbose")) : probes_.Healthz(req.has_param("verbose"));
          res.status = code;
          res.set_content(body, "text/plain; charset=utf-8");
        };
      };
      l->server.Get("/healthz", probe(false));
      l->server.Get("/livez", probe(false));
      l->server.Get("/readyz", probe(true));
    }
    int port = want.address.port;
    if (port == 0) {
      port = l->server.bind_to_any_port(want.address.host);
    } else if (!l->server.bind_to_port(want.address.host, port)) {
      port = -1;
    }
    if (port <= 0)
      return kube::Status::BadRequest("cannot listen on " + want.address.host + ":" +
                                      std::to_string(want.address.port));
    const std::string url = "http://" + want.address.host + ":" + std::to_string(port);
    urls->push_back((want.metrics && want.probes ? "metrics and probes on " : want.metrics ? "metrics on " : "probes on ") + url);
    Listener* raw = l.get();
    l->thread = std::thread([raw] { raw->server.listen_after_bind(); });
    listeners_.push_back(std::move(l));
  }
  return kube::Status();
}

void ObservabilityServer::Stop() {
  for (auto& l : listeners_) {
    l->server.stop();
    if (l->thread.joinable()) l->thread.join();
  }
  listeners_.clear();
}

}  // namespace dgl_operator
