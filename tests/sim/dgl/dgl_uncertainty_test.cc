// Ranges of predictions (sim/dgl/uncertainty.h): each unconfirmed parameter at each end of its
// range, the changes added up; a range never hides the value, never goes below zero for a
// quantity that cannot, and follows a calibration file's change of a value.
#include "sim/dgl/uncertainty.h"

#include <gtest/gtest.h>

#include <set>

namespace sim::dglmodels {
namespace {

TEST(UncertaintyTest, EveryParameterHasARangeAroundItsDefaultAndASource) {
  const Calibration defaults;
  std::set<std::string> keys;
  for (const UncertainParameter& p : UncertainParameters()) {
    EXPECT_TRUE(keys.insert(p.key).second) << p.key;
    EXPECT_LT(p.low, p.high) << p.key;
    EXPECT_LE(p.low, defaults.*(p.member)) << p.key;
    EXPECT_GE(p.high, defaults.*(p.member)) << p.key;
    EXPECT_NE(std::string(p.source), "") << p.key;
  }
}

TEST(UncertaintyTest, AModelOfNoUncertainParameterHasNoRange) {
  const ParameterEnds ends{Calibration{}};
  const Estimate e = ends.Evaluate([](const Calibration& c) { return c.load_graph_bytes_per_second; });
  EXPECT_EQ(e.low, e.value);
  EXPECT_EQ(e.high, e.value);
  EXPECT_TRUE(ends.Sensitivities([](const Calibration& c) { return c.load_graph_bytes_per_second; }).empty());
}

TEST(UncertaintyTest, OneParameterGivesTheModelAtTheEndsOfItsRange) {
  const ParameterEnds ends{Calibration{}};
  // Falls as the parameter grows: the high end of the parameter gives the low end of the prediction.
  const Estimate e = ends.Evaluate([](const Calibration& c) { return 1e9 / c.unpack_bytes_per_second; });
  EXPECT_NEAR(e.value, 1e9 / 150e6, 1e-9);
  EXPECT_NEAR(e.low, 1e9 / 300e6, 1e-9);
  EXPECT_NEAR(e.high, 1e9 / 100e6, 1e-9);
  auto sensitivities = ends.Sensitivities([](const Calibration& c) { return 1e9 / c.unpack_bytes_per_second; });
  ASSERT_EQ(sensitivities.size(), 1u);
  EXPECT_EQ(sensitivities[0].key, "unpackBytesPerSecond");
}

TEST(UncertaintyTest, TwoParametersAddUpAndALowEndStaysAtOrAboveZero) {
  const ParameterEnds ends{Calibration{}};
  const Estimate e = ends.Evaluate([](const Calibration& c) { return c.gpu_speedup + c.trainer_exponent; });
  EXPECT_NEAR(e.low, 1.5 + 0.3, 1e-9);
  EXPECT_NEAR(e.high, 4.0 + 0.7, 1e-9);
  const Estimate positive = ends.Evaluate([](const Calibration& c) { return 10 * (c.remote_share - 0.34); });
  EXPECT_GE(positive.low, 0.0);
}

TEST(UncertaintyTest, AChangedValueKeepsItsRangeRelativeToIt) {
  const UncertainParameter* gpu = nullptr;
  for (const UncertainParameter& p : UncertainParameters())
    if (std::string(p.key) == "gpuSpeedup") gpu = &p;
  ASSERT_NE(gpu, nullptr);
  Calibration c;
  c.gpu_speedup = 4.0;  // twice the default
  EXPECT_NEAR(AtRangeEnd(c, *gpu, false).gpu_speedup, 3.0, 1e-9);
  EXPECT_NEAR(AtRangeEnd(c, *gpu, true).gpu_speedup, 8.0, 1e-9);
  EXPECT_NEAR(AtRangeEnd(Calibration{}, *gpu, true).gpu_speedup, 4.0, 1e-9);
}

}  // namespace
}  // namespace sim::dglmodels
