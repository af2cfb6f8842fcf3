// Reading edge lists into the CSR graph, partitioning it (METIS or random) and measuring the parts,
// and the R-MAT and Barabasi-Albert generators. See graph.h for the contracts.
#include "sim/graph/graph.h"

#include "sim/graph/csr_graph.h"
#include "sim/kernel/input_file.h"
#include "sim/kernel/random.h"

#include <metis.h>

#include <algorithm>
#include <charconv>
#include <limits>
#include <mutex>
#include <string_view>
#include <system_error>
#include <utility>

namespace sim::graph {

std::shared_ptr<const Graph> Graph::FromEdges(std::int64_t nodes, std::vector<Edge> edges,
                                               std::vector<std::uint64_t> original_ids) {
  // Both directions of every edge, sorted by (source, target) so that duplicates sit side by side
  // and Boost can take the sorted-edges constructor without a second copy.
  std::vector<Edge> directed;
  directed.reserve(edges.size() * 2);
  for (const Edge& e : edges) {
    if (e.first == e.second) continue;
    directed.push_back(e);
    directed.emplace_back(e.second, e.first);
  }
  edges.clear();
  edges.shrink_to_fit();
  std::sort(directed.begin(), directed.end());
  directed.erase(std::unique(directed.begin(), directed.end()), directed.end());

  std::shared_ptr<Graph> graph(new Graph());
  graph->nodes_ = nodes;
  graph->edges_ = static_cast<std::int64_t>(directed.size() / 2);
  graph->csr_ = Csr(boost::edges_are_sorted, directed.begin(), directed.end(),
                    static_cast<Csr::vertices_size_type>(nodes));
  graph->original_ids_ = std::move(original_ids);
  return graph;
}

namespace {

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

// A token as it may appear in a message: at most 40 characters, unprintable bytes as '?'.
std::string Quote(std::string_view token) {
  std::string out = "'";
  for (char c : token.substr(0, 40)) out += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? '?' : c;
  if (token.size() > 40) out += "...";
  return out + "'";
}

// Parses a node id; on failure, returns false and says why in *why.
bool ParseId(std::string_view token, std::uint64_t* id, std::string* why) {
  const char* end = token.data() + token.size();
  auto [ptr, ec] = std::from_chars(token.data(), end, *id);
  if (ec == std::errc() && ptr == end) return true;
  bool digits = !token.empty() && std::all_of(token.begin() + (token[0] == '-' ? 1 : 0), token.end(),
                                              [](char c) { return c >= '0' && c <= '9'; });
  if (digits && token[0] == '-' && token.size() > 1) {
    *why = "node ids must be non-negative integers, found " + Quote(token);
  } else if (digits && ec == std::errc::result_out_of_range) {
    *why = "node id " + Quote(token) + " is too large (the limit is 18446744073709551615)";
  } else {
    *why = "expected a node id (a non-negative integer), found " + Quote(token);
  }
  return false;
}

ReadResult Failure(std::string error, int line) {
  ReadResult result;
  result.error = std::move(error);
  result.line = line;
  return result;
}

}  // namespace

ReadResult ParseEdgeList(const std::string& text) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> raw;
  std::uint64_t min_id = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t max_id = 0;
  int line = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    if (line == std::numeric_limits<int>::max()) {
      return Failure("line " + std::to_string(line) + ": too many lines (more than 2^31 - 1)", line);
    }
    ++line;
    std::size_t eol = text.find('\n', pos);
    if (eol == std::string::npos) eol = text.size();
    std::string_view rest(text.data() + pos, eol - pos);
    pos = eol + 1;
    std::size_t comment = rest.find_first_of("#%");
    if (comment != std::string_view::npos) rest = rest.substr(0, comment);

