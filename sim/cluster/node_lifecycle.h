// The NodeLifecycleController is kube-controller-manager's node lifecycle controller with its
// NoExecute taint manager, as an actor:
// - a node whose heartbeat stopped (Cluster::NodeDown) more than node_monitor_grace_period ago
//   (50 s, Kubernetes 1.32) gets every condition set to Unknown (reason NodeStatusUnknown, "Kubelet
//   stopped posting node status."), the taints node.kubernetes.io/unreachable:NoExecute and
//   :NoSchedule, and its pods' Ready condition set to False;
// - the taint manager evicts (API delete, graceful) every pod on a node with a NoExecute taint it
//   does not tolerate at once, and a pod whose tolerations all carry tolerationSeconds after the
//   smallest of them, counted from the taint's timeAdded. With the default tolerations (300 s, added
//   by the Cluster's DefaultTolerationSeconds plugin) a pod leaves a dead node about 350 s after the
//   node died. Nobody confirms a deletion on a dead node, so the pod stays Terminating, as in a real
//   cluster;
// - a node whose Ready condition is True again (the heartbeat resumed) loses the not-ready and
//   unreachable taints; pending evictions of its pods are cancelled. A refused patch (a marking or
//   an untaint: conflicts, errors) is tried again 5 s later, as the real controller's next monitor
//   pass would, so a node never keeps a readiness taint it no longer has a reason for.
//
// The controller learns that a heartbeat stopped from the Cluster's liveness observer (the model of
// a Lease that is no longer renewed); everything else it reads from informers and writes to the API.
// A NotReady mark, a retry or an eviction it has scheduled is pending work (Actor::HasPendingWork).
//
// REQUIRES: single-threaded use; `cluster` outlives the controller.
#pragma once

#include "sim/cluster/cluster.h"
#include "sim/cluster/simulation.h"

#include <map>
#include <string>
#include <vector>

namespace sim {

// --node-monitor-grace-period of Kubernetes 1.32.
inline constexpr Micros kDefaultNodeMonitorGracePeriod = 50 * kSecond;

struct NodeLifecycleOptions {
  Micros node_monitor_grace_period = kDefaultNodeMonitorGracePeriod;
  bool mark_pods_not_ready = true;                  // MarkPodsNotReady on a node gone Unknown
};

struct NodeLifecycleStats {
  std::int64_t nodes_marked_not_ready = 0;
  std::int64_t nodes_recovered = 0;
  std::int64_t evictions = 0;
};

class NodeLifecycleController : public Actor {
 public:
  NodeLifecycleController(Simulation& sim, Cluster& cluster, NodeLifecycleOptions options = {},
                          std::string name = "node-lifecycle-controller");
  void Start() override;
  bool HasPendingWork() const override {
    return !monitor_checks_.empty() || !evictions_.empty() || !untaint_retries_.empty();
  }
  const NodeLifecycleStats& stats() const { return stats_; }
  // Simulated time at which a pod ("ns/name") is due to be evicted; -1 when none is pending.
  Micros EvictionTime(const std::string& pod_key) const;

 private:
  struct Eviction {
    EventId event;
    Micros at = 0;
  };
  void OnLiveness(const std::string& node, bool up, Micros last_heartbeat);
  void MarkNotReady(const std::string& node);
  void OnNode(const kube::ObjectPtr& node);
  void OnPod(const kube::ObjectPtr& pod);
  void CancelEviction(const std::string& pod_key);
  // Decides (or revises) the eviction of a pod given its node's NoExecute taints.
  void EvaluatePod(const kube::ObjectPtr& pod, const std::vector<Taint>& no_execute);
  void Evict(const std::string& pod_key);
  // Simulated time for an API time.
  Micros SimTime(Micros api_time) { return api_time - sim().engine().epoch(); }

  Cluster& cluster_;
  NodeLifecycleOptions options_;
  NodeLifecycleStats stats_;
  kube::Informer* nodes_ = nullptr;
  kube::Informer* pods_ = nullptr;
  std::map<std::string, EventId> monitor_checks_;                     // node -> grace expiry
  // node -> the retry of a refused untaint (Ready again, but the patch lifting its readiness taints
  // failed): 5 s later the node is looked at again, as the controller's next monitor pass would.
  std::map<std::string, EventId> untaint_retries_;
  std::map<std::string, std::vector<Taint>, std::less<>> no_execute_;  // node -> its NoExecute taints
  std::map<std::string, Eviction> evictions_;                         // pod key -> due eviction
};

}  // namespace sim
