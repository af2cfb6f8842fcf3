// Edge-list datasets in the workload models: a real graph file is read, partitioned for real with
// METIS when a job asks for N parts, and the measured parts (not the even split of the size-only
// model) drive the partition sizes the programs move and train on.
#include "sim/dgl/dataset.h"

#include <gtest/gtest.h>

#include <numeric>
#include <string>

namespace sim::dglmodels {
namespace {

DatasetInfo Karate() {
  DatasetInfo d;
  d.name = "karate";
  d.edge_list = std::string(DGLSIM_SOURCE_DIR) + "/scenarios/graphs/karate.txt";
  return d;
}

TEST(DglDatasetTest, AnEdgeListGivesTheGraphsRealSize) {
  DglEnvironment env(Calibration{}, {Karate()});
  ASSERT_EQ(env.datasets().size(), 1u);
  const DatasetInfo& d = env.datasets()[0];
  EXPECT_EQ(d.measure_error, "");
  EXPECT_EQ(d.nodes, 34);  // Zachary's karate club
  EXPECT_EQ(d.edges, 78);
}

TEST(DglDatasetTest, MeasuredPartsComeFromMetisAndCoverTheGraph) {
  DglEnvironment env(Calibration{}, {Karate()});
  const DatasetInfo& d = env.datasets()[0];
  for (int parts : {2, 3, 4}) {
    const MeasuredPartition* m = env.Measured(d, parts);
    ASSERT_NE(m, nullptr) << parts;
    ASSERT_EQ(m->part_nodes.size(), static_cast<std::size_t>(parts));
    EXPECT_EQ(std::accumulate(m->part_nodes.begin(), m->part_nodes.end(), std::int64_t{0}), 34) << parts;
    // Every symmetrised edge is owned by exactly one part (its destination's).
    EXPECT_EQ(std::accumulate(m->part_edges.begin(), m->part_edges.end(), std::int64_t{0}), 2 * 78) << parts;
    EXPECT_GT(m->edge_cut, 0) << parts;
    EXPECT_LT(m->edge_cut, 78) << parts;
  }
  // Different part counts give different sizes.
  EXPECT_NE(env.Measured(d, 2)->part_nodes, env.Measured(d, 4)->part_nodes);
}

TEST(DglDatasetTest, TheSameGraphGivesTheSamePartitionInEveryEnvironment) {
  DglEnvironment a(Calibration{}, {Karate()});
  DglEnvironment b(Calibration{}, {Karate()});
  const MeasuredPartition* pa = a.Measured(a.datasets()[0], 4);
  const MeasuredPartition* pb = b.Measured(b.datasets()[0], 4);
  ASSERT_TRUE(pa && pb);
  EXPECT_EQ(pa->part_nodes, pb->part_nodes);
  EXPECT_EQ(pa->part_edges, pb->part_edges);
  EXPECT_EQ(pa->part_halo, pb->part_halo);
  EXPECT_EQ(pa->edge_cut, pb->edge_cut);
}

TEST(DglDatasetTest, TheModelsUseTheMeasuredPartsInsteadOfAnEvenSplit) {
  DglEnvironment env(Calibration{}, {Karate()});
  DatasetInfo d = env.datasets()[0];
  PartSizes even = SplitGraph(d, env.calibration(), 4, /*random=*/false);
  EXPECT_FALSE(even.measured);
  d.measured[4] = *env.Measured(d, 4);
  PartSizes real = SplitGraph(d, env.calibration(), 4, /*random=*/false);
  EXPECT_TRUE(real.measured);
  ASSERT_EQ(real.nodes.size(), 4u);
  const MeasuredPartition& m = d.measured[4];
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(real.nodes[i], static_cast<double>(m.part_nodes[i]));
    EXPECT_EQ(real.halo[i], static_cast<double>(m.part_halo[i]));
  }
  EXPECT_DOUBLE_EQ(real.cut_fraction, static_cast<double>(m.edge_cut) / 78.0);
}

TEST(DglDatasetTest, AnUnreadableGraphIsReportedNotFatal) {
  DatasetInfo d;
  d.name = "missing";
  d.edge_list = "/nonexistent/graph.txt";
  DglEnvironment env(Calibration{}, {d});
  EXPECT_NE(env.datasets()[0].measure_error, "");
  EXPECT_EQ(env.Measured(env.datasets()[0], 2), nullptr);
}

}  // namespace
}  // namespace sim::dglmodels
