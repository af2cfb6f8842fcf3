// The simulated kubelet. See kubelet.h.
#include "sim/cluster/kubelet.h"

#include "fakeapi/client/json_path.h"
#include "fakeapi/client/quantity.h"
#include "fakeapi/server/rbac_bootstrap.h"
#include "sim/kernel/trace.h"

#include <algorithm>
#include <tuple>
#include <utility>

namespace sim {

using kube::ObjectPtr;
using json = kube::Json;

namespace {

// Adds `key` to an object whose members are added in key order: the flat map then appends it
// without a search (a key out of order is still put in its place, only slower).
template <class V>
void Append(json::object_t& members, const char* key, V&& value) {
  members.emplace_hint(members.end(), key, std::forward<V>(value));
}

using kube::JsonAt;
using kube::JsonString;

bool HasDeletionTimestamp(const json& pod) {
  const json* ts = JsonAt(pod, {"metadata", "deletionTimestamp"});
  return ts && ts->is_string() && !ts->get_ref<const std::string&>().empty();
}

std::uint64_t Fnv1a(std::string_view text, std::uint64_t salt) {
  std::uint64_t h = 1469598103934665603ULL ^ (salt * 0x9e3779b97f4a7c15ULL);
  for (unsigned char ch : text) {
    h ^= ch;
    h *= 1099511628211ULL;
  }
  return h;
}

// 64 hex digits derived from `text`: stands in for sha256 digests and container ids (four FNV-1a
// hashes, each as the trace's 16 lowercase hex digits).
std::string Hex64(std::string_view text) {
  std::string out;
  out.reserve(64);
  for (std::uint64_t salt = 1; salt <= 4; ++salt) out += sim::Hex64(Fnv1a(text, salt));
  return out;
}

std::string Joined(const std::vector<std::string>& names) {
  std::string out = "[";
  for (std::size_t i = 0; i < names.size(); ++i) out += (i ? " " : "") + names[i];
  return out + "]";
}

const char* kCrashLoopBackOff = "CrashLoopBackOff";

}  // namespace

std::string NormalizeImage(const std::string& image) {
  std::string name = image, suffix;
  auto at = name.find('@');
  if (at != std::string::npos) suffix = name.substr(at), name = name.substr(0, at);
  auto slash = name.rfind('/');
  auto colon = name.rfind(':');
  if (suffix.empty() && (colon == std::string::npos || (slash != std::string::npos && colon < slash)))
    name += ":latest";
  auto first = name.find('/');
  if (first == std::string::npos) {
    name = "docker.io/library/" + name;
  } else {
    std::string head = name.substr(0, first);
    bool domain = head.find('.') != std::string::npos || head.find(':') != std::string::npos || head == "localhost";
    if (!domain) name = "docker.io/" + name;
  }
  return name + suffix;
}

// ---- per-pod state --------------------------------------------------------------------------

struct Kubelet::Container {
  enum class State { kWaiting, kRunning, kTerminated };
  bool init = false;
  std::size_t index = 0;
  json spec;
  std::string name, image, normalized_image, policy;
  std::int64_t memory_limit = 0;  // 0: none

  State state = State::kWaiting;
  std::string reason, message;  // while waiting
  Micros started_at = 0, finished_at = 0;  // API time
  Micros finished_sim = 0;                  // simulated time, for back-off
  int exit_code = 0;
  std::string term_reason, term_message;
  std::string container_id, image_id;
  json last_state = json::object();
  int runs = 0;

  // What the container's status (Kubelet::ContainerStatus) is built from, but for what never
  // changes (name, image, init): the JSON last built is reused, sealed, while they stay the same.
  struct StatusInputs {
    State state = State::kWaiting;
    std::string reason, message;
    Micros started_at = 0, finished_at = 0;
    int exit_code = 0;
    std::string term_reason, term_message;
    std::string container_id, image_id;
    json last_state;
    int runs = 0;
  };
  // The fields above as references, of a Container or of StatusInputs (they share the names): one
  // list for the copy and the comparison, which reads in place (no copies on every flush).
  template <class T>
  static auto StatusFields(T& x) {
    return std::tie(x.state, x.reason, x.message, x.started_at, x.finished_at, x.exit_code, x.term_reason,
                    x.term_message, x.container_id, x.image_id, x.last_state, x.runs);
  }
  void NoteStatusInputs() { StatusFields(status_inputs) = StatusFields(std::as_const(*this)); }
  bool StatusUnchanged() const { return StatusFields(*this) == StatusFields(status_inputs); }
  StatusInputs status_inputs;
  json status_built;  // null until first built

  bool busy = false;          // a pull, a start or a back-off timer is pending
  std::uint64_t attempt = 0;  // bumped to invalidate pending pulls and timers
  Backoff crash, pull;
  std::unique_ptr<Run> run;
  std::vector<std::string> logs, previous_logs;

  json TerminatedJson() const {  // members in key order (Append)
    json t = json::object();
    auto& m = t.get_ref<json::object_t&>();
    m.reserve(6);
    if (!container_id.empty()) Append(m, "containerID", container_id);
    Append(m, "exitCode", exit_code);
    Append(m, "finishedAt", kube::FormatTime(finished_at));
    if (!term_message.empty()) Append(m, "message", term_message);
    Append(m, "reason", term_reason);
    Append(m, "startedAt", kube::FormatTime(started_at));
    return t;
  }
};

struct Kubelet::PodState {
  explicit PodState(Engine& engine) : events(engine) {}
  std::string key, ns, name, uid;
  std::uint64_t serial = 0;  // names this pod instance in the pull queue and the IP waiters
  ObjectPtr pod;
  std::string restart_policy;
  std::string default_reason;  // PodInitializing with init containers, else ContainerCreating

  bool sandbox = false;
  bool waiting_ip = false;
  std::uint32_t ip_offset = 0;  // 0: holds no address
  std::string ip;
  Micros start_time = 0;
  std::map<std::string, EmptyDir, std::less<>> volumes;  // before the containers: programs use them
  std::vector<Container> init, main;
  std::size_t next_init = 0;

  bool terminating = false;
  bool deletion_confirmed = false;
  std::string terminal_phase;  // sticky once Succeeded or Failed
  Micros down_at = 0;

  EventId sandbox_timer, kill_timer, flush;
  json last_written;
  // A condition the kubelet computes: its status and when that last changed, and the JSON last
  // built for it with the reason and message it was built with (sealed, json.h: each status
  // written shares it until one of them changes, instead of a copy of its own).
  struct Condition {
    std::string status;
    Micros time;
    std::string reason, message;
    json built;
  };
  std::map<std::string, Condition> conditions;

  template <class F>
  void ForEachContainer(F f) {
    for (auto& c : init) f(c);
    for (auto& c : main) f(c);
  }
  bool AnyRunning() const {
    for (const auto& c : init)
      if (c.state == Container::State::kRunning) return true;
    for (const auto& c : main)
      if (c.state == Container::State::kRunning) return true;
    return false;
  }

