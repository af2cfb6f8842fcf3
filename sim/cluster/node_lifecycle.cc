// The node lifecycle controller and its NoExecute taint manager. See node_lifecycle.h.
#include "sim/cluster/node_lifecycle.h"

#include "fakeapi/client/json_path.h"
#include "fakeapi/server/rbac_bootstrap.h"

#include <algorithm>
#include <optional>
#include <utility>

namespace sim {

using kube::ObjectPtr;
using json = kube::Json;

namespace {

constexpr const char* kNodeIndex = "node";

std::string Str(const json& obj, const char* key) { return kube::JsonString(obj, {key}); }

std::vector<Taint> NoExecuteTaints(const json& node) {
  std::vector<Taint> out;
  for (auto& t : TaintsOf(node))
    if (t.effect == "NoExecute") out.push_back(std::move(t));
  return out;
}

bool IsReadinessTaint(const Taint& t) { return t.key == kTaintNotReady || t.key == kTaintUnreachable; }

}  // namespace

NodeLifecycleController::NodeLifecycleController(Simulation& sim, Cluster& cluster, NodeLifecycleOptions options,
                                                 std::string name)
    : Actor(sim, std::move(name)), cluster_(cluster), options_(options) {
  SetIdentity(fakeapi::rbac::NodeControllerUser());
  cluster_.AddLivenessObserver(
      [this](const std::string& node, bool up, Micros last_heartbeat) { OnLiveness(node, up, last_heartbeat); });
}

void NodeLifecycleController::Start() {
  nodes_ = &AddInformer("nodes", {},
                        {.on_add = [this](const ObjectPtr& n) { OnNode(n); },
                         .on_update = [this](const ObjectPtr&, const ObjectPtr& n) { OnNode(n); }});
  pods_ = &AddInformer("pods", {},
                       {.on_add = [this](const ObjectPtr& p) { OnPod(p); },
                        .on_update = [this](const ObjectPtr&, const ObjectPtr& p) { OnPod(p); },
                        .on_delete = [this](const ObjectPtr& p) { CancelEviction(kube::KeyOf(*p)); }});
  pods_->AddIndex(kNodeIndex, kube::IndexByNodeName());
  // Pods listed before the index existed: evaluate them against their nodes now.
  for (const auto& [node, taints] : no_execute_)
    for (const auto& pod : pods_->ByIndex(kNodeIndex, node)) EvaluatePod(pod, taints);
  // Nodes that went down before we started.
  for (const auto& [name, spec] : cluster_.specs())
    if (!cluster_.IsUp(name)) OnLiveness(name, false, cluster_.LastHeartbeat(name));
}

Micros NodeLifecycleController::EvictionTime(const std::string& pod_key) const {
  auto it = evictions_.find(pod_key);
  return it == evictions_.end() ? -1 : it->second.at;
}

void NodeLifecycleController::OnLiveness(const std::string& node, bool up, Micros last_heartbeat) {
  auto it = monitor_checks_.find(node);
  if (it != monitor_checks_.end()) {
    Cancel(it->second);
    monitor_checks_.erase(it);
  }
  if (up) return;
  monitor_checks_[node] = At(last_heartbeat + options_.node_monitor_grace_period, [this, node] {
    monitor_checks_.erase(node);
    MarkNotReady(node);
  });
}

void NodeLifecycleController::MarkNotReady(const std::string& node) {
  if (cluster_.IsUp(node)) return;
  ObjectPtr current = nodes_ ? nodes_->Get("", node) : nullptr;
  if (!current) return;
  const std::string now = kube::FormatTime(sim().engine().clock().Now());
  ++stats_.nodes_marked_not_ready;
  Log("node " + node + " stopped posting status: NotReady");

  // Every condition goes Unknown (tryUpdateNodeHealth).
  json conditions = json::array();
  auto status = current->find("status");
  if (status != current->end() && status->contains("conditions") && (*status)["conditions"].is_array())
    for (json c : (*status)["conditions"]) {
      if (Str(c, "status") != "Unknown") c["lastTransitionTime"] = now;
      c["status"] = "Unknown";
      c["reason"] = "NodeStatusUnknown";
      c["message"] = "Kubelet stopped posting node status.";
      conditions.push_back(std::move(c));
    }
  auto r = client().Patch("nodes", "", node, {{"status", {{"conditions", conditions}}}}, kube::PatchType::kMerge,
                          "status");
  if (!r.ok()) Log("status of node " + node + ": " + r.status().ToString());

  // not-ready gives way to unreachable; both effects.
  json taints = json::array();
  for (const auto& t : TaintsOf(*current))
    if (!IsReadinessTaint(t)) taints.push_back(t.ToJson());
  const Micros api_now = sim().engine().clock().Now();
  taints.push_back(Taint{kTaintUnreachable, "", "NoSchedule", std::nullopt}.ToJson());
  taints.push_back(Taint{kTaintUnreachable, "", "NoExecute", api_now}.ToJson());
  r = client().Patch("nodes", "", node, {{"spec", {{"taints", taints}}}});
  if (!r.ok()) {
    Log("taints of node " + node + ": " + r.status().ToString());
    // Try again soon, as the controller's next monitor pass would.
    monitor_checks_[node] = After(5 * kSecond, [this, node] {
      monitor_checks_.erase(node);
      MarkNotReady(node);
    });
  }

  if (options_.mark_pods_not_ready && pods_)
    for (const auto& pod : pods_->ByIndex(kNodeIndex, node)) {
      json pod_conditions = json::array();
      bool changed = false;
      auto ps = pod->find("status");
      if (ps == pod->end() || !ps->contains("conditions") || !(*ps)["conditions"].is_array()) continue;
      for (json c : (*ps)["conditions"]) {
        if (Str(c, "type") == "Ready" && Str(c, "status") != "False") {
          c["status"] = "False";
          c["lastTransitionTime"] = now;
          changed = true;
        }
        pod_conditions.push_back(std::move(c));
      }
      if (!changed) continue;
      auto pr = client().Patch("pods", kube::NamespaceOf(*pod), kube::NameOf(*pod),
                               {{"status", {{"conditions", pod_conditions}}}}, kube::PatchType::kMerge, "status");
      if (!pr.ok()) Log("status of pod " + kube::KeyOf(*pod) + ": " + pr.status().ToString());
    }
}

void NodeLifecycleController::OnNode(const ObjectPtr& node) {
  const std::string& name = kube::NameOf(*node);
  auto taints = TaintsOf(*node);
  // The heartbeat is back: lift the readiness taints.
  if (NodeReadyStatus(*node) == "True" &&
      std::any_of(taints.begin(), taints.end(), [](const Taint& t) { return IsReadinessTaint(t); })) {
    json kept = json::array();
    for (const auto& t : taints)
      if (!IsReadinessTaint(t)) kept.push_back(t.ToJson());
    Log("node " + name + " is Ready again: removing its not-ready / unreachable taints");
    auto r = client().Patch("nodes", "", name, {{"spec", {{"taints", kept}}}});
    if (r.ok()) {
      ++stats_.nodes_recovered;
    } else {
      Log("taints of node " + name + ": " + r.status().ToString());
      if (!untaint_retries_.count(name))
        untaint_retries_[name] = After(5 * kSecond, [this, name] {
          untaint_retries_.erase(name);
          if (ObjectPtr current = nodes_->Get("", name)) OnNode(current);
        });
    }
  }

  auto no_execute = NoExecuteTaints(*node);
  auto& known = no_execute_[name];
  auto same = [](const std::vector<Taint>& a, const std::vector<Taint>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (a[i].key != b[i].key || a[i].value != b[i].value || a[i].effect != b[i].effect ||
          a[i].time_added != b[i].time_added)
        return false;
    return true;
  };
  if (same(known, no_execute)) return;
  known = no_execute;
  if (pods_)
    for (const auto& pod : pods_->ByIndex(kNodeIndex, name)) EvaluatePod(pod, known);
  if (known.empty()) no_execute_.erase(name);
}

void NodeLifecycleController::OnPod(const ObjectPtr& pod) {
  std::string node = kube::NodeNameOf(*pod);
  if (node.empty()) return;
  auto it = no_execute_.find(node);
  if (it == no_execute_.end()) {
    CancelEviction(kube::KeyOf(*pod));
    return;
  }
  EvaluatePod(pod, it->second);
}

void NodeLifecycleController::CancelEviction(const std::string& pod_key) {
  auto it = evictions_.find(pod_key);
  if (it == evictions_.end()) return;
  Cancel(it->second.event);
  evictions_.erase(it);
}

void NodeLifecycleController::EvaluatePod(const ObjectPtr& pod, const std::vector<Taint>& no_execute) {
  std::string key = kube::KeyOf(*pod);
  if (no_execute.empty() || kube::IsBeingDeleted(*pod)) {
    CancelEviction(key);
    return;
  }
  auto tolerations = TolerationsOf(*pod);
  // processPodOnNode: any untolerated NoExecute taint evicts now; else the smallest
  // tolerationSeconds among the tolerations used decides, counted from when the taint was added.
  std::optional<Micros> due;
  for (const auto& taint : no_execute) {
    bool tolerated = false;
    std::optional<std::int64_t> seconds;  // unset: tolerated forever (getMinTolerationTime)
    for (const auto& t : tolerations) {
      if (!Tolerates(t, taint)) continue;
      tolerated = true;
      if (t.toleration_seconds)
        seconds = seconds ? std::min(*seconds, *t.toleration_seconds) : *t.toleration_seconds;
    }
    Micros added = taint.time_added ? SimTime(*taint.time_added) : Now();
    if (!tolerated) {
      due = Now();
      break;
    }
    if (seconds) {
      Micros at = added + std::max<std::int64_t>(0, *seconds) * kSecond;
      due = due ? std::min(*due, at) : at;
    }
  }
  if (!due) {
    CancelEviction(key);
    return;
  }
  Micros at = std::max(*due, Now());
  auto it = evictions_.find(key);
  if (it != evictions_.end() && it->second.at == at) return;
  CancelEviction(key);
  Eviction e;
  e.at = at;
  e.event = At(at, [this, key] {
    evictions_.erase(key);
    Evict(key);
  });
  evictions_[key] = e;
}

void NodeLifecycleController::Evict(const std::string& pod_key) {
  ObjectPtr pod = pods_ ? pods_->GetByKey(pod_key) : nullptr;
  if (!pod || kube::IsBeingDeleted(*pod)) return;
  ++stats_.evictions;
  Log("evicting pod " + pod_key + " from node " + kube::NodeNameOf(*pod));
  auto r = client().Delete("pods", kube::NamespaceOf(*pod), kube::NameOf(*pod));
  if (!r.ok() && !r.status().IsNotFound()) {
    Log("evicting pod " + pod_key + ": " + r.status().ToString());
    Eviction e;
    e.at = Now() + kSecond;
    e.event = After(kSecond, [this, pod_key] {
      evictions_.erase(pod_key);
      Evict(pod_key);
    });
    evictions_[pod_key] = e;
  }
}

}  // namespace sim
