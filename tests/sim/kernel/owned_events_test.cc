#include "sim/kernel/owned_events.h"

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <vector>

namespace sim {
namespace {

using kube::kSecond;

// An owner whose callbacks touch its own state: the pattern OwnedEvents makes safe.
struct Owner {
  explicit Owner(Engine& engine) : events(engine) {}
  std::vector<int> seen;
  OwnedEvents events;  // declared last: dies first
};

TEST(OwnedEventsTest, RunsWhatItSchedulesInEngineOrder) {
  Engine engine;
  Owner owner(engine);
  owner.events.After(2 * kSecond, [&owner] { owner.seen.push_back(2); });
  owner.events.At(1 * kSecond, [&owner] { owner.seen.push_back(1); });
  EXPECT_EQ(owner.events.pending(), 2u);
  engine.RunUntilIdle();
  EXPECT_EQ(owner.seen, (std::vector<int>{1, 2}));
  EXPECT_EQ(owner.events.pending(), 0u);
}

TEST(OwnedEventsTest, AnOwnersEventsDieWithIt) {
  Engine engine;
  int ran = 0;
  auto owner = std::make_unique<Owner>(engine);
  owner->events.After(kSecond, [&ran, o = owner.get()] {
    o->seen.push_back(1);  // would touch freed memory if it ran after the owner died
    ++ran;
  });
  EventId other = engine.Schedule(2 * kSecond, [&ran] { ++ran; });
  owner.reset();
  EXPECT_EQ(engine.pending(), 1u);
  engine.RunUntilIdle();
  EXPECT_EQ(ran, 1);
  EXPECT_FALSE(engine.IsPending(other));
}

TEST(OwnedEventsTest, CancelAllLeavesOtherOwnersAlone) {
  Engine engine;
  Owner a(engine), b(engine);
  a.events.After(kSecond, [&a] { a.seen.push_back(1); });
  b.events.After(kSecond, [&b] { b.seen.push_back(1); });
  a.events.CancelAll();
  engine.RunUntilIdle();
  EXPECT_TRUE(a.seen.empty());
  EXPECT_EQ(b.seen.size(), 1u);
  // Still usable after CancelAll.
  a.events.After(kSecond, [&a] { a.seen.push_back(2); });
  engine.RunUntilIdle();
  EXPECT_EQ(a.seen, (std::vector<int>{2}));
}

TEST(OwnedEventsTest, ACallbackMayCancelItsOwnersOtherEventsAndScheduleMore) {
  Engine engine;
  Owner owner(engine);
  EventId later = owner.events.After(2 * kSecond, [&owner] { owner.seen.push_back(99); });
  owner.events.After(kSecond, [&owner, later] {
    EXPECT_TRUE(owner.events.Cancel(later));
    owner.events.After(kSecond, [&owner] { owner.seen.push_back(3); });
  });
  engine.RunUntilIdle();
  EXPECT_EQ(owner.seen, (std::vector<int>{3}));
}

TEST(OwnedEventsTest, IdsOfEventsThatRanAreDroppedSoTheListStaysSmall) {
  Engine engine;
  Owner owner(engine);
  // A long chain of one event at a time: the owner never has more than one pending.
  int left = 10'000;
  std::function<void()> step = [&] {
    if (--left > 0) owner.events.After(1, step);
  };
  owner.events.After(1, step);
  engine.RunUntilIdle();
  EXPECT_EQ(left, 0);
  EXPECT_EQ(owner.events.pending(), 0u);
  // Thousands scheduled at once are all kept, and all cancelled at once.
  for (int i = 0; i < 5000; ++i) owner.events.After(kSecond, [&owner] { owner.seen.push_back(1); });
  EXPECT_EQ(owner.events.pending(), 5000u);
  owner.events.CancelAll();
  engine.RunUntilIdle();
  EXPECT_TRUE(owner.seen.empty());
}

}  // namespace
}  // namespace sim
