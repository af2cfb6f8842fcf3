// Real graphs for the workload models: read an edge list into a Boost.Graph compressed-sparse-row
// structure, partition it for real with METIS (or at random), and measure what the DGL models need
// from each part: its nodes, the edges it owns, its 1-hop halo and the edge cut. Generators of
// synthetic graphs (R-MAT, power law) serve `dglsim calibrate` and tests.
//
// Conventions (as DGL's partition_graph): the graph is treated as undirected and symmetrised; self
// loops and duplicate edges are dropped on reading (ParMETIS refuses them, docs/models.md); node ids
// are 0..n-1 after compaction of the ids the file uses. An edge (u, v) is owned by the part of its
// destination v (DGL's rule); a part's halo nodes are the nodes outside it adjacent to one of its
// nodes.
//
// Determinism: the same graph, part count, method and seed give the same assignment on every run
// (METIS is seeded through its options; no wall clock, no unordered iteration).
//
// REQUIRES: nothing shared; every function is safe to call from several threads on different data.
// (METIS 5.1 keeps its random state in globals, so PartitionGraph runs one METIS call at a time.)
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace sim::graph {

// An undirected simple graph, stored symmetrised in CSR form (each edge once in each direction).
class Graph;

struct GraphSize {
  std::int64_t nodes = 0;
  std::int64_t edges = 0;  // undirected edges (each counted once)
};

// The result of reading a file: a graph, or the first problem with its line number.
struct ReadResult {
  std::shared_ptr<const Graph> graph;  // nullptr on error
  std::string error;                   // "" on success; e.g. "line 7: expected two node ids"
  int line = 0;                        // 1-based line of the error; 0 for file-level errors
};

// Reads a whitespace-separated edge list: one "u v" pair per line (more columns are ignored,
// e.g. weights), '#' and '%' start comments, blank lines are skipped. Ids are non-negative
// integers (SNAP and KONECT files read as they are). Only a regular file of at most
// sim::kMaxEdgeListBytes (256 MiB) is read (sim/kernel/input_file.h): a FIFO or /dev/zero is an
// error, not a read without end. A file with no edge is an error. Never throws.
ReadResult ReadEdgeList(const std::string& path);
// The same from text in memory (tests, inline scenarios).
ReadResult ParseEdgeList(const std::string& text);

GraphSize SizeOf(const Graph& graph);

enum class Method { kMetis, kRandom };

struct PartStats {
  std::int64_t nodes = 0;        // nodes assigned to the part
  std::int64_t edges = 0;        // directed (symmetrised) edges whose destination is in the part
  std::int64_t halo_nodes = 0;   // nodes of other parts adjacent to a node of this part
};

struct Partition {
  Method method = Method::kMetis;
  int parts = 0;
  std::vector<int> assignment;       // node -> part
  std::vector<PartStats> part_stats; // one per part; nodes sum to the graph's nodes
  std::int64_t edge_cut = 0;         // undirected edges whose ends lie in different parts
  std::string error;                 // "" on success (e.g. METIS refused: parts > nodes)
};

// Partitions `graph` into `parts` parts (1 <= parts). METIS: METIS_PartGraphKway with the seed in
// METIS_OPTION_SEED, contiguous parts not required, default imbalance; kRandom: each node to a part
// drawn from a seeded stream. parts == 1 puts everything in part 0 without calling METIS.
Partition PartitionGraph(const Graph& graph, int parts, Method method, std::uint64_t seed);

// The statistics of a given assignment (node -> part in 0..parts-1): what PartitionGraph computes
// after it has assigned the nodes. `error` says what is wrong with a malformed assignment.
Partition EvaluateAssignment(const Graph& graph, int parts, std::vector<int> assignment);

// Synthetic graphs, seeded. R-MAT (Chakrabarti et al. 2004) with the Graph500 parameters
// a=0.57, b=0.19, c=0.19, d=0.05 on 2^scale nodes; `edges` edges drawn before dropping self loops
// and duplicates (so the result may have fewer). nullptr unless 0 <= scale <= 31 and edges >= 0.
std::shared_ptr<const Graph> GenerateRmat(int scale, std::int64_t edges, std::uint64_t seed);
// A power-law graph by preferential attachment (Barabasi-Albert): `nodes` nodes, each new node
// attaching `edges_per_node` edges to distinct earlier nodes; the first edges_per_node + 1 nodes
// form a clique. nullptr unless nodes >= 1 and edges_per_node >= 1.
std::shared_ptr<const Graph> GeneratePowerLaw(std::int64_t nodes, int edges_per_node, std::uint64_t seed);

}  // namespace sim::graph
