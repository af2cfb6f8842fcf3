// dgl-operator: the DGL Operator as a process, against any Kubernetes API server.
//
//   dgl-operator [--server URL | --kubeconfig FILE [--context NAME]] [--namespace NS] [--resync 30s] ...
//   dgl-operator crd          prints the DGLJob CustomResourceDefinition (deploy/crd.yaml)
//
// --kubeconfig reads the server, CA and token of a kubeconfig's context (operator/cmd/kubeconfig.h);
// --server, --token, --token-file, --certificate-authority and --insecure-skip-tls-verify override
// them. Without either it runs in-cluster: https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT
// with the pod's service-account token and CA.
//
// The controller (informers, work queue, reconciler) is the one the simulator hosts; here it runs in
// wall-clock time on the main thread: pump the informers, reconcile every ready key, then sleep
// until the controller's next wake time, the next periodic resync, a watch event (the watch reader
// threads notify a condition variable) or SIGTERM/SIGINT. Errors back off per key in the work
// queue; failed lists and watches are retried by the informers. One line per API write and per
// failed reconcile goes to stderr. Every write carries fieldManager=dgl-operator.
//
// --leader-elect: several replicas run; only the one holding the coordination.k8s.io Lease
// (--leader-elect-resource-namespace/--leader-elect-resource-name) starts its controller, the
// others wait and try every retry period (fakeapi/client/leader_election.h, with client-go's
// lease duration, renew deadline and retry period). A leader that cannot renew within the renew
// deadline exits 1 (its supervisor restarts it as a candidate); one stopped by SIGTERM releases
// the Lease first, so another replica takes over at its next try.
//
// Observability (operator/cmd/observability.h, docs/observability.md): --metrics-bind-address serves
// Prometheus metrics (controller-runtime's controller and work queue series, client-go's REST client
// and leader election series, DGLJob counters as the Kubeflow training operator names them),
// --health-probe-bind-address serves /healthz and /readyz (ready once the informers have listed, or
// while waiting for the Lease); --log-format json writes one JSON object per line.
//
// Exit codes: 0 after SIGTERM/SIGINT (or for `crd` and --help), 1 after losing leadership, 2 for
// bad flags or configuration.
#include "fakeapi/client/client.h"
#include "clock/clock.h"
#include "fakeapi/client/client_metrics.h"
#include "fakeapi/client/http_client.h"
#include "fakeapi/client/json.h"
#include "fakeapi/client/leader_election.h"
#include "operator/api/dgljob_api.h"
#include "operator/cmd/kubeconfig.h"
#include "operator/cmd/observability.h"
#include "operator/controller/controller.h"

#include <CLI/CLI.hpp>
#include <yaml-cpp/yaml.h>

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <condition_variable>
#include <cstdio>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>

