// The Controller runs the Reconciler the way controller-runtime does: informers keep caches of
// DGLJobs and of the objects the operator owns (pods, ConfigMaps, Services, RBAC, PodGroups, all
// label-selected on training.kubeflow.org/job-name) plus Nodes; event handlers map each change to
// the owning job's key (through the controller ownerReference) and add it to a de-duplicating,
// rate-limited WorkQueue; ProcessNext() pops one key and reconciles it.
//
// It never sleeps and owns no thread: a host (the simulator's operator actor, or a real-time loop)
// calls Pump()/ProcessNext() and asks NextWakeTime() when to come back. Time comes only from the
// injected Clock. Errors (409 conflicts, API errors) requeue the key with per-key exponential
// back-off; a success Forgets the back-off and honours requeue_after. Dropped watches are resumed
// by the informers; a new Controller (an operator restart) rebuilds everything from lists.
//
// Metrics (ControllerOptions::metrics): controller-runtime's controller and work queue series and
// the DGLJob series of metrics.h, on a registry the host serves (dgl-operator's /metrics) or keeps
// (the simulator's). For logs, reconciling() names the key being reconciled while Reconcile runs
// and last_error() the error of the last failed reconcile.
//
// REQUIRES: external synchronization; the notifier may fire on any thread and must only schedule.
#pragma once

#include "fakeapi/client/client.h"
#include "clock/clock.h"
#include "fakeapi/client/client_metrics.h"
#include "fakeapi/client/informer.h"
#include "fakeapi/client/metrics.h"
#include "fakeapi/client/status.h"
#include "fakeapi/client/workqueue.h"
#include "operator/controller/metrics.h"
#include "operator/controller/reconciler.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

namespace dgl {

struct ControllerOptions {
  ReconcilerOptions reconciler;
  kube::WorkQueueOptions queue;
  // Only jobs in this namespace ("" = every namespace).
  std::string namespace_;
  // How soon to retry an informer whose list or watch failed.
  kube::Micros resync_retry = kube::kSecond;
  // Where to count (nullptr: no metrics). Must outlive the controller.
  kube::MetricsRegistry* metrics = nullptr;
};

struct ControllerStats {
  std::int64_t reconciles = 0;
  std::int64_t errors = 0;  // reconciles that returned an error and were requeued with back-off
  // Of those, the ones the API refused (403 Forbidden: a permission the operator's RBAC lacks).
  // Each is also a Warning Event "Forbidden" on the job naming the refused request, so that
  // `kubectl describe dgljob` says why the job does not move (if Events may still be written).
  std::int64_t forbidden = 0;
};

class Controller {
 public:
  // `client` and `clock` must outlive the controller.
  Controller(kube::Client& client, const kube::Clock& clock, ControllerOptions options = {});
  ~Controller();
  Controller(const Controller&) = delete;
  Controller& operator=(const Controller&) = delete;

  // Lists and watches every resource and enqueues every job. On an API error the informers are
  // started anyway and later Pump() calls retry; the first error is returned.
  kube::Status Start();
  // Installed on every informer: called when watch events are available.
  void SetNotifier(std::function<void()> notify);
  // Applies every pending watch event (enqueueing the affected jobs). Returns the changes applied.
  std::size_t Pump();
  // Pump(), then reconciles one ready key. Returns false when no key was ready.
  bool ProcessNext();
  // ProcessNext() until no key is ready now (or max_steps). Returns the reconciles made.
  std::size_t RunUntilIdle(std::size_t max_steps = 100'000);
  // When ProcessNext() next has work without a new watch event: now, a later time, or nullopt.
  std::optional<kube::Micros> NextWakeTime() const;

  kube::WorkQueue& queue() { return queue_; }
  const ControllerStats& stats() const { return stats_; }
  // The informer of `resource` (dgljobs, pods, configmaps, ...), nullptr if none.
  kube::Informer* informer(const std::string& resource);
  // Every informer has listed at least once (what a readiness probe waits for).
  bool HasSynced() const;
  // The key being reconciled ("" outside Reconcile), and the last failed reconcile's key and error.
  const std::string& reconciling() const { return reconciling_; }
  const std::string& last_error_key() const { return last_error_key_; }
  const kube::Status& last_error() const { return last_error_; }

 private:
  class CacheReader;

  void EnqueueOwner(const kube::ObjectPtr& object);
  void EnqueueJobsOnNode(const kube::ObjectPtr& node);

  kube::Client& client_;
  const kube::Clock& clock_;
  ControllerOptions options_;
  std::map<std::string, std::unique_ptr<kube::Informer>> informers_;
  std::unique_ptr<CacheReader> reader_;
  std::unique_ptr<Reconciler> reconciler_;
  std::unique_ptr<ControllerMetrics> metrics_;
  std::unique_ptr<kube::WorkQueueMetrics> queue_metrics_;
  kube::WorkQueue queue_;
  ControllerStats stats_;
  std::string reconciling_;
  std::string last_error_key_;
  kube::Status last_error_;
};

}  // namespace dgl
