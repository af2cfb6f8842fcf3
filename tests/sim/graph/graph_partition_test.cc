// Partitioning real graphs with METIS and at random: the per-part figures the DGL models use are
// checked against brute-force counts, and the same seed gives the same assignment.
#include "sim/graph/graph.h"

#include "sim/graph/csr_graph.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace sim::graph {
namespace {

const std::string kKarate = std::string(DGLSIM_SOURCE_DIR) + "/scenarios/graphs/karate.txt";

std::shared_ptr<const Graph> Karate() {
  ReadResult read = ReadEdgeList(kKarate);
  EXPECT_EQ(read.error, "");
  return read.graph;
}

// Every undirected edge once, as (u, v) with u < v, straight from the adjacency.
std::vector<std::pair<std::uint32_t, std::uint32_t>> Edges(const Graph& graph) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> out;
  for (std::uint32_t u = 0; u < graph.nodes(); ++u) {
    auto [begin, end] = boost::adjacent_vertices(u, graph.csr());
    for (auto it = begin; it != end; ++it)
      if (u < *it) out.emplace_back(u, *it);
  }
  return out;
}

// The brute-force figures: for each part, the set of its halo nodes, the edges it owns, and the cut.
struct BruteForce {
  std::vector<std::int64_t> nodes, owned, halo;
  std::int64_t cut = 0;
};

BruteForce Count(const Graph& graph, const std::vector<int>& assignment, int parts) {
  BruteForce out;
  out.nodes.assign(parts, 0);
  out.owned.assign(parts, 0);
  std::vector<std::set<std::uint32_t>> halo(parts);
  for (int p : assignment) ++out.nodes[p];
  for (auto [u, v] : Edges(graph)) {
    // Symmetrised: u -> v is owned by v's part, v -> u by u's part.
    ++out.owned[assignment[v]];
    ++out.owned[assignment[u]];
    if (assignment[u] != assignment[v]) {
      ++out.cut;
      halo[assignment[u]].insert(v);
      halo[assignment[v]].insert(u);
    }
  }
  for (const auto& h : halo) out.halo.push_back(static_cast<std::int64_t>(h.size()));
  return out;
}

void ExpectMatchesBruteForce(const Graph& graph, const Partition& partition) {
  ASSERT_EQ(partition.error, "");
  ASSERT_EQ(static_cast<std::int64_t>(partition.assignment.size()), graph.nodes());
  ASSERT_EQ(static_cast<int>(partition.part_stats.size()), partition.parts);
  BruteForce expected = Count(graph, partition.assignment, partition.parts);
  std::int64_t node_sum = 0, owned_sum = 0;
  for (int p = 0; p < partition.parts; ++p) {
    EXPECT_EQ(partition.part_stats[p].nodes, expected.nodes[p]) << "part " << p;
    EXPECT_EQ(partition.part_stats[p].edges, expected.owned[p]) << "part " << p;
    EXPECT_EQ(partition.part_stats[p].halo_nodes, expected.halo[p]) << "part " << p;
    node_sum += partition.part_stats[p].nodes;
    owned_sum += partition.part_stats[p].edges;
  }
  EXPECT_EQ(node_sum, graph.nodes());
  EXPECT_EQ(owned_sum, 2 * graph.edges());
  EXPECT_EQ(partition.edge_cut, expected.cut);
}

TEST(GraphPartitionTest, MetisSplitsKarateIntoTwoWithAFewCutEdges) {
  auto graph = Karate();
  Partition partition = PartitionGraph(*graph, 2, Method::kMetis, 1);
  ExpectMatchesBruteForce(*graph, partition);
  EXPECT_EQ(partition.method, Method::kMetis);
  EXPECT_EQ(partition.parts, 2);
  // The club famously splits along about ten friendships; a random halving cuts about half of 78.
  EXPECT_GT(partition.edge_cut, 0);
  EXPECT_LE(partition.edge_cut, 15);
  for (const PartStats& stats : partition.part_stats) {
    EXPECT_GE(stats.nodes, 15);
    EXPECT_GT(stats.halo_nodes, 0);
  }
}