namespace {

using kube::Micros;
using kube::ObjectPtr;
using kube::Result;
using json = kube::Json;

// --- crd: JSON as block YAML ----------------------------------------------------------------------

// A string that a YAML reader would take for something else (a number, a boolean, null) is quoted.
bool NeedsQuotes(const std::string& s) {
  if (s.empty()) return true;
  static const char* kWords[] = {"true", "false", "yes", "no", "on", "off", "null", "~", "True", "False", "Yes",
                                 "No", "On", "Off", "Null", "TRUE", "FALSE", "YES", "NO", "ON", "OFF", "NULL"};
  for (const char* w : kWords) {
    if (s == w) return true;
  }
  json number = json::parse(s, nullptr, /*allow_exceptions=*/false);
  return number.is_number();
}

void Emit(YAML::Emitter& out, const json& value) {
  switch (value.type()) {
    case json::value_t::object:
      if (value.empty()) {
        out << YAML::Flow << YAML::BeginMap << YAML::EndMap;
        return;
      }
      out << YAML::BeginMap;
      for (const auto& [key, item] : value.items()) {
        out << YAML::Key << key << YAML::Value;
        Emit(out, item);
      }
      out << YAML::EndMap;
      return;
    case json::value_t::array:
      if (value.empty()) {
        out << YAML::Flow << YAML::BeginSeq << YAML::EndSeq;
        return;
      }
      out << YAML::BeginSeq;
      for (const json& item : value) Emit(out, item);
      out << YAML::EndSeq;
      return;
    case json::value_t::string: {
      const std::string& s = value.get_ref<const std::string&>();
      if (NeedsQuotes(s)) out << YAML::DoubleQuoted;
      out << s;
      return;
    }
    case json::value_t::boolean: out << (value.get<bool>() ? "true" : "false"); return;
    case json::value_t::null: out << YAML::Null; return;
    default: out << value.dump(); return;  // numbers
  }
}

std::string ToYaml(const json& value) {
  YAML::Emitter out;
  out.SetIndent(2);
  Emit(out, value);
  return std::string(out.c_str()) + "\n";
}

// --- logging ------------------------------------------------------------------------------------

std::mutex log_mu;
dgl_operator::LogFormat log_format = dgl_operator::LogFormat::kText;

void Log(const kube::Clock& clock, const dgl_operator::LogLine& line) {
  std::lock_guard<std::mutex> lock(log_mu);
  std::cerr << dgl_operator::FormatLogLine(log_format, clock.Now(), line) << std::endl;
}

void Log(const kube::Clock& clock, const std::string& msg) { Log(clock, dgl_operator::LogLine{.msg = msg}); }

void LogError(const kube::Clock& clock, const std::string& msg, const std::string& failure,
              const std::string& job_key = "") {
  Log(clock, dgl_operator::LogLine{.error = true, .msg = msg, .job_key = job_key, .failure = failure});
}

// Forwards every call and logs each write with its outcome: one line per reconcile action.
class LoggingClient : public kube::Client {
 public:
  LoggingClient(kube::Client& inner, const kube::Clock& clock) : inner_(inner), clock_(clock) {}
  // Lines written during a reconcile name its DGLJob (nullptr: none).
  void SetController(const dgl::Controller* controller) { controller_ = controller; }

  Result<ObjectPtr> Create(const std::string& resource, json object, const std::string& ns) override {
    std::string key = (ns.empty() ? kube::NamespaceOf(object) : ns) + "/" + kube::NameOf(object);
    auto r = inner_.Create(resource, std::move(object), ns);
    Note("create", resource, key, r);
    return r;
  }
  Result<ObjectPtr> Get(const std::string& resource, const std::string& ns, const std::string& name) override {
    return inner_.Get(resource, ns, name);
  }
  Result<kube::ListResult> List(const std::string& resource, const kube::ListOptions& options) override {
    return inner_.List(resource, options);
  }
  Result<ObjectPtr> Update(const std::string& resource, json object) override {
    std::string key = kube::KeyOf(object);
    auto r = inner_.Update(resource, std::move(object));
    Note("update", resource, key, r);
    return r;
  }
  Result<ObjectPtr> UpdateStatus(const std::string& resource, json object) override {
    std::string key = kube::KeyOf(object);
    std::string phase;
    if (auto s = object.find("status"); s != object.end() && s->is_object()) phase = s->value("phase", "");
    auto r = inner_.UpdateStatus(resource, std::move(object));
    Note("update status" + (phase.empty() ? "" : " (phase " + phase + ")"), resource, key, r);
    return r;
  }
  Result<ObjectPtr> Patch(const std::string& resource, const std::string& ns, const std::string& name,
                          const json& patch, kube::PatchType type, const std::string& subresource) override {
    auto r = inner_.Patch(resource, ns, name, patch, type, subresource);
    Note(subresource.empty() ? "patch" : "patch " + subresource, resource, ns + "/" + name, r);
    return r;
  }
  Result<ObjectPtr> Delete(const std::string& resource, const std::string& ns, const std::string& name,
                           const kube::DeleteOptions& options) override {
    auto r = inner_.Delete(resource, ns, name, options);
    Note("delete", resource, ns + "/" + name, r);
    return r;
  }
  Result<kube::WatchPtr> Watch(const std::string& resource, const kube::WatchOptions& options) override {
    return inner_.Watch(resource, options);
  }

