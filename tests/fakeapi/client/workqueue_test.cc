// WorkQueue: de-duplication, re-queue of keys added while processing, delayed adds ordered by
// ready time under a ManualClock, per-key exponential back-off with its cap, Forget, shutdown.
#include "fakeapi/client/workqueue.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kube {
namespace {

class WorkQueueTest : public ::testing::Test {
 protected:
  // Pops every ready key, marking each done at once.
  std::vector<std::string> Drain() {
    std::vector<std::string> keys;
    while (auto key = queue_.Pop()) {
      keys.push_back(*key);
      queue_.Done(*key);
    }
    return keys;
  }

  ManualClock clock_;
  WorkQueue queue_{&clock_};
};

TEST_F(WorkQueueTest, KeyAddedManyTimesWhileWaitingIsQueuedOnce) {
  queue_.Add("default/a");
  queue_.Add("default/b");
  queue_.Add("default/a");
  queue_.Add("default/a");

  EXPECT_EQ(queue_.Len(), 2u);
  EXPECT_EQ(Drain(), (std::vector<std::string>{"default/a", "default/b"}));
  EXPECT_EQ(queue_.Len(), 0u);
  EXPECT_FALSE(queue_.Pop().has_value());
}

TEST_F(WorkQueueTest, ReadyKeysPopInFirstInFirstOutOrder) {
  for (const char* key : {"c", "a", "b"}) queue_.Add(key);
  EXPECT_EQ(Drain(), (std::vector<std::string>{"c", "a", "b"}));
}

TEST_F(WorkQueueTest, KeyAddedWhileProcessingIsHeldBackAndRequeuedAfterDone) {
  queue_.Add("a");
  auto first = queue_.Pop();
  ASSERT_EQ(first, "a");
  EXPECT_TRUE(queue_.IsProcessing("a"));

  queue_.Add("a");
  queue_.Add("a");

  EXPECT_EQ(queue_.Len(), 0u);
  EXPECT_FALSE(queue_.Pop().has_value());  // never handed to two workers at once
  queue_.Done("a");
  EXPECT_EQ(queue_.Len(), 1u);
  EXPECT_EQ(queue_.Pop(), "a");
  queue_.Done("a");
  EXPECT_FALSE(queue_.Pop().has_value());
}

TEST_F(WorkQueueTest, DoneWithoutReaddDoesNotRequeue) {
  queue_.Add("a");
  ASSERT_EQ(queue_.Pop(), "a");
  queue_.Done("a");
  EXPECT_EQ(queue_.Len(), 0u);
  EXPECT_FALSE(queue_.NextReadyTime().has_value());
}

TEST_F(WorkQueueTest, DelayedKeysBecomeReadyByReadyTimeThenInsertionOrder) {
  queue_.AddAfter("late", 30 * kMillisecond);
  queue_.AddAfter("tie-1", 10 * kMillisecond);
  queue_.AddAfter("early", 5 * kMillisecond);
  queue_.AddAfter("tie-2", 10 * kMillisecond);

  EXPECT_EQ(queue_.Len(), 0u);
  EXPECT_EQ(queue_.NumDelayed(), 4u);
  EXPECT_FALSE(queue_.Pop().has_value());

  clock_.Advance(10 * kMillisecond);
  EXPECT_EQ(queue_.Len(), 3u);
  EXPECT_EQ(Drain(), (std::vector<std::string>{"early", "tie-1", "tie-2"}));

  clock_.Advance(19 * kMillisecond);
  EXPECT_FALSE(queue_.Pop().has_value());
  clock_.Advance(1 * kMillisecond);
  EXPECT_EQ(Drain(), (std::vector<std::string>{"late"}));
}

TEST_F(WorkQueueTest, DuplicateDelayedAddKeepsTheEarliestReadyTime) {
  const Micros start = clock_.Now();
  queue_.AddAfter("a", 50 * kMillisecond);
  queue_.AddAfter("a", 20 * kMillisecond);
  queue_.AddAfter("a", 90 * kMillisecond);

  EXPECT_EQ(queue_.NumDelayed(), 1u);
  EXPECT_EQ(queue_.NextReadyTime(), start + 20 * kMillisecond);
  clock_.Advance(20 * kMillisecond);
  EXPECT_EQ(Drain(), (std::vector<std::string>{"a"}));
  clock_.Advance(kSecond);
  EXPECT_TRUE(Drain().empty());  // the later adds were folded into the first
}

TEST_F(WorkQueueTest, DelayedKeyReadyBeforeALaterAddIsPoppedFirst) {
  queue_.AddAfter("delayed", 10 * kMillisecond);
  clock_.Advance(15 * kMillisecond);
  queue_.Add("direct");

  EXPECT_EQ(Drain(), (std::vector<std::string>{"delayed", "direct"}));
}

TEST_F(WorkQueueTest, DelayedAddOfAKeyAlreadyReadyIsFoldedIntoIt) {
  queue_.Add("a");
  queue_.AddAfter("a", 10 * kMillisecond);
  clock_.Advance(10 * kMillisecond);

  EXPECT_EQ(queue_.Len(), 1u);
  EXPECT_EQ(Drain(), (std::vector<std::string>{"a"}));
}

TEST_F(WorkQueueTest, NonPositiveDelayIsAnImmediateAdd) {
  queue_.AddAfter("a", 0);
  queue_.AddAfter("b", -5);
  EXPECT_EQ(queue_.NumDelayed(), 0u);
  EXPECT_EQ(Drain(), (std::vector<std::string>{"a", "b"}));
}

TEST_F(WorkQueueTest, NextReadyTimeIsNowTheEarliestDelayOrNothing) {
  EXPECT_FALSE(queue_.NextReadyTime().has_value());

  queue_.AddAfter("a", 7 * kSecond);
  queue_.AddAfter("b", 3 * kSecond);
  EXPECT_EQ(queue_.NextReadyTime(), clock_.Now() + 3 * kSecond);

  queue_.Add("c");
  EXPECT_EQ(queue_.NextReadyTime(), clock_.Now());
}

TEST_F(WorkQueueTest, DueDelayedKeyThatIsBeingProcessedDoesNotMakeNextReadyTimeNow) {
  queue_.Add("a");
  ASSERT_EQ(queue_.Pop(), "a");
  queue_.AddAfter("a", 10 * kMillisecond);
  queue_.AddAfter("b", 50 * kMillisecond);
  clock_.Advance(20 * kMillisecond);

  // "a" is due but waits for Done: the next wake-up that time can bring is "b".
  EXPECT_EQ(queue_.Len(), 0u);
  EXPECT_EQ(queue_.NextReadyTime(), clock_.Now() + 30 * kMillisecond);
  queue_.Done("a");
  EXPECT_EQ(queue_.NextReadyTime(), clock_.Now());
  EXPECT_EQ(queue_.Pop(), "a");
}

TEST_F(WorkQueueTest, RateLimitedBackoffDoublesFromFiveMillisecondsUpToTheCap) {
  std::vector<Micros> delays;
  for (int i = 0; i < 20; ++i) {
    delays.push_back(queue_.NextBackoff("a"));
    queue_.AddRateLimited("a");
  }
  EXPECT_EQ(queue_.NumRequeues("a"), 20);
  EXPECT_EQ(delays[0], 5 * kMillisecond);
  EXPECT_EQ(delays[1], 10 * kMillisecond);
  EXPECT_EQ(delays[2], 20 * kMillisecond);
  EXPECT_EQ(delays[10], 5 * kMillisecond * 1024);
  EXPECT_EQ(delays[17], 5 * kMillisecond * (1 << 17));  // 655.36 s, still under the cap
  EXPECT_EQ(delays[18], 1000 * kSecond);
  EXPECT_EQ(delays[19], 1000 * kSecond);
  for (int i = 0; i < 1000; ++i) queue_.AddRateLimited("a");  // no overflow however many
  EXPECT_EQ(queue_.NextBackoff("a"), 1000 * kSecond);
}

TEST_F(WorkQueueTest, RateLimitedAddBecomesReadyAfterItsBackoff) {
  queue_.AddRateLimited("a");  // 5 ms
  ASSERT_EQ(queue_.NextReadyTime(), clock_.Now() + 5 * kMillisecond);
  clock_.Advance(5 * kMillisecond);
  ASSERT_EQ(queue_.Pop(), "a");
  queue_.Done("a");

  queue_.AddRateLimited("a");  // 10 ms
  EXPECT_EQ(queue_.NextReadyTime(), clock_.Now() + 10 * kMillisecond);
  clock_.Advance(9 * kMillisecond);
  EXPECT_FALSE(queue_.Pop().has_value());
  clock_.Advance(1 * kMillisecond);
  EXPECT_EQ(queue_.Pop(), "a");
}

TEST_F(WorkQueueTest, ForgetResetsTheBackoffOfOneKeyOnly) {
  for (int i = 0; i < 4; ++i) {
    queue_.AddRateLimited("a");
    queue_.AddRateLimited("b");
  }
  queue_.Forget("a");

  EXPECT_EQ(queue_.NumRequeues("a"), 0);
  EXPECT_EQ(queue_.NextBackoff("a"), 5 * kMillisecond);
  EXPECT_EQ(queue_.NumRequeues("b"), 4);
  EXPECT_EQ(queue_.NextBackoff("b"), 80 * kMillisecond);
}

TEST_F(WorkQueueTest, BackoffBaseAndCapAreConfigurable) {
  WorkQueue queue(&clock_, WorkQueueOptions{.base_delay = kSecond, .max_delay = 3 * kSecond});
  std::vector<Micros> delays;
  for (int i = 0; i < 4; ++i) {
    delays.push_back(queue.NextBackoff("k"));
    queue.AddRateLimited("k");
  }
  EXPECT_EQ(delays, (std::vector<Micros>{kSecond, 2 * kSecond, 3 * kSecond, 3 * kSecond}));
}

TEST_F(WorkQueueTest, ShutDownRefusesNewKeysDropsDelayedOnesAndDrainsReadyOnes) {
  queue_.Add("a");
  queue_.AddAfter("later", kSecond);
  queue_.ShutDown();

  queue_.Add("b");
  queue_.AddRateLimited("c");

  EXPECT_TRUE(queue_.ShuttingDown());
  EXPECT_EQ(queue_.NumDelayed(), 0u);
  EXPECT_EQ(Drain(), (std::vector<std::string>{"a"}));
  clock_.Advance(2 * kSecond);
  EXPECT_FALSE(queue_.Pop().has_value());
  EXPECT_FALSE(queue_.NextReadyTime().has_value());
}

}  // namespace
}  // namespace kube
