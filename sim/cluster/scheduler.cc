// The simulated kube-scheduler. See scheduler.h.
#include "sim/cluster/scheduler.h"

#include "fakeapi/client/json_path.h"
#include "fakeapi/client/quantity.h"
#include "fakeapi/server/rbac_bootstrap.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

namespace sim {

using kube::ObjectPtr;
using json = kube::Json;

namespace {

constexpr const char* kPodGroupLabel = "scheduling.x-k8s.io/pod-group";
constexpr const char* kPendingGroupIndex = "pod-group";
constexpr const char* kPodsByNodeIndex = "node";
constexpr const char* kPodsByLabelIndex = "label";
constexpr std::int64_t kDefaultMilliCpuRequest = 100;             // schedutil.DefaultMilliCPURequest
constexpr std::int64_t kDefaultMemoryRequest = 200 * 1024 * 1024;  // schedutil.DefaultMemoryRequest
constexpr const char* kLabelHostname = "kubernetes.io/hostname";
constexpr const char* kLabelZone = "topology.kubernetes.io/zone";
constexpr std::int64_t kMaxNodeScore = 100;
// The default profile's score weights (pkg/scheduler/apis/config/v1/default_plugins.go).
constexpr std::int64_t kWeightFit = 1, kWeightBalanced = 1, kWeightTaint = 3, kWeightAffinity = 2, kWeightSpread = 2;

const json* Field(const json& obj, const char* key) { return kube::JsonAt(obj, {key}); }
const json* Field(const json& obj, const char* a, const char* b) { return kube::JsonAt(obj, {a, b}); }
std::string Str(const json* v) { return v && v->is_string() ? v->get<std::string>() : ""; }

std::optional<std::int64_t> QuantityMilli(const json& v) {
  if (v.is_string()) return kube::ParseQuantityMilli(v.get_ref<const std::string&>());
  if (v.is_number_integer()) return v.get<std::int64_t>() * 1000;
  if (v.is_number()) return kube::ParseQuantityMilli(v.dump());
  return std::nullopt;
}

// Adds one resource list entry ("cpu": "2") to `r`.
void AddQuantity(Resources& r, const std::string& name, const json& value) {
  auto milli = QuantityMilli(value);
  if (!milli) return;
  auto whole = [&] { return (*milli + 999) / 1000; };
  if (name == "cpu") r.milli_cpu += *milli;
  else if (name == "memory") r.memory += whole();
  else if (name == "ephemeral-storage") r.ephemeral_storage += whole();
  else if (name == kResourceGpu) r.gpu += whole();
  else if (name == "pods") r.pods += whole();
  else r.scalar[name] += whole();
}

Resources ResourceList(const json* list) {
  Resources r;
  if (list && list->is_object())
    for (auto it = list->begin(); it != list->end(); ++it) AddQuantity(r, it.key(), it.value());
  return r;
}

void MaxInto(Resources& into, const Resources& other) {
  into.milli_cpu = std::max(into.milli_cpu, other.milli_cpu);
  into.memory = std::max(into.memory, other.memory);
  into.ephemeral_storage = std::max(into.ephemeral_storage, other.ephemeral_storage);
  into.gpu = std::max(into.gpu, other.gpu);
  for (const auto& [name, v] : other.scalar) into.scalar[name] = std::max(into.scalar[name], v);
}

// A container's effective requests: its requests, a limit standing in for a missing request.
Resources ContainerRequests(const json& container, std::int64_t* nonzero_cpu, std::int64_t* nonzero_memory) {
  const json* resources = Field(container, "resources");
  const json* requests = resources ? Field(*resources, "requests") : nullptr;
  const json* limits = resources ? Field(*resources, "limits") : nullptr;
  Resources r = ResourceList(requests);
  bool has_cpu = requests && requests->is_object() && requests->contains("cpu");
  bool has_memory = requests && requests->is_object() && requests->contains("memory");
  if (limits && limits->is_object())
    for (auto it = limits->begin(); it != limits->end(); ++it) {
      if (requests && requests->is_object() && requests->contains(it.key())) continue;
      AddQuantity(r, it.key(), it.value());
      if (it.key() == "cpu") has_cpu = true;
      if (it.key() == "memory") has_memory = true;
    }
  *nonzero_cpu = has_cpu ? r.milli_cpu : kDefaultMilliCpuRequest;
  *nonzero_memory = has_memory ? r.memory : kDefaultMemoryRequest;
  return r;
}

// leastRequestedScore / mostRequestedScore; a resource the node has none of is not scored.
std::int64_t ResourceScore(ScoringPolicy policy, std::int64_t requested, std::int64_t capacity) {
  if (capacity <= 0) return 0;
  if (policy == ScoringPolicy::kLeastAllocated) {
    if (requested > capacity) return 0;
    return (capacity - requested) * 100 / capacity;
  }
  if (requested > capacity) requested = capacity;
  return requested * 100 / capacity;
}

bool IsTerminal(const json& pod) {
  std::string phase = Str(Field(pod, "status", "phase"));
  return phase == "Succeeded" || phase == "Failed";
}

}  // namespace

void Resources::Add(const Resources& o, int sign) {
  milli_cpu += sign * o.milli_cpu;
  memory += sign * o.memory;
  ephemeral_storage += sign * o.ephemeral_storage;
  gpu += sign * o.gpu;
  pods += sign * o.pods;
  for (const auto& [name, v] : o.scalar) {
    auto& slot = scalar[name];
    slot += sign * v;
    if (slot == 0) scalar.erase(name);
  }
}

PodRequests ComputePodRequests(const json& pod) {
  PodRequests out;
  const json* spec = Field(pod, "spec");
  if (const json* containers = spec ? Field(*spec, "containers") : nullptr; containers && containers->is_array())
    for (const auto& c : *containers) {
      std::int64_t nz_cpu = 0, nz_mem = 0;
      out.requests.Add(ContainerRequests(c, &nz_cpu, &nz_mem));
      out.nonzero_milli_cpu += nz_cpu;
      out.nonzero_memory += nz_mem;
    }
  // An init container runs alone: the pod needs at least the largest one.
  if (const json* inits = spec ? Field(*spec, "initContainers") : nullptr; inits && inits->is_array())
    for (const auto& c : *inits) {
      std::int64_t nz_cpu = 0, nz_mem = 0;
      MaxInto(out.requests, ContainerRequests(c, &nz_cpu, &nz_mem));
      out.nonzero_milli_cpu = std::max(out.nonzero_milli_cpu, nz_cpu);
      out.nonzero_memory = std::max(out.nonzero_memory, nz_mem);
    }
  if (spec) {
    Resources overhead = ResourceList(Field(*spec, "overhead"));
    out.requests.Add(overhead);
    out.nonzero_milli_cpu += overhead.milli_cpu;
    out.nonzero_memory += overhead.memory;
  }
  out.requests.pods = 1;
  return out;
}

Resources NodeAllocatable(const json& node) {
  const json* allocatable = Field(node, "status", "allocatable");
  if (!allocatable || !allocatable->is_object()) allocatable = Field(node, "status", "capacity");
  Resources r = ResourceList(allocatable);
  if (!allocatable || !allocatable->is_object() || !allocatable->contains("pods")) r.pods = kDefaultMaxPods;
  return r;
}

// ---- internal state ------------------------------------------------------------------------------

// What PassesFilters (but node affinity) and Score read of a node.
struct Scheduler::NodeState {
  Resources allocatable;
  Resources requested;
  std::int64_t nonzero_cpu = 0;
  std::int64_t nonzero_memory = 0;
  std::vector<Taint> taints;
  bool unschedulable = false;
  bool ready = true;
  bool readiness_taint = false;  // not-ready / unreachable taint present
  bool has_hostname = false;     // a kubernetes.io/hostname label (topology spreading reads it)
  std::optional<std::string> zone;  // its topology.kubernetes.io/zone label
  auto operator<=>(const NodeState&) const = default;
};

struct Scheduler::StateIndex {
  struct ByName {
    bool operator()(const NodeInfo* a, const NodeInfo* b) const;
  };
  std::map<NodeState, std::set<NodeInfo*, ByName>> groups;
};

struct Scheduler::NodeInfo : NodeState {
  std::string name;
  ObjectPtr object;
  const json* labels = nullptr;  // into *object
  // Its group in states_ while grouped.
  std::optional<std::map<NodeState, std::set<NodeInfo*, StateIndex::ByName>>::iterator> group;
  const NodeState& State() const { return *this; }
};

bool Scheduler::StateIndex::ByName::operator()(const NodeInfo* a, const NodeInfo* b) const { return a->name < b->name; }

struct Scheduler::Accounted {
  std::string uid;
  std::string node;
  PodRequests requests;
  std::string ns;
  json labels;               // what topology spreading's selector matches
  bool terminating = false;  // deletionTimestamp set: topology spreading skips it
};

namespace {

// One requirement of a required node affinity term (v1.NodeSelectorRequirement).
struct NodeSelectorRequirement {
  std::string key;
  std::string op;
  std::vector<std::string> values;
  bool field = false;  // matchFields (metadata.name)
};

// Whether the node named `name` with `labels` meets `e`.
bool RequirementMet(const std::string& name, const json* labels, const NodeSelectorRequirement& e) {
  std::optional<std::string> value;
  if (e.field) {
    if (e.key == "metadata.name") value = name;
  } else if (const json* v = labels && labels->is_object() ? Field(*labels, e.key.c_str()) : nullptr;
             v && v->is_string()) {
    value = v->get<std::string>();
  }
  bool in = value && std::find(e.values.begin(), e.values.end(), *value) != e.values.end();
  if (e.op == "In") return in;
  if (e.op == "NotIn") return !in;
  if (e.op == "Exists") return value.has_value();
  if (e.op == "DoesNotExist") return !value.has_value();
  if ((e.op == "Gt" || e.op == "Lt") && value && e.values.size() == 1) {
    char* end = nullptr;
    long long have = std::strtoll(value->c_str(), &end, 10);
    bool have_ok = !value->empty() && *end == '\0';
    long long want = std::strtoll(e.values[0].c_str(), &end, 10);
    bool want_ok = !e.values[0].empty() && *end == '\0';
    return have_ok && want_ok && (e.op == "Gt" ? have > want : have < want);
  }
  return false;
}

}  // namespace

struct Scheduler::Constraints {
  const json* node_selector = nullptr;                      // into PendingPod::pod, the version held
  std::vector<std::vector<NodeSelectorRequirement>> terms;  // ORed; each term ANDs its requirements
  bool has_required_affinity = false;
  std::vector<std::pair<std::int64_t, std::vector<NodeSelectorRequirement>>> preferred;  // (weight, term)
  std::vector<Toleration> tolerations;
};

struct Scheduler::PendingPod {
  std::string key;
  ObjectPtr pod;
  PodRequests requests;
  Constraints constraints;
  std::string group;  // "ns/name" or ""
  QueueState state = QueueState::kActive;
  std::uint64_t active_seq = 0;
  int attempts = 0;
  Micros backoff_until = 0;
  EventId backoff_event;
  EventId flush_event;
};

struct Scheduler::GroupState {
  EventId timeout;
  bool timed_out = false;
  bool scheduled = false;
};

namespace {

// A node selector term's requirements (matchExpressions, then matchFields).
std::vector<NodeSelectorRequirement> ParseTerm(const json& term) {
  std::vector<NodeSelectorRequirement> exprs;
  for (const char* kind : {"matchExpressions", "matchFields"}) {
    const json* list = Field(term, kind);
    if (!list || !list->is_array()) continue;
    for (const auto& e : *list) {
      NodeSelectorRequirement x{Str(Field(e, "key")), Str(Field(e, "operator")), {}, kind[5] == 'F'};
      if (const json* values = Field(e, "values"); values && values->is_array())
        for (const auto& v : *values) x.values.push_back(v.is_string() ? v.get<std::string>() : v.dump());
      exprs.push_back(std::move(x));
    }
  }
  return exprs;
}

bool TermMet(const std::string& name, const json* labels, const std::vector<NodeSelectorRequirement>& term) {
  if (term.empty()) return false;  // an empty term matches nothing
  for (const auto& e : term)
    if (!RequirementMet(name, labels, e)) return false;
  return true;
}

}  // namespace

void Scheduler::ParseConstraints(const json& pod, Constraints& c) {
  c = Constraints{};
  c.node_selector = Field(pod, "spec", "nodeSelector");
  c.tolerations = TolerationsOf(pod);
  const json* affinity = Field(pod, "spec", "affinity");
  const json* node_affinity = affinity ? Field(*affinity, "nodeAffinity") : nullptr;
  const json* required =
      node_affinity ? Field(*node_affinity, "requiredDuringSchedulingIgnoredDuringExecution") : nullptr;
  const json* terms = required ? Field(*required, "nodeSelectorTerms") : nullptr;
  if (terms && terms->is_array()) {
    c.has_required_affinity = true;
    for (const auto& term : *terms) c.terms.push_back(ParseTerm(term));
  }
  const json* preferred =
      node_affinity ? Field(*node_affinity, "preferredDuringSchedulingIgnoredDuringExecution") : nullptr;
  if (preferred && preferred->is_array())
    for (const auto& p : *preferred) {
      const json* weight = Field(p, "weight");
      const json* preference = Field(p, "preference");
      if (!weight || !weight->is_number_integer() || !preference) continue;
      auto term = ParseTerm(*preference);
      if (!term.empty()) c.preferred.emplace_back(weight->get<std::int64_t>(), std::move(term));
    }
}

// ---- lifecycle -----------------------------------------------------------------------------------

Scheduler::Scheduler(Simulation& sim, SchedulerConfig config, std::string name)
    : Actor(sim, std::move(name)), config_(std::move(config)), states_(std::make_unique<StateIndex>()) {
  SetIdentity(fakeapi::rbac::SchedulerUser());
}

Scheduler::~Scheduler() = default;

void Scheduler::Start() {
  AddInformer("nodes", {},
              {.on_add = [this](const ObjectPtr& n) { OnNode(nullptr, n); },
               .on_update = [this](const ObjectPtr& o, const ObjectPtr& n) { OnNode(o, n); },
               .on_delete = [this](const ObjectPtr& n) { OnNodeDeleted(n); }});
  pod_informer_ = &AddInformer("pods", {},
                               {.on_add = [this](const ObjectPtr& p) { OnPod(p); },
                                .on_update = [this](const ObjectPtr&, const ObjectPtr& p) { OnPod(p); },
                                .on_delete = [this](const ObjectPtr& p) { OnPodDeleted(p); }});
  pod_informer_->AddIndex(kPodsByNodeIndex, kube::IndexByNodeName());
  // "namespace/key=value" for each label: the few pods a spreading selector can match.
  pod_informer_->AddIndex(kPodsByLabelIndex, [](const json& pod) {
    std::vector<std::string> out;
    if (const json* labels = Field(pod, "metadata", "labels"); labels && labels->is_object())
      for (auto it = labels->begin(); it != labels->end(); ++it)
        if (it.value().is_string())
          out.push_back(kube::NamespaceOf(pod) + "/" + it.key() + "=" + it.value().get<std::string>());
    return out;
  });
  auto group_index = [this](const json& pod) -> std::vector<std::string> {
    std::string g = GroupOf(pod);
    if (g.empty()) return {};
    return {g};
  };
  pod_informer_->AddIndex(kPendingGroupIndex, group_index);
  pending_informer_ = &AddInformer(
      "pods", {.field_selector = "spec.nodeName=,spec.schedulerName=" + config_.scheduler_name},
      {.on_add = [this](const ObjectPtr& p) { OnPendingPod(p, true); },
       .on_update =
           [this](const ObjectPtr& o, const ObjectPtr& p) {
             // Our own status writes do not count as a change of the pod. (Compared in place: the
             // absent labels are one static null, so no side is copied.)
             static const json kNoLabels;
             const json* before = Field(*o, "metadata", "labels");
             const json* after = Field(*p, "metadata", "labels");
             bool changed = Field(*o, "spec") == nullptr || *Field(*o, "spec") != *Field(*p, "spec") ||
                            (before ? *before : kNoLabels) != (after ? *after : kNoLabels);
             OnPendingPod(p, changed);
           },
       .on_delete = [this](const ObjectPtr& p) { OnPendingPodGone(p); }});
  pending_informer_->AddIndex(kPendingGroupIndex, group_index);
  service_informer_ = &AddInformer("services", {}, {});
  if (config_.gang)
    group_informer_ = &AddInformer("podgroups", {},
                                   {.on_add = [this](const ObjectPtr& g) { OnPodGroup(g); },
                                    .on_update = [this](const ObjectPtr&, const ObjectPtr& g) { OnPodGroup(g); }});
}

const Resources* Scheduler::Allocated(const std::string& node) const {
  auto it = nodes_.find(node);
  return it == nodes_.end() ? nullptr : &it->second->requested;
}

std::size_t Scheduler::UnschedulableCount() const { return unschedulable_.size(); }

// ---- nodes ---------------------------------------------------------------------------------------

void Scheduler::OnNode(const ObjectPtr& old_node, const ObjectPtr& node) {
  const std::string& name = kube::NameOf(*node);
  auto& slot = nodes_[name];
  bool added = !slot;
  if (added) {
    slot = std::make_unique<NodeInfo>();
    slot->name = name;
    order_stale_ = true;
  }
  NodeInfo& info = *slot;
  Ungroup(info);
  info.object = node;
  info.labels = Field(*node, "metadata", "labels");
  info.allocatable = NodeAllocatable(*node);
  info.taints = TaintsOf(*node);
  const json* unschedulable = Field(*node, "spec", "unschedulable");
  info.unschedulable = unschedulable && unschedulable->is_boolean() && unschedulable->get<bool>();
  info.ready = NodeReadyStatus(*node) == "True";
  info.readiness_taint = false;
  info.has_hostname = info.labels && info.labels->is_object() && info.labels->contains(kLabelHostname);
  info.zone.reset();
  if (const json* z = info.labels && info.labels->is_object() ? Field(*info.labels, kLabelZone) : nullptr;
      z && z->is_string())
    info.zone = z->get<std::string>();
  for (const auto& t : info.taints)
    if (t.key == kTaintNotReady || t.key == kTaintUnreachable) info.readiness_taint = true;

  // Pods bound before we saw their node count now.
  if (added && pod_informer_)
    for (const auto& pod : pod_informer_->ByIndex(kPodsByNodeIndex, name)) {
      auto it = accounted_.find(kube::KeyOf(*pod));
      if (it == accounted_.end() || it->second->node != name) continue;
      info.requested.Add(it->second->requests.requests);
      info.nonzero_cpu += it->second->requests.nonzero_milli_cpu;
      info.nonzero_memory += it->second->requests.nonzero_memory;
    }
  Group(info);
  if (added) {
    MoveAllToActiveOrBackoff("NodeAdd");
    return;
  }
  auto same = [&](const char* a, const char* b) {
    const json* x = Field(*old_node, a, b);
    const json* y = Field(*node, a, b);
    return (x == nullptr) == (y == nullptr) && (!x || *x == *y);
  };
  bool relevant = !same("status", "allocatable") || !same("metadata", "labels") || !same("spec", "taints") ||
                  !same("spec", "unschedulable") || NodeReadyStatus(*old_node) != NodeReadyStatus(*node);
  if (relevant) MoveAllToActiveOrBackoff("NodeUpdate");
}

void Scheduler::OnNodeDeleted(const ObjectPtr& node) {
  auto it = nodes_.find(kube::NameOf(*node));
  if (it == nodes_.end()) return;
  Ungroup(*it->second);
  nodes_.erase(it);
  order_stale_ = true;
}

void Scheduler::Ungroup(NodeInfo& info) {
  if (!info.group) return;
  auto group = *info.group;
  group->second.erase(&info);
  if (group->second.empty()) states_->groups.erase(group);
  info.group.reset();
}

void Scheduler::Group(NodeInfo& info) {
  auto group = states_->groups.try_emplace(info.State()).first;
  group->second.insert(&info);
  info.group = group;
}

// ---- pods and accounting -------------------------------------------------------------------------

void Scheduler::Account(const std::string& key, const json& pod) {
  std::string node_name = Str(Field(pod, "spec", "nodeName"));
  auto it = accounted_.find(key);
  if (it != accounted_.end()) {
    if (it->second->uid == kube::UidOf(pod) && it->second->node == node_name) {
      const json* labels = Field(pod, "metadata", "labels");
      it->second->labels = labels ? *labels : json();
      it->second->terminating = kube::IsBeingDeleted(pod);
      return;
    }
    Unaccount(key);
  }
  auto entry = std::make_unique<Accounted>();
  entry->uid = kube::UidOf(pod);
  entry->node = node_name;
  entry->requests = ComputePodRequests(pod);
  entry->ns = kube::NamespaceOf(pod);
  if (const json* labels = Field(pod, "metadata", "labels")) entry->labels = *labels;
  entry->terminating = kube::IsBeingDeleted(pod);
  if (auto n = nodes_.find(node_name); n != nodes_.end()) {
    Ungroup(*n->second);
    n->second->requested.Add(entry->requests.requests);
    n->second->nonzero_cpu += entry->requests.nonzero_milli_cpu;
    n->second->nonzero_memory += entry->requests.nonzero_memory;
    Group(*n->second);
  }
  accounted_[key] = std::move(entry);
}

void Scheduler::Unaccount(const std::string& key) {
  auto it = accounted_.find(key);
  if (it == accounted_.end()) return;
  if (auto n = nodes_.find(it->second->node); n != nodes_.end()) {
    Ungroup(*n->second);
    n->second->requested.Add(it->second->requests.requests, -1);
    n->second->nonzero_cpu -= it->second->requests.nonzero_milli_cpu;
    n->second->nonzero_memory -= it->second->requests.nonzero_memory;
    Group(*n->second);
  }
  accounted_.erase(it);
}

void Scheduler::OnPod(const ObjectPtr& pod) {
  std::string key = kube::KeyOf(*pod);
  bool bound = !Str(Field(*pod, "spec", "nodeName")).empty();
  if (bound && !IsTerminal(*pod)) {
    Account(key, *pod);
    return;
  }
  auto it = accounted_.find(key);
  if (it != accounted_.end() && it->second->uid == kube::UidOf(*pod)) {
    Unaccount(key);
    MoveAllToActiveOrBackoff("PodFinished");
  }
}

void Scheduler::OnPodDeleted(const ObjectPtr& pod) {
  std::string key = kube::KeyOf(*pod);
  auto it = accounted_.find(key);
  if (it == accounted_.end() || it->second->uid != kube::UidOf(*pod)) return;
  Unaccount(key);
  MoveAllToActiveOrBackoff("PodDelete");
  // A pod of the same name may be waiting in the pending cache, held back while this one counted.
  if (pending_informer_)
    if (ObjectPtr waiting = pending_informer_->GetByKey(key)) OnPendingPod(waiting, true);
}

// ---- the queues ----------------------------------------------------------------------------------

std::string Scheduler::GroupOf(const json& pod) const {
  if (!config_.gang) return "";
  std::string name = Str(Field(pod, "metadata", "labels") ? Field(*Field(pod, "metadata", "labels"), kPodGroupLabel)
                                                          : nullptr);
  if (name.empty() && Field(pod, "metadata", "annotations"))
    name = Str(Field(*Field(pod, "metadata", "annotations"), kPodGroupLabel));
  if (name.empty()) return "";
  return kube::NamespaceOf(pod) + "/" + name;
}

void Scheduler::OnPendingPod(const ObjectPtr& pod, bool changed) {
  std::string key = kube::KeyOf(*pod);
  if (kube::IsBeingDeleted(*pod) || IsTerminal(*pod)) {
    OnPendingPodGone(pod);
    return;
  }
  // Already bound by us (the watch has not caught up): not pending.
  if (auto a = accounted_.find(key); a != accounted_.end() && a->second->uid == kube::UidOf(*pod)) return;
  auto& slot = pending_[key];
  bool added = !slot;
  if (added) {
    slot = std::make_unique<PendingPod>();
    slot->key = key;
  } else if (slot->pod && kube::UidOf(*slot->pod) != kube::UidOf(*pod)) {
    changed = true;  // a new pod under the old name
    slot->attempts = 0;
  }
  PendingPod& p = *slot;
  p.pod = pod;
  // The node selector is read in place, so it must point into the version held now: the one it
  // pointed into may be freed with the pointer just replaced (a status update is not a change).
  p.constraints.node_selector = Field(*pod, "spec", "nodeSelector");
  if (added || changed) {
    p.requests = ComputePodRequests(*pod);
    p.group = GroupOf(*pod);
    ParseConstraints(*pod, p.constraints);
  }
  if (added) {
    Activate(key);
  } else if (changed && (p.state == QueueState::kUnschedulable || p.state == QueueState::kBackoff)) {
    MoveToActiveOrBackoff(key);
  }
}

void Scheduler::OnPendingPodGone(const ObjectPtr& pod) {
  std::string key = kube::KeyOf(*pod);
  auto it = pending_.find(key);
  if (it == pending_.end() || (it->second->pod && kube::UidOf(*it->second->pod) != kube::UidOf(*pod))) return;
  Cancel(it->second->backoff_event);
  Cancel(it->second->flush_event);
  unschedulable_.erase(key);
  pending_.erase(it);
}

void Scheduler::OnPodGroup(const ObjectPtr& group) {
  std::string group_key = kube::KeyOf(*group);
  std::vector<std::string> members;
  for (const auto& key : unschedulable_) {
    auto it = pending_.find(key);
    if (it != pending_.end() && it->second->group == group_key) members.push_back(key);
  }
  for (const auto& key : members) MoveToActiveOrBackoff(key);
}

void Scheduler::Activate(const std::string& key) {
  auto it = pending_.find(key);
  if (it == pending_.end()) return;
  PendingPod& p = *it->second;
  Cancel(p.backoff_event);
  Cancel(p.flush_event);
  unschedulable_.erase(key);
  p.state = QueueState::kActive;
  p.active_seq = ++active_seq_;
  active_.emplace_back(key, p.active_seq);
  Kick();
}

Micros Scheduler::BackoffFor(int attempts) const {
  Micros backoff = config_.initial_backoff;
  for (int i = 1; i < attempts && backoff < config_.max_backoff; ++i) backoff *= 2;
  return std::min(backoff, config_.max_backoff);
}

void Scheduler::MoveToActiveOrBackoff(const std::string& key) {
  auto it = pending_.find(key);
  if (it == pending_.end()) return;
  PendingPod& p = *it->second;
  if (p.state == QueueState::kActive) return;
  if (p.state == QueueState::kBackoff && IsPending(p.backoff_event)) return;
  if (Now() >= p.backoff_until) {
    Activate(key);
    return;
  }
  Cancel(p.flush_event);
  unschedulable_.erase(key);
  p.state = QueueState::kBackoff;
  p.backoff_event = At(p.backoff_until, [this, key] { Activate(key); });
}

void Scheduler::MoveAllToActiveOrBackoff(const char* event) {
  if (unschedulable_.empty()) return;
  Log(std::string("move unschedulable pods on ") + event);
  std::vector<std::string> keys(unschedulable_.begin(), unschedulable_.end());
  for (const auto& key : keys) MoveToActiveOrBackoff(key);
}

void Scheduler::Kick() {
  if (busy_ || active_.empty()) return;
  busy_ = true;
  Micros delay = config_.latency;
  if (config_.latency_jitter > 0) delay += random().UniformInt(0, config_.latency_jitter - 1);
  next_decision_ = After(delay, [this] {
    busy_ = false;
    ScheduleOne();
    Kick();
  });
}

void Scheduler::ScheduleOne() {
  while (!active_.empty()) {
    auto [key, seq] = std::move(active_.front());
    active_.pop_front();
    auto it = pending_.find(key);
    if (it == pending_.end() || it->second->state != QueueState::kActive || it->second->active_seq != seq) continue;
    ++stats_.attempts;
    if (!it->second->group.empty())
      ScheduleGang(key, it->second->group);
    else
      SchedulePod(key);
    return;
  }
}

// ---- decisions -----------------------------------------------------------------------------------

bool Scheduler::PassesFilters(const NodeInfo& node, const PendingPod& pod, const Tentative::Extra* extra,
                              std::vector<std::string>* reasons) const {
  if (!NodeAdmits(node, pod.constraints, reasons)) return false;
  if (!MatchesNodeAffinity(node, pod.constraints)) {
    if (reasons) reasons->push_back("node(s) didn't match Pod's node affinity/selector");
    return false;
  }
  return ResourcesFit(node, pod, extra, reasons);
}

// NodeUnschedulable, TaintToleration (the first untolerated NoSchedule / NoExecute taint), and a
// node whose Ready condition is not True but that carries no readiness taint yet.
bool Scheduler::NodeAdmits(const NodeInfo& node, const Constraints& c, std::vector<std::string>* reasons) {
  auto tolerated = [&](const Taint& taint) {
    for (const auto& t : c.tolerations)
      if (Tolerates(t, taint)) return true;
    return false;
  };
  if (node.unschedulable && !tolerated(Taint{kTaintUnschedulable, "", "NoSchedule", std::nullopt})) {
    if (reasons) reasons->push_back("node(s) were unschedulable");
    return false;
  }
  for (const auto& taint : node.taints) {
    if (taint.effect != "NoSchedule" && taint.effect != "NoExecute") continue;
    if (tolerated(taint)) continue;
    if (reasons) reasons->push_back("node(s) had untolerated taint {" + taint.key + ": " + taint.value + "}");
    return false;
  }
  if (!node.ready && !node.readiness_taint) {
    if (reasons) reasons->push_back("node(s) were not ready");
    return false;
  }
  return true;
}

// NodeAffinity: nodeSelector, and required node affinity (terms ORed, each term's expressions ANDed).
bool Scheduler::MatchesNodeAffinity(const NodeInfo& node, const Constraints& c) {
  if (c.node_selector && c.node_selector->is_object())
    for (auto it = c.node_selector->begin(); it != c.node_selector->end(); ++it) {
      const json* v = node.labels && node.labels->is_object() ? Field(*node.labels, it.key().c_str()) : nullptr;
      if (!v || *v != it.value()) return false;
    }
  if (!c.has_required_affinity) return true;
  for (const auto& term : c.terms)
    if (TermMet(node.name, node.labels, term)) return true;
  return false;
}

// NodeResourcesFit: every resource the pod requests fits in what the node has left (with `extra`
// placed tentatively). Without `reasons`, stops at the first that does not.
bool Scheduler::ResourcesFit(const NodeInfo& node, const PendingPod& pod, const Tentative::Extra* extra,
                             std::vector<std::string>* reasons) {
  const Resources& want = pod.requests.requests;
  const Resources& alloc = node.allocatable;
  auto used = [&](std::int64_t Resources::*field) {
    return node.requested.*field + (extra ? extra->requests.*field : 0);
  };
  bool fits = true;
  auto insufficient = [&](const std::string& what) {
    fits = false;
    if (reasons) reasons->push_back(what);
  };
  if (used(&Resources::pods) + 1 > alloc.pods) insufficient("Too many pods");
  if (!fits && !reasons) return false;
  if (want.milli_cpu > 0 && want.milli_cpu > alloc.milli_cpu - used(&Resources::milli_cpu)) insufficient("Insufficient cpu");
  if (!fits && !reasons) return false;
  if (want.memory > 0 && want.memory > alloc.memory - used(&Resources::memory)) insufficient("Insufficient memory");
  if (!fits && !reasons) return false;
  if (want.ephemeral_storage > 0 &&
      want.ephemeral_storage > alloc.ephemeral_storage - used(&Resources::ephemeral_storage))
    insufficient("Insufficient ephemeral-storage");
  if (!fits && !reasons) return false;
  if (want.gpu > 0 && want.gpu > alloc.gpu - used(&Resources::gpu)) insufficient(std::string("Insufficient ") + kResourceGpu);
  for (const auto& [name, amount] : want.scalar) {
    if (amount <= 0) continue;
    auto have = alloc.scalar.find(name);
    std::int64_t capacity = have == alloc.scalar.end() ? 0 : have->second;
    auto taken = node.requested.scalar.find(name);
    std::int64_t in_use = taken == node.requested.scalar.end() ? 0 : taken->second;
    if (extra)
      if (auto e = extra->requests.scalar.find(name); e != extra->requests.scalar.end()) in_use += e->second;
    if (amount > capacity - in_use) insufficient("Insufficient " + name);
  }
  return fits;
}

struct Scheduler::SpreadCounts {
  std::map<std::string, std::int64_t, std::less<>> by_node;  // matching pods per node
  std::map<std::string, std::int64_t> by_zone;  // per zone, over the nodes the pod's node affinity admits
};

// PodTopologySpread's system default constraints apply when Services select the pod: their
// selectors, merged, count the pods of the same namespace (not terminating) on each node.
std::optional<Scheduler::SpreadCounts> Scheduler::SpreadFor(const PendingPod& pod) const {
  if (!service_informer_ || !pod_informer_) return std::nullopt;
  const json& object = *pod.pod;
  const std::string& ns = kube::NamespaceOf(object);
  const json* labels = Field(object, "metadata", "labels");
  auto matches = [](const json& selector, const json* l) {
    for (auto it = selector.begin(); it != selector.end(); ++it) {
      const json* v = l && l->is_object() ? Field(*l, it.key().c_str()) : nullptr;
      if (!v || *v != it.value()) return false;
    }
    return true;
  };
  json selector = json::object();
  for (const auto& service : service_informer_->List(ns)) {
    const json* sel = Field(*service, "spec", "selector");
    if (!sel || !sel->is_object() || sel->empty() || !matches(*sel, labels)) continue;  // nil selects nothing
    for (auto it = sel->begin(); it != sel->end(); ++it) selector[it.key()] = it.value();
  }
  if (selector.empty()) return std::nullopt;
  SpreadCounts counts;
  // The pods carrying the selector's first label, then those bound (or assumed) and matching whole.
  const std::string first = ns + "/" + selector.begin().key() + "=" +
                            (selector.begin().value().is_string() ? selector.begin().value().get<std::string>() : "");
  for (const auto& candidate : pod_informer_->ByIndex(kPodsByLabelIndex, first)) {
    auto a = accounted_.find(kube::KeyOf(*candidate));
    if (a == accounted_.end() || a->second->uid != kube::UidOf(*candidate)) continue;
    if (a->second->terminating || a->second->ns != ns || !matches(selector, &a->second->labels)) continue;
    ++counts.by_node[a->second->node];
  }
  for (const auto& [node, n] : counts.by_node) {
    auto it = nodes_.find(node);
    if (it == nodes_.end() || !it->second->zone || !MatchesNodeAffinity(*it->second, pod.constraints)) continue;
    counts.by_zone[*it->second->zone] += n;
  }
  return counts;
}

std::vector<ScoreBreakdown> Scheduler::ScoreCandidates(const PendingPod& pod, const std::vector<Candidate>& candidates,
                                                       const SpreadCounts* spread) const {
  std::vector<ScoreBreakdown> out(candidates.size());
  const PodRequests& want = pod.requests;
  const bool balanced = want.requests.milli_cpu != 0 || want.requests.memory != 0;
  std::vector<std::int64_t> taints(candidates.size()), affinity(candidates.size()), spread_raw(candidates.size());
  std::size_t all_nodes = 0;
  std::set<std::string> zones;  // the zone values of the candidates ("" for none), as PreScore counts them
  for (const auto& c : candidates) {
    all_nodes += c.nodes;
    zones.insert(c.node->zone.value_or(""));
  }
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const NodeInfo& node = *candidates[i].node;
    const Tentative::Extra* extra = candidates[i].extra;
    ScoreBreakdown& b = out[i];
    // NodeResourcesFit: cpu and memory, weight 1 each, on the non-zero requests.
    const std::int64_t cpu = node.nonzero_cpu + want.nonzero_milli_cpu + (extra ? extra->nonzero_cpu : 0);
    const std::int64_t memory = node.nonzero_memory + want.nonzero_memory + (extra ? extra->nonzero_memory : 0);
    std::int64_t sum = 0, weights = 0;
    for (auto [requested, capacity] : {std::pair{cpu, node.allocatable.milli_cpu}, std::pair{memory, node.allocatable.memory}})
      if (capacity > 0) {
        sum += ResourceScore(config_.scoring, requested, capacity);
        ++weights;
      }
    b.fit = (weights ? sum / weights : 0) * kWeightFit;
    // NodeResourcesBalancedAllocation: the actual requests.
    if (balanced) {
      b.balanced_scored = true;
      std::vector<double> fractions;
      const std::int64_t used_cpu = node.requested.milli_cpu + want.requests.milli_cpu + (extra ? extra->requests.milli_cpu : 0);
      const std::int64_t used_memory = node.requested.memory + want.requests.memory + (extra ? extra->requests.memory : 0);
      for (auto [used, capacity] : {std::pair{used_cpu, node.allocatable.milli_cpu}, std::pair{used_memory, node.allocatable.memory}})
        if (capacity > 0) fractions.push_back(std::min(1.0, static_cast<double>(used) / static_cast<double>(capacity)));
      const double deviation = fractions.size() == 2 ? std::abs((fractions[0] - fractions[1]) / 2) : 0.0;
      b.balanced = static_cast<std::int64_t>((1 - deviation) * static_cast<double>(kMaxNodeScore)) * kWeightBalanced;
    }
    // TaintToleration: untolerated PreferNoSchedule taints (normalized below).
    for (const auto& taint : node.taints) {
      if (taint.effect != "PreferNoSchedule") continue;
      bool tolerated = false;
      for (const auto& t : pod.constraints.tolerations) tolerated = tolerated || Tolerates(t, taint);
      if (!tolerated) ++taints[i];
    }
    // NodeAffinity: the weights of the preferred terms met.
    for (const auto& [weight, term] : pod.constraints.preferred)
      if (TermMet(node.name, node.labels, term)) affinity[i] += weight;
    // PodTopologySpread: hostname (maxSkew 3), then zone (maxSkew 5).
    if (spread) {
      double score = 0;
      if (node.has_hostname) {
        auto n = spread->by_node.find(node.name);
        score += static_cast<double>(n == spread->by_node.end() ? 0 : n->second) *
                     std::log(static_cast<double>(all_nodes + 2)) + 2;
      }
      if (node.zone) {
        auto z = spread->by_zone.find(*node.zone);
        score += static_cast<double>(z == spread->by_zone.end() ? 0 : z->second) *
                     std::log(static_cast<double>(zones.size() + 2)) + 4;
      }
      spread_raw[i] = std::llround(score);
    }
  }
  // Normalization over the candidates (helper.DefaultNormalizeScore; PodTopologySpread's own).
  const std::int64_t max_taints = candidates.empty() ? 0 : *std::max_element(taints.begin(), taints.end());
  const std::int64_t max_affinity = candidates.empty() ? 0 : *std::max_element(affinity.begin(), affinity.end());
  const std::int64_t max_spread = candidates.empty() ? 0 : *std::max_element(spread_raw.begin(), spread_raw.end());
  const std::int64_t min_spread = candidates.empty() ? 0 : *std::min_element(spread_raw.begin(), spread_raw.end());
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    ScoreBreakdown& b = out[i];
    b.taint = (max_taints == 0 ? kMaxNodeScore : kMaxNodeScore - kMaxNodeScore * taints[i] / max_taints) * kWeightTaint;
    if (!pod.constraints.preferred.empty()) {
      b.affinity_scored = true;
      b.affinity = (max_affinity == 0 ? 0 : kMaxNodeScore * affinity[i] / max_affinity) * kWeightAffinity;
    }
    if (spread) {
      b.spread_scored = true;
      b.spread = (max_spread == 0 ? kMaxNodeScore : kMaxNodeScore * (max_spread + min_spread - spread_raw[i]) / max_spread) *
                 kWeightSpread;
    }
  }
  return out;
}

