// The shrinker on a constructed failure: a predicate that fails only while two particular faults are
// present and strong enough. It must drop every other fault, weaken those two to just above what
// the failure needs, move what can move later, and report each step.
#include "sim/harness/chaos/shrink.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace harness::chaos {
namespace {

constexpr Micros kSecond = kube::kSecond;
constexpr Micros kUntil = 8 * 3600 * kSecond;

FaultSpec Fault(FaultKind kind, Micros at, const std::string& node = "") {
  FaultSpec f;
  f.kind = kind;
  f.trigger.at = at;
  f.node = node;
  return f;
}

// Fails while a NodeDown of gpu-1 lasts at least 60 s and an ApiFaults has conflictRate >= 0.05,
// whenever they happen.
bool Fails(const std::vector<FaultSpec>& faults) {
  const bool down = std::any_of(faults.begin(), faults.end(), [](const FaultSpec& f) {
    return f.kind == FaultKind::kNodeDown && f.node == "gpu-1" && f.duration && *f.duration >= 60 * kSecond;
  });
  const bool conflicts = std::any_of(faults.begin(), faults.end(), [](const FaultSpec& f) {
    return f.kind == FaultKind::kApiFaults && f.conflict_rate >= 0.05;
  });
  return down && conflicts;
}

std::vector<FaultSpec> Schedule() {
  std::vector<FaultSpec> faults;
  for (int i = 0; i < 12; ++i) faults.push_back(Fault(FaultKind::kWatchDrop, i * 60 * kSecond));
  FaultSpec down = Fault(FaultKind::kNodeDown, 600 * kSecond, "gpu-1");
  down.duration = 3600 * kSecond;
  faults.insert(faults.begin() + 5, down);
  FaultSpec api = Fault(FaultKind::kApiFaults, 30 * kSecond);
  api.conflict_rate = 0.8;
  api.error_rate = 0.04;
  api.duration = 7200 * kSecond;
  faults.push_back(api);
  FaultSpec other_down = Fault(FaultKind::kNodeDown, 0, "gpu-0");
  other_down.duration = 100 * kSecond;
  faults.insert(faults.begin() + 2, other_down);
  return faults;
}

TEST(ChaosShrinkTest, KeepsOnlyTheFaultsTheFailureNeedsWeakenedToTheEdge) {
  std::vector<std::string> steps;
  const ShrinkResult result = Shrink(Schedule(), kUntil, Fails, 500, [&](const std::string& s) { steps.push_back(s); });
  ASSERT_TRUE(Fails(result.faults));
  ASSERT_EQ(result.faults.size(), 2u);
  EXPECT_FALSE(result.budget_exhausted);
  const FaultSpec& down = result.faults[0].kind == FaultKind::kNodeDown ? result.faults[0] : result.faults[1];
  const FaultSpec& api = result.faults[0].kind == FaultKind::kApiFaults ? result.faults[0] : result.faults[1];
  EXPECT_EQ(down.node, "gpu-1");
  ASSERT_TRUE(down.duration);
  // Halving stops once half would be under 60 s.
  EXPECT_GE(*down.duration, 60 * kSecond);
  EXPECT_LT(*down.duration, 120 * kSecond);
  EXPECT_GE(api.conflict_rate, 0.05);
  EXPECT_LT(api.conflict_rate, 0.1);
  EXPECT_EQ(api.error_rate, 0);  // not needed: halved to nothing
  // Moved later: the failure does not care when.
  EXPECT_GT(*down.trigger.at, 600 * kSecond);
  EXPECT_LT(*down.trigger.at, kUntil);
  EXPECT_EQ(*down.trigger.at % kSecond, 0);
  EXPECT_FALSE(steps.empty());
  for (const std::string& s : steps) EXPECT_NE(s.find("still fails"), std::string::npos) << s;
  EXPECT_LE(result.runs, 500);
}

TEST(ChaosShrinkTest, AFailureThatNeedsNoFaultShrinksToNone) {
  int runs = 0;
  const ShrinkResult result = Shrink(Schedule(), kUntil, [&](const std::vector<FaultSpec>&) { return ++runs, true; }, 50);
  EXPECT_TRUE(result.faults.empty());
  EXPECT_EQ(result.runs, 1);
}

TEST(ChaosShrinkTest, StopsAtTheRunBudget) {
  int runs = 0;
  const ShrinkResult result = Shrink(Schedule(), kUntil, [&](const std::vector<FaultSpec>& f) { return ++runs, Fails(f); }, 5);
  EXPECT_EQ(runs, 5);
  EXPECT_EQ(result.runs, 5);
  EXPECT_TRUE(result.budget_exhausted);
  EXPECT_TRUE(Fails(result.faults));  // whatever it kept still fails
}

}  // namespace
}  // namespace harness::chaos
