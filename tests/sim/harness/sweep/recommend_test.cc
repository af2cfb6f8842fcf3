// The recommendation follows each objective on a constructed case: four configurations, one of them
// OOMKilled, one MPI-limited, the rest trading time against money.
#include "sim/harness/sweep/recommend.h"

#include <gtest/gtest.h>

namespace harness::sweep {
namespace {

using json = kube::Json;

json Point(std::size_t i, const char* label, double makespan, double cost, const char* outcome = "Succeeded", const char* lost = "",
           double p95 = 0) {
  const bool ok = std::string(outcome) == "Succeeded";
  return {{"point", i},          {"label", label},   {"outcome", outcome},
          {"lostTo", lost},      {"reason", ok ? "" : std::string(lost) + " reason"},
          {"seeds", 1},          {"failedSeeds", ok ? 0 : 1},
          {"makespanSeconds", ok ? json(makespan) : json(nullptr)}, {"cost", cost}, {"gpuHours", cost / 2},
          {"queueingSeconds", {{"p95", p95}}}};
}

const std::vector<json> kPoints = {
    Point(0, "fast-dear", 1800, 90, "Succeeded", "", 900),     // 30 min, 90
    Point(1, "slow-cheap", 4 * 3600, 20, "Succeeded", "", 60),  // 4 h, 20
    Point(2, "middle", 2 * 3600, 40, "Succeeded", "", 300),     // 2 h, 40
    Point(3, "ssp-big", 0, 10, "Failed", "OOMKilled"),
    Point(4, "smp-big", 0, 5, "Failed", "MPI limit"),
};

Recommendation With(Goal goal, std::optional<double> deadline = {}, std::optional<double> budget = {}) {
  Objective o;
  o.goal = goal;
  o.deadline_seconds = deadline;
  o.budget = budget;
  return Recommend(kPoints, o);
}

TEST(Recommend, Fastest) {
  const Recommendation r = With(Goal::kFastest);
  EXPECT_EQ(r.best, 0u);
  EXPECT_EQ(r.runner_up, 2u);
  EXPECT_EQ(r.why_lost[1], "slower: makespan 4h, cost 20.00 against makespan 30m, cost 90.00");
  EXPECT_EQ(r.why_lost[3], "OOMKilled: OOMKilled reason");
  EXPECT_EQ(r.why_lost[4], "MPI limit: MPI limit reason");
}

TEST(Recommend, Cheapest) {
  const Recommendation r = With(Goal::kCheapest);
  EXPECT_EQ(r.best, 1u);
  EXPECT_EQ(r.runner_up, 2u);
  EXPECT_EQ(r.why_lost[0], "dearer: makespan 30m, cost 90.00 against makespan 4h, cost 20.00");
}

TEST(Recommend, CheapestWithinADeadline) {
  const Recommendation r = With(Goal::kCheapest, 3 * 3600.0);
  EXPECT_EQ(r.best, 2u);
  EXPECT_EQ(r.runner_up, 0u);
  EXPECT_EQ(r.why_lost[1], "slower: makespan 4h, over the deadline of 3h");
}

TEST(Recommend, FastestWithinABudget) {
  const Recommendation r = With(Goal::kFastest, std::nullopt, 50.0);
  EXPECT_EQ(r.best, 2u);
  EXPECT_EQ(r.runner_up, 1u);
  EXPECT_EQ(r.why_lost[0], "dearer: makespan 30m, cost 90.00, over the budget of 50.00");
}

TEST(Recommend, QueueingLimitForFleetSizing) {
  Objective o;
  o.goal = Goal::kCheapest;
  o.queueing_percentile = 95;
  o.queueing_under_seconds = 600;
  const Recommendation r = Recommend(kPoints, o);
  EXPECT_EQ(r.best, 1u);
  EXPECT_EQ(r.why_lost[0], "queueing: p95 delay 15m, over 10m");
}

TEST(Recommend, ATieOnTimeAndCostGoesToTheLowerPointAndSaysSo) {
  const std::vector<json> twins = {Point(0, "a", 3600, 50), Point(1, "b", 3600, 50)};
  for (Goal goal : {Goal::kFastest, Goal::kCheapest}) {
    Objective o;
    o.goal = goal;
    const Recommendation r = Recommend(twins, o);
    EXPECT_EQ(r.best, 0u);
    EXPECT_EQ(r.runner_up, 1u);
    EXPECT_EQ(r.why_lost[1].rfind("as fast and as cheap, listed later: ", 0), 0u) << r.why_lost[1];
  }
}

TEST(Recommend, NothingEligibleAndTheParetoFront) {
  const Recommendation none = With(Goal::kFastest, 60.0);
  EXPECT_FALSE(none.best);
  EXPECT_NE(FormatRecommendation(none, kPoints).find("recommended: none"), std::string::npos);
  // Fastest to slowest, each cheaper than the one before.
  EXPECT_EQ(With(Goal::kFastest).pareto, (std::vector<std::size_t>{0, 2, 1}));
  // Without prices everywhere, the GPU-hours the cluster provides are the cost.
  std::vector<json> unpriced = kPoints;
  unpriced[0]["cost"] = nullptr;
  EXPECT_EQ(Recommend(unpriced, {}).cost_basis, "providedGpuHours");
}

// Without prices, "cheapest" compares what the cluster provides, not what its pods hold: two fleets
// whose pods hold the same GPU-hours in the same time, one twice the other's size, are not "as
// cheap": the larger provides twice the GPU-hours and loses as dearer.
TEST(Recommend, UnpricedCheapestPaysForTheGpusTheClusterHas) {
  auto fleet = [](std::size_t i, const char* label, double provided) {
    json p = Point(i, label, 8 * 3600, 0);
    p["cost"] = nullptr;
    p["gpuHours"] = 100.0;
    p["providedGpuHours"] = provided;
    return p;
  };
  const std::vector<json> points = {fleet(0, "nodes=80", 1280), fleet(1, "nodes=40", 640)};
  Objective o;
  o.goal = Goal::kCheapest;
  const Recommendation r = Recommend(points, o);
  EXPECT_EQ(r.cost_basis, "providedGpuHours");
  EXPECT_EQ(r.best, 1u);
  EXPECT_EQ(r.why_lost[0], "dearer: makespan 8h, 1280.00 GPU-hours provided against makespan 8h, 640.00 GPU-hours provided");
  EXPECT_NE(FormatRecommendation(r, points).find("cost is the GPU-hours the cluster provides"), std::string::npos);
}

}  // namespace
}  // namespace harness::sweep