 private:
  void Note(const std::string& verb, const std::string& resource, const std::string& key, const Result<ObjectPtr>& r) {
    const std::string job = controller_ != nullptr ? controller_->reconciling() : "";
    if (r.ok()) {
      Log(clock_, dgl_operator::LogLine{.msg = verb + " " + resource + " " + key + ": ok", .job_key = job});
    } else {
      LogError(clock_, verb + " " + resource + " " + key, r.status().ToString(), job);
    }
  }
  kube::Client& inner_;
  const kube::Clock& clock_;
  const dgl::Controller* controller_ = nullptr;
};

// --- flags --------------------------------------------------------------------------------------

// "30s", "1m", "1m30s", "500ms", "2h", or a plain number of seconds.
std::optional<Micros> ParseDuration(const std::string& text) {
  if (text.empty()) return std::nullopt;
  if (text.find_first_not_of("0123456789") == std::string::npos) {
    if (text.size() > 9) return std::nullopt;
    return std::stoll(text) * kube::kSecond;
  }
  Micros total = 0;
  std::size_t i = 0;
  while (i < text.size()) {
    std::size_t start = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
    if (i == start || i - start > 9) return std::nullopt;
    const Micros n = std::stoll(text.substr(start, i - start));
    std::size_t unit_start = i;
    while (i < text.size() && (text[i] < '0' || text[i] > '9')) ++i;
    const std::string unit = text.substr(unit_start, i - unit_start);
    if (unit == "ms") {
      total += n * kube::kMillisecond;
    } else if (unit == "s") {
      total += n * kube::kSecond;
    } else if (unit == "m") {
      total += n * 60 * kube::kSecond;
    } else if (unit == "h") {
      total += n * 3600 * kube::kSecond;
    } else {
      return std::nullopt;
    }
  }
  return total;
}

struct Flags {
  std::string server;
  std::string kubeconfig;
  std::string context;
  std::string namespace_;
  std::string resync = "30s";
  int workers = 1;
  std::string token;
  std::string token_file;
  std::string ca_file;
  bool insecure = false;
  bool gang_scheduling = false;
  std::string gang_scheduler_name;
  std::string kubectl_download_image;
  std::string watcher_loop_image;
  bool leader_elect = false;
  std::string lease_duration = "15s";
  std::string renew_deadline = "10s";
  std::string retry_period = "2s";
  std::string lease_name = "dgl-operator";
  std::string lease_namespace;  // "" = $POD_NAMESPACE, else "default"
  std::string identity;         // "" = hostname_random
  std::string metrics_address = "0";
  std::string probe_address = "0";
  std::string log_format = "text";
};

// Everything the flags say, checked.
struct Settings {
  Micros resync = 0;
  kube::HttpClientOptions http;
  dgl::ControllerOptions controller;
  std::optional<kube::LeaderElectionConfig> election;
  dgl_operator::BindAddress metrics_address;
  dgl_operator::BindAddress probe_address;
};

// --- the loop -----------------------------------------------------------------------------------

// Wakes the loop: watch events (from reader threads), signals, shutdown.
struct Wakeup {
  std::mutex mu;
  std::condition_variable cv;
  bool pending = false;
  bool stop = false;
  int signal = 0;