    std::string_view tokens[2];
    int found = 0;
    std::size_t i = 0;
    while (found < 2) {
      while (i < rest.size() && IsBlank(rest[i])) ++i;
      if (i == rest.size()) break;
      std::size_t start = i;
      while (i < rest.size() && !IsBlank(rest[i])) ++i;
      tokens[found++] = rest.substr(start, i - start);
    }
    if (found == 0) continue;
    if (found == 1) {
      return Failure("line " + std::to_string(line) + ": expected two node ids, found only " + Quote(tokens[0]),
                     line);
    }
    std::uint64_t ids[2];
    for (int k = 0; k < 2; ++k) {
      std::string why;
      if (!ParseId(tokens[k], &ids[k], &why)) return Failure("line " + std::to_string(line) + ": " + why, line);
      min_id = std::min(min_id, ids[k]);
      max_id = std::max(max_id, ids[k]);
    }
    raw.emplace_back(ids[0], ids[1]);
  }
  if (raw.empty()) return Failure("no edges: the input is empty or holds only comments", 0);

  // Compaction: the distinct ids in increasing order become 0 .. n-1, so a file that already uses
  // 0 .. n-1 keeps its ids and one that uses 1 .. n shifts them down by one.
  std::vector<std::uint64_t> ids;
  std::vector<Graph::Edge> edges;
  edges.reserve(raw.size());
  const std::uint64_t range = max_id - min_id;  // ids span min_id .. min_id + range
  if (range < 8 * raw.size() + 1024) {
    // Ids dense enough for a lookup table over their span: no sort needed (most real files).
    constexpr std::uint32_t kAbsent = std::numeric_limits<std::uint32_t>::max();
    std::vector<std::uint32_t> index(range + 1, kAbsent);
    for (const auto& [u, v] : raw) index[u - min_id] = index[v - min_id] = 0;
    for (std::uint64_t offset = 0; offset <= range; ++offset) {
      if (index[offset] == kAbsent) continue;
      index[offset] = static_cast<std::uint32_t>(ids.size());
      ids.push_back(min_id + offset);
    }
    for (const auto& [u, v] : raw) edges.emplace_back(index[u - min_id], index[v - min_id]);
  } else {
    ids.reserve(raw.size() * 2);
    for (const auto& [u, v] : raw) {
      ids.push_back(u);
      ids.push_back(v);
    }
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    if (ids.size() >= std::numeric_limits<std::uint32_t>::max()) {
      return Failure("4294967295 or more distinct node ids; graphs this large are not supported", 0);
    }
    auto compact = [&ids](std::uint64_t id) {
      return static_cast<std::uint32_t>(std::lower_bound(ids.begin(), ids.end(), id) - ids.begin());
    };
    for (const auto& [u, v] : raw) edges.emplace_back(compact(u), compact(v));
  }
  raw.clear();
  raw.shrink_to_fit();
  ReadResult result;
  std::int64_t nodes = static_cast<std::int64_t>(ids.size());
  result.graph = Graph::FromEdges(nodes, std::move(edges), std::move(ids));
  return result;
}

ReadResult ReadEdgeList(const std::string& path) {
  sim::InputFile file = sim::ReadInputFile(path, sim::kMaxEdgeListBytes);
  if (!file.ok()) return Failure(path + ": " + file.error, 0);
  ReadResult result = ParseEdgeList(file.text);
  if (!result.error.empty()) result.error = path + ": " + result.error;
  return result;
}

GraphSize SizeOf(const Graph& graph) { return GraphSize{.nodes = graph.nodes(), .edges = graph.edges()}; }

