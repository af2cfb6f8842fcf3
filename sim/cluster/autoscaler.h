// The Autoscaler is the simulated cluster-autoscaler: an actor that grows and shrinks node pools
// (node groups) by watching the API as the real one does. It never reads the scheduler's queues:
// a pod it scales up for is one the scheduler has marked PodScheduled=False, reason Unschedulable.
//
// A pool is a machine (a NodeTemplate: capacity, labels, taints, bandwidths) with a minimum and a
// maximum node count, a scale-up delay and optionally spot terms. Its nodes are named
// `<pool>-<k>` (k counts up from 0 and is never reused) and carry the labels dglsim.io/node-pool=<pool>
// and karpenter.sh/capacity-type=on-demand|spot besides the template's. AddMinimumNodes creates each
// pool's `min` nodes before the run; nodes above the minimum come and go with the queue.
//
// A scan (the real loop's iteration) runs at the next multiple of `scan_interval` after something
// it cares about happened: a pod became unschedulable, a pod on a pool node finished or went, a
// node was added, a timer it armed fell due. Nothing polls, so an idle cluster costs no events.
// A scan does, in order:
//   1. Scale-up. The unschedulable pods (by creation time, then namespace/name) are grouped in
//      units: a pod alone, or every pending pod of one coscheduling PodGroup (label or annotation
//      scheduling.x-k8s.io/pod-group): a gang scales up as a whole or not at all. Units that fit,
//      first-fit in node name order, on the free resources of Ready nodes and of nodes still being
//      provisioned are left to the scheduler (the real one's "filter out schedulable"). For the
//      rest, each pool with room under its maximum is an option: the units placed first-fit on the
//      room left on the cluster's nodes and then on as many new nodes of its machine as they need
//      (a gang may spread over both; a pod must fit: resources, its nodeSelector against the
//      node's labels, the node's NoSchedule / NoExecute taints tolerated; required node affinity
//      is not read). The expander picks one option: least-waste (default:
//      the least unused share of CPU and memory on the new nodes, the mean of the two, as
//      cluster-autoscaler's least-waste expander), or priority (the highest pool priority: its
//      priority expander); ties go to the pool listed first (the real ones draw at random). Its nodes are requested at once and each is
//      Ready `scale_up_delay` later (created in the API Ready, as the cluster's other nodes); one
//      pool is scaled per scan, as the real loop does, and units left over get another scan.
//   2. Scale-down. A pool node with no pod (none bound that is not Succeeded / Failed) is unneeded;
//      one unneeded for `scale_down_unneeded_time` (10 min, cluster-autoscaler's
//      --scale-down-unneeded-time) is removed, the pool never going below its minimum, and nothing
//      is removed within `scale_down_delay_after_add` (10 min, --scale-down-delay-after-add) of the
//      last scale-up. Only empty nodes are candidates: a DGL job's pods are owned by a custom
//      controller and use emptyDir volumes, which cluster-autoscaler's defaults
//      (--skip-nodes-with-custom-controller-pods, --skip-nodes-with-local-storage) never evict, so
//      the utilisation threshold (--scale-down-utilization-threshold 0.5) never decides anything
//      here and is not a setting. Removal cordons the node with the taint
//      ToBeDeletedByClusterAutoscaler:NoSchedule, checks a second later through the API that no pod
//      was bound meanwhile (else lifts the taint), and deletes the machine and its Node object.
//   3. Interrupted spot nodes whose pods are gone or being deleted: their Node objects are deleted.
//
// Spot pools: each node, once Ready, draws its time to interruption from an exponential of mean
// `mean_time_to_interruption`, from its own random stream ("spot/<node>"), so draws do not depend
// on one another. At that time it gets the notice: the taint
// aws-node-termination-handler/spot-itn:NoSchedule (no new pods; those running stay); `notice`
// later (two minutes, as EC2's interruption notice) the machine is gone (Cluster::NodeDown: its
// kubelet stops, the node lifecycle controller marks it NotReady after its grace period and the
// operator replaces the lost pods), and its Node object is deleted once its pods are gone or going.
//
// The observer hears every change of a pool node (requested, Ready, removed, notice, interrupted),
// synchronously: the owner builds a Ready node's kubelet and keeps the bills.
//
// HasPendingWork while a scan or a node is due (provisioning, a removal being checked) or a pool
// node above its minimum holds no live pod (its removal is owed), so a run lasts until the pools
// have shrunk back; a spot node's interruption timer is not pending work.
//
// Deterministic: pools in the order given, nodes and pods in name order, per-node random streams.
//
// REQUIRES: single-threaded use (an actor of a Simulation); the Cluster outlives it.
#pragma once

#include "fakeapi/client/json.h"
#include "fakeapi/client/status.h"
#include "sim/cluster/cluster.h"
#include "sim/cluster/scheduler.h"
#include "sim/cluster/simulation.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace sim {