std::size_t Scheduler::Best(const std::vector<Candidate>& candidates, const std::vector<ScoreBreakdown>& scores,
                            bool by_name) {
  std::size_t best = 0;
  for (std::size_t i = 1; i < candidates.size(); ++i) {
    const std::int64_t a = scores[i].Total(), b = scores[best].Total();
    if (a > b || (by_name && a == b && candidates[i].node->name < candidates[best].node->name)) best = i;
  }
  return best;
}

// kube-scheduler's numFeasibleNodesToFind: every node below 100; else `percentage` of them (0:
// adaptive, 50 % less one point per 125 nodes, at least 5 %), and at least 100.
std::size_t NumFeasibleNodesToFind(std::size_t all, int percentage) {
  constexpr std::size_t kMinFeasibleNodesToFind = 100;
  constexpr std::int64_t kMinFeasibleNodesPercentageToFind = 5;
  if (all < kMinFeasibleNodesToFind) return all;
  std::int64_t p = percentage;
  if (p <= 0) p = std::max<std::int64_t>(50 - static_cast<std::int64_t>(all) / 125, kMinFeasibleNodesPercentageToFind);
  std::size_t n = static_cast<std::size_t>(static_cast<std::int64_t>(all) * std::min<std::int64_t>(p, 100) / 100);
  return std::max(n, kMinFeasibleNodesToFind);
}

