// The Kubernetes REST protocol over a Store. See http_server.h for the contract; the comments here
// say why the wire details are what they are (most of them are what real kubectl insists on, as
// recorded in shared/reference/kubectl-surface.md).
#include "fakeapi/server/http_server.h"

#include "fakeapi/client/json_path.h"
#include "fakeapi/client/resource.h"
#include "fakeapi/server/merge_patch.h"
#include "fakeapi/server/store.h"

#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <thread>

namespace fakeapi {
namespace {

using nlohmann::json;
using SteadyClock = std::chrono::steady_clock;

// Content types. A JSON body must say application/json or kubectl refuses it; the charset
// parameter also keeps cpp-httplib from gzip-compressing it (it compresses only the exact
// "application/json"), which would hold watch events back in the compressor.
constexpr const char* kJson = "application/json; charset=utf-8";
constexpr const char* kText = "text/plain; charset=utf-8";

// Never throws on strings that are not UTF-8 (a name decoded from "%ff" in a URL, say).
std::string Dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

const json* Find(const json& obj, std::initializer_list<const char*> path) { return kube::JsonAt(obj, path); }
std::string Str(const json& obj, std::initializer_list<const char*> path, const std::string& fallback = "") {
  const json* v = Find(obj, path);
  return v && v->is_string() ? v->get<std::string>() : fallback;
}
std::int64_t Int(const json& obj, std::initializer_list<const char*> path) {
  const json* v = Find(obj, path);
  return v && v->is_number_integer() ? v->get<std::int64_t>() : 0;
}
const json& Array(const json& obj, std::initializer_list<const char*> path) {
  static const json kEmpty = json::array();
  const json* v = Find(obj, path);
  return v && v->is_array() ? *v : kEmpty;
}

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}
std::string Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return std::string(s);
}
std::vector<std::string> Split(std::string_view s, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    std::size_t at = s.find(sep, start);
    out.emplace_back(s.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
    if (at == std::string_view::npos) break;
    start = at + 1;
  }
  return out;
}

// A Status for a failure the store has no factory for (generic 404, 405 with a message, ...).
kube::Status MakeStatus(int code, const std::string& reason, const std::string& message) {
  return kube::Status::FromJson({{"status", "Failure"}, {"code", code}, {"reason", reason}, {"message", message}});
}
kube::Status PathNotFound() { return MakeStatus(404, "NotFound", "the server could not find the requested resource"); }

// ---------------------------------------------------------------------------------------------
// Tables

json NameColumn() {
  return {{"name", "Name"}, {"type", "string"}, {"format", "name"}, {"priority", 0},
          {"description", "Name must be unique within a namespace."}};
}

TableColumn Column(std::string name, int priority = 0, std::string type = "string") {
  TableColumn c;
  c.name = std::move(name);
  c.type = std::move(type);
  c.priority = priority;
  return c;
}

// The pod's STATUS column as kubectl's printer derives it: the phase, overridden by the first
// unfinished init container, then by a waiting or terminated app container, then by deletion.
std::string PodStatusText(const json& pod, int* ready, int* restarts) {
  std::string reason = Str(pod, {"status", "phase"});
  if (std::string r = Str(pod, {"status", "reason"}); !r.empty()) reason = r;
  bool initializing = false;
  const json& inits = Array(pod, {"status", "initContainerStatuses"});
  for (std::size_t i = 0; i < inits.size(); ++i) {
    const json& c = inits[i];
    *restarts += static_cast<int>(Int(c, {"restartCount"}));
    if (Find(c, {"state", "terminated"})) {
      if (Int(c, {"state", "terminated", "exitCode"}) == 0) continue;
      std::string why = Str(c, {"state", "terminated", "reason"});
      reason = "Init:" + (why.empty() ? "ExitCode:" + std::to_string(Int(c, {"state", "terminated", "exitCode"})) : why);
    } else if (std::string why = Str(c, {"state", "waiting", "reason"}); !why.empty() && why != "PodInitializing") {
      reason = "Init:" + why;
    } else {
      reason = "Init:" + std::to_string(i) + "/" + std::to_string(Array(pod, {"spec", "initContainers"}).size());
    }
    initializing = true;
    break;
  }
  const json& containers = Array(pod, {"status", "containerStatuses"});
  bool running = false;
  for (auto it = containers.rbegin(); it != containers.rend(); ++it) {
    const json& c = *it;
    *restarts += static_cast<int>(Int(c, {"restartCount"}));
    if (initializing) continue;
    if (std::string why = Str(c, {"state", "waiting", "reason"}); !why.empty()) {
      reason = why;
    } else if (Find(c, {"state", "terminated"})) {
      std::string why = Str(c, {"state", "terminated", "reason"});
      reason = why.empty() ? "ExitCode:" + std::to_string(Int(c, {"state", "terminated", "exitCode"})) : why;
    } else if (Find(c, {"state", "running"})) {
      const json* r = Find(c, {"ready"});
      if (r && r->is_boolean() && r->get<bool>()) {
        ++*ready;
        running = true;
      }
    }
  }
  if (!initializing && reason == "Completed" && running) reason = "Running";
  if (Find(pod, {"metadata", "deletionTimestamp"})) reason = reason == "NodeLost" ? "Unknown" : "Terminating";
  return reason.empty() ? "Pending" : reason;
}

std::string OrNone(const std::string& s) { return s.empty() ? "<none>" : s; }

std::string TimestampAge(const json& obj, std::initializer_list<const char*> path, kube::Micros now) {
  std::string ts = Str(obj, path);
  auto t = kube::ParseTime(ts);
  return t ? HumanAge(now - *t) : "<unknown>";
}

}  // namespace

std::string HumanAge(kube::Micros elapsed) {
  // Whole units only, the finer unit shown while it still says something (kubectl's rules).
  const std::int64_t s = elapsed / kube::kSecond;
  if (s < -1) return "<invalid>";
  if (s < 0) return "0s";
  if (s < 120) return std::to_string(s) + "s";
  const std::int64_t m = s / 60;
  if (m < 10) return s % 60 == 0 ? std::to_string(m) + "m" : std::to_string(m) + "m" + std::to_string(s % 60) + "s";
  if (m < 180) return std::to_string(m) + "m";
  const std::int64_t h = m / 60;
  if (h < 8) return m % 60 == 0 ? std::to_string(h) + "h" : std::to_string(h) + "h" + std::to_string(m % 60) + "m";
  if (h < 48) return std::to_string(h) + "h";
  const std::int64_t d = h / 24;
  if (h < 24 * 8) return h % 24 == 0 ? std::to_string(d) + "d" : std::to_string(d) + "d" + std::to_string(h % 24) + "h";
  if (d < 365 * 2) return std::to_string(d) + "d";
  const std::int64_t y = d / 365;
  if (d < 365 * 8) return d % 365 == 0 ? std::to_string(y) + "y" : std::to_string(y) + "y" + std::to_string(d % 365) + "d";
  return std::to_string(y) + "y";
}

