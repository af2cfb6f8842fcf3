// The FaultInjector applies a scenario's faults to a running simulation, at a time (`at`) or when a
// job first enters a phase (`when {job, phase}`) plus `after`; a fault with `for` is undone after
// that long. What each kind does:
// - NodeDown (node, or nodeOf a pod: the node the pod is bound to when the fault fires):
//   Cluster::NodeDown (heartbeat stops; the kubelet, through the liveness observer, loses its
//   containers); with `for`, Cluster::NodeUp after it. NodeUp: Cluster::NodeUp.
// - NodeDeleted (node, or nodeOf a pod), the machine gone for good and its Node object deleted, as an
//   administrator's `kubectl delete node` or a cloud provider's node controller does: Cluster::NodeDown
//   (the kubelet and its containers stop), then a DELETE of the Node as the user (system:admin in
//   the audit log). Its pods stay bound to the missing node until the pod garbage collector
//   (sim/cluster/pod_gc.h) marks them Failed (DisruptionTarget) and deletes them, 40 to 60 s later.
//   A deleted node never comes back: a later NodeUp or NodeDown of it is skipped.
// - PodKill: the pod's kubelet kills the container (Kubelet::KillContainer) with exitCode, reason
//   Error (Completed for 0). OOM: the same with reason OOMKilled.
// - ImagePullError: the kubelet of `node` (every kubelet when none is named) fails pulls of images
//   matching the glob, until `for` ends.
// - ApiFaults: Simulation::SetApiFaults with the conflict / error / timeout rates and latency, until
//   `for` ends (then the scenario's base plan: api.requestLatency only).
// - WatchDrop: Simulation::DropWatches. OperatorRestart: OperatorActor::Restart; the operator is down
//   for `for` (default: OperatorActorOptions::restart_delay, 5 s), then starts over from lists.
// - NetworkSlow (node, or every node when none is named): the node's NIC capacity in the flow
//   network (sim/network/network.h) times `factor`, both directions, so its transfers and image pulls slow
//   down; with `for`, the factor goes back to 1 after it. Skipped without a network.
// Every applied fault is written to the trace (category "fault") and to a log the report prints; a
// fault that cannot apply (unknown pod, no running container, operator disabled) is logged as skipped.
//
// REQUIRES: single-threaded use; every reference outlives the injector.
#pragma once

#include "fakeapi/client/faulty_client.h"
#include "sim/harness/config/scenario.h"
#include "sim/kernel/owned_events.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace sim {
class Simulation;
class Cluster;
class Kubelet;
class OperatorActor;
}  // namespace sim

namespace harness {

class FaultInjector {
 public:
  FaultInjector(sim::Simulation& sim, sim::Cluster& cluster, std::map<std::string, sim::Kubelet*> kubelets,
                sim::OperatorActor* op, kube::FaultPlan base_plan = {});

  // Schedules the `at` faults. Call once, before the run.
  void Schedule(const std::vector<FaultSpec>& faults);
  // A job entered a phase: fires the `when` faults waiting for it (each at most once).
  void OnJobPhase(const JobKey& job, const std::string& phase);
  // Applies one fault now.
  void Apply(const FaultSpec& fault);

  const std::vector<std::string>& log() const { return log_; }

 private:
  void Record(const std::string& text);
  static std::string For(const FaultSpec& fault);
  // The kubelet of `node`, or of every node for "".
  std::vector<sim::Kubelet*> KubeletsOn(const std::string& node) const;
  // The node a NodeDown / NodeDeleted fault names (node, or the node of its nodeOf pod), or "" after
  // recording why it is skipped.
  std::string TargetNode(const FaultSpec& fault);
  void NodeDown(const FaultSpec& fault);
  void DeleteNode(const FaultSpec& fault);
  void NodeUp(const FaultSpec& fault);
  void KillPod(const FaultSpec& fault, const std::string& reason);
  void FailImagePulls(const FaultSpec& fault);
  void SlowNetwork(const FaultSpec& fault);
  void FailApiCalls(const FaultSpec& fault);
  void RestartOperator(const FaultSpec& fault);
  void RemoveRbacRule(const FaultSpec& fault);

  sim::Simulation& sim_;
  sim::Cluster& cluster_;
  std::map<std::string, sim::Kubelet*> kubelets_;
  sim::OperatorActor* op_;
  kube::FaultPlan base_plan_;
  std::vector<FaultSpec> triggered_;  // `when` faults
  std::set<std::size_t> fired_;       // indexes into triggered_
  std::set<std::string> deleted_;     // nodes a NodeDeleted took away
  std::vector<std::string> log_;
  sim::OwnedEvents events_;  // faults due and faults to undo; last: they die first
};

}  // namespace harness
