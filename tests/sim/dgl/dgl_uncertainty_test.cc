// Ranges of predictions (sim/dgl/uncertainty.h): each unconfirmed parameter at each end of its
// range, the changes combined root-sum-square in log space (linearly for a quantity that is not
// positive); a range never hides the value, is never narrower than one parameter's change, never
// goes below zero for a quantity that cannot, and follows a calibration file's change of a value.
#include "sim/dgl/uncertainty.h"

#include <gtest/gtest.h>

#include <cmath>
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

TEST(UncertaintyTest, TwoParametersCombineRootSumSquareInLogSpace) {
  const ParameterEnds ends{Calibration{}};
  // gpuSpeedup 2 (1.5 - 4) and trainerExponent 0.5 (0.3 - 0.7): the sum 2.5 moves to 2.0 / 4.5 and
  // to 2.3 / 2.7.
  const Estimate e = ends.Evaluate([](const Calibration& c) { return c.gpu_speedup + c.trainer_exponent; });
  const double down = std::hypot(std::log(2.0 / 2.5), std::log(2.3 / 2.5));
  const double up = std::hypot(std::log(4.5 / 2.5), std::log(2.7 / 2.5));
  EXPECT_NEAR(e.low, 2.5 * std::exp(-down), 1e-9);
  EXPECT_NEAR(e.high, 2.5 * std::exp(up), 1e-9);
  // Never narrower than the widest parameter alone, never wider than their changes added up.
  EXPECT_LT(e.low, 2.0);
  EXPECT_GT(e.high, 4.5);
  EXPECT_GT(e.low, 2.5 * (2.0 / 2.5) * (2.3 / 2.5));
  EXPECT_LT(e.high, 2.5 * (4.5 / 2.5) * (2.7 / 2.5));
}

TEST(UncertaintyTest, AQuantityThatIsNotPositiveCombinesLinearlyAndALowEndStaysAtOrAboveZero) {
  const ParameterEnds ends{Calibration{}};
  // remoteShare 0.10 (0.05 - 0.35) and gpuSpeedup 2 (1.5 - 4) around a value of zero.
  const Estimate zero = ends.Evaluate([](const Calibration& c) { return (c.remote_share - 0.10) + (c.gpu_speedup - 2); });
  EXPECT_NEAR(zero.value, 0.0, 1e-12);
  EXPECT_NEAR(zero.high, std::hypot(0.25, 2.0), 1e-9);
  EXPECT_EQ(zero.low, 0.0);  // a zero that cannot go below zero
  // A positive value whose low end would go below zero keeps a positive low end.
  const Estimate positive = ends.Evaluate([](const Calibration& c) { return 10 * (c.remote_share - 0.09); });
  EXPECT_GT(positive.low, 0.0);
  EXPECT_LT(positive.low, 1e-6);
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