std::string AgeOf(const json& object, kube::Micros now) { return TimestampAge(object, {"metadata", "creationTimestamp"}, now); }

TableConverter DefaultTableConverter(const std::string& plural) {
  TableConverter t;
  t.columns.push_back(Column("Name"));
  t.columns.front().format = "name";
  if (plural == "pods") {
    for (auto c : {Column("Ready"), Column("Status"), Column("Restarts", 0, "integer"), Column("Age"), Column("IP", 1),
                   Column("Node", 1)})
      t.columns.push_back(c);
    t.cells = [](const json& pod, kube::Micros now) {
      int ready = 0, restarts = 0;
      std::string status = PodStatusText(pod, &ready, &restarts);
      std::string total = std::to_string(Array(pod, {"spec", "containers"}).size());
      return json::array({kube::NameOf(pod), std::to_string(ready) + "/" + total, status, restarts, AgeOf(pod, now),
                          OrNone(Str(pod, {"status", "podIP"})), OrNone(Str(pod, {"spec", "nodeName"}))});
    };
  } else if (plural == "nodes") {
    for (auto c : {Column("Status"), Column("Roles"), Column("Age"), Column("Version"), Column("Internal-IP", 1),
                   Column("External-IP", 1), Column("OS-Image", 1), Column("Kernel-Version", 1),
                   Column("Container-Runtime", 1)})
      t.columns.push_back(c);
    t.cells = [](const json& node, kube::Micros now) {
      std::string status = "Unknown";
      for (const json& c : Array(node, {"status", "conditions"}))
        if (Str(c, {"type"}) == "Ready") status = Str(c, {"status"}) == "True" ? "Ready" : "NotReady";
      const json* unschedulable = Find(node, {"spec", "unschedulable"});
      if (unschedulable && unschedulable->is_boolean() && unschedulable->get<bool>()) status += ",SchedulingDisabled";
      std::string roles;
      if (const json* labels = Find(node, {"metadata", "labels"}); labels && labels->is_object())
        for (const auto& [key, value] : labels->items()) {
          const std::string prefix = "node-role.kubernetes.io/";
          if (key.rfind(prefix, 0) == 0) roles += (roles.empty() ? "" : ",") + key.substr(prefix.size());
        }
      std::string internal, external;
      for (const json& a : Array(node, {"status", "addresses"})) {
        if (Str(a, {"type"}) == "InternalIP" && internal.empty()) internal = Str(a, {"address"});
        if (Str(a, {"type"}) == "ExternalIP" && external.empty()) external = Str(a, {"address"});
      }
      auto info = [&](const char* key) { return Str(node, {"status", "nodeInfo", key}, "<unknown>"); };
      return json::array({kube::NameOf(node), status, OrNone(roles), AgeOf(node, now), info("kubeletVersion"),
                          OrNone(internal), OrNone(external), info("osImage"), info("kernelVersion"),
                          info("containerRuntimeVersion")});
    };
  } else if (plural == "events") {
    // kubectl's event columns: the name is there but only with -o wide.
    t.columns.clear();
    for (auto c : {Column("Last Seen"), Column("Type"), Column("Reason"), Column("Object"), Column("Subobject", 1),
                   Column("Source", 1), Column("Message"), Column("First Seen", 1), Column("Count", 1, "integer"),
                   Column("Name", 1)})
      t.columns.push_back(c);
    t.columns.back().format = "name";
    t.cells = [](const json& ev, kube::Micros now) {
      auto seen = [&](std::initializer_list<const char*> path) { return TimestampAge(ev, path, now); };
      std::string last = Str(ev, {"lastTimestamp"}).empty() ? (Str(ev, {"eventTime"}).empty() ? seen({"metadata", "creationTimestamp"}) : seen({"eventTime"}))
                                                             : seen({"lastTimestamp"});
      std::string first = Str(ev, {"firstTimestamp"}).empty() ? last : seen({"firstTimestamp"});
      std::string source = Str(ev, {"source", "component"}, Str(ev, {"reportingComponent"}));
      if (std::string host = Str(ev, {"source", "host"}); !host.empty()) source += ", " + host;
      std::int64_t count = Int(ev, {"count"});
      return json::array({last, Str(ev, {"type"}), Str(ev, {"reason"}),
                          Lower(Str(ev, {"involvedObject", "kind"})) + "/" + Str(ev, {"involvedObject", "name"}),
                          Str(ev, {"involvedObject", "fieldPath"}), source, Str(ev, {"message"}), first,
                          count > 0 ? count : 1, kube::NameOf(ev)});
    };
  } else if (plural == "namespaces") {
    for (auto c : {Column("Status"), Column("Age")}) t.columns.push_back(c);
    t.cells = [](const json& ns, kube::Micros now) {
      std::string phase = Str(ns, {"status", "phase"}, "Active");
      if (Find(ns, {"metadata", "deletionTimestamp"})) phase = "Terminating";
      return json::array({kube::NameOf(ns), phase, AgeOf(ns, now)});
    };
  } else if (plural == "services") {
    for (auto c : {Column("Type"), Column("Cluster-IP"), Column("External-IP"), Column("Port(s)"), Column("Age"),
                   Column("Selector", 1)})
      t.columns.push_back(c);
    t.cells = [](const json& svc, kube::Micros now) {
      std::string ports;
      for (const json& p : Array(svc, {"spec", "ports"})) {
        const json* port = Find(p, {"port"});
        ports += (ports.empty() ? "" : ",") + (port ? Dump(*port) : std::string("?")) + "/" + Str(p, {"protocol"}, "TCP");
      }
      std::string selector;
      if (const json* sel = Find(svc, {"spec", "selector"}); sel && sel->is_object())
        for (const auto& [k, v] : sel->items()) selector += (selector.empty() ? "" : ",") + k + "=" + (v.is_string() ? v.get<std::string>() : Dump(v));
      return json::array({kube::NameOf(svc), Str(svc, {"spec", "type"}, "ClusterIP"), OrNone(Str(svc, {"spec", "clusterIP"})),
                          "<none>", OrNone(ports), AgeOf(svc, now), OrNone(selector)});
    };
  } else if (plural == "configmaps") {
    for (auto c : {Column("Data", 0, "integer"), Column("Age")}) t.columns.push_back(c);
    t.cells = [](const json& cm, kube::Micros now) {
      std::size_t n = 0;
      for (const char* key : {"data", "binaryData"})
        if (const json* d = Find(cm, {key}); d && d->is_object()) n += d->size();
      return json::array({kube::NameOf(cm), n, AgeOf(cm, now)});
    };
  } else {
    t.columns.push_back(Column("Age"));
    t.cells = [](const json& obj, kube::Micros now) { return json::array({kube::NameOf(obj), AgeOf(obj, now)}); };
  }
  return t;
}