const std::vector<Scheduler::NodeInfo*>& Scheduler::NodeOrder() {
  if (order_stale_) {
    order_.clear();
    order_.reserve(nodes_.size());
    for (const auto& [name, info] : nodes_) order_.push_back(info.get());
    order_stale_ = false;
    if (!order_.empty()) next_start_node_ %= order_.size();
  }
  return order_;
}

bool Scheduler::JudgedByState(const PendingPod& pod, const Tentative* tentative, std::size_t to_find,
                              std::size_t all) const {
  // A scan of every node from the first by name: ties go to the name that sorts first. (A scan that
  // starts elsewhere, after round-robin decisions on a cluster since shrunk below 100 nodes, breaks
  // ties from its start, and is left to go node by node.)
  return config_.judge_nodes_by_state && !tentative && to_find >= all && next_start_node_ == 0 &&
         !pod.constraints.node_selector && !pod.constraints.has_required_affinity && pod.constraints.preferred.empty();
}

// The first node in name order of the best-scoring state that passes the filters; when none does,
// each reason counted once per node of the states that give it.
const Scheduler::NodeInfo* Scheduler::BestByState(const PendingPod& pod, std::map<std::string, int>* histogram) {
  const std::optional<SpreadCounts> spread = SpreadFor(pod);
  // The nodes holding pods that topology spreading counts score apart from the rest of their state.
  std::map<const void*, std::vector<const NodeInfo*>> apart;  // by their state's member set
  if (spread)
    for (const auto& [name, n] : spread->by_node)
      if (auto it = nodes_.find(name); it != nodes_.end() && it->second->group)
        apart[&(*it->second->group)->second].push_back(it->second.get());
  std::vector<Candidate> candidates;
  for (const auto& [state, members] : states_->groups) {
    const NodeInfo& first = **members.begin();
    ++stats_.nodes_evaluated;
    if (!PassesFilters(first, pod, nullptr, nullptr)) continue;
    auto a = apart.find(&members);
    if (a == apart.end()) {
      candidates.push_back({&first, nullptr, members.size()});
      continue;
    }
    for (const NodeInfo* node : a->second) candidates.push_back({node, nullptr, 1});
    const std::size_t rest = members.size() - a->second.size();
    for (const NodeInfo* m : members) {
      if (rest == 0) break;
      if (std::find(a->second.begin(), a->second.end(), m) != a->second.end()) continue;
      candidates.push_back({m, nullptr, rest});  // the first in name order of the others
      break;
    }
  }
  if (!candidates.empty())
    return candidates[Best(candidates, ScoreCandidates(pod, candidates, spread ? &*spread : nullptr), true)].node;
  if (!histogram) return nullptr;
  std::vector<std::string> reasons;
  for (const auto& [state, members] : states_->groups) {
    reasons.clear();
    PassesFilters(**members.begin(), pod, nullptr, &reasons);
    for (const auto& r : reasons) (*histogram)[r] += static_cast<int>(members.size());
  }
  return nullptr;
}

