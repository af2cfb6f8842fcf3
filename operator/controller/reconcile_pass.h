// ReconcilePass: one Reconcile of one DGLJob, from reading its pods (and the nodes they are bound
// to, to tell which are lost) to writing its status. It reads through the Reconciler's
// ObjectReader, writes through its Client, and carries out in order: the terminal cleanup of a
// finished job, force-deletion of pods stuck on NotReady nodes, suspension, the active deadline,
// the unschedulable timeout, success, the failure policy (failure_policy.h), the replacement of
// pods a restart replaces (a sampler or trainer restart adopts the launcher and partitioner into
// the new epoch instead), the restart's back-off (RestartBackoff, from status.lastRestartTime) and
// the end of every pod it replaces before anything is recreated, the support objects and pods of
// the current stage, and the phase the pods show (observed_phase.h). Internal to
// operator/controller: the Reconciler (reconciler.h) is the interface.
#pragma once

#include "fakeapi/client/json.h"
#include "fakeapi/client/status.h"
#include "operator/api/types.h"
#include "operator/controller/job_pods.h"
#include "operator/controller/job_status.h"
#include "operator/controller/reconciler.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace dgl {

class ReconcilePass {
 public:
  ReconcilePass(Reconciler& reconciler, const kube::ObjectPtr& job);
  kube::Result<ReconcileResult> Run();

 private:
  // ---- the steps of Run (reconcile_pass.cc) ----
  void InitStatus();
  kube::Result<ReconcileResult> Suspend();
  void Resume();
  bool DeadlineExceeded();
  bool ScheduleTimedOut();
  bool LauncherSucceeded();
  // Carries out the failure policy; true when the job became terminal.
  kube::Result<bool> HandleFailures();
  // Counts the restart and stamps status.lastRestartTime, from which its back-off runs.
  kube::Status BeginRestart(const std::string& reason, const std::string& message);
  // Whether the current restart's back-off has yet to pass (then requeued for its end).
  bool RestartBackoffPending();
  // Recreates what the stage needs and moves the phase to what the pods show.
  kube::Result<ReconcileResult> Advance();
  void UpdateObservedPhase(bool restarting);
  kube::Result<ReconcileResult> Terminal();
  kube::Status DeleteJobAfterTtl();
  kube::Result<ReconcileResult> Finish() const;
  // Writes the status through the status subresource when it changed, sending the status with the
  // job's apiVersion, kind, name, namespace, uid and resourceVersion only (the server keeps the
  // rest), then records the pending Events.
  kube::Status WriteStatus();
  void Requeue(kube::Micros delay);
  void ComputeReplicaStatuses();

  // ---- pods (pass_pods.cc) ----
  // Reads the job's pods, each marked lost when its node is NotReady (NodeNotReady, per pod).
  void LoadPods();
  // The node is NotReady (NodeNotReady of pod_state.h, remembered per node version held and not
  // read again while `nodes_changes`, the reader's Changes("nodes"), stays the same).
  bool NodeNotReady(const std::string& node, std::optional<std::uint64_t> nodes_changes);
  kube::Status CreatePod(kube::Json pod);
  kube::Status DeletePod(const PodView& pod, std::optional<std::int64_t> grace = std::nullopt);
  // Whether the workers' stage has begun (its pods should exist): the partitioner succeeded (its
  // pod, or the launcher's init container) or its partitions are kept, or the mode partitions on
  // the workers.
  bool WorkersStage() const;
  // The partitions are on the launcher's PersistentVolumeClaim from an earlier run of this job (it
  // reached Partitioned or Training): no partitioner runs again, in a pod or in a new launcher's
  // init container, and a new launcher waits for none.
  bool PartitionsOnClaim() const;
  // The current launcher already holds the partitions in its emptyDir: its watcher-loop-partitioner
  // ended, which it does only once the partitioner delivered them. A partitioner pod that is gone
  // since (evicted after it succeeded) need not run again until a restart replaces the launcher.
  bool PartitionsDelivered() const;
  bool PartitionsKept() const { return PartitionsOnClaim() || PartitionsDelivered(); }
  // Creates missing stage pods. Returns whether every stage pod now exists and is not terminating.
  kube::Result<bool> EnsurePods(bool workers_stage);
  // Deletes Failed and lost pods, and what a restart replaces: while a stage restart is in
  // progress, every launcher and indexed pod of an older epoch, so that the relaunched DGL run
  // starts on pods of its own; the partitioner of an older epoch when its partitions lived on the
  // replaced launcher's emptyDir.
  kube::Status DeleteReplacedPods();
  // A sampler or trainer restart keeps the launcher and the partitioner: their restart-epoch
  // annotation moves to the new epoch instead.
  kube::Status AdoptIntoEpoch(const PodView& pod);
  kube::Status ForceDeleteStuckPods();
  kube::Status CleanUpTerminal();