Partition EvaluateAssignment(const Graph& graph, int parts, std::vector<int> assignment) {
  Partition result;
  result.parts = parts;
  const Graph::Csr& g = graph.csr();
  const std::int64_t n = graph.nodes();
  if (parts < 1) {
    result.error = "the number of parts must be at least 1, got " + std::to_string(parts);
    return result;
  }
  if (parts > std::max<std::int64_t>(n, 1)) {
    result.error = "cannot split " + std::to_string(n) + " nodes into " + std::to_string(parts) + " parts";
    return result;
  }
  if (static_cast<std::int64_t>(assignment.size()) != n) {
    result.error = "the assignment has " + std::to_string(assignment.size()) + " entries for " +
                   std::to_string(n) + " nodes";
    return result;
  }
  for (std::int64_t v = 0; v < n; ++v) {
    if (assignment[v] < 0 || assignment[v] >= parts) {
      result.error = "node " + std::to_string(v) + " is assigned to part " + std::to_string(assignment[v]) +
                     ", outside 0.." + std::to_string(parts - 1);
      return result;
    }
  }
  result.part_stats.assign(parts, PartStats{});
  // last_halo_of[p] == v once v has been counted as a halo node of part p.
  std::vector<std::int64_t> last_halo_of(parts, -1);
  for (std::int64_t v = 0; v < n; ++v) {
    const int own = assignment[v];
    PartStats& stats = result.part_stats[own];
    ++stats.nodes;
    // The graph is symmetric: v is the destination of exactly degree(v) stored edges.
    stats.edges += static_cast<std::int64_t>(boost::out_degree(static_cast<std::uint32_t>(v), g));
    auto [begin, end] = boost::adjacent_vertices(static_cast<std::uint32_t>(v), g);
    for (auto it = begin; it != end; ++it) {
      const int other = assignment[*it];
      if (other == own) continue;
      if (static_cast<std::int64_t>(*it) > v) ++result.edge_cut;
      // v is adjacent to a node of `other`, so it is in other's halo.
      if (last_halo_of[other] != v) {
        last_halo_of[other] = v;
        ++result.part_stats[other].halo_nodes;
      }
    }
  }
  result.assignment = std::move(assignment);
  return result;
}

namespace {

Partition Refuse(Method method, int parts, std::string error) {
  Partition result;
  result.method = method;
  result.parts = parts;
  result.error = std::move(error);
  return result;
}

std::string MetisError(int code) {
  switch (code) {
    case METIS_ERROR_INPUT: return "METIS rejected its input (METIS_ERROR_INPUT)";
    case METIS_ERROR_MEMORY: return "METIS ran out of memory (METIS_ERROR_MEMORY)";
    default: return "METIS failed (error code " + std::to_string(code) + ")";
  }
}

}  // namespace

Partition PartitionGraph(const Graph& graph, int parts, Method method, std::uint64_t seed) {
  const std::int64_t n = graph.nodes();
  if (parts < 1) return Refuse(method, parts, "the number of parts must be at least 1, got " + std::to_string(parts));
  if (parts > n) {
    return Refuse(method, parts,
                  "cannot split " + std::to_string(n) + " nodes into " + std::to_string(parts) + " parts");
  }
  std::vector<int> assignment(n, 0);
  if (parts > 1 && method == Method::kRandom) {
    RandomStream stream(StreamSeed(seed, "graph/random-partition"));
    for (int& part : assignment) part = static_cast<int>(stream.UniformInt(0, parts - 1));
  } else if (parts > 1) {
    const std::int64_t directed = 2 * graph.edges();
    if (n > std::numeric_limits<idx_t>::max() || directed > std::numeric_limits<idx_t>::max()) {
      return Refuse(method, parts,
                    "the graph is too large for METIS with 32-bit indices (" + std::to_string(n) + " nodes, " +
                        std::to_string(directed) + " directed edges)");
    }
    const Graph::Csr& g = graph.csr();
    std::vector<idx_t> xadj(n + 1);
    // METIS reads adjncy even for a graph without edges; never hand it a null pointer.
    std::vector<idx_t> adjncy(std::max<std::int64_t>(directed, 1));
    idx_t next = 0;
    for (std::int64_t v = 0; v < n; ++v) {
      xadj[v] = next;
      auto [begin, end] = boost::adjacent_vertices(static_cast<std::uint32_t>(v), g);
      for (auto it = begin; it != end; ++it) adjncy[next++] = static_cast<idx_t>(*it);
    }
    xadj[n] = next;
    idx_t options[METIS_NOPTIONS];
    METIS_SetDefaultOptions(options);
    options[METIS_OPTION_NUMBERING] = 0;
    // Fold the 64-bit seed into METIS's non-negative 32-bit one so that high bits count too.
    options[METIS_OPTION_SEED] = static_cast<idx_t>((seed ^ (seed >> 31) ^ (seed >> 62)) & 0x7fffffff);
    idx_t nvtxs = static_cast<idx_t>(n);
    idx_t ncon = 1;
    idx_t nparts = parts;
    idx_t objval = 0;
    std::vector<idx_t> part(n, 0);
    // METIS 5.1 keeps its random generator's state in process globals: two partitions running at
    // once on different threads (dglsim suite --jobs) would draw from one stream and lose their
    // determinism. One METIS call at a time.
    static std::mutex metis_mutex;
    std::lock_guard<std::mutex> lock(metis_mutex);
    int rc = METIS_PartGraphKway(&nvtxs, &ncon, xadj.data(), adjncy.data(), nullptr, nullptr, nullptr, &nparts,
                                 nullptr, nullptr, options, &objval, part.data());
    if (rc != METIS_OK) return Refuse(method, parts, MetisError(rc));
    for (std::int64_t v = 0; v < n; ++v) assignment[v] = static_cast<int>(part[v]);
  }
  Partition result = EvaluateAssignment(graph, parts, std::move(assignment));
  result.method = method;
  return result;
}

