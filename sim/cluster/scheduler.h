// The Scheduler is the simulated kube-scheduler: an actor that watches unscheduled pods (field
// selector spec.nodeName=, schedulerName default-scheduler), the nodes, every pod and the Services
// (their selectors drive topology spreading), and binds one
// pod at a time through the API (POST pods/binding), taking `latency` of simulated time per decision.
//
// Filters, in kube-scheduler's plugin order, the first failing one giving a node's reason:
// NodeUnschedulable (spec.unschedulable), node readiness (Ready != True), TaintToleration
// (NoSchedule / NoExecute), NodeAffinity (nodeSelector and required node affinity), NodeResourcesFit
// (cpu, memory, ephemeral-storage, nvidia.com/gpu and other extended resources, pod count).
// Requests are the sum of the containers' requests (a limit stands in for a missing request), at
// least the largest init container's, plus spec.overhead.
//
// Scores, as kube-scheduler v1.34's default profile computes and weighs them (each plugin 0..100
// on the feasible nodes, times its weight, summed; pkg/scheduler/framework/plugins):
//   NodeResourcesFit (weight 1): LeastAllocated (or MostAllocated) over cpu and memory, weights 1
//     and 1, on the non-zero requests (100m / 200Mi for a container that requests nothing). GPUs
//     and other extended resources are not scored, as in the default scoringStrategy.
//   NodeResourcesBalancedAllocation (1): 100 x (1 - |cpu fraction - memory fraction| / 2) on the
//     actual requests; skipped for a pod that requests neither cpu nor memory.
//   TaintToleration (3): untolerated PreferNoSchedule taints, normalized reversed (fewest best).
//   NodeAffinity (2): the weights of the preferred node-affinity terms a node meets, normalized
//     to the best; skipped for a pod without preferred terms.
//   PodTopologySpread (2): the system default constraints (kubernetes.io/hostname maxSkew 3,
//     topology.kubernetes.io/zone maxSkew 5, ScheduleAnyway) with the selector of the Services
//     that select the pod, scored as the plugin does (matching pods x log(domains + 2) + maxSkew - 1,
//     normalized reversed); skipped for a pod no Service selects. ReplicaSets, StatefulSets and
//     ReplicationControllers are not read; pods placed tentatively in a gang do not count.
// Not modelled: ImageLocality (no node reports status.images here: 0 on every node in kube-scheduler
// too), InterPodAffinity (no pod here has pod affinity), VolumeBinding, NodePorts, DRA.
// Explain() returns these per-plugin scores for every node (the placement-comparison harness).
//
// Which nodes are looked at, as kube-scheduler's percentageOfNodesToScore: the nodes are kept in
// name order (kube-scheduler's list interleaves zones) and each decision scans them round-robin from where the previous one stopped, until
// it has found NumFeasibleNodesToFind(nodes, percentage) that pass the filters, or until every node
// has been looked at. The best score among those found wins; ties go to the first found
// (kube-scheduler picks among them at random; we stay deterministic). With kube-scheduler's
// adaptive share (percentage 0: 50 % less one point per 125 nodes, at least 5 % and 100 nodes) a
// decision on 10,000 nodes costs about 500 filter checks, not 10,000. Our default is 100 (every
// node, so ties go to the node whose name sorts first), not kube-scheduler's 0: we do not model its
// ImageLocality score, and without it a round-robin share spreads pods over nodes that lack their
// image (measured on the ten-times fleet week: image pulls 148 s -> 194 s a job on average).
//
// Every node looked at (the default) does not mean every node checked: nodes are also grouped by
// their state as the filters and the score read it (allocatable, requested, the non-zero requests,
// taints, unschedulable, readiness, whether it has a hostname label and its zone). Nodes in one
// state pass or fail alike and score alike, so a decision checks the first node, in name order, of
// each state and picks the best score, ties to the name that sorts first: the node a one-by-one
// scan would pick, at the cost of the number of states (a few dozen in a fleet of identical nodes)
// instead of the number of nodes. For a pod that topology spreading scores, the nodes holding pods
// its Services select (a job's few nodes) are judged each on its own, beside the first other node
// of each state. Node affinity and preferred node affinity (they read labels and names), gang
// placements (tentative requests), a share below 100 % and a
// scan that resumes mid-list (round-robin decisions before the cluster shrank below 100 nodes) look
// at the nodes one by one. The failure message's counts come from the states too.
//
// Per-node allocation is kept incrementally from the all-pods informer: a pod counts on its node
// from binding until it is deleted or reaches Succeeded / Failed. A bound pod counts at once (the
// scheduler's "assume"), before its watch event arrives.
//
// A pod that fits nowhere gets PodScheduled=False, reason Unschedulable, with kube-scheduler's
// message ("0/4 nodes are available: 4 Insufficient nvidia.com/gpu.") and waits in the unschedulable
// queue. Cluster events that could make it fit (a node added or changed, a pod deleted or finished,
// a PodGroup added or changed, the pod itself changed) move it back, after its back-off (1 s doubling
// per attempt up to 10 s: podInitialBackoff / podMaxBackoff); after max_unschedulable_duration (5
// min) it is retried anyway. Nothing polls. A binding the API refuses (any error, a 409 included)
// sends the pod back to the queue after its back-off, as kube-scheduler's failure handler does; a
// pod bound elsewhere or deleted leaves the queue when its watch event arrives.
//
// Gang scheduling (SchedulerConfig::gang), as the coscheduling plugin: pods labelled (or
// annotated) scheduling.x-k8s.io/pod-group=<name> belong to the PodGroup <name> of their namespace;
// its minMember pods are placed together on a tentative copy of the free resources and bound all
// together, or none is. A group that has not been placed within spec.scheduleTimeoutSeconds
// (default 60) of its first attempt gets the status condition ScheduleTimeout=True; its pods keep
// being retried.
//
// REQUIRES: single-threaded use (an actor of a Simulation).
#pragma once