std::optional<std::string> Scheduler::FindNode(const PendingPod& pod, const Tentative* tentative,
                                               std::map<std::string, int>* histogram) {
  const std::vector<NodeInfo*>& order = NodeOrder();
  const std::size_t all = order.size();
  if (all == 0) return std::nullopt;
  const std::size_t to_find = NumFeasibleNodesToFind(all, config_.percentage_of_nodes_to_score);
  if (JudgedByState(pod, tentative, to_find, all)) {
    // A one-by-one scan would look at every node and end where it started: next_start_node_ stays.
    const NodeInfo* best = BestByState(pod, histogram);
    return best ? std::optional<std::string>(best->name) : std::nullopt;
  }
  auto extra_on = [tentative](const NodeInfo& info) -> const Tentative::Extra* {
    if (!tentative) return nullptr;
    auto it = tentative->by_node.find(info.name);
    return it == tentative->by_node.end() ? nullptr : &it->second;
  };
  std::vector<Candidate> feasible;
  std::size_t processed = 0;
  for (; processed < all && feasible.size() < to_find; ++processed) {
    const NodeInfo& info = *order[(next_start_node_ + processed) % all];
    ++stats_.nodes_evaluated;
    const Tentative::Extra* extra = extra_on(info);
    if (PassesFilters(info, pod, extra, nullptr)) feasible.push_back({&info, extra, 1});
  }
  next_start_node_ = (next_start_node_ + processed) % all;
  if (!feasible.empty()) {
    const std::optional<SpreadCounts> spread = SpreadFor(pod);
    // The first best in scan order wins ties.
    return feasible[Best(feasible, ScoreCandidates(pod, feasible, spread ? &*spread : nullptr), false)].node->name;
  }
  // Nothing fits: a second pass collects every node's reasons for the message.
  if (histogram) {
    std::vector<std::string> reasons;
    for (const NodeInfo* info : order) {
      reasons.clear();
      PassesFilters(*info, pod, extra_on(*info), &reasons);
      for (const auto& r : reasons) ++(*histogram)[r];
    }
  }
  return std::nullopt;
}