namespace {

// ---------------------------------------------------------------------------------------------
// Strategic merge patch, as far as kubectl's patches of built-in kinds need it (see the header).

const char* MergeKeyOf(const json& patch_list, const json& target_list) {
  static constexpr const char* kKeys[] = {"name", "containerPort", "port", "mountPath", "devicePath", "ip", "type"};
  for (const char* key : kKeys) {
    bool all = !patch_list.empty();
    for (const json& e : patch_list) all = all && e.is_object() && e.contains(key);
    for (const json& e : target_list) all = all && e.is_object() && e.contains(key);
    if (all) return key;
  }
  return nullptr;
}

json WithoutDirectives(const json& value) {
  if (value.is_object()) {
    json out = json::object();
    for (const auto& [k, v] : value.items())
      if (k.empty() || k[0] != '$') out[k] = WithoutDirectives(v);
    return out;
  }
  if (value.is_array()) {
    json out = json::array();
    for (const json& v : value) out.push_back(WithoutDirectives(v));
    return out;
  }
  return value;
}

void ApplyStrategicPatch(json& target, const json& patch) {
  if (!patch.is_object()) {
    target = patch;
    return;
  }
  if (patch.value("$patch", "") == "replace") {
    target = WithoutDirectives(patch);
    return;
  }
  if (!target.is_object()) target = json::object();
  for (const auto& [key, value] : patch.items()) {
    const std::string kDelete = "$deleteFromPrimitiveList/";
    if (key.rfind(kDelete, 0) == 0) {
      json& list = target[key.substr(kDelete.size())];
      if (list.is_array() && value.is_array()) {
        json kept = json::array();
        for (const json& v : list)
          if (std::find(value.begin(), value.end(), v) == value.end()) kept.push_back(v);
        list = std::move(kept);
      }
      continue;
    }
    if (!key.empty() && key[0] == '$') continue;  // $setElementOrder, $retainKeys, $patch
    if (value.is_null()) {
      target.erase(key);
    } else if (value.is_object()) {
      if (value.value("$patch", "") == "delete") {
        target.erase(key);
      } else {
        json& slot = target[key];
        if (!slot.is_object()) slot = json::object();
        ApplyStrategicPatch(slot, value);
      }
    } else if (value.is_array()) {
      json& slot = target[key];
      const char* merge_key = slot.is_array() ? MergeKeyOf(value, slot) : nullptr;
      if (!merge_key) {
        json cleaned = json::array();
        for (const json& e : value)
          if (!(e.is_object() && e.value("$patch", "") == "delete")) cleaned.push_back(WithoutDirectives(e));
        slot = std::move(cleaned);
        continue;
      }
      for (const json& e : value) {
        auto same = std::find_if(slot.begin(), slot.end(), [&](const json& t) {
          return t.is_object() && e.contains(merge_key) && t[merge_key] == e[merge_key];
        });
        if (e.value("$patch", "") == "delete") {
          if (same != slot.end()) slot.erase(same);
        } else if (same != slot.end()) {
          ApplyStrategicPatch(*same, e);
        } else {
          slot.push_back(WithoutDirectives(e));
        }
      }
    } else {
      target[key] = value;
    }
  }
}

// Built-in kinds get strategic merge; custom resources get RFC 7386 (as kube-apiserver does).
bool IsBuiltIn(const kube::ResourceType& type) {
  if (type.group.empty()) return true;
  const std::string suffix = ".k8s.io";
  return type.group.size() > suffix.size() && type.group.compare(type.group.size() - suffix.size(), suffix.size(), suffix) == 0 &&
         type.group.find("x-k8s.io") == std::string::npos;
}

// ---------------------------------------------------------------------------------------------
// Connection threads: one per connection, created on demand up to a cap, reused when idle.
// (cpp-httplib's own pool has a fixed size of max(8, cores - 1): eight open watches would starve
// every other request.)
class ConnectionThreads : public httplib::TaskQueue {
 public:
  explicit ConnectionThreads(std::size_t max) : max_(std::max<std::size_t>(max, 1)) {}
  ~ConnectionThreads() override { shutdown(); }

  void enqueue(std::function<void()> fn) override {
    std::lock_guard<std::mutex> lock(mu_);
    jobs_.push_back(std::move(fn));
    if (idle_ < jobs_.size() && threads_.size() < max_) threads_.emplace_back([this] { Work(); });
    cv_.notify_one();
  }
  void shutdown() override {
    std::vector<std::thread> threads;
    {
      std::lock_guard<std::mutex> lock(mu_);
      shutdown_ = true;
      threads.swap(threads_);
    }
    cv_.notify_all();
    for (auto& t : threads) t.join();
  }

 private:
  void Work() {
    std::unique_lock<std::mutex> lock(mu_);
    while (true) {
      ++idle_;
      cv_.wait(lock, [&] { return !jobs_.empty() || shutdown_; });
      --idle_;
      if (jobs_.empty()) return;  // shutting down with nothing left
      auto fn = std::move(jobs_.front());
      jobs_.pop_front();
      lock.unlock();
      fn();
      lock.lock();
    }
  }

  const std::size_t max_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  std::vector<std::thread> threads_;
  std::size_t idle_ = 0;
  bool shutdown_ = false;
};

// What a request's URL names.
struct Target {
  const kube::ResourceType* type = nullptr;
  std::string ns;           // "" = cluster-scoped, or every namespace on a collection
  std::string name;         // "" = the collection
  std::string subresource;  // "", "status", "log", ...
};

// The parameters of one media range of an Accept header ("application/json;as=Table;g=...").
std::map<std::string, std::string> MediaParams(const std::string& range) {
  std::map<std::string, std::string> out;
  auto parts = Split(range, ';');
  out[""] = Lower(Trim(parts[0]));
  for (std::size_t i = 1; i < parts.size(); ++i) {
    auto eq = parts[i].find('=');
    if (eq == std::string::npos) continue;
    out[Trim(parts[i].substr(0, eq))] = Trim(parts[i].substr(eq + 1));
  }
  return out;
}

// "v1" or "v1beta1" when the client asks for a meta.k8s.io Table, else "".
std::string TableVersion(const httplib::Request& req) {
  for (const std::string& range : Split(req.get_header_value("Accept"), ',')) {
    auto p = MediaParams(range);
    if (p["as"] == "Table" && p["g"] == "meta.k8s.io" && (p["v"] == "v1" || p["v"] == "v1beta1")) return p["v"];
  }
  return "";
}

bool Truthy(const std::string& v) { return v == "true" || v == "1" || v == "True"; }

std::optional<std::int64_t> ParseInt(const std::string& text) {
  if (text.empty() || text.size() > 18) return std::nullopt;
  std::size_t i = text[0] == '-' ? 1 : 0;
  if (i == text.size()) return std::nullopt;
  for (std::size_t k = i; k < text.size(); ++k)
    if (text[k] < '0' || text[k] > '9') return std::nullopt;
  return std::stoll(text);
}

}  // namespace

// ---------------------------------------------------------------------------------------------

struct HttpServer::Impl {
  Impl(Store& s, HttpServerOptions o) : store(s), options(std::move(o)) {}

