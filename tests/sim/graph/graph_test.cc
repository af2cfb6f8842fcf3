// Reading edge lists: comments, symmetrisation, id compaction, and every kind of bad line reported
// with its line number, never an exception.
#include "sim/graph/graph.h"

#include "sim/graph/csr_graph.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <utility>

namespace sim::graph {
namespace {

const std::string kKarateClub = std::string(DGLSIM_SOURCE_DIR) + "/scenarios/graphs/karate.txt";

// The undirected edges of a graph as (smaller, larger) pairs of compact ids.
std::set<std::pair<std::uint32_t, std::uint32_t>> EdgeSet(const Graph& graph) {
  std::set<std::pair<std::uint32_t, std::uint32_t>> out;
  for (std::uint32_t u = 0; u < graph.nodes(); ++u) {
    auto [begin, end] = boost::adjacent_vertices(u, graph.csr());
    for (auto it = begin; it != end; ++it) out.emplace(std::min(u, *it), std::max(u, *it));
  }
  return out;
}

TEST(GraphEdgeListTest, KarateClubHas34NodesAnd78Edges) {
  ReadResult read = ReadEdgeList(kKarateClub);
  ASSERT_EQ(read.error, "");
  ASSERT_NE(read.graph, nullptr);
  GraphSize size = SizeOf(*read.graph);
  EXPECT_EQ(size.nodes, 34);
  EXPECT_EQ(size.edges, 78);
  // Member 1 (the instructor) has 16 friends and member 34 (the administrator) 17.
  EXPECT_EQ(boost::out_degree(0u, read.graph->csr()), 16u);
  EXPECT_EQ(boost::out_degree(33u, read.graph->csr()), 17u);
}

TEST(GraphEdgeListTest, CommentsBlankLinesAndExtraColumnsAreSkipped) {
  ReadResult read = ParseEdgeList(
      "% KONECT header: sym unweighted\n"
      "# SNAP header\n"
      "\n"
      "   \t\n"
      "0 1 0.5 1700000000\n"
      "1\t2   # a trailing comment\n"
      "2 0%another\r\n");
  ASSERT_EQ(read.error, "");
  EXPECT_EQ(SizeOf(*read.graph).nodes, 3);
  EXPECT_EQ(SizeOf(*read.graph).edges, 3);
}

TEST(GraphEdgeListTest, SelfLoopsAndDuplicatesInEitherDirectionAreDropped) {
  ReadResult read = ParseEdgeList("0 1\n1 0\n0 1\n2 2\n1 2\n");
  ASSERT_EQ(read.error, "");
  EXPECT_EQ(SizeOf(*read.graph).nodes, 3);  // node 2 still exists through edge 1-2
  EXPECT_EQ(SizeOf(*read.graph).edges, 2);
  EXPECT_EQ(EdgeSet(*read.graph), (std::set<std::pair<std::uint32_t, std::uint32_t>>{{0, 1}, {1, 2}}));
  // Stored symmetrised: each node lists the other end of each of its edges exactly once.
  EXPECT_EQ(boost::num_edges(read.graph->csr()), 4u);
}

TEST(GraphEdgeListTest, NodeOnlyInASelfLoopIsKeptWithoutEdges) {
  ReadResult read = ParseEdgeList("5 5\n1 2\n");
  ASSERT_EQ(read.error, "");
  EXPECT_EQ(SizeOf(*read.graph).nodes, 3);
  EXPECT_EQ(SizeOf(*read.graph).edges, 1);
}

TEST(GraphEdgeListTest, SparseAndHugeIdsAreCompactedInIncreasingOrder) {
  ReadResult read = ParseEdgeList(
      "18446744073709551615 7\n"
      "7 1000000000000\n"
      "1000000000000 42\n");
  ASSERT_EQ(read.error, "");
  const Graph& graph = *read.graph;
  EXPECT_EQ(SizeOf(graph).nodes, 4);
  EXPECT_EQ(graph.original_ids(),
            (std::vector<std::uint64_t>{7, 42, 1000000000000ull, 18446744073709551615ull}));
  // 7 -> 0, 42 -> 1, 10^12 -> 2, 2^64-1 -> 3.
  EXPECT_EQ(EdgeSet(graph), (std::set<std::pair<std::uint32_t, std::uint32_t>>{{0, 3}, {0, 2}, {1, 2}}));
}

TEST(GraphEdgeListTest, OneBasedIdsShiftDownByOne) {
  ReadResult read = ParseEdgeList("1 2\n2 3\n");
  ASSERT_EQ(read.error, "");
  EXPECT_EQ(EdgeSet(*read.graph), (std::set<std::pair<std::uint32_t, std::uint32_t>>{{0, 1}, {1, 2}}));
}

struct BadLine {
  std::string text;
  int line;
  std::string message;  // a part of the expected message
};

class GraphEdgeListBadLineTest : public testing::TestWithParam<BadLine> {};

TEST_P(GraphEdgeListBadLineTest, IsReportedWithItsLineNumber) {
  const BadLine& bad = GetParam();
  ReadResult read;
  ASSERT_NO_THROW(read = ParseEdgeList(bad.text));
  EXPECT_EQ(read.graph, nullptr);
  EXPECT_EQ(read.line, bad.line);
  EXPECT_EQ(read.error.rfind("line " + std::to_string(bad.line) + ": ", 0), 0u) << read.error;
  EXPECT_NE(read.error.find(bad.message), std::string::npos) << read.error;
}

INSTANTIATE_TEST_SUITE_P(
    EveryKind, GraphEdgeListBadLineTest,
    testing::Values(BadLine{"# header\n0 1\n7\n", 3, "expected two node ids, found only '7'"},
                    BadLine{"0 1\n1 two\n", 2, "expected a node id (a non-negative integer), found 'two'"},
                    BadLine{"0 1\n\n\n-3 4\n", 4, "node ids must be non-negative integers, found '-3'"},
                    BadLine{"18446744073709551616 1\n", 1, "node id '18446744073709551616' is too large"},
                    BadLine{"0 1\n1 2.5\n", 2, "found '2.5'"},
                    BadLine{"0 1\n0x10 1\n", 2, "found '0x10'"},
                    BadLine{"0 1\n+1 2\n", 2, "found '+1'"},
                    BadLine{"0 1\n1 2abc\n", 2, "found '2abc'"},
                    BadLine{std::string("0 1\n1 \x01\x02\n", 9), 2, "found '\?\?'"}));

TEST(GraphEdgeListTest, EmptyInputIsAnErrorWithoutALine) {
  for (const char* text : {"", "\n\n", "# only a comment\n% and another\n"}) {
    ReadResult read = ParseEdgeList(text);
    EXPECT_EQ(read.graph, nullptr);
    EXPECT_EQ(read.line, 0);
    EXPECT_NE(read.error.find("no edges"), std::string::npos) << read.error;
  }
}

TEST(GraphEdgeListTest, MissingFileNamesThePath) {
  ReadResult read = ReadEdgeList("/nonexistent/graph.txt");
  EXPECT_EQ(read.graph, nullptr);
  EXPECT_EQ(read.line, 0);
  EXPECT_NE(read.error.find("/nonexistent/graph.txt: cannot open"), std::string::npos) << read.error;
}

TEST(GraphEdgeListTest, BadLineInAFileNamesFileAndLine) {
  std::string path = testing::TempDir() + "graph_test_bad.txt";
  {
    std::ofstream out(path);
    out << "# comment\n1 2\n2 x\n";
  }
  ReadResult read = ReadEdgeList(path);
  std::remove(path.c_str());
  EXPECT_EQ(read.graph, nullptr);
  EXPECT_EQ(read.line, 3);
  EXPECT_EQ(read.error, path + ": line 3: expected a node id (a non-negative integer), found 'x'");
}

TEST(GraphEdgeListTest, ADirectoryIsNotAnEdgeList) {
  ReadResult read;
  ASSERT_NO_THROW(read = ReadEdgeList(testing::TempDir()));
  EXPECT_EQ(read.graph, nullptr);
  EXPECT_FALSE(read.error.empty());
}

}  // namespace
}  // namespace sim::graph