std::vector<NodeVerdict> Scheduler::Explain(const json& object) const {
  PendingPod pod;
  pod.pod = std::make_shared<const json>(object);
  pod.requests = ComputePodRequests(*pod.pod);
  ParseConstraints(*pod.pod, pod.constraints);
  std::vector<NodeVerdict> out;
  std::vector<Candidate> feasible;
  std::vector<std::size_t> at;  // feasible[i] is out[at[i]]
  std::vector<std::string> reasons;
  for (const auto& [name, info] : nodes_) {
    NodeVerdict v;
    v.node = name;
    reasons.clear();
    v.fits = PassesFilters(*info, pod, nullptr, &reasons);
    if (!v.fits && !reasons.empty()) v.reason = reasons.front();
    if (v.fits) {
      feasible.push_back({info.get(), nullptr, 1});
      at.push_back(out.size());
    }
    out.push_back(std::move(v));
  }
  const std::optional<SpreadCounts> spread = SpreadFor(pod);
  auto scores = ScoreCandidates(pod, feasible, spread ? &*spread : nullptr);
  for (std::size_t i = 0; i < feasible.size(); ++i) out[at[i]].scores = scores[i];
  return out;
}

std::string Scheduler::FailureMessage(const std::map<std::string, int>& histogram) const {
  if (nodes_.empty()) return "no nodes available to schedule pods";
  std::vector<std::string> parts;
  for (const auto& [reason, count] : histogram) parts.push_back(std::to_string(count) + " " + reason);
  std::sort(parts.begin(), parts.end());
  std::string message = "0/" + std::to_string(nodes_.size()) + " nodes are available: ";
  for (std::size_t i = 0; i < parts.size(); ++i) message += (i ? ", " : "") + parts[i];
  return message + ".";
}

