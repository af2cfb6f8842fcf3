// `dglsim serve SCENARIO.yaml [--port P] [--address A] [--speed X|max] [--no-operator] [--seed N]
//  [--storage-quota 1Gi] [--watch-history N] [--max-connections 512] [--max-watches 256] [--audit-log FILE]
//  [--token-auth-file FILE] [--anonymous-auth]`:
// the simulated cluster of a scenario, live, behind the fake API over HTTP, so that kubectl (or
// the operator binary, with --no-operator) can look at it and write to it while it runs. GET
// /metrics answers with the in-simulation operator's metrics (Prometheus text format, values in
// simulated time), as dgl-operator's --metrics-bind-address does on a real cluster.
//
// The simulation is the one `dglsim run` builds (harness::RunLive), paced to the wall clock, and
// stopped where `dglsim run` stops (at `until`, or at the scenario's end: sim/harness/run/live_run.h),
// so that what kubectl shows is what the run reports; timestamps start at the wall clock's now. The
// server is fakeapi::HttpServer; what it knows of DGL and of the simulator comes from here: the
// DGLJob Table columns, the DGLJob schema in OpenAPI, container logs from the simulated kubelets,
// YAML bodies through the harness's YAML reader.
//
// Who may do what (docs/rbac.md): requests are authorized by the simulation's RBAC (kube-apiserver's
// default policy for the cluster's components, the operator's RBAC file, and whatever RBAC objects
// are created in the API). With --token-auth-file (kube-apiserver's CSV format) a request needs a
// bearer token of the file (401 otherwise), unless --anonymous-auth lets it in as system:anonymous.
// Without either, every request is system:anonymous and a superuser (system:masters): the loopback
// default. An --address other than loopback without --token-auth-file is refused (exit 2): the
// network would get a superuser. Service-account tokens come from the TokenRequest subresource
// (`kubectl create token NAME`), signed under a key drawn from the run's seed: a request bearing
// one is that service account under RBAC, with or without a token file.
//
// Prints `serving on http://ADDRESS:PORT` (and flushes) once requests are accepted, and
// `simulated time stopped at T: ...` each time simulated time stops; runs until SIGINT or SIGTERM. Exit codes: 0 after a signal, 2 for bad input or an address it cannot bind.
#include "fakeapi/client/json_path.h"
#include "fakeapi/client/quantity.h"
#include "fakeapi/server/authentication.h"
#include "fakeapi/server/http_server.h"
#include "fakeapi/server/service_account_tokens.h"
#include "fakeapi/server/store.h"
#include "operator/api/dgljob_api.h"
#include "sim/cli/commands.h"
#include "sim/cluster/kubelet.h"
#include "sim/cluster/operator_actor.h"
#include "sim/cluster/simulation.h"
#include "sim/harness/config/scenario.h"
#include "sim/harness/config/units.h"
#include "sim/harness/config/yaml_json.h"
#include "sim/harness/run/live_run.h"
#include "sim/kernel/input_file.h"

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <string_view>