TEST(GraphPartitionTest, HandComputedHaloOnAPath) {
  // 0 - 1 - 2 - 3 split as {0, 1} and {2, 3}: one cut edge, each part has one halo node.
  ReadResult read = ParseEdgeList("0 1\n1 2\n2 3\n");
  ASSERT_EQ(read.error, "");
  Partition partition = EvaluateAssignment(*read.graph, 2, {0, 0, 1, 1});
  ASSERT_EQ(partition.error, "");
  EXPECT_EQ(partition.edge_cut, 1);
  EXPECT_EQ(partition.part_stats[0].nodes, 2);
  EXPECT_EQ(partition.part_stats[0].edges, 3);  // 1->0, 0->1, 2->1
  EXPECT_EQ(partition.part_stats[0].halo_nodes, 1);  // node 2
  EXPECT_EQ(partition.part_stats[1].halo_nodes, 1);  // node 1
  // Star centre 0 in part 0, leaves spread: the centre is in the halo of every other part once.
  read = ParseEdgeList("0 1\n0 2\n0 3\n0 4\n");
  partition = EvaluateAssignment(*read.graph, 3, {0, 1, 1, 2, 0});
  ASSERT_EQ(partition.error, "");
  EXPECT_EQ(partition.part_stats[0].halo_nodes, 3);  // leaves 1, 2, 3
  EXPECT_EQ(partition.part_stats[1].halo_nodes, 1);
  EXPECT_EQ(partition.part_stats[2].halo_nodes, 1);
  EXPECT_EQ(partition.edge_cut, 3);
}

TEST(GraphPartitionTest, PartStatsMatchBruteForceForEveryPartCountAndMethod) {
  auto karate = Karate();
  auto rmat = GenerateRmat(10, 8 * 1024, 7);
  auto power = GeneratePowerLaw(500, 3, 7);
  for (const auto& graph : {karate, rmat, power}) {
    for (Method method : {Method::kMetis, Method::kRandom}) {
      for (int parts : {1, 2, 3, 4, 8}) {
        SCOPED_TRACE("nodes " + std::to_string(graph->nodes()) + ", parts " + std::to_string(parts) +
                     (method == Method::kMetis ? ", METIS" : ", random"));
        ExpectMatchesBruteForce(*graph, PartitionGraph(*graph, parts, method, 42));
      }
    }
  }
}

TEST(GraphPartitionTest, MoreMetisPartsMakeSmallerPartsAndMoreHalo) {
  auto graph = GenerateRmat(12, 16 * 4096, 3);
  Partition two = PartitionGraph(*graph, 2, Method::kMetis, 5);
  Partition eight = PartitionGraph(*graph, 8, Method::kMetis, 5);
  ASSERT_EQ(two.error, "");
  ASSERT_EQ(eight.error, "");
  auto largest = [](const Partition& p) {
    return std::max_element(p.part_stats.begin(), p.part_stats.end(),
                            [](const PartStats& a, const PartStats& b) { return a.nodes < b.nodes; })
        ->nodes;
  };
  EXPECT_LT(largest(eight), largest(two));
  EXPECT_GT(eight.edge_cut, two.edge_cut);
  // METIS balances nodes to within its default 3 % imbalance (a little slack for rounding).
  EXPECT_LE(largest(two), graph->nodes() / 2 * 104 / 100);
  EXPECT_LE(largest(eight), graph->nodes() / 8 * 104 / 100);
}

TEST(GraphPartitionTest, MetisCutsFarFewerEdgesThanRandom) {
  auto graph = GeneratePowerLaw(2000, 2, 11);
  Partition metis = PartitionGraph(*graph, 4, Method::kMetis, 1);
  Partition random = PartitionGraph(*graph, 4, Method::kRandom, 1);
  ASSERT_EQ(metis.error, "");
  ASSERT_EQ(random.error, "");
  EXPECT_LT(metis.edge_cut * 3 / 2, random.edge_cut);
}

TEST(GraphPartitionTest, SameSeedSameAssignment) {
  auto graph = GenerateRmat(11, 16 * 2048, 9);
  for (Method method : {Method::kMetis, Method::kRandom}) {
    Partition a = PartitionGraph(*graph, 4, method, 123);
    Partition b = PartitionGraph(*graph, 4, method, 123);
    ASSERT_EQ(a.error, "");
    EXPECT_EQ(a.assignment, b.assignment);
    EXPECT_EQ(a.edge_cut, b.edge_cut);
  }
  // A different seed gives a different random assignment.
  EXPECT_NE(PartitionGraph(*graph, 4, Method::kRandom, 1).assignment,
            PartitionGraph(*graph, 4, Method::kRandom, 2).assignment);
}

