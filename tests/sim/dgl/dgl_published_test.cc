// Every published point of sim/dgl/published.h: the ones the models were fitted to hold within
// 10 % at the defaults and inside their own bands, the checks fall inside their 90 % bands about
// as often as the bands claim, each point names its source and unit, the table lists them all, and
// the predictions' ranges contain their values.
#include "sim/dgl/published.h"

#include "sim/dgl/fits.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

namespace sim::dglmodels {
namespace {

TEST(PublishedPointsTest, EveryFittedPointHoldsWithinTenPercent) {
  const auto checks = ValidatePoints(Calibration{});
  int fitted = 0;
  for (const PointCheck& c : checks) {
    if (!c.point->fitted) continue;
    ++fitted;
    ASSERT_TRUE(c.point->model) << c.point->id << ": a fitted point needs a model";
    EXPECT_NEAR(c.ratio, 1.0, 0.10) << c.point->id << ": " << c.point->what << " predicted " << c.prediction.value;
  }
  EXPECT_GE(fitted, 30);
  EXPECT_TRUE(DriftedPoints(checks).empty());
}

TEST(PublishedPointsTest, EveryFittedPointIsInsideItsOwnBand) {
  for (const PointCheck& c : ValidatePoints(Calibration{})) {
    if (!c.point->fitted) continue;
    if (c.point->id == "distdgl-speedup-8-16") {
      // The one exception, shown in the table: DistDGL's "linear speed-up" read as 2.0; no
      // parameter in its range makes the model's speed-up quite linear (the sampling requests to
      // every other machine and the fixed start of an epoch flatten it), so its band ends short.
      EXPECT_FALSE(c.covered);
      EXPECT_GT(c.prediction.high, 0.95 * 2.0);
      continue;
    }
    EXPECT_TRUE(c.covered) << c.point->id << ": " << c.point->what << " published " << c.point->low << " - "
                           << c.point->high << ", band " << c.prediction.low << " - " << c.prediction.high;
  }
}

TEST(PublishedPointsTest, ChecksFallInsideTheirBandsAsOftenAsTheBandsClaim) {
  const auto checks = ValidatePoints(Calibration{});
  const std::vector<Coverage> coverage = CoverageByLaw(checks);
  ASSERT_FALSE(coverage.empty());
  const Coverage& all = coverage.front();
  EXPECT_EQ(all.law, "all");
  ASSERT_GE(all.checks, 80);
  // At least the claim over all checks; no law's checks more than two binomial standard
  // deviations below it (a law with few checks may miss one by chance).
  EXPECT_GE(all.share(), kBandCoverage) << all.covered << " of " << all.checks;
  for (std::size_t i = 1; i < coverage.size(); ++i) {
    // The billion-scale points are held out far beyond every measured size: they test the
    // extrapolation, and those outside their band are flagged (the next test).
    if (coverage[i].law == std::string("billion-scale (held out)")) continue;
    const double sd = std::sqrt(kBandCoverage * (1 - kBandCoverage) / coverage[i].checks);
    EXPECT_GE(coverage[i].share(), kBandCoverage - 2 * sd) << coverage[i].law;
  }
  // And not by bands so wide that everything is inside: the misses are the ones the claim allows.
  EXPECT_LT(all.share(), 1.0);
  int per_law = 0;
  for (std::size_t i = 1; i < coverage.size(); ++i) per_law += coverage[i].checks;
  EXPECT_EQ(per_law, all.checks);
}

TEST(PublishedPointsTest, BillionScalePointsSayHowFarTheyExtrapolate) {
  int held_out = 0;
  for (const PointCheck& c : ValidatePoints(Calibration{})) {
    if (c.point->law != std::string("billion-scale (held out)")) continue;
    ++held_out;
    EXPECT_FALSE(c.point->fitted) << c.point->id;
    ASSERT_TRUE(c.point->model) << c.point->id;
    // A time predicted beyond the measured sizes says so, and by how far.
    if (c.point->unit == "h") EXPECT_NE(c.point->note.find("extrapolated x"), std::string::npos) << c.point->id;
  }
  EXPECT_EQ(held_out, 3);
}

TEST(PublishedPointsTest, EveryMeasuredRunIsACheckLeftOutOfItsOwnFit) {
  int left_out = 0;
  for (const PublishedPoint& p : PublishedPoints()) {
    if (!p.left_out) continue;
    ++left_out;
    EXPECT_FALSE(p.fitted) << p.id;
    EXPECT_TRUE(p.model) << p.id;
  }
  // METIS: time, memory, cut; the chunked pipeline: dispatch_data.py and random_partition.py.
  EXPECT_EQ(left_out,
            3 * static_cast<int>(MeasuredRuns().size()) + static_cast<int>(DispatchRuns().size() + RandomPartitionRuns().size()));
}

TEST(PublishedPointsTest, EachPointIsNamedSourcedAndHasAModelOrAReason) {
  std::set<std::string> ids;
  for (const PublishedPoint& p : PublishedPoints()) {
    EXPECT_TRUE(ids.insert(p.id).second) << "duplicate id " << p.id;
    EXPECT_FALSE(p.what.empty()) << p.id;
    EXPECT_FALSE(p.source.empty()) << p.id;
    EXPECT_FALSE(p.unit.empty()) << p.id;
    EXPECT_NE(p.law, nullptr) << p.id;
    EXPECT_LE(p.low, p.high) << p.id;
    if (!p.model) {
      EXPECT_NE(p.note.find("not modelled"), std::string::npos) << p.id;
    }
  }
}

TEST(PublishedPointsTest, PredictionsLieInsideTheirRanges) {
  for (const PointCheck& c : ValidatePoints(Calibration{})) {
    if (!c.point->model) continue;
    EXPECT_LE(c.prediction.low, c.prediction.value + 1e-9) << c.point->id;
    EXPECT_GE(c.prediction.high, c.prediction.value - 1e-9) << c.point->id;
  }
}

TEST(PublishedPointsTest, APointThatDriftsIsReported) {
  // A calibration whose METIS runs a third slower moves the fitted METIS points out of tolerance.
  Calibration slow;
  slow.metis_machine_speed = 0.75;
  const auto checks = ValidatePoints(slow);
  bool metis = false;
  for (const PointCheck* c : DriftedPoints(checks)) metis = metis || c->point->id == "papers-metis-seconds";
  EXPECT_TRUE(metis);
}

TEST(PublishedPointsTest, TheTableListsEveryPointAndEveryUncertainParameter) {
  const auto checks = ValidatePoints(Calibration{});
  const std::string table = ValidationMarkdown(checks, Calibration{});
  for (const PublishedPoint& p : PublishedPoints())
    EXPECT_NE(table.find("| " + p.what + " |"), std::string::npos) << p.id;
  for (const UncertainParameter& u : UncertainParameters())
    EXPECT_NE(table.find("`" + std::string(u.key) + "`"), std::string::npos) << u.key;
  EXPECT_NE(table.find(std::to_string(checks.size()) + " points"), std::string::npos);
}

}  // namespace
}  // namespace sim::dglmodels
