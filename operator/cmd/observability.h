// What dgl-operator offers the people who run it (docs/observability.md is the user's page):
//
// Logs (--log-format text|json), one line per event on stderr:
//   text: "2026-12-07T19:51:07.123456Z create pods default/j-launcher: ok (DGLJob default/j)"
//   json: {"ts":"2026-12-07T19:51:07.123456Z","level":"info","logger":"dgl-operator",
//          "msg":"create pods default/j-launcher: ok","controller":"dgljob",
//          "DGLJob":{"name":"j","namespace":"default"},"namespace":"default","name":"j"}
//   controller-runtime's zap keys: ts (RFC 3339, microseconds, UTC, from the process's clock),
//   level (info or error), logger, msg, error (the failure, on error lines); on lines about a
//   DGLJob the controller and the job both as controller-runtime's reconciler logger puts them
//   (the "DGLJob" object and flat namespace/name, for jq and for log pipelines that index flat keys).
//
// The observability server (--metrics-bind-address, --health-probe-bind-address; "0" turns one off,
// ":8080" is every interface, port 0 a free port; both may share one address):
//   GET /metrics  the registry's text exposition (Prometheus text format 0.0.4);
//   GET /healthz  200 "ok" while the process serves (liveness);
//   GET /readyz   200 "ok" while waiting for the Lease (a standby replica is ready to take over) and
//                 once every informer has listed; 500 with "[-]informers failed: ..." before that.
//   ?verbose on either lists the checks ("[+]ping ok", "[+]informers ok").
//
// Thread model: the servers answer on threads of their own; they read the ProbeState (atomics and
// a mutex) and the registry (thread-safe). The controller's thread sets the ProbeState.
#pragma once

#include "clock/clock.h"
#include "fakeapi/client/metrics.h"
#include "fakeapi/client/status.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace dgl_operator {

enum class LogFormat { kText, kJson };
std::optional<LogFormat> ParseLogFormat(const std::string& text);

struct LogLine {
  bool error = false;    // level "error" (else "info")
  std::string msg;
  std::string job_key;   // "ns/name" of the DGLJob the line is about, "" for none
  std::string failure;   // the error's text on error lines ("" for none)
};
// One line, without the newline.
std::string FormatLogLine(LogFormat format, kube::Micros now, const LogLine& line);

// What the probes answer.
class ProbeState {
 public:
  enum class Phase { kStarting, kCandidate, kSyncing, kSynced };
  void Set(Phase phase, std::string detail = "");
  // 200 and "ok", or 500 and the failed check (verbose: every check).
  std::pair<int, std::string> Readyz(bool verbose) const;
  std::pair<int, std::string> Healthz(bool verbose) const;

 private:
  mutable std::mutex mu_;
  Phase phase_ = Phase::kStarting;
  std::string detail_;
};

// An address as controller-runtime's --*-bind-address takes it: "0" (off), ":8080", "host:port".
struct BindAddress {
  std::string host;
  int port = 0;
};
// nullopt with `error` set for a bad address; a BindAddress with port -1 for "0" (off).
std::optional<BindAddress> ParseBindAddress(const std::string& text, std::string* error);

// Serves /metrics and/or the probes on one or two addresses.
class ObservabilityServer {
 public:
  ObservabilityServer(const kube::MetricsRegistry& registry, const ProbeState& probes);
  ~ObservabilityServer();  // Stop()
  ObservabilityServer(const ObservabilityServer&) = delete;
  ObservabilityServer& operator=(const ObservabilityServer&) = delete;

  // Binds (metrics and probes on one listener when the addresses are equal); the URLs bound, for
  // the log. Error when an address cannot be bound.
  kube::Status Start(const BindAddress& metrics, const BindAddress& probes, std::vector<std::string>* urls);
  void Stop();

 private:
  struct Listener;
  const kube::MetricsRegistry& registry_;
  const ProbeState& probes_;
  std::vector<std::unique_ptr<Listener>> listeners_;
};

}  // namespace dgl_operator
