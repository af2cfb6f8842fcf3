// The scenario loader's datasets. See loader.h.
#include "sim/harness/config/loader.h"

#include "sim/graph/graph.h"

#include <algorithm>
#include <cmath>

namespace harness::loading {

// The graph of an edge list, read once here so that a file that cannot be read or parsed is a bad
// scenario (exit 2, located at the field and at the file's line) rather than a run on a stand-in.
std::shared_ptr<const sim::graph::Graph> Loader::ReadGraph(const std::string& file, const std::string& field) {
  sim::graph::ReadResult read = sim::graph::ReadEdgeList(file);
  if (read.graph) return read.graph;
  // ReadEdgeList's errors start with the path; a parse error then says "line N: ...".
  std::string why = read.error.substr(std::min(read.error.size(), file.size() + 2));
  if (read.line > 0 && why.starts_with("line ")) {
    const std::size_t colon = why.find(": ");
    why = file + ":" + std::to_string(read.line) + ": " + (colon == std::string::npos ? why : why.substr(colon + 2));
  } else {
    why = Quoted(file) + " " + why;
  }
  Problem(field, "cannot use the edge list: " + why);
  return nullptr;
}

void Loader::LoadDataset(const json& item, const std::string& path, Scenario& s) {
  if (!ExpectObject(item, path, "a dataset {name, preset | nodes, edges, featureDim | edgeList}")) return;
  CheckSchemaFields(item, path, "datasets[]");
  DatasetSpec d;
  d.field_path = path;
  auto name = String(item, "name", path, true);
  if (!name) return;
  d.name = *name;
  if (std::any_of(s.datasets.begin(), s.datasets.end(), [&](const DatasetSpec& o) { return o.name == d.name; })) {
    Problem(Child(path, "name"), "dataset " + Quoted(d.name) + " is defined twice");
    return;
  }
  const bool has_preset = Get(item, "preset") != nullptr;
  const bool has_edge_list = Get(item, "edgeList") != nullptr;
  const bool has_sizes = Get(item, "nodes") != nullptr || Get(item, "edges") != nullptr;
  if (has_preset + has_edge_list + has_sizes > 1) {
    Problem(path, "give one of preset, edgeList or nodes/edges, not several");
  } else if (!has_preset && !has_edge_list && !has_sizes) {
    Problem(path, "a dataset needs preset, edgeList or nodes and edges");
  }
  if (has_preset) {
    std::vector<std::string> presets;
    for (const DatasetPreset& p : DatasetPresets()) presets.push_back(p.name);
    if (auto preset = Enum(item, "preset", path, presets)) {
      for (const DatasetPreset& p : DatasetPresets()) {
        if (p.name == *preset) {
          d.preset = p.name;
          d.nodes = p.nodes;
          d.edges = p.edges;
          d.feature_dim = p.feature_dim;
          d.url = p.url;
          d.directed = p.directed;
        }
      }
    }
  }
  if (has_sizes) {
    if (auto n = Integer(item, "nodes", path, 1, kMaxGraphNodes, true)) d.nodes = *n;
    if (auto e = Integer(item, "edges", path, 0, kMaxGraphEdges, true)) d.edges = *e;
  }
  if (auto f = Integer(item, "featureDim", path, 0, 1 << 20)) d.feature_dim = *f;
  // float32 features: the bytes every model derives its memory and transfer figures from.
  if (const double bytes = 4.0 * static_cast<double>(d.nodes) * static_cast<double>(d.feature_dim); bytes > kMaxFeatureBytes)
    Problem(Child(path, "featureDim"), "the features would take " + std::to_string(std::llround(bytes / kMaxFeatureBytes)) +
                                           " PiB (" + std::to_string(d.nodes) + " nodes x " + std::to_string(d.feature_dim) +
                                           " float32); a dataset's features take at most 1 PiB (docs/limits.md)");
  if (auto url = String(item, "url", path)) d.url = *url;
  if (auto structure = Enum(item, "structure", path, {"real", "random"})) d.structure = *structure;
  if (has_edge_list) {
    if (auto file = String(item, "edgeList", path, true)) {
      d.edge_list = Resolve(*file);
      d.graph = ReadGraph(d.edge_list, Child(path, "edgeList"));
    }
  }
  s.datasets.push_back(std::move(d));
}

bool Loader::DatasetKnown(const Scenario& s, const std::string& name) const {
  return std::any_of(s.datasets.begin(), s.datasets.end(), [&](const DatasetSpec& d) { return d.name == name; });
}
std::vector<std::string> Loader::DatasetNames(const Scenario& s) const {
  std::vector<std::string> names;
  for (const DatasetSpec& d : s.datasets) names.push_back(d.name);
  return names;
}

}  // namespace harness::loading