TEST(GraphPartitionTest, ConcurrentMetisRunsGiveTheSequentialAssignments) {
  // Scenarios run on several threads (dglsim suite --jobs); METIS keeps its random state per thread.
  auto graph = GenerateRmat(11, 16 * 2048, 4);
  std::vector<std::vector<int>> sequential, concurrent(4);
  for (int k = 0; k < 4; ++k) sequential.push_back(PartitionGraph(*graph, 2 + k, Method::kMetis, 10 + k).assignment);
  std::vector<std::thread> threads;
  for (int k = 0; k < 4; ++k) {
    threads.emplace_back([&, k] { concurrent[k] = PartitionGraph(*graph, 2 + k, Method::kMetis, 10 + k).assignment; });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(concurrent, sequential);
}

TEST(GraphPartitionTest, RandomPartsAreRoughlyBalanced) {
  auto graph = GenerateRmat(14, 4 * 16384, 1);
  Partition partition = PartitionGraph(*graph, 4, Method::kRandom, 77);
  ASSERT_EQ(partition.error, "");
  for (const PartStats& stats : partition.part_stats) {
    // 16384 nodes / 4 = 4096 each; the binomial standard deviation is about 55.
    EXPECT_NEAR(static_cast<double>(stats.nodes), 4096.0, 400.0);
  }
}

TEST(GraphPartitionTest, OnePartIsTheWholeGraphWithoutHalo) {
  auto graph = Karate();
  for (Method method : {Method::kMetis, Method::kRandom}) {
    Partition partition = PartitionGraph(*graph, 1, method, 0);
    ASSERT_EQ(partition.error, "");
    EXPECT_EQ(partition.assignment, std::vector<int>(34, 0));
    EXPECT_EQ(partition.part_stats[0].nodes, 34);
    EXPECT_EQ(partition.part_stats[0].edges, 156);
    EXPECT_EQ(partition.part_stats[0].halo_nodes, 0);
    EXPECT_EQ(partition.edge_cut, 0);
  }
}

TEST(GraphPartitionTest, AsManyPartsAsNodesWorks) {
  auto graph = Karate();
  Partition partition = PartitionGraph(*graph, 34, Method::kMetis, 0);
  ExpectMatchesBruteForce(*graph, partition);
}

TEST(GraphPartitionTest, MorePartsThanNodesOrFewerThanOneIsAnError) {
  auto graph = Karate();
  for (Method method : {Method::kMetis, Method::kRandom}) {
    Partition too_many = PartitionGraph(*graph, 35, method, 0);
    EXPECT_EQ(too_many.error, "cannot split 34 nodes into 35 parts");
    EXPECT_TRUE(too_many.assignment.empty());
    EXPECT_NE(PartitionGraph(*graph, 0, method, 0).error, "");
    EXPECT_NE(PartitionGraph(*graph, -3, method, 0).error, "");
  }
}

TEST(GraphPartitionTest, GraphWithoutEdgesStillPartitions) {
  ReadResult read = ParseEdgeList("0 0\n1 1\n2 2\n3 3\n");
  ASSERT_EQ(read.error, "");
  ASSERT_EQ(SizeOf(*read.graph).edges, 0);
  Partition partition = PartitionGraph(*read.graph, 2, Method::kMetis, 0);
  ExpectMatchesBruteForce(*read.graph, partition);
}

TEST(GraphPartitionTest, MalformedAssignmentIsRejected) {
  auto graph = Karate();
  EXPECT_NE(EvaluateAssignment(*graph, 2, std::vector<int>(33, 0)).error, "");
  std::vector<int> assignment(34, 0);
  assignment[5] = 2;
  EXPECT_EQ(EvaluateAssignment(*graph, 2, assignment).error, "node 5 is assigned to part 2, outside 0..1");
  // A part count far beyond the nodes is refused before anything is allocated for it.
  EXPECT_NE(EvaluateAssignment(*graph, 1 << 30, std::vector<int>(34, 0)).error, "");
}

}  // namespace
}  // namespace sim::graph