  // ---- support objects (pass_objects.cc) ----
  // Creates `name` from `build()` when missing; when it exists and is the job's, corrects the
  // `owned_fields` ("data", or "spec.x") that differ from their values in `owned` (copying it only
  // then). `owned` holds just those fields, so a pass that finds nothing to do builds no metadata.
  kube::Status EnsureObject(const std::string& resource, const std::string& name, const kube::Json& owned,
                            const std::vector<const char*>& owned_fields, const std::function<kube::Json()>& build);
  // Creates the object named `name` from `build()` when missing; never changes an existing one.
  kube::Status EnsureCreated(const std::string& resource, const std::string& name,
                             const std::function<kube::Json()>& build);
  // The ConfigMap, RBAC, Services and PodGroup of the stage. Skipped when the job's last pass left
  // them all as they should be against the same inputs (uid, generation, stage, addresses): found
  // in place, or written and returned with the owned fields it asked for; and none has changed since
  // (Reconciler::support_in_place_). When only the addresses differ, and none but perhaps the
  // ConfigMap has changed, the ConfigMap alone is checked (the only object built from them).
  kube::Status EnsureSupportObjects(bool workers_stage);
  // The ConfigMap with the hand-off files (hostfile, partition map) for `addresses`.
  kube::Status EnsureConfigMap(const PodAddresses& addresses);
  // The check itself, object by object (EnsureObject / EnsureCreated), noting in in_place_ the
  // resourceVersion of each it left as it should be and in support_unvouched_ whether one was not.
  kube::Status EnsureEachSupportObject(bool workers_stage, const PodAddresses& addresses);
  PodAddresses Addresses(bool workers_stage) const;
  std::int64_t StageSize(bool workers_stage) const;
  // RunsPartitionerPod and RunsPartitionerInLauncher (operator/api/types.h) of this pass's job, from
  // the mode and placement read once at its start (a pass writes the status, never the spec).
  bool PartitionerPod() const { return RunsPartitioner(mode_) && placement_ == PartitionerPlacement::kPod; }
  bool PartitionerInLauncher() const {
    return RunsPartitioner(mode_) && placement_ == PartitionerPlacement::kLauncherInit;
  }

  Reconciler& r_;
  kube::ObjectPtr job_;  // the job as read, or as this pass last wrote it: shared, never copied
  std::string ns_, name_;
  kube::Micros now_;
  PartitionMode mode_;
  PartitionerPlacement placement_;
  bool pvc_;
  JobStatus status_;
  std::string prev_phase_;
  std::int64_t restart_count_ = 0;
  JobPods pods_;
  std::optional<kube::Micros> requeue_;
  // While EnsureSupportObjects runs: the objects left as they should be (resource, name,
  // resourceVersion), and whether one was not (a write failed or came back otherwise, or a create
  // found the object already there).
  std::vector<std::tuple<std::string, std::string, std::string>> in_place_;
  bool support_unvouched_ = false;
};

}  // namespace dgl
