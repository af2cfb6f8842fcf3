// The fits behind the laws (sim/dgl/fits.h): the constants of calibration.h are the least-squares
// fits over the runs of reports/metis-measured/, the error factors' ranges are the laws'
// leave-one-out bands, and those bands hold what they claim on runs they were not derived from.
#include "sim/dgl/fits.h"

#include "sim/dgl/calibration.h"
#include "sim/dgl/laws.h"
#include "sim/dgl/uncertainty.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>

namespace sim::dglmodels {
namespace {

const UncertainParameter& ParameterNamed(const std::string& key) {
  for (const UncertainParameter& p : UncertainParameters())
    if (key == p.key) return p;
  ADD_FAILURE() << "no uncertain parameter " << key;
  return UncertainParameters().front();
}

TEST(StudentTTest, QuantilesOfTheTDistribution) {
  // Tables of Student's t, 95 % one-sided.
  EXPECT_NEAR(StudentT95(1), 6.314, 1e-3);
  EXPECT_NEAR(StudentT95(2), 2.920, 1e-3);
  EXPECT_NEAR(StudentT95(5), 2.015, 2e-3);
  EXPECT_NEAR(StudentT95(10), 1.812, 1e-3);
  EXPECT_NEAR(StudentT95(29), 1.699, 1e-3);
  EXPECT_NEAR(StudentT95(1000), 1.646, 1e-3);
  EXPECT_EQ(StudentT95(0), StudentT95(1));
  for (int dof = 1; dof < 100; ++dof) EXPECT_GT(StudentT95(dof), StudentT95(dof + 1)) << dof;  // fewer points: wider
}

TEST(BandTest, HalfWidthIsTTimesTheRmsOfTheErrors) {
  const LooBand b = BandOf({0.1, -0.1, 0.2, -0.2});
  EXPECT_EQ(b.points, 4);
  EXPECT_NEAR(b.rms, std::sqrt(0.025), 1e-12);
  EXPECT_NEAR(b.mean_abs, 0.15, 1e-12);
  EXPECT_NEAR(b.half_width, StudentT95(3) * std::sqrt(0.025), 1e-12);
  EXPECT_EQ(BandOf({}).points, 0);
}

TEST(MeasuredRunsTest, EveryRunOfTheReportsIsThere) {
  const auto& runs = MeasuredRuns();
  ASSERT_EQ(runs.size(), 30u);
  for (const MeasuredRun& r : runs) {
    EXPECT_GT(r.edges, r.nodes) << r.file;
    EXPECT_GE(r.parts, 2) << r.file;
    EXPECT_GT(r.cpu_seconds, 0) << r.file;
    EXPECT_GT(r.peak_bytes, 40 * r.edges) << r.file;
    EXPECT_GT(r.cut_share(), 0) << r.file;
    EXPECT_LT(r.cut_share(), RandomCutFraction(r.parts)) << r.file;  // METIS beats random assignment
  }
}

TEST(FitsTest, TheMemoryConstantsAreTheLeastSquaresFit) {
  const Calibration c;
  const MemoryFit f = FitMetis32Memory(MeasuredRuns());
  EXPECT_NEAR(c.metis32_bytes_per_edge, f.per_edge, 0.05);
  EXPECT_NEAR(c.metis32_bytes_per_node, f.per_node, 0.05);
  EXPECT_NEAR(c.metis_memory_edges_per_node, f.per_node / f.per_edge, 0.005);
  // Leaving a run out moves the fit a little: it is not made by one run.
  for (std::size_t i = 0; i < MeasuredRuns().size(); ++i)
    EXPECT_NEAR(FitMetis32Memory(MeasuredRuns(), i).per_edge, f.per_edge, 0.05 * f.per_edge) << i;
}

TEST(FitsTest, TheRandomCutConstantsAreTheLeastSquaresFit) {
  const Calibration c;
  const CutFit f = FitRandomCut(MeasuredRuns());
  EXPECT_NEAR(c.metis_random_cut_q64, f.q64, 0.0005);
  EXPECT_NEAR(c.metis_random_cut_growth, f.growth, 0.0005);
  EXPECT_LT(f.q64, 1.0);
  EXPECT_GT(f.growth, 0.0);  // more parts cut a larger share
}

TEST(FitsTest, TheRandomPartsShareIsTheBestFitOfTheRunsTimes) {
  Calibration c;
  const double best = FitRandomPartsShare(c, MeasuredRuns());
  EXPECT_NEAR(c.metis_random_parts_share, best, 0.005);
}

// The error factor's range is exp(+-half-width) of the law's LOO band, rounded to two decimals.
void ExpectRangeIsTheBand(const std::string& key, const std::vector<double>& loo_errors) {
  const LooBand band = BandOf(loo_errors);
  ASSERT_EQ(band.points, 30);
  const UncertainParameter& p = ParameterNamed(key);
  EXPECT_NEAR(p.high, std::exp(band.half_width), 0.005) << key;
  EXPECT_NEAR(p.low * p.high, 1.0, 1e-12) << key;
  EXPECT_EQ(Calibration{}.*(p.member), 1.0) << key;
}

TEST(FitsTest, ErrorFactorsCarryTheLawsLeaveOneOutBands) {
  ExpectRangeIsTheBand("metisTimeError", MetisTimeLooErrors(Calibration{}));
  ExpectRangeIsTheBand("metisMemoryError", Metis32MemoryLooErrors());
  ExpectRangeIsTheBand("metisCutError", RandomCutLooErrors());
}

// Nested leave-one-out: run i's error under the law fitted without it, against the band derived from
// the other runs' LOO errors with run i left out of every fit too. The share of runs inside is the
// band's coverage on runs it never saw.
double NestedCoverage(const std::function<double(std::size_t skip_a, std::size_t skip_b)>& error_without) {
  const std::size_t n = MeasuredRuns().size();
  int inside = 0;
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<double> others;
    for (std::size_t j = 0; j < n; ++j)
      if (j != i) others.push_back(error_without(i, j));
    inside += std::abs(error_without(i, i)) <= BandOf(others).half_width ? 1 : 0;
  }
  return static_cast<double>(inside) / static_cast<double>(n);
}

// All runs but `a` and `b`.
std::vector<MeasuredRun> RunsWithout(std::size_t a, std::size_t b) {
  std::vector<MeasuredRun> out;
  for (std::size_t k = 0; k < MeasuredRuns().size(); ++k)
    if (k != a && k != b) out.push_back(MeasuredRuns()[k]);
  return out;
}

TEST(FitsTest, BandsHoldTheirClaimOnRunsTheyWereNotDerivedFrom) {
  const auto& runs = MeasuredRuns();
  const Calibration c;
  // 30 runs: a 90 % band may hold for 24 of them by chance (two binomial standard deviations).
  const double floor = kBandCoverage - 2 * std::sqrt(kBandCoverage * (1 - kBandCoverage) / runs.size());
  const double time = NestedCoverage([&](std::size_t a, std::size_t b) {
    Calibration here = c;
    here.metis_machine_speed = MeasuredMachineSpeed(c, RunsWithout(a, b));
    return std::log(runs[b].cpu_seconds / MetisSeconds(here, runs[b].shape(), runs[b].parts, 1));
  });
  const double memory = NestedCoverage([&](std::size_t a, std::size_t b) {
    const Calibration fit = WithMemoryFit(c, FitMetis32Memory(RunsWithout(a, b)));
    return std::log(runs[b].peak_bytes / Metis32Bytes(fit, runs[b].shape()));
  });
  const double cut = NestedCoverage([&](std::size_t a, std::size_t b) {
    const Calibration fit = WithRandomCutFit(c, FitRandomCut(RunsWithout(a, b)));
    return std::log(runs[b].cut_share() / MetisCutFraction(fit, runs[b].parts, Structure::kRandom));
  });
  EXPECT_GE(time, floor);
  EXPECT_GE(memory, floor);
  EXPECT_GE(cut, floor);
  EXPECT_GE((time + memory + cut) / 3, kBandCoverage - 2 * std::sqrt(0.09 / (3.0 * runs.size())));
}

TEST(FitsTest, TheRefitsPredictLeftOutRunsBetterThanTheConstantsTheyReplaced) {
  // The memory law was fitted to two runs (58 B per edge, 168 B per node) and the random cut set by
  // eye (q64 0.925, growth 0.3); over all runs, left out in turn, the refits err less.
  const auto& runs = MeasuredRuns();
  double old_memory = 0, old_cut = 0;
  for (const MeasuredRun& r : runs) {
    old_memory += std::abs(std::log(r.peak_bytes / (58 * r.edges + 168 * r.nodes)));
    old_cut += std::abs(std::log(
        r.cut_share() / (RandomCutFraction(r.parts) * std::min(1.0, 0.925 * std::pow(std::log2(r.parts) / 6.0, 0.3)))));
  }
  EXPECT_LT(BandOf(Metis32MemoryLooErrors()).mean_abs, old_memory / runs.size());
  EXPECT_LT(BandOf(RandomCutLooErrors()).mean_abs, old_cut / runs.size());
}

// ---- the real DGL pipeline measured here, and bands beyond the measured sizes ------------------------

TEST(DglRunsTest, EveryChunkedRunOfTheReportsIsThere) {
  for (const auto* runs : {&DispatchRuns(), &RandomPartitionRuns()}) {
    ASSERT_GE(runs->size(), 3u);
    for (const MeasuredDglRun& r : *runs) {
      EXPECT_GT(r.edges, r.nodes) << r.generator;
      EXPECT_GT(r.cpu_seconds, 0) << r.generator;
      EXPECT_GT(r.peak_bytes, 0) << r.generator;
      EXPECT_GT(r.size, 0) << r.generator;
    }
  }
}

TEST(DglFitsTest, TheChunkedPipelineConstantsAreTheLeastSquaresFitsAtTheReferenceSpeed) {
  // The constants are this machine's fits times its METIS speed against the reference machine.
  const Calibration c;
  const double speed = MeasuredMachineSpeed(c, MeasuredRuns());
  const LineFit dispatch = FitLine(DispatchRuns()), random = FitLine(RandomPartitionRuns());
  EXPECT_NEAR(c.dispatch_seconds_per_edge, dispatch.per_unit * speed, 0.01 * dispatch.per_unit * speed);
  EXPECT_NEAR(c.dispatch_fixed_seconds, dispatch.fixed * speed, 0.01 * dispatch.fixed * speed + 1e-9);
  EXPECT_NEAR(c.random_partition_seconds_per_node, random.per_unit * speed, 0.01 * random.per_unit * speed);
  EXPECT_NEAR(c.random_partition_fixed_seconds, random.fixed * speed, 0.01 * random.fixed * speed + 1e-9);
  EXPECT_GT(dispatch.per_unit, 0);  // more edges per rank: more work
}

TEST(DglFitsTest, ALineThroughExactPointsIsRecoveredAndLeftOutRunsPredictedExactly) {
  std::vector<MeasuredDglRun> runs;
  for (double x : {1e6, 4e6, 16e6}) runs.push_back({"t", x / 16, x, 1, 5 + 2e-6 * x, 1, x});
  const LineFit f = FitLine(runs);
  EXPECT_NEAR(f.fixed, 5, 1e-9);
  EXPECT_NEAR(f.per_unit, 2e-6, 1e-15);
  for (double e : LineLooErrors(runs)) EXPECT_NEAR(e, 0, 1e-9);
  // Below 16 M: fitted on the two smaller sizes, it still predicts the largest.
  EXPECT_NEAR(FitLine(runs, kKeepAll, 16e6).at(16e6), 37, 1e-6);
}

TEST(ExtrapolationTest, DistanceIsZeroInsideAndLogOutside) {
  EXPECT_EQ(ExtrapolationDistance(5, 1, 10), 0);
  EXPECT_EQ(ExtrapolationDistance(1, 1, 10), 0);
  EXPECT_NEAR(ExtrapolationDistance(100, 1, 10), std::log(10.0), 1e-12);
  EXPECT_NEAR(ExtrapolationDistance(0.5, 1, 10), std::log(2.0), 1e-12);
  EXPECT_EQ(ExtrapolationDistance(0, 1, 10), 0);  // no size: nothing to say
  EXPECT_EQ(ExtrapolationDistance(0.5, 0, 10), 0);  // no lower end: the laws widen upwards only
  EXPECT_EQ(MetisExtrapolationDistance({1e3, 1e4, 0, Structure::kReal}), 0);
  const Calibration c;
  EXPECT_NEAR(DispatchRankSeconds(c, kDispatchCheckedLow / 100),
              c.dispatch_fixed_seconds + c.dispatch_seconds_per_edge * kDispatchCheckedLow / 100, 1e-9);
}

// An extrapolation factor's range is exp(+-t x rate) per e-fold, rounded to two decimals.
void ExpectRangeIsTheRate(const std::string& key, const Extrapolation& x) {
  const UncertainParameter& p = ParameterNamed(key);
  EXPECT_NEAR(p.high, std::exp(StudentT95(x.points - 1) * x.rate()), 0.005) << key;
  EXPECT_NEAR(p.low * p.high, 1.0, 1e-12) << key;
  EXPECT_EQ(Calibration{}.*(p.member), 1.0) << key;
  EXPECT_GE(x.rate(), x.slope_rate) << key;
  EXPECT_GT(x.slope_rate, 0) << key;
}

TEST(ExtrapolationTest, FactorsCarryTheRatesTheRunsShow) {
  ExpectRangeIsTheRate("metisTimeExtrapolation", MetisTimeExtrapolation(Calibration{}));
  ExpectRangeIsTheRate("dispatchExtrapolation", LineExtrapolation(DispatchRuns()));
  ExpectRangeIsTheRate("randomPartitionExtrapolation", LineExtrapolation(RandomPartitionRuns()));
  const LooBand dispatch = BandOf(LineLooErrors(DispatchRuns()));
  EXPECT_NEAR(ParameterNamed("dispatchTimeError").high, std::exp(dispatch.half_width), 0.005);
  const LooBand random = BandOf(LineLooErrors(RandomPartitionRuns()));
  EXPECT_NEAR(ParameterNamed("randomPartitionError").high, std::exp(random.half_width), 0.005);
}

// The band's width in log space, low to high, of `model`.
double LogWidth(const std::function<double(const Calibration&)>& model) {
  const Estimate e = ParameterEnds(Calibration{}).Evaluate(model);
  return std::log(e.high / e.low);
}

TEST(ExtrapolationTest, BandsWidenWithTheDistanceBeyondTheMeasuredSizes) {
  // Inside the measured edges per rank the band does not depend on the size; beyond, it widens
  // with every e-fold, and the value is the law's (the factors are 1 at their values).
  const double inside_a = LogWidth([](const Calibration& c) { return DispatchRankSeconds(c, kDispatchCheckedLow); });
  const double inside_b = LogWidth([](const Calibration& c) { return DispatchRankSeconds(c, kDispatchCheckedHigh); });
  EXPECT_NEAR(inside_a, inside_b, 1e-9);
  double previous = inside_b;
  for (double k : {4.0, 40.0, 400.0}) {
    const double width = LogWidth([k](const Calibration& c) { return DispatchRankSeconds(c, k * kDispatchCheckedHigh); });
    EXPECT_GT(width, previous + 1e-6) << k;
    previous = width;
  }
  const Calibration c;
  EXPECT_NEAR(DispatchRankSeconds(c, 400 * kDispatchCheckedHigh),
              c.dispatch_fixed_seconds + c.dispatch_seconds_per_edge * 400 * kDispatchCheckedHigh, 1e-6);
  // METIS: a graph without locality 30 times past the largest run measured has a wider band than
  // one inside; a real graph of the same size lies inside the published range.
  const GraphShape inside{1e6, 30e6, 0, Structure::kRandom}, far{1e8, 30 * 63.5e6, 0, Structure::kRandom};
  EXPECT_EQ(MetisExtrapolationDistance(inside), 0);
  EXPECT_NEAR(MetisExtrapolationDistance(far), std::log(30 * 63.5e6 / 63'543'364), 1e-9);
  EXPECT_EQ(MetisExtrapolationDistance({1e8, 30 * 63.5e6, 0, Structure::kReal}), 0);
  EXPECT_GT(LogWidth([&](const Calibration& k) { return MetisSeconds(k, far, 8, 1); }),
            LogWidth([&](const Calibration& k) { return MetisSeconds(k, inside, 8, 1); }) + 0.05);
}

TEST(ExtrapolationTest, LeaveOneScaleOutPredictsTheLargestSizesFromTheSmallerOnes) {
  for (const Extrapolation& x :
       {MetisTimeExtrapolation(Calibration{}), LineExtrapolation(DispatchRuns()), LineExtrapolation(RandomPartitionRuns())}) {
    ASSERT_FALSE(x.scale_outs.empty());
    for (const ScaleOut& o : x.scale_outs) {
      EXPECT_GT(o.distance, 0);  // always beyond what the fit saw
      EXPECT_GT(o.half_width, 0);
    }
  }
}

}  // namespace
}  // namespace sim::dglmodels
