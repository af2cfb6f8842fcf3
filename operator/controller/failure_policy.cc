#include "operator/controller/failure_policy.h"

namespace dgl {
namespace {

using nlohmann::json;
using Action = FailureDecision::Action;

// What failed and whether it may be retried, before backoffLimit has its say.
struct Failure {
  std::string reason, what;
  bool retryable = true;
};

FailureDecision Decide(const FailureContext& c, const Failure& failure, FailureDecision decision,
                       const std::string& on_restart) {
  const std::int64_t backoff = GetBackoffLimit(c.job);
  decision.reason = failure.reason;
  if (!failure.retryable) {
    decision.action = Action::kFail;
    decision.message = failure.what;
  } else if (c.restart_count >= backoff) {
    decision.action = Action::kFail;
    decision.message = failure.what + ": backoffLimit " + std::to_string(backoff) + " reached after " +
                       std::to_string(c.restart_count) + " restarts";
  } else {
    decision.action = Action::kRestart;
    decision.message = failure.what + on_restart;
  }
  return decision;
}

FailureDecision PartitionerFailed(const FailureContext& c, const PodView& partitioner) {
  const json& pod = partitioner.obj();
  const std::string pod_name = partitioner.Name();
  FailureDecision decision;
  decision.pod_events.push_back({"Warning", kEventPodFailed, "Pod " + pod_name + " failed: " + FailureDescription(pod)});
  if (OomKilled(pod)) {
    const std::string limit = MemoryLimit(pod);
    decision.action = Action::kFail;
    decision.reason = kReasonPartitionerOOMKilled;
    decision.message = "Partitioner " + pod_name + " was OOMKilled at its memory limit " +
                       (limit.empty() ? std::string("(none set)") : limit) +
                       "; a retry would fail the same way: raise the Partitioner memory limit";
    return decision;
  }
  Failure failure{kReasonPartitionerFailed, "Partitioner " + pod_name + " failed (" + FailureDescription(pod) + ")",
                  Retryable(c.job, kReplicaPartitioner, pod)};
  if (!failure.retryable) {
    failure.what += "; restartPolicy " + GetRestartPolicy(c.job, kReplicaPartitioner) + " does not retry it";
  }
  return Decide(c, failure, std::move(decision), "; restarting partitioning");
}

// A failed launcher or worker; the first one names the failure, every one gets a PodFailed Event.
Failure FailedRunPods(const FailureContext& c, FailureDecision& decision) {
  Failure failure;
  const auto& launcher = c.pods.launcher();
  if (launcher && launcher->Failed()) {
    const std::string how = FailureDescription(launcher->obj());
    failure = {kReasonLauncherFailed, "Launcher " + launcher->Name() + " failed (" + how + ")",
               Retryable(c.job, kReplicaLauncher, launcher->obj())};
    decision.pod_events.push_back({"Warning", kEventPodFailed, "Pod " + launcher->Name() + " failed: " + how});
  }
  for (const auto& [i, w] : c.pods.Indexed(kRoleWorker)) {
    if (!w.Failed()) continue;
    const std::string how = FailureDescription(w.obj());
    decision.pod_events.push_back({"Warning", kEventPodFailed, "Pod " + w.Name() + " failed: " + how});
    if (failure.reason.empty()) failure = {kReasonWorkerFailed, "Worker " + w.Name() + " failed (" + how + ")", true};
    failure.retryable = failure.retryable && Retryable(c.job, kReplicaWorker, w.obj());
  }
  return failure;
}

// Deleted or evicted under a running DGL job: the servers on it are gone.
Failure LostRunPods(const FailureContext& c) {
  const std::string name = kube::NameOf(c.job);
  const auto& workers = c.pods.Indexed(kRoleWorker);
  for (std::int64_t i = 0; i < c.pods.Wanted(kRoleWorker); ++i) {
    auto it = workers.find(i);
    if (it == workers.end() || it->second.terminating) {
      return {kReasonWorkerLost, "Worker " + WorkerName(name, i) + " disappeared during training",
              GetRestartPolicy(c.job, kReplicaWorker) != kRestartNever};
    }
  }
  const auto& launcher = c.pods.launcher();
  if (!launcher || launcher->terminating) {
    return {kReasonLauncherLost, "Launcher " + LauncherName(name) + " disappeared during training",
            GetRestartPolicy(c.job, kReplicaLauncher) != kRestartNever};
  }
  return {};
}

}  // namespace

bool Retryable(const json& job, const char* replica_type, const json& pod) {
  const std::string policy = GetRestartPolicy(job, replica_type);
  if (policy == kRestartNever) return false;
  if (policy == kRestartExitCode) {
    const json* t = TerminatedState(pod);
    if (t == nullptr) return true;  // evicted, node lost: no exit code, retryable
    const std::int64_t code = IntField(*t, {"exitCode"});
    return code == 0 || code >= 128;  // 1-127 permanent, 128-255 retryable
  }
  return true;
}

FailureDecision DecideOnFailures(const FailureContext& c) {
  if (c.prev_phase == kPhaseRestarting) return {};  // remnants of the counted restart
  if (c.pods.partitioner() && c.pods.partitioner()->Failed()) return PartitionerFailed(c, *c.pods.partitioner());

  FailureDecision decision;
  Failure failure = FailedRunPods(c, decision);
  if (failure.reason.empty() && c.prev_phase == kPhaseTraining) failure = LostRunPods(c);
  if (failure.reason.empty()) return decision;
  if (!failure.retryable) failure.what += "; its restartPolicy does not retry it";
  const std::string on_restart = c.pvc || !RunsPartitionerPod(c.mode)
                                     ? "; restarting training"
                                     : "; partitions lived on the launcher's emptyDir: partitioning again";
  return Decide(c, failure, std::move(decision), on_restart);
}

}  // namespace dgl
