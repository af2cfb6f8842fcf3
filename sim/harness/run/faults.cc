#include "sim/harness/run/faults.h"

#include "sim/cluster/cluster.h"
#include "sim/cluster/kubelet.h"
#include "sim/cluster/operator_actor.h"
#include "sim/cluster/simulation.h"
#include "sim/harness/config/units.h"

#include <utility>

namespace harness {

FaultInjector::FaultInjector(sim::Simulation& sim, sim::Cluster& cluster, std::map<std::string, sim::Kubelet*> kubelets,
                             sim::OperatorActor* op, kube::FaultPlan base_plan)
    : sim_(sim), cluster_(cluster), kubelets_(std::move(kubelets)), op_(op), base_plan_(base_plan), events_(sim.engine()) {}

void FaultInjector::Schedule(const std::vector<FaultSpec>& faults) {
  for (const FaultSpec& fault : faults) {
    if (fault.trigger.at) {
      FaultSpec copy = fault;
      events_.At(*fault.trigger.at, [this, copy] { Apply(copy); });
    } else if (fault.trigger.job) {
      triggered_.push_back(fault);
    }
  }
}

void FaultInjector::OnJobPhase(const JobKey& job, const std::string& phase) {
  for (std::size_t i = 0; i < triggered_.size(); ++i) {
    const FaultSpec& fault = triggered_[i];
    if (fired_.count(i) || !fault.trigger.job || *fault.trigger.job != job || fault.trigger.phase != phase) continue;
    fired_.insert(i);
    FaultSpec copy = fault;
    events_.After(fault.trigger.after, [this, copy] { Apply(copy); });
  }
}

void FaultInjector::Record(const std::string& text) {
  log_.push_back(FormatDuration(sim_.Now()) + " " + text);
  sim_.trace().Record(sim_.Now(), "fault", text);
}

void FaultInjector::KillPod(const FaultSpec& fault, const std::string& reason) {
  const char* kind = ToString(fault.kind);
  if (!fault.pod) {
    Record(std::string(kind) + " skipped: no pod named");
    return;
  }
  std::string who = fault.pod->ToString();
  auto pod = sim_.store().Get("pods", fault.pod->ns, fault.pod->name);
  if (!pod.ok()) {
    Record(std::string(kind) + " " + who + " skipped: no such pod");
    return;
  }
  const std::string& node = kube::NodeNameOf(**pod);
  auto it = kubelets_.find(node);
  if (it == kubelets_.end()) {
    Record(std::string(kind) + " " + who + " skipped: the pod is not on a node");
    return;
  }
  std::string r = !reason.empty() ? reason : fault.exit_code == 0 ? "Completed" : "Error";
  if (it->second->KillContainer(fault.pod->ns, fault.pod->name, fault.container, fault.exit_code, r)) {
    Record(std::string(kind) + " " + who + (fault.container.empty() ? "" : "/" + fault.container) + " exit " +
           std::to_string(fault.exit_code) + " " + r);
  } else {
    Record(std::string(kind) + " " + who + " skipped: no running container");
  }
}

void FaultInjector::Apply(const FaultSpec& fault) {
  switch (fault.kind) {
    case FaultKind::kNodeDown: return NodeDown(fault);
    case FaultKind::kNodeUp: return NodeUp(fault);
    case FaultKind::kPodKill: return KillPod(fault, "");
    case FaultKind::kOOM: return KillPod(fault, "OOMKilled");
    case FaultKind::kImagePullError: return FailImagePulls(fault);
    case FaultKind::kNetworkSlow: return SlowNetwork(fault);
    case FaultKind::kApiFaults: return FailApiCalls(fault);
    case FaultKind::kWatchDrop:
      sim_.DropWatches();
      Record("WatchDrop");
      return;
    case FaultKind::kOperatorRestart: return RestartOperator(fault);
    case FaultKind::kRbacRuleRemoved: return RemoveRbacRule(fault);
    case FaultKind::kNodeDeleted: return DeleteNode(fault);
  }
}

// " for 4m" when the fault is undone after a while, else "".
std::string FaultInjector::For(const FaultSpec& fault) {
  return fault.duration ? " for " + FormatDuration(*fault.duration) : "";
}

std::string FaultInjector::TargetNode(const FaultSpec& fault) {
  const std::string kind = ToString(fault.kind);
  std::string node = fault.node;
  if (fault.node_of) {
    auto pod = sim_.store().Get("pods", fault.node_of->ns, fault.node_of->name);
    if (pod.ok()) node = kube::NodeNameOf(**pod);
    if (node.empty()) {
      Record(kind + " nodeOf " + fault.node_of->ToString() + " skipped: the pod is not on a node");
      return "";
    }
  }
  if (!cluster_.Spec(node)) {
    Record(kind + " " + node + " skipped: no such node");
    return "";
  }
  if (deleted_.count(node)) {
    Record(kind + " " + node + " skipped: the node was deleted");
    return "";
  }
  return node;
}

void FaultInjector::NodeDown(const FaultSpec& fault) {
  const std::string node = TargetNode(fault);
  if (node.empty()) return;
  cluster_.NodeDown(node);
  Record("NodeDown " + node + For(fault));
  if (fault.duration)
    events_.After(*fault.duration, [this, node] {
      if (deleted_.count(node)) return;
      cluster_.NodeUp(node);
      Record("NodeUp " + node + " (end of NodeDown)");
    });
}

void FaultInjector::DeleteNode(const FaultSpec& fault) {
  const std::string node = TargetNode(fault);
  if (node.empty()) return;
  deleted_.insert(node);
  cluster_.NodeDown(node);
  auto r = sim_.UserClient().Delete("nodes", "", node);
  Record("NodeDeleted " + node + (r.ok() ? "" : " (the machine stops; the API refused the deletion: " +
                                                    r.status().ToString() + ")"));
}

void FaultInjector::NodeUp(const FaultSpec& fault) {
  if (!cluster_.Spec(fault.node)) {
    Record("NodeUp " + fault.node + " skipped: no such node");
    return;
  }
  if (deleted_.count(fault.node)) {
    Record("NodeUp " + fault.node + " skipped: the node was deleted");
    return;
  }
  cluster_.NodeUp(fault.node);
  Record("NodeUp " + fault.node);
}

std::vector<sim::Kubelet*> FaultInjector::KubeletsOn(const std::string& node) const {
  std::vector<sim::Kubelet*> out;
  for (const auto& [name, kubelet] : kubelets_)
    if (node.empty() || name == node) out.push_back(kubelet);
  return out;
}

void FaultInjector::FailImagePulls(const FaultSpec& fault) {
  const std::vector<sim::Kubelet*> kubelets = KubeletsOn(fault.node);
  for (sim::Kubelet* kubelet : kubelets) kubelet->AddImagePullFault(fault.image);
  const std::string where = fault.node.empty() ? "" : " on " + fault.node;
  Record("ImagePullError " + fault.image + where + For(fault));
  if (fault.duration)
    events_.After(*fault.duration, [this, kubelets, glob = fault.image, where] {
      for (sim::Kubelet* kubelet : kubelets) kubelet->RemoveImagePullFault(glob);
      Record("ImagePullError " + glob + where + " ends");
    });
}

void FaultInjector::SlowNetwork(const FaultSpec& fault) {
  const std::string who = fault.node.empty() ? std::string("every node") : fault.node;
  sim::Network* network = sim_.network();
  if (!network) {
    Record("NetworkSlow " + who + " skipped: the simulation has no flow network");
    return;
  }
  std::vector<std::string> nodes;
  if (fault.node.empty()) {
    for (const auto& [name, spec] : cluster_.specs()) nodes.push_back(name);
  } else if (network->HasNode(fault.node)) {
    nodes.push_back(fault.node);
  } else {
    Record("NetworkSlow " + who + " skipped: no such node");
    return;
  }
  for (const auto& node : nodes) network->SetNodeNicFactor(node, fault.factor);
  Record("NetworkSlow " + who + " factor " + std::to_string(fault.factor) + For(fault));
  if (fault.duration)
    events_.After(*fault.duration, [this, nodes, who] {
      if (sim::Network* net = sim_.network())
        for (const auto& node : nodes) net->SetNodeNicFactor(node, 1);
      Record("NetworkSlow " + who + " ends");
    });
}

void FaultInjector::FailApiCalls(const FaultSpec& fault) {
  kube::FaultPlan plan = base_plan_;
  plan.conflict_rate = fault.conflict_rate;
  plan.error_rate = fault.error_rate;
  plan.timeout_rate = fault.timeout_rate;
  if (fault.latency > 0) plan.latency_min = plan.latency_max = fault.latency;
  sim_.SetApiFaults(plan);
  Record("ApiFaults conflicts " + std::to_string(fault.conflict_rate) + " errors " + std::to_string(fault.error_rate) +
         " timeouts " + std::to_string(fault.timeout_rate) + For(fault));
  if (fault.duration)
    events_.After(*fault.duration, [this] {
      sim_.SetApiFaults(base_plan_);
      Record("ApiFaults end");
    });
}

void FaultInjector::RestartOperator(const FaultSpec& fault) {
  if (!op_) {
    Record("OperatorRestart skipped: the operator is disabled");
    return;
  }
  op_->Restart(fault.duration);
  Record("OperatorRestart" + (fault.duration ? " down for " + FormatDuration(*fault.duration) : std::string()));
}

// The rule goes from the authorizer's policy (what the API would do once the edited role is stored);
// `for` puts it back where it was.
void FaultInjector::RemoveRbacRule(const FaultSpec& fault) {
  fakeapi::rbac::Authorizer* authorizer = sim_.authorizer();
  const std::size_t slash = fault.role.find('/');
  const std::string kind = fault.role.substr(0, slash), key = fault.role.substr(slash + 1);
  const auto* rules = authorizer ? authorizer->policy().RulesOf(kind, key) : nullptr;
  const std::string who = "RbacRuleRemoved " + fault.role + " rule " + std::to_string(fault.rule);
  if (!rules || fault.rule < 0 || static_cast<std::size_t>(fault.rule) >= rules->size()) {
    Record(who + " skipped: no such rule");
    return;
  }
  const fakeapi::rbac::PolicyRule removed = (*rules)[static_cast<std::size_t>(fault.rule)];
  authorizer->policy().RemoveRule(kind, key, static_cast<std::size_t>(fault.rule));
  Record(who + " " + fakeapi::rbac::CompactString(removed) + For(fault));
  if (fault.duration)
    events_.After(*fault.duration, [this, kind, key, rule = fault.rule, removed, who] {
      if (fakeapi::rbac::Authorizer* a = sim_.authorizer())
        a->policy().InsertRule(kind, key, static_cast<std::size_t>(rule), removed);
      Record(who + " restored");
    });
}

}  // namespace harness