void Scheduler::SchedulePod(const std::string& key) {
  PendingPod& p = *pending_.at(key);
  std::map<std::string, int> histogram;
  auto node = FindNode(p, nullptr, &histogram);
  if (!node) {
    MarkUnschedulable(key, FailureMessage(histogram));
    return;
  }
  Bind(key, *node);
}

bool Scheduler::Bind(const std::string& key, const std::string& node) {
  auto it = pending_.find(key);
  if (it == pending_.end()) return false;
  ObjectPtr pod = it->second->pod;
  const std::string& name = kube::NameOf(*pod);
  const std::string& ns = kube::NamespaceOf(*pod);
  auto result = client().Create(
      "pods/binding",
      kube::MakeObject("apiVersion", "v1", "kind", "Binding", "metadata", kube::MakeObject("name", name, "namespace", ns),
                       "target", kube::MakeObject("apiVersion", "v1", "kind", "Node", "name", node)),
      ns);
  if (!result.ok()) {
    ++stats_.bind_errors;
    Log("bind " + key + " to " + node + " failed: " + result.status().ToString());
    // Whatever the answer (a conflict, a server error, not found), the pod goes back to the queue
    // after its back-off, as kube-scheduler's failure handler does: a 409 may come from a
    // concurrent write, not from a binding, and then no watch event ever tells that the pod needs
    // scheduling again. A pod truly bound elsewhere or deleted leaves the queue when its watch
    // event arrives.
    PendingPod& p = *it->second;
    ++p.attempts;
    p.backoff_until = Now() + BackoffFor(p.attempts);
    p.state = QueueState::kUnschedulable;
    MoveToActiveOrBackoff(key);
    return false;
  }
  ++stats_.bound;
  Account(key, **result);  // assumed: counts before the watch event arrives
  Cancel(it->second->backoff_event);
  Cancel(it->second->flush_event);
  unschedulable_.erase(key);
  pending_.erase(it);
  return true;
}

