// FaultyClient: deterministic fault injection on top of the Store. Same seed, same faults; rate 0
// forwards everything; rate 1 fails every write with the right Status; timed-out writes that went
// through are in the store; latency is drawn within bounds and collected; dropped watches end with a
// non-Expired status.
#include "fakeapi/client/faulty_client.h"

#include "fakeapi/server/store.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kube {

using fakeapi::Store;
using fakeapi::StoreOptions;
namespace {

using json = kube::Json;

json FaultyConfigMap(const std::string& name) {
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"data", {{"k", "v"}}}};
}

// One write of each verb against `client`, on objects named after `i`; returns each outcome as
// "200" or the error code, in call order.
std::vector<std::string> WriteRound(Client& client, int i) {
  std::vector<std::string> outcomes;
  auto code = [&](const Status& s) { outcomes.push_back(std::to_string(s.code()) + s.reason()); };
  const std::string name = "cm-" + std::to_string(i);
  code(client.Create("configmaps", FaultyConfigMap(name)).status());
  code(client.Patch("configmaps", "default", name, json{{"data", {{"k", "p"}}}}).status());
  json replacement = FaultyConfigMap(name);
  replacement["data"]["k"] = "u";
  code(client.Update("configmaps", replacement).status());
  code(client.UpdateStatus("configmaps", replacement).status());
  code(client.Delete("configmaps", "default", name).status());
  return outcomes;
}

class FaultyClientTest : public ::testing::Test {
 protected:
  ManualClock clock_;
  Store store_{StoreOptions{.clock = &clock_}};
};

TEST(FaultyClientSplitMix64Test, MatchesTheReferenceSequence) {
  // Reference values of splitmix64.c (Vigna) for seed 1234567.
  SplitMix64 rng(1234567);
  EXPECT_EQ(rng.Next(), 6457827717110365317ULL);
  EXPECT_EQ(rng.Next(), 3203168211198807973ULL);
  EXPECT_EQ(rng.Next(), 9817491932198370423ULL);
  EXPECT_EQ(rng.Next(), 4593380528125082431ULL);
  EXPECT_EQ(rng.Next(), 16408922859458223821ULL);
}

TEST(FaultyClientSplitMix64Test, DoublesAreInTheHalfOpenUnitInterval) {
  SplitMix64 rng(42);
  for (int i = 0; i < 10000; ++i) {
    const double u = rng.NextDouble();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
  }
}

TEST_F(FaultyClientTest, SameSeedGivesTheSameFaultSequence) {
  const FaultPlan plan{.conflict_rate = 0.2, .error_rate = 0.2, .timeout_rate = 0.2,
                       .latency_min = 100, .latency_max = 5000};
  auto run = [&](std::uint64_t seed) {
    ManualClock clock;
    Store store(StoreOptions{.clock = &clock});
    FaultyClient faulty(store, seed, plan);
    std::vector<std::string> outcomes;
    for (int i = 0; i < 100; ++i) {
      for (auto& o : WriteRound(faulty, i)) outcomes.push_back(std::move(o));
    }
    outcomes.push_back("latency " + std::to_string(faulty.TakeLatency()));
    outcomes.push_back("objects " + std::to_string(store.Stats().objects));
    return std::make_pair(outcomes, faulty.counts());
  };

  auto [first, first_counts] = run(99);
  auto [again, again_counts] = run(99);
  auto [other, other_counts] = run(100);

  EXPECT_EQ(first, again);
  EXPECT_EQ(first_counts, again_counts);
  EXPECT_NE(first, other);
  EXPECT_GT(first_counts.conflicts, 0);
  EXPECT_GT(first_counts.internal_errors, 0);
  EXPECT_GT(first_counts.timeouts_applied + first_counts.timeouts_not_applied, 0);
}

TEST_F(FaultyClientTest, ChangingRatesDoesNotShiftLaterDraws) {
  // Each call draws a fixed number of values, so a plan change leaves later calls' luck alone.
  auto outcomes_after = [&](bool change_plan_midway) {
    ManualClock clock;
    Store store(StoreOptions{.clock = &clock});
    FaultyClient faulty(store, 5, FaultPlan{.error_rate = 0.5});
    if (change_plan_midway) faulty.SetPlan(FaultPlan{});
    for (int i = 0; i < 10; ++i) WriteRound(faulty, i);
    faulty.SetPlan(FaultPlan{.error_rate = 0.5});
    std::vector<std::string> tail;
    for (int i = 10; i < 30; ++i) {
      for (auto& o : WriteRound(faulty, i)) tail.push_back(std::move(o));
    }
    return tail;
  };
  EXPECT_EQ(outcomes_after(false), outcomes_after(true));
}