std::shared_ptr<const Graph> GenerateRmat(int scale, std::int64_t edges, std::uint64_t seed) {
  if (scale < 0 || scale > 31 || edges < 0) return nullptr;
  RandomStream stream(StreamSeed(seed, "graph/rmat"));
  // Graph500 quadrant probabilities: a = 0.57, b = 0.19, c = 0.19, d = 0.05.
  constexpr double kA = 0.57, kAB = 0.57 + 0.19, kABC = 0.57 + 0.19 + 0.19;
  std::vector<Graph::Edge> list;
  list.reserve(static_cast<std::size_t>(edges));
  for (std::int64_t e = 0; e < edges; ++e) {
    std::uint32_t u = 0, v = 0;
    for (int bit = scale - 1; bit >= 0; --bit) {
      double r = stream.Uniform01();
      if (r < kA) continue;
      if (r < kAB) {
        v |= 1u << bit;
      } else if (r < kABC) {
        u |= 1u << bit;
      } else {
        u |= 1u << bit;
        v |= 1u << bit;
      }
    }
    list.emplace_back(u, v);
  }
  return Graph::FromEdges(std::int64_t{1} << scale, std::move(list));
}

std::shared_ptr<const Graph> GeneratePowerLaw(std::int64_t nodes, int edges_per_node, std::uint64_t seed) {
  if (nodes < 1 || edges_per_node < 1 || nodes > std::numeric_limits<std::uint32_t>::max()) return nullptr;
  RandomStream stream(StreamSeed(seed, "graph/power-law"));
  const std::int64_t m = edges_per_node;
  std::vector<Graph::Edge> list;
  // Every edge end, once per edge: drawing uniformly from it picks a node with probability
  // proportional to its degree (preferential attachment).
  std::vector<std::uint32_t> ends;
  // The seed graph: a clique on the first m + 1 nodes (or on all of them if there are fewer).
  const std::int64_t seed_nodes = std::min(nodes, m + 1);
  for (std::int64_t u = 0; u < seed_nodes; ++u) {
    for (std::int64_t v = u + 1; v < seed_nodes; ++v) {
      list.emplace_back(static_cast<std::uint32_t>(u), static_cast<std::uint32_t>(v));
      ends.push_back(static_cast<std::uint32_t>(u));
      ends.push_back(static_cast<std::uint32_t>(v));
    }
  }
  std::vector<std::uint32_t> chosen;
  for (std::int64_t t = seed_nodes; t < nodes; ++t) {
    chosen.clear();
    // m distinct targets among the t >= m + 1 existing nodes.
    while (static_cast<std::int64_t>(chosen.size()) < m) {
      std::uint32_t target = ends[stream.UniformInt(0, static_cast<std::int64_t>(ends.size()) - 1)];
      if (std::find(chosen.begin(), chosen.end(), target) == chosen.end()) chosen.push_back(target);
    }
    for (std::uint32_t target : chosen) {
      list.emplace_back(static_cast<std::uint32_t>(t), target);
      ends.push_back(static_cast<std::uint32_t>(t));
      ends.push_back(target);
    }
  }
  return Graph::FromEdges(nodes, std::move(list));
}

}  // namespace sim::graph
