#include "operator/controller/failure_policy.h"

#include "operator/controller/builders.h"

#include <algorithm>
#include <optional>

namespace dgl {
namespace {

using json = kube::Json;
using Action = FailureDecision::Action;

// What failed and whether it may be retried, before backoffLimit has its say.
struct Failure {
  std::string reason, what;
  bool retryable = true;
  RestartScope scope = RestartScope::kStage;
};

// The condition reasons of a failed and of a lost pod of each indexed replica type.
struct RoleReasons {
  const char* type;
  const char* role;
  const char* failed;
  const char* lost;
};
constexpr RoleReasons kRoleReasons[] = {
    {kReplicaWorker, kRoleWorker, kReasonWorkerFailed, kReasonWorkerLost},
    {kReplicaServer, kRoleServer, kReasonServerFailed, kReasonServerLost},
    {kReplicaSampler, kRoleSampler, kReasonSamplerFailed, kReasonSamplerLost},
    {kReplicaTrainer, kRoleTrainer, kReasonTrainerFailed, kReasonTrainerLost}};

FailureDecision Decide(const FailureContext& c, const Failure& failure, FailureDecision decision,
                       const std::string& on_restart) {
  const std::int64_t backoff = GetBackoffLimit(c.job);
  decision.reason = failure.reason;
  decision.scope = failure.scope;
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

// A failed or lost pod the policy judges: any, except while the job is Restarting, when only the
// pods the restart created (or adopted) are: older ones failed before it was counted, were stopped
// by it, or went down with the loss it answers.
bool Judged(const FailureContext& c, const PodView& pod) {
  return pod.Down() && (c.prev_phase != kPhaseRestarting || pod.epoch >= c.restart_count);
}

// How the partitioner's container ended: its terminated state and memory limit.
struct PartitionerEnd {
  std::string how;      // "exit code 1 (Error)", "Evicted: ..."
  std::string pod_how;  // how the pod failed, for its PodFailed Event
  const json* terminated = nullptr;
  bool oom = false;
  std::string limit;
};

// `who` failed in pod `pod` (the partitioner pod, or the launcher whose init container it was).
FailureDecision PartitionerFailed(const FailureContext& c, const std::string& who, const json& pod,
                                  const PartitionerEnd& end) {
  FailureDecision decision;
  decision.pod_events.push_back({"Warning", kEventPodFailed, "Pod " + kube::NameOf(pod) + " failed: " + end.pod_how});
  if (end.oom) {
    decision.action = Action::kFail;
    decision.reason = kReasonPartitionerOOMKilled;
    decision.message = who + " was OOMKilled at its memory limit " +
                       (end.limit.empty() ? std::string("(none set)") : end.limit) +
                       "; a retry would fail the same way: raise the Partitioner memory limit";
    return decision;
  }
  Failure failure{kReasonPartitionerFailed, who + " failed (" + end.how + ")",
                  Retryable(c.job, kReplicaPartitioner, end.terminated)};
  if (!failure.retryable) {
    failure.what += "; restartPolicy " + GetRestartPolicy(c.job, kReplicaPartitioner) + " does not retry it";
  }
  return Decide(c, failure, std::move(decision), "; restarting partitioning");
}

// The partitioner pod failed, or (LauncherInit) the launcher's partitioner init container did.
std::optional<FailureDecision> PartitionerFailure(const FailureContext& c) {
  if (const auto& p = c.pods.partitioner(); p && Judged(c, *p)) {
    const json& pod = p->obj();
    if (p->Lost()) return PartitionerFailed(c, "Partitioner " + p->Name(), pod, {FailureDescription(*p), FailureDescription(*p)});
    return PartitionerFailed(c, "Partitioner " + p->Name(), pod,
                             {FailureDescription(pod), FailureDescription(pod), TerminatedState(pod), OomKilled(pod),
                              MemoryLimit(pod)});
  }
  const auto& launcher = c.pods.launcher();
  if (!launcher || !launcher->Failed() || !Judged(c, *launcher) ||
      InitContainerState(launcher->obj(), kLauncherPartitioner) != "failed") {
    return std::nullopt;
  }
  const json& pod = launcher->obj();
  PartitionerEnd end;
  end.terminated = InitContainerTerminated(pod, kLauncherPartitioner);
  if (end.terminated != nullptr) {
    const std::string reason = StringField(*end.terminated, {"reason"});
    end.how = "exit code " + std::to_string(IntField(*end.terminated, {"exitCode"})) +
              (reason.empty() ? "" : " (" + reason + ")");
    end.oom = reason == "OOMKilled";
  }
  end.pod_how = "init container " + std::string(kLauncherPartitioner) + " " + (end.how.empty() ? "failed" : end.how);
  const json* spec = InitContainerSpec(pod, kLauncherPartitioner);
  end.limit = spec != nullptr ? StringField(*spec, {"resources", "limits", "memory"}) : "";
  return PartitionerFailed(c, "Partitioner (init container " + std::string(kLauncherPartitioner) + " of " +
                                  launcher->Name() + ")",
                           pod, end);
}

RestartScope ScopeOfRole(const char* role) {
  const std::string_view r = role;
  return r == kRoleSampler || r == kRoleTrainer ? RestartScope::kTrainers : RestartScope::kStage;
}

std::string Capitalised(std::string_view role) {
  std::string out(role);
  if (!out.empty() && out[0] >= 'a' && out[0] <= 'z') out[0] = static_cast<char>(out[0] - 'a' + 'A');
  return out;
}

// How a judged pod of the run ended: "failed (exit code 1 (Error))" or "was lost with its node N
// (not Ready)".
std::string HowItEnded(const PodView& pod) {
  return pod.Lost() ? "was " + FailureDescription(pod) : "failed (" + FailureDescription(pod) + ")";
}

// Failed or lost launcher and indexed pods; the first one names the failure (stage-scope roles
// come first), every one gets a PodFailed Event.
Failure FailedRunPods(const FailureContext& c, FailureDecision& decision) {
  Failure failure;
  const auto& launcher = c.pods.launcher();
  if (launcher && Judged(c, *launcher)) {
    failure = {launcher->Lost() ? kReasonLauncherLost : kReasonLauncherFailed,
               "Launcher " + launcher->Name() + " " + HowItEnded(*launcher),
               Retryable(c.job, kReplicaLauncher, launcher->Lost() ? nullptr : TerminatedState(launcher->obj()))};
    decision.pod_events.push_back(
        {"Warning", kEventPodFailed, "Pod " + launcher->Name() + " failed: " + FailureDescription(*launcher)});
  }
  for (const RoleReasons& r : kRoleReasons) {
    for (const auto& [i, p] : c.pods.Indexed(r.role)) {
      if (!Judged(c, p)) continue;
      decision.pod_events.push_back({"Warning", kEventPodFailed, "Pod " + p.Name() + " failed: " + FailureDescription(p)});
      if (failure.reason.empty()) {
        failure = {p.Lost() ? r.lost : r.failed, Capitalised(r.role) + " " + p.Name() + " " + HowItEnded(p), true,
                   ScopeOfRole(r.role)};
      }
      failure.retryable = failure.retryable && Retryable(c.job, r.type, p.Lost() ? nullptr : TerminatedState(p.obj()));
    }
  }
  return failure;
}

// Deleted or evicted under a running DGL job: what ran on it is gone.
Failure LostRunPods(const FailureContext& c) {
  const std::string name = kube::NameOf(c.job);
  for (const RoleReasons& r : kRoleReasons) {
    const auto& pods = c.pods.Indexed(r.role);
    for (std::int64_t i = 0; i < c.pods.Wanted(r.role); ++i) {
      auto it = pods.find(i);
      if (it != pods.end() && !it->second.terminating) continue;
      return {r.lost, Capitalised(r.role) + " " + ReplicaPodName(name, r.role, i) + " disappeared during training",
              GetRestartPolicy(c.job, r.type) != kRestartNever, ScopeOfRole(r.role)};
    }
  }
  const auto& launcher = c.pods.launcher();
  if (!launcher || launcher->terminating) {
    return {kReasonLauncherLost, "Launcher " + LauncherName(name) + " disappeared during training",
            GetRestartPolicy(c.job, kReplicaLauncher) != kRestartNever};
  }
  return {};
}

std::string OnRestart(const FailureContext& c, RestartScope scope) {
  if (scope == RestartScope::kTrainers) return "; restarting the training: the servers keep their partitions";
  if (c.pvc || !RunsPartitioner(c.mode)) return "; restarting training";
  return "; partitions lived on the launcher's emptyDir: partitioning again";
}

}  // namespace

RestartScope ScopeOfRestart(std::string_view reason) {
  return reason == kReasonSamplerFailed || reason == kReasonSamplerLost || reason == kReasonTrainerFailed ||
                 reason == kReasonTrainerLost
             ? RestartScope::kTrainers
             : RestartScope::kStage;
}

bool Retryable(const json& job, const char* replica_type, const json* terminated) {
  const std::string policy = GetRestartPolicy(job, replica_type);
  if (policy == kRestartNever) return false;
  if (policy == kRestartExitCode) {
    if (terminated == nullptr) return true;  // evicted, node lost: no exit code, retryable
    const std::int64_t code = IntField(*terminated, {"exitCode"});
    return code == 0 || code >= 128;  // 1-127 permanent, 128-255 retryable
  }
  return true;
}

kube::Micros RestartBackoff(std::int64_t restart) {
  kube::Micros delay = kRestartBackoffBase;
  for (std::int64_t i = 1; i < restart && delay < kRestartBackoffMax; ++i) delay *= 2;
  return std::min(delay, kRestartBackoffMax);
}

FailureDecision DecideOnFailures(const FailureContext& c) {
  if (auto partitioner = PartitionerFailure(c)) return *partitioner;

  FailureDecision decision;
  Failure failure = FailedRunPods(c, decision);
  if (failure.reason.empty() && c.prev_phase == kPhaseTraining) failure = LostRunPods(c);
  if (failure.reason.empty()) return decision;
  if (!failure.retryable) failure.what += "; its restartPolicy does not retry it";
  return Decide(c, failure, std::move(decision), OnRestart(c, failure.scope));
}

}  // namespace dgl
