// The simulation context and the actor base. See simulation.h.
#include "sim/cluster/simulation.h"

#include <algorithm>

namespace sim {

Simulation::Simulation(SimulationOptions options)
    : options_(options), engine_(options.epoch), trace_(options.trace), streams_(options.seed) {
  store_ = std::make_unique<fakeapi::Store>(fakeapi::StoreOptions{
      .clock = &engine_.clock(), .history_limit = options_.history_limit, .history_fresh = options_.history_fresh,
      .history_min = options_.history_min, .synchronous_gc = options_.synchronous_gc});
  if (options_.audit) options_.audit->SetClock(&engine_.clock());
  if (options_.audit)
    user_client_ = std::make_unique<fakeapi::AuditingClient>(*store_, store_->registry(), *options_.audit, "system:admin");
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

// Members die in the reverse order of their declaration (see simulation.h).
Simulation::~Simulation() = default;

void Simulation::ScheduleGarbageCollection() {
  if (events_.IsPending(gc_event_)) return;
  gc_event_ = events_.After(options_.gc_latency, [this] {
    store_->CollectGarbage();
    if (store_->HasPendingGarbage()) ScheduleGarbageCollection();
  });
}

Network& Simulation::EnableNetwork(NetworkConfig config) {
  if (!network_) network_ = std::make_unique<Network>(engine_, config);
  return *network_;
}

Actor* Simulation::FindActor(std::string_view name) const {
  for (Actor* a : actors_)
    if (a->name() == name) return a;
  return nullptr;
}

void Simulation::AdoptActor(std::unique_ptr<Actor> actor) {
  owned_.list.push_back(std::move(actor));
  if (started_) owned_.list.back()->Start();
}

void Simulation::Register(Actor* actor) { actors_.push_back(actor); }

void Simulation::Unregister(Actor* actor) {
  // Actors die in the reverse order of their birth, so the search ends at once.
  auto it = std::find(actors_.rbegin(), actors_.rend(), actor);
  if (it != actors_.rend()) actors_.erase(std::next(it).base());
}

bool Simulation::AnyActorHasPendingWork() const {
  return std::any_of(actors_.begin(), actors_.end(), [](const Actor* a) { return a->HasPendingWork(); });
}

void Simulation::Start() {
  if (started_) return;
  started_ = true;
  // Actors added while starting start themselves (AdoptActor); iterate by index for that reason.
  for (std::size_t i = 0; i < actors_.size(); ++i) actors_[i]->Start();
}

void Simulation::SetApiFaults(const kube::FaultPlan& plan) {
  for (Actor* a : actors_) a->faulty_client().SetPlan(plan);
}

void Simulation::DropWatches() { store_->DropWatches(); }

void Simulation::EnableAuthorization(fakeapi::rbac::Policy policy) {
  authorizer_ = std::make_unique<fakeapi::rbac::Authorizer>(std::move(policy));
  authorizer_->SetStore(store_.get());
  for (Actor* a : actors_) a->authorizing_client().SetAuthorizer(authorizer_.get());
}

void Simulation::OnRefusal(const Actor& actor, const kube::Status& status) {
  std::string line = actor.name() + ": " + status.message();
  trace_.Record(engine_.Now(), "auth", line);
  ++refusal_count_;
  if (refusals_.size() < kMaxRefusalsKept && std::find(refusals_.begin(), refusals_.end(), line) == refusals_.end())
    refusals_.push_back(std::move(line));
}

Actor::Actor(Simulation& sim, std::string name) : sim_(sim), name_(std::move(name)), events_(sim.engine()) {
  // store <- authorizing (RBAC, as the actor's identity) <- auditing (with an audit log: 403s are
  // logged too) <- faulty (injected API faults).
  authorizing_ = std::make_unique<fakeapi::AuthorizingClient>(sim_.store(), sim_.store().registry(),
                                                              sim_.authorizer(), fakeapi::rbac::AdminUser());
  authorizing_->SetOnRefusal([this](const kube::Status& s) { sim_.OnRefusal(*this, s); });
  kube::Client* api = authorizing_.get();
  if (fakeapi::AuditLog* log = sim_.options().audit) {
    audited_ = std::make_unique<fakeapi::AuditingClient>(*authorizing_, sim_.store().registry(), *log,
                                                         fakeapi::IdentityOfActor(name_));
    api = audited_.get();
  }
  client_ = std::make_unique<kube::FaultyClient>(*api, sim_.Random("api-faults/" + name_).NextU64());
  sim_.Register(this);
}

Actor::~Actor() { sim_.Unregister(this); }

EventId Actor::After(Micros delay, std::function<void()> fn) {
  return events_.After(delay + client_->TakeLatency(), std::move(fn));
}

PumpedInformer::PumpedInformer(Simulation& sim, kube::Client& client, std::string resource,
                               kube::ListOptions filter, kube::InformerHandlers handlers)
    : events_(sim.engine()) {
  informer_ = std::make_unique<kube::Informer>(client, std::move(resource), std::move(filter));
  informer_->AddEventHandler(std::move(handlers));
  const Micros latency = sim.options().watch_latency;
  // The notifier runs inside some other actor's API call: it only schedules the delivery. It
  // lives in the informer, which dies with this object.
  informer_->SetNotifier([this, latency] {
    if (!stopped_) SchedulePump(latency);
  });
  informer_->Start();
  if (informer_->NeedsResync()) SchedulePump(kSecond);
}

PumpedInformer::~PumpedInformer() { Stop(); }

void PumpedInformer::Stop() {
  stopped_ = true;
  events_.CancelAll();
  informer_->Stop();
}

void PumpedInformer::SchedulePump(Micros delay) {
  if (events_.IsPending(pump_)) return;
  pump_ = events_.After(delay, [this] {
    informer_->Pump();
    // A handler may have stopped this informer (an actor resetting its informers): then it is
    // retired, not pumped again.
    if (!stopped_ && informer_->NeedsResync()) SchedulePump(kSecond);
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
  // A handler running inside one of these informers may be what called us: destroy them later (or
  // with this actor, whose events hold them).
  auto retired = std::make_shared<std::vector<std::unique_ptr<PumpedInformer>>>(std::move(informers_));
  informers_.clear();
  events_.After(0, [retired] { retired->clear(); });
}

void Actor::Log(std::string_view text) {
  std::string line = name_ + ": ";
  line += text;
  sim_.trace().Record(sim_.Now(), "actor", line);
}

}  // namespace sim