TEST_F(FaultyClientTest, ZeroRatesForwardEveryCall) {
  // The same calls straight to a store and through a fault-free FaultyClient give the same answers
  // (UpdateStatus of a ConfigMap included: 404, as ConfigMaps have no status subresource).
  ManualClock clock;
  Store direct_store(StoreOptions{.clock = &clock});
  FaultyClient faulty(store_, 1);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(WriteRound(faulty, i), WriteRound(direct_store, i));
  EXPECT_EQ(store_.CurrentResourceVersion(), direct_store.CurrentResourceVersion());

  ASSERT_TRUE(faulty.Create("configmaps", FaultyConfigMap("kept")).ok());
  auto got = faulty.Get("configmaps", "default", "kept");
  ASSERT_TRUE(got.ok());
  auto direct = store_.Get("configmaps", "default", "kept");
  EXPECT_EQ(got.value(), direct.value());  // the store's own object, forwarded
  auto listed = faulty.List("configmaps");
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(listed->items.size(), 1u);

  EXPECT_EQ(faulty.counts().Total(), 0);
  EXPECT_EQ(faulty.TakeLatency(), 0);
}

TEST_F(FaultyClientTest, ConflictRateOneFailsEveryWriteWith409ConflictAndAppliesNothing) {
  ASSERT_TRUE(store_.Create("configmaps", FaultyConfigMap("existing")).ok());
  const std::int64_t rv = store_.CurrentResourceVersion();
  FaultyClient faulty(store_, 3, FaultPlan{.conflict_rate = 1.0});

  auto created = faulty.Create("configmaps", FaultyConfigMap("new"));
  auto patched = faulty.Patch("configmaps", "default", "existing", json{{"data", {{"k", "x"}}}});
  auto deleted = faulty.Delete("configmaps", "default", "existing");

  for (const Status& s : {created.status(), patched.status(), deleted.status()}) {
    EXPECT_EQ(s.code(), 409);
    EXPECT_TRUE(s.IsConflict()) << s.ToString();
  }
  EXPECT_EQ(store_.CurrentResourceVersion(), rv);
  EXPECT_EQ(faulty.counts().conflicts, 3);
  EXPECT_TRUE(faulty.Get("configmaps", "default", "existing").ok());  // reads are untouched
}

TEST_F(FaultyClientTest, ErrorRateOneFailsEveryWriteWith500InternalError) {
  const std::int64_t rv = store_.CurrentResourceVersion();
  FaultyClient faulty(store_, 3, FaultPlan{.error_rate = 1.0});

  EXPECT_EQ(WriteRound(faulty, 0), std::vector<std::string>(5, "500InternalError"));
  EXPECT_EQ(store_.CurrentResourceVersion(), rv);
  EXPECT_EQ(faulty.counts().internal_errors, 5);
}

TEST_F(FaultyClientTest, TimedOutWritesThatWentThroughAreVisibleInTheStore) {
  FaultyClient faulty(store_, 3, FaultPlan{.timeout_rate = 1.0, .timeout_applied_rate = 1.0});

  auto created = faulty.Create("configmaps", FaultyConfigMap("a"));

  EXPECT_EQ(created.status().code(), 504);
  EXPECT_EQ(created.status().reason(), "Timeout");
  EXPECT_TRUE(store_.Get("configmaps", "default", "a").ok());
  EXPECT_EQ(faulty.counts().timeouts_applied, 1);
}

TEST_F(FaultyClientTest, TimedOutWritesThatDidNotGoThroughLeaveNoTrace) {
  FaultyClient faulty(store_, 3, FaultPlan{.timeout_rate = 1.0, .timeout_applied_rate = 0.0});

  auto created = faulty.Create("configmaps", FaultyConfigMap("a"));

  EXPECT_EQ(created.status().code(), 504);
  EXPECT_TRUE(store_.Get("configmaps", "default", "a").status().IsNotFound());
  EXPECT_EQ(faulty.counts().timeouts_not_applied, 1);
}

TEST_F(FaultyClientTest, MixedTimeoutsLeaveExactlyTheAppliedOnesInTheStore) {
  FaultyClient faulty(store_, 11, FaultPlan{.timeout_rate = 1.0});
  for (int i = 0; i < 200; ++i) {
    EXPECT_EQ(faulty.Create("configmaps", FaultyConfigMap("cm-" + std::to_string(i))).status().code(), 504);
  }
  const FaultCounts counts = faulty.counts();
  EXPECT_EQ(counts.timeouts_applied + counts.timeouts_not_applied, 200);
  EXPECT_GT(counts.timeouts_applied, 50);
  EXPECT_GT(counts.timeouts_not_applied, 50);
  auto listed = store_.List("configmaps");
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(static_cast<std::int64_t>(listed->items.size()), counts.timeouts_applied);
}

TEST_F(FaultyClientTest, ReadErrorRateFailsGetListAndWatchWith500) {
  ASSERT_TRUE(store_.Create("configmaps", FaultyConfigMap("a")).ok());
  FaultyClient faulty(store_, 3, FaultPlan{.read_error_rate = 1.0});

  EXPECT_EQ(faulty.Get("configmaps", "default", "a").status().code(), 500);
  EXPECT_EQ(faulty.List("configmaps").status().code(), 500);
  EXPECT_EQ(faulty.Watch("configmaps").status().code(), 500);
  EXPECT_EQ(faulty.counts().read_errors, 3);
  EXPECT_TRUE(faulty.Create("configmaps", FaultyConfigMap("b")).ok());  // writes are untouched
}

