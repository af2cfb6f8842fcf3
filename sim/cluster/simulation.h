// A Simulation is one run of the simulated cluster: it owns the engine (simulated time), the fake
// API server on the engine's clock, the event trace, the per-component random streams and the
// flow network, and it knows every actor. Every API write is recorded in the trace, so the trace
// hash covers what the cluster did.
//
// An Actor is one component of the cluster: the scheduler, a kubelet, the node lifecycle
// controller, the DGL operator. Actors share nothing but the API: they read through informers
// whose watch events reach them `watch_latency` after the write (as one batch), and write through
// their client. Work an actor does later is scheduled through After() / At(): the actor owns those
// events (sim/kernel/owned_events.h) and they are cancelled when it dies, so a callback may use
// the actor freely.
//
// An actor is registered with its Simulation for exactly as long as it lives. AddActor makes one
// the simulation owns (they die first when the simulation dies, the last added first); an owner
// that builds actors itself (the harness's World) must destroy them before the Simulation, which
// declaring them after it does.
//
// REQUIRES: single-threaded use (the engine runs one event at a time).
#pragma once

#include "fakeapi/client/faulty_client.h"
#include "fakeapi/client/informer.h"
#include "fakeapi/client/workqueue.h"
#include "fakeapi/server/audit_log.h"
#include "fakeapi/server/authorizing_client.h"
#include "fakeapi/server/rbac.h"
#include "fakeapi/server/store.h"
#include "sim/kernel/engine.h"
#include "sim/kernel/owned_events.h"
#include "sim/kernel/random.h"
#include "sim/kernel/trace.h"
#include "sim/network/network.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace sim {

using kube::kMillisecond;
using kube::kSecond;
constexpr Micros kMinute = 60 * kSecond;
constexpr Micros kHour = 60 * kMinute;

// From an API write to the watchers' handlers (a watch event's trip through the API server).
inline constexpr Micros kDefaultWatchLatency = 1 * kMillisecond;

struct SimulationOptions {
  std::uint64_t seed = 1;
  Micros watch_latency = kDefaultWatchLatency;
  std::size_t history_limit = 100'000;      // watch events kept per resource (at most, with history_fresh)
  kube::Micros history_fresh = 0;            // fakeapi::StoreOptions::history_fresh: 0 a fixed history
  std::size_t history_min = 100;             // and its lower bound
  // true: the API's garbage collector runs inside each write. false: it runs as its own actor
  // `gc_latency` after a write leaves garbage, as kube-controller-manager's does.
  bool synchronous_gc = false;
  Micros gc_latency = 100 * kMillisecond;
  Trace::Options trace;
  // The API time at simulated time 0 (Engine's epoch): what timestamps read, nothing else.
  Micros epoch = kube::ManualClock::kDefaultStart;
  // Where every actor's API calls (and UserClient()'s) are logged, as kube-apiserver's audit log
  // (fakeapi/server/audit_log.h), each actor under its identity (fakeapi::IdentityOfActor). Not
  // owned; it must outlive the simulation. Null: none.
  fakeapi::AuditLog* audit = nullptr;
};

class Actor;

class Simulation {
 public:
  explicit Simulation(SimulationOptions options = {});
  ~Simulation();
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  Engine& engine() { return engine_; }
  fakeapi::Store& store() { return *store_; }
  // The API as a user with kubectl sees it ("system:admin" in the audit log): the store, audited
  // when SimulationOptions::audit is set. What the harness submits, deletes and suspends goes here.
  kube::Client& UserClient() { return user_client_ ? *user_client_ : static_cast<kube::Client&>(*store_); }
  Trace& trace() { return trace_; }
  const SimulationOptions& options() const { return options_; }
  Micros Now() const { return engine_.Now(); }
  // The random stream of a component, derived from (seed, name): adding one perturbs no other.
  RandomStream& Random(std::string_view component) { return streams_.Get(component); }

