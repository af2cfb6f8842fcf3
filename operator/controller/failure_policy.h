// The failure policy: what a failed or lost pod of a DGLJob means for the job, as a pure decision
// the reconcile pass carries out. A failed partitioner is retried while backoffLimit allows
// (OOMKilled fails the job at once: a retry would fail the same way); a failed or lost launcher or
// worker breaks the whole DGL run, which restarts while backoffLimit allows. A replica's
// restartPolicy decides whether its failure is retried at all (Never; ExitCode: 1-127 permanent).
// Nothing is decided while the job is Restarting: the remnants of a counted restart are not a new
// failure.
#pragma once

#include "operator/api/types.h"
#include "operator/controller/job_pods.h"
#include "operator/controller/job_status.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace dgl {

struct FailureDecision {
  enum class Action { kNone, kFail, kRestart };
  Action action = Action::kNone;
  std::string reason;   // the condition reason (PartitionerOOMKilled, WorkerFailed, ...)
  std::string message;  // the condition message
  // "PodFailed" warnings for each failed pod, recorded before the phase change's own Event.
  std::vector<JobStatus::Event> pod_events;
};

struct FailureContext {
  const nlohmann::json& job;
  PartitionMode mode;
  const JobPods& pods;
  std::string prev_phase;      // the stored phase
  std::int64_t restart_count;  // restarts counted so far
  bool pvc;                    // the partitions live on a PersistentVolumeClaim
};

FailureDecision DecideOnFailures(const FailureContext& context);

// Whether replica `replica_type`'s restartPolicy allows retrying the failure of `pod`.
bool Retryable(const nlohmann::json& job, const char* replica_type, const nlohmann::json& pod);

}  // namespace dgl
