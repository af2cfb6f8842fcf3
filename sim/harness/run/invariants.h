// The InvariantChecker checks every invariant of the registry (sim/harness/config/invariants.h),
// and nothing else does: an actor ("harness-invariants") with watches of its own on nodes, pods
// and dgljobs, plus the workload stages the runner's StageObserver forwards, plus CheckAtEnd.
//
// While the run goes:
// - nodeNotOvercommitted: on every binding (a pod first seen with spec.nodeName, not finished), the
//   requests of the pods bound to the node and not yet finished or deleted, against the node's
//   allocatable read from the API at that moment.
// - noPodOnNotReadyNode: on every binding, the node's Ready condition as the node watch last saw it.
//   Node and pod events come through watches with the same latency, so the order in which the
//   checker sees them is the order of the writes: a node that goes NotReady after its pods were
//   bound is no violation.
// - succeededOnlyIfLauncherSucceeded: a job entering Succeeded must have had a launcher pod seen
//   Succeeded before.
// - phasesMoveForward: on every phase change of a job (one object: a job deleted and created again
//   starts over), forward in the phase order, back only through Restarting / Suspended, never out
//   of Succeeded.
// - resourceVersionsIncrease: on every update of a job or a pod.
// - noTrainingBeforePartition: a pod of a job reports a "load" or "training" stage that begins
//   before the job's partitions reached it: the end of a "dispatch" stage of the same job no
//   earlier than the reporting pod's creation (a restarted job dispatches again to its new pods).
//   DistParMETIS partitions in place on the workers, so there the end of a "partition" stage counts
//   as delivery too. Skip-mode jobs (no partitions) and pods of no job are not checked.
// At the end (CheckAtEnd, once the recorder finished):
// - noObjectsAfterDelete: for every deleted job, no pod labelled with it and not its ConfigMap,
//   except objects still being deleted (pods on a dead node wait for a kubelet that never confirms).
// - jobsTerminalOrProgressing: every submitted job is terminal, deleted or suspended, or the run was
//   cut by `until` while its status changed within the last hour.
//
// Checks and violations go into the RunRecord (invariant_checks, invariant_violations), stamped
// with the simulated time the checker saw them, and each violation into the trace. A job's
// partition mode is read from the record (JobRecord::partition_mode, which the recorder fills in).
//
// REQUIRES: single-threaded use; `record` outlives the checker.
#pragma once

#include "fakeapi/client/json.h"
#include "sim/cluster/scheduler.h"
#include "sim/cluster/simulation.h"
#include "sim/harness/config/invariants.h"
#include "sim/harness/run/run_record.h"

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace harness {

class InvariantChecker : public sim::Actor {
 public:
  InvariantChecker(sim::Simulation& sim, RunRecord& record);

  void Start() override;

  // `pod` spent [begin, end) in `stage` (the runner's WorkloadObserver forwards every report).
  void OnStage(const kube::Json& pod, std::string_view stage, Micros begin, Micros end);
  // The end-of-run invariants, over the finished record and the API as it is now.
  void CheckAtEnd();
  // Pods the checker keeps something about (bound, checked or released and not yet deleted).
  std::size_t PodsTracked() const;

 private:
  struct NodeUse {
    sim::Resources used;
    std::map<std::string, sim::Resources> pods;  // uid -> requests
  };
  struct JobSeen {
    std::string phase;  // the last phase seen ("" = none yet)
  };

  void Checked(Invariant invariant);
  void Violation(Invariant invariant, const std::string& detail);

  void OnNode(const kube::Json& node);
  void OnPod(const kube::Json& pod);
  void OnPodGone(const kube::Json& pod);
  void OnJob(const kube::Json& job);
  void CheckVersion(const kube::Json& before, const kube::Json& after);
  void CheckBinding(const kube::Json& pod, const std::string& node);
  void CheckNodeReady(const kube::Json& pod, const std::string& node);
  void CheckOvercommit(const kube::Json& pod, const std::string& node);
  void Release(const std::string& uid);
  void CheckDeletedJobsLeftNothing();
  void CheckJobsTerminalOrProgressing();

  RunRecord& record_;
  std::map<std::string, std::string> node_ready_;  // node -> Ready condition status as last seen
  std::map<std::string, NodeUse> node_use_;        // node -> requests of the pods bound to it
  // By pod uid, looked up on every pod event and never walked in an order that shows: hashed.
  std::unordered_map<std::string, std::string> bound_;  // pod uid -> node, for pods bound and not released
  std::unordered_set<std::string> checked_;             // pod uids whose binding was checked
  std::unordered_set<std::string> released_;            // pod uids that finished or were deleted
  std::map<std::string, JobSeen> jobs_;            // by job uid
  std::set<JobKey> launcher_succeeded_;            // jobs with a launcher pod seen Succeeded
  // Job -> end times of the stages that delivered its partitions, in report order.
  std::map<JobKey, std::vector<Micros>> deliveries_;
};

}  // namespace harness