  // Adds an actor, owned by the simulation. It starts at Start(), or at once if the run started.
  template <class T, class... Args>
  T& AddActor(Args&&... args) {
    auto actor = std::make_unique<T>(*this, std::forward<Args>(args)...);
    T& ref = *actor;
    AdoptActor(std::move(actor));
    return ref;
  }
  // nullptr when no live actor has that name.
  Actor* FindActor(std::string_view name) const;
  // Every live actor, owned here or not, in the order they were built.
  const std::vector<Actor*>& actors() const { return actors_; }

  // Starts every actor, in the order they were built. An actor built by its owner after Start()
  // is started by that owner.
  void Start();
  bool started() const { return started_; }
  std::uint64_t RunUntil(Micros time) { return engine_.RunUntil(time); }
  std::uint64_t RunUntilIdle() { return engine_.RunUntilIdle(); }

  // The cluster's flow network (sim/network/network.h), created on first use with `config`; later calls
  // return the same network and ignore `config`. It lives as long as the actors (they may hold
  // flows) and dies before the engine.
  Network& EnableNetwork(NetworkConfig config = {});
  // nullptr until EnableNetwork.
  Network* network() { return network_.get(); }

  // Faults on the API as seen by actors (not by the harness): conflicts, errors, timeouts,
  // latency. Applies to every actor's client from now on; FaultPlan{} switches them off.
  void SetApiFaults(const kube::FaultPlan& plan);
  // Ends every open watch, as a restarted API server would; informers resume or relist.
  void DropWatches();

  // Authorization (fakeapi/server/rbac.h): from now on every actor's call is authorized for the
  // actor's identity by `policy` and the RBAC objects stored in the API; a refusal is a 403 for the
  // actor and a trace line ("auth": "<actor>: <message>"). Allowed calls leave no trace: a run
  // whose every call is allowed is the run without authorization. Without it (the default) every
  // call passes.
  void EnableAuthorization(fakeapi::rbac::Policy policy);
  // nullptr until EnableAuthorization.
  fakeapi::rbac::Authorizer* authorizer() { return authorizer_.get(); }
  // The calls refused so far, and the first kMaxRefusalsKept distinct refusals as
  // "<actor>: <message>", in the order they happened.
  static constexpr std::size_t kMaxRefusalsKept = 100;
  std::int64_t refusal_count() const { return refusal_count_; }
  const std::vector<std::string>& refusals() const { return refusals_; }

  // Whether any actor still owes the cluster work it has armed a timer for (Actor::HasPendingWork):
  // a run is not over while one does.
  bool AnyActorHasPendingWork() const;

 private:
  friend class Actor;
  void OnRefusal(const Actor& actor, const kube::Status& status);
  void AdoptActor(std::unique_ptr<Actor> actor);
  void Register(Actor* actor);
  void Unregister(Actor* actor);
  void ScheduleGarbageCollection();

  // Members die in the reverse order: the owned actors first (they use everything above them),
  // then the network (its flows' events live on the engine), the store, the trace, the engine.
  SimulationOptions options_;
  Engine engine_;
  Trace trace_;
  RandomStreams streams_;
  std::unique_ptr<fakeapi::Store> store_;
  std::unique_ptr<fakeapi::AuditingClient> user_client_;  // with an audit log
  std::unique_ptr<fakeapi::rbac::Authorizer> authorizer_;
  std::int64_t refusal_count_ = 0;
  std::vector<std::string> refusals_;
  std::unique_ptr<Network> network_;
  std::vector<Actor*> actors_;  // live actors, in the order they were built
  struct OwnedActors {          // destroys its actors the last added first
    std::vector<std::unique_ptr<Actor>> list;
    ~OwnedActors() {
      while (!list.empty()) list.pop_back();
    }
  } owned_;
  bool started_ = false;
  EventId gc_event_;
  OwnedEvents events_{engine_};  // the garbage collector's wake-up
};

