// The simulation context and the actor base. See simulation.h.
#include "sim/cluster/simulation.h"

#include <algorithm>

namespace sim {

Simulation::Simulation(SimulationOptions options)
    : options_(options), engine_(), trace_(options.trace), streams_(options.seed) {
  store_ = std::make_unique<fakeapi::Store>(fakeapi::StoreOptions{
      .clock = &engine_.clock(), .history_limit = options_.history_limit, .synchronous_gc = options_.synchronous_gc});
  store_->SetWriteObserver([this](const fakeapi::WriteRecord& w) {
    std::string line = std::string(w.verb) + " " + w.type->plural + " " + *w.key + " " +
                       std::to_string(w.resource_version);
    trace_.Record(engine_.Now(), "api", line);
    // A deletion may leave dependents or a namespace to clean up, and an object naming an owner
    // that is gone is garbage at once: wake the collector.
    bool deletion = w.event == kube::WatchEventType::kDeleted || std::string_view(w.verb) == "delete";
    if ((deletion || w.orphaned) && !options_.synchronous_gc) ScheduleGarbageCollection();
  });
}

Simulation::~Simulation() {
  // Actors hold informers on the store: they go first.
  actors_.clear();
  network_.reset();  // its flows' events live on the engine
}

void Simulation::ScheduleGarbageCollection() {
  if (engine_.IsPending(gc_event_)) return;
  gc_event_ = engine_.Schedule(options_.gc_latency, [this] {
    store_->CollectGarbage();
    if (store_->HasPendingGarbage()) ScheduleGarbageCollection();
  });
}

Network& Simulation::EnableNetwork(NetworkConfig config) {
  if (!network_) network_ = std::make_unique<Network>(engine_, config);
  return *network_;
}

Actor* Simulation::FindActor(std::string_view name) const {
  for (const auto& a : actors_)
    if (a->name() == name) return a.get();
  return nullptr;
}

void Simulation::AdoptActor(std::unique_ptr<Actor> actor) {
  actors_.push_back(std::move(actor));
  if (started_) actors_.back()->Start();
}

void Simulation::Start() {
  if (started_) return;
  started_ = true;
  // Actors added while starting start themselves (AdoptActor); iterate by index for that reason.
  for (std::size_t i = 0; i < actors_.size(); ++i) actors_[i]->Start();
}

void Simulation::SetApiFaults(const kube::FaultPlan& plan) {
  for (auto& a : actors_) a->faulty_client().SetPlan(plan);
}

void Simulation::DropWatches() { store_->DropWatches(); }

Actor::Actor(Simulation& sim, std::string name) : sim_(sim), name_(std::move(name)) {
  client_ = std::make_unique<kube::FaultyClient>(sim_.store(), sim_.Random("api-faults/" + name_).NextU64());
}

Actor::~Actor() = default;

EventId Actor::After(Micros delay, std::function<void()> fn) {
  return sim_.engine().Schedule(delay + client_->TakeLatency(), std::move(fn));
}

PumpedInformer::PumpedInformer(Simulation& sim, kube::Client& client, std::string resource,
                               kube::ListOptions filter, kube::InformerHandlers handlers)
    : engine_(sim.engine()) {
  informer_ = std::make_unique<kube::Informer>(client, std::move(resource), std::move(filter));
  informer_->AddEventHandler(std::move(handlers));
  std::shared_ptr<bool> alive = alive_;
  const Micros latency = sim.options().watch_latency;
  // The notifier runs inside some other actor's API call: it only schedules the delivery.
  informer_->SetNotifier([this, alive, latency] {
    if (*alive) SchedulePump(latency);
  });
  informer_->Start();
  if (informer_->NeedsResync()) SchedulePump(kSecond);
}

PumpedInformer::~PumpedInformer() { Stop(); }

void PumpedInformer::Stop() {
  *alive_ = false;
  engine_.Cancel(pump_);
  informer_->Stop();
}

void PumpedInformer::SchedulePump(Micros delay) {
  if (engine_.IsPending(pump_)) return;
  std::shared_ptr<bool> alive = alive_;
  pump_ = engine_.Schedule(delay, [this, alive] {
    if (!*alive) return;
    informer_->Pump();
    // A handler may have stopped this informer (an actor resetting its informers): then it is
    // retired, not pumped again.
    if (*alive && informer_->NeedsResync()) SchedulePump(kSecond);
  });
}

kube::Informer& Actor::AddInformer(std::string resource, kube::ListOptions filter,
                                      kube::InformerHandlers handlers) {
  informers_.push_back(
      std::make_unique<PumpedInformer>(sim_, *client_, std::move(resource), std::move(filter), std::move(handlers)));
  return informers_.back()->informer();
}

void Actor::ResetInformers() {
  for (auto& w : informers_) w->Stop();
  // A handler running inside one of these informers may be what called us: destroy them later.
  auto retired = std::make_shared<std::vector<std::unique_ptr<PumpedInformer>>>(std::move(informers_));
  informers_.clear();
  sim_.engine().Schedule(0, [retired] { retired->clear(); });
}

void Actor::Log(std::string_view text) {
  std::string line = name_ + ": ";
  line += text;
  sim_.trace().Record(sim_.Now(), "actor", line);
}

}  // namespace sim
