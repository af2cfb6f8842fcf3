// The operator's metrics, on a kube::MetricsRegistry (docs/observability.md lists every series):
//
// - controller-runtime's controller series, labelled controller="dgljob"
//   (sigs.k8s.io/controller-runtime/pkg/internal/controller/metrics): controller_runtime_reconcile_total
//   {controller,result} with result success, error, requeue_after (all three at 0 from the start, as
//   controller-runtime initialises them), controller_runtime_reconcile_errors_total,
//   controller_runtime_reconcile_time_seconds (controller-runtime's buckets, 0.005 ... 60),
//   controller_runtime_max_concurrent_reconciles (1: one reconcile at a time) and
//   controller_runtime_active_workers (1 during a reconcile, else 0). The work queue's series come
//   from kube::WorkQueueMetrics under the same name.
// - DGLJob counters in the Kubeflow training operator's style (kubeflow/training-operator
//   pkg/common/metrics.go), labelled {job_namespace, framework="dgl", partition_mode} (the
//   partition mode added): training_operator_jobs_created_total (a job first seen with no status:
//   not yet taken up by any operator), _deleted_total (a job's delete seen), _successful_total and
//   _failed_total (a job's phase seen turning Succeeded / Failed), _restarted_total (each increase
//   of status.restartCount seen);
// - dgl_operator_jobs_running{job_namespace,framework,partition_mode}: jobs now Partitioning,
//   Partitioned, Training or Restarting in this operator's cache;
// - dgl_operator_job_stage_duration_seconds{job_namespace,framework,partition_mode,stage}: for stage
//   partitioning and training, how long a job was in that phase, observed when the operator sees it
//   leave the phase, from the phase condition's lastTransitionTime on entering and on leaving (so a
//   restarted operator still measures a stage its predecessor saw begin).
//
// Everything is seen through the DGLJob informer's events (ObserveJob), so the counts are the
// operator's view: a restarted operator recounts nothing it already counted (a job with a status
// is not "created" again), and counts in a registry that outlives it (the simulator's) carry on.
// A new ControllerMetrics clears dgl_operator_jobs_running: its informers' initial list rebuilds it.
//
// REQUIRES: called from the controller's thread (the registry itself is thread-safe).
#pragma once

#include "clock/clock.h"
#include "fakeapi/client/json.h"
#include "fakeapi/client/metrics.h"

#include <map>
#include <string>
#include <vector>

namespace dgl {

// The controller's name in metrics and logs (controller-runtime names it after the kind, lower case).
inline constexpr const char* kControllerName = "dgljob";
// The training operator's framework label for this operator's jobs.
inline constexpr const char* kFrameworkLabel = "dgl";

enum class ReconcileOutcome { kSuccess, kError, kRequeueAfter };

class ControllerMetrics {
 public:
  // Registers every family on `registry` (which must outlive this object).
  explicit ControllerMetrics(kube::MetricsRegistry& registry);

  void ReconcileStarted();
  void ReconcileFinished(ReconcileOutcome outcome, kube::Micros took);

  // A DGLJob informer event: `old_job` nullptr for an add, `new_job` nullptr for a delete.
  void ObserveJob(const kube::Json* old_job, const kube::Json* new_job);

 private:
  // {job_namespace, framework, partition_mode} of a job.
  static kube::LabelValues JobLabels(const kube::Json& job);
  void RecountRunning(const kube::LabelValues& labels);
  void ObserveStage(const kube::Json& old_job, const kube::Json& new_job);

  kube::MetricFamily& reconcile_total_;
  kube::MetricFamily& reconcile_errors_;
  kube::MetricFamily& reconcile_time_;
  kube::MetricFamily& max_concurrent_;
  kube::MetricFamily& active_workers_;
  kube::MetricFamily& created_;
  kube::MetricFamily& deleted_;
  kube::MetricFamily& successful_;
  kube::MetricFamily& failed_;
  kube::MetricFamily& restarted_;
  kube::MetricFamily& running_;
  kube::MetricFamily& stage_duration_;
  // Running jobs by key ("ns/name"), with their labels.
  std::map<std::string, kube::LabelValues> running_jobs_;
};

}  // namespace dgl