// An informer whose watch events are delivered by engine events: `watch_latency` after each write
// (one delivery per batch), and every second while its watch needs resuming or the API refuses.
// What an Actor's informers and a container program's watches are made of.
class PumpedInformer {
 public:
  PumpedInformer(Simulation& sim, kube::Client& client, std::string resource, kube::ListOptions filter,
                 kube::InformerHandlers handlers);
  ~PumpedInformer();
  PumpedInformer(const PumpedInformer&) = delete;
  PumpedInformer& operator=(const PumpedInformer&) = delete;

  kube::Informer& informer() { return *informer_; }
  // Stops delivering and ends the watch; the cache is kept.
  void Stop();

 private:
  void SchedulePump(Micros delay);

  std::unique_ptr<kube::Informer> informer_;
  bool stopped_ = false;
  EventId pump_;
  OwnedEvents events_;  // the pending delivery
};

class Actor {
 public:
  // Registers the actor with `sim` until it dies.
  Actor(Simulation& sim, std::string name);
  virtual ~Actor();
  Actor(const Actor&) = delete;
  Actor& operator=(const Actor&) = delete;

  const std::string& name() const { return name_; }
  // Called once when the simulation starts (or when added to a running one).
  virtual void Start() = 0;

  // The API as this actor sees it: the store behind the actor's AuthorizingClient (its identity,
  // see Simulation::EnableAuthorization) behind a FaultyClient whose plan the simulation sets (no
  // faults by default).
  kube::Client& client() { return *client_; }
  // Who the actor is to the API: system:admin in system:masters unless the actor says otherwise.
  const fakeapi::rbac::UserInfo& identity() const { return authorizing_->user(); }
  // The API as `user` sees it, through the simulation's authorizer (when enabled): for what an
  // actor does on another identity's behalf (a container's processes as their service account).
  fakeapi::AuthorizingClient& authorizing_client() { return *authorizing_; }
  kube::FaultyClient& faulty_client() { return *client_; }

  // True while the actor has armed a timer for work it still owes the cluster: a controller's
  // requeue-after (a TTL, a deadline), an eviction that is due. The run does not end while any
  // actor says so. Default: none.
  virtual bool HasPendingWork() const { return false; }

 protected:
  Simulation& sim() { return sim_; }
  Micros Now() const { return sim_.Now(); }
  RandomStream& random() { return sim_.Random(name_); }
  // Runs `fn` after `delay` of simulated time (plus any API latency the last calls accrued).
  EventId After(Micros delay, std::function<void()> fn);
  // Runs `fn` at simulated time `time` (now, if it has passed).
  EventId At(Micros time, std::function<void()> fn) { return events_.At(time, std::move(fn)); }
  bool Cancel(EventId id) { return events_.Cancel(id); }
  bool IsPending(EventId id) const { return events_.IsPending(id); }

  // An informer owned by this actor, started now. Its events reach `handlers` watch_latency after
  // each write; a watch that ends is resumed (or relisted) on the next delivery, and retried
  // every second while the API refuses.
  kube::Informer& AddInformer(std::string resource, kube::ListOptions filter,
                                 kube::InformerHandlers handlers);
  // Drops this actor's informers and their caches (an actor that restarts starts over from lists).
  void ResetInformers();
  // Sets who the actor is to the API (before it makes calls).
  void SetIdentity(fakeapi::rbac::UserInfo user) { authorizing_->SetUser(std::move(user)); }
  // Records a line in the trace under this actor's name.
  void Log(std::string_view text);

 private:
  Simulation& sim_;
  std::string name_;
  std::unique_ptr<fakeapi::AuditingClient> audited_;  // between client_ and the store, with an audit log
  std::unique_ptr<fakeapi::AuthorizingClient> authorizing_;
  std::unique_ptr<kube::FaultyClient> client_;
  std::vector<std::unique_ptr<PumpedInformer>> informers_;
  OwnedEvents events_;  // last: its events die before anything they use
};

}  // namespace sim
