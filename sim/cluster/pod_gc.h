// The PodGarbageCollector is the part of kube-controller-manager's pod garbage collector
// (pkg/controller/podgc, gcOrphaned) that deletes the pods of a Node object that was deleted, as an
// actor:
// - kube-controller-manager runs a pass every 20 s (gcCheckPeriod). A pass that finds pods bound
//   to a node its node informer does not have puts the node in quarantine for 40 s (quarantineTime);
//   the first pass after the quarantine asks the API for the node (GET), and when it is NotFound,
//   each pod bound to it that has not ended is patched to phase Failed with the condition
//   DisruptionTarget=True (reason DeletionByPodGC, "PodGC: node no longer exists"), then every pod
//   bound to it is deleted with grace period 0 (nobody is left to confirm a graceful deletion).
//   The pods go one after another, each deleted after its status patch came back: measured on the
//   loopback control plane (scripts/control-plane.sh, Kubernetes 1.34), the deletion 20 ms after
//   the patch and the next pod's patch 50 ms after the previous one's, so a controller watching
//   the pods sees each Failed before it is gone (a DGLJob's operator: a failed worker, not a lost one).
// - Here the passes are at the multiples of 20 s of simulated time (the controller started with
//   the cluster). A node's deletion, seen by the node informer, is found by the next pass; the
//   node's pods go 40 s after that pass: between 40 and 60 s after the deletion, as on a cluster.
//   Nothing polls: a deletion arms one check. A GET that fails for another reason than NotFound is
//   tried again at the next pass (the real controller's next loop).
// - Not modelled: the other collections of podgc (terminated pods over
//   --terminated-pod-gc-threshold, terminating pods on out-of-service nodes, unscheduled
//   terminating pods) and pods bound to a node that never existed.
// The actor acts as system:serviceaccount:kube-system:pod-garbage-collector (kube-controller-manager
// with --use-service-account-credentials), with the bootstrap policy's
// system:controller:pod-garbage-collector role. An armed check, or an orphan still to be marked or
// deleted, is pending work. A status patch the API refuses (but NotFound) arms another check of the
// node, as the next pass would find the pod again.
//
// REQUIRES: single-threaded use (an actor of a Simulation).
#pragma once

#include "sim/cluster/simulation.h"

#include <cstdint>
#include <map>
#include <string>

namespace sim {

inline constexpr Micros kPodGcCheckPeriod = 20 * kSecond;  // gcCheckPeriod
inline constexpr Micros kPodGcQuarantine = 40 * kSecond;   // quarantineTime
inline constexpr Micros kPodGcDeleteAfterPatch = 20 * kMillisecond;  // measured, see above
inline constexpr Micros kPodGcNextPod = 50 * kMillisecond;          // measured, see above

struct PodGcStats {
  std::int64_t orphans_deleted = 0;  // pods deleted because their node is gone
};

class PodGarbageCollector : public Actor {
 public:
  explicit PodGarbageCollector(Simulation& sim, std::string name = "pod-garbage-collector");
  void Start() override;
  bool HasPendingWork() const override { return !checks_.empty() || in_flight_ > 0; }
  const PodGcStats& stats() const { return stats_; }

 private:
  // The first pass at or after `t`.
  static Micros NextPass(Micros t);
  void OnNodeDeleted(const std::string& node);
  // The pass after the quarantine: is the node really gone? Then its pods go.
  void CheckNode(const std::string& node);
  // Marks the pod Failed unless it ended, then deletes it kPodGcDeleteAfterPatch later.
  void DeleteOrphan(const kube::ObjectPtr& pod, const std::string& node);
  void Delete(const std::string& ns, const std::string& name);

  PodGcStats stats_;
  int in_flight_ = 0;  // orphans whose patch or deletion is still to come
  std::map<std::string, EventId> checks_;  // node -> its check after the quarantine
};

}  // namespace sim
