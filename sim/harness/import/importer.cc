// From evidence to a scenario. See importer.h.
#include "sim/harness/import/importer.h"

#include "fakeapi/client/json_path.h"
#include "operator/api/vocabulary.h"
#include "sim/harness/config/scenario.h"
#include "sim/harness/config/units.h"
#include "sim/harness/config/yaml_json.h"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <utility>

namespace harness::importer {
namespace {

using evidence::AuditRecord;
using evidence::Item;
using json = kube::Json;
using kube::JsonAt;
using kube::JsonString;

constexpr const char* kLastApplied = "kubectl.kubernetes.io/last-applied-configuration";

std::optional<Micros> TimeAt(const json& obj, std::initializer_list<std::string_view> path) {
  return kube::ParseTime(JsonString(obj, path));
}

// An event's time: eventTime, else the first occurrence, else the last.
std::optional<Micros> EventTime(const json& event) {
  for (auto field : {"eventTime", "firstTimestamp", "lastTimestamp", "deprecatedFirstTimestamp"})
    if (auto t = TimeAt(event, {field})) return t;
  return TimeAt(event, {"metadata", "creationTimestamp"});
}

std::string EventObjectKind(const json& e) {
  std::string kind = JsonString(e, {"involvedObject", "kind"});
  return kind.empty() ? JsonString(e, {"regarding", "kind"}) : kind;
}
std::string EventObjectName(const json& e) {
  std::string name = JsonString(e, {"involvedObject", "name"});
  return name.empty() ? JsonString(e, {"regarding", "name"}) : name;
}
std::string EventObjectNamespace(const json& e) {
  std::string ns = JsonString(e, {"involvedObject", "namespace"});
  return ns.empty() ? JsonString(e, {"regarding", "namespace"}) : ns;
}

bool IsDnsLabel(const std::string& s) {
  if (s.empty() || s.size() > 50) return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
  return s.front() != '-' && s.back() != '-';
}

// The identities of the cluster's own components: their requests are what the replay's
// simulated components make themselves. Anyone else is a user (kubectl).
bool IsComponent(const std::string& user) {
  return user.starts_with("system:node:") || user.starts_with("system:serviceaccount:") ||
         user == "system:kube-scheduler" || user == "system:kube-controller-manager" || user == "system:apiserver" ||
         user.starts_with("system:kube-") || user == "dgl-operator" || user.starts_with("system:dglsim:");
}

struct Fault {
  Micros at = 0;
  json spec;
  std::string comment;
};

class Builder {
 public:
  Builder(const evidence::Evidence& ev, const ImportOptions& options) : ev_(ev), options_(options) {}
  ImportResult Build();

 private:
  // Evidence of a kind, in reading order.
  std::vector<const Item*> Of(const std::string& kind) const {
    std::vector<const Item*> out;
    for (const Item& i : ev_.items)
      if (i.kind == kind) out.push_back(&i);
    return out;
  }
  void Saw(std::optional<Micros> t) {
    if (t) last_ = std::max(last_, *t);
  }
  std::string At(Micros t) const { return Dur(std::max<Micros>(0, t - t0_)); }
  static std::string Dur(Micros d) {
    d = (d + kube::kMillisecond / 2) / kube::kMillisecond * kube::kMillisecond;
    return FormatDuration(d);
  }
  void Assume(std::string what) { result_.assumptions.push_back(std::move(what)); }
  void Unused(std::string what) { result_.unused.push_back(std::move(what)); }
  std::string SimNode(const std::string& real) const {
    auto it = node_names_.find(real);
    return it == node_names_.end() ? "" : it->second;
  }
  // A fault at `at` (absolute), anchored to a job's progress where the evidence shows it (Anchor).
  void AddFault(Micros at, json spec, std::string comment) {
    Anchor(at, spec, comment);
    faults_.push_back({at, std::move(spec), std::move(comment)});
  }
  void Anchor(Micros at, json& spec, std::string& comment) const;
  // The earliest time the evidence says `node` was deleted (the audit log's request, a later event).
  void NodeGone(const std::string& node, Micros at) {
    auto [it, added] = deleted_nodes_.emplace(node, at);
    if (!added) it->second = std::min(it->second, at);
  }
  void PhaseEntries();

  void CollectTimes();
  void Nodes();
  void NodesNamedElsewhere(const std::map<std::string, const Item*>& by_name,
                           std::map<std::string, std::string>& role_of_absent,
                           std::map<std::string, std::string>& role_node);
  void NodeFaults();
  void NodeFaultsOf(const std::string& real, const json* node);
  void PodFaults();
  void ContainerFaults(const Item& pod, const json& status, bool init);
  void LeaseFaults();
  void AuditFaults();
  void Jobs();
  void Job(const Item& job);
  void Durations(const Item& job, json& submitted);
  void Events();
  std::string Render() const;

