// The calibration fit recovers known parameters from synthetic points; a real (tiny) calibration
// run produces points and a file with the keys the loader reads.
#include "sim/graph/calibrate.h"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <vector>

namespace sim::graph {
namespace {

CalibrationPoint Point(std::int64_t edges, double seconds, std::int64_t bytes) {
  return CalibrationPoint{.nodes = edges / 16, .edges = edges, .parts = 4, .seconds = seconds, .peak_bytes = bytes};
}

TEST(CalibrationFitLineTest, ExactLineIsRecovered) {
  LineFit fit = FitLine({1, 2, 3, 4}, {5, 7, 9, 11});
  ASSERT_EQ(fit.error, "");
  EXPECT_DOUBLE_EQ(fit.intercept, 3);
  EXPECT_DOUBLE_EQ(fit.slope, 2);
}

TEST(CalibrationFitLineTest, NegativeInterceptFallsBackToTheLineThroughTheOrigin) {
  // Unconstrained: y = -1 + 2x. With the intercept held at 0: slope = sum(xy) / sum(xx) = 22 / 14.
  LineFit fit = FitLine({1, 2, 3}, {1, 3, 5});
  ASSERT_EQ(fit.error, "");
  EXPECT_EQ(fit.intercept, 0);
  EXPECT_DOUBLE_EQ(fit.slope, 22.0 / 14.0);
}

TEST(CalibrationFitLineTest, NeedsTwoDistinctXs) {
  EXPECT_NE(FitLine({1}, {1}).error, "");
  EXPECT_NE(FitLine({2, 2, 2}, {1, 2, 3}).error, "");
  EXPECT_NE(FitLine({1, 2}, {1}).error, "");
}

TEST(FitCalibrationTest, RecoversKnownRateAndBytesPerEdge) {
  // seconds = 0.05 + edges / 2e6 and bytes = 4 MB + 60 B * edges, with alternating noise of 1 %.
  std::vector<CalibrationPoint> points;
  int k = 0;
  for (std::int64_t edges : {100000, 200000, 400000, 800000, 1600000, 3200000}) {
    const double noise = (k++ % 2 == 0) ? 1.01 : 0.99;
    points.push_back(Point(edges, (0.05 + static_cast<double>(edges) / 2e6) * noise,
                           static_cast<std::int64_t>((4e6 + 60.0 * static_cast<double>(edges)) * noise)));
  }
  CalibrationFit fit = FitCalibration(points);
  ASSERT_EQ(fit.error, "");
  EXPECT_NEAR(fit.edges_per_second, 2e6, 0.03 * 2e6);
  EXPECT_NEAR(fit.fixed_seconds, 0.05, 0.03);
  EXPECT_NEAR(fit.bytes_per_edge, 60, 1.5);
  EXPECT_NEAR(fit.fixed_bytes, 4e6, 2e6);
}

TEST(FitCalibrationTest, ExactPointsGiveExactParameters) {
  std::vector<CalibrationPoint> points = {Point(1000000, 1.5, 70000000), Point(3000000, 3.5, 190000000)};
  CalibrationFit fit = FitCalibration(points);
  ASSERT_EQ(fit.error, "");
  EXPECT_NEAR(fit.edges_per_second, 1e6, 1e-3);
  EXPECT_NEAR(fit.fixed_seconds, 0.5, 1e-9);
  EXPECT_NEAR(fit.bytes_per_edge, 60, 1e-9);
  EXPECT_NEAR(fit.fixed_bytes, 1e7, 1e-3);
}

TEST(FitCalibrationTest, TimeOrMemoryThatDoesNotGrowIsAnError) {
  EXPECT_NE(FitCalibration({Point(1000, 2.0, 1000), Point(2000, 1.0, 2000)}).error, "");
  EXPECT_NE(FitCalibration({Point(1000, 1.0, 2000), Point(2000, 2.0, 2000)}).error, "");
  EXPECT_NE(FitCalibration({Point(1000, 1.0, 1000)}).error, "");
}

TEST(CalibrationOptionsTest, BadOptionsAreNamed) {
  CalibrationOptions options;
  options.sizes = {1024, 2048};
  EXPECT_EQ(ValidateCalibrationOptions(options), "");
  options.sizes = {1024, 1024};
  EXPECT_NE(ValidateCalibrationOptions(options).find("two different sizes"), std::string::npos);
  options.sizes = {2, 1024};
  EXPECT_NE(ValidateCalibrationOptions(options).find("size 2 is out of range"), std::string::npos);
  options.sizes = {1024, std::int64_t{1} << 27};  // 2^31 edges at the default edge factor of 16
  EXPECT_NE(ValidateCalibrationOptions(options).find("too large"), std::string::npos);
  options.sizes = {1024, 2048};
  options.parts = {1};
  EXPECT_NE(ValidateCalibrationOptions(options), "");
  CalibrationResult result = RunCalibration(options, {});
  EXPECT_NE(result.error, "");
  EXPECT_TRUE(result.points.empty());
}

TEST(RunCalibrationTest, TinyRunMeasuresEveryPointAndWritesTheLoaderKeys) {
  CalibrationOptions options;
  options.sizes = {2048, 512, 1024};  // measured in increasing order
  options.max_repeats = 1;
  int measured = 0;
  CalibrationResult result = RunCalibration(options, [&](const CalibrationProgress& p) {
    EXPECT_EQ(p.points, 3);
    if (p.step == "measured") ++measured;
  });
  ASSERT_EQ(result.points.size(), 3u);
  EXPECT_EQ(measured, 3);
  for (std::size_t i = 0; i < result.points.size(); ++i) {
    const CalibrationPoint& p = result.points[i];
    EXPECT_EQ(p.nodes, std::int64_t{512} << i);
    EXPECT_GT(p.edges, 0);
    EXPECT_EQ(p.parts, 4);
    EXPECT_GT(p.seconds, 0);
    EXPECT_GE(p.peak_bytes, 0);
  }
  // The fit can fail on so small a graph on a busy machine; the file's shape is what is checked.
  result.fit = CalibrationFit{.edges_per_second = 1.5e6, .bytes_per_edge = 64.5, .fixed_seconds = 0.01,
                              .fixed_bytes = 1e6};
  YAML::Node doc = YAML::Load(CalibrationYaml("test \"host\"", result, options));
  EXPECT_EQ(doc["apiVersion"].as<std::string>(), "dglsim/v1");
  EXPECT_EQ(doc["kind"].as<std::string>(), "Calibration");
  EXPECT_EQ(doc["metadata"]["name"].as<std::string>(), "test \"host\"");
  EXPECT_EQ(doc["partition"]["metisEdgesPerSecond"].as<double>(), 1.5e6);
  EXPECT_EQ(doc["partition"]["metisBytesPerEdge"].as<double>(), 64.5);
  EXPECT_EQ(doc["partition"]["metisFixedSeconds"].as<double>(), 0.01);
  EXPECT_EQ(doc["partition"]["metisFixedBytes"].as<double>(), 1e6);
  ASSERT_EQ(doc["points"].size(), 3u);
  EXPECT_EQ(doc["points"][2]["nodes"].as<std::int64_t>(), 2048);
  EXPECT_EQ(doc["points"][2]["edges"].as<std::int64_t>(), result.points[2].edges);
  EXPECT_EQ(doc["points"][2]["parts"].as<int>(), 4);
  EXPECT_GT(doc["points"][2]["seconds"].as<double>(), 0);
  EXPECT_EQ(doc["points"][2]["peakBytes"].as<std::int64_t>(), result.points[2].peak_bytes);
}

}  // namespace
}  // namespace sim::graph
