// Every published point of sim/dgl/published.h: the ones the models were fitted to hold within
// 10 % at the defaults, each names its source and unit, the table lists them all, and the
// predictions' ranges contain their values.
#include "sim/dgl/published.h"

#include <gtest/gtest.h>

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

TEST(PublishedPointsTest, EachPointIsNamedSourcedAndHasAModelOrAReason) {
  std::set<std::string> ids;
  for (const PublishedPoint& p : PublishedPoints()) {
    EXPECT_TRUE(ids.insert(p.id).second) << "duplicate id " << p.id;
    EXPECT_FALSE(p.what.empty()) << p.id;
    EXPECT_FALSE(p.source.empty()) << p.id;
    EXPECT_FALSE(p.unit.empty()) << p.id;
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
