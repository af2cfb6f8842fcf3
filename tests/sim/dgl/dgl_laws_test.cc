// The shape of each scaling law of sim/dgl/laws.h: monotone where reality is (more edges, nodes,
// parts, constraints take longer; more machines cut more edges), flattening where reality
// flattens (ParMETIS's efficiency, DistDGL's speed-up), and anchored: the published point holds at
// every end of every uncertain parameter's range.
#include "sim/dgl/calibration.h"
#include "sim/dgl/laws.h"
#include "sim/dgl/uncertainty.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace sim::dglmodels {
namespace {

const GraphShape kPapers{kPapersNodes, kPapersSymEdges, kPapersFeatureDim, Structure::kReal};
const GraphShape kProducts{kProductsNodes, kProductsSymEdges, kProductsFeatureDim, Structure::kReal};

bool IsErrorFactor(const UncertainParameter& p) {
  const std::string key = p.key;
  return key.size() > 5 && key.compare(key.size() - 5, 5, "Error") == 0;
}

// The calibration with each uncertain shape parameter at each end of its range, and the defaults.
// (The laws' error factors move every prediction of their law, anchors included, on purpose.)
std::vector<Calibration> EveryEnd() {
  std::vector<Calibration> out{Calibration{}};
  for (const UncertainParameter& p : UncertainParameters()) {
    if (IsErrorFactor(p)) continue;
    out.push_back(AtRangeEnd(Calibration{}, p, false));
    out.push_back(AtRangeEnd(Calibration{}, p, true));
  }
  return out;
}

TEST(MetisLawTest, TimeGrowsWithEdgesNodesPartsAndConstraintsAndSuperlinearlyWithSize) {
  const Calibration c;
  GraphShape g = kProducts;
  const double base = MetisSeconds(c, g, 64, 1);
  GraphShape more_edges = g;
  more_edges.sym_edges *= 2;
  GraphShape more_nodes = g;
  more_nodes.nodes *= 2;
  EXPECT_GT(MetisSeconds(c, more_edges, 64, 1), base);
  EXPECT_GT(MetisSeconds(c, more_nodes, 64, 1), base);
  GraphShape twice = g;
  twice.nodes *= 2;
  twice.sym_edges *= 2;
  EXPECT_GT(MetisSeconds(c, twice, 64, 1), 2 * base);  // caches and NUMA: per-edge cost grows
  for (int parts = 2; parts < 8192; parts *= 2)
    EXPECT_GT(MetisSeconds(c, g, 2 * parts, 1), MetisSeconds(c, g, parts, 1)) << parts;
  for (int ncon = 1; ncon < 4; ++ncon) EXPECT_GT(MetisSeconds(c, g, 64, ncon + 1), MetisSeconds(c, g, 64, ncon));
  GraphShape random = g;
  random.structure = Structure::kRandom;
  EXPECT_GT(MetisSeconds(c, random, 64, 1), 2 * base);  // no locality: slower per edge
}

TEST(MetisLawTest, PartCountGrowthIsTheProductsLogs) {
  const Calibration c;
  const double at64 = MetisSeconds(c, kProducts, 64, 1);
  EXPECT_NEAR(MetisSeconds(c, kProducts, 1024, 1) / at64, 37.6 / 20.8, 0.01);
  EXPECT_NEAR(MetisSeconds(c, kProducts, 4096, 1) / at64, 66.8 / 20.8, 0.01);
  // Below 64 parts the time hardly changes: most of it does not depend on the parts.
  EXPECT_GT(MetisSeconds(c, kProducts, 2, 1) / at64, 0.8);
}

TEST(MetisLawTest, AnchoredAtThePublishedLogAtEveryEndOfEveryRange) {
  for (const Calibration& c : EveryEnd()) {
    EXPECT_NEAR(MetisSeconds(c, kPapers, 64, 4), 4845.8, 1e-6);
    EXPECT_NEAR(MetisWorkspaceBytes(c, kPapers) + 234e9 + 8.0 * 4 * kPapersNodes, 599.2e9, 1e3);
  }
}

TEST(MetisLawTest, ErrorFactorsScaleTheirLawsAndNothingElse) {
  Calibration c;
  const double seconds = MetisSeconds(c, kPapers, 64, 4), workspace = MetisWorkspaceBytes(c, kPapers);
  const double cut = MetisCutFraction(c, 16, Structure::kRandom), real_cut = MetisCutFraction(c, 16, Structure::kReal);
  c.metis_time_error = 2;
  c.metis_memory_error = 1.5;
  c.metis_cut_error = 1.1;
  EXPECT_NEAR(MetisSeconds(c, kPapers, 64, 4), 2 * seconds, 1e-6);
  EXPECT_NEAR(MetisWorkspaceBytes(c, kPapers), 1.5 * workspace, 1e3);
  EXPECT_NEAR(Metis32Bytes(c, kProducts), 1.5 * Metis32Bytes(Calibration{}, kProducts), 1);
  EXPECT_NEAR(MetisCutFraction(c, 16, Structure::kRandom), 1.1 * cut, 1e-12);
  EXPECT_EQ(MetisCutFraction(c, 16, Structure::kReal), real_cut);
  // A cut never exceeds random assignment's, whatever the factor.
  c.metis_cut_error = 5;
  EXPECT_LE(MetisCutFraction(c, 4096, Structure::kRandom), RandomCutFraction(4096));
  // Every error factor is one at its value and has a range on both sides of it.
  int factors = 0;
  for (const UncertainParameter& p : UncertainParameters()) {
    if (!IsErrorFactor(p)) continue;
    ++factors;
    EXPECT_EQ(Calibration{}.*(p.member), 1.0) << p.key;
    EXPECT_LT(p.low, 1.0) << p.key;
    EXPECT_GT(p.high, 1.0) << p.key;
  }
  EXPECT_EQ(factors, 5);  // METIS time, memory, cut; dispatch_data.py, random_partition.py
}

TEST(ChunkedLawTest, ErrorAndExtrapolationFactorsScaleTheChunkedLaws) {
  Calibration c;
  const double inside = DispatchRankSeconds(c, kDispatchCheckedHigh);
  const double far = DispatchRankSeconds(c, std::exp(2.0) * kDispatchCheckedHigh);
  const double nodes = RandomPartitionSeconds(c, kRandomPartitionCheckedHigh);
  c.dispatch_time_error = 1.5;
  c.dispatch_extrapolation = 2;
  c.random_partition_error = 1.2;
  EXPECT_NEAR(DispatchRankSeconds(c, kDispatchCheckedHigh), 1.5 * inside, 1e-9);        // inside: the band alone
  EXPECT_NEAR(DispatchRankSeconds(c, std::exp(2.0) * kDispatchCheckedHigh), 1.5 * 4 * far, 1e-6);  // 2 e-folds out
  EXPECT_NEAR(RandomPartitionSeconds(c, kRandomPartitionCheckedHigh), 1.2 * nodes, 1e-9);
  c.metis_time_extrapolation = 2;
  const GraphShape rmat{1e8, std::exp(1.0) * 63'543'364, 0, Structure::kRandom};
  EXPECT_NEAR(MetisSeconds(c, rmat, 8, 1), 2 * MetisSeconds(Calibration{}, rmat, 8, 1), 1e-6);
  EXPECT_NEAR(MetisSeconds(c, kPapers, 64, 4), MetisSeconds(Calibration{}, kPapers, 64, 4), 1e-9);  // inside
}

TEST(MetisLawTest, ConstraintsAreFittedToPlainMetisOnProductsAtTheHomeMachinesSpeed) {
  for (const Calibration& c : EveryEnd())
    EXPECT_NEAR(MetisSeconds(c, kProducts, 64, 1) / c.metis_home_machine_speed, 20.8, 0.01);
}

TEST(MetisLawTest, MemoryGrowsWithEdgesAndNodesAndMatchesTheMeasured32BitLaw) {
  const Calibration c;
  GraphShape g = kProducts;
  const double base = MetisWorkspaceBytes(c, g);
  g.sym_edges *= 2;
  EXPECT_GT(MetisWorkspaceBytes(c, g), 1.5 * base);
  g = kProducts;
  g.nodes *= 2;
  EXPECT_GT(MetisWorkspaceBytes(c, g), base);
  // mt-metis (docs/models.md): 7.4 GB on products, 232.4 GB on papers100M; the 32-bit law within 15 %.
  EXPECT_NEAR(Metis32Bytes(c, kProducts), 7.4e9, 0.15 * 7.4e9);
  EXPECT_NEAR(Metis32Bytes(c, kPapers), 232.4e9, 0.15 * 232.4e9);
}

TEST(EdgeCutLawTest, CutGrowsWithPartsStaysBelowRandomAndRandomGraphsCutMore) {
  const Calibration c;
  EXPECT_EQ(MetisCutFraction(c, 1, Structure::kReal), 0.0);
  double last = 0;
  for (int parts = 2; parts <= 4096; parts *= 2) {
    const double cut = MetisCutFraction(c, parts, Structure::kReal);
    EXPECT_GT(cut, last) << parts;
    EXPECT_LT(cut, RandomCutFraction(parts)) << parts;
    EXPECT_GT(MetisCutFraction(c, parts, Structure::kRandom), cut) << parts;
    EXPECT_LE(MetisCutFraction(c, parts, Structure::kRandom), RandomCutFraction(parts)) << parts;
    last = cut;
  }
  // ogbn-products at 64 parts: 16.7 M of 123.7 M symmetrised edges; random assignment 121.8 M.
  EXPECT_NEAR(MetisCutFraction(c, 64, Structure::kReal) * kProductsSymEdges, 16.7e6, 0.2e6);
  EXPECT_NEAR(RandomCutFraction(64) * kProductsSymEdges, 121.8e6, 0.1e6);
}

TEST(ParmetisLawTest, EfficiencyFallsWithTheRanksInsideThePlanningRange) {
  const Calibration c;
  double last = 1.0;
  for (int ranks = 2; ranks <= 1024; ranks *= 2) {
    const double e = ParmetisEfficiency(c, ranks);
    EXPECT_LT(e, last) << ranks;
    if (ranks >= 4 && ranks <= 64) {
      EXPECT_GE(e, 0.5) << ranks;  // docs/models.md: 0.5-0.8 per rank
      EXPECT_LE(e, 0.8 + 1e-9) << ranks;
    }
    last = e;
  }
}

TEST(ParmetisLawTest, DoublingTheMachinesNeverHalvesTheTimeAndHelpsLessEachTime) {
  const Calibration c;
  double previous_ratio = 0;
  for (int machines = 4; machines < 1024; machines *= 2) {
    const ParmetisTime a = ParmetisSeconds(c, kPapers, machines, 1, machines, machines, 12.5e9, 1.0);
    const ParmetisTime b = ParmetisSeconds(c, kPapers, 2 * machines, 1, 2 * machines, 2 * machines, 12.5e9, 1.0);
    const double ratio = b.total() / a.total();
    EXPECT_GT(ratio, 0.5) << machines;
    EXPECT_GT(ratio, previous_ratio) << machines;  // flattening
    previous_ratio = ratio;
  }
  // Communication takes a growing share of the time; with many ranks its messages dominate it.
  const ParmetisTime four = ParmetisSeconds(c, kPapers, 4, 1, 4, 4, 12.5e9, 1.0);
  const ParmetisTime many = ParmetisSeconds(c, kPapers, 1024, 1, 1024, 1024, 12.5e9, 1.0);
  EXPECT_GT(many.communication / many.total(), 10 * four.communication / four.total());
  EXPECT_GT(many.communication, ParmetisSeconds(c, kPapers, 256, 1, 256, 256, 12.5e9, 1.0).communication);
}

TEST(ParmetisLawTest, TheMessageLimitOfParmetisIssue8) {
  const Calibration c;
  const GraphShape billion{0, 2e9, 0, Structure::kReal};
  EXPECT_TRUE(CheckParmetis(c, billion, 1).overflows);   // 3 ranks on one machine crashed
  EXPECT_FALSE(CheckParmetis(c, billion, 3).overflows);  // across 3 machines it worked
  const GraphShape bigger{0, 2 * 2.19e9, 0, Structure::kReal};
  EXPECT_TRUE(CheckParmetis(c, bigger, 3).overflows);    // 2.19 B edges failed even on 3 machines
}

EpochTime PapersEpoch(const Calibration& c, EpochConfig config) {
  return Epoch(c, kPapers, kPapersTrainNodes, config);
}

TEST(EpochLawTest, DistDglsThirteenSecondsHoldAtEveryEndOfEveryRange) {
  for (const Calibration& c : EveryEnd()) {
    const int trainers = static_cast<int>(std::lround(c.reference_trainers));
    EXPECT_NEAR(PapersEpoch(c, {.machines = 16, .trainers = trainers}).total, 13.0, 1e-6);
  }
}

TEST(EpochLawTest, SpeedUpFlattensAsTheRemoteShareGrowsWithTheMachines) {
  const Calibration c;
  double previous_ratio = 0, previous_remote = 0;
  for (int machines = 2; machines <= 64; machines *= 2) {
    const EpochTime a = PapersEpoch(c, {.machines = machines});
    const EpochTime b = PapersEpoch(c, {.machines = 2 * machines});
    const double ratio = b.total / a.total;
    EXPECT_GT(ratio, 0.5) << machines;                 // never halves
    EXPECT_GT(ratio, previous_ratio - 0.01) << machines;  // and helps less as machines are added
    const double remote = RemoteFraction(c, 2 * machines, MetisCutFraction(c, 2 * machines, Structure::kReal));
    EXPECT_GT(remote, previous_remote) << machines;
    previous_ratio = ratio;
    previous_remote = remote;
  }
}

TEST(EpochLawTest, RandomPartitionsFetchMoreAndGpusTrainersAndSamplersHelp) {
  const Calibration c;
  const EpochTime metis = PapersEpoch(c, {.machines = 16});
  const EpochTime random = PapersEpoch(c, {.machines = 16, .cut_fraction = RandomCutFraction(16)});
  EXPECT_GT(random.total, metis.total);
  EXPECT_GT(random.remote_bytes_per_machine, 3 * metis.remote_bytes_per_machine);
  EXPECT_LT(PapersEpoch(c, {.machines = 16, .gpus = 1}).total, metis.total);
  EXPECT_LT(PapersEpoch(c, {.machines = 16, .trainers = 4}).total, metis.total);
  EXPECT_LT(PapersEpoch(c, {.machines = 16, .samplers = 4}).total, metis.total);
  // A slower CPU takes longer.
  EXPECT_GT(PapersEpoch(c, {.machines = 16, .cpu_speed = 0.5}).total, metis.total);
}

// A pod that holds no partition fetches every sampled feature: remote_fraction 1 replaces the cut's
// share (at most 1 - 1/machines) in both the time and the bytes.
TEST(EpochLawTest, ARemoteFractionOfOneFetchesEveryFeature) {
  const Calibration c;
  const EpochTime cut = PapersEpoch(c, {.machines = 16});
  const EpochTime all = PapersEpoch(c, {.machines = 16, .remote_fraction = 1.0});
  EXPECT_GT(all.train, cut.train);
  EXPECT_EQ(all.sampling, cut.sampling);
  EXPECT_DOUBLE_EQ(all.remote_bytes_per_machine,
                   kPapersTrainNodes / 16 * c.sampled_nodes_per_seed * c.feature_bytes_per_value * kPapers.feature_dim);
  // The cut no longer matters, and a fraction above 1 is 1.
  EXPECT_DOUBLE_EQ(PapersEpoch(c, {.machines = 16, .cut_fraction = 0.01, .remote_fraction = 1.0}).total, all.total);
  EXPECT_DOUBLE_EQ(PapersEpoch(c, {.machines = 16, .remote_fraction = 3.0}).total, all.total);
}

TEST(EpochLawTest, SamplingTimeIsTheGraphBoltReadmes) {
  const Calibration c;
  EXPECT_NEAR(SamplingSecondsPerEpoch(c, kProductsTrainNodes, {.machines = 2, .trainers = 4}), (1.2884 + 1.4159) / 2, 0.07);
  EXPECT_NEAR(SamplingSecondsPerEpoch(c, kPapersTrainNodes, {.machines = 2, .trainers = 4}), (5.557 + 6.19) / 2, 0.3);
}

TEST(MemoryLawTest, ProcessesAndSharedMemoryGrowWithTheGraph) {
  const Calibration c;
  EXPECT_GT(ProcessBytes(c, kPapersNodes), ProcessBytes(c, kProductsNodes));
  EXPECT_GT(SharedMemoryBytes(c, kPapers, 2e9, 60e6, 60e6), SharedMemoryBytes(c, kPapers, 1e9, 60e6, 60e6));
  EXPECT_GT(SharedMemoryBytes(c, kPapers, 1e9, 60e6, 60e6), SharedMemoryBytes(c, kPapers, 1e9, 30e6, 30e6));
}

}  // namespace
}  // namespace sim::dglmodels
