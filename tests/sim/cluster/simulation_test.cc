// The simulation context: actors see API writes after the watch latency, garbage collection runs
// as its own actor, and the trace covers every API write deterministically.
#include "sim/cluster/simulation.h"

#include <gtest/gtest.h>

#include <memory>

namespace sim {
namespace {

using json = kube::Json;

json ConfigMap(const std::string& name) { return {{"metadata", {{"name", name}, {"namespace", "default"}}}}; }

class Recorder : public Actor {
 public:
  Recorder(Simulation& sim, std::string name) : Actor(sim, std::move(name)) {}
  void Start() override {
    AddInformer("configmaps", {}, {.on_add = [this](const kube::ObjectPtr& o) {
                                     seen.push_back({kube::NameOf(*o), Now()});
                                   }});
  }
  void Reset() { ResetInformers(); }
  std::vector<std::pair<std::string, Micros>> seen;
};

// An actor with a timer of its own that touches its own state.
class Ticker : public Actor {
 public:
  Ticker(Simulation& sim, std::string name, bool* alive) : Actor(sim, std::move(name)), alive_(alive) {}
  ~Ticker() override { *alive_ = false; }
  void Start() override { Tick(); }
  bool HasPendingWork() const override { return armed_; }
  void Arm(Micros at) {
    armed_ = true;
    At(at, [this] { armed_ = false; });
  }
  int ticks = 0;