  OwnedEvents events;  // the pod's timers and status writes; last: they die with the pod
};

// ---- the API as a container's processes see it ------------------------------------------------

// A pod's processes call the API with their service account's token, not as the node: each call
// goes through the kubelet's client (its injected faults and latency, its audit and refusal
// reports) with the kubelet's identity swapped for the pod's service account while it runs, so
// RBAC judges system:serviceaccount:NS:SA (spec.serviceAccountName, "default" when unset).
class PodIdentityClient final : public kube::Client {
  // Runs `call` on the kubelet's client as the pod's service account.
  template <class Call>
  auto As(Call&& call) {
    fakeapi::AuthorizingClient& auth = kubelet_.authorizing_client();
    fakeapi::rbac::UserInfo node = auth.user();
    auth.SetUser(user_);
    auto result = call(kubelet_.client());
    auth.SetUser(std::move(node));
    return result;
  }

 public:
  PodIdentityClient(Actor& kubelet, fakeapi::rbac::UserInfo user) : kubelet_(kubelet), user_(std::move(user)) {}
  const fakeapi::rbac::UserInfo& user() const { return user_; }

  kube::Result<kube::ObjectPtr> Create(const std::string& resource, json object, const std::string& ns) override {
    return As([&](kube::Client& c) { return c.Create(resource, std::move(object), ns); });
  }
  kube::Result<kube::ObjectPtr> Get(const std::string& resource, const std::string& ns, const std::string& name) override {
    return As([&](kube::Client& c) { return c.Get(resource, ns, name); });
  }
  kube::Result<kube::ListResult> List(const std::string& resource, const kube::ListOptions& options) override {
    return As([&](kube::Client& c) { return c.List(resource, options); });
  }
  kube::Result<kube::ObjectPtr> Update(const std::string& resource, json object) override {
    return As([&](kube::Client& c) { return c.Update(resource, std::move(object)); });
  }
  kube::Result<kube::ObjectPtr> UpdateStatus(const std::string& resource, json object) override {
    return As([&](kube::Client& c) { return c.UpdateStatus(resource, std::move(object)); });
  }
  kube::Result<kube::ObjectPtr> Patch(const std::string& resource, const std::string& ns, const std::string& name,
                                      const json& patch, kube::PatchType type, const std::string& subresource) override {
    return As([&](kube::Client& c) { return c.Patch(resource, ns, name, patch, type, subresource); });
  }
  kube::Result<kube::ObjectPtr> Delete(const std::string& resource, const std::string& ns, const std::string& name,
                                       const kube::DeleteOptions& options) override {
    return As([&](kube::Client& c) { return c.Delete(resource, ns, name, options); });
  }
  kube::Result<kube::WatchPtr> Watch(const std::string& resource, const kube::WatchOptions& options) override {
    return As([&](kube::Client& c) { return c.Watch(resource, options); });
  }
  // kubectl exec's authorization: create pods/exec on `pod` in `ns`.
  kube::Status Exec(const std::string& ns, const std::string& pod) {
    return As([&](kube::Client&) { return kubelet_.authorizing_client().Check("create", "pods", "exec", ns, pod); });
  }


 private:
  Actor& kubelet_;
  fakeapi::rbac::UserInfo user_;
};

// The identity of `pod`'s processes: its service account.
fakeapi::rbac::UserInfo PodServiceAccount(const json& pod) {
  std::string sa = JsonString(pod, {"spec", "serviceAccountName"});
  if (sa.empty()) sa = JsonString(pod, {"spec", "serviceAccount"});
  return fakeapi::rbac::ServiceAccountUser(kube::NamespaceOf(pod), sa.empty() ? "default" : sa);
}

// ---- a program's watch ----------------------------------------------------------------------

// The program's informer is pumped like every actor's (sim/cluster/simulation.h), on the kubelet's
// client as the pod's service account.
class Kubelet::Watch : public ProgramWatch {
 public:
  Watch(Kubelet& kubelet, fakeapi::rbac::UserInfo user, std::string resource, kube::ListOptions filter,
        kube::InformerHandlers handlers)
      : client_(kubelet, std::move(user)),
        pumped_(kubelet.sim(), client_, std::move(resource), std::move(filter), std::move(handlers)) {}
  kube::Informer& informer() override { return pumped_.informer(); }

 private:
  PodIdentityClient client_;  // before pumped_: the informer calls it until it dies
  PumpedInformer pumped_;
};

// ---- one run of a container: the program and its context -------------------------------------

class Kubelet::Run : public ProgramContext {
 public:
  Run(Kubelet& kubelet, PodState& pod, Container& container, std::unique_ptr<ContainerProgram> program)
      : kubelet_(kubelet),
        pod_state_(pod),
        container_(container),
        pod_(pod.pod),
        api_(kubelet, PodServiceAccount(*pod.pod)),
        program_(std::move(program)) {
    auto strings = [&](const char* field) {
      std::vector<std::string> out;
      if (auto it = container.spec.find(field); it != container.spec.end() && it->is_array())
        for (const auto& s : *it)
          if (s.is_string()) out.push_back(s.get<std::string>());
      return out;
    };
    command_ = strings("command");
    args_ = strings("args");
    if (auto it = container.spec.find("env"); it != container.spec.end() && it->is_array()) {
      for (const auto& e : *it) {
        std::string name = JsonString(e, {"name"});
        if (name.empty()) continue;
        if (auto v = e.find("value"); v != e.end() && v->is_string()) {
          env_[name] = v->get<std::string>();
        } else if (const json* f = JsonAt(e, {"valueFrom", "fieldRef", "fieldPath"}); f && f->is_string()) {
          const std::string& path = f->get_ref<const std::string&>();
          if (path == "metadata.name") env_[name] = pod.name;
          else if (path == "metadata.namespace") env_[name] = pod.ns;
          else if (path == "metadata.uid") env_[name] = pod.uid;
          else if (path == "spec.nodeName") env_[name] = kubelet.node_name();
          else if (path == "status.podIP") env_[name] = pod.ip;
          else if (path == "status.hostIP") env_[name] = kubelet.config_.host_ip;
        }
      }
    }
  }
  ~Run() override {
    events_.CancelAll();
    program_.reset();  // drops the program's watches first
    if (Network* net = kubelet_.config_.network)
      for (FlowId id : flows_) net->CancelFlow(id);
  }

  void Begin() { program_->Start(*this); }
  void Stop(Micros grace) {
    if (!exited_) program_->Stop(*this, grace);
  }
  void NodeDown() { program_->OnNodeDown(*this); }
  bool exited() const { return exited_; }

  const json& pod() const override { return *pod_; }
  const json& container() const override { return container_.spec; }
  const std::string& node_name() const override { return kubelet_.node_name(); }
  const std::vector<std::string>& command() const override { return command_; }
  const std::vector<std::string>& args() const override { return args_; }
  const std::map<std::string, std::string>& env() const override { return env_; }
  Micros Now() const override { return kubelet_.sim().Now(); }