  Store& store;
  HttpServerOptions options;
  std::map<std::string, TableConverter> converters;  // by qualified resource name
  std::map<std::string, json> schemas;               // by qualified resource name
  httplib::Server server;
  std::thread listener;
  std::atomic<bool> listener_done{false};
  int bound_port = 0;
  bool started = false;
  std::mutex own_mutex;  // the executor when none is given
  std::atomic<bool> stopping{false};
  std::mutex streams_mu;
  std::set<std::shared_ptr<kube::WatchStream>> streams;  // open watches, woken on Stop
  std::condition_variable stop_cv;                 // wakes log streams on Stop

  void Run(const std::function<void()>& work) {
    if (options.executor) {
      options.executor(work);
    } else {
      std::lock_guard<std::mutex> lock(own_mutex);
      work();
    }
  }

  kube::Micros Now() const { return options.clock ? options.clock->Now() : 0; }

  // --- responses --------------------------------------------------------------------------

  static void SendJson(httplib::Response& res, int code, const json& body) {
    res.status = code;
    res.set_content(Dump(body), kJson);
  }
  static void SendStatus(httplib::Response& res, const kube::Status& status) { SendJson(res, status.code(), status.ToJson()); }

  // The store names core and custom kinds alike by plural; kube-apiserver qualifies custom ones
  // ("dgljobs.kubeflow.org \"x\" not found"), and kubectl prints the message as is.
  static kube::Status Qualify(const kube::Status& status, const kube::ResourceType& type) {
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

  // --- routing ----------------------------------------------------------------------------

  const kube::ResourceType* TypeIn(const std::string& group, const std::string& version, const std::string& plural) const {
    for (const auto& t : store.registry().All())
      if (t->group == group && t->version == version && t->plural == plural) return t.get();
    return nullptr;
  }

  bool ServesGroupVersion(const std::string& group, const std::string& version) const {
    for (const auto& t : store.registry().All())
      if (t->group == group && t->version == version) return true;
    return false;
  }

  // Resolves ".../namespaces/{ns}/{plural}/{name}/{sub}" or ".../{plural}/{name}/{sub}" below a
  // group-version. False when the path names nothing.
  bool Resolve(const std::string& group, const std::string& version, const std::vector<std::string>& rest,
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

  // --- discovery ----------------------------------------------------------------------------

  json VersionInfo() const {
    std::string v = options.git_version;
    std::string major = "1", minor = "32";
    auto parts = Split(v.size() > 1 && v[0] == 'v' ? v.substr(1) : v, '.');
    if (parts.size() >= 2) {
      major = parts[0];
      minor = parts[1];
    }
    return {{"major", major},       {"minor", minor},          {"gitVersion", v},
            {"gitCommit", "fakeapi"}, {"gitTreeState", "clean"}, {"buildDate", "2026-01-01T00:00:00Z"},
            {"goVersion", "go1.23"},  {"compiler", "gc"},        {"platform", "linux/amd64"}};
  }

  std::vector<std::string> Groups() const {
    std::vector<std::string> out;
    for (const auto& t : store.registry().All())
      if (!t->group.empty() && std::find(out.begin(), out.end(), t->group) == out.end()) out.push_back(t->group);
    return out;
  }
  std::vector<std::string> VersionsOf(const std::string& group) const {
    std::vector<std::string> out;
    for (const auto& t : store.registry().All())
      if (t->group == group && std::find(out.begin(), out.end(), t->version) == out.end()) out.push_back(t->version);
    return out;
  }

  json ApiGroup(const std::string& group) const {
    json versions = json::array();
    for (const auto& v : VersionsOf(group)) versions.push_back({{"groupVersion", group + "/" + v}, {"version", v}});
    return {{"kind", "APIGroup"},
            {"apiVersion", "v1"},
            {"name", group},
            {"versions", versions},
            {"preferredVersion", versions.empty() ? json::object() : versions[0]}};
  }

  static json Verbs() { return {"create", "delete", "get", "list", "patch", "update", "watch"}; }

  json ResourceList(const std::string& group, const std::string& version) const {
    json resources = json::array();
    for (const auto& t : store.registry().All()) {
      if (t->group != group || t->version != version) continue;
      json r = {{"name", t->plural}, {"singularName", t->singular}, {"namespaced", t->namespaced},
                {"kind", t->kind},   {"verbs", Verbs()}};
      if (!t->short_names.empty()) r["shortNames"] = t->short_names;
      resources.push_back(std::move(r));
      if (t->has_status)
        resources.push_back({{"name", t->plural + "/status"}, {"singularName", ""}, {"namespaced", t->namespaced},
                             {"kind", t->kind}, {"verbs", {"get", "patch", "update"}}});
      if (t->group.empty() && t->plural == "pods")
        resources.push_back({{"name", "pods/log"}, {"singularName", ""}, {"namespaced", true}, {"kind", "Pod"},
                             {"verbs", {"get"}}});
    }
    return {{"kind", "APIResourceList"},
            {"apiVersion", "v1"},
            {"groupVersion", group.empty() ? version : group + "/" + version},
            {"resources", resources}};
  }

  // --- OpenAPI v3 ---------------------------------------------------------------------------

  static std::string ReverseGroup(const std::string& group) {
    auto parts = Split(group, '.');
    std::string out;
    for (auto it = parts.rbegin(); it != parts.rend(); ++it) out += (out.empty() ? "" : ".") + *it;
    return out;
  }

  // The document of one group-version: a PATCH and a POST operation per kind saying that the
  // server validates fields (kubectl then leaves validation to us), and the schemas we were given.
  json OpenApiDocument(const std::string& group, const std::string& version) const {
    json paths = json::object();
    json published = json::object();
    const std::string prefix = group.empty() ? "/api/" + version : "/apis/" + group + "/" + version;
    const json field_validation = {{"name", "fieldValidation"}, {"in", "query"}, {"schema", {{"type", "string"}}},
                                   {"description", "Ignore, Warn or Strict"}};
    for (const auto& t : store.registry().All()) {
      if (t->group != group || t->version != version) continue;
      json gvk = {{"group", group}, {"version", version}, {"kind", t->kind}};
      std::string collection = prefix + (t->namespaced ? "/namespaces/{namespace}/" : "/") + t->plural;
      json ok = {{"200", {{"description", "OK"}}}};
      paths[collection + "/{name}"] = {
          {"patch", {{"x-kubernetes-group-version-kind", gvk}, {"x-kubernetes-action", "patch"},
                     {"parameters", json::array({field_validation})}, {"responses", ok}}},
          {"put", {{"x-kubernetes-group-version-kind", gvk}, {"x-kubernetes-action", "put"},
                   {"parameters", json::array({field_validation})}, {"responses", ok}}}};
      paths[collection] = {{"post", {{"x-kubernetes-group-version-kind", gvk}, {"x-kubernetes-action", "post"},
                                     {"parameters", json::array({field_validation})}, {"responses", ok}}}};
      auto schema = schemas.find(t->QualifiedName());
      if (schema != schemas.end()) {
        json s = schema->second;
        if (s.is_object()) s["x-kubernetes-group-version-kind"] = json::array({gvk});
        published[(group.empty() ? std::string("io.k8s.api.core") : ReverseGroup(group)) + "." + version + "." + t->kind] = s;
      }
    }
    return {{"openapi", "3.0.0"},
            {"info", {{"title", "fakeapi"}, {"version", options.git_version}}},
            {"paths", paths},
            {"components", {{"schemas", published}}}};
  }

  static std::string HashOf(const json& doc) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%016zX", std::hash<std::string>{}(Dump(doc)));
    return buf;
  }

  json OpenApiRoot() const {
    json paths = json::object();
    std::set<std::pair<std::string, std::string>> seen;
    for (const auto& t : store.registry().All()) {
      if (!seen.insert({t->group, t->version}).second) continue;
      std::string key = t->group.empty() ? "api/" + t->version : "apis/" + t->group + "/" + t->version;
      paths[key] = {{"serverRelativeURL", "/openapi/v3/" + key + "?hash=" + HashOf(OpenApiDocument(t->group, t->version))}};
    }
    return {{"paths", paths}};
  }

  // --- Tables -------------------------------------------------------------------------------

  const TableConverter& ConverterFor(const kube::ResourceType& type) {
    auto it = converters.find(type.QualifiedName());
    if (it == converters.end()) it = converters.emplace(type.QualifiedName(), DefaultTableConverter(type.plural)).first;
    return it->second;
  }

  json TableRow(const TableConverter& conv, const json& obj, kube::Micros now, const std::string& include) {
    json cells = conv.cells ? conv.cells(obj, now) : json::array({kube::NameOf(obj)});
    if (!cells.is_array()) cells = json::array({kube::NameOf(obj)});
    while (cells.size() < conv.columns.size()) cells.push_back("");
    json row = {{"cells", cells}};
    if (include == "Object") {
      row["object"] = obj;
    } else if (include != "None") {
      json meta = obj.contains("metadata") ? obj["metadata"] : json::object();
      if (meta.is_object()) meta.erase("managedFields");
      row["object"] = {{"kind", "PartialObjectMetadata"}, {"apiVersion", "meta.k8s.io/v1"}, {"metadata", meta}};
    }
    return row;
  }

  json Table(const kube::ResourceType& type, const std::vector<kube::ObjectPtr>& objects, const std::string& rv,
             const std::string& version, const std::string& include) {
    const TableConverter& conv = ConverterFor(type);
    json columns = json::array();
    for (const TableColumn& c : conv.columns) {
      json col = {{"name", c.name}, {"type", c.type}, {"format", c.format}, {"description", c.description},
                  {"priority", c.priority}};
      columns.push_back(std::move(col));
    }
    if (columns.empty()) columns.push_back(NameColumn());
    const kube::Micros now = Now();
    json rows = json::array();
    for (const auto& obj : objects) rows.push_back(TableRow(conv, *obj, now, include));
    json meta = json::object();
    if (!rv.empty()) meta["resourceVersion"] = rv;
    return {{"kind", "Table"},
            {"apiVersion", "meta.k8s.io/" + version},
            {"metadata", meta},
            {"columnDefinitions", columns},
            {"rows", rows}};
  }

  // --- request bodies -----------------------------------------------------------------------

  // JSON, or YAML when the content type says so (and for server-side apply, whose YAML body
  // kubectl happens to write as JSON).
  kube::Result<json> ParseBody(const httplib::Request& req, bool yaml_allowed) {
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

  // --- handlers -----------------------------------------------------------------------------

  void Handle(const httplib::Request& req, httplib::Response& res) {
    try {
      Dispatch(req, res);
    } catch (const std::exception& e) {
      SendStatus(res, kube::Status::Internal(e.what()));
    } catch (...) {
      SendStatus(res, kube::Status::Internal("unexpected error"));
    }
  }

  void Dispatch(const httplib::Request& req, httplib::Response& res) {
    std::vector<std::string> segs;
    for (auto& s : Split(req.path, '/'))
      if (!s.empty()) segs.push_back(s);
    const std::string& method = req.method;
    const bool get = method == "GET" || method == "HEAD";

    if (segs.empty()) {
      if (!get) return SendStatus(res, kube::Status::MethodNotAllowed("the server does not allow this method on the requested resource"));
      return SendJson(res, 200, {{"paths", {"/api", "/api/v1", "/apis", "/openapi/v3", "/version", "/healthz"}}});
    }
    if (segs[0] == "healthz" || segs[0] == "readyz" || segs[0] == "livez") {
      res.status = 200;
      res.set_content("ok", kText);
      return;
    }
    if (segs[0] == "version" && segs.size() == 1) {
      if (!get) return SendStatus(res, kube::Status::MethodNotAllowed("the server does not allow this method on the requested resource"));
      return SendJson(res, 200, VersionInfo());
    }
    if (segs[0] == "openapi") return OpenApi(req, res, segs);
    if (segs[0] != "api" && segs[0] != "apis") return SendStatus(res, PathNotFound());

    std::string group, version;
    std::size_t rest_at = 0;
    if (segs[0] == "api") {
      if (segs.size() == 1) {
        if (!get) return SendStatus(res, kube::Status::MethodNotAllowed("the server does not allow this method on the requested resource"));
        return SendJson(res, 200, {{"kind", "APIVersions"}, {"versions", {"v1"}},
                                   {"serverAddressByClientCIDRs", json::array({{{"clientCIDR", "0.0.0.0/0"},
                                                                                {"serverAddress", options.address + ":" + std::to_string(bound_port)}}})}});
      }
      version = segs[1];
      rest_at = 2;
    } else {
      if (segs.size() == 1) {
        if (!get) return SendStatus(res, kube::Status::MethodNotAllowed("the server does not allow this method on the requested resource"));
        json groups = json::array();
        for (const auto& g : Groups()) {
          json entry = ApiGroup(g);
          entry.erase("kind");
          entry.erase("apiVersion");
          groups.push_back(std::move(entry));
        }
        return SendJson(res, 200, {{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", groups}});
      }
      group = segs[1];
      if (segs.size() == 2) {
        if (VersionsOf(group).empty()) return SendStatus(res, PathNotFound());
        return SendJson(res, 200, ApiGroup(group));
      }
      version = segs[2];
      rest_at = 3;
    }
    if (!ServesGroupVersion(group, version)) return SendStatus(res, PathNotFound());
    if (segs.size() == rest_at) {
      if (!get) return SendStatus(res, kube::Status::MethodNotAllowed("the server does not allow this method on the requested resource"));
      return SendJson(res, 200, ResourceList(group, version));
    }
    Target target;
    if (!Resolve(group, version, std::vector<std::string>(segs.begin() + rest_at, segs.end()), &target))
      return SendStatus(res, PathNotFound());
    Resource(req, res, target);
  }

  void OpenApi(const httplib::Request& req, httplib::Response& res, const std::vector<std::string>& segs) {
    if (segs.size() >= 2 && segs[1] == "v3") {
      if (segs.size() == 2) return SendJson(res, 200, OpenApiRoot());
      std::string group, version;
      if (segs.size() == 4 && segs[2] == "api") {
        version = segs[3];
      } else if (segs.size() == 5 && segs[2] == "apis") {
        group = segs[3];
        version = segs[4];
      } else {
        return SendStatus(res, PathNotFound());
      }
      if (!ServesGroupVersion(group, version)) return SendStatus(res, PathNotFound());
      (void)req;
      return SendJson(res, 200, OpenApiDocument(group, version));
    }
    // /openapi/v2 is protobuf only in kubectl's eyes; a 404 makes it use v3.
    SendStatus(res, PathNotFound());
  }

  void Resource(const httplib::Request& req, httplib::Response& res, const Target& t) {
    const std::string& m = req.method;
    const kube::ResourceType& type = *t.type;
    if (t.name.empty()) {
      if (m == "GET" || m == "HEAD") {
        if (Truthy(req.get_param_value("watch"))) return Watch(req, res, t);
        return List(req, res, t);
      }
      if (m == "POST") {
        if (type.namespaced && t.ns.empty())
          return SendStatus(res, kube::Status::MethodNotAllowed("POST on " + type.plural + " needs a namespace in the path"));
        return Create(req, res, t);
      }
      return SendStatus(res, kube::Status::MethodNotAllowed("the server does not allow this method on the requested resource"));
    }
    if (!t.subresource.empty() && t.subresource != "status" && !(t.subresource == "log" && type.group.empty() && type.plural == "pods"))
      return SendStatus(res, PathNotFound());
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
    SendStatus(res, kube::Status::MethodNotAllowed("the server does not allow this method on the requested resource"));
  }

  void List(const httplib::Request& req, httplib::Response& res, const Target& t) {
    kube::ListOptions opts;
    opts.namespace_ = t.ns;
    opts.label_selector = req.get_param_value("labelSelector");
    opts.field_selector = req.get_param_value("fieldSelector");
    const std::string table = TableVersion(req);
    const std::string include = req.get_param_value("includeObject");
    Run([&] {
      auto listed = store.List(t.type->QualifiedName(), opts);
      if (!listed.ok()) return SendStatus(res, listed.status());
      if (!table.empty()) return SendJson(res, 200, Table(*t.type, listed->items, listed->resource_version, table, include));
      json items = json::array();
      for (const auto& obj : listed->items) items.push_back(*obj);
      SendJson(res, 200, {{"kind", t.type->kind + "List"},
                          {"apiVersion", t.type->ApiVersion()},
                          {"metadata", {{"resourceVersion", listed->resource_version}}},
                          {"items", std::move(items)}});
    });
  }

  void GetOne(const httplib::Request& req, httplib::Response& res, const Target& t) {
    const std::string table = TableVersion(req);
    const std::string include = req.get_param_value("includeObject");
    Run([&] {
      auto got = store.Get(t.type->QualifiedName(), t.ns, t.name);
      if (!got.ok()) return SendStatus(res, Qualify(got.status(), *t.type));
      if (!table.empty())
        return SendJson(res, 200, Table(*t.type, {*got}, kube::ResourceVersionOf(**got), table, include));
      SendJson(res, 200, **got);
    });
  }

  void Create(const httplib::Request& req, httplib::Response& res, const Target& t) {
    if (req.has_param("dryRun")) return SendStatus(res, kube::Status::BadRequest("dryRun is not supported by this server"));
    auto body = ParseBody(req, true);
    if (!body.ok()) return SendStatus(res, body.status());
    if (!body->is_object()) return SendStatus(res, kube::Status::BadRequest("the object to create must be a JSON object"));
    Run([&] {
      auto created = store.Create(t.type->QualifiedName(), std::move(body.value()), t.ns);
      if (!created.ok()) return SendStatus(res, Qualify(created.status(), *t.type));
      SendJson(res, 201, **created);
    });
  }

  // The URL names the object; a body that names another one is refused, as kube-apiserver does.
  static kube::Status CheckIdentity(json& obj, const Target& t) {
    if (!obj.is_object()) return kube::Status::BadRequest("the object must be a JSON object");
    json& meta = obj["metadata"];
    if (!meta.is_object()) meta = json::object();
    std::string name = meta.value("name", "");
    if (name.empty()) meta["name"] = t.name;
    else if (name != t.name)
      return kube::Status::BadRequest("the name of the object (" + name + ") does not match the name on the URL (" + t.name + ")");
    if (t.type->namespaced) {
      std::string ns = meta.value("namespace", "");
      if (ns.empty()) meta["namespace"] = t.ns;
      else if (ns != t.ns)
        return kube::Status::BadRequest("the namespace of the object (" + ns + ") does not match the namespace on the URL (" + t.ns + ")");
    }
    return kube::Status::Ok();
  }

  void Update(const httplib::Request& req, httplib::Response& res, const Target& t) {
    if (req.has_param("dryRun")) return SendStatus(res, kube::Status::BadRequest("dryRun is not supported by this server"));
    auto body = ParseBody(req, true);
    if (!body.ok()) return SendStatus(res, body.status());
    if (kube::Status s = CheckIdentity(body.value(), t); !s.ok()) return SendStatus(res, s);
    Run([&] {
      auto updated = t.subresource == "status" ? store.UpdateStatus(t.type->QualifiedName(), std::move(body.value()))
                                               : store.Update(t.type->QualifiedName(), std::move(body.value()));
      if (!updated.ok()) return SendStatus(res, Qualify(updated.status(), *t.type));
      SendJson(res, 200, **updated);
    });
  }

  void Patch(const httplib::Request& req, httplib::Response& res, const Target& t) {
    if (req.has_param("dryRun")) return SendStatus(res, kube::Status::BadRequest("dryRun is not supported by this server"));
    const std::string type = MediaParams(req.get_header_value("Content-Type"))[""];
    enum class Kind { kMerge, kStrategic, kJsonPatch, kApply } kind;
    if (type == "application/merge-patch+json") kind = Kind::kMerge;
    else if (type == "application/strategic-merge-patch+json") kind = Kind::kStrategic;
    else if (type == "application/json-patch+json") kind = Kind::kJsonPatch;
    else if (type == "application/apply-patch+yaml") kind = Kind::kApply;
    else
      return SendStatus(res, kube::Status::UnsupportedMediaType("the body of the request was in an unknown format - accepted media types "
                                                          "include: application/json-patch+json, application/merge-patch+json, "
                                                          "application/apply-patch+yaml, application/strategic-merge-patch+json"));
    auto body = ParseBody(req, kind == Kind::kApply);
    if (!body.ok()) return SendStatus(res, body.status());
    const json& patch = *body;
    if (kind == Kind::kJsonPatch ? !patch.is_array() : !patch.is_object())
      return SendStatus(res, kube::Status::BadRequest(kind == Kind::kJsonPatch ? "a JSON patch must be a list of operations"
                                                                         : "a patch must be a JSON object"));
    const std::string resource = t.type->QualifiedName();
    Run([&] {
      auto current = store.Get(resource, t.ns, t.name);
      if (!current.ok()) {
        if (kind == Kind::kApply && current.status().IsNotFound() && t.subresource.empty()) return ApplyCreate(res, t, patch);
        return SendStatus(res, Qualify(current.status(), *t.type));
      }
      json next;
      if (kind == Kind::kMerge) {
        auto patched = store.Patch(resource, t.ns, t.name, patch, kube::PatchType::kMerge, t.subresource);
        if (!patched.ok()) return SendStatus(res, Qualify(patched.status(), *t.type));
        return SendJson(res, 200, **patched);
      }
      next = **current;
      if (kind == Kind::kJsonPatch) {
        try {
          next = next.patch(patch);
        } catch (const json::exception& e) {
          return SendStatus(res, MakeStatus(422, "Invalid", std::string("the JSON patch could not be applied: ") + e.what()));
        }
      } else if (kind == Kind::kStrategic || IsBuiltIn(*t.type)) {
        ApplyStrategicPatch(next, patch);
      } else {
        ApplyMergePatch(next, patch);
      }
      if (!next.is_object()) return SendStatus(res, kube::Status::BadRequest("the patched object is not a JSON object"));
      // Identity is the URL's whatever the patch says; a changed resourceVersion is a precondition.
      json merge = CreateMergePatch(**current, next);
      if (merge.contains("metadata") && merge["metadata"].is_object()) {
        merge["metadata"].erase("name");
        merge["metadata"].erase("namespace");
        merge["metadata"].erase("uid");
        merge["metadata"].erase("creationTimestamp");
        if (kind == Kind::kApply) merge["metadata"].erase("resourceVersion");
      }
      if (kind == Kind::kApply) {
        merge.erase("apiVersion");
        merge.erase("kind");
      }
      auto patched = store.Patch(resource, t.ns, t.name, merge, kube::PatchType::kMerge, t.subresource);
      if (!patched.ok()) return SendStatus(res, Qualify(patched.status(), *t.type));
      SendJson(res, 200, **patched);
    });
  }

  // Server-side apply of an object that does not exist yet: a create (201), if the applied
  // configuration says what it is.
  void ApplyCreate(httplib::Response& res, const Target& t, const json& applied) {
    json obj = applied;
    if (Str(obj, {"apiVersion"}) != t.type->ApiVersion() || Str(obj, {"kind"}) != t.type->kind)
      return SendStatus(res, kube::Status::BadRequest("apiVersion and kind of the applied object must be " + t.type->ApiVersion() +
                                                ", " + t.type->kind));
    if (kube::Status s = CheckIdentity(obj, t); !s.ok()) return SendStatus(res, s);
    auto created = store.Create(t.type->QualifiedName(), std::move(obj), t.ns);
    if (!created.ok()) return SendStatus(res, Qualify(created.status(), *t.type));
    SendJson(res, 201, **created);
  }

  void Delete(const httplib::Request& req, httplib::Response& res, const Target& t) {
    if (req.has_param("dryRun")) return SendStatus(res, kube::Status::BadRequest("dryRun is not supported by this server"));
    kube::DeleteOptions opts;
    json body = json::object();
    if (!req.body.empty()) {
      auto parsed = ParseBody(req, true);
      if (!parsed.ok()) return SendStatus(res, parsed.status());
      if (!parsed->is_object()) return SendStatus(res, kube::Status::BadRequest("DeleteOptions must be a JSON object"));
      body = *parsed;
    }
    std::string policy = req.has_param("propagationPolicy") ? req.get_param_value("propagationPolicy")
                                                            : Str(body, {"propagationPolicy"});
    if (const json* orphan = Find(body, {"orphanDependents"}); orphan && orphan->is_boolean() && policy.empty())
      policy = orphan->get<bool>() ? "Orphan" : "Background";
    if (policy == "Background") opts.propagation = kube::PropagationPolicy::kBackground;
    else if (policy == "Foreground") opts.propagation = kube::PropagationPolicy::kForeground;
    else if (policy == "Orphan") opts.propagation = kube::PropagationPolicy::kOrphan;
    else if (!policy.empty())
      return SendStatus(res, kube::Status::Invalid("DeleteOptions", "", {{"FieldValueNotSupported", "propagationPolicy",
                                                                    "Unsupported value: \"" + policy +
                                                                        "\": supported values: \"Foreground\", \"Background\", \"Orphan\""}}));
    if (req.has_param("gracePeriodSeconds")) {
      auto g = ParseInt(req.get_param_value("gracePeriodSeconds"));
      if (!g) return SendStatus(res, kube::Status::BadRequest("gracePeriodSeconds must be an integer"));
      opts.grace_period_seconds = *g;
    } else if (const json* g = Find(body, {"gracePeriodSeconds"}); g && g->is_number_integer()) {
      opts.grace_period_seconds = g->get<std::int64_t>();
    }
    if (std::string uid = Str(body, {"preconditions", "uid"}); !uid.empty()) opts.precondition_uid = uid;
    if (std::string rv = Str(body, {"preconditions", "resourceVersion"}); !rv.empty()) opts.precondition_resource_version = rv;
    Run([&] {
      auto deleted = store.Delete(t.type->QualifiedName(), t.ns, t.name, opts);
      if (!deleted.ok()) return SendStatus(res, Qualify(deleted.status(), *t.type));
      SendJson(res, 200, **deleted);
    });
  }

  // --- watch --------------------------------------------------------------------------------

  struct WatchState {
    std::shared_ptr<kube::WatchStream> stream;
    const kube::ResourceType* type = nullptr;
    std::string table;    // "" = objects, else the Table version
    std::string include;  // includeObject
    std::optional<SteadyClock::time_point> deadline;
    SteadyClock::time_point last_write;
  };

  void Watch(const httplib::Request& req, httplib::Response& res, const Target& t) {
    kube::WatchOptions opts;
    opts.namespace_ = t.ns;
    opts.label_selector = req.get_param_value("labelSelector");
    opts.field_selector = req.get_param_value("fieldSelector");
    opts.resource_version = req.get_param_value("resourceVersion");
    opts.allow_bookmarks = Truthy(req.get_param_value("allowWatchBookmarks"));
    auto state = std::make_shared<WatchState>();
    state->type = t.type;
    state->table = TableVersion(req);
    state->include = req.get_param_value("includeObject");
    if (req.has_param("timeoutSeconds")) {
      auto secs = ParseInt(req.get_param_value("timeoutSeconds"));
      if (!secs || *secs < 0) return SendStatus(res, kube::Status::BadRequest("timeoutSeconds must be a non-negative integer"));
      if (*secs > 0) state->deadline = SteadyClock::now() + std::chrono::seconds(*secs);
    }
    kube::Status failed;
    Run([&] {
      auto watch = store.Watch(t.type->QualifiedName(), opts);
      if (!watch.ok()) {
        failed = watch.status();
        return;
      }
      state->stream = *watch;
    });
    if (!failed.ok()) return SendStatus(res, failed);
    {
      std::lock_guard<std::mutex> lock(streams_mu);
      if (stopping) {
        state->stream->Stop();
        return SendStatus(res, MakeStatus(503, "ServiceUnavailable", "the server is shutting down"));
      }
      streams.insert(state->stream);
    }
    state->last_write = SteadyClock::now();
    res.status = 200;
    res.set_chunked_content_provider(
        kJson, [this, state](std::size_t, httplib::DataSink& sink) { return PumpWatch(*state, sink); },
        [this, state](bool) {
          state->stream->Stop();
          std::lock_guard<std::mutex> lock(streams_mu);
          streams.erase(state->stream);
        });
  }

  json EventJson(const WatchState& state, const kube::WatchEvent& e, kube::Micros now) {
    json out = {{"type", kube::WatchEventTypeName(e.type)}};
    if (!e.object) {
      out["object"] = json::object();
    } else if (!state.table.empty() && (e.type == kube::WatchEventType::kAdded || e.type == kube::WatchEventType::kModified ||
                                        e.type == kube::WatchEventType::kDeleted)) {
      json table = Table(*state.type, {e.object}, kube::ResourceVersionOf(*e.object), state.table, state.include);
      (void)now;
      out["object"] = std::move(table);
    } else {
      out["object"] = *e.object;
    }
    return out;
  }

  // One turn of a watch stream: write what is queued, or wait for it up to the keep-alive.
  // Returning false (a failed write: the client went away) ends the connection.
  bool PumpWatch(WatchState& state, httplib::DataSink& sink) {
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
        const kube::Micros api_now = Now();
        for (const kube::WatchEvent& e : events) {
          if (e.type == kube::WatchEventType::kBookmark && !state.table.empty()) continue;
          out += Dump(EventJson(state, e, api_now));
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

  // --- logs ---------------------------------------------------------------------------------

  void Logs(const httplib::Request& req, httplib::Response& res, const Target& t) {
    const bool previous = Truthy(req.get_param_value("previous"));
    const bool follow = Truthy(req.get_param_value("follow"));
    std::optional<std::int64_t> tail;
    if (req.has_param("tailLines")) {
      tail = ParseInt(req.get_param_value("tailLines"));
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
        for (const json& c : Array(**pod, {"spec", list})) names.push_back(Str(c, {"name"}));
      const json& app = Array(**pod, {"spec", "containers"});
      if (container.empty()) {
        if (app.size() != 1) {
          std::string choices;
          for (const json& c : app) choices += (choices.empty() ? "" : " ") + Str(c, {"name"});
          failed = kube::Status::BadRequest("a container name must be specified for pod " + t.name + ", choose one of: [" + choices + "]");
          return;
        }
        container = Str(app[0], {"name"});
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
      res.set_content(text, kText);
      return;
    }
    // Follow: what is there now, then every new line until the container finishes.
    struct FollowState {
      std::string pending;
      std::size_t sent = 0;  // lines of the log already sent
      bool done = false;
    };
    auto state = std::make_shared<FollowState>();
    state->pending = std::move(text);
    state->sent = log.lines.size();
    const std::string ns = t.ns, pod_name = t.name;
    res.status = 200;
    res.set_chunked_content_provider(kText, [this, state, ns, pod_name, container, previous](std::size_t, httplib::DataSink& sink) {
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
    });
  }
};

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

kube::Status HttpServer::Start() {
  Impl& d = *impl_;
  if (d.started) return kube::Status::Ok();
  if (!d.options.clock) return kube::Status::BadRequest("HttpServerOptions.clock is required");
  // A client that goes away mid-write must cost an error return, not the process.
  std::signal(SIGPIPE, SIG_IGN);
  const std::size_t max_threads = d.options.max_threads;
  d.server.new_task_queue = [max_threads] { return new ConnectionThreads(max_threads); };
  d.server.set_payload_max_length(d.options.max_body_bytes);
  // SO_REUSEADDR only: cpp-httplib's default SO_REUSEPORT would let a second server bind a port
  // already in use and take half its connections.
  d.server.set_socket_options([](socket_t sock) {
    int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  d.server.set_keep_alive_timeout(5);
  d.server.set_read_timeout(30);
  d.server.set_write_timeout(30);
  auto handler = [this](const httplib::Request& req, httplib::Response& res) { impl_->Handle(req, res); };
  const std::string all = ".*";
  d.server.Get(all, handler);
  d.server.Post(all, handler);
  d.server.Put(all, handler);
  d.server.Patch(all, handler);
  d.server.Delete(all, handler);
  d.server.Options(all, [](const httplib::Request&, httplib::Response& res) { res.status = 204; });
  // Errors cpp-httplib produces itself (an oversized body, a malformed request) get a Status too.
  d.server.set_error_handler(httplib::Server::HandlerWithResponse([this](const httplib::Request&, httplib::Response& res) {
    if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
    kube::Status s;
    switch (res.status) {
      case 413:
        s = kube::Status::TooLarge("the request body is larger than the limit of " + std::to_string(impl_->options.max_body_bytes) + " bytes");
        break;
      case 404: s = PathNotFound(); break;
      case 400: s = kube::Status::BadRequest("the request could not be read"); break;
      default: s = MakeStatus(res.status, res.status >= 500 ? "InternalError" : "BadRequest", "the request failed"); break;
    }
    res.set_content(Dump(s.ToJson()), kJson);
    return httplib::Server::HandlerResponse::Handled;
  }));
  d.server.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
    res.status = 500;
    res.set_content(Dump(kube::Status::Internal("unexpected error").ToJson()), kJson);
  });
  int port = d.options.port;
  if (port == 0) {
    port = d.server.bind_to_any_port(d.options.address);
    if (port < 0) return kube::Status::Internal("cannot bind to " + d.options.address);
  } else if (!d.server.bind_to_port(d.options.address, port)) {
    return kube::Status::Internal("cannot bind to " + d.options.address + ":" + std::to_string(port));
  }
  d.bound_port = port;
  d.started = true;
  d.listener_done = false;
  d.listener = std::thread([this] {
    impl_->server.listen_after_bind();
    impl_->listener_done = true;
  });
  // cpp-httplib's stop() does nothing until the accept loop runs: wait for it, so that a Stop()
  // right after Start() cannot miss it.
  while (!d.server.is_running() && !d.listener_done) std::this_thread::sleep_for(std::chrono::milliseconds(1));
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
  d.server.stop();
  if (d.listener.joinable()) d.listener.join();
  d.started = false;
}

int HttpServer::port() const { return impl_->bound_port; }

std::string HttpServer::url() const { return "http://" + impl_->options.address + ":" + std::to_string(impl_->bound_port); }

}  // namespace fakeapi
