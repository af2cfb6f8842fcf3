// The synthetic graph generators: seeded, the sizes asked for, and the shapes they are known for.
#include "sim/graph/graph.h"

#include "sim/graph/csr_graph.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace sim::graph {
namespace {

// The adjacency as one flat list, to compare two graphs exactly.
std::vector<std::uint32_t> Adjacency(const Graph& graph) {
  std::vector<std::uint32_t> out;
  for (std::uint32_t u = 0; u < graph.nodes(); ++u) {
    auto [begin, end] = boost::adjacent_vertices(u, graph.csr());
    out.push_back(static_cast<std::uint32_t>(end - begin));
    out.insert(out.end(), begin, end);
  }
  return out;
}

std::vector<std::int64_t> Degrees(const Graph& graph) {
  std::vector<std::int64_t> out;
  for (std::uint32_t u = 0; u < graph.nodes(); ++u) out.push_back(boost::out_degree(u, graph.csr()));
  return out;
}

TEST(GenerateRmatTest, SameSeedSameGraphOtherSeedOtherGraph) {
  auto a = GenerateRmat(10, 16 * 1024, 5);
  auto b = GenerateRmat(10, 16 * 1024, 5);
  auto c = GenerateRmat(10, 16 * 1024, 6);
  EXPECT_EQ(Adjacency(*a), Adjacency(*b));
  EXPECT_NE(Adjacency(*a), Adjacency(*c));
}

TEST(GenerateRmatTest, HasTwoToTheScaleNodesAndAtMostTheEdgesDrawn) {
  for (int scale : {4, 8, 12}) {
    const std::int64_t drawn = 16 << scale;
    auto graph = GenerateRmat(scale, drawn, 1);
    ASSERT_NE(graph, nullptr);
    GraphSize size = SizeOf(*graph);
    EXPECT_EQ(size.nodes, std::int64_t{1} << scale);
    EXPECT_LE(size.edges, drawn);
    // Self loops and repeats are dropped, but at these densities most draws survive at scale 12.
    if (scale == 12) {
      EXPECT_GT(size.edges, drawn / 2);
    }
  }
}

TEST(GenerateRmatTest, DegreesAreSkewed) {
  // R-MAT with a = 0.57 concentrates edges on low ids: the top degree is far above the mean.
  auto graph = GenerateRmat(14, 16 << 14, 2);
  std::vector<std::int64_t> degrees = Degrees(*graph);
  const double mean = 2.0 * static_cast<double>(graph->edges()) / static_cast<double>(graph->nodes());
  EXPECT_GT(static_cast<double>(*std::max_element(degrees.begin(), degrees.end())), 20 * mean);
}

TEST(GenerateRmatTest, BadArgumentsGiveNoGraph) {
  EXPECT_EQ(GenerateRmat(-1, 10, 0), nullptr);
  EXPECT_EQ(GenerateRmat(32, 10, 0), nullptr);
  EXPECT_EQ(GenerateRmat(4, -1, 0), nullptr);
  auto empty = GenerateRmat(3, 0, 0);
  ASSERT_NE(empty, nullptr);
  EXPECT_EQ(SizeOf(*empty).nodes, 8);
  EXPECT_EQ(SizeOf(*empty).edges, 0);
}

TEST(GeneratePowerLawTest, SameSeedSameGraphOtherSeedOtherGraph) {
  EXPECT_EQ(Adjacency(*GeneratePowerLaw(1000, 3, 8)), Adjacency(*GeneratePowerLaw(1000, 3, 8)));
  EXPECT_NE(Adjacency(*GeneratePowerLaw(1000, 3, 8)), Adjacency(*GeneratePowerLaw(1000, 3, 9)));
}

TEST(GeneratePowerLawTest, ExactSizesAsAsked) {
  // A clique on m + 1 nodes, then m distinct edges per further node: no duplicates can arise.
  for (int m : {1, 2, 5}) {
    const std::int64_t nodes = 3000;
    GraphSize size = SizeOf(*GeneratePowerLaw(nodes, m, 4));
    EXPECT_EQ(size.nodes, nodes);
    EXPECT_EQ(size.edges, std::int64_t{m} * (m + 1) / 2 + (nodes - m - 1) * m) << "m = " << m;
  }
  // Fewer nodes than the seed clique: just a clique.
  GraphSize small = SizeOf(*GeneratePowerLaw(3, 5, 0));
  EXPECT_EQ(small.nodes, 3);
  EXPECT_EQ(small.edges, 3);
}

TEST(GeneratePowerLawTest, EveryNodeHasAtLeastMEdgesAndHubsEmerge) {
  auto graph = GeneratePowerLaw(20000, 2, 3);
  std::vector<std::int64_t> degrees = Degrees(*graph);
  EXPECT_GE(*std::min_element(degrees.begin(), degrees.end()), 2);
  // Preferential attachment: the largest hub has grown to far above the mean degree of about 4.
  EXPECT_GT(*std::max_element(degrees.begin(), degrees.end()), 100);
}

TEST(GeneratePowerLawTest, BadArgumentsGiveNoGraph) {
  EXPECT_EQ(GeneratePowerLaw(0, 2, 0), nullptr);
  EXPECT_EQ(GeneratePowerLaw(10, 0, 0), nullptr);
}

}  // namespace
}  // namespace sim::graph