  EventId After(Micros delay, std::function<void()> fn) override {
    if (exited_) return {};
    return events_.After(delay, std::move(fn));
  }
  bool Cancel(EventId id) override { return events_.Cancel(id); }
  kube::Client& client() override { return api_; }
  kube::Client& volume_client() override { return kubelet_.client(); }
  kube::Status Exec(const std::string& pod) override { return api_.Exec(pod_state_.ns, pod); }
  std::unique_ptr<ProgramWatch> Watch(std::string resource, kube::ListOptions filter,
                                      kube::InformerHandlers handlers) override {
    return std::make_unique<Kubelet::Watch>(kubelet_, api_.user(), std::move(resource), std::move(filter),
                                            std::move(handlers));
  }
  void Log(std::string line) override { container_.logs.push_back(std::move(line)); }
  void SetMemoryUsage(std::int64_t bytes) override {
    if (exited_) return;
    memory_ = bytes;
    if (WorkloadObserver* observer = kubelet_.config_.observer) observer->OnMemory(*pod_, container_.name, bytes);
    if (container_.memory_limit > 0 && bytes > container_.memory_limit) End(137, "OOMKilled");
  }
  EmptyDir* Volume(std::string_view volume) override {
    auto it = pod_state_.volumes.find(volume);
    return it == pod_state_.volumes.end() ? nullptr : &it->second;
  }
  RandomStream& random() override {
    return kubelet_.sim().Random(kubelet_.name() + "/" + pod_state_.key + "/" + container_.name);
  }
  void Exit(int code) override { End(code, ""); }

  FlowId Transfer(FlowSpec spec) override {
    if (exited_) return {};
    Network* net = kubelet_.config_.network;
    if (!net) {
      const double bytes = spec.bytes > 0 ? spec.bytes : 0;
      After(static_cast<Micros>(bytes / 1e9 * 1e6 + 0.5), std::move(spec.on_done));
      return {};
    }
    // Flows the network ended without a callback (a cancel elsewhere) are pruned when the list
    // has doubled since the last prune: amortized, not a scan of every flow on every transfer.
    if (flows_.size() >= prune_at_) {
      std::erase_if(flows_, [&](FlowId id) { return !net->IsActive(id); });
      prune_at_ = std::max<std::size_t>(kFirstPrune, 2 * flows_.size());
    }
    auto done = std::make_shared<FlowId>();
    spec.on_done = [this, done, fn = std::move(spec.on_done)] {
      std::erase(flows_, *done);
      if (!exited_ && fn) fn();
    };
    FlowId id = net->StartFlow(std::move(spec));
    *done = id;
    if (id.valid()) flows_.push_back(id);
    return id;
  }
  bool CancelTransfer(FlowId id) override {
    Network* net = kubelet_.config_.network;
    if (!net || std::find(flows_.begin(), flows_.end(), id) == flows_.end()) return false;
    std::erase(flows_, id);
    return net->CancelFlow(id) >= 0;
  }
  Network* network() override { return kubelet_.config_.network; }
  const NodeSimSpec* node_spec() const override { return kubelet_.config_.node_spec; }
  void RecordStage(std::string_view stage, Micros begin, Micros end) override {
    if (WorkloadObserver* observer = kubelet_.config_.observer) observer->OnStage(*pod_, stage, begin, end);
  }
  std::int64_t memory() const { return memory_; }

 private:
  // The exit is recorded in the same instant, once the program's current callback has returned;
  // the program's own timers end here. (The exit runs while this Run is destroyed: it captures
  // nothing of it.)
  void End(int code, std::string reason) {
    if (exited_) return;
    exited_ = true;
    events_.CancelAll();
    Kubelet* kubelet = &kubelet_;
    PodState* pod = &pod_state_;
    Container* container = &container_;
    events_.After(0, [kubelet, pod, container, code, reason] { kubelet->ContainerExited(*pod, *container, code, reason); });
  }

