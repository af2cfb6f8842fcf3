// The definition of sim::graph::Graph (declared in graph.h): an undirected simple graph kept as a
// Boost.Graph compressed_sparse_row_graph in which every undirected edge {u, v} is stored twice,
// u -> v and v -> u. Out-edges of a node are sorted by target, there are no self loops and no
// duplicates, and node ids are dense: 0 .. nodes-1.
//
// graph.h only forward-declares Graph so that code which passes graphs around does not pull in
// Boost.Graph; include this header to walk the adjacency.
//
// REQUIRES: nothing shared; a Graph is immutable once built.
#pragma once

#include "sim/graph/graph.h"

#include <boost/graph/compressed_sparse_row_graph.hpp>

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace sim::graph {

class Graph {
 public:
  // Node ids are 32-bit (METIS 5.1 as packaged by Debian uses 32-bit idx_t, so larger graphs cannot
  // be partitioned anyway); edge offsets are 64-bit.
  using Csr = boost::compressed_sparse_row_graph<boost::directedS, boost::no_property, boost::no_property,
                                                 boost::no_property, std::uint32_t, std::uint64_t>;

  using Edge = std::pair<std::uint32_t, std::uint32_t>;

  // Builds from undirected edges over nodes 0 .. nodes-1, in any order and either direction; self
  // loops and repeated edges are dropped. `original_ids`, if not empty, has one entry per node.
  // REQUIRES: every id < nodes, nodes < 2^32.
  static std::shared_ptr<const Graph> FromEdges(std::int64_t nodes, std::vector<Edge> edges,
                                                std::vector<std::uint64_t> original_ids = {});

  std::int64_t nodes() const { return nodes_; }
  // Undirected edges, each counted once (half the number of stored directed edges).
  std::int64_t edges() const { return edges_; }
  const Csr& csr() const { return csr_; }

  // The id each node had in the file it was read from (empty for generated graphs).
  const std::vector<std::uint64_t>& original_ids() const { return original_ids_; }

 private:
  Graph() = default;

  std::int64_t nodes_ = 0;
  std::int64_t edges_ = 0;
  Csr csr_;
  std::vector<std::uint64_t> original_ids_;
};

}  // namespace sim::graph
