// The failure policy: what a failed or lost pod of a DGLJob means for the job, as a pure decision
// the reconcile pass carries out, and the pace of the restarts it decides.
//  - A failed partitioner (its pod, or with partitionerPlacement LauncherInit the launcher's
//    `partitioner` init container, which fails the launcher's pod) is retried while backoffLimit
//    allows; OOMKilled fails the job at once (PartitionerOOMKilled): a retry would fail the same way.
//  - A failed or lost launcher, worker or server breaks the whole DGL run (a DGL server cannot be
//    replaced alone): the stage restarts, the launcher with it (RestartScope::kStage).
//  - A failed or lost sampler or trainer of a tri-workload job needs only itself replaced and the
//    training started again: the launcher and the servers, with the partitions they loaded, stay
//    (RestartScope::kTrainers).
//  - A pod is lost when it disappeared during training (deleted, evicted) or when the node it is
//    bound to is not Ready (PodView::Lost): the node lifecycle controller marks a node NotReady
//    after nodeMonitorGracePeriod without a heartbeat (50 s), and from then on the pod is judged
//    exactly like a failed one (reasons ...Lost), without waiting for the taint manager to evict
//    it tolerationSeconds (300 s) later: a DGL run cannot go on without any of its pods, so the
//    wait would only hold every other GPU of the job idle.
// A replica's restartPolicy decides whether its failure is retried at all (Never; ExitCode: 1-127
// permanent). Each restart counts once against backoffLimit, however many pods it replaces. While
// the job is Restarting only the pods of the restart's epoch (created or adopted by it) are judged:
// a pod of an older epoch that failed or was lost is a remnant of the counted restart (it failed
// before, was stopped by the restart's deletion, or went down with the same node) and is only
// replaced; a pod of the restart that fails or is lost before the phase moves on is a new failure,
// counted like any other. A stage restart creates its pods only once every pod it replaced is gone
// (reconcile_pass.h), so its pods never land on a node that broke the run and is not marked yet.
#pragma once

#include "clock/clock.h"
#include "fakeapi/client/json.h"
#include "operator/api/types.h"
#include "operator/controller/job_pods.h"
#include "operator/controller/job_status.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace dgl {

// What a restart replaces. kStage: the launcher (and, unless the partitions live on a
// PersistentVolumeClaim, the partitioning) and every failed pod. kTrainers: only the failed or lost
// samplers and trainers; the launcher and the partitioner are adopted into the new restart epoch.
enum class RestartScope { kStage, kTrainers };
// The scope of a restart whose Restarting condition has `reason`.
RestartScope ScopeOfRestart(std::string_view reason);

struct FailureDecision {
  enum class Action { kNone, kFail, kRestart };
  Action action = Action::kNone;
  RestartScope scope = RestartScope::kStage;
  std::string reason;   // the condition reason (PartitionerOOMKilled, WorkerFailed, ...)
  std::string message;  // the condition message
  // "PodFailed" warnings for each failed pod, recorded before the phase change's own Event.
  std::vector<JobStatus::Event> pod_events;
};

struct FailureContext {
  const kube::Json& job;
  PartitionMode mode;
  const JobPods& pods;
  std::string prev_phase;      // the stored phase
  std::int64_t restart_count;  // restarts counted so far
  bool pvc;                    // the partitions live on a PersistentVolumeClaim
};

FailureDecision DecideOnFailures(const FailureContext& context);

// How long restart number `restart` (1 for the first) waits, from the moment it was decided,
// before it recreates the pods it replaced: kRestartBackoffBase doubled for each restart before
// it, at most kRestartBackoffMax (10 s, 20 s, 40 s, ... 6 min). These are the Kubernetes Job
// controller's pace for recreating failed pods: "an exponential back-off delay (10s, 20s, 40s ...)
// capped at six minutes" (kubernetes.io, Jobs, "Pod backoff failure policy"), DefaultJobBackOff =
// 10 s and MaxJobBackOff = 360 s in pkg/controller/job/job_controller.go (later releases call them
// DefaultJobPodFailureBackOff and MaxJobPodFailureBackOff and raised the cap to 10 minutes).
inline constexpr kube::Micros kRestartBackoffBase = 10 * kube::kSecond;
inline constexpr kube::Micros kRestartBackoffMax = 360 * kube::kSecond;
kube::Micros RestartBackoff(std::int64_t restart);

// Whether replica `replica_type`'s restartPolicy allows retrying a failure that ended in
// `terminated` (a container's terminated state; nullptr: evicted or lost, no exit code).
bool Retryable(const kube::Json& job, const char* replica_type, const kube::Json* terminated);

}  // namespace dgl
