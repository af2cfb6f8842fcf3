#include "sim/kernel/engine.h"

#include <algorithm>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sim/kernel/random.h"

namespace sim {
namespace {

using kube::kSecond;

TEST(EngineTest, StartsAtZeroAndIdle) {
  Engine engine;
  EXPECT_EQ(engine.Now(), 0);
  EXPECT_TRUE(engine.idle());
  EXPECT_FALSE(engine.Step());
  EXPECT_EQ(engine.RunUntilIdle(), 0u);
  EXPECT_EQ(engine.NextEventTime(), -1);
}

TEST(EngineTest, ClockReadsEpochPlusSimulatedTime) {
  Engine engine;
  EXPECT_EQ(engine.clock().Now(), kube::ManualClock::kDefaultStart);
  engine.Schedule(3 * kSecond, [] {});
  engine.RunUntilIdle();
  EXPECT_EQ(engine.clock().Now(), kube::ManualClock::kDefaultStart + 3 * kSecond);

  Engine custom(1000);
  EXPECT_EQ(custom.epoch(), 1000);
  custom.RunUntil(5);
  EXPECT_EQ(custom.clock().Now(), 1005);
}

TEST(EngineTest, RunsEventsInTimeOrder) {
  Engine engine;
  std::vector<int> order;
  engine.Schedule(30, [&] { order.push_back(30); });
  engine.Schedule(10, [&] { order.push_back(10); });
  engine.Schedule(20, [&] { order.push_back(20); });
  EXPECT_EQ(engine.RunUntilIdle(), 3u);
  EXPECT_EQ(order, (std::vector<int>{10, 20, 30}));
  EXPECT_EQ(engine.Now(), 30);
}

TEST(EngineTest, ARescheduledEventRunsOnceAtItsNewTime) {
  Engine engine;
  std::vector<Micros> ran;
  EventId id = engine.ScheduleAt(50, [&] { ran.push_back(engine.Now()); });
  EventId later = engine.Reschedule(id, 80);
  ASSERT_TRUE(later.valid());
  EXPECT_FALSE(engine.IsPending(id));
  EXPECT_TRUE(engine.IsPending(later));
  EventId earlier = engine.Reschedule(later, 20);
  EXPECT_EQ(engine.pending(), 1u);
  EXPECT_EQ(engine.NextEventTime(), 20);
  engine.RunUntilIdle();
  EXPECT_EQ(ran, (std::vector<Micros>{20}));
  EXPECT_FALSE(engine.Reschedule(earlier, 90).valid());  // already ran
  EXPECT_EQ(engine.events_scheduled(), 3u);
  EXPECT_EQ(engine.events_cancelled(), 2u);
}

TEST(EngineTest, ARescheduledEventRunsAsIfScheduledAnew) {
  // The same order as cancelling and scheduling again: after the events already due then.
  Engine engine;
  std::vector<std::string> order;
  EventId a = engine.ScheduleAt(10, [&] { order.push_back("a"); });
  engine.ScheduleAt(10, [&] { order.push_back("b"); });
  engine.ScheduleAt(5, [&] { order.push_back("c"); });
  a = engine.Reschedule(a, 10);
  engine.ScheduleAt(10, [&] { order.push_back("d"); });
  engine.RunUntilIdle();
  EXPECT_EQ(order, (std::vector<std::string>{"c", "b", "a", "d"}));
}

TEST(EngineTest, ARescheduledEventCanBeCancelledAndThePastCountsAsNow) {
  Engine engine;
  int runs = 0;
  engine.RunUntil(100);
  EventId id = engine.Schedule(10, [&] { ++runs; });
  id = engine.Reschedule(id, 3);  // in the past: now
  EXPECT_EQ(engine.NextEventTime(), 100);
  EXPECT_TRUE(engine.Cancel(id));
  EXPECT_FALSE(engine.Reschedule(id, 200).valid());
  engine.RunUntilIdle();
  EXPECT_EQ(runs, 0);
  EXPECT_TRUE(engine.idle());
}

TEST(EngineTest, ManyReschedulesRunEachEventOnceAtItsLastTime) {
  // Each reschedule leaves a stale entry (20,000 here), skipped or compacted away.
  Engine engine;
  std::vector<EventId> ids;
  int runs = 0;
  for (int i = 0; i < 100; ++i) ids.push_back(engine.ScheduleAt(1000 + i, [&] { ++runs; }));
  for (int round = 0; round < 200; ++round)
    for (int i = 0; i < 100; ++i) ids[i] = engine.Reschedule(ids[i], 2000 + round * 100 + i);
  EXPECT_EQ(engine.pending(), 100u);
  EXPECT_EQ(engine.RunUntilIdle(), 100u);
  EXPECT_EQ(runs, 100);
  EXPECT_EQ(engine.Now(), 2000 + 199 * 100 + 99);
}

TEST(EngineTest, TiesRunInInsertionOrder) {
  Engine engine;
  std::vector<int> order;
  for (int i = 0; i < 100; ++i) engine.ScheduleAt(7, [&order, i] { order.push_back(i); });
  engine.RunUntilIdle();
  ASSERT_EQ(order.size(), 100u);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(order[i], i);
}

TEST(EngineTest, EventScheduledAtNowFromCallbackRunsAfterEarlierTies) {
  Engine engine;
  std::vector<std::string> order;
  engine.ScheduleAt(5, [&] {
    order.push_back("a");
    engine.Schedule(0, [&] { order.push_back("c"); });
  });
  engine.ScheduleAt(5, [&] { order.push_back("b"); });
  engine.RunUntilIdle();
  EXPECT_EQ(order, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(engine.Now(), 5);
}

TEST(EngineTest, PastTimesAndNegativeDelaysRunAtNow) {
  Engine engine;
  engine.RunUntil(100);
  std::vector<kube::Micros> times;
  engine.ScheduleAt(50, [&] { times.push_back(engine.Now()); });
  engine.Schedule(-10, [&] { times.push_back(engine.Now()); });
  engine.RunUntilIdle();
  EXPECT_EQ(times, (std::vector<kube::Micros>{100, 100}));
}

TEST(EngineTest, CallbacksScheduleMoreEvents) {
  Engine engine;
  int ticks = 0;
  std::function<void()> tick = [&] {
    ++ticks;
    if (ticks < 10) engine.Schedule(kSecond, tick);
  };
  engine.Schedule(kSecond, tick);
  EXPECT_EQ(engine.RunUntilIdle(), 10u);
  EXPECT_EQ(ticks, 10);
  EXPECT_EQ(engine.Now(), 10 * kSecond);
  EXPECT_EQ(engine.events_scheduled(), 10u);
  EXPECT_EQ(engine.events_executed(), 10u);
}

TEST(EngineTest, CancelBeforeRunSkipsTheEvent) {
  Engine engine;
  bool ran = false;
  EventId id = engine.Schedule(10, [&] { ran = true; });
  EXPECT_TRUE(engine.IsPending(id));
  EXPECT_TRUE(engine.Cancel(id));
  EXPECT_FALSE(engine.IsPending(id));
  EXPECT_FALSE(engine.Cancel(id));  // twice is harmless
  EXPECT_EQ(engine.pending(), 0u);
  EXPECT_EQ(engine.RunUntilIdle(), 0u);
  EXPECT_FALSE(ran);
  EXPECT_EQ(engine.events_cancelled(), 1u);
  // A cancelled event does not move time.
  EXPECT_EQ(engine.Now(), 0);
}

TEST(EngineTest, CancelAfterRunIsHarmless) {
  Engine engine;
  int runs = 0;
  EventId id = engine.Schedule(10, [&] { ++runs; });
  engine.RunUntilIdle();
  EXPECT_FALSE(engine.IsPending(id));
  EXPECT_FALSE(engine.Cancel(id));
  EXPECT_EQ(runs, 1);
  EXPECT_EQ(engine.events_cancelled(), 0u);
}

TEST(EngineTest, DefaultEventIdNamesNothing) {
  Engine engine;
  EventId none;
  EXPECT_FALSE(none.valid());
  EXPECT_FALSE(engine.IsPending(none));
  EXPECT_FALSE(engine.Cancel(none));
}

TEST(EngineTest, SelfCancelInsideCallbackIsHarmless) {
  Engine engine;
  EventId self;
  bool was_pending = true;
  bool cancelled = true;
  self = engine.Schedule(10, [&] {
    was_pending = engine.IsPending(self);
    cancelled = engine.Cancel(self);
  });
  engine.RunUntilIdle();
  EXPECT_FALSE(was_pending);
  EXPECT_FALSE(cancelled);
  EXPECT_EQ(engine.events_executed(), 1u);
}

TEST(EngineTest, CallbackCancelsALaterEvent) {
  Engine engine;
  bool later_ran = false;
  EventId later = engine.Schedule(20, [&] { later_ran = true; });
  engine.Schedule(10, [&] { EXPECT_TRUE(engine.Cancel(later)); });
  engine.RunUntilIdle();
  EXPECT_FALSE(later_ran);
  EXPECT_EQ(engine.Now(), 10);
}

TEST(EngineTest, CancelledSlotReuseDoesNotResurrectOldId) {
  Engine engine;
  int a = 0, b = 0;
  EventId first = engine.Schedule(10, [&] { ++a; });
  ASSERT_TRUE(engine.Cancel(first));
  EventId second = engine.Schedule(10, [&] { ++b; });  // reuses first's slot
  EXPECT_FALSE(engine.IsPending(first));
  EXPECT_FALSE(engine.Cancel(first));
  EXPECT_TRUE(engine.IsPending(second));
  EXPECT_NE(first, second);
  engine.RunUntilIdle();
  EXPECT_EQ(a, 0);
  EXPECT_EQ(b, 1);
}

TEST(EngineTest, CancelReleasesCapturedStateImmediately) {
  Engine engine;
  auto token = std::make_shared<int>(1);
  EventId id = engine.Schedule(10, [token] {});
  EXPECT_EQ(token.use_count(), 2);
  engine.Cancel(id);
  EXPECT_EQ(token.use_count(), 1);
}

TEST(EngineTest, RunUntilStopsAtBoundaryAndLeavesLaterEvents) {
  Engine engine;
  std::vector<int> ran;
  engine.ScheduleAt(10, [&] { ran.push_back(10); });
  engine.ScheduleAt(20, [&] { ran.push_back(20); });
  engine.ScheduleAt(21, [&] { ran.push_back(21); });
  EXPECT_EQ(engine.RunUntil(20), 2u);  // the boundary is inclusive
  EXPECT_EQ(ran, (std::vector<int>{10, 20}));
  EXPECT_EQ(engine.Now(), 20);
  EXPECT_EQ(engine.pending(), 1u);
  EXPECT_EQ(engine.NextEventTime(), 21);

  EXPECT_EQ(engine.RunUntil(15), 0u);  // never goes back in time
  EXPECT_EQ(engine.Now(), 20);
  EXPECT_EQ(engine.RunUntil(100), 1u);
  EXPECT_EQ(engine.Now(), 100);  // advances to the boundary even with nothing to do
}

TEST(EngineTest, RunUntilRunsEventsScheduledInsideTheWindow) {
  Engine engine;
  std::vector<kube::Micros> times;
  engine.ScheduleAt(10, [&] {
    times.push_back(engine.Now());
    engine.Schedule(5, [&] { times.push_back(engine.Now()); });   // 15: inside
    engine.Schedule(50, [&] { times.push_back(engine.Now()); });  // 60: outside
  });
  engine.RunUntil(20);
  EXPECT_EQ(times, (std::vector<kube::Micros>{10, 15}));
  EXPECT_EQ(engine.pending(), 1u);
}

TEST(EngineTest, StopEndsTheRunAfterTheCurrentEvent) {
  Engine engine;
  int runs = 0;
  for (int i = 1; i <= 5; ++i) {
    engine.ScheduleAt(i * 10, [&, i] {
      ++runs;
      if (i == 2) engine.Stop();
    });
  }
  EXPECT_EQ(engine.RunUntil(1000), 2u);
  EXPECT_EQ(engine.Now(), 20);  // a stopped RunUntil does not jump to its boundary
  EXPECT_FALSE(engine.stop_requested());
  EXPECT_EQ(engine.RunUntilIdle(), 3u);  // the request stopped one run only
  EXPECT_EQ(runs, 5);
}

TEST(EngineTest, StopBeforeRunMakesNextRunReturnAtOnce) {
  Engine engine;
  engine.Schedule(10, [] {});
  engine.Stop();
  EXPECT_EQ(engine.RunUntilIdle(), 0u);
  EXPECT_EQ(engine.RunUntilIdle(), 1u);
}

TEST(EngineTest, StepRunsOneEventAndSkipsCancelled) {
  Engine engine;
  std::vector<int> ran;
  EventId a = engine.ScheduleAt(1, [&] { ran.push_back(1); });
  engine.ScheduleAt(2, [&] { ran.push_back(2); });
  engine.Cancel(a);
  EXPECT_TRUE(engine.Step());
  EXPECT_EQ(ran, (std::vector<int>{2}));
  EXPECT_EQ(engine.Now(), 2);
  EXPECT_FALSE(engine.Step());
}

TEST(EngineTest, CancelHeavyWorkloadKeepsOrderAndCounts) {
  // Enough cancellations to trigger heap compaction several times.
  Engine engine;
  std::vector<EventId> ids;
  std::vector<kube::Micros> ran;
  for (int i = 0; i < 20000; ++i) {
    const kube::Micros t = (i * 7919) % 10007;
    ids.push_back(engine.ScheduleAt(t, [&ran, &engine] { ran.push_back(engine.Now()); }));
  }
  std::size_t cancelled = 0;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (i % 4 != 0) cancelled += engine.Cancel(ids[i]) ? 1 : 0;
  }
  EXPECT_EQ(cancelled, 15000u);
  EXPECT_EQ(engine.pending(), 5000u);
  EXPECT_EQ(engine.RunUntilIdle(), 5000u);
  ASSERT_EQ(ran.size(), 5000u);
  for (std::size_t i = 1; i < ran.size(); ++i) EXPECT_LE(ran[i - 1], ran[i]);
  for (EventId id : ids) EXPECT_FALSE(engine.Cancel(id));
}

TEST(EngineTest, MatchesSortedReferenceUnderRandomScheduleAndCancel) {
  // The events that run must come out exactly in (time, insertion) order; cancelled ones never.
  Engine engine;
  RandomStream rng(2026);
  struct Planned {
    kube::Micros time;
    int index;
  };
  std::vector<Planned> live;
  std::vector<int> ran;
  for (int i = 0; i < 5000; ++i) {
    const kube::Micros t = rng.UniformInt(0, 300);  // many ties
    EventId id = engine.ScheduleAt(t, [&ran, &engine, t, i] {
      EXPECT_EQ(engine.Now(), t);
      ran.push_back(i);
    });
    if (rng.Bernoulli(0.6)) {
      ASSERT_TRUE(engine.Cancel(id));
    } else {
      live.push_back(Planned{t, i});
    }
  }
  std::stable_sort(live.begin(), live.end(),
                   [](const Planned& a, const Planned& b) { return a.time < b.time; });
  std::vector<int> want;
  for (const Planned& p : live) want.push_back(p.index);
  EXPECT_EQ(engine.RunUntilIdle(), want.size());
  EXPECT_EQ(ran, want);
}

TEST(EngineTest, SameScheduleGivesSameOrder) {
  auto run = [] {
    Engine engine;
    std::vector<int> order;
    for (int i = 0; i < 1000; ++i) {
      engine.ScheduleAt((i * 31) % 17, [&order, i] { order.push_back(i); });
    }
    engine.RunUntilIdle();
    return order;
  };
  EXPECT_EQ(run(), run());
}

}  // namespace
}  // namespace sim