// cluster-autoscaler's defaults (its --scan-interval, --scale-down-unneeded-time,
// --scale-down-delay-after-add), EC2's spot interruption notice, and ours for the time from a scale-up
// to a Ready node (provisioning, boot, kubelet registration: a few minutes on the clouds).
inline constexpr Micros kDefaultScanInterval = 10 * kSecond;
inline constexpr Micros kDefaultScaleDownUnneededTime = 10 * kMinute;
inline constexpr Micros kDefaultScaleDownDelayAfterAdd = 10 * kMinute;
inline constexpr Micros kDefaultScaleUpDelay = 3 * kMinute;
inline constexpr Micros kDefaultInterruptionNotice = 2 * kMinute;
// From cordoning an empty node to checking it is still empty and deleting it.
inline constexpr Micros kScaleDownCheckDelay = kSecond;

inline constexpr const char* kLabelNodePool = "dglsim.io/node-pool";
inline constexpr const char* kLabelCapacityType = "karpenter.sh/capacity-type";
inline constexpr const char* kTaintToBeDeleted = "ToBeDeletedByClusterAutoscaler";
inline constexpr const char* kTaintSpotInterruption = "aws-node-termination-handler/spot-itn";

struct NodePool {
  std::string name;
  NodeTemplate machine;  // capacity, labels, taints, bandwidths, CPU speed; its name and count are unused
  int min = 0;
  int max = 1;
  Micros scale_up_delay = kDefaultScaleUpDelay;
  int priority = 0;  // the priority expander's: the highest wins
  Micros mean_time_to_interruption = 0;  // > 0: a spot pool
  Micros interruption_notice = kDefaultInterruptionNotice;
  bool spot() const { return mean_time_to_interruption > 0; }
};

enum class Expander { kLeastWaste, kPriority };

struct AutoscalerOptions {
  std::vector<NodePool> pools;
  Expander expander = Expander::kLeastWaste;
  Micros scan_interval = kDefaultScanInterval;
  Micros scale_down_unneeded_time = kDefaultScaleDownUnneededTime;
  Micros scale_down_delay_after_add = kDefaultScaleDownDelayAfterAdd;
};

struct PoolNodeEvent {
  enum class Kind { kRequested, kReady, kRemoved, kNotice, kInterrupted };
  Kind kind = Kind::kRequested;
  std::string node;
  const NodePool* pool = nullptr;
};

class Autoscaler : public Actor {
 public:
  using Observer = std::function<void(const PoolNodeEvent&)>;
  Autoscaler(Simulation& sim, Cluster& cluster, AutoscalerOptions options, Observer observer = {});
  ~Autoscaler() override;

  // Creates every pool's minimum nodes now (before the run: they are then ordinary nodes to the
  // kubelets the owner builds). Stops at the first API error.
  kube::Status AddMinimumNodes();
  void Start() override;
  bool HasPendingWork() const override;

  const AutoscalerOptions& options() const { return options_; }
  // Nodes of `pool` requested and not removed or interrupted (provisioning included).
  int PoolSize(const std::string& pool) const;

 private:
  enum class State { kProvisioning, kReady, kDraining, kNotice, kInterrupted, kGone };
  struct PoolNode {
    const NodePool* pool = nullptr;
    State state = State::kProvisioning;
    std::optional<Micros> empty_since;
  };
  struct Bin;
  struct Unit;

  void OnPod(const kube::ObjectPtr& old_pod, const kube::ObjectPtr& pod);
  void OnPodGone(const kube::ObjectPtr& pod);
  // A scan at the next multiple of the scan interval from `not_before` (or now), unless one is due
  // by then.
  void RequestScan(Micros not_before = 0);
  void Scan();
  std::vector<Unit> PendingUnits() const;
  // The free resources of Ready, schedulable nodes and the whole of nodes being provisioned.
  std::vector<Bin> FreeBins(const std::map<std::string, Resources>& used) const;
  // Scales one pool up for `units`, which may also use the room left in `free`; true when some
  // units are left for another scan.
  bool ScaleUp(const std::vector<Unit>& units, const std::vector<Bin>& free);
  void ScaleDown(const std::map<std::string, int>& pods_on);
  void RequestNode(const NodePool& pool);
  void NodeReady(const std::string& name);
  void Cordon(const std::string& name);
  void RemoveIfStillEmpty(const std::string& name);
  void Notice(const std::string& name);
  void Interrupt(const std::string& name);
  void Notify(PoolNodeEvent::Kind kind, const std::string& node);
  kube::Status SetTaint(const std::string& node, const std::string& key, bool present);
  NodeTemplate MachineOf(const NodePool& pool) const;

  Cluster& cluster_;
  AutoscalerOptions options_;
  Observer observer_;
  std::map<std::string, PoolNode> nodes_;    // by name
  std::map<std::string, int> next_index_;    // per pool
  std::optional<Micros> last_scale_up_;
  std::optional<Micros> scan_at_;
  EventId scan_event_;
  int in_flight_ = 0;  // nodes provisioning or removals being checked
  kube::Informer* pods_ = nullptr;
  kube::Informer* nodes_informer_ = nullptr;
};

}  // namespace sim