namespace dglsim_cli {
namespace {

using json = kube::Json;

std::atomic<bool> g_stop{false};
extern "C" void OnStopSignal(int) { g_stop = true; }

using kube::JsonString;

// kubectl get dgljobs: NAME PHASE MODE WORKERS RESTARTS AGE, the CRD's printer columns as
// kube-apiserver serves them (each described by its JSONPath; a value the job lacks is null).
fakeapi::TableConverter DGLJobTable() {
  fakeapi::TableConverter t;
  auto column = [](std::string name, std::string type, const std::string& path) {
    fakeapi::TableColumn c;
    c.name = std::move(name);
    c.type = std::move(type);
    c.description = "Custom resource definition column (in JSONPath format): " + path;
    return c;
  };
  t.columns = {column("Name", "string", ""), column("Phase", "string", ".status.phase"),
               column("Mode", "string", ".spec.partitionMode"),
               column("Workers", "integer", ".spec.dglReplicaSpecs.Worker.replicas"),
               column("Restarts", "integer", ".status.restartCount"), column("Age", "date", ".metadata.creationTimestamp")};
  t.columns[0].format = "name";
  t.columns[0].description =
      "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a "
      "client to request the generation of an appropriate name automatically. Name is primarily intended for creation "
      "idempotence and configuration definition. Cannot be updated. More info: "
      "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";
  t.cells = [](const json& job, kube::Micros now) {
    auto at = [&](std::initializer_list<std::string_view> path) {
      const json* v = kube::JsonAt(job, path);
      return v ? *v : json(nullptr);
    };
    return json::array({kube::NameOf(job), at({"status", "phase"}), at({"spec", "partitionMode"}),
                        at({"spec", "dglReplicaSpecs", "Worker", "replicas"}), at({"status", "restartCount"}),
                        fakeapi::AgeOf(job, now)});
  };
  return t;
}

// Whether the container has finished for good (a followed log ends then).
bool ContainerFinished(const json& pod, const std::string& container) {
  std::string phase = JsonString(pod, {"status", "phase"});
  if (phase == "Succeeded" || phase == "Failed") return true;
  for (const char* list : {"initContainerStatuses", "containerStatuses"}) {
    auto s = pod.find("status");
    if (s == pod.end() || !s->is_object()) continue;
    auto cs = s->find(list);
    if (cs == s->end() || !cs->is_array()) continue;
    for (const json& c : *cs)
      if (JsonString(c, {"name"}) == container && list[0] == 'i')
        if (auto st = c.find("state"); st != c.end() && st->is_object() && st->contains("terminated")) return true;
  }
  return false;
}

fakeapi::LogsProvider KubeletLogs(sim::Simulation& sim) {
  return [&sim](const json& pod, const std::string& container, bool previous) -> kube::Result<fakeapi::ContainerLog> {
    const std::string& name = kube::NameOf(pod);
    const std::string waiting = "container \"" + container + "\" in pod \"" + name + "\" is waiting to start";
    std::string node = JsonString(pod, {"spec", "nodeName"});
    if (node.empty()) return kube::Status::BadRequest(waiting + ": the pod is not scheduled yet");
    auto* kubelet = dynamic_cast<sim::Kubelet*>(sim.FindActor("kubelet/" + node));
    const std::vector<std::string>* lines =
        kubelet ? kubelet->Logs(kube::NamespaceOf(pod), name, container, previous) : nullptr;
    if (!lines) {
      if (previous)
        return kube::Status::BadRequest("previous terminated container \"" + container + "\" in pod \"" + name +
                                           "\" not found");
      return kube::Status::BadRequest(waiting + ": ContainerCreating");
    }
    return fakeapi::ContainerLog{*lines, previous || ContainerFinished(pod, container)};
  };
}

fakeapi::YamlDecoder YamlBodies() {
  return [](std::string_view text) -> kube::Result<json> {
    harness::YamlLoad loaded = harness::LoadYamlString(text, "request body");
    if (!loaded.ok()) return kube::Status::BadRequest(loaded.error->ToString());
    if (loaded.documents.size() != 1)
      return kube::Status::BadRequest("the request body must hold exactly one YAML document, not " +
                                         std::to_string(loaded.documents.size()));
    return loaded.documents.front().value;
  };
}

struct ServeArgs {
  std::string scenario;
  int port = 8080;
  std::string address = "127.0.0.1";
  std::string speed = "1";
  bool no_operator = false;
  std::uint64_t seed = 0;
  CLI::Option* seed_option = nullptr;
  std::string storage_quota = "1Gi";
  std::int64_t watch_history = 0;
  int max_connections = 512;
  int max_watches = 256;
  std::string audit_log;
  std::string token_auth_file;
  bool anonymous_auth = false;
};

bool IsLoopback(const std::string& address) {
  return address == "localhost" || address == "::1" || address.rfind("127.", 0) == 0;
}

// The authentication the flags ask for (nullptr: none, the loopback default); false after a
// message when the token file is bad or a non-loopback address would go without.
bool LoadAuthentication(const ServeArgs& args, std::shared_ptr<fakeapi::Authentication>* out) {
  if (!IsLoopback(args.address) && args.token_auth_file.empty()) {
    std::cerr << "--address " << args.address << ": serving beyond loopback needs authentication: give "
              << "--token-auth-file (token,user,uid,\"group1,group2\" lines); without it every client "
              << "would be a superuser\n";
    return false;
  }
  if (args.token_auth_file.empty() && !args.anonymous_auth) return true;
  auto auth = std::make_shared<fakeapi::Authentication>();
  if (!args.token_auth_file.empty()) {
    sim::InputFile text = sim::ReadInputFile(args.token_auth_file, sim::kMaxDocumentBytes);
    if (!text.ok()) {
      std::cerr << "--token-auth-file: cannot read \"" << args.token_auth_file << "\": " << text.error << "\n";
      return false;
    }
    auto parsed = fakeapi::Authentication::FromTokenCsv(text.text, args.token_auth_file);
    if (!parsed.ok()) {
      std::cerr << "--token-auth-file: " << parsed.status().message() << "\n";
      return false;
    }
    *auth = std::move(parsed).value();
  }
  auth->set_anonymous(args.anonymous_auth);
  *out = std::move(auth);
  return true;
}

// The limits a served store and server keep to, checked: false (after a message) for bad values.
bool CheckLimits(const ServeArgs& args, std::int64_t* quota) {
  auto bytes = kube::ParseQuantity(args.storage_quota);
  if (!bytes || *bytes < 0) {
    std::cerr << "--storage-quota: \"" << args.storage_quota << "\" is not a byte quantity (e.g. 1Gi, 512Mi, 0 for none)\n";
    return false;
  }
  *quota = *bytes;
  if (args.watch_history < 0 || args.watch_history > 10'000'000) {
    std::cerr << "--watch-history: " << args.watch_history << " is not between 1 and 10000000 (0: the default, 102400)\n";
    return false;
  }
  if (args.max_connections < 1 || args.max_connections > 900 || args.max_watches < 1) {
    std::cerr << "--max-connections must be 1 to 900 (one thread each, below the 1,024 descriptors select() takes) and "
                 "--max-watches at least 1\n";
    return false;
  }
  return true;
}

// The line printed (and flushed) each time simulated time stops (live_run.h): what tests and users
// wait for before they read the end state.
std::function<void(sim::Simulation&, const char*)> SayWhereTimeStopped(kube::Micros until) {
  return [until](sim::Simulation& sim, const char* why) {
    const std::string at = harness::FormatDuration(sim.Now());
    if (std::string_view(why) == "until") {
      std::cout << "simulated time stopped at " << at << ": the scenario's until (" << harness::FormatDuration(until)
                << ")" << std::endl;
      return;
    }
    std::cout << "simulated time stopped at " << at << ": the scenario "
              << (std::string_view(why) == "end" ? "ended" : "has nothing left to do")
              << "; a write (kubectl create ...) starts it again" << std::endl;
  };
}

// The audit log of --audit-log, opened; false (after a message) when it cannot be written.
bool OpenAuditLog(const std::string& path, fakeapi::AuditLog& audit) {
  if (path.empty()) return true;
  if (kube::Status opened = audit.Open(path); !opened.ok()) {
    std::cerr << "--audit-log: " << opened.message() << "\n";
    return false;
  }
  return true;
}

int Serve(const ServeArgs& args) {
  bool fast_forward = args.speed == "max";
  double speed = 1;
  if (!fast_forward) {
    char* end = nullptr;
    speed = std::strtod(args.speed.c_str(), &end);
    if (args.speed.empty() || *end != '\0' || !(speed > 0) || speed > 1e9) {
      std::cerr << "--speed: \"" << args.speed << "\" is neither a positive number nor max\n";
      return kExitBadInput;
    }
  }
  if (args.port < 0 || args.port > 65535) {
    std::cerr << "--port: " << args.port << " is not a port number (0 picks a free one)\n";
    return kExitBadInput;
  }
  std::int64_t quota = 0;
  if (!CheckLimits(args, &quota)) return kExitBadInput;
  std::shared_ptr<fakeapi::Authentication> authentication;
  if (!LoadAuthentication(args, &authentication)) return kExitBadInput;
  harness::ScenarioLoad loaded = harness::LoadScenario(args.scenario);
  for (const auto& w : loaded.warnings) std::cerr << w << "\n";
  if (!loaded.ok()) {
    for (const auto& p : loaded.problems) std::cerr << p << "\n";
    return kExitBadInput;
  }
  harness::Scenario scenario = std::move(*loaded.scenario);
  if (args.no_operator) scenario.operator_settings.enabled = false;
  // kubectl writes to "default" unless told otherwise.
  if (std::find(scenario.namespaces.begin(), scenario.namespaces.end(), "default") == scenario.namespaces.end()) {
    scenario.namespaces.push_back("default");
    std::sort(scenario.namespaces.begin(), scenario.namespaces.end());
  }

  fakeapi::AuditLog audit;
  if (!OpenAuditLog(args.audit_log, audit)) return kExitBadInput;
  std::signal(SIGINT, OnStopSignal);
  std::signal(SIGTERM, OnStopSignal);
  harness::SimLock lock;
  std::unique_ptr<fakeapi::HttpServer> server;
  bool failed = false;
  harness::LiveOptions live;
  if (args.seed_option && args.seed_option->count() > 0) live.seed = args.seed;
  live.speed = speed;
  live.fast_forward = fast_forward;
  live.lock = &lock;
  if (!args.audit_log.empty()) live.audit = &audit;
  live.should_stop = [&] { return g_stop.load() || failed; };
  // Timestamps from the wall clock's now (read here, at the edge), so that kubectl's ages read as
  // a user expects; simulated time then stops where `dglsim run` stops (live_run.h).
  // Whole seconds: the API's timestamps have second precision (a restart's back-off is read back
  // from one), so a fraction would make the run differ from `dglsim run`'s.
  live.epoch = kube::SystemClock().Now() / kube::kSecond * kube::kSecond;
  live.on_time_stopped = SayWhereTimeStopped(scenario.until);
  live.on_start = [&](sim::Simulation& sim) {
    fakeapi::HttpServerOptions options;
    options.address = args.address;
    options.port = args.port;
    options.clock = &sim.engine().clock();
    options.executor = [&lock](const std::function<void()>& work) { lock.Run(work); };
    options.logs = KubeletLogs(sim);
    options.yaml = YamlBodies();
    options.on_internal_error = [](const std::string& what) {
      std::cerr << "dglsim serve: internal error (answered 500 InternalError): " << what << std::endl;
    };
    options.max_connections = static_cast<std::size_t>(args.max_connections);
    options.max_watches = static_cast<std::size_t>(args.max_watches);
    // The in-simulation operator's metrics, read under the simulation's lock (simulated time).
    if (auto* op = dynamic_cast<sim::OperatorActor*>(sim.FindActor("dgl-operator")))
      options.metrics = [op] { return op->metrics().Expose(); };
    if (!args.audit_log.empty()) options.audit = &audit;
    options.authentication = authentication;
    options.authorizer = sim.authorizer();
    // `kubectl create token`: tokens signed under a key from the run's seed (a stream of its own).
    options.service_account_tokens = std::make_shared<fakeapi::ServiceAccountTokens>(sim.Random("sa-tokens").NextU64());
    sim.store().SetStorageQuota(static_cast<std::size_t>(quota));
    if (args.watch_history > 0) sim.store().SetHistoryLimit(static_cast<std::size_t>(args.watch_history));
    server = std::make_unique<fakeapi::HttpServer>(sim.store(), options);
    server->SetTableConverter("dgljobs", DGLJobTable());
    // The CRD's own openAPIV3Schema, for `kubectl explain dgljob`.
    server->SetOpenApiSchema("dgljobs", dgl::DGLJobOpenApiSchema());
    kube::Status started = server->Start();
    if (!started.ok()) {
      std::cerr << "dglsim serve: " << started.message() << "\n";
      failed = true;
      return;
    }
    std::cout << "scenario " << scenario.name << ": " << (args.no_operator ? "no operator in the simulation, " : "")
              << "speed " << (fast_forward ? "max" : args.speed) << "\n";
    std::cout << "try: kubectl --server " << server->url() << " get dgljobs,pods -A\n";
    std::cout << "serving on " << server->url() << std::endl;  // the ready line: flushed
  };
  live.on_stop = [&](sim::Simulation&) {
    if (server) server->Stop();
  };
  harness::RunLive(scenario, live);
  server.reset();
  audit.Flush();
  return failed ? kExitBadInput : kExitOk;
}

}  // namespace

Subcommand AddServeCommand(CLI::App& app) {
  auto args = std::make_shared<ServeArgs>();
  CLI::App* serve = app.add_subcommand(
      "serve", "Run a scenario live behind the fake Kubernetes API over HTTP, for kubectl; simulated time paced to the wall clock");
  serve->add_option("SCENARIO", args->scenario, "The scenario file (YAML, kind: Scenario)")->required();
  serve->add_option("--port", args->port, "TCP port; 0 picks a free one (printed)")->capture_default_str();
  serve->add_option("--address", args->address, "Address to listen on")->capture_default_str();
  serve->add_option("--speed", args->speed,
                    "Simulated seconds per wall second, or max: as fast as possible; either way time stops at until or at the "
                    "scenario's end, as dglsim run does")
      ->capture_default_str();
  serve->add_flag("--no-operator", args->no_operator,
                  "No operator inside the simulation (run dgl-operator --server URL against it instead)");
  args->seed_option = serve->add_option("--seed", args->seed, "Override the scenario's seed")->check(SeedRange());
  serve->add_option("--storage-quota", args->storage_quota,
                    "Memory for stored objects (and as much again of watch history); past it writes are refused as by "
                    "a full etcd. 0: none")
      ->capture_default_str();
  serve->add_option("--watch-history", args->watch_history,
                    "The most watch events kept per resource for resuming watches and old-version lists (sized as "
                    "kube-apiserver's watch cache below that; 0: 102400)");
  serve->add_option("--max-connections", args->max_connections, "Open connections at most")->capture_default_str();
  serve->add_option("--max-watches", args->max_watches, "Open watch and log streams at most")->capture_default_str();
  serve->add_option("--audit-log", args->audit_log,
                    "Write every API request (kubectl's, as system:admin or its Impersonate-User) and every simulated "
                    "component's call to this file as an audit log (audit.k8s.io/v1 Event JSON lines)");
  serve->add_option("--token-auth-file", args->token_auth_file,
                    "Bearer tokens, kube-apiserver's CSV format: token,user,uid,\"group1,group2\" (401 without one)");
  serve->add_flag("--anonymous-auth", args->anonymous_auth,
                  "Let requests without a token in as system:anonymous (group system:unauthenticated)");
  return Subcommand{serve, [args] { return Serve(*args); }};
}

}  // namespace dglsim_cli
