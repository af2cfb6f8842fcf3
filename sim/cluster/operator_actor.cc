// The DGL operator as a simulated actor. See operator_actor.h.
#include "sim/cluster/operator_actor.h"

namespace sim {

OperatorActor::OperatorActor(Simulation& sim, OperatorActorOptions options)
    : Actor(sim, "dgl-operator"), options_(std::move(options)) {}

OperatorActor::~OperatorActor() {
  if (alive_) *alive_ = false;
  Cancel(wake_);
}

void OperatorActor::Start() { Boot(); }

void OperatorActor::Boot() {
  alive_ = std::make_shared<bool>(true);
  controller_ = std::make_unique<dgl::Controller>(client(), sim().engine().clock(), options_.controller);
  std::shared_ptr<bool> alive = alive_;
  Micros latency = sim().options().watch_latency;
  controller_->SetNotifier([this, alive, latency] {
    if (*alive) WakeAt(Now() + latency);
  });
  auto status = controller_->Start();
  if (!status.ok()) Log("start: " + status.ToString());
  WakeAt(Now());
}

void OperatorActor::Restart() {
  Log("restart: caches and work queue lost");
  if (controller_) reconciles_before_restarts_ += controller_->stats().reconciles;
  if (alive_) *alive_ = false;
  Cancel(wake_);
  wake_time_ = -1;
  controller_.reset();
  ++restarts_;
  After(options_.restart_delay, [this] { Boot(); });
}

std::int64_t OperatorActor::reconciles() const {
  return reconciles_before_restarts_ + (controller_ ? controller_->stats().reconciles : 0);
}

void OperatorActor::WakeAt(Micros at) {
  if (!controller_) return;
  if (busy_) at = std::max(at, Now() + options_.reconcile_latency);
  if (sim().engine().IsPending(wake_) && wake_time_ <= at) return;
  Cancel(wake_);
  wake_time_ = at;
  wake_ = sim().engine().ScheduleAt(at, [this] { Wake(); });
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