TEST_F(FaultyClientTest, LatencyIsDrawnWithinBoundsAndTakeLatencyResetsIt) {
  FaultyClient faulty(store_, 8, FaultPlan{.latency_min = 2 * kMillisecond, .latency_max = 9 * kMillisecond});
  Micros lowest = 1 << 30, highest = 0;
  for (int i = 0; i < 500; ++i) {
    (void)faulty.Get("configmaps", "default", "none");
    const Micros latency = faulty.TakeLatency();
    lowest = std::min(lowest, latency);
    highest = std::max(highest, latency);
  }
  EXPECT_GE(lowest, 2 * kMillisecond);
  EXPECT_LE(highest, 9 * kMillisecond);
  EXPECT_GT(highest - lowest, 5 * kMillisecond);  // spread over the range, not a constant
  EXPECT_EQ(faulty.TakeLatency(), 0);

  (void)faulty.Get("configmaps", "default", "none");
  (void)faulty.Get("configmaps", "default", "none");
  const Micros two_calls = faulty.TakeLatency();
  EXPECT_GE(two_calls, 4 * kMillisecond);
  EXPECT_LE(two_calls, 18 * kMillisecond);
}

TEST_F(FaultyClientTest, FixedLatencyIsChargedForEveryCallFailedOrNot) {
  FaultyClient faulty(store_, 8, FaultPlan{.error_rate = 1.0, .latency_min = 700, .latency_max = 700});
  (void)faulty.Create("configmaps", FaultyConfigMap("a"));
  (void)faulty.Get("configmaps", "default", "a");
  EXPECT_EQ(faulty.TakeLatency(), 1400);
}

TEST_F(FaultyClientTest, DropWatchesEndsOpenStreamsWithANonExpiredStatus) {
  FaultyClient faulty(store_, 3);
  auto watch = faulty.Watch("configmaps");
  ASSERT_TRUE(watch.ok());
  WatchPtr stream = watch.value();
  int notified = 0;
  stream->SetNotifier([&] { ++notified; });
  ASSERT_TRUE(faulty.Create("configmaps", FaultyConfigMap("a")).ok());  // queued, then lost with the connection
  EXPECT_EQ(faulty.OpenWatches(), 1u);

  EXPECT_EQ(faulty.DropWatches(), 1u);

  std::vector<WatchEvent> events;
  EXPECT_FALSE(stream->Poll(&events));
  EXPECT_TRUE(events.empty());
  EXPECT_TRUE(stream->Ended());
  EXPECT_FALSE(stream->status().ok());
  EXPECT_FALSE(stream->status().IsExpired());
  EXPECT_GE(notified, 2);  // once for the event, once for the end
  EXPECT_EQ(faulty.counts().watch_drops, 1);
  EXPECT_EQ(faulty.OpenWatches(), 0u);
  EXPECT_EQ(faulty.DropWatches(), 0u);  // nothing left to drop
}

TEST_F(FaultyClientTest, WatchDropRateOneEndsAStreamAtItsFirstPoll) {
  FaultyClient faulty(store_, 3, FaultPlan{.watch_drop_rate = 1.0});
  auto watch = faulty.Watch("configmaps");
  ASSERT_TRUE(watch.ok());

  std::vector<WatchEvent> events;
  EXPECT_FALSE(watch.value()->Poll(&events));
  EXPECT_FALSE(watch.value()->status().IsExpired());
  EXPECT_EQ(watch.value()->status().code(), 500);
  EXPECT_EQ(faulty.counts().watch_drops, 1);
}

TEST_F(FaultyClientTest, WatchWithoutDropsForwardsEventsAndReaderStop) {
  FaultyClient faulty(store_, 3);
  auto watch = faulty.Watch("configmaps");
  ASSERT_TRUE(watch.ok());
  ASSERT_TRUE(faulty.Create("configmaps", FaultyConfigMap("a")).ok());

  std::vector<WatchEvent> events;
  EXPECT_TRUE(watch.value()->Poll(&events));
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].type, WatchEventType::kAdded);
  EXPECT_EQ(NameOf(*events[0].object), "a");

  watch.value()->Stop();
  events.clear();
  EXPECT_FALSE(watch.value()->Poll(&events));
  EXPECT_TRUE(watch.value()->status().ok());
  EXPECT_EQ(faulty.counts().watch_drops, 0);
}

TEST_F(FaultyClientTest, ExpiredWatchErrorsPassThroughUnchanged) {
  Store store(StoreOptions{.clock = &clock_, .history_limit = 2});
  FaultyClient faulty(store, 3);
  ASSERT_TRUE(store.Create("configmaps", FaultyConfigMap("first")).ok());
  const std::string old_rv = std::to_string(store.CurrentResourceVersion());
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(store.Create("configmaps", FaultyConfigMap("cm-" + std::to_string(i))).ok());

  auto watch = faulty.Watch("configmaps", WatchOptions{.resource_version = old_rv});

  EXPECT_TRUE(watch.status().IsExpired()) << watch.status().ToString();
  EXPECT_EQ(faulty.counts().Total(), 0);
}

}  // namespace
}  // namespace kube
