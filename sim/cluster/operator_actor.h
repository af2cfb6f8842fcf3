// The OperatorActor hosts the DGL operator's Controller inside the simulation, the way a
// Deployment hosts it in a cluster: it reads and writes only through its API client, wakes when
// its informers have events (after the watch latency) or when the work queue has a key due, and
// spends `reconcile_latency` of simulated time per reconcile, one key at a time.
//
// Restart() models an operator crash and restart: the controller, its caches and its work queue
// are thrown away and a new one starts from lists after `restart_delay` (or the downtime given).
//
// Metrics: the actor keeps one kube::MetricsRegistry for the whole run, so its controllers (one
// per incarnation) count where the previous one left off, as Prometheus's increase() sums a
// restarted process's counters; gauges start over with each incarnation. The API calls are counted
// under host="simulation" with their simulated duration. `dglsim serve` serves metrics().Expose()
// at /metrics and `dglsim run --metrics FILE` writes the last scrape.
//
// Pending work (Actor::HasPendingWork): while it is down, and while its work queue holds a key
// due later (a requeue-after the reconciler armed: ttlSecondsAfterFinished, activeDeadlineSeconds,
// scheduleTimeoutSeconds, a stuck pod's grace period) or a failed reconcile's retry.
#pragma once

#include "fakeapi/client/client_metrics.h"
#include "fakeapi/client/metrics.h"
#include "operator/controller/controller.h"
#include "sim/cluster/simulation.h"

#include <memory>
#include <optional>

namespace sim {

// Simulated time one reconcile takes.
inline constexpr Micros kDefaultReconcileLatency = 1 * kMillisecond;

struct OperatorActorOptions {
  Micros reconcile_latency = kDefaultReconcileLatency;
  Micros restart_delay = 5 * kSecond;  // a new pod of the operator's Deployment becomes ready
  dgl::ControllerOptions controller;
  // Who the operator is to the API: its Deployment's service account (deploy/operator.yaml).
  fakeapi::rbac::UserInfo identity = fakeapi::rbac::ServiceAccountUser("dgl-operator", "dgl-operator");
};

class OperatorActor : public Actor {
 public:
  OperatorActor(Simulation& sim, OperatorActorOptions options = {});
  ~OperatorActor() override;

  void Start() override;
  // Crash now; come back after `downtime` (default restart_delay) with empty caches.
  void Restart(std::optional<Micros> downtime = std::nullopt);
  bool HasPendingWork() const override;
  bool running() const { return controller_ != nullptr; }
  std::int64_t restarts() const { return restarts_; }
  std::int64_t reconciles() const;
  dgl::Controller* controller() { return controller_.get(); }
  // The operator's metrics (thread-safe to Expose() while the simulation is held still).
  kube::MetricsRegistry& metrics() { return metrics_; }

 private:
  void Boot();
  // Schedules Wake() at `at` unless a wake is already due no later.
  void WakeAt(Micros at);
  void Wake();

  OperatorActorOptions options_;
  kube::MetricsRegistry metrics_;
  std::unique_ptr<kube::MeasuredClient> measured_;
  std::unique_ptr<dgl::Controller> controller_;
  EventId wake_;
  Micros wake_time_ = -1;
  bool busy_ = false;  // inside a reconcile: its own writes must not schedule an earlier wake
  std::int64_t restarts_ = 0;
  std::int64_t reconciles_before_restarts_ = 0;
};

}  // namespace sim