  const evidence::Evidence& ev_;
  const ImportOptions& options_;
  ImportResult result_;
  Micros t0_ = 0, last_ = 0;
  std::map<std::string, std::string> node_names_;  // real -> simulated
  std::set<std::string> absent_nodes_;             // named by pods, events or the audit log, not dumped
  std::map<std::string, Micros> deleted_nodes_;    // node -> when the audit log or an event says it went
  json nodes_ = json::array();
  std::vector<std::string> node_comments_;
  std::vector<Fault> faults_;
  std::vector<std::pair<json, std::string>> jobs_;  // entry, comment
  json datasets_ = json::array();
  json expect_ = json::array();
  std::set<std::string> fault_keys_;  // no fault twice
  std::string unfinished_;            // "job ns/a, job ns/b": jobs neither Succeeded nor Failed
  struct PhaseEntry {
    Micros at;
    std::string job, phase;
  };
  std::vector<PhaseEntry> entries_;  // each job's first entry into each phase, from its Events, in time order
  std::map<std::string, std::string> pod_on_node_;  // node -> a DGLJob's pod that ran there ("ns/name")
  // "ns/name" of a pod -> (when, node) of each time the scheduler placed a pod of that name
  std::map<std::string, std::vector<std::pair<Micros, std::string>>> scheduled_;
  std::set<std::string> aggregated_;  // pods with a Scheduled event seen more than once (count > 1)
  json placements_ = json::array();  // cluster.scheduler.placements
  void Placements();
};

ImportResult Builder::Build() {
  std::vector<const Item*> jobs = Of("DGLJob");
  std::optional<Micros> first;
  for (const Item* j : jobs)
    if (auto t = TimeAt(j->object, {"metadata", "creationTimestamp"}); t && (!first || *t < *first)) first = t;
  if (!first) {
    result_.problems.push_back(jobs.empty() ? "no DGLJob in the evidence: nothing to replay (dump with kubectl get "
                                              "dgljobs,pods,nodes,events -A -o yaml)"
                                            : jobs.front()->where + ": metadata.creationTimestamp: no DGLJob has one");
    return result_;
  }
  t0_ = last_ = *first;
  result_.unused = ev_.unused;
  CollectTimes();
  Nodes();
  if (!result_.ok()) return result_;
  Jobs();
  Placements();
  PhaseEntries();
  NodeFaults();
  PodFaults();
  LeaseFaults();
  AuditFaults();
  Events();
  std::stable_sort(faults_.begin(), faults_.end(), [](const Fault& a, const Fault& b) { return a.at < b.at; });
  result_.yaml = Render();
  return result_;
}

// The last time the evidence shows: until is a minute past it.
void Builder::CollectTimes() {
  for (const Item& i : ev_.items) {
    const json& o = i.object;
    Saw(TimeAt(o, {"metadata", "creationTimestamp"}));
    if (i.kind == "Event") {
      Saw(TimeAt(o, {"lastTimestamp"}));
      Saw(EventTime(o));
    }
    if (const json* conditions = JsonAt(o, {"status", "conditions"}); conditions && conditions->is_array())
      for (const json& c : *conditions) Saw(TimeAt(c, {"lastTransitionTime"}));
    for (const char* list : {"containerStatuses", "initContainerStatuses"})
      if (const json* cs = JsonAt(o, {"status", list}); cs && cs->is_array())
        for (const json& c : *cs)
          for (const char* state : {"state", "lastState"}) {
            Saw(TimeAt(c, {state, "terminated", "finishedAt"}));
            Saw(TimeAt(c, {state, "running", "startedAt"}));
          }
    Saw(TimeAt(o, {"status", "completionTime"}));
    Saw(TimeAt(o, {"spec", "renewTime"}));
  }
  for (const AuditRecord& a : ev_.audit) Saw(a.time);
}

// ---- nodes ----

// What makes two nodes alike for a template.
struct NodeShape {
  json capacity, labels, taints;
  std::string Key() const { return capacity.dump() + "|" + labels.dump() + "|" + taints.dump(); }
};

NodeShape ShapeOf(const json& node) {
  NodeShape s;
  const json* alloc = JsonAt(node, {"status", "allocatable"});
  if (!alloc || !alloc->is_object()) alloc = JsonAt(node, {"status", "capacity"});
  s.capacity = json::object();
  if (alloc && alloc->is_object())
    for (const auto& [k, v] : alloc->items())
      if (v.is_string() && !(k.starts_with("hugepages-") && v.get<std::string>() == "0")) s.capacity[k] = v;
  s.labels = json::object();
  if (const json* labels = JsonAt(node, {"metadata", "labels"}); labels && labels->is_object())
    for (const auto& [k, v] : labels->items())
      if (k != "kubernetes.io/hostname" && v.is_string()) s.labels[k] = v;
  s.taints = json::array();
  if (const json* taints = JsonAt(node, {"spec", "taints"}); taints && taints->is_array())
    for (const json& t : *taints) {
      const std::string key = JsonString(t, {"key"});
      if (key.starts_with("node.kubernetes.io/") || key.starts_with("node.cloudprovider.kubernetes.io/")) continue;
      json taint = {{"key", key}, {"effect", JsonString(t, {"effect"})}};
      if (std::string v = JsonString(t, {"value"}); !v.empty()) taint["value"] = v;
      s.taints.push_back(taint);
    }
  return s;
}

// "gpu-0".."gpu-2" -> "gpu" when the names are exactly P-0 .. P-(n-1); "" otherwise.
std::string CommonTemplateName(const std::vector<std::string>& names) {
  const std::size_t dash = names.front().rfind('-');
  if (dash == std::string::npos || dash == 0) return "";
  const std::string prefix = names.front().substr(0, dash);
  std::set<std::string> want;
  for (std::size_t i = 0; i < names.size(); ++i) want.insert(prefix + "-" + std::to_string(i));
  if (std::set<std::string>(names.begin(), names.end()) != want || !IsDnsLabel(prefix)) return "";
  return prefix;
}

// The replica type of a pod from its labels, or "".
std::string RoleOf(const json& pod) { return JsonString(pod, {"metadata", "labels", dgl::kLabelReplicaType}); }

// Nodes the pods, events and audit log name that the dump lacks (deleted before it), which pod of a
// job ran where, and which replica type ran on each absent node.
void Builder::NodesNamedElsewhere(const std::map<std::string, const Item*>& by_name,
                                  std::map<std::string, std::string>& role_of_absent,
                                  std::map<std::string, std::string>& role_node) {
  for (const Item* p : Of("Pod")) {
    const std::string node = JsonString(p->object, {"spec", "nodeName"});
    if (node.empty()) continue;
    if (!by_name.contains(node)) role_of_absent.emplace(node, RoleOf(p->object)), absent_nodes_.insert(node);
    else role_node.emplace(RoleOf(p->object), node);
    if (!JsonString(p->object, {"metadata", "labels", dgl::kLabelJobName}).empty())
      pod_on_node_.emplace(node, kube::KeyOf(p->object));
  }
  for (const Item* e : Of("Event")) {
    const json& o = e->object;
    const std::string reason = JsonString(o, {"reason"});
    if (EventObjectKind(o) == "Node" && !by_name.contains(EventObjectName(o))) absent_nodes_.insert(EventObjectName(o));
    if (EventObjectKind(o) == "Node" && (reason == "RemovingNode" || reason == "DeletingNode"))
      if (auto t = EventTime(o)) NodeGone(EventObjectName(o), *t);
    // "Successfully assigned default/sage-worker-2 to gpu-2": where a deleted pod ran.
    const std::string message = JsonString(o, {"message"});
    if (reason == "Scheduled" && message.find(" to ") != std::string::npos) {
      const std::string node = message.substr(message.rfind(" to ") + 4);
      const std::string pod = EventObjectName(o);
      const std::size_t dash = pod.rfind('-');
      if (!by_name.contains(node) && !node.empty()) absent_nodes_.insert(node);
      if (!node.empty() && message.find("assigned ") != std::string::npos) {
        const std::size_t from = message.find("assigned ") + 9;
        pod_on_node_[node] = message.substr(from, message.rfind(" to ") - from);  // the last one scheduled there
        if (auto t = EventTime(o)) scheduled_[pod_on_node_[node]].emplace_back(*t, node);
        if (kube::JsonInt(o, {"count"}, 1) > 1) aggregated_.insert(pod_on_node_[node]);
      }
      if (!by_name.contains(node) && dash != std::string::npos) {
        const std::string stem = pod.substr(0, dash);  // sage-worker
        role_of_absent.emplace(node, stem.substr(stem.rfind('-') + 1));
      }
    }
  }
  for (const AuditRecord& a : ev_.audit)
    if (JsonString(a.event, {"objectRef", "resource"}) == "nodes" && JsonString(a.event, {"verb"}) == "delete" &&
        kube::JsonInt(a.event, {"responseStatus", "code"}) < 300) {
      const std::string node = JsonString(a.event, {"objectRef", "name"});
      NodeGone(node, a.time);
      if (!by_name.contains(node)) absent_nodes_.insert(node);
    }
}

void Builder::Nodes() {
  std::vector<const Item*> nodes = Of("Node");
  std::map<std::string, const Item*> by_name;
  for (const Item* n : nodes) by_name[JsonString(n->object, {"metadata", "name"})] = n;
  std::map<std::string, std::string> role_of_absent;  // node -> a replica type that ran there
  std::map<std::string, std::string> role_node;       // replica type -> a dumped node that ran it
  NodesNamedElsewhere(by_name, role_of_absent, role_node);
  if (nodes.empty()) {
    result_.problems.push_back("no Node in the evidence: the cluster is unknown (dump with kubectl get nodes -o yaml too)");
    return;
  }
  // Groups by shape, in the order first met.
  std::vector<std::string> order;
  std::map<std::string, std::pair<NodeShape, std::vector<std::string>>> groups;
  for (const Item* n : nodes) {
    NodeShape shape = ShapeOf(n->object);
    auto [it, added] = groups.try_emplace(shape.Key(), shape, std::vector<std::string>{});
    if (added) order.push_back(shape.Key());
    it->second.second.push_back(JsonString(n->object, {"metadata", "name"}));
  }
  for (const std::string& node : absent_nodes_) {
    std::string key = order.front();
    std::size_t most = 0;
    for (const std::string& k : order) most = std::max(most, groups[k].second.size());
    for (const std::string& k : order)
      if (groups[k].second.size() == most) { key = k; break; }
    std::string like;
    if (auto r = role_of_absent.find(node); r != role_of_absent.end())
      if (auto n = role_node.find(r->second); n != role_node.end()) {
        like = n->second;
        key = ShapeOf(by_name[like]->object).Key();
      }
    groups[key].second.push_back(node);
    Assume("node " + node + " is named by the evidence but not in the dump (deleted before it); assumed like " +
           (like.empty() ? "the nodes of the largest group" : like + ", which ran a pod of the same replica type"));
  }
  int unnamed = 0;
  for (const std::string& key : order) {
    auto& [shape, names] = groups[key];
    std::sort(names.begin(), names.end(), [](const std::string& a, const std::string& b) {
      return a.size() != b.size() ? a.size() < b.size() : a < b;
    });
    std::string name = CommonTemplateName(names);
    json t = {{"name", ""}, {"count", names.size()}, {"capacity", shape.capacity}};
    if (!shape.labels.empty()) t["labels"] = shape.labels;
    if (!shape.taints.empty()) t["taints"] = shape.taints;
    std::string comment = std::to_string(names.size()) + " node" + (names.size() == 1 ? "" : "s") + " alike";
    if (name.empty()) {
      name = "group-" + std::to_string(unnamed++);
      std::string map;
      for (std::size_t i = 0; i < names.size(); ++i) {
        node_names_[names[i]] = name + "-" + std::to_string(i);
        map += (i ? ", " : "") + names[i] + " is " + name + "-" + std::to_string(i);
      }
      comment += "; renamed: " + map;
    } else {
      for (const std::string& n : names) node_names_[n] = n;
    }
    t["name"] = name;
    nodes_.push_back(t);
    node_comments_.push_back(comment);
  }
  Assume("a node's allocatable (not its capacity) is its template's capacity: pods are fitted into allocatable");
  for (const Item* n : nodes)
    if (n->object.contains("spec") && JsonAt(n->object, {"spec", "unschedulable"}) &&
        JsonAt(n->object, {"spec", "unschedulable"})->is_boolean() && JsonAt(n->object, {"spec", "unschedulable"})->get<bool>())
      Unused(n->where + ": node " + JsonString(n->object, {"metadata", "name"}) +
             " is cordoned (spec.unschedulable): a scenario has no cordon; the replay schedules onto it");
}

// ---- where the pods ran ----

// cluster.scheduler.placements: each pod of a DGLJob on the nodes its Scheduled events name, in
// their order. kube-scheduler breaks ties between equal nodes at random and the simulated one by
// name: pinned, the replay places the pods where the cluster did, and a fault on a node hits the
// pods it hit. Only whole histories are pinned: a dumped pod's nodeName, or an aggregated event
// (count above 1: the last node only), says where the last pod of that name ran, not its
// predecessors, and a pin is by order of creation.
void Builder::Placements() {
  std::set<std::string> jobs;  // "ns/name-": the prefix of a DGLJob's pods
  for (const Item* j : Of("DGLJob")) jobs.insert(kube::KeyOf(j->object) + "-");
  auto of_job = [&](const std::string& pod) {
    auto it = jobs.upper_bound(pod);
    return it != jobs.begin() && pod.starts_with(*std::prev(it));
  };
  std::map<std::string, std::vector<std::pair<Micros, std::string>>> where = scheduled_;
  std::size_t pinned = 0;
  for (auto& [pod, placed] : where) {
    if (!of_job(pod) || aggregated_.contains(pod)) continue;
    std::stable_sort(placed.begin(), placed.end());
    json nodes = json::array();
    for (const auto& [t, node] : placed)
      if (!SimNode(node).empty()) nodes.push_back(SimNode(node));
    if (nodes.size() != placed.size() || nodes.empty()) continue;
    placements_.push_back({{"pod", pod}, {"nodes", nodes}});
    pinned += nodes.size();
  }
  if (pinned > 0)
    Assume(std::to_string(pinned) + " placements of the jobs' pods (their Scheduled events) are pinned "
           "(cluster.scheduler.placements): kube-scheduler breaks ties between equal nodes at random");
  for (const std::string& pod : aggregated_)
    if (of_job(pod))
      Unused("events: Scheduled of pod " + pod + " seen more than once in one event: where its earlier incarnations "
             "ran is unknown, so it is not pinned");
}

// ---- faults: nodes ----

void Builder::NodeFaults() {
  std::set<std::string> names;
  for (const auto& [real, sim] : node_names_) names.insert(real);
  std::map<std::string, const json*> dumped;
  for (const Item* n : Of("Node")) dumped[JsonString(n->object, {"metadata", "name"})] = &n->object;
  for (const std::string& real : names) NodeFaultsOf(real, dumped.contains(real) ? dumped[real] : nullptr);
}

// A node's outages: NotReady (events, the Ready condition) to Ready again, or for good.
void Builder::NodeFaultsOf(const std::string& real, const json* node) {
  std::vector<std::pair<Micros, bool>> changes;  // time, ready
  std::string where;
  for (const Item* e : Of("Event")) {
    const json& o = e->object;
    if (EventObjectKind(o) != "Node" || EventObjectName(o) != real) continue;
    const std::string reason = JsonString(o, {"reason"});
    if (reason != "NodeNotReady" && reason != "NodeReady") continue;
    if (auto t = EventTime(o)) changes.emplace_back(*t, reason == "NodeReady");
    if (where.empty()) where = e->where;
    if (kube::JsonInt(o, {"count"}, 1) > 1)
      Unused(e->where + ": event " + reason + " of node " + real + " happened " + std::to_string(kube::JsonInt(o, {"count"})) +
             " times; only its first time is used");
  }
  std::optional<std::pair<Micros, bool>> final_state;
  if (node)
    if (const json* conditions = JsonAt(*node, {"status", "conditions"}); conditions && conditions->is_array())
      for (const json& c : *conditions)
        if (JsonString(c, {"type"}) == "Ready")
          if (auto t = TimeAt(c, {"lastTransitionTime"})) final_state.emplace(*t, JsonString(c, {"status"}) == "True");
  if (final_state) changes.push_back(*final_state);
  std::stable_sort(changes.begin(), changes.end());
  const Micros grace = options_.node_monitor_grace;
  const std::string sim = SimNode(real);
  // The node of a job's pod, where there was one: the simulation may place that pod elsewhere.
  auto target = [&](json f) {
    if (auto p = pod_on_node_.find(real); p != pod_on_node_.end()) {
      f.erase("node");
      f["nodeOf"] = p->second;
    }
    return f;
  };
  // Down since `down_at` while `is_down` (a plain pair: g++ -O3 warns that an optional<Micros> here
  // may be read uninitialized, a -Wmaybe-uninitialized false positive).
  bool is_down = false;
  Micros down_at = 0;
  auto emit = [&](Micros from, std::optional<Micros> to, const std::string& why) {
    const Micros at = std::max(t0_, from - grace);
    json f = target({{"at", At(at)}, {"kind", "NodeDown"}, {"node", sim}});
    if (to) f["for"] = Dur(std::max<Micros>(kube::kSecond, *to - at));
    if (!fault_keys_.insert(f.dump()).second) return;
    AddFault(at, f, why);
  };
  for (const auto& [t, ready] : changes) {
    if (!ready && !is_down) {
      is_down = true;
      down_at = t;
    }
    if (ready && is_down) {
      emit(down_at, t, "node " + real + " NotReady at +" + At(down_at) + ", Ready again at +" + At(t) +
                         (where.empty() ? "" : " (" + where + ")") + "; it stopped " + Dur(grace) + " before it was noticed");
      is_down = false;
    }
  }
  if (auto d = deleted_nodes_.find(real); d != deleted_nodes_.end()) {
    // NotReady before it was deleted: down from then (for good: a deleted node does not come back).
    if (is_down && down_at < d->second)
      emit(down_at, std::nullopt, "node " + real + " NotReady since +" + At(down_at) + ", then deleted; it stopped " +
                                      Dur(grace) + " before it was noticed");
    // Deleted: the machine and its Node object go at the deletion (no grace: the API forgets it at
    // once), and the pod garbage collector deletes its pods 40 to 60 s later, as on the cluster.
    const Micros at = std::max(t0_, d->second);
    json f = target({{"at", At(at)}, {"kind", "NodeDeleted"}, {"node", sim}});
    if (fault_keys_.insert(f.dump()).second)
      AddFault(at, f, "node " + real + " deleted at +" + At(d->second) + " (audit log or RemovingNode event): gone for good");
    return;
  }
  if (is_down) emit(down_at, std::nullopt, "node " + real + " NotReady since +" + At(down_at) + " and never Ready again: gone for good; it stopped " +
                                          Dur(grace) + " before it was noticed");
  else if (!node && !deleted_nodes_.contains(real))
    Unused("node " + real + ": named by pods or events but not dumped, and no time says when it went: not replayed as a fault");
}

// ---- anchoring faults to the jobs' progress ----

// The phase a DGLJob Event's reason announces (the operator records one per phase change), or "".
std::string PhaseOfReason(const std::string& reason) {
  static const std::map<std::string, std::string> phases = {
      {dgl::kReasonPodsPending, "Pending"},          {dgl::kReasonPartitionerRunning, "Partitioning"},
      {dgl::kReasonDistPartitionerRunning, "Partitioning"}, {dgl::kReasonPartitionerSucceeded, "Partitioned"},
      {dgl::kReasonPartitionsReady, "Partitioned"},  {dgl::kReasonTrainingRunning, "Training"},
      {dgl::kReasonLauncherRunning, "Training"},     {dgl::kReasonLauncherSucceeded, "Succeeded"}};
  auto it = phases.find(reason);
  return it == phases.end() ? "" : it->second;
}

void Builder::PhaseEntries() {
  std::set<std::pair<std::string, std::string>> seen;
  std::vector<PhaseEntry> all;
  for (const Item* e : Of("Event")) {
    if (EventObjectKind(e->object) != "DGLJob") continue;
    const std::string phase = PhaseOfReason(JsonString(e->object, {"reason"}));
    auto t = EventTime(e->object);
    if (!phase.empty() && t) all.push_back({*t, EventObjectNamespace(e->object) + "/" + EventObjectName(e->object), phase});
  }
  // Events have second precision: phases entered within the same second go in the phases' order.
  static const std::vector<std::string> order = {"Pending", "Partitioning", "Partitioned", "Training", "Succeeded"};
  auto rank = [](const std::string& phase) { return std::find(order.begin(), order.end(), phase) - order.begin(); };
  std::stable_sort(all.begin(), all.end(), [&](const PhaseEntry& a, const PhaseEntry& b) {
    return a.at != b.at ? a.at < b.at : rank(a.phase) < rank(b.phase);
  });
  for (PhaseEntry& p : all)
    if (seen.insert({p.job, p.phase}).second) entries_.push_back(std::move(p));
}

// A fault at `at` goes `when` the last phase a job had entered for the first time by then, `after`
// the time between: the simulation's pace differs from the cluster's (image pulls, start-up,
// workloads), and a fault keyed to the job's progress hits it in the same stage.
void Builder::Anchor(Micros at, json& spec, std::string& comment) const {
  const PhaseEntry* last = nullptr;
  for (const PhaseEntry& p : entries_)
    if (p.at <= at) last = &p;
  if (!last) return;
  spec.erase("at");
  spec["when"] = {{"job", last->job}, {"phase", last->phase}};
  if (at > last->at) spec["after"] = Dur(at - last->at);
  comment += "; anchored to the job's progress: " + Dur(at - last->at) + " after " + last->job + " entered " +
             last->phase + " (its DGLJob events), as the simulation's pace differs from the cluster's";
}

// ---- faults: pods ----

void Builder::PodFaults() {
  for (const Item* p : Of("Pod")) {
    const json& pod = p->object;
    if (JsonString(pod, {"metadata", "labels", dgl::kLabelJobName}).empty()) {
      Unused(p->where + ": pod " + kube::KeyOf(pod) + " belongs to no DGLJob");
      continue;
    }
    if (!JsonString(pod, {"metadata", "deletionTimestamp"}).empty()) continue;  // a deletion's exit is no fault
    for (const char* list : {"initContainerStatuses", "containerStatuses"})
      if (const json* cs = JsonAt(pod, {"status", list}); cs && cs->is_array())
        for (const json& c : *cs) ContainerFaults(*p, c, list[0] == 'i');
    if (JsonString(pod, {"status", "reason"}) == "Evicted") {
      std::optional<Micros> at;
      for (const Item* e : Of("Event"))
        if (EventObjectKind(e->object) == "Pod" && EventObjectName(e->object) == kube::NameOf(pod) &&
            JsonString(e->object, {"reason"}) == "Evicted")
          at = EventTime(e->object);
      if (!at) at = TimeAt(pod, {"status", "startTime"});
      if (!at) continue;
      AddFault(*at, {{"at", At(*at)}, {"kind", "PodKill"}, {"pod", kube::KeyOf(pod)}, {"exitCode", 137}},
               "pod " + kube::KeyOf(pod) + " evicted (" + JsonString(pod, {"status", "message"}) +
                   "): replayed as its containers killed (exit 137); the simulation has no node pressure");
      Assume("an evicted pod is replayed as a PodKill with exit code 137");
    }
  }
}

void Builder::ContainerFaults(const Item& p, const json& status, bool init) {
  const json& pod = p.object;
  const std::string key = kube::KeyOf(pod), container = JsonString(status, {"name"});
  for (const char* which : {"lastState", "state"}) {
    const json* t = JsonAt(status, {which, "terminated"});
    if (!t || !t->is_object()) continue;
    const std::string reason = JsonString(*t, {"reason"});
    const std::int64_t code = kube::JsonInt(*t, {"exitCode"});
    auto finished = TimeAt(*t, {"finishedAt"});
    if (!finished || (code == 0 && reason != "OOMKilled")) continue;
    json f = {{"at", At(*finished)}, {"kind", reason == "OOMKilled" ? "OOM" : "PodKill"}, {"pod", key}, {"container", container}};
    if (reason != "OOMKilled") f["exitCode"] = code;
    if (!fault_keys_.insert(f.dump()).second) continue;
    AddFault(*finished, f,
             std::string(init ? "init container " : "container ") + container + " of " + key + " " +
                 (reason == "OOMKilled" ? "OOMKilled" : "exited " + std::to_string(code) + " (" + reason + ")") +
                 " at +" + At(*finished) + " (" + p.where + ")");
  }
  const std::string waiting = JsonString(status, {"state", "waiting", "reason"});
  if (waiting != "ErrImagePull" && waiting != "ImagePullBackOff") return;
  const std::string node = SimNode(JsonString(pod, {"spec", "nodeName"}));
  std::optional<Micros> at;
  for (const Item* e : Of("Event"))
    if (EventObjectKind(e->object) == "Pod" && EventObjectName(e->object) == kube::NameOf(pod) &&
        EventObjectNamespace(e->object) == kube::NamespaceOf(pod) && JsonString(e->object, {"reason"}) == "Failed" &&
        JsonString(e->object, {"message"}).find("pull") != std::string::npos)
      if (auto t = EventTime(e->object); t && (!at || *t < *at)) at = t;
  if (!at) at = TimeAt(pod, {"metadata", "creationTimestamp"});
  if (!at) return;
  std::string image = JsonString(status, {"image"});
  json f = {{"at", At(*at)}, {"kind", "ImagePullError"}, {"image", image}};
  if (!node.empty()) f["node"] = node;
  if (!fault_keys_.insert(f.dump()).second) return;
  AddFault(*at, f, "container " + container + " of " + key + " waiting in " + waiting + " (" + p.where +
                       "): pulls of " + image + (node.empty() ? "" : " on " + node) + " fail from then on");
}

// ---- faults: the operator ----

void Builder::LeaseFaults() {
  bool audited = false;  // the audit log's bodies show every change of hands: then the dump's is not needed
  std::string holder;
  for (const AuditRecord& a : ev_.audit) {
    const json& e = a.event;
    if (JsonString(e, {"objectRef", "resource"}) != "leases" || JsonString(e, {"objectRef", "name"}) != "dgl-operator") continue;
    const json* body = JsonAt(e, {"responseObject"});
    if (!body || !body->is_object()) body = JsonAt(e, {"requestObject"});
    if (!body || !body->is_object()) continue;
    const std::string now = JsonString(*body, {"spec", "holderIdentity"});
    if (now.empty()) continue;
    audited = true;
    if (!holder.empty() && now != holder && a.time >= t0_) {
      const Micros lease = kube::JsonInt(*body, {"spec", "leaseDurationSeconds"}, 15) * kube::kSecond;
      const Micros at = std::max(t0_, a.time - lease);
      AddFault(at, {{"at", At(at)}, {"kind", "OperatorRestart"}, {"for", Dur(lease)}},
               "the operator's Lease went from " + holder + " to " + now + " at +" + At(a.time) + " (" + a.where +
                   "): the old leader stopped a lease duration before");
    }
    holder = now;
  }
  for (const Item* l : Of("Lease")) {
    const json& o = l->object;
    const std::string name = JsonString(o, {"metadata", "name"});
    if (name != "dgl-operator") {
      Unused(l->where + ": Lease " + kube::KeyOf(o) + ": " +
             (kube::NamespaceOf(o) == "kube-node-lease" ? "a node's heartbeat (node readiness is read from the Node)"
                                                        : "another component's leader election"));
      continue;
    }
    const std::int64_t transitions = kube::JsonInt(o, {"spec", "leaseTransitions"});
    auto acquired = TimeAt(o, {"spec", "acquireTime"});
    if (audited || transitions == 0 || !acquired) continue;
    const Micros lease = kube::JsonInt(o, {"spec", "leaseDurationSeconds"}, 15) * kube::kSecond;
    if (*acquired < t0_) {
      Unused(l->where + ": the operator's Lease changed hands before the first DGLJob: nothing to replay");
      continue;
    }
    const Micros at = std::max(t0_, *acquired - lease);
    AddFault(at, {{"at", At(at)}, {"kind", "OperatorRestart"}, {"for", Dur(lease)}},
             "the operator's Lease was acquired by " + JsonString(o, {"spec", "holderIdentity"}) + " at +" + At(*acquired) +
                 " (" + l->where + "): the old leader stopped a lease duration before");
    if (transitions > 1)
      Unused(l->where + ": the operator's Lease changed hands " + std::to_string(transitions) +
             " times; a dump shows the last one only (an audit log at level Request shows all)");
  }
}

// ---- the audit log ----

void Builder::AuditFaults() {
  std::set<std::string> dumped_jobs;
  for (const Item* j : Of("DGLJob")) dumped_jobs.insert(kube::KeyOf(j->object));
  std::map<std::string, int> unused;  // what -> how many
  for (const AuditRecord& a : ev_.audit) {
    const json& e = a.event;
    const std::string verb = JsonString(e, {"verb"}), resource = JsonString(e, {"objectRef", "resource"});
    const std::string user = JsonString(e, {"user", "username"});
    const std::string ns = JsonString(e, {"objectRef", "namespace"}), name = JsonString(e, {"objectRef", "name"});
    const bool ok = kube::JsonInt(e, {"responseStatus", "code"}) < 300;
    const std::string agent = JsonString(e, {"userAgent"});
    // kwok, controllers and the like may run with an admin's credentials: their user agent tells them.
    const bool component_agent = agent.starts_with("kwok") || agent.starts_with("kube-") || agent.starts_with("dgl-operator");
    const bool by_user = !IsComponent(user) && !component_agent && ok && JsonString(e, {"objectRef", "subresource"}).empty();
    if (by_user && verb == "delete" && resource == "pods" && a.time >= t0_) {
      AddFault(a.time, {{"at", At(a.time)}, {"kind", "PodKill"}, {"pod", ns + "/" + name}, {"exitCode", 143}},
               user + " deleted pod " + ns + "/" + name + " at +" + At(a.time) + " (" + a.where +
                   "): replayed as its containers killed by SIGTERM (exit 143)");
      Assume("a user's pod deletion is replayed as a PodKill with exit code 143 (the scenario cannot delete a pod)");
      continue;
    }
    if (by_user && verb == "delete" && resource == "dgljobs" && dumped_jobs.contains(ns + "/" + name)) {
      jobs_.push_back({{{"at", At(a.time)}, {"delete", {{"namespace", ns}, {"name", name}}}},
                       user + " deleted the job at +" + At(a.time) + " (" + a.where + ")"});
      continue;
    }
    if (by_user && verb == "create" && resource == "dgljobs" && !dumped_jobs.contains(ns + "/" + name)) {
      Unused(a.where + ": DGLJob " + ns + "/" + name + " created by " + user +
             " but not in the dump (deleted before it?): its spec is unknown, it is not replayed");
      continue;
    }
    if (resource == "nodes" && verb == "delete") continue;  // used by NodeFaults
    if (resource == "leases" && name == "dgl-operator") continue;  // used by LeaseFaults
    ++unused[std::string(IsComponent(user) || component_agent ? "the components' " : "users' ") +
             (verb == "get" || verb == "list" || verb == "watch" ? "reads" : "writes")];
  }
  for (const auto& [what, count] : unused)
    Unused("audit log: " + std::to_string(count) + (count == 1 ? " request, " : " requests, ") + what +
           ": the replay's own components make theirs; only what changes the course of a run is replayed");
}

// ---- events not used ----

void Builder::Events() {
  std::map<std::string, int> reasons;
  for (const Item* e : Of("Event")) {
    const std::string kind = EventObjectKind(e->object), reason = JsonString(e->object, {"reason"});
    if (kind == "Node" && (reason == "NodeNotReady" || reason == "NodeReady" || reason == "RemovingNode")) continue;
    if (kind == "Pod" && (reason == "Evicted" || reason == "Failed")) continue;
    if (kind == "Pod" && reason == "Scheduled" && !placements_.empty()) continue;  // the placements
    ++reasons[kind + " " + reason];
  }
  for (const auto& [what, count] : reasons)
    Unused("events: " + std::to_string(count) + " x " + what + ": what the replay's components do and say themselves");
}

// ---- jobs ----

// The job as submitted: kubectl's last-applied-configuration, else the object without its status
// and the metadata the server sets.
json Submitted(const json& job, bool* from_annotation) {
  *from_annotation = false;
  const std::string applied = JsonString(job, {"metadata", "annotations", kLastApplied});
  if (!applied.empty()) {
    json parsed = json::parse(applied, nullptr, false);
    if (parsed.is_object() && JsonString(parsed, {"kind"}) == "DGLJob" && parsed.contains("spec")) {
      *from_annotation = true;
      if (JsonString(parsed, {"metadata", "namespace"}).empty()) parsed["metadata"]["namespace"] = kube::NamespaceOf(job);
      return parsed;
    }
  }
  json out = {{"apiVersion", JsonString(job, {"apiVersion"})}, {"kind", "DGLJob"}};
  json metadata = {{"name", kube::NameOf(job)}, {"namespace", kube::NamespaceOf(job)}};
  for (const char* field : {"labels", "annotations"})
    if (const json* v = JsonAt(job, {"metadata", field}); v && v->is_object() && !v->empty()) metadata[field] = *v;
  if (metadata.contains("annotations")) metadata["annotations"].erase(kLastApplied);
  if (metadata.contains("annotations") && metadata["annotations"].empty()) metadata.erase("annotations");
  out["metadata"] = metadata;
  if (const json* spec = JsonAt(job, {"spec"})) out["spec"] = *spec;
  return out;
}

// The launcher's command line, split into words.
std::vector<std::string> LauncherWords(const json& job) {
  std::vector<std::string> words;
  const json* containers = JsonAt(job, {"spec", "dglReplicaSpecs", dgl::kReplicaLauncher, "template", "spec", "containers"});
  if (!containers || !containers->is_array()) return words;
  for (const json& c : *containers)
    for (const char* part : {"command", "args"})
      if (const json* list = JsonAt(c, {part}); list && list->is_array())
        for (const json& w : *list)
          if (w.is_string()) {
            std::istringstream in(w.get<std::string>());
            for (std::string word; in >> word;) words.push_back(word);
          }
  return words;
}

std::string FlagValue(const std::vector<std::string>& words, const std::string& flag) {
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (words[i].starts_with(flag + "=")) return words[i].substr(flag.size() + 1);
    if (words[i] == flag && i + 1 < words.size()) return words[i + 1];
  }
  return "";
}

void Builder::Jobs() {
  std::vector<const Item*> jobs = Of("DGLJob");
  std::stable_sort(jobs.begin(), jobs.end(), [](const Item* a, const Item* b) {
    return JsonString(a->object, {"metadata", "creationTimestamp"}) < JsonString(b->object, {"metadata", "creationTimestamp"});
  });
  for (const Item* j : jobs) Job(*j);
  bool any_applied = false;
  for (const Item* j : jobs) any_applied = any_applied || !JsonString(j->object, {"metadata", "annotations", kLastApplied}).empty();
  if (!any_applied)
    Assume("a DGLJob as submitted is its dumped object without status and server-set metadata (no "
           "last-applied-configuration): admission's defaults are part of it");
}

void Builder::Job(const Item& item) {
  const json& job = item.object;
  const std::string key = kube::KeyOf(job);
  auto created = TimeAt(job, {"metadata", "creationTimestamp"});
  bool from_annotation = false;
  json submitted = Submitted(job, &from_annotation);
  Durations(item, submitted);
  json entry = {{"at", At(created.value_or(t0_))}};
  std::string comment = key + " (" + item.where + ")" + (from_annotation ? ", as kubectl applied it" : "");
  const std::vector<std::string> words = LauncherWords(job);
  const std::string url = FlagValue(words, "--dataset-url"), graph = FlagValue(words, "--graph-name");
  std::string dataset;
  for (const DatasetPreset& p : DatasetPresets())
    if ((!url.empty() && p.url == url) || (url.empty() && !graph.empty() && p.name == graph)) dataset = p.name;
  if (!dataset.empty()) {
    entry["dataset"] = dataset;
    bool known = false;
    for (const json& d : datasets_) known = known || d["name"] == dataset;
    if (!known) datasets_.push_back({{"name", dataset}, {"preset", dataset}});
    comment += "; dataset " + dataset + " from the launcher's " + (url.empty() ? "--graph-name" : "--dataset-url");
  } else if (!url.empty() || !graph.empty()) {
    Assume("job " + key + ": its dataset (" + (url.empty() ? "--graph-name " + graph : "--dataset-url " + url) +
           ") is none of the presets; it runs on the default small graph (add a datasets[] entry with its size)");
  }
  entry["inline"] = submitted;
  jobs_.push_back({entry, comment});
  const std::string phase = JsonString(job, {"status", "phase"});
  if (phase.empty()) {
    Unused(item.where + ": job " + key + " has no status.phase: no outcome to expect");
    return;
  }
  expect_.push_back({{"job", key}, {"phase", phase}});
  if (phase != "Succeeded" && phase != "Failed") unfinished_ += (unfinished_.empty() ? "job " : ", job ") + key;
  if (const json* conditions = JsonAt(job, {"status", "conditions"}); conditions && conditions->is_array()) {
    for (const json& c : *conditions) {
      const std::string type = JsonString(c, {"type"}), status = JsonString(c, {"status"}), reason = JsonString(c, {"reason"});
      if (reason.empty()) continue;
      if (type == phase && status == "True") expect_.push_back({{"job", key}, {"condition", phase}, {"reason", reason}});
      // Why it restarted last.
      else if (type == "Restarting" && status == "False")
        expect_.push_back({{"job", key}, {"condition", "Restarting"}, {"reason", reason}, {"status", "False"}});
    }
  }
  expect_.push_back({{"job", key}, {"restarts", kube::JsonInt(job, {"status", "restartCount"})}});
}

// `dglsim.io/duration` for a replica type whose containers run something other than dglrun (the
// DGL models time those): how long its pods ran to exit 0, or past the evidence when still running.
void Builder::Durations(const Item& item, json& submitted) {
  json* specs = nullptr;
  if (auto it = submitted.find("spec"); it != submitted.end() && it->is_object())
    if (auto s = it->find("dglReplicaSpecs"); s != it->end() && s->is_object()) specs = &*s;
  if (!specs) return;
  for (auto& [type, spec] : specs->items()) {
    json* tmpl = spec.is_object() && spec.contains("template") ? &spec["template"] : nullptr;
    if (!tmpl || !tmpl->is_object()) continue;
    if (JsonAt(*tmpl, {"metadata", "annotations", "dglsim.io/duration"})) continue;
    bool dgl = false;
    if (const json* cs = JsonAt(*tmpl, {"spec", "containers"}); cs && cs->is_array())
      for (const json& c : *cs)
        if (const json* cmd = JsonAt(c, {"command"}); cmd && cmd->is_array() && !cmd->empty() && (*cmd)[0].is_string())
          dgl = dgl || (*cmd)[0] == "dglrun" || (*cmd)[0] == "dglkerun";
    if (dgl) continue;
    std::string role = type;
    std::transform(role.begin(), role.end(), role.begin(), [](unsigned char c) { return std::tolower(c); });
    std::optional<Micros> ran;
    bool running = false;
    for (const Item* p : Of("Pod")) {
      if (JsonString(p->object, {"metadata", "labels", dgl::kLabelJobName}) != kube::NameOf(item.object) ||
          kube::NamespaceOf(p->object) != kube::NamespaceOf(item.object) || RoleOf(p->object) != role)
        continue;
      if (const json* cs = JsonAt(p->object, {"status", "containerStatuses"}); cs && cs->is_array())
        for (const json& c : *cs) {
          running = running || JsonAt(c, {"state", "running"}) != nullptr;
          const json* t = JsonAt(c, {"state", "terminated"});
          if (!t || kube::JsonInt(*t, {"exitCode"}, -1) != 0) continue;
          auto s = TimeAt(*t, {"startedAt"}), f = TimeAt(*t, {"finishedAt"});
          if (s && f) ran = std::max(ran.value_or(0), *f - *s);
        }
    }
    std::string duration;
    if (ran) duration = Dur(std::max<Micros>(*ran, kube::kSecond));
    else if (running) duration = Dur(2 * (last_ - t0_) + (3600 * kube::kSecond));
    if (duration.empty()) continue;
    (*tmpl)["metadata"]["annotations"]["dglsim.io/duration"] = duration;
    Assume("job " + kube::KeyOf(item.object) + ": its " + type + " containers run " +
           (ran ? "for " + duration + ", as long as the evidence shows they ran to exit 0"
                : "past the evidence's end (" + duration + "): they were still running when it was taken") +
           " (dglsim.io/duration; they do not run dglrun, whose time the DGL models give)");
  }
}

// ---- the file ----

// One item of a sequence, indented under its key, after its comment lines.
void ListItem(std::ostringstream& out, const json& item, const std::string& comment) {
  if (!comment.empty()) out << "  # " << comment << "\n";
  std::istringstream lines(JsonToYaml(json::array({item})));
  for (std::string line; std::getline(lines, line);) out << "  " << line << "\n";
}

void CommentLines(std::ostringstream& out, const std::string& title, const std::vector<std::string>& lines) {
  if (lines.empty()) return;
  out << "#\n# " << title << "\n";
  for (const std::string& l : lines) {
    std::string one = l;
    std::replace(one.begin(), one.end(), '\n', ' ');
    out << "#   - " << one << "\n";
  }
}

std::string Builder::Render() const {
  std::ostringstream out;
  out << "# Imported by `dglsim import` from:";
  for (const std::string& s : options_.sources) out << " " << s;
  out << "\n# Time 0 is the creation of the first DGLJob (" << kube::FormatTime(t0_) << "); the evidence ends at +"
      << At(last_) << ".\n# Replays what the evidence shows: the nodes, the jobs as submitted, the faults at their "
      << "times;\n# `expect` states the outcome the cluster showed, so `dglsim run` says whether the replay reproduces it.\n";
  CommentLines(out, "Assumptions:", result_.assumptions);
  CommentLines(out, "Evidence not used:", result_.unused);
  json top = {{"apiVersion", "dglsim/v1"}, {"kind", "Scenario"}};
  top["metadata"] = {{"name", options_.name},
                     {"description", "Replays a failure imported from a cluster's evidence (dglsim import)"}};
  top["seed"] = 1;
  top["until"] = Dur(2 * (last_ - t0_) + 10 * 60 * kube::kSecond);
  out << JsonToYaml(top, {"apiVersion", "kind", "metadata", "seed", "until"});
  out << "# until: twice the time the evidence spans, and 10m more: the simulation's pace differs from the\n"
         "# cluster's (image pulls, start-up); the run ends sooner once every job ended\n";
  out << "cluster:\n  nodes:\n";
  std::ostringstream nodes;
  for (std::size_t i = 0; i < nodes_.size(); ++i) ListItem(nodes, nodes_[i], node_comments_[i]);
  std::istringstream node_lines(nodes.str());
  for (std::string line; std::getline(node_lines, line);) out << "  " << line << "\n";
  if (!placements_.empty()) {
    out << "  scheduler:\n    # where the cluster's scheduler placed the jobs' pods (Scheduled events), in order: the i-th pod\n"
           "    # of a name goes to nodes[i]; kube-scheduler breaks ties at random, the replay places them as it did\n"
           "    placements:\n";
    std::ostringstream list;
    for (const json& p : placements_) ListItem(list, p, "");
    std::istringstream lines(list.str());
    for (std::string line; std::getline(lines, line);) out << "    " << line << "\n";
  }
  out << "  timings: {nodeMonitorGracePeriod: " << Dur(options_.node_monitor_grace)
      << "}  # assumed: kube-controller-manager's --node-monitor-grace-period\n";
  if (!datasets_.empty()) {
    out << "datasets:\n";
    for (const json& d : datasets_) ListItem(out, d, "");
  }
  out << "jobs:\n";
  for (const auto& [entry, comment] : jobs_) ListItem(out, entry, comment);
  if (!faults_.empty()) {
    out << "faults:\n";
    for (const Fault& f : faults_) ListItem(out, f.spec, f.comment);
  }
  out << "expect:\n";
  for (const json& e : expect_) ListItem(out, e, "");
  if (unfinished_.empty()) {
    ListItem(out, {{"invariants", "all"}}, "");
  } else {
    out << "  # no {invariants: all}: " << unfinished_
        << " had not ended when the evidence was taken, and a replay that ends with a job that no longer\n"
        << "  # moves fails the invariant jobsTerminalOrProgressing; run it with --json to see every invariant's checks\n";
  }
  return out.str();
}
}  // namespace

ImportResult BuildScenario(const evidence::Evidence& evidence, const ImportOptions& options) {
  return Builder(evidence, options).Build();
}

}  // namespace harness::importer