  void Notify() {
    std::lock_guard<std::mutex> lock(mu);
    pending = true;
    cv.notify_one();
  }
  bool Stopping() {
    std::lock_guard<std::mutex> lock(mu);
    return stop;
  }
  // Sleeps until `wait` passes, a notification or a stop.
  void Sleep(Micros wait) {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait_for(lock, std::chrono::microseconds(wait), [&] { return pending || stop; });
    pending = false;
  }
};

constexpr const char* kInformed[] = {"dgljobs", "pods", "configmaps", "services", "serviceaccounts",
                                     "roles",   "rolebindings", "podgroups", "nodes"};

std::string DefaultIdentity() {
  char host[256] = {0};
  if (gethostname(host, sizeof host - 1) != 0 || host[0] == '\0') std::snprintf(host, sizeof host, "dgl-operator");
  std::random_device random;
  char suffix[17];
  std::snprintf(suffix, sizeof suffix, "%08x%08x", random(), random());
  return std::string(host) + "_" + suffix;
}

// The leader election flags, or a message saying what is wrong with them.
std::optional<kube::LeaderElectionConfig> ElectionFrom(const Flags& flags, std::string* error) {
  kube::LeaderElectionConfig c;
  auto lease = ParseDuration(flags.lease_duration), renew = ParseDuration(flags.renew_deadline),
       retry = ParseDuration(flags.retry_period);
  if (!lease || !renew || !retry) {
    *error = "--leader-elect-lease-duration, --leader-elect-renew-deadline and --leader-elect-retry-period take durations (e.g. 15s)";
    return std::nullopt;
  }
  c.lease_duration = *lease;
  c.renew_deadline = *renew;
  c.retry_period = *retry;
  c.lease_name = flags.lease_name;
  const char* pod_namespace = std::getenv("POD_NAMESPACE");
  c.lease_namespace = !flags.lease_namespace.empty() ? flags.lease_namespace
                      : pod_namespace && *pod_namespace ? pod_namespace : "default";
  c.identity = flags.identity.empty() ? DefaultIdentity() : flags.identity;
  if (kube::Status s = kube::ValidateLeaderElection(c); !s.ok()) {
    *error = "--leader-elect: " + s.message();
    return std::nullopt;
  }
  return c;
}

// The API server to talk to: --kubeconfig (with --server, --token, ... overriding its values, as
// kubectl does), else --server, else the in-cluster configuration.
std::optional<kube::HttpClientOptions> ConnectionFrom(const Flags& flags, std::string* error) {
  kube::HttpClientOptions options;
  if (!flags.kubeconfig.empty()) {
    if (!dgl::KubeconfigOptions(flags.kubeconfig, flags.context, &options, error)) return std::nullopt;
    if (!flags.server.empty()) options.server = flags.server;
    if (!flags.token.empty() || !flags.token_file.empty()) {
      options.bearer_token.clear();
      options.bearer_token_file.clear();
    }
    if (!flags.ca_file.empty()) options.ca_cert_pem.clear();
  } else if (!flags.context.empty()) {
    *error = "--context needs --kubeconfig";
    return std::nullopt;
  } else if (flags.server.empty()) {
    auto in_cluster = kube::InClusterOptions();
    if (!in_cluster.ok()) {
      *error = "no --server given and " + in_cluster.status().message();
      return std::nullopt;
    }
    options = std::move(in_cluster).value();
  } else {
    options.server = flags.server;
  }
  if (!flags.token.empty()) options.bearer_token = flags.token;
  if (!flags.token_file.empty()) options.bearer_token_file = flags.token_file;
  if (!flags.ca_file.empty()) options.ca_cert_file = flags.ca_file;
  if (flags.insecure) options.insecure_skip_tls_verify = true;
  // Every write the operator makes is its own in the server's field ownership (managedFields).
  options.field_manager = "dgl-operator";
  return options;
}

std::optional<Settings> SettingsFrom(const Flags& flags) {
  Settings s;
  std::string error;
  auto resync = ParseDuration(flags.resync);
  if (!resync || *resync <= 0) error = "--resync: not a positive duration: \"" + flags.resync + "\" (e.g. 30s, 5m)";
  else if (flags.workers < 1) error = "--workers must be >= 1";
  std::optional<kube::HttpClientOptions> http;
  if (error.empty()) http = ConnectionFrom(flags, &error);
  if (error.empty() && flags.leader_elect) s.election = ElectionFrom(flags, &error);
  if (error.empty()) {
    auto metrics = dgl_operator::ParseBindAddress(flags.metrics_address, &error);
    if (metrics) s.metrics_address = *metrics;
    else error = "--metrics-bind-address: " + error;
  }
  if (error.empty()) {
    auto probes = dgl_operator::ParseBindAddress(flags.probe_address, &error);
    if (probes) s.probe_address = *probes;
    else error = "--health-probe-bind-address: " + error;
  }
  if (!error.empty()) {
    std::cerr << "dgl-operator: " << error << "\n";
    return std::nullopt;
  }
  s.resync = *resync;
  s.http = std::move(*http);
  s.controller.namespace_ = flags.namespace_;
  s.controller.reconciler.build.gang_scheduling = flags.gang_scheduling;
  s.controller.reconciler.build.gang_scheduler_name = flags.gang_scheduler_name;
  if (!flags.kubectl_download_image.empty()) s.controller.reconciler.build.kubectl_download_image = flags.kubectl_download_image;
  if (!flags.watcher_loop_image.empty()) s.controller.reconciler.build.watcher_loop_image = flags.watcher_loop_image;
  return s;
}

// Signals are taken by one thread with sigwait(); every other thread (watch readers included)
// inherits the blocked mask, so no handler ever runs in the middle of the loop.
std::thread WatchSignals(Wakeup& wakeup) {
  static sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  return std::thread([&wakeup] {
    int sig = 0;
    sigwait(&signals, &sig);
    std::lock_guard<std::mutex> lock(wakeup.mu);
    wakeup.stop = true;
    wakeup.signal = sig;
    wakeup.cv.notify_one();
  });
}

// Logs an informer's error when it changes.
void ReportInformers(dgl::Controller& controller, const kube::Clock& clock, std::map<std::string, std::string>& seen) {
  for (const char* resource : kInformed) {
    kube::Informer* informer = controller.informer(resource);
    if (informer == nullptr) continue;
    const std::string error = informer->last_error().ok() ? "" : informer->last_error().ToString();
    if (error != seen[resource]) {
      if (error.empty()) Log(clock, std::string("informer ") + resource + ": recovered");
      else LogError(clock, std::string("informer ") + resource, error);
      seen[resource] = error;
    }
  }
}

// What the process shows of itself: its metrics and what its probes answer.
struct Observed {
  kube::MetricsRegistry metrics;
  dgl_operator::ProbeState probes;
};

// Probes: ready once every informer has listed; the detail names those that have not.
void ReportSync(dgl::Controller& controller, dgl_operator::ProbeState& probes) {
  if (controller.HasSynced()) {
    probes.Set(dgl_operator::ProbeState::Phase::kSynced);
    return;
  }
  std::string pending;
  for (const char* resource : kInformed) {
    kube::Informer* informer = controller.informer(resource);
    if (informer != nullptr && !informer->HasSynced()) pending += (pending.empty() ? "" : ", ") + std::string(resource);
  }
  probes.Set(dgl_operator::ProbeState::Phase::kSyncing, pending);
}

// Waits, trying every retry period, until this candidate leads (true) or a signal stops it (false).
bool AwaitLeadership(kube::LeaderElector& elector, const kube::Clock& clock, Wakeup& wakeup, Observed& observed) {
  const auto& c = elector.config();
  kube::SetLeaderStatus(observed.metrics, c.lease_name, false);
  observed.probes.Set(dgl_operator::ProbeState::Phase::kCandidate);
  Log(clock, "leader election: candidate " + c.identity + " for lease " + c.lease_namespace + "/" + c.lease_name);
  std::string reported;
  while (!wakeup.Stopping()) {
    if (elector.Step() == kube::LeaderElector::Event::kStartedLeading) {
      Log(clock, "leader election: became the leader");
      kube::SetLeaderStatus(observed.metrics, c.lease_name, true);
      return true;
    }
    const std::string now = elector.last_error().ok() ? "held by " + elector.observed_holder() : elector.last_error().ToString();
    if (now != reported) Log(clock, "leader election: waiting (" + now + ")");
    reported = now;
    wakeup.Sleep(c.retry_period);
  }
  return false;
}

// Reconciles until a signal (0) or, with an elector, until leadership is lost (1).
int ControllerLoop(dgl::Controller& controller, const kube::Clock& clock, Micros resync, Wakeup& wakeup,
                   kube::LeaderElector* elector, Observed& observed) {
  std::map<std::string, std::string> informer_errors;
  Micros next_resync = clock.Now() + resync;
  Micros next_renew = elector ? clock.Now() + elector->config().retry_period : 0;
  while (!wakeup.Stopping()) {
    if (elector && clock.Now() >= next_renew) {
      if (elector->Step() == kube::LeaderElector::Event::kStoppedLeading) {
        LogError(clock, "leader election: lost the lease; stopping", elector->last_error().ToString());
        kube::SetLeaderStatus(observed.metrics, elector->config().lease_name, false);
        return 1;
      }
      next_renew = clock.Now() + elector->config().retry_period;
    }
    // Reconcile what is ready; a long backlog still checks for shutdown every so often.
    for (int i = 0; i < 100; ++i) {
      const std::int64_t errors = controller.stats().errors;
      if (!controller.ProcessNext()) break;
      if (controller.stats().errors != errors)
        LogError(clock, "reconcile failed; retrying with back-off", controller.last_error().ToString(),
                 controller.last_error_key());
    }
    ReportInformers(controller, clock, informer_errors);
    ReportSync(controller, observed.probes);
    // controller-runtime's SyncPeriod: every job is reconciled again now and then, so a missed
    // event (or a change outside the operator's informers) is noticed.
    if (clock.Now() >= next_resync) {
      if (kube::Informer* jobs = controller.informer("dgljobs"))
        for (const ObjectPtr& job : jobs->List()) controller.queue().Add(kube::KeyOf(*job));
      next_resync = clock.Now() + resync;
      continue;
    }
    Micros wake = next_resync;
    if (auto next = controller.NextWakeTime()) wake = std::min(wake, *next);
    if (elector) wake = std::min(wake, next_renew);
    wakeup.Sleep(std::clamp<Micros>(wake - clock.Now(), kube::kMillisecond, resync));
  }
  return 0;
}

int RunOperator(const Flags& flags) {
  kube::SystemClock clock;
  std::optional<Settings> settings = SettingsFrom(flags);
  if (!settings) return 2;
  auto http = kube::HttpClient::Connect(settings->http);
  if (!http.ok()) {
    std::cerr << "dgl-operator: " << http.status().message() << "\n";
    return 2;
  }
  Observed observed;
  kube::MeasuredClient measured(**http, observed.metrics, clock, kube::HostOfUrl(settings->http.server));
  LoggingClient client(measured, clock);
  Wakeup wakeup;
  std::thread signal_thread = WatchSignals(wakeup);
  // After WatchSignals: the server's threads inherit the blocked signals.
  dgl_operator::ObservabilityServer server(observed.metrics, observed.probes);
  std::vector<std::string> serving;
  if (kube::Status s = server.Start(settings->metrics_address, settings->probe_address, &serving); !s.ok()) {
    std::cerr << "dgl-operator: " << s.message() << "\n";
    std::_Exit(2);
  }
  for (const std::string& line : serving) Log(clock, "serving " + line);
  Log(clock, "dgl-operator starting: server " + settings->http.server +
                 (flags.namespace_.empty() ? ", all namespaces" : ", namespace " + flags.namespace_) + ", resync " +
                 flags.resync + (settings->election ? ", leader election on" : ""));
  if (flags.workers > 1) {
    Log(clock, "--workers " + std::to_string(flags.workers) +
                   ": reconciles run one at a time on the controller thread (the controller is single-threaded by "
                   "design); extra workers are not started");
  }
  int exit_code = 0;
  std::optional<kube::LeaderElector> elector;
  // The elector's Lease writes are not reconciles: they bypass the write log.
  if (settings->election) elector.emplace(measured, clock, *settings->election);
  if (!elector || AwaitLeadership(*elector, clock, wakeup, observed)) {
    settings->controller.metrics = &observed.metrics;
    dgl::Controller controller(client, clock, settings->controller);
    client.SetController(&controller);
    controller.SetNotifier([&wakeup] { wakeup.Notify(); });
    observed.probes.Set(dgl_operator::ProbeState::Phase::kSyncing, "starting");
    if (kube::Status s = controller.Start(); !s.ok()) LogError(clock, "initial list failed, retrying", s.ToString());
    ReportSync(controller, observed.probes);
    exit_code = ControllerLoop(controller, clock, settings->resync, wakeup, elector ? &*elector : nullptr, observed);
    client.SetController(nullptr);
    Log(clock, "stopping after " + std::to_string(controller.stats().reconciles) + " reconciles");
  }
  if (elector && elector->leading() && exit_code == 0) {
    kube::Status released = elector->Release();
    Log(clock, "leader election: " + (released.ok() ? std::string("released the lease") : "release failed: " + released.ToString()));
  }
  if (wakeup.Stopping()) Log(clock, std::string("received ") + (wakeup.signal == SIGINT ? "SIGINT" : "SIGTERM"));
  if (exit_code != 0) {
    // Leadership lost: the signal thread is still waiting; this process ends here, as a
    // controller-runtime manager's does, and its supervisor starts it again as a candidate.
    Log(clock, "dgl-operator stopped: leader election lost");
    std::_Exit(exit_code);
  }
  signal_thread.join();
  Log(clock, "dgl-operator stopped");
  return exit_code;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"dgl-operator: runs DGLJobs (kubeflow.org/v1alpha1) on a Kubernetes cluster", "dgl-operator"};
  app.failure_message(CLI::FailureMessage::help);
  Flags flags;
  app.add_option("--server", flags.server,
                 "API server URL (http:// or https://); unset: in-cluster config from the service account");
  app.add_option("--namespace", flags.namespace_, "Only manage DGLJobs in this namespace (default: all)");
  app.add_option("--resync", flags.resync, "Reconcile every job at least this often (e.g. 30s, 5m)")
      ->capture_default_str();
  app.add_option("--workers", flags.workers,
                 "Concurrent reconciles; the controller is single-threaded, so only 1 is used")
      ->capture_default_str();
  app.add_option("--kubeconfig", flags.kubeconfig,
                 "kubeconfig file: server, CA and token of its current context (the flags above and below override them)");
  app.add_option("--context", flags.context, "The kubeconfig context to use (default: its current-context)");
  app.add_option("--token", flags.token, "Bearer token for the API server");
  app.add_option("--token-file", flags.token_file, "File holding the bearer token (re-read every minute)");
  app.add_option("--certificate-authority", flags.ca_file, "PEM bundle to verify an https API server");
  app.add_flag("--insecure-skip-tls-verify", flags.insecure, "Do not verify the API server's certificate");
  app.add_flag("--gang-scheduling", flags.gang_scheduling, "Create a PodGroup per job (scheduling.x-k8s.io)");
  app.add_option("--gang-scheduler-name", flags.gang_scheduler_name, "schedulerName for gang-scheduled pods");
  app.add_option("--kubectl-download-image", flags.kubectl_download_image, "Image of the kubectl-download init container");
  app.add_option("--watcher-loop-image", flags.watcher_loop_image, "Image of the watcher-loop init containers");
  app.add_flag("--leader-elect", flags.leader_elect,
               "Run as one of several replicas: only the holder of a coordination.k8s.io Lease reconciles");
  app.add_option("--leader-elect-lease-duration", flags.lease_duration,
                 "How long a lease stays held without renewal before another replica takes it")
      ->capture_default_str();
  app.add_option("--leader-elect-renew-deadline", flags.renew_deadline,
                 "How long the leader keeps trying to renew before it gives leadership up and exits")
      ->capture_default_str();
  app.add_option("--leader-elect-retry-period", flags.retry_period, "How often candidates try to acquire or renew")
      ->capture_default_str();
  app.add_option("--leader-elect-resource-name", flags.lease_name, "Name of the Lease")->capture_default_str();
  app.add_option("--leader-elect-resource-namespace", flags.lease_namespace,
                 "Namespace of the Lease (default: $POD_NAMESPACE, else default)");
  app.add_option("--leader-elect-identity", flags.identity, "This replica's identity (default: hostname_random)");
  app.add_option("--metrics-bind-address", flags.metrics_address,
                 "Serve Prometheus metrics at /metrics on this address (\":8080\", \"127.0.0.1:8080\"; 0: off)")
      ->capture_default_str();
  app.add_option("--health-probe-bind-address", flags.probe_address,
                 "Serve /healthz and /readyz on this address (\":8081\"; 0: off)")
      ->capture_default_str();
  app.add_option("--log-format", flags.log_format, "text, or json: one JSON object per line")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  CLI::App* crd = app.add_subcommand("crd", "Print the DGLJob CustomResourceDefinition as YAML (deploy/crd.yaml)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help is exit 0; any other flag problem is bad input, exit 2 as for bad values below.
    return app.exit(e) == 0 ? 0 : 2;
  }

  if (crd->parsed()) {
    std::cout << ToYaml(dgl::DGLJobCrd());
    return 0;
  }
  log_format = *dgl_operator::ParseLogFormat(flags.log_format);
  return RunOperator(flags);
}