  Kubelet& kubelet_;
  PodState& pod_state_;
  Container& container_;
  ObjectPtr pod_;
  PodIdentityClient api_;  // the pod's service account; outlives the program
  std::unique_ptr<ContainerProgram> program_;
  std::vector<std::string> command_, args_;
  std::map<std::string, std::string> env_;
  std::vector<FlowId> flows_;  // started and maybe still running (a cancelled one until a prune)
  static constexpr std::size_t kFirstPrune = 16;
  std::size_t prune_at_ = kFirstPrune;
  bool exited_ = false;
  std::int64_t memory_ = 0;
  OwnedEvents events_{kubelet_.sim().engine()};  // the program's timers and the exit
};

// ---- the kubelet ------------------------------------------------------------------------------

Kubelet::Kubelet(Simulation& sim, KubeletConfig config)
    : Actor(sim, "kubelet/" + config.node_name), config_(std::move(config)) {
  SetIdentity(fakeapi::rbac::NodeUser(config_.node_name));
  programs_ = config_.programs ? config_.programs : std::make_shared<ProgramRegistry>();
  up_ = config_.start_up;
  for (const auto& image : config_.preloaded_images) images_.insert(NormalizeImage(image));
  // The pod CIDR: a.b.c.d/n.
  unsigned a = 0, b = 0, c = 0, d = 0, n = 24;
  if (std::sscanf(config_.pod_cidr.c_str(), "%u.%u.%u.%u/%u", &a, &b, &c, &d, &n) == 5 && n >= 8 && n <= 30) {
    std::uint32_t addr = (a << 24) | (b << 16) | (c << 8) | d;
    ip_size_ = 1u << (32 - n);
    ip_base_ = addr & ~(ip_size_ - 1);
  } else {
    ip_base_ = (10u << 24) | (244u << 16);
    ip_size_ = 256;
  }
}

Kubelet::~Kubelet() {
  if (Network* net = config_.network)
    for (FlowId id : pull_flows_) net->CancelFlow(id);
}

void Kubelet::Start() {
  if (config_.host_ip.empty()) {
    auto node = client().Get("nodes", "", config_.node_name);
    if (node.ok()) {
      if (const json* addresses = JsonAt(**node, {"status", "addresses"}); addresses && addresses->is_array())
        for (const auto& address : *addresses)
          if (JsonString(address, {"type"}) == "InternalIP") config_.host_ip = JsonString(address, {"address"});
    }
  }
  informer_ = &AddInformer("pods", {.field_selector = "spec.nodeName=" + config_.node_name},
                           {.on_add = [this](const ObjectPtr& pod) { OnPod(pod); },
                            .on_update = [this](const ObjectPtr&, const ObjectPtr& pod) { OnPod(pod); },
                            .on_delete = [this](const ObjectPtr& pod) { OnPodGone(pod); }});
}

Kubelet::PodState* Kubelet::Find(const std::string& key, std::uint64_t serial) {
  auto it = pods_.find(key);
  return it != pods_.end() && it->second->serial == serial ? it->second.get() : nullptr;
}

EventId Kubelet::AfterForPod(PodState& p, Micros delay, std::function<void(PodState&)> fn) {
  return p.events.After(delay, [this, &p, fn = std::move(fn)] {
    if (up_) fn(p);
  });
}

bool Kubelet::Backoff_InBackoff(const Backoff& b, Micros event_time) const {
  if (!b.has || event_time - b.last_update > 2 * config_.backoff_max) return false;
  return Now() - event_time < b.duration;
}

void Kubelet::Backoff_Next(Backoff& b, Micros event_time) {
  if (!b.has || event_time - b.last_update > 2 * config_.backoff_max) {
    b.has = true;
    b.duration = config_.backoff_initial;
  } else {
    b.duration = std::min(2 * b.duration, config_.backoff_max);
  }
  b.last_update = Now();
}

// ---- informer events --------------------------------------------------------------------------

void Kubelet::OnPod(const ObjectPtr& pod) {
  if (!up_) return;  // the cache keeps up; SetNodeUp(true) reconciles
  std::string key = kube::KeyOf(*pod);
  auto it = pods_.find(key);
  if (it != pods_.end() && it->second->uid != kube::UidOf(*pod)) {
    Teardown(key);
    it = pods_.end();
  }
  if (it == pods_.end()) {
    Accept(pod);
    return;
  }
  PodState& p = *it->second;
  p.pod = pod;
  if (HasDeletionTimestamp(*pod) && !p.terminating) BeginTermination(p);
}

void Kubelet::OnPodGone(const ObjectPtr& pod) {
  if (!up_) return;
  std::string key = kube::KeyOf(*pod);
  auto it = pods_.find(key);
  if (it != pods_.end() && it->second->uid == kube::UidOf(*pod)) Teardown(key);
}

void Kubelet::Accept(const ObjectPtr& pod) {
  std::string phase = JsonString(*pod, {"status", "phase"});
  if (phase == "Succeeded" || phase == "Failed") return;  // finished before we met it
  if (HasDeletionTimestamp(*pod)) {
    ConfirmUnstartedDeletion(pod);  // nothing runs for it here
    return;
  }
  auto state = std::make_unique<PodState>(sim().engine());
  PodState& p = *state;
  p.key = kube::KeyOf(*pod);
  p.ns = kube::NamespaceOf(*pod);
  p.name = kube::NameOf(*pod);
  p.uid = kube::UidOf(*pod);
  p.serial = next_serial_++;
  p.pod = pod;
  p.restart_policy = JsonString(*pod, {"spec", "restartPolicy"}, "Always");
  p.start_time = sim().engine().clock().Now();
  const json* init = JsonAt(*pod, {"spec", "initContainers"});
  bool has_init = init && init->is_array() && !init->empty();
  p.default_reason = has_init ? "PodInitializing" : "ContainerCreating";
  auto add = [&](const json* list, bool is_init, std::vector<Container>& out) {
    if (!list || !list->is_array()) return;
    out.reserve(list->size());  // never grows again: runs keep references into it
    for (const auto& spec : *list) {
      Container& c = out.emplace_back();
      c.init = is_init;
      c.index = out.size() - 1;
      c.spec = spec;
      c.name = JsonString(spec, {"name"});
      c.image = JsonString(spec, {"image"});
      c.normalized_image = NormalizeImage(c.image);
      c.policy = JsonString(spec, {"imagePullPolicy"}, "IfNotPresent");
      if (const json* mem = JsonAt(spec, {"resources", "limits", "memory"}); mem && mem->is_string())
        c.memory_limit = kube::ParseQuantity(mem->get<std::string>()).value_or(0);
      c.reason = p.default_reason;
    }
  };
  add(init, true, p.init);
  add(JsonAt(*pod, {"spec", "containers"}), false, p.main);
  if (const json* volumes = JsonAt(*pod, {"spec", "volumes"}); volumes && volumes->is_array())
    for (const auto& v : *volumes)
      if (v.contains("emptyDir"))
        p.volumes.try_emplace(JsonString(v, {"name"}), JsonString(v, {"emptyDir", "medium"}));
  pods_[p.key] = std::move(state);
  MarkDirty(p);
  p.sandbox_timer = AfterForPod(p, config_.pod_startup, [this](PodState& q) { SandboxReady(q); });
}

// ---- sandbox and IPs ------------------------------------------------------------------------

std::optional<std::uint32_t> Kubelet::AllocateIp() {
  if (ip_size_ < 4) return std::nullopt;
  std::uint32_t first = 2, last = ip_size_ - 2;  // .1 is the gateway; the last is broadcast
  for (std::uint32_t tries = 0; tries <= last - first; ++tries) {
    std::uint32_t offset = ip_next_;
    ip_next_ = ip_next_ >= last ? first : ip_next_ + 1;
    if (used_ips_.insert(offset).second) return offset;
  }
  return std::nullopt;
}

std::string Kubelet::FormatIp(std::uint32_t offset) const {
  std::uint32_t addr = ip_base_ + offset;
  return std::to_string(addr >> 24) + "." + std::to_string((addr >> 16) & 255) + "." +
         std::to_string((addr >> 8) & 255) + "." + std::to_string(addr & 255);
}

void Kubelet::ReleaseIp(PodState& p) {
  if (p.ip_offset == 0) return;
  used_ips_.erase(p.ip_offset);
  p.ip_offset = 0;
  while (!ip_waiters_.empty()) {
    auto [key, serial] = ip_waiters_.front();
    ip_waiters_.pop_front();
    PodState* q = Find(key, serial);
    if (q && q->waiting_ip) {
      SandboxReady(*q);
      break;
    }
  }
}

void Kubelet::SandboxReady(PodState& p) {
  if (p.terminating || !p.terminal_phase.empty()) return;
  auto ip = AllocateIp();
  if (!ip) {
    p.waiting_ip = true;
    ip_waiters_.emplace_back(p.key, p.serial);
    return;
  }
  p.ip_offset = *ip;
  p.ip = FormatIp(*ip);
  p.waiting_ip = false;
  p.sandbox = true;
  MarkDirty(p);
  Advance(p);
}

// ---- containers -------------------------------------------------------------------------------

void Kubelet::Advance(PodState& p) {
  if (!p.sandbox || p.terminating || !p.terminal_phase.empty() || !up_) return;
  if (p.next_init < p.init.size()) {
    Container& c = p.init[p.next_init];
    if (c.state == Container::State::kWaiting && !c.busy) RequestStart(p, c);
    return;
  }
  MarkDirty(p);  // Initialized may have changed
  for (auto& c : p.main)
    if (c.state == Container::State::kWaiting && !c.busy) RequestStart(p, c);
}

void Kubelet::RequestStart(PodState& p, Container& c) {
  c.busy = true;
  ++c.attempt;
  EnsureImage(p, c);
}

void Kubelet::EnsureImage(PodState& p, Container& c) {
  bool cached = images_.count(c.normalized_image) > 0;
  if (c.policy == "Never") {
    if (cached) return ImageReady(p, c);
    ToWaiting(c, "ErrImageNeverPull",
              "Container image \"" + c.image + "\" is not present with pull policy of Never");
    MarkDirty(p);
    return;  // stays busy: nothing will change its mind
  }
  if (c.policy != "Always" && cached) return ImageReady(p, c);
  pull_queue_.push_back({p.key, p.serial, c.init, c.index, c.attempt});
  ProcessPullQueue();
}

void Kubelet::ImageReady(PodState& p, Container& c) {
  c.image_id = c.normalized_image.substr(0, c.normalized_image.rfind(':')) + "@sha256:" + Hex64(c.normalized_image);
  std::uint64_t attempt = c.attempt;
  c.busy = true;
  AfterForPod(p, config_.container_start, [this, attempt, &c](PodState& q) {
    if (c.attempt != attempt || q.terminating || !q.terminal_phase.empty()) return;
    StartContainer(q, c);
  });
}

void Kubelet::ToWaiting(Container& c, std::string reason, std::string message) {
  if (c.state == Container::State::kTerminated) c.last_state = {{"terminated", c.TerminatedJson()}};
  c.state = Container::State::kWaiting;
  c.reason = std::move(reason);
  c.message = std::move(message);
}

bool Kubelet::Faulted(const std::string& image) const {
  for (const auto& glob : pull_faults_)
    if (GlobMatch(glob, image)) return true;
  return false;
}

std::int64_t Kubelet::ImageSize(const std::string& image) const {
  auto it = config_.image_sizes.find(image);
  return it != config_.image_sizes.end() ? it->second : config_.default_image_size;
}

bool Kubelet::HasImage(const std::string& image) const { return images_.count(NormalizeImage(image)) > 0; }

void Kubelet::ProcessPullQueue() {
  while (!pull_queue_.empty() && !(config_.serialize_image_pulls && pulling_)) {
    PullRequest request = pull_queue_.front();
    pull_queue_.pop_front();
    PodState* p = Find(request.key, request.serial);
    if (!p || p->terminating) continue;
    Container& c = request.init ? p->init[request.index] : p->main[request.index];
    if (c.attempt != request.attempt) continue;
    StartPull(request);
  }
}

void Kubelet::StartPull(const PullRequest& request) {
  PodState& p = *Find(request.key, request.serial);
  Container& c = request.init ? p.init[request.index] : p.main[request.index];
  bool cached = images_.count(c.normalized_image) > 0;
  bool ok = !Faulted(c.image) && !Faulted(c.normalized_image);
  Micros duration;
  std::int64_t bytes = 0;
  if (!ok) {
    duration = config_.manifest_check;
  } else if (cached) {
    duration = c.policy == "Always" ? config_.manifest_check : 0;
    if (c.policy == "Always") ++stats_.manifest_checks;
  } else {
    bytes = ImageSize(c.image);
    duration = static_cast<Micros>(static_cast<double>(bytes) / config_.image_pull_bytes_per_second * 1e6);
    ++stats_.image_pulls;
    stats_.bytes_pulled += bytes;
  }
  if (config_.serialize_image_pulls) pulling_ = true;
  const bool transfer = ok && !cached;
  std::string image = c.normalized_image;
  const Micros begin = Now();
  // A node that dies cancels its pulls (SetNodeUp): this never runs for a dead node.
  auto done = [this, request, ok, transfer, image, begin] { PullDone(request, image, ok, transfer, begin); };
  if (transfer && config_.network && config_.network->HasNode(config_.node_name)) {
    // The registry -> disk flow, capped at the pull bandwidth (the runtime's own limit).
    FlowId id = config_.network->StartFlow({.src = Endpoint::Registry(),
                                            .dst = Endpoint::Disk(config_.node_name),
                                            .bytes = static_cast<double>(bytes),
                                            .rate_cap = config_.image_pull_bytes_per_second,
                                            .on_done = std::move(done)});
    pull_flows_.push_back(id);
    return;
  }
  pull_timers_.After(duration, std::move(done));
}

void Kubelet::PullDone(const PullRequest& request, const std::string& image, bool ok, bool transferred, Micros begin) {
  if (Network* net = config_.network; net && transferred)
    std::erase_if(pull_flows_, [net](FlowId id) { return !net->IsActive(id); });
  if (config_.serialize_image_pulls) pulling_ = false;
  if (ok) images_.insert(image);
  if (transferred && config_.observer) {
    // Every pod that waited for this image: the puller and those queued behind it for the same one.
    std::set<std::string> reported;
    auto report = [&](const PullRequest& r) {
      PodState* q = Find(r.key, r.serial);
      if (!q || q->terminating || !reported.insert(r.key).second) return;
      config_.observer->OnStage(*q->pod, "imagePull", begin, Now());
    };
    report(request);
    for (const PullRequest& r : pull_queue_) {
      PodState* q = Find(r.key, r.serial);
      if (!q) continue;
      const Container& d = r.init ? q->init[r.index] : q->main[r.index];
      if (d.normalized_image == image && d.attempt == r.attempt) report(r);
    }
  }
  if (PodState* q = Find(request.key, request.serial)) {
    Container& d = request.init ? q->init[request.index] : q->main[request.index];
    if (d.attempt == request.attempt && !q->terminating) {
      if (ok) {
        ImageReady(*q, d);
      } else {
        PullFailed(*q, d);
      }
    }
  }
  ProcessPullQueue();
}

void Kubelet::PullFailed(PodState& p, Container& c) {
  ++stats_.pull_failures;
  ToWaiting(c, "ErrImagePull",
            "rpc error: code = Unknown desc = failed to pull and unpack image \"" + c.normalized_image +
                "\": injected image pull fault");
  Backoff_Next(c.pull, Now());
  MarkDirty(p);
  std::uint64_t attempt = c.attempt;
  Micros backoff = c.pull.duration;
  if (config_.pull_error_resync < backoff) {
    AfterForPod(p, config_.pull_error_resync, [this, attempt, &c](PodState& q) {
      if (c.attempt != attempt || q.terminating) return;
      c.reason = "ImagePullBackOff";
      c.message = "Back-off pulling image \"" + c.image + "\"";
      MarkDirty(q);
    });
  }
  c.busy = true;
  AfterForPod(p, backoff, [this, attempt, &c](PodState& q) {
    if (c.attempt != attempt || q.terminating || !q.terminal_phase.empty()) return;
    EnsureImage(q, c);
  });
}

void Kubelet::StartContainer(PodState& p, Container& c) {
  if (c.runs > 0 && c.state == Container::State::kTerminated) c.last_state = {{"terminated", c.TerminatedJson()}};
  ++c.runs;
  ++stats_.container_starts;
  c.busy = false;
  c.previous_logs = std::move(c.logs);
  c.logs.clear();
  c.container_id = "containerd://" + Hex64(p.uid + "/" + c.name + "/" + std::to_string(c.runs));
  c.started_at = sim().engine().clock().Now();
  c.reason.clear();
  c.message.clear();
  MarkDirty(p);
  std::string program_name = programs_->Resolve(*p.pod, c.spec);
  auto program = programs_->Create(program_name);
  if (!program) {
    c.state = Container::State::kRunning;
    ContainerExited(p, c, 128, "StartError", "dglsim: no program \"" + program_name + "\" is registered");
    return;
  }
  c.state = Container::State::kRunning;
  c.run = std::make_unique<Run>(*this, p, c, std::move(program));
  c.run->Begin();
}

void Kubelet::ContainerExited(PodState& p, Container& c, int code, std::string reason, std::string message) {
  c.run.reset();
  c.state = Container::State::kTerminated;
  c.exit_code = code;
  c.term_reason = !reason.empty() ? reason : code == 0 ? "Completed" : "Error";
  c.term_message = std::move(message);
  // terminationMessagePolicy FallbackToLogsOnError: a failed container with no message of its own
  // gets the tail of its log, at most 80 lines and 2048 bytes, as a real kubelet gives it.
  if (c.term_message.empty() && code != 0 && c.spec.is_object() &&
      JsonString(c.spec, {"terminationMessagePolicy"}) == "FallbackToLogsOnError") {
    std::string tail;
    for (std::size_t i = c.logs.size(), lines = 0; i-- > 0 && lines < 80; ++lines) {
      tail = c.logs[i] + (tail.empty() ? "" : "\n") + tail;
      if (tail.size() >= 2048) break;
    }
    c.term_message = tail.size() > 2048 ? tail.substr(tail.size() - 2048) : tail;
  }
  c.finished_at = sim().engine().clock().Now();
  c.finished_sim = Now();
  MarkDirty(p);
  if (p.terminating) {
    MaybeCompleteTermination(p);
    return;
  }
  AfterExit(p, c);
}

bool Kubelet::KillContainer(const std::string& ns, const std::string& pod, const std::string& container,
                            int exit_code, const std::string& reason) {
  if (!up_) return false;
  auto it = pods_.find(ns + "/" + pod);
  if (it == pods_.end()) return false;
  PodState& p = *it->second;
  for (auto* list : {&p.main, &p.init}) {
    for (Container& c : *list) {
      if (c.state != Container::State::kRunning || !c.run) continue;
      if (!container.empty() && c.name != container) continue;
      ContainerExited(p, c, exit_code, reason);
      return true;
    }
  }
  return false;
}

void Kubelet::AfterExit(PodState& p, Container& c) {
  bool restart;
  if (c.init) {
    if (c.exit_code == 0) {
      ++p.next_init;
      Advance(p);
      return;
    }
    restart = p.restart_policy != "Never";
  } else {
    restart = p.restart_policy == "Always" || (p.restart_policy == "OnFailure" && c.exit_code != 0);
  }
  if (restart) {
    // The kubelet's doBackOff: restart at once unless the container is in back-off since it ended.
    if (Backoff_InBackoff(c.crash, c.finished_sim)) {
      ToWaiting(c, kCrashLoopBackOff, "");
      c.message = "back-off " + std::to_string(c.crash.duration / kSecond) + "s restarting failed container=" +
                  c.name + " pod=" + p.name + "_" + p.ns + "(" + p.uid + ")";
      c.busy = true;
      std::uint64_t attempt = ++c.attempt;
      Micros wait = c.finished_sim + c.crash.duration - Now();
      AfterForPod(p, wait, [this, attempt, &c](PodState& q) {
        if (c.attempt != attempt || q.terminating || !q.terminal_phase.empty()) return;
        Backoff_Next(c.crash, c.finished_sim);
        RequestStart(q, c);
      });
    } else {
      Backoff_Next(c.crash, c.finished_sim);
      RequestStart(p, c);
    }
    return;
  }
  std::string phase = ComputePhase(p);
  if (phase == "Succeeded" || phase == "Failed") FinishPod(p);
}

void Kubelet::FinishPod(PodState& p) {
  p.terminal_phase = ComputePhase(p);
  p.ForEachContainer([&](Container& c) {
    ++c.attempt;
    c.busy = false;
    c.run.reset();
  });
  p.events.Cancel(p.sandbox_timer);
  ReleaseIp(p);  // the sandbox is gone; status keeps the address
  MarkDirty(p);
}

// ---- deletion ---------------------------------------------------------------------------------

void Kubelet::BeginTermination(PodState& p) {
  p.terminating = true;
  p.events.Cancel(p.sandbox_timer);
  std::int64_t grace = 30;
  if (const json* g = JsonAt(*p.pod, {"metadata", "deletionGracePeriodSeconds"}); g && g->is_number_integer())
    grace = g->get<std::int64_t>();
  else if (const json* s = JsonAt(*p.pod, {"spec", "terminationGracePeriodSeconds"}); s && s->is_number_integer())
    grace = s->get<std::int64_t>();
  grace = std::max<std::int64_t>(0, grace);
  bool running = false;
  p.ForEachContainer([&](Container& c) {
    ++c.attempt;
    c.busy = false;
    if (c.state == Container::State::kRunning && c.run) {
      running = true;
      c.run->Stop(grace * kSecond);
    }
  });
  if (running) {
    p.kill_timer = AfterForPod(p, grace * kSecond, [this](PodState& q) {
      q.ForEachContainer([&](Container& c) {
        if (c.state == Container::State::kRunning) {
          c.run.reset();
          c.state = Container::State::kTerminated;
          c.exit_code = 137;
          c.term_reason = "Error";
          c.finished_at = sim().engine().clock().Now();
          c.finished_sim = Now();
        }
      });
      MaybeCompleteTermination(q);
    });
  } else {
    MaybeCompleteTermination(p);
  }
}

void Kubelet::MaybeCompleteTermination(PodState& p) {
  if (p.deletion_confirmed || p.AnyRunning()) return;
  p.events.Cancel(p.kill_timer);
  if (p.terminal_phase.empty()) {
    std::string phase = ComputePhase(p);
    p.terminal_phase = phase == "Succeeded" ? "Succeeded" : "Failed";
  }
  ReleaseIp(p);
  p.events.Cancel(p.flush);
  Flush(p);
  p.deletion_confirmed = true;
  ConfirmDeletion(p);
}

// Deletes the pod with grace period 0 (uid precondition), retrying every second whatever the API
// answers but NotFound, as the real status manager retries at its next sync: a 409 may be an
// injected conflict as well as a replaced pod, and a replaced or deleted pod reaches this kubelet's
// informer, whose Teardown ends the retries with the pod's state. (A member function rather than a
// self-capturing closure, which would keep itself alive forever.)
void Kubelet::ConfirmDeletion(PodState& p) {
  if (!up_) return;
  auto r = client().Delete("pods", p.ns, p.name, {.grace_period_seconds = 0, .precondition_uid = p.uid});
  if (!r.ok() && !r.status().IsNotFound())
    p.events.After(kSecond + faulty_client().TakeLatency(), [this, &p] { ConfirmDeletion(p); });
}

// A pod met already being deleted (bound while the node was down, say), for which nothing ran
// here: its deletion is confirmed at once and retried every second, as ConfirmDeletion retries,
// while this kubelet's informer still holds the same pod. One Delete that an API fault refused
// left the pod Terminating for good, and its job waiting on it (chaos seed 60087).
void Kubelet::ConfirmUnstartedDeletion(const ObjectPtr& pod) {
  if (!up_) return;
  auto r = client().Delete("pods", kube::NamespaceOf(*pod), kube::NameOf(*pod),
                           {.grace_period_seconds = 0, .precondition_uid = kube::UidOf(*pod)});
  if (r.ok() || r.status().IsNotFound()) return;
  unstarted_deletions_.After(kSecond + faulty_client().TakeLatency(), [this, pod] {
    ObjectPtr now = informer_ ? informer_->GetByKey(kube::KeyOf(*pod)) : pod;
    if (now && kube::UidOf(*now) == kube::UidOf(*pod) && !pods_.count(kube::KeyOf(*pod))) ConfirmUnstartedDeletion(now);
  });
}

void Kubelet::Teardown(const std::string& key) {
  auto it = pods_.find(key);
  if (it == pods_.end()) return;
  // The pod's runs, timers and pending writes die with its state.
  auto owned = std::move(it->second);
  pods_.erase(it);
  ReleaseIp(*owned);
}

// ---- node down and up -------------------------------------------------------------------------

void Kubelet::SetNodeUp(bool up) {
  if (up == up_) return;
  if (!up) {
    up_ = false;
    for (auto& [key, p] : pods_) {
      p->ForEachContainer([](Container& c) {
        if (c.run) c.run->NodeDown();
        c.run.reset();
        ++c.attempt;
        c.busy = false;
      });
      p->events.CancelAll();  // every pending timer and write of the pod
      p->waiting_ip = false;
      p->down_at = sim().engine().clock().Now();
    }
    pull_timers_.CancelAll();
    unstarted_deletions_.CancelAll();  // SetNodeUp(true) meets those pods again
    if (Network* net = config_.network)
      for (FlowId id : pull_flows_) net->CancelFlow(id);
    pull_flows_.clear();
    pulling_ = false;
    pull_queue_.clear();
    ip_waiters_.clear();
    return;
  }
  up_ = true;
  if (!informer_) return;
  std::vector<std::string> keys;
  for (const auto& [key, p] : pods_) keys.push_back(key);
  for (const auto& key : keys) {
    ObjectPtr pod = informer_->GetByKey(key);
    PodState& p = *pods_[key];
    if (!pod || kube::UidOf(*pod) != p.uid) {
      Teardown(key);
      continue;
    }
    p.pod = pod;
    Recover(p);
  }
  for (const auto& pod : informer_->List())
    if (!pods_.count(kube::KeyOf(*pod))) OnPod(pod);
}

void Kubelet::Recover(PodState& p) {
  bool deleting = HasDeletionTimestamp(*p.pod);
  if (!p.terminal_phase.empty() || p.deletion_confirmed) {
    // A confirmation the node's fall interrupted (its retry died with the pod's timers) is sent again.
    if (deleting && p.deletion_confirmed) ConfirmDeletion(p);
    else if (deleting) MaybeCompleteTermination(p);
    else if (!p.last_written.empty()) MarkDirty(p);
    return;
  }
  bool never = p.restart_policy == "Never";
  auto lost = [&](Container& c, bool mark_unknown) {
    if (mark_unknown) {
      c.state = Container::State::kTerminated;
      c.exit_code = 137;
      c.term_reason = "ContainerStatusUnknown";
      c.term_message = "The container could not be located when the pod was terminated";
      c.finished_at = p.down_at;
      c.finished_sim = Now();
    }
  };
  if (deleting || never) {
    p.ForEachContainer([&](Container& c) {
      if (c.state != Container::State::kTerminated) lost(c, true);
    });
    if (deleting) {
      p.terminating = true;
      MaybeCompleteTermination(p);
    } else {
      FinishPod(p);
    }
    return;
  }
  // Always / OnFailure: a new sandbox, init containers again, app containers restarted.
  ReleaseIp(p);
  p.sandbox = false;
  p.next_init = 0;
  auto reset = [&](Container& c) {
    if (c.state == Container::State::kRunning) {
      c.exit_code = 255;
      c.term_reason = "Unknown";
      c.term_message.clear();
      c.finished_at = p.down_at;
      c.finished_sim = Now();
      c.last_state = {{"terminated", c.TerminatedJson()}};
    } else if (c.state == Container::State::kTerminated) {
      if (!c.init && p.restart_policy == "OnFailure" && c.exit_code == 0) return;  // done for good
      c.last_state = {{"terminated", c.TerminatedJson()}};
    }
    c.state = Container::State::kWaiting;
    c.reason = p.default_reason;
    c.message.clear();
  };
  for (auto& c : p.init) reset(c);
  for (auto& c : p.main) reset(c);
  for (auto& [name, dir] : p.volumes)
    if (dir.medium() == "Memory") dir = EmptyDir("Memory");  // tmpfs does not survive a reboot
  MarkDirty(p);
  p.sandbox_timer = AfterForPod(p, config_.pod_startup, [this](PodState& q) { SandboxReady(q); });
}

// ---- status -----------------------------------------------------------------------------------

std::string Kubelet::ComputePhase(const PodState& p) const {
  if (!p.terminal_phase.empty()) return p.terminal_phase;
  // kubelet's getPhase (pkg/kubelet/kubelet_pods.go).
  using S = Container::State;
  int pending_init = 0, failed_init = 0;
  for (const auto& c : p.init) {
    if (c.state == S::kRunning) ++pending_init;
    else if (c.state == S::kTerminated) failed_init += c.exit_code != 0;
    else if (c.last_state.contains("terminated")) failed_init += c.last_state.at("terminated").value("exitCode", 0) != 0;
    else ++pending_init;
  }
  int running = 0, waiting = 0, stopped = 0, succeeded = 0;
  for (const auto& c : p.main) {
    if (c.state == S::kRunning) ++running;
    else if (c.state == S::kTerminated) ++stopped, succeeded += c.exit_code == 0;
    else if (c.last_state.contains("terminated")) ++stopped;
    else ++waiting;
  }
  bool is_terminal = p.terminating && !p.AnyRunning();
  if (failed_init > 0 && p.restart_policy == "Never") return "Failed";
  if (pending_init > 0 || waiting > 0) return "Pending";
  if (running > 0) return "Running";
  if (stopped > 0) {
    if (is_terminal) return stopped == succeeded ? "Succeeded" : "Failed";
    if (p.restart_policy == "Always") return "Running";
    if (stopped == succeeded) return "Succeeded";
    if (p.restart_policy == "Never") return "Failed";
    return "Running";
  }
  return "Pending";
}

namespace {

using Object = json::object_t;
Object& AsObject(json& j) { return j.get_ref<Object&>(); }

json IpList(const std::string& ip) {
  json entry = json::object();
  AsObject(entry).emplace("ip", ip);
  json list = json::array();
  list.push_back(std::move(entry));
  return list;
}

}  // namespace

json Kubelet::ContainerStatus(Container& c) {
  if (!c.status_built.is_null() && c.StatusUnchanged()) return c.status_built;
  c.NoteStatusInputs();
  c.status_built = BuildContainerStatus(c);
  kube::SealTree(c.status_built);
  return c.status_built;
}

// Built member by member: this runs for every change of a container, and brace-initialized objects
// cost a temporary array per member.
json Kubelet::BuildContainerStatus(const Container& c) {
  using S = Container::State;
  json state = json::object();
  if (c.state == S::kRunning) {
    json running = json::object();
    AsObject(running).emplace("startedAt", kube::FormatTime(c.started_at));
    AsObject(state).emplace("running", std::move(running));
  } else if (c.state == S::kTerminated) {
    AsObject(state).emplace("terminated", c.TerminatedJson());
  } else {
    json w = json::object();
    AsObject(w).emplace("reason", c.reason);
    if (!c.message.empty()) AsObject(w).emplace("message", c.message);
    AsObject(state).emplace("waiting", std::move(w));
  }
  bool ready = c.init ? (c.state == S::kTerminated && c.exit_code == 0) : c.state == S::kRunning;
  json s = json::object();
  Object& m = AsObject(s);
  m.reserve(9);  // one allocation for the members below, added in key order (Append)
  if (!c.container_id.empty()) Append(m, "containerID", c.container_id);
  Append(m, "image", c.normalized_image);
  Append(m, "imageID", c.image_id);
  Append(m, "lastState", c.last_state);
  Append(m, "name", c.name);
  Append(m, "ready", ready);
  Append(m, "restartCount", std::max(0, c.runs - 1));
  Append(m, "started", c.state == S::kRunning);
  Append(m, "state", std::move(state));
  return s;
}

// Initialized, Ready and ContainersReady as kubelet's GeneratePodInitializedCondition /
// GenerateContainersReadyCondition compute them, then the conditions others own (PodScheduled).
json Kubelet::PodConditions(PodState& p, const std::string& phase) {
  using S = Container::State;
  std::vector<std::string> incomplete, unready;
  for (const auto& c : p.init)
    if (!(c.state == S::kTerminated && c.exit_code == 0)) incomplete.push_back(c.name);
  for (const auto& c : p.main)
    if (c.state != S::kRunning) unready.push_back(c.name);
  struct Computed {
    const char* type;
    bool ok;
    std::string reason, message;
  };
  Computed initialized{"Initialized", incomplete.empty(), "", ""};
  if (!incomplete.empty()) {
    initialized.reason = "ContainersNotInitialized";
    initialized.message = "containers with incomplete status: " + Joined(incomplete);
  } else if (phase == "Succeeded") {
    initialized.reason = "PodCompleted";
  }
  Computed containers_ready{"ContainersReady", unready.empty(), "", ""};
  if (phase == "Succeeded") {
    containers_ready = {"ContainersReady", false, "PodCompleted", ""};
  } else if (!unready.empty()) {
    containers_ready.reason = "ContainersNotReady";
    containers_ready.message = "containers with unready status: " + Joined(unready);
  }
  Computed ready = containers_ready;
  ready.type = "Ready";
  json conditions = json::array();
  Micros now = sim().engine().clock().Now();
  for (const Computed* c : {&initialized, &ready, &containers_ready}) {
    const char* value = c->ok ? "True" : "False";
    PodState::Condition& known = p.conditions.try_emplace(c->type, PodState::Condition{value, now}).first->second;
    if (known.status != value) {
      known.status = value;
      known.time = now;
      known.built = nullptr;
    }
    if (known.built.is_null() || known.reason != c->reason || known.message != c->message) {
      json j = json::object();
      Object& m = AsObject(j);
      m.reserve(6);  // added in key order (Append)
      Append(m, "lastProbeTime", nullptr);
      Append(m, "lastTransitionTime", kube::FormatTime(known.time));
      if (!c->message.empty()) Append(m, "message", c->message);
      if (!c->reason.empty()) Append(m, "reason", c->reason);
      Append(m, "status", value);
      Append(m, "type", c->type);
      kube::SealTree(j);
      known.reason = c->reason;
      known.message = c->message;
      known.built = std::move(j);
    }
    conditions.push_back(known.built);
  }
  if (const json* existing = JsonAt(*p.pod, {"status", "conditions"}); existing && existing->is_array())
    for (const auto& c : *existing) {
      const json* type = JsonAt(c, {"type"});
      const std::string* name = type && type->is_string() ? &type->get_ref<const std::string&>() : nullptr;
      if (!name || (*name != "Initialized" && *name != "Ready" && *name != "ContainersReady")) conditions.push_back(c);
    }
  return conditions;
}

json Kubelet::BuildStatus(PodState& p) {
  std::string phase = ComputePhase(p);
  json status = json::object();
  Object& out = AsObject(status);
  out.reserve(9);  // added in key order (Append)
  Append(out, "conditions", PodConditions(p, phase));
  json list = json::array();
  for (auto& c : p.main) list.push_back(ContainerStatus(c));
  Append(out, "containerStatuses", std::move(list));
  const bool host_ip = !p.ip.empty() && !config_.host_ip.empty();
  if (host_ip) {
    Append(out, "hostIP", config_.host_ip);
    Append(out, "hostIPs", IpList(config_.host_ip));
  }
  if (!p.init.empty()) {
    json init = json::array();
    for (auto& c : p.init) init.push_back(ContainerStatus(c));
    Append(out, "initContainerStatuses", std::move(init));
  }
  Append(out, "phase", std::move(phase));
  if (!p.ip.empty()) {
    Append(out, "podIP", p.ip);
    Append(out, "podIPs", IpList(p.ip));
  }
  Append(out, "startTime", kube::FormatTime(p.start_time));
  return status;
}

void Kubelet::MarkDirty(PodState& p) {
  if (!up_ || p.events.IsPending(p.flush)) return;
  p.flush = p.events.After(faulty_client().TakeLatency(), [this, &p] {
    if (up_) Flush(p);
  });
}

void Kubelet::Flush(PodState& p) {
  if (!up_) return;
  json status = BuildStatus(p);
  if (status == p.last_written) return;
  // Sealed (json.h): the store's merge takes its objects by sharing them, not by copying them.
  kube::SealTree(status);
  auto r = client().Patch("pods", p.ns, p.name, kube::MakeObject("status", status), kube::PatchType::kMerge, "status");
  if (r.ok()) {
    ++stats_.status_writes;
    p.last_written = std::move(status);
    p.pod = *r;
    return;
  }
  if (r.status().IsNotFound()) return;  // gone: the informer will tell us
  p.flush = p.events.After(kSecond + faulty_client().TakeLatency(), [this, &p] {
    if (up_) Flush(p);
  });
}

// ---- inspection -------------------------------------------------------------------------------

const std::vector<std::string>* Kubelet::Logs(const std::string& ns, const std::string& pod,
                                              const std::string& container, bool previous) const {
  auto it = pods_.find(ns + "/" + pod);
  if (it == pods_.end()) return nullptr;
  for (const auto* list : {&it->second->init, &it->second->main})
    for (const auto& c : *list)
      if (c.name == container) return previous ? &c.previous_logs : &c.logs;
  return nullptr;
}

const EmptyDir* Kubelet::Volume(const std::string& ns, const std::string& pod, const std::string& volume) const {
  auto it = pods_.find(ns + "/" + pod);
  if (it == pods_.end()) return nullptr;
  auto v = it->second->volumes.find(volume);
  return v == it->second->volumes.end() ? nullptr : &v->second;
}

}  // namespace sim