 private:
  void Tick() {
    EXPECT_TRUE(*alive_) << "an event of a dead actor ran";
    ++ticks;
    After(kSecond, [this] { Tick(); });
  }
  bool* alive_;
  bool armed_ = false;
};

TEST(SimulationTest, AnActorIsRegisteredForExactlyItsLifetimeAndItsEventsDieWithIt) {
  Simulation sim;
  bool alive = true;
  auto owned_elsewhere = std::make_unique<Ticker>(sim, "ticker", &alive);
  auto& recorder = sim.AddActor<Recorder>("recorder");
  ASSERT_EQ(sim.actors().size(), 2u);
  EXPECT_EQ(sim.actors()[0], owned_elsewhere.get());  // in the order they were built
  EXPECT_EQ(sim.FindActor("recorder"), &recorder);
  sim.Start();  // starts the actor its owner holds too
  sim.RunUntil(5 * kSecond);
  EXPECT_EQ(owned_elsewhere->ticks, 6);  // 0 s .. 5 s
  owned_elsewhere.reset();
  EXPECT_FALSE(alive);
  EXPECT_EQ(sim.actors().size(), 1u);
  EXPECT_EQ(sim.FindActor("ticker"), nullptr);
  sim.RunUntil(20 * kSecond);  // its pending tick was cancelled: nothing touches the dead actor
  EXPECT_TRUE(sim.engine().idle());
}

TEST(SimulationTest, AnArmedTimerIsPendingWorkUntilItFires) {
  bool alive = true;  // declared before the simulation: the actor writes it when the simulation ends
  Simulation sim;
  auto& ticker = sim.AddActor<Ticker>("ticker", &alive);
  EXPECT_FALSE(sim.AnyActorHasPendingWork());
  ticker.Arm(30 * kSecond);
  EXPECT_TRUE(sim.AnyActorHasPendingWork());
  sim.RunUntil(29 * kSecond);
  EXPECT_TRUE(sim.AnyActorHasPendingWork());
  sim.RunUntil(30 * kSecond);
  EXPECT_FALSE(sim.AnyActorHasPendingWork());
}

TEST(SimulationTest, AnActorSeesAWriteAfterTheWatchLatency) {
  Simulation sim({.watch_latency = 5 * kMillisecond});
  auto& recorder = sim.AddActor<Recorder>("recorder");
  sim.Start();
  sim.engine().Schedule(kSecond, [&] { sim.store().Create("configmaps", ConfigMap("a")); });
  sim.RunUntilIdle();
  ASSERT_EQ(recorder.seen.size(), 1u);
  EXPECT_EQ(recorder.seen[0].first, "a");
  EXPECT_EQ(recorder.seen[0].second, kSecond + 5 * kMillisecond);
}

TEST(SimulationTest, WritesInOneInstantReachTheActorAsOneBatch) {
  Simulation sim;
  auto& recorder = sim.AddActor<Recorder>("recorder");
  sim.Start();
  sim.engine().Schedule(kSecond, [&] {
    sim.store().Create("configmaps", ConfigMap("a"));
    sim.store().Create("configmaps", ConfigMap("b"));
  });
  std::uint64_t before = sim.engine().events_executed();
  sim.RunUntilIdle();
  ASSERT_EQ(recorder.seen.size(), 2u);
  EXPECT_EQ(recorder.seen[0].second, recorder.seen[1].second);
  EXPECT_EQ(sim.engine().events_executed() - before, 2u);  // the write, then one delivery
}

TEST(SimulationTest, AnObjectWhoseOwnerIsGoneIsCollectedWithoutWaitingForAnotherDeletion) {
  Simulation sim({.gc_latency = 200 * kMillisecond});
  sim.Start();
  json orphan = ConfigMap("orphan");
  orphan["metadata"]["ownerReferences"] = json::array(
      {{{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"name", "gone"}, {"uid", "no-such-uid"}, {"controller", true}}});
  sim.engine().Schedule(kSecond, [&] { sim.store().Create("configmaps", orphan); });
  bool gone_after_one_pass = false;
  sim.engine().Schedule(kSecond + 200 * kMillisecond + 1,
                        [&] { gone_after_one_pass = !sim.store().Get("configmaps", "default", "orphan").ok(); });
  sim.RunUntilIdle();
  EXPECT_TRUE(gone_after_one_pass);  // one collector pass after the create, no other deletion needed
}

TEST(SimulationTest, GarbageCollectionRunsAsAnActorAfterItsLatency) {
  Simulation sim({.gc_latency = 200 * kMillisecond});
  sim.Start();
  auto owner = *sim.store().Create("configmaps", ConfigMap("owner"));
  json dep = ConfigMap("dep");
  dep["metadata"]["ownerReferences"] = json::array(
      {{{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"name", "owner"}, {"uid", kube::UidOf(*owner)}, {"controller", true}}});
  sim.store().Create("configmaps", dep);
  sim.store().Delete("configmaps", "default", "owner");
  EXPECT_TRUE(sim.store().Get("configmaps", "default", "dep").ok());
  sim.RunUntil(100 * kMillisecond);
  EXPECT_TRUE(sim.store().Get("configmaps", "default", "dep").ok());
  sim.RunUntil(300 * kMillisecond);
  EXPECT_FALSE(sim.store().Get("configmaps", "default", "dep").ok());
}

TEST(SimulationTest, AnActorThatResetsItsInformersStartsOverFromAList) {
  Simulation sim;
  auto& recorder = sim.AddActor<Recorder>("recorder");
  sim.Start();
  sim.store().Create("configmaps", ConfigMap("a"));
  sim.RunUntilIdle();
  recorder.Reset();
  recorder.seen.clear();
  recorder.Start();
  sim.RunUntilIdle();
  ASSERT_EQ(recorder.seen.size(), 1u);  // the relist sees "a" again
  EXPECT_EQ(recorder.seen[0].first, "a");
}

TEST(SimulationTest, TheSameRunGivesTheSameTraceHashAndADifferentRunDoesNot) {
  auto run = [](int writes) {
    Simulation sim({.seed = 7});
    sim.AddActor<Recorder>("recorder");
    sim.Start();
    for (int i = 0; i < writes; ++i)
      sim.engine().Schedule(i * kSecond, [&sim, i] { sim.store().Create("configmaps", ConfigMap("c" + std::to_string(i))); });
    sim.RunUntilIdle();
    return sim.trace().HashHex();
  };
  EXPECT_EQ(run(3), run(3));
  EXPECT_NE(run(3), run(4));
}

TEST(SimulationTest, ApiFaultsReachActorsClients) {
  Simulation sim;
  auto& recorder = sim.AddActor<Recorder>("recorder");
  sim.Start();
  sim.SetApiFaults({.conflict_rate = 1.0});
  auto r = recorder.client().Create("configmaps", ConfigMap("x"));
  EXPECT_EQ(r.status().code(), 409);
  sim.SetApiFaults({});
  EXPECT_TRUE(recorder.client().Create("configmaps", ConfigMap("x")).ok());
}

}  // namespace
}  // namespace sim
