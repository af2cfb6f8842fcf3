// ReconcilePass: one Reconcile of one DGLJob, from reading its pods to writing its status. It reads
// through the Reconciler's ObjectReader, writes through its Client, and carries out in order: the
// terminal cleanup of a finished job, force-deletion of pods stuck on NotReady nodes, suspension,
// the active deadline, the unschedulable timeout, success, the failure policy (failure_policy.h),
// the replacement of pods a restart replaces (a sampler or trainer restart adopts the launcher and
// partitioner into the new epoch instead), the support objects and pods of the current stage, and
// the phase the pods show (observed_phase.h). Internal to operator/controller: the Reconciler
// (reconciler.h) is the interface.
#pragma once

#include "fakeapi/client/status.h"
#include "operator/api/types.h"
#include "operator/controller/job_pods.h"
#include "operator/controller/job_status.h"
#include "operator/controller/reconciler.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
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
  kube::Status BeginRestart(const std::string& reason, const std::string& message);
  // Recreates what the stage needs and moves the phase to what the pods show.
  kube::Result<ReconcileResult> Advance();
  void UpdateObservedPhase(bool restarting);
  kube::Result<ReconcileResult> Terminal();
  kube::Status DeleteJobAfterTtl();
  kube::Result<ReconcileResult> Finish() const;
  kube::Status WriteStatus();
  void Requeue(kube::Micros delay);
  void ComputeReplicaStatuses();

  // ---- pods (pass_pods.cc) ----
  void LoadPods();
  kube::Status CreatePod(nlohmann::json pod);
  kube::Status DeletePod(const PodView& pod, std::optional<std::int64_t> grace = std::nullopt);
  // Whether the workers' stage has begun (its pods should exist): the partitioner succeeded (its
  // pod, or the launcher's init container), or the mode partitions on the workers.
  bool WorkersStage() const;
  // LauncherInit with the partitions on a PersistentVolumeClaim from an earlier run of this job: a
  // new launcher needs no partitioner init container.
  bool PartitionsReady() const;
  // Creates missing stage pods. Returns whether every stage pod now exists and is not terminating.
  kube::Result<bool> EnsurePods(bool workers_stage);
  kube::Status DeleteReplacedPods();
  // A sampler or trainer restart keeps the launcher and the partitioner: their restart-epoch
  // annotation moves to the new epoch instead.
  kube::Status AdoptIntoEpoch(const PodView& pod);
  kube::Status ForceDeleteStuckPods();
  kube::Status CleanUpTerminal();

  // ---- support objects (pass_objects.cc) ----
  // Creates `desired` when missing; when it exists and is the job's, corrects the owned fields
  // that drifted (copying it only then).
  kube::Status EnsureObject(const std::string& resource, nlohmann::json desired,
                            const std::vector<const char*>& owned_fields);
  // Creates the object named `name` from `build()` when missing; never changes an existing one.
  kube::Status EnsureCreated(const std::string& resource, const std::string& name,
                             const std::function<nlohmann::json()>& build);
  kube::Status EnsureSupportObjects(bool workers_stage);
  PodAddresses Addresses(bool workers_stage) const;
  std::int64_t StageSize(bool workers_stage) const;

  Reconciler& r_;
  nlohmann::json job_;
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
};

}  // namespace dgl