#include "fakeapi/client/json.h"
#include "sim/cluster/cluster.h"
#include "sim/cluster/simulation.h"

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace sim {

enum class ScoringPolicy { kLeastAllocated, kMostAllocated };

struct SchedulerConfig {
  ScoringPolicy scoring = ScoringPolicy::kLeastAllocated;
  bool gang = false;                    // coscheduling PodGroups
  Micros latency = kMillisecond;        // per scheduling decision
  Micros latency_jitter = 200;          // plus uniform [0, jitter) from the actor's stream
  Micros initial_backoff = kSecond;     // podInitialBackoffSeconds
  Micros max_backoff = 10 * kSecond;    // podMaxBackoffSeconds
  Micros max_unschedulable_duration = 5 * kMinute;  // 0: only cluster events retry
  std::int64_t default_schedule_timeout_seconds = 60;  // coscheduling's permit wait
  // Share of the nodes to find feasible before choosing, 1..100; 0: kube-scheduler's adaptive
  // default. 100 (our default) looks at every node: see the header comment.
  int percentage_of_nodes_to_score = 100;
  // When every node is looked at: judge each distinct node state once (see the header comment).
  // false looks at the nodes one by one, with the same choices; tests compare the two.
  bool judge_nodes_by_state = true;
  std::string scheduler_name = "default-scheduler";
};

// Resources as exact integers: millicores, bytes, counts.
struct Resources {
  std::int64_t milli_cpu = 0;
  std::int64_t memory = 0;
  std::int64_t ephemeral_storage = 0;
  std::int64_t gpu = 0;
  std::int64_t pods = 0;
  std::map<std::string, std::int64_t> scalar;  // other extended resources
  void Add(const Resources& other, int sign = 1);
  friend auto operator<=>(const Resources&, const Resources&) = default;
};

// What a pod asks for, as NodeResourcesFit computes it.
struct PodRequests {
  Resources requests;        // pods = 1
  std::int64_t nonzero_milli_cpu = 0;  // for scoring
  std::int64_t nonzero_memory = 0;
};
PodRequests ComputePodRequests(const kube::Json& pod);

// One node's scores, per kube-scheduler plugin, weighted as kube-scheduler logs them at -v=10
// ("Plugin scored node for pod"); a skipped plugin (false *_scored) adds nothing.
struct ScoreBreakdown {
  std::int64_t fit = 0;        // NodeResourcesFit, weight 1
  std::int64_t balanced = 0;   // NodeResourcesBalancedAllocation, weight 1
  std::int64_t taint = 0;      // TaintToleration, weight 3
  std::int64_t affinity = 0;   // NodeAffinity, weight 2
  std::int64_t spread = 0;     // PodTopologySpread, weight 2
  bool balanced_scored = false;
  bool affinity_scored = false;
  bool spread_scored = false;
  std::int64_t Total() const { return fit + balanced + taint + affinity + spread; }
};

// What the scheduler would make of a pod on one node (Scheduler::Explain).
struct NodeVerdict {
  std::string node;
  bool fits = false;
  std::string reason;     // the first failing filter's reason when it does not fit
  ScoreBreakdown scores;  // when it fits, normalized over every node that fits
};
// What a node offers: status.allocatable (status.capacity when absent), pods 110 when unset.
Resources NodeAllocatable(const kube::Json& node);

// How many feasible nodes a decision looks for among `all` nodes (kube-scheduler's
// numFeasibleNodesToFind): `all` below 100; else `percentage` % of them (0: 50 - all/125, at
// least 5), at least 100.
std::size_t NumFeasibleNodesToFind(std::size_t all, int percentage);

struct SchedulerStats {
  std::int64_t attempts = 0;
  std::int64_t bound = 0;
  std::int64_t unschedulable = 0;   // failed attempts
  std::int64_t bind_errors = 0;
  std::int64_t gang_attempts = 0;
  std::int64_t nodes_evaluated = 0;  // filter checks made by decisions (not by failure messages)
};

class Scheduler : public Actor {
 public:
  Scheduler(Simulation& sim, SchedulerConfig config = {}, std::string name = "scheduler");
  ~Scheduler() override;
  void Start() override;

  const SchedulerConfig& config() const { return config_; }
  const SchedulerStats& stats() const { return stats_; }
  // Requests currently counted on a node (nullptr when the node is unknown).
  const Resources* Allocated(const std::string& node) const;
  // Pods waiting: in the active queue, backing off, or unschedulable.
  std::size_t PendingCount() const { return pending_.size(); }
  std::size_t UnschedulableCount() const;
  // Every node, in name order, judged for `pod` (an unbound pod object) against the state now: the
  // filters and the scores the next decision would compute if it looked at every node. Changes
  // nothing. For tools and tests (the placement comparison with kube-scheduler).
  std::vector<NodeVerdict> Explain(const kube::Json& pod) const;

 private:
  struct NodeInfo;
  struct NodeState;
  struct StateIndex;
  struct PendingPod;
  struct Constraints;
  struct GroupState;
  struct Tentative {
    struct Extra {
      Resources requests;
      std::int64_t nonzero_cpu = 0;
      std::int64_t nonzero_memory = 0;
    };
    std::map<std::string, Extra, std::less<>> by_node;
  };
  enum class QueueState { kActive, kBackoff, kUnschedulable, kInFlight };

  // Informer handlers.
  void OnNode(const kube::ObjectPtr& old_node, const kube::ObjectPtr& node);
  void OnNodeDeleted(const kube::ObjectPtr& node);
  void OnPendingPod(const kube::ObjectPtr& pod, bool changed);
  void OnPendingPodGone(const kube::ObjectPtr& pod);
  void OnPod(const kube::ObjectPtr& pod);
  void OnPodDeleted(const kube::ObjectPtr& pod);
  void OnPodGroup(const kube::ObjectPtr& group);

  // Accounting.
  void Account(const std::string& key, const kube::Json& pod);
  void Unaccount(const std::string& key);

  // Queues.
  void Activate(const std::string& key);
  void MoveAllToActiveOrBackoff(const char* event);
  void MoveToActiveOrBackoff(const std::string& key);
  void Kick();
  void ScheduleOne();
  Micros BackoffFor(int attempts) const;

  // Decisions.
  // With `reasons`, every failing filter's reason is appended; without, it stops at the first.
  bool PassesFilters(const NodeInfo& node, const PendingPod& pod, const Tentative::Extra* extra,
                     std::vector<std::string>* reasons) const;
  static bool NodeAdmits(const NodeInfo& node, const Constraints& c, std::vector<std::string>* reasons);
  static bool MatchesNodeAffinity(const NodeInfo& node, const Constraints& c);
  static bool ResourcesFit(const NodeInfo& node, const PendingPod& pod, const Tentative::Extra* extra,
                           std::vector<std::string>* reasons);
  // A node that passed the filters; judged by state, it stands for `nodes` nodes of its state.
  struct Candidate {
    const NodeInfo* node = nullptr;
    const Tentative::Extra* extra = nullptr;
    std::size_t nodes = 1;
  };
  // What topology spreading reads for one decision (nullopt: the plugin skips the pod).
  struct SpreadCounts;
  std::optional<SpreadCounts> SpreadFor(const PendingPod& pod) const;
  // Every candidate's scores, normalized over them all (see the header comment).
  std::vector<ScoreBreakdown> ScoreCandidates(const PendingPod& pod, const std::vector<Candidate>& candidates,
                                              const SpreadCounts* spread) const;
  // The index of the best total, ties to the earliest (`by_name`: to the name that sorts first).
  static std::size_t Best(const std::vector<Candidate>& candidates, const std::vector<ScoreBreakdown>& scores,
                          bool by_name);
  static void ParseConstraints(const kube::Json& pod, Constraints& c);
  // Best node for `pod`; with `tentative`, requests placed tentatively count as allocated. When
  // nothing fits, `histogram` gets each reason's node count.
  // Looks at nodes round-robin from next_start_node_ (see the header comment).
  std::optional<std::string> FindNode(const PendingPod& pod, const Tentative* tentative,
                                      std::map<std::string, int>* histogram);
  // The nodes in name order, rebuilt after a node is added or deleted.
  const std::vector<NodeInfo*>& NodeOrder();
  // Whether `pod`'s decision may judge nodes by their state (see the header comment).
  bool JudgedByState(const PendingPod& pod, const Tentative* tentative, std::size_t to_find, std::size_t all) const;
  const NodeInfo* BestByState(const PendingPod& pod, std::map<std::string, int>* histogram);
  // A node leaves its state's group before a change of what the filters and score read, and joins
  // its new one after.
  void Ungroup(NodeInfo& info);
  void Group(NodeInfo& info);
  void SchedulePod(const std::string& key);
  // `group_key` by value: binding erases the pending pod whose field the caller passes.
  void ScheduleGang(const std::string& key, std::string group_key);
  bool Bind(const std::string& key, const std::string& node);
  void MarkUnschedulable(const std::string& key, const std::string& message);
  std::string FailureMessage(const std::map<std::string, int>& histogram) const;
  // Pod group "ns/name" of a pod, or "" (also "" when gang scheduling is off).
  std::string GroupOf(const kube::Json& pod) const;
  void StartGroupTimer(const std::string& group_key);
  void GroupTimedOut(const std::string& group_key);
  void GroupScheduled(const std::string& group_key, int scheduled);

  SchedulerConfig config_;
  SchedulerStats stats_;
  std::map<std::string, std::unique_ptr<NodeInfo>, std::less<>> nodes_;
  std::vector<NodeInfo*> order_;  // nodes_ in name order, for round-robin scans
  std::unique_ptr<StateIndex> states_;  // the nodes grouped by state
  bool order_stale_ = true;
  std::size_t next_start_node_ = 0;  // where the next decision's scan starts in order_
  // Bound, non-terminal pods: key -> (node, requests counted there).
  struct Accounted;
  std::map<std::string, std::unique_ptr<Accounted>> accounted_;
  std::map<std::string, std::unique_ptr<PendingPod>> pending_;
  // FIFO of (key, activation number); an entry whose pod was re-queued or left is skipped.
  std::deque<std::pair<std::string, std::uint64_t>> active_;
  std::uint64_t active_seq_ = 0;
  std::set<std::string> unschedulable_;  // pods waiting for a cluster event
  std::map<std::string, std::unique_ptr<GroupState>> groups_;
  kube::Informer* pending_informer_ = nullptr;
  kube::Informer* pod_informer_ = nullptr;
  kube::Informer* group_informer_ = nullptr;
  kube::Informer* service_informer_ = nullptr;
  EventId next_decision_;
  bool busy_ = false;
};

}  // namespace sim
