// Speed of the real-graph code the partitioner models rest on:
//   - MetisPartition/scale: METIS_PartGraphKway into 4 parts of an R-MAT graph with 2^scale nodes
//     and 16 * 2^scale edges drawn (Graph500's edge factor), through PartitionGraph (input arrays,
//     METIS, per-part statistics). Items per second are symmetrised edges per second, the unit of
//     metisEdgesPerSecond in a Calibration file.
//   - RandomPartition/scale: the same graphs split at random, for comparison.
//   - ParseEdgeList/scale: reading the text of an edge list (one "u v" line per drawn edge) into the
//     CSR graph: parsing, id compaction, symmetrisation. Bytes per second are bytes of text.
#include "sim/graph/graph.h"

#include "sim/graph/csr_graph.h"

#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>

namespace {

using sim::graph::Graph;

void MetisPartition(benchmark::State& state) {
  const int scale = static_cast<int>(state.range(0));
  auto graph = sim::graph::GenerateRmat(scale, std::int64_t{16} << scale, 1);
  for (auto _ : state) {
    sim::graph::Partition partition = sim::graph::PartitionGraph(*graph, 4, sim::graph::Method::kMetis, 1);
    if (!partition.error.empty()) state.SkipWithError(partition.error.c_str());
    benchmark::DoNotOptimize(partition.edge_cut);
  }
  state.SetItemsProcessed(state.iterations() * 2 * graph->edges());
  state.counters["symmetrised_edges"] = static_cast<double>(2 * graph->edges());
}
BENCHMARK(MetisPartition)->DenseRange(12, 16, 2)->Unit(benchmark::kMillisecond);

void RandomPartition(benchmark::State& state) {
  const int scale = static_cast<int>(state.range(0));
  auto graph = sim::graph::GenerateRmat(scale, std::int64_t{16} << scale, 1);
  for (auto _ : state) {
    sim::graph::Partition partition = sim::graph::PartitionGraph(*graph, 4, sim::graph::Method::kRandom, 1);
    benchmark::DoNotOptimize(partition.edge_cut);
  }
  state.SetItemsProcessed(state.iterations() * 2 * graph->edges());
}
BENCHMARK(RandomPartition)->DenseRange(12, 16, 2)->Unit(benchmark::kMillisecond);

// The edge list of an R-MAT graph as a SNAP file would hold it, ids offset to look like real ones.
std::string EdgeListText(int scale) {
  auto graph = sim::graph::GenerateRmat(scale, std::int64_t{16} << scale, 2);
  std::string text = "# FromNodeId\tToNodeId\n";
  for (std::uint32_t u = 0; u < graph->nodes(); ++u) {
    auto [begin, end] = boost::adjacent_vertices(u, graph->csr());
    for (auto it = begin; it != end; ++it) {
      if (u > *it) continue;
      text += std::to_string(1000000 + u);
      text += '\t';
      text += std::to_string(1000000 + *it);
      text += '\n';
    }
  }
  return text;
}

void ParseEdgeList(benchmark::State& state) {
  const std::string text = EdgeListText(static_cast<int>(state.range(0)));
  std::int64_t edges = 0;
  for (auto _ : state) {
    sim::graph::ReadResult read = sim::graph::ParseEdgeList(text);
    if (read.graph == nullptr) state.SkipWithError(read.error.c_str());
    edges = read.graph ? read.graph->edges() : 0;
    benchmark::DoNotOptimize(edges);
  }
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(text.size()));
  state.SetItemsProcessed(state.iterations() * edges);
}
BENCHMARK(ParseEdgeList)->DenseRange(12, 18, 3)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
