#include "operator/controller/reconcile_pass.h"

#include "operator/controller/builders.h"
#include "operator/controller/events.h"
#include "operator/controller/failure_policy.h"
#include "operator/controller/observed_phase.h"

#include <algorithm>
#include <utility>

namespace dgl {

using kube::Micros;
using kube::ObjectPtr;
using kube::Result;
using kube::Status;
using json = kube::Json;

namespace {

// replicaStatuses.Partitioner of a LauncherInit job: its init container in the launcher's pod.
json LauncherPartitionerStatus(const std::optional<PodView>& launcher) {
  std::string state;
  if (launcher && InitContainerSpec(launcher->obj(), kLauncherPartitioner) != nullptr) {
    state = InitContainerState(launcher->obj(), kLauncherPartitioner);
  }
  const bool active = launcher && launcher->Active() && (state.empty() || state == "running") &&
                      InitContainerSpec(launcher->obj(), kLauncherPartitioner) != nullptr;
  return {{"active", active ? 1 : 0},
          {"succeeded", state == "succeeded" ? 1 : 0},
          {"failed", state == "failed" ? 1 : 0},
          {"ready", std::string(state == "running" ? "1" : "0") + "/1"}};
}

std::map<std::string, std::int64_t> WantedIndexedPods(const json& job) {
  std::map<std::string, std::int64_t> wanted;
  for (const IndexedReplica& r : kIndexedReplicas) {
    if (const std::int64_t n = GetIndexedPods(job, r.type); n > 0) wanted[r.role] = n;
  }
  return wanted;
}

}  // namespace

ReconcilePass::ReconcilePass(Reconciler& reconciler, const ObjectPtr& job)
    : r_(reconciler),
      job_(job),
      ns_(kube::NamespaceOf(*job_)),
      name_(kube::NameOf(*job_)),
      now_(reconciler.clock_.Now()),
      mode_(GetPartitionMode(*job_)),
      placement_(GetPartitionerPlacement(*job_)),
      pvc_(PartitionsOnPersistentVolume(*job_)),
      status_(job_, now_),
      prev_phase_(status_.Phase()),
      restart_count_(IntField(status_.value(), {"restartCount"})),
      pods_(name_, WantedIndexedPods(*job_)) {}

Result<ReconcileResult> ReconcilePass::Run() {
  LoadPods();
  InitStatus();
  if (IsTerminalPhase(prev_phase_)) return Terminal();
  if (Status s = ForceDeleteStuckPods(); !s.ok()) return s;
  if (GetSuspend(*job_)) return Suspend();
  if (prev_phase_ == kPhaseSuspended) Resume();
  if (DeadlineExceeded() || ScheduleTimedOut() || LauncherSucceeded()) return Terminal();
  auto failed = HandleFailures();
  if (!failed.ok()) return failed.status();
  if (*failed) return Terminal();
  return Advance();
}

void ReconcilePass::InitStatus() {
  json& status = status_.value();
  status["observedGeneration"] = IntField(*job_, {"metadata", "generation"}, 1);
  if (FindField(status, {"startTime"}) == nullptr) status["startTime"] = kube::FormatTime(now_);
  if (FindField(status, {"restartCount"}) == nullptr) status["restartCount"] = 0;
  if (!status_.HasCondition(kConditionCreated)) {
    const std::string job_ref = "DGLJob " + ns_ + "/" + name_;
    status_.SetCondition(kConditionCreated, true, kReasonJobCreated, job_ref + " is created");
    status_.AddEvent("Normal", kReasonJobCreated, job_ref + " is created in " + ToString(mode_) + " mode");
  }
}

// Pods go (a Succeeded partitioner whose partitions sit on a PVC stays), phase Suspended.
Result<ReconcileResult> ReconcilePass::Suspend() {
  for (const PodView& pod : pods_.All()) {
    if (pod.terminating) continue;
    if (pods_.IsPartitioner(pod) && pod.Succeeded() && pvc_) continue;
    if (Status s = DeletePod(pod); !s.ok()) return s;
  }
  status_.SetPhase(kPhaseSuspended, kReasonJobSuspended, "runPolicy.suspend is true: pods deleted");
  ComputeReplicaStatuses();
  if (Status s = WriteStatus(); !s.ok()) return s;
  return Finish();
}

// Resumed: the deadline counts from now, as for a Kubernetes Job.
void ReconcilePass::Resume() {
  status_.value()["startTime"] = kube::FormatTime(now_);
  status_.SetCondition(kPhaseSuspended, false, kReasonJobResumed, "runPolicy.suspend is false: the current stage restarts");
}

bool ReconcilePass::DeadlineExceeded() {
  auto deadline_s = GetActiveDeadlineSeconds(*job_);
  if (!deadline_s) return false;
  auto start = kube::ParseTime(StringField(status_.value(), {"startTime"}));
  const Micros at = (start ? *start : now_) + *deadline_s * kube::kSecond;
  if (now_ >= at) {
    status_.Fail(kReasonDeadlineExceeded, "The job ran longer than activeDeadlineSeconds " + std::to_string(*deadline_s));
    return true;
  }
  Requeue(at - now_);
  return false;
}

// Unschedulable past schedulingPolicy.scheduleTimeoutSeconds fails the job.
bool ReconcilePass::ScheduleTimedOut() {
  auto timeout = GetSchedulingInt(*job_, "scheduleTimeoutSeconds");
  if (!timeout) return false;
  for (const PodView& pod : pods_.All()) {
    if (pod.terminating || pod.phase != "Pending" || !Unschedulable(pod.obj())) continue;
    auto since = kube::ParseTime(StringField(pod.obj(), {"metadata", "creationTimestamp"}));
    if (!since) continue;
    const Micros at = *since + *timeout * kube::kSecond;
    if (now_ >= at) {
      status_.Fail(kReasonUnschedulable, "Pod " + pod.Name() + " could not be scheduled within scheduleTimeoutSeconds " +
                                        std::to_string(*timeout));
      return true;
    }
    Requeue(at - now_);
  }
  return false;
}

bool ReconcilePass::LauncherSucceeded() {
  const auto& launcher = pods_.launcher();
  if (!launcher || !launcher->Succeeded()) return false;
  status_.SetPhase(kPhaseSucceeded, kReasonLauncherSucceeded, "The launcher " + launcher->Name() + " completed training");
  return true;
}

Result<bool> ReconcilePass::HandleFailures() {
  FailureDecision decision =
      DecideOnFailures({.job = *job_, .mode = mode_, .pods = pods_, .prev_phase = prev_phase_,
                        .restart_count = restart_count_, .pvc = pvc_});
  for (const auto& e : decision.pod_events) status_.AddEvent(e.type, e.reason, e.message);
  switch (decision.action) {
    case FailureDecision::Action::kNone:
      return false;
    case FailureDecision::Action::kFail:
      status_.Fail(decision.reason, decision.message);
      return true;
    case FailureDecision::Action::kRestart:
      if (Status s = BeginRestart(decision.reason, decision.message); !s.ok()) return s;
      return false;
  }
  return false;
}

// Starts a restart: epoch + 1 in status first (so a failed delete cannot count twice), and the
// time its back-off runs from.
Status ReconcilePass::BeginRestart(const std::string& reason, const std::string& message) {
  ++restart_count_;
  status_.value()["restartCount"] = restart_count_;
  status_.value()["lastRestartTime"] = kube::FormatTime(now_);
  status_.SetPhase(kPhaseRestarting, reason, message);
  return WriteStatus();
}

bool ReconcilePass::RestartBackoffPending() {
  auto since = kube::ParseTime(StringField(status_.value(), {"lastRestartTime"}));
  if (!since) return false;  // a restart begun before the field existed: no pause
  const Micros at = *since + RestartBackoff(restart_count_);
  if (now_ >= at) return false;
  Requeue(at - now_);
  return true;
}

Result<ReconcileResult> ReconcilePass::Advance() {
  const bool restarting = status_.Phase() == kPhaseRestarting;
  if (Status s = DeleteReplacedPods(); !s.ok()) return s;
  if (restarting) {
    // The restart's own pass only clears the way, so that Restarting is observable (status, Event)
    // even when the replaced pods vanish at once. Nothing is recreated before its back-off passed,
    // nor while a pod it replaces is still going (as the Job controller's podReplacementPolicy
    // Failed): a new launcher's watcher-loop would take a terminating worker, still Running until
    // its grace period ends, for one of the new run's.
    const bool first_pass = prev_phase_ != kPhaseRestarting;
    const bool waiting = RestartBackoffPending();
    const auto& all = pods_.All();
    const bool going = std::any_of(all.begin(), all.end(), [](const PodView& p) { return p.terminating; });
    if (first_pass || waiting || going) {
      ComputeReplicaStatuses();
      if (Status s = WriteStatus(); !s.ok()) return s;
      // A pod that goes wakes the job (its deletion event); the back-off's end is requeued.
      if (!waiting && !going) Requeue(kube::kMillisecond);
      return Finish();
    }
  }
  const bool workers_stage = WorkersStage();
  if (Status s = EnsureSupportObjects(workers_stage); !s.ok()) return s;
  auto complete = EnsurePods(workers_stage);
  if (!complete.ok()) return complete.status();
  // While replaced pods are still going, the phase stays Restarting.
  if (!restarting || *complete) UpdateObservedPhase(restarting);
  ComputeReplicaStatuses();
  if (Status s = WriteStatus(); !s.ok()) return s;
  return Finish();
}

// Phases only move forward within one run; going back takes a restart or a resume (the original
// bounced Partitioned -> Starting while workers came up).
void ReconcilePass::UpdateObservedPhase(bool restarting) {
  PhaseObservation observed = ObservePhase(mode_, placement_, pods_, PartitionsKept());
  const int from = PhaseProgress(prev_phase_), to = PhaseProgress(observed.phase);
  const bool regression = !restarting && from >= 0 && to >= 0 && from > to;
  if (!regression) status_.SetPhase(observed.phase, observed.reason, observed.message);
}

// The verdict first, then the cleanup, then the TTL.
Result<ReconcileResult> ReconcilePass::Terminal() {
  ComputeReplicaStatuses();
  if (Status s = WriteStatus(); !s.ok()) return s;
  if (Status s = CleanUpTerminal(); !s.ok()) return s;
  ComputeReplicaStatuses();
  if (Status s = WriteStatus(); !s.ok()) return s;
  if (Status s = DeleteJobAfterTtl(); !s.ok()) return s;
  return Finish();
}

Status ReconcilePass::DeleteJobAfterTtl() {
  auto ttl = GetTtlSecondsAfterFinished(*job_);
  if (!ttl) return Status::Ok();
  auto completed = kube::ParseTime(StringField(status_.value(), {"completionTime"}));
  const Micros at = (completed ? *completed : now_) + *ttl * kube::kSecond;
  if (now_ < at) {
    Requeue(at - now_);
    return Status::Ok();
  }
  kube::DeleteOptions options;
  options.propagation = kube::PropagationPolicy::kBackground;
  options.precondition_uid = kube::UidOf(*job_);
  auto deleted = r_.client_.Delete("dgljobs", ns_, name_, options);
  if (!deleted.ok() && !deleted.status().IsNotFound()) return deleted.status();
  r_.written_jobs_.erase(ns_ + "/" + name_);
  return Status::Ok();
}

Result<ReconcileResult> ReconcilePass::Finish() const {
  ReconcileResult result;
  result.requeue_after = requeue_;
  return result;
}

// Writes status if it changed (lastReconcileTime aside), then records the pending Events, only
// after the status they describe is stored, so a retried pass does not repeat them.
Status ReconcilePass::WriteStatus() {
  if (status_.Changed()) {
    status_.value()["lastReconcileTime"] = kube::FormatTime(now_);
    // A status update takes only the status (and the identity and version checked against the
    // stored job): kube-apiserver's status strategy copies everything else from the stored object,
    // and so does the fake store. Sending only those saves copying the whole job for each write.
    json object = kube::MakeObject("metadata", json::object(), "status", status_.TakeValue());
    for (const char* field : {"apiVersion", "kind"}) {
      if (auto it = job_->find(field); it != job_->end()) object[field] = *it;
    }
    if (auto meta = job_->find("metadata"); meta != job_->end() && meta->is_object()) {
      for (const char* field : {"name", "namespace", "uid", "resourceVersion"}) {
        if (auto it = meta->find(field); it != meta->end()) object["metadata"][field] = *it;
      }
    }
    auto result = r_.client_.UpdateStatus("dgljobs", std::move(object));
    if (!result.ok()) return result.status();
    r_.written_jobs_[ns_ + "/" + name_] = *result;
    job_ = *result;
    status_.Stored(job_);
  }
  for (const auto& e : status_.TakeEvents()) {
    // Best effort: a lost Event must not block the job.
    (void)RecordEvent(r_.client_, r_.clock_, r_.options_.component, *job_, e.type, e.reason, e.message);
  }
  return Status::Ok();
}

void ReconcilePass::Requeue(Micros delay) {
  delay = std::max<Micros>(delay, kube::kMillisecond);
  if (!requeue_ || delay < *requeue_) requeue_ = delay;
}

void ReconcilePass::ComputeReplicaStatuses() {
  json statuses = json::object();
  auto add = [&](const char* type, std::int64_t replicas, const std::vector<const PodView*>& pods) {
    std::int64_t active = 0, succeeded = 0, failed = 0, ready = 0;
    for (const PodView* p : pods) {
      if (p->Active()) ++active;
      if (p->Succeeded()) ++succeeded;
      if (p->phase == "Failed") ++failed;
      if (p->Ready()) ++ready;
    }
    // Members placed one by one: nlohmann's initializer-list constructor copies every value through
    // a json_ref and tests each element for being a pair, several times this cost, once per pass.
    json status = json::object();
    json::object_t& members = status.get_ref<json::object_t&>();
    members.reserve(4);
    members.emplace("active", active);
    members.emplace("failed", failed);
    members.emplace("ready", std::to_string(ready) + "/" + std::to_string(replicas));
    members.emplace("succeeded", succeeded);
    statuses.get_ref<json::object_t&>().insert_or_assign(type, std::move(status));
  };
  auto one = [](const std::optional<PodView>& p) {
    return p ? std::vector<const PodView*>{&*p} : std::vector<const PodView*>{};
  };
  add(kReplicaLauncher, 1, one(pods_.launcher()));
  for (const IndexedReplica& r : kIndexedReplicas) {
    if (pods_.Wanted(r.role) == 0) continue;
    std::vector<const PodView*> pods;
    for (const auto& [i, p] : pods_.Indexed(r.role)) pods.push_back(&p);
    add(r.type, pods_.Wanted(r.role), pods);
  }
  if (PartitionerPod()) add(kReplicaPartitioner, 1, one(pods_.partitioner()));
  if (PartitionerInLauncher()) statuses[kReplicaPartitioner] = LauncherPartitionerStatus(pods_.launcher());
  status_.value()["replicaStatuses"] = std::move(statuses);
}

}  // namespace dgl