void Scheduler::MarkUnschedulable(const std::string& key, const std::string& message) {
  auto it = pending_.find(key);
  if (it == pending_.end()) return;
  PendingPod& p = *it->second;
  ++stats_.unschedulable;
  ++p.attempts;
  p.backoff_until = Now() + BackoffFor(p.attempts);
  p.state = QueueState::kUnschedulable;
  unschedulable_.insert(key);
  Cancel(p.flush_event);
  if (config_.max_unschedulable_duration > 0)
    p.flush_event = At(Now() + config_.max_unschedulable_duration, [this, key] {
      MoveToActiveOrBackoff(key);
    });

  // PodScheduled=False, written only when it changes.
  const json& pod = *p.pod;
  json conditions = json::array();
  bool same = false;
  std::string transition = kube::FormatTime(sim().engine().clock().Now());
  if (const json* existing = Field(pod, "status", "conditions"); existing && existing->is_array())
    for (const auto& c : *existing) {
      if (Str(Field(c, "type")) != "PodScheduled") {
        conditions.push_back(c);
        continue;
      }
      if (Str(Field(c, "status")) == "False") {
        transition = Str(Field(c, "lastTransitionTime"));
        same = Str(Field(c, "reason")) == "Unschedulable" && Str(Field(c, "message")) == message;
      }
    }
  if (same) return;
  conditions.push_back({{"type", "PodScheduled"},
                        {"status", "False"},
                        {"reason", "Unschedulable"},
                        {"message", message},
                        {"lastProbeTime", nullptr},
                        {"lastTransitionTime", transition}});
  auto r = client().Patch("pods", kube::NamespaceOf(pod), kube::NameOf(pod),
                          {{"status", {{"conditions", conditions}}}}, kube::PatchType::kMerge, "status");
  if (!r.ok()) Log("status of " + key + ": " + r.status().ToString());
}

