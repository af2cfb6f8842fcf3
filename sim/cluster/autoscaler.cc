// The simulated cluster-autoscaler: node pools that follow the unschedulable pods. See autoscaler.h.
#include "sim/cluster/autoscaler.h"

#include "fakeapi/client/json_path.h"

#include <algorithm>
#include <tuple>
#include <utility>

namespace sim {

using json = kube::Json;
using kube::ObjectPtr;

namespace {

constexpr const char* kAutoscalerNodeIndex = "autoscaler-node";
constexpr const char* kCoschedulingGroupKey = "scheduling.x-k8s.io/pod-group";

bool FitsInto(const Resources& need, const Resources& free) {
  if (need.milli_cpu > free.milli_cpu || need.memory > free.memory || need.ephemeral_storage > free.ephemeral_storage ||
      need.gpu > free.gpu || need.pods > free.pods)
    return false;
  for (const auto& [name, amount] : need.scalar) {
    auto it = free.scalar.find(name);
    if (amount > (it == free.scalar.end() ? 0 : it->second)) return false;
  }
  return true;
}

// The pod waits for the cluster: not bound, not finished, not being deleted, and marked
// PodScheduled=False, reason Unschedulable by the scheduler.
bool MarkedUnschedulable(const json& pod) {
  if (!kube::NodeNameOf(pod).empty() || kube::IsBeingDeleted(pod)) return false;
  if (kube::IsPodFinished(kube::JsonString(pod, {"status", "phase"}))) return false;
  for (const json& c : kube::JsonArray(pod, {"status", "conditions"}))
    if (kube::JsonString(c, {"type"}) == "PodScheduled")
      return kube::JsonString(c, {"status"}) == "False" && kube::JsonString(c, {"reason"}) == "Unschedulable";
  return false;
}

// Bound and holding its node's resources.
bool HoldsItsNode(const json& pod) {
  return !kube::NodeNameOf(pod).empty() && !kube::IsPodFinished(kube::JsonString(pod, {"status", "phase"}));
}

// "ns/group" of a coscheduled pod, or "".
std::string CoscheduledGroup(const json& pod) {
  std::string group = kube::JsonString(pod, {"metadata", "labels", kCoschedulingGroupKey});
  if (group.empty()) group = kube::JsonString(pod, {"metadata", "annotations", kCoschedulingGroupKey});
  return group.empty() ? "" : kube::NamespaceOf(pod) + "/" + group;
}

bool PoolAdmits(const std::map<std::string, std::string>& labels, const std::vector<Taint>& taints, const json& pod) {
  if (const json* selector = kube::JsonAt(pod, {"spec", "nodeSelector"}); selector != nullptr && selector->is_object()) {
    for (auto it = selector->begin(); it != selector->end(); ++it) {
      auto label = labels.find(it.key());
      if (label == labels.end() || !it->is_string() || label->second != it->get<std::string>()) return false;
    }
  }
  const std::vector<Toleration> tolerations = TolerationsOf(pod);
  for (const Taint& taint : taints) {
    if (taint.effect != "NoSchedule" && taint.effect != "NoExecute") continue;
    if (std::none_of(tolerations.begin(), tolerations.end(), [&](const Toleration& t) { return Tolerates(t, taint); })) return false;
  }
  return true;
}

std::map<std::string, std::string> NodeLabelsOf(const json& node) {
  std::map<std::string, std::string> out;
  if (const json* labels = kube::JsonAt(node, {"metadata", "labels"}); labels != nullptr && labels->is_object())
    for (auto it = labels->begin(); it != labels->end(); ++it)
      if (it->is_string()) out[it.key()] = it->get<std::string>();
  return out;
}

// What a node of `machine` offers, as the scheduler will read it from the Node the cluster creates.
Resources MachineAllocatable(const NodeTemplate& machine) {
  json shape = {{"status", {{"allocatable", json::object()}}}};
  for (const auto& [key, value] : machine.capacity) shape["status"]["allocatable"][key] = value;
  if (!shape["status"]["allocatable"].contains("ephemeral-storage"))
    shape["status"]["allocatable"]["ephemeral-storage"] = kDefaultEphemeralStorage;
  return NodeAllocatable(shape);
}

double UnusedShare(std::int64_t part, std::int64_t whole) { return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0; }

}  // namespace

// A node's room for pods: free resources, what selects and repels pods.
struct Autoscaler::Bin {
  std::string name;  // "" for a node not yet requested
  Resources free;
  Resources allocatable;
  std::map<std::string, std::string> labels;
  std::vector<Taint> taints;
};

// Pods that scale up together: one pod, or a gang's pending pods.
struct Autoscaler::Unit {
  std::vector<ObjectPtr> pods;
  std::vector<Resources> requests;
};

Autoscaler::Autoscaler(Simulation& sim, Cluster& cluster, AutoscalerOptions options, Observer observer)
    : Actor(sim, "cluster-autoscaler"), cluster_(cluster), options_(std::move(options)), observer_(std::move(observer)) {}

Autoscaler::~Autoscaler() = default;

NodeTemplate Autoscaler::MachineOf(const NodePool& pool) const {
  NodeTemplate machine = pool.machine;
  machine.labels[kLabelNodePool] = pool.name;
  machine.labels[kLabelCapacityType] = pool.spot() ? "spot" : "on-demand";
  return machine;
}

kube::Status Autoscaler::AddMinimumNodes() {
  for (const NodePool& pool : options_.pools) {
    for (int k = 0; k < pool.min; ++k) {
      const std::string name = pool.name + "-" + std::to_string(next_index_[pool.name]++);
      if (auto s = cluster_.AddNode(MachineOf(pool), name); !s.ok()) return s;
      nodes_[name] = PoolNode{&pool, State::kProvisioning, std::nullopt};
      Notify(PoolNodeEvent::Kind::kRequested, name);
      NodeReady(name);
    }
  }
  return kube::Status::Ok();
}

void Autoscaler::Start() {
  pods_ = &AddInformer("pods", {},
                       {.on_add = [this](const ObjectPtr& p) { OnPod(nullptr, p); },
                        .on_update = [this](const ObjectPtr& old, const ObjectPtr& p) { OnPod(old, p); },
                        .on_delete = [this](const ObjectPtr& p) { OnPodGone(p); }});
  pods_->AddIndex(kAutoscalerNodeIndex, kube::IndexByNodeName());
  nodes_informer_ = &AddInformer("nodes", {}, {.on_add = [this](const ObjectPtr&) { RequestScan(); }});
}

bool Autoscaler::HasPendingWork() const {
  if (in_flight_ > 0 || IsPending(scan_event_)) return true;
  if (pods_ == nullptr) return false;
  // A pool node above its minimum that no live pod holds is owed a scale-down (the scan that arms
  // its timer may be a watch event away).
  std::map<std::string, int> size;
  for (const NodePool& pool : options_.pools) size[pool.name] = PoolSize(pool.name);
  for (const auto& [name, node] : nodes_) {
    if (node.state != State::kReady || size[node.pool->name] <= node.pool->min) continue;
    const std::vector<ObjectPtr> on_node = pods_->ByIndex(kAutoscalerNodeIndex, name);
    if (std::none_of(on_node.begin(), on_node.end(), [](const ObjectPtr& p) { return HoldsItsNode(*p) && !kube::IsBeingDeleted(*p); }))
      return true;
  }
  return false;
}

int Autoscaler::PoolSize(const std::string& pool) const {
  int n = 0;
  for (const auto& [name, node] : nodes_)
    if (node.pool->name == pool && node.state != State::kGone && node.state != State::kInterrupted) ++n;
  return n;
}

void Autoscaler::OnPod(const ObjectPtr& old_pod, const ObjectPtr& pod) {
  if (MarkedUnschedulable(*pod) && (old_pod == nullptr || !MarkedUnschedulable(*old_pod))) return RequestScan();
  // A pod that stops holding a pool node, or starts going, may leave it unneeded.
  if (old_pod == nullptr || !HoldsItsNode(*old_pod) || !nodes_.contains(kube::NodeNameOf(*old_pod))) return;
  if (!HoldsItsNode(*pod) || (kube::IsBeingDeleted(*pod) && !kube::IsBeingDeleted(*old_pod))) RequestScan();
}

void Autoscaler::OnPodGone(const ObjectPtr& pod) {
  if (HoldsItsNode(*pod) && nodes_.contains(kube::NodeNameOf(*pod))) RequestScan();
}

void Autoscaler::RequestScan(Micros not_before) {
  const Micros from = std::max(Now(), not_before);
  const Micros interval = options_.scan_interval;
  const Micros at = interval > 0 ? (from + interval - 1) / interval * interval : from;
  if (IsPending(scan_event_) && scan_at_ && *scan_at_ <= at) return;
  if (IsPending(scan_event_)) Cancel(scan_event_);
  scan_at_ = at;
  scan_event_ = At(at, [this] { Scan(); });
}

void Autoscaler::Scan() {
  scan_at_.reset();
  if (pods_ == nullptr) return;
  std::map<std::string, Resources> used;
  std::map<std::string, int> pods_on, live_on;  // live: not being deleted
  for (const ObjectPtr& pod : pods_->List()) {
    if (!HoldsItsNode(*pod)) continue;
    used[kube::NodeNameOf(*pod)].Add(ComputePodRequests(*pod).requests);
    ++pods_on[kube::NodeNameOf(*pod)];
    if (!kube::IsBeingDeleted(*pod)) ++live_on[kube::NodeNameOf(*pod)];
  }
  std::vector<Bin> bins = FreeBins(used);
  std::vector<Unit> left;
  for (Unit& unit : PendingUnits()) {
    std::vector<Bin> trial = bins;
    bool placed = true;
    for (std::size_t i = 0; i < unit.pods.size() && placed; ++i) {
      auto bin = std::find_if(trial.begin(), trial.end(),
                              [&](const Bin& b) { return FitsInto(unit.requests[i], b.free) && PoolAdmits(b.labels, b.taints, *unit.pods[i]); });
      if (bin == trial.end()) placed = false;
      else bin->free.Add(unit.requests[i], -1);
    }
    if (placed) bins = std::move(trial);
    else left.push_back(std::move(unit));
  }
  if (!left.empty() && ScaleUp(left, bins)) RequestScan(Now() + 1);
  ScaleDown(pods_on);
  // Interrupted machines whose pods are gone or going: their Node objects go too, as the cloud's
  // node controller deletes a Node whose instance is gone.
  for (auto& [name, node] : nodes_) {
    if (node.state != State::kInterrupted || live_on.contains(name)) continue;
    node.state = State::kGone;
    (void)cluster_.RemoveNode(name);
    Notify(PoolNodeEvent::Kind::kRemoved, name);
  }
}

std::vector<Autoscaler::Unit> Autoscaler::PendingUnits() const {
  std::vector<ObjectPtr> pending;
  for (const ObjectPtr& pod : pods_->List())
    if (MarkedUnschedulable(*pod)) pending.push_back(pod);
  std::stable_sort(pending.begin(), pending.end(), [](const ObjectPtr& a, const ObjectPtr& b) {
    return std::make_tuple(kube::JsonString(*a, {"metadata", "creationTimestamp"}), kube::KeyOf(*a)) <
           std::make_tuple(kube::JsonString(*b, {"metadata", "creationTimestamp"}), kube::KeyOf(*b));
  });
  std::vector<Unit> units;
  std::map<std::string, std::size_t> unit_of_group;
  for (const ObjectPtr& pod : pending) {
    const std::string group = CoscheduledGroup(*pod);
    std::size_t index = units.size();
    if (!group.empty()) {
      auto [it, fresh] = unit_of_group.emplace(group, units.size());
      index = it->second;
      if (!fresh) {
        units[index].pods.push_back(pod);
        units[index].requests.push_back(ComputePodRequests(*pod).requests);
        continue;
      }
    }
    units.push_back(Unit{{pod}, {ComputePodRequests(*pod).requests}});
  }
  return units;
}

std::vector<Autoscaler::Bin> Autoscaler::FreeBins(const std::map<std::string, Resources>& used) const {
  std::vector<Bin> bins;
  for (const ObjectPtr& node : nodes_informer_->List()) {
    const std::string& name = kube::NameOf(*node);
    const kube::Json* cordoned = kube::JsonAt(*node, {"spec", "unschedulable"});
    if (NodeReadyStatus(*node) != "True" || (cordoned != nullptr && cordoned->is_boolean() && cordoned->get<bool>())) continue;
    if (auto it = nodes_.find(name); it != nodes_.end() && it->second.state != State::kReady) continue;
    Bin bin{name, NodeAllocatable(*node), NodeAllocatable(*node), NodeLabelsOf(*node), TaintsOf(*node)};
    if (auto u = used.find(name); u != used.end()) bin.free.Add(u->second, -1);
    bins.push_back(std::move(bin));
  }
  // Nodes on their way count whole: the pods they were requested for must not scale up twice.
  for (const auto& [name, node] : nodes_) {
    if (node.state != State::kProvisioning) continue;
    const NodeTemplate machine = MachineOf(*node.pool);
    bins.push_back(Bin{name, MachineAllocatable(machine), MachineAllocatable(machine), machine.labels, machine.taints});
  }
  return bins;
}

bool Autoscaler::ScaleUp(const std::vector<Unit>& units, const std::vector<Bin>& free) {
  struct Option {
    const NodePool* pool = nullptr;
    int nodes = 0;
    std::size_t units = 0;
    double waste = 0;
  };
  std::optional<Option> best;
  for (const NodePool& pool : options_.pools) {
    const int room = pool.max - PoolSize(pool.name);
    if (room <= 0) continue;
    const NodeTemplate machine = MachineOf(pool);
    const Bin empty{"", MachineAllocatable(machine), MachineAllocatable(machine), machine.labels, machine.taints};
    // The room left on the cluster's nodes first (a gang may spread over them and new ones), then
    // new machines as the units need them.
    std::vector<Bin> bins = free;
    const std::size_t existing = bins.size();
    Option option{&pool, 0, 0, 0};
    for (const Unit& unit : units) {
      std::vector<Bin> trial = bins;
      bool placed = true;
      for (std::size_t i = 0; i < unit.pods.size() && placed; ++i) {
        auto bin = std::find_if(trial.begin(), trial.end(), [&](const Bin& b) {
          return FitsInto(unit.requests[i], b.free) && PoolAdmits(b.labels, b.taints, *unit.pods[i]);
        });
        if (bin == trial.end()) {
          placed = PoolAdmits(empty.labels, empty.taints, *unit.pods[i]) && FitsInto(unit.requests[i], empty.free) &&
                   static_cast<int>(trial.size() - existing) < room;
          if (!placed) break;
          trial.push_back(empty);
          bin = trial.end() - 1;
        }
        bin->free.Add(unit.requests[i], -1);
      }
      if (!placed) continue;
      bins = std::move(trial);
      ++option.units;
    }
    if (bins.size() == existing) continue;
    option.nodes = static_cast<int>(bins.size() - existing);
    std::int64_t free_cpu = 0, all_cpu = 0, free_memory = 0, all_memory = 0;
    for (std::size_t b = existing; b < bins.size(); ++b) {
      free_cpu += bins[b].free.milli_cpu, all_cpu += bins[b].allocatable.milli_cpu;
      free_memory += bins[b].free.memory, all_memory += bins[b].allocatable.memory;
    }
    option.waste = (UnusedShare(free_cpu, all_cpu) + UnusedShare(free_memory, all_memory)) / 2;
    // Least waste, or the highest priority; ties to the pool listed first (the loop's order).
    auto rank = [&](const Option& o) {
      return options_.expander == Expander::kPriority ? std::make_pair(static_cast<double>(-o.pool->priority), 0.0)
                                                       : std::make_pair(o.waste, 0.0);
    };
    if (!best || rank(option) < rank(*best)) best = option;
  }
  if (!best) return false;
  Log("scale-up: pool " + best->pool->name + " +" + std::to_string(best->nodes) + " node(s) for " +
      std::to_string(best->units) + " of " + std::to_string(units.size()) + " pending unit(s)");
  for (int i = 0; i < best->nodes; ++i) RequestNode(*best->pool);
  last_scale_up_ = Now();
  return best->units < units.size();
}

void Autoscaler::RequestNode(const NodePool& pool) {
  const std::string name = pool.name + "-" + std::to_string(next_index_[pool.name]++);
  nodes_[name] = PoolNode{&pool, State::kProvisioning, std::nullopt};
  ++in_flight_;
  Notify(PoolNodeEvent::Kind::kRequested, name);
  At(Now() + pool.scale_up_delay, [this, name] {
    --in_flight_;
    if (auto s = cluster_.AddNode(MachineOf(*nodes_[name].pool), name); !s.ok()) {
      Log("node " + name + " not created: " + s.message());
      nodes_[name].state = State::kGone;
      Notify(PoolNodeEvent::Kind::kRemoved, name);
      return;
    }
    NodeReady(name);
  });
}

void Autoscaler::NodeReady(const std::string& name) {
  PoolNode& node = nodes_[name];
  node.state = State::kReady;
  Notify(PoolNodeEvent::Kind::kReady, name);
  if (node.pool->spot()) {
    const auto wait = static_cast<Micros>(sim().Random("spot/" + name).Exponential(static_cast<double>(node.pool->mean_time_to_interruption)));
    At(Now() + std::max<Micros>(wait, 1), [this, name] { Notice(name); });
  }
}

void Autoscaler::ScaleDown(const std::map<std::string, int>& pods_on) {
  std::optional<Micros> next;
  std::map<std::string, int> size;
  for (const NodePool& pool : options_.pools) size[pool.name] = PoolSize(pool.name);
  const Micros quiet_from = last_scale_up_ ? *last_scale_up_ + options_.scale_down_delay_after_add : 0;
  for (auto& [name, node] : nodes_) {
    if (node.state != State::kReady) continue;
    if (pods_on.contains(name)) {
      node.empty_since.reset();
      continue;
    }
    if (size[node.pool->name] <= node.pool->min) continue;
    if (!node.empty_since) node.empty_since = Now();
    const Micros due = std::max(*node.empty_since + options_.scale_down_unneeded_time, quiet_from);
    if (due > Now()) {
      next = std::min(next.value_or(due), due);
      continue;
    }
    --size[node.pool->name];
    Cordon(name);
  }
  if (next) RequestScan(*next);
}

void Autoscaler::Cordon(const std::string& name) {
  nodes_[name].state = State::kDraining;
  if (auto s = SetTaint(name, kTaintToBeDeleted, true); !s.ok()) {
    nodes_[name].state = State::kReady;
    return;
  }
  Log("scale-down: cordoned unneeded node " + name);
  ++in_flight_;
  After(kScaleDownCheckDelay, [this, name] {
    --in_flight_;
    RemoveIfStillEmpty(name);
  });
}

void Autoscaler::RemoveIfStillEmpty(const std::string& name) {
  PoolNode& node = nodes_[name];
  if (node.state != State::kDraining) return;
  kube::ListOptions on_node;
  on_node.field_selector = "spec.nodeName=" + name;
  auto pods = client().List("pods", on_node);
  bool empty = pods.ok();
  if (pods.ok())
    for (const ObjectPtr& pod : pods->items) empty = empty && !HoldsItsNode(*pod);
  if (!empty) {
    node.state = State::kReady;
    node.empty_since.reset();
    (void)SetTaint(name, kTaintToBeDeleted, false);
    Log("scale-down: " + name + " got a pod meanwhile; kept");
    return;
  }
  node.state = State::kGone;
  (void)cluster_.RemoveNode(name);
  Log("scale-down: removed " + name);
  Notify(PoolNodeEvent::Kind::kRemoved, name);
}

void Autoscaler::Notice(const std::string& name) {
  PoolNode& node = nodes_[name];
  if (node.state != State::kReady && node.state != State::kDraining) return;
  node.state = State::kNotice;
  (void)SetTaint(name, kTaintSpotInterruption, true);
  Log("spot: interruption notice for " + name);
  Notify(PoolNodeEvent::Kind::kNotice, name);
  At(Now() + node.pool->interruption_notice, [this, name] { Interrupt(name); });
}

void Autoscaler::Interrupt(const std::string& name) {
  nodes_[name].state = State::kInterrupted;
  Log("spot: " + name + " interrupted");
  cluster_.NodeDown(name);
  Notify(PoolNodeEvent::Kind::kInterrupted, name);
  RequestScan();
}

void Autoscaler::Notify(PoolNodeEvent::Kind kind, const std::string& node) {
  if (observer_) observer_(PoolNodeEvent{kind, node, nodes_[node].pool});
}

kube::Status Autoscaler::SetTaint(const std::string& node, const std::string& key, bool present) {
  auto current = client().Get("nodes", "", node);
  if (!current.ok()) return current.status();
  json taints = json::array();
  for (const json& t : kube::JsonArray(**current, {"spec", "taints"}))
    if (kube::JsonString(t, {"key"}) != key) taints.push_back(t);
  if (present) taints.push_back(Taint{key, "", "NoSchedule", std::nullopt}.ToJson());
  auto patched = client().Patch("nodes", "", node, {{"spec", {{"taints", taints}}}}, kube::PatchType::kMerge);
  return patched.ok() ? kube::Status::Ok() : patched.status();
}

}  // namespace sim
