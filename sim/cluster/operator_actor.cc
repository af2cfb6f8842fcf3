// The DGL operator as a simulated actor. See operator_actor.h.
#include "sim/cluster/operator_actor.h"

namespace sim {

OperatorActor::OperatorActor(Simulation& sim, OperatorActorOptions options)
    : Actor(sim, "dgl-operator"), options_(std::move(options)) {
  options_.controller.metrics = &metrics_;
  measured_ = std::make_unique<kube::MeasuredClient>(client(), metrics_, sim.engine().clock(), "simulation");
  SetIdentity(options_.identity);
}

OperatorActor::~OperatorActor() = default;

void OperatorActor::Start() { Boot(); }

void OperatorActor::Boot() {
  controller_ = std::make_unique<dgl::Controller>(*measured_, sim().engine().clock(), options_.controller);
  Micros latency = sim().options().watch_latency;
  // The notifier lives in the controller's informers: it dies with the controller.
  controller_->SetNotifier([this, latency] { WakeAt(Now() + latency); });
  auto status = controller_->Start();
  if (!status.ok()) Log("start: " + status.ToString());
  WakeAt(Now());
}

void OperatorActor::Restart(std::optional<Micros> downtime) {
  Log("restart: caches and work queue lost");
  if (controller_) reconciles_before_restarts_ += controller_->stats().reconciles;
  Cancel(wake_);
  wake_time_ = -1;
  controller_.reset();
  ++restarts_;
  After(downtime.value_or(options_.restart_delay), [this] { Boot(); });
}

bool OperatorActor::HasPendingWork() const { return !controller_ || IsPending(wake_); }

std::int64_t OperatorActor::reconciles() const {
  return reconciles_before_restarts_ + (controller_ ? controller_->stats().reconciles : 0);
}

void OperatorActor::WakeAt(Micros at) {
  if (!controller_) return;
  if (busy_) at = std::max(at, Now() + options_.reconcile_latency);
  if (IsPending(wake_) && wake_time_ <= at) return;
  Cancel(wake_);
  wake_time_ = at;
  wake_ = At(at, [this] { Wake(); });
}

void OperatorActor::Wake() {
  wake_time_ = -1;
  if (!controller_) return;
  busy_ = true;
  bool worked = controller_->ProcessNext();
  busy_ = false;
  if (!controller_) return;
  Micros delay = faulty_client().TakeLatency();
  if (worked) {
    // One reconcile at a time, each taking reconcile_latency (plus any API latency it met).
    WakeAt(Now() + options_.reconcile_latency + delay);
    return;
  }
  if (auto next = controller_->NextWakeTime()) {
    // NextWakeTime is in API time (epoch-based); the engine counts from the run's start.
    Micros at = *next - sim().engine().epoch();
    WakeAt(std::max(at, Now() + delay));
  }
}

}  // namespace sim
