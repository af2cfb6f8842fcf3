// Fuzz target: the edge-list reader of real graphs (sim::graph::ParseEdgeList), which a scenario's
// `edgeList` reaches with whatever file a user names. Any text gives a graph or an error with its
// line, never a crash; a graph has no more edges than lines (self loops are dropped, so a file of
// them alone is a graph of nodes without edges, which partitions) and no more nodes than ids.
#include "sim/graph/graph.h"
#include "tests/fuzz/fuzz_check.h"

#include <algorithm>
#include <string>

using dglsim_fuzz::Require;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(dglsim_fuzz::Text(data, size));
  sim::graph::ReadResult read = sim::graph::ParseEdgeList(text);
  Require((read.graph == nullptr) == !read.error.empty(), "an edge list gives a graph or an error", read.error);
  if (!read.graph) return 0;
  sim::graph::GraphSize graph = sim::graph::SizeOf(*read.graph);
  const auto lines = static_cast<std::int64_t>(std::count(text.begin(), text.end(), '\n')) + 1;
  Require(graph.edges >= 0 && graph.edges <= lines, "a graph has at most one edge per line",
          std::to_string(graph.edges) + " edges in " + std::to_string(lines) + " lines");
  Require(graph.nodes >= 1 && graph.nodes <= 2 * lines, "a graph's nodes are the ids its lines name",
          std::to_string(graph.nodes) + " nodes, " + std::to_string(graph.edges) + " edges");
  return 0;
}
