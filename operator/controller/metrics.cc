#include "operator/controller/metrics.h"

#include "fakeapi/client/client.h"
#include "fakeapi/client/json_path.h"
#include "operator/api/dgljob_api.h"

#include <optional>

namespace dgl {
namespace {

using kube::Json;

const std::vector<std::string> kJobLabelNames = {"job_namespace", "framework", "partition_mode"};

// controller-runtime's reconcile_time buckets.
const std::vector<double> kReconcileBuckets = {0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35,
                                               0.4,   0.45, 0.5,   0.6,  0.7, 0.8,  0.9, 1.0,  1.25, 1.5,
                                               1.75,  2.0,  2.5,   3.0,  3.5, 4.0,  4.5, 5,    6,    7,
                                               8,     9,    10,    15,   20,  25,   30,  40,   50,   60};

// Stages last seconds to days.
const std::vector<double> kStageBuckets = {1, 5, 10, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200, 14400, 28800,
                                           86400};

bool IsRunningPhase(const std::string& phase) {
  return phase == kPhasePartitioning || phase == kPhasePartitioned || phase == kPhaseTraining ||
         phase == kPhaseRestarting;
}

std::string PhaseOf(const Json& job) { return kube::JsonString(job, {"status", "phase"}); }

// When the condition `type` last changed status, from its lastTransitionTime.
std::optional<kube::Micros> TransitionTime(const Json& job, const char* type) {
  for (const Json& c : kube::JsonArray(job, {"status", "conditions"})) {
    if (kube::JsonString(c, {"type"}) != type) continue;
    return kube::ParseTime(kube::JsonString(c, {"lastTransitionTime"}));
  }
  return std::nullopt;
}

}  // namespace

ControllerMetrics::ControllerMetrics(kube::MetricsRegistry& r)
    : reconcile_total_(r.Counter("controller_runtime_reconcile_total", "Total number of reconciliations per controller",
                                 {"controller", "result"})),
      reconcile_errors_(r.Counter("controller_runtime_reconcile_errors_total",
                                  "Total number of reconciliation errors per controller", {"controller"})),
      reconcile_time_(r.Histogram("controller_runtime_reconcile_time_seconds",
                                  "Length of time per reconciliation per controller", {"controller"}, kReconcileBuckets)),
      max_concurrent_(r.Gauge("controller_runtime_max_concurrent_reconciles",
                              "Maximum number of concurrent reconciles per controller", {"controller"})),
      active_workers_(r.Gauge("controller_runtime_active_workers", "Number of currently used workers per controller",
                              {"controller"})),
      created_(r.Counter("training_operator_jobs_created_total", "Counts number of jobs created", kJobLabelNames)),
      deleted_(r.Counter("training_operator_jobs_deleted_total", "Counts number of jobs deleted", kJobLabelNames)),
      successful_(r.Counter("training_operator_jobs_successful_total", "Counts number of jobs successful",
                            kJobLabelNames)),
      failed_(r.Counter("training_operator_jobs_failed_total", "Counts number of jobs failed", kJobLabelNames)),
      restarted_(r.Counter("training_operator_jobs_restarted_total", "Counts number of jobs restarted", kJobLabelNames)),
      running_(r.Gauge("dgl_operator_jobs_running",
                       "DGLJobs now partitioning, partitioned, training or restarting, as this operator's cache has them",
                       kJobLabelNames)),
      stage_duration_(r.Histogram("dgl_operator_job_stage_duration_seconds",
                                  "How long DGLJobs stayed in a stage (partitioning, training), from the phase "
                                  "conditions' transition times, observed when a job leaves the stage",
                                  {"job_namespace", "framework", "partition_mode", "stage"}, kStageBuckets)) {
  for (const char* result : {"success", "error", "requeue_after"}) reconcile_total_.Touch({kControllerName, result});
  reconcile_errors_.Touch({kControllerName});
  reconcile_time_.Touch({kControllerName});
  max_concurrent_.Set({kControllerName}, 1);
  active_workers_.Set({kControllerName}, 0);
  running_.Clear();
}

void ControllerMetrics::ReconcileStarted() { active_workers_.Set({kControllerName}, 1); }

void ControllerMetrics::ReconcileFinished(ReconcileOutcome outcome, kube::Micros took) {
  active_workers_.Set({kControllerName}, 0);
  const char* result = outcome == ReconcileOutcome::kSuccess ? "success"
                       : outcome == ReconcileOutcome::kError ? "error"
                                                             : "requeue_after";
  reconcile_total_.Add({kControllerName, result});
  if (outcome == ReconcileOutcome::kError) reconcile_errors_.Add({kControllerName});
  reconcile_time_.Observe({kControllerName}, static_cast<double>(took) / 1e6);
}

kube::LabelValues ControllerMetrics::JobLabels(const Json& job) {
  return {kube::NamespaceOf(job), kFrameworkLabel, ToString(GetPartitionMode(job))};
}

void ControllerMetrics::RecountRunning(const kube::LabelValues& labels) {
  int n = 0;
  for (const auto& [key, l] : running_jobs_) n += l == labels ? 1 : 0;
  running_.Set(labels, n);
}

void ControllerMetrics::ObserveStage(const Json& old_job, const Json& new_job) {
  const std::string before = PhaseOf(old_job), after = PhaseOf(new_job);
  if (before == after) return;
  const char* stage = before == kPhasePartitioning ? "partitioning" : before == kPhaseTraining ? "training" : nullptr;
  if (stage == nullptr) return;
  auto entered = TransitionTime(old_job, before.c_str()), left = TransitionTime(new_job, before.c_str());
  if (!entered || !left || *left < *entered) return;
  kube::LabelValues labels = JobLabels(new_job);
  labels.push_back(stage);
  stage_duration_.Observe(labels, static_cast<double>(*left - *entered) / 1e6);
}

void ControllerMetrics::ObserveJob(const Json* old_job, const Json* new_job) {
  const Json& job = new_job != nullptr ? *new_job : *old_job;
  const kube::LabelValues labels = JobLabels(job);
  const std::string key = kube::KeyOf(job);
  if (new_job == nullptr) {
    deleted_.Add(labels);
  } else {
    const std::string phase = PhaseOf(*new_job);
    const std::string before = old_job != nullptr ? PhaseOf(*old_job) : "";
    // New to every operator: no status yet (or an empty one).
    const Json* status = kube::JsonAt(*new_job, {"status"});
    if (old_job == nullptr && (status == nullptr || status->empty())) created_.Add(labels);
    if (old_job != nullptr) {
      if (phase == kPhaseSucceeded && before != kPhaseSucceeded) successful_.Add(labels);
      if (phase == kPhaseFailed && before != kPhaseFailed) failed_.Add(labels);
      const std::int64_t restarts = kube::JsonInt(*new_job, {"status", "restartCount"});
      const std::int64_t restarts_before = kube::JsonInt(*old_job, {"status", "restartCount"});
      if (restarts > restarts_before) restarted_.Add(labels, static_cast<double>(restarts - restarts_before));
      ObserveStage(*old_job, *new_job);
    }
  }
  // The running gauge: the job's old label set (a changed partition mode) and new one.
  kube::LabelValues old_labels;
  if (auto it = running_jobs_.find(key); it != running_jobs_.end()) {
    old_labels = it->second;
    running_jobs_.erase(it);
  }
  if (new_job != nullptr && IsRunningPhase(PhaseOf(*new_job))) running_jobs_[key] = labels;
  if (!old_labels.empty() && old_labels != labels) RecountRunning(old_labels);
  RecountRunning(labels);
}

}  // namespace dgl