// ---- gangs ---------------------------------------------------------------------------------------

void Scheduler::ScheduleGang(const std::string& key, std::string group_key) {
  ++stats_.gang_attempts;
  const std::string group_name = group_key.substr(group_key.find('/') + 1);
  std::vector<std::string> members;
  for (const auto& pod : pending_informer_->ByIndex(kPendingGroupIndex, group_key)) {
    std::string k = kube::KeyOf(*pod);
    auto it = pending_.find(k);
    if (it != pending_.end() && kube::UidOf(*it->second->pod) == kube::UidOf(*pod)) members.push_back(k);
  }
  if (std::find(members.begin(), members.end(), key) == members.end()) members.push_back(key);
  auto fail_all = [&](const std::string& message) {
    for (const auto& k : members) MarkUnschedulable(k, message);
    StartGroupTimer(group_key);
  };

  ObjectPtr group = group_informer_ ? group_informer_->GetByKey(group_key) : nullptr;
  if (!group) {
    fail_all("podgroups.scheduling.x-k8s.io \"" + group_name + "\" not found");
    return;
  }
  std::int64_t min_member = 1;
  if (const json* m = Field(*group, "spec", "minMember"); m && m->is_number_integer()) min_member = m->get<std::int64_t>();
  std::int64_t bound = 0;
  for (const auto& pod : pod_informer_->ByIndex(kPendingGroupIndex, group_key)) {
    auto a = accounted_.find(kube::KeyOf(*pod));
    if (a != accounted_.end() && a->second->uid == kube::UidOf(*pod)) ++bound;
  }
  std::int64_t total = bound + static_cast<std::int64_t>(members.size());
  if (total < min_member) {
    fail_all("pre-filter pod " + kube::NameOf(*pending_.at(key)->pod) +
             " cannot find enough sibling pods, current pods number: " + std::to_string(total) +
             ", minMember of group: " + std::to_string(min_member));
    return;
  }

  // Tentative placement of every waiting member over a copy of the free resources.
  Tentative tentative;
  std::vector<std::pair<std::string, std::string>> placed;  // pod key, node
  std::map<std::string, std::string> unplaced;              // pod key -> its message
  std::string first_failure;
  for (const auto& k : members) {
    PendingPod& p = *pending_.at(k);
    std::map<std::string, int> histogram;
    auto node = FindNode(p, &tentative, &histogram);
    if (!node) {
      unplaced[k] = FailureMessage(histogram);
      if (first_failure.empty()) first_failure = unplaced[k];
      continue;
    }
    auto& extra = tentative.by_node[*node];
    extra.requests.Add(p.requests.requests);
    extra.nonzero_cpu += p.requests.nonzero_milli_cpu;
    extra.nonzero_memory += p.requests.nonzero_memory;
    placed.emplace_back(k, *node);
  }
  if (bound + static_cast<std::int64_t>(placed.size()) < min_member) {
    fail_all("pod group \"" + group_key + "\" cannot be placed: " + std::to_string(bound + placed.size()) +
             " of minMember " + std::to_string(min_member) + " pods fit; " + first_failure);
    return;
  }
  int scheduled = static_cast<int>(bound);
  for (const auto& [k, node] : placed)
    if (Bind(k, node)) ++scheduled;
  for (const auto& [k, message] : unplaced) MarkUnschedulable(k, message);
  GroupScheduled(group_key, scheduled);
}

void Scheduler::StartGroupTimer(const std::string& group_key) {
  auto& state = groups_[group_key];
  if (!state) state = std::make_unique<GroupState>();
  if (state->timed_out || IsPending(state->timeout)) return;
  state->scheduled = false;
  std::int64_t seconds = config_.default_schedule_timeout_seconds;
  if (ObjectPtr group = group_informer_ ? group_informer_->GetByKey(group_key) : nullptr)
    if (const json* s = Field(*group, "spec", "scheduleTimeoutSeconds"); s && s->is_number_integer())
      seconds = s->get<std::int64_t>();
  state->timeout = At(Now() + seconds * kSecond, [this, group_key] { GroupTimedOut(group_key); });
}

void Scheduler::GroupTimedOut(const std::string& group_key) {
  auto& state = groups_[group_key];
  if (!state || state->scheduled) return;
  state->timed_out = true;
  ObjectPtr group = group_informer_ ? group_informer_->GetByKey(group_key) : nullptr;
  if (!group) return;
  std::string message;
  for (const auto& [key, p] : pending_)
    if (p->group == group_key && p->state != QueueState::kActive) {
      if (const json* conditions = Field(*p->pod, "status", "conditions"); conditions && conditions->is_array())
        for (const auto& c : *conditions)
          if (Str(Field(c, "type")) == "PodScheduled") message = Str(Field(c, "message"));
      if (!message.empty()) break;
    }
  std::string phase = Str(Field(*group, "status", "phase"));
  json status = {{"phase", phase.empty() ? "Pending" : phase},
                 {"conditions",
                  json::array({{{"type", "ScheduleTimeout"},
                                {"status", "True"},
                                {"reason", "ScheduleTimeout"},
                                {"message", "pod group was not scheduled within scheduleTimeoutSeconds: " + message},
                                {"lastTransitionTime", kube::FormatTime(sim().engine().clock().Now())}}})}};
  Log("pod group " + group_key + " timed out");
  auto r = client().Patch("podgroups", kube::NamespaceOf(*group), kube::NameOf(*group), {{"status", status}},
                          kube::PatchType::kMerge, "status");
  if (!r.ok()) Log("status of pod group " + group_key + ": " + r.status().ToString());
}

void Scheduler::GroupScheduled(const std::string& group_key, int scheduled) {
  auto& state = groups_[group_key];
  if (!state) state = std::make_unique<GroupState>();
  Cancel(state->timeout);
  bool was_timed_out = state->timed_out;
  state->timed_out = false;
  if (state->scheduled) return;
  state->scheduled = true;
  ObjectPtr group = group_informer_ ? group_informer_->GetByKey(group_key) : nullptr;
  if (!group) return;
  json status = {{"phase", "Scheduled"}, {"scheduled", scheduled}};
  if (was_timed_out)
    status["conditions"] = json::array({{{"type", "ScheduleTimeout"},
                                         {"status", "False"},
                                         {"reason", "Scheduled"},
                                         {"message", "pod group scheduled"},
                                         {"lastTransitionTime", kube::FormatTime(sim().engine().clock().Now())}}});
  auto r = client().Patch("podgroups", kube::NamespaceOf(*group), kube::NameOf(*group), {{"status", status}},
                          kube::PatchType::kMerge, "status");
  if (!r.ok()) Log("status of pod group " + group_key + ": " + r.status().ToString());
}

}  // namespace sim
