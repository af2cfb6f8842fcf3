#include "sim/dgl/dataset.h"

#include "fakeapi/client/json_path.h"
#include "sim/dgl/flags.h"
#include "sim/graph/graph.h"

#include <algorithm>

namespace sim::dglmodels {

DatasetInfo DefaultDataset() {
  DatasetInfo d;
  d.name = "cora (default)";
  d.nodes = 2708;
  d.edges = 5278;
  d.feature_dim = 1433;
  d.train_nodes = 140;
  d.is_default = true;
  return d;
}

std::int64_t TrainNodesFor(const std::string& preset, std::int64_t nodes) {
  if (preset == "ogbn-products") return 196'615;
  if (preset == "ogbn-papers100M") return 1'207'179;
  if (preset == "ogbn-arxiv") return 90'941;
  if (preset == "ogbn-proteins") return 86'619;
  return std::max<std::int64_t>(1, nodes / 10);
}

PartSizes SplitGraph(const DatasetInfo& d, const Calibration& c, int parts, bool random) {
  PartSizes out;
  parts = std::max(1, parts);
  const double p = parts;
  // The workload models call this for every calibration at the ends of the ranges (ParameterEnds),
  // hundreds of times a job: one allocation per vector, not one per doubling.
  out.nodes.reserve(static_cast<std::size_t>(parts));
  out.edges.reserve(static_cast<std::size_t>(parts));
  out.halo.reserve(static_cast<std::size_t>(parts));
  auto it = d.measured.find(parts);
  if (!random && it != d.measured.end() && it->second.part_nodes.size() == static_cast<std::size_t>(parts)) {
    const MeasuredPartition& m = it->second;
    for (int i = 0; i < parts; ++i) {
      out.nodes.push_back(static_cast<double>(m.part_nodes[i]));
      out.edges.push_back(static_cast<double>(m.part_edges[i]));
      out.halo.push_back(static_cast<double>(m.part_halo[i]));
    }
    out.cut_fraction = d.edges > 0 ? static_cast<double>(m.edge_cut) / static_cast<double>(d.edges) : 0;
    out.measured = true;
    return out;
  }
  out.cut_fraction = random ? RandomCutFraction(parts) : MetisCutFraction(c, parts, d.structure);
  const double nodes = static_cast<double>(d.nodes) / p;
  const double edges = d.SymEdges() / p;
  for (int i = 0; i < parts; ++i) {
    out.nodes.push_back(nodes);
    out.edges.push_back(edges);
    // A part's halo: the far ends of its cut edges, at most every other node.
    out.halo.push_back(std::min(static_cast<double>(d.nodes) - nodes, edges * out.cut_fraction));
  }
  return out;
}

struct DglEnvironment::GraphCache {
  std::map<std::string, std::shared_ptr<const graph::Graph>> graphs;  // by file
  std::map<std::pair<std::string, int>, MeasuredPartition> partitions;
};

DglEnvironment::DglEnvironment(Calibration calibration, std::vector<DatasetInfo> datasets,
                               std::map<std::string, std::string> job_datasets)
    : calibration_(std::move(calibration)),
      ends_(std::make_shared<const ParameterEnds>(calibration_)),
      datasets_(std::move(datasets)),
      job_datasets_(std::move(job_datasets)),
      default_(DefaultDataset()),
      graphs_(std::make_shared<GraphCache>()) {
  for (DatasetInfo& d : datasets_) {
    if (d.train_nodes <= 0) d.train_nodes = TrainNodesFor(d.name, d.nodes);
    if (d.edge_list.empty()) continue;
    graph::ReadResult read;
    read.graph = d.graph;
    if (!read.graph) read = graph::ReadEdgeList(d.edge_list);
    if (!read.graph) {
      d.measure_error = read.error;
      continue;
    }
    graph::GraphSize size = graph::SizeOf(*read.graph);
    d.nodes = size.nodes;
    d.edges = size.edges;
    if (d.train_nodes <= 0 || d.train_nodes > d.nodes) d.train_nodes = std::max<std::int64_t>(1, d.nodes / 10);
    graphs_->graphs[d.edge_list] = read.graph;
  }
}

const MeasuredPartition* DglEnvironment::Measured(const DatasetInfo& d, int parts) const {
  if (d.edge_list.empty() || parts < 1) return nullptr;
  auto key = std::make_pair(d.edge_list, parts);
  if (auto it = graphs_->partitions.find(key); it != graphs_->partitions.end()) return &it->second;
  auto g = graphs_->graphs.find(d.edge_list);
  if (g == graphs_->graphs.end()) return nullptr;
  // Fixed seed: the same graph and part count give the same parts in every run.
  graph::Partition p = graph::PartitionGraph(*g->second, parts, graph::Method::kMetis, 1);
  if (!p.error.empty() || p.part_stats.size() != static_cast<std::size_t>(parts)) return nullptr;
  MeasuredPartition m;
  for (const auto& s : p.part_stats) {
    m.part_nodes.push_back(s.nodes);
    m.part_edges.push_back(s.edges);
    m.part_halo.push_back(s.halo_nodes);
  }
  m.edge_cut = p.edge_cut;
  return &graphs_->partitions.emplace(key, std::move(m)).first->second;
}

DglEnvironment::Match DglEnvironment::Find(const std::string& job_key, const std::string& annotation,
                                           const std::string& url, const std::string& graph_name) const {
  auto by_name = [&](const std::string& name) -> const DatasetInfo* {
    for (const DatasetInfo& d : datasets_)
      if (d.name == name) return &d;
    return nullptr;
  };
  if (auto it = job_datasets_.find(job_key); it != job_datasets_.end())
    if (const DatasetInfo* d = by_name(it->second)) return {d, "job"};
  if (!annotation.empty())
    if (const DatasetInfo* d = by_name(annotation)) return {d, "annotation"};
  if (!url.empty())
    for (const DatasetInfo& d : datasets_)
      if (!d.url.empty() && d.url == url) return {&d, "url"};
  if (!graph_name.empty()) {
    if (const DatasetInfo* d = by_name(graph_name)) return {d, "graph-name"};
    for (const DatasetInfo& d : datasets_) {
      const std::string& n = d.name;
      if (n.size() > graph_name.size() && n.compare(n.size() - graph_name.size(), graph_name.size(), graph_name) == 0 &&
          (n[n.size() - graph_name.size() - 1] == '-' || n[n.size() - graph_name.size() - 1] == '_'))
        return {&d, "graph-name"};
    }
  }
  return {&default_, "default"};
}

DglEnvironment::Match DglEnvironment::MatchJob(const kube::Json& job) const {
  auto at = [](const kube::Json& obj, std::initializer_list<std::string_view> path) { return kube::JsonAt(obj, path); };
  auto strings = [](const kube::Json* list) {
    std::vector<std::string> out;
    if (list && list->is_array())
      for (const auto& s : *list)
        if (s.is_string()) out.push_back(s.get<std::string>());
    return out;
  };
  std::string ns, name, annotation;
  if (const auto* v = at(job, {"metadata", "namespace"}); v && v->is_string()) ns = v->get<std::string>();
  if (const auto* v = at(job, {"metadata", "name"}); v && v->is_string()) name = v->get<std::string>();
  const auto* launcher = at(job, {"spec", "dglReplicaSpecs", "Launcher", "template"});
  for (const auto* holder : {at(job, {"metadata"}), launcher ? at(*launcher, {"metadata"}) : nullptr})
    if (const auto* a = holder ? at(*holder, {"annotations", "dglsim.io/dataset"}) : nullptr; a && a->is_string())
      annotation = a->get<std::string>();
  DglFlags flags;
  if (const auto* containers = launcher ? at(*launcher, {"spec", "containers"}) : nullptr;
      containers && containers->is_array() && !containers->empty() && (*containers)[0].is_object())
    flags = ParseDglFlags(strings(at((*containers)[0], {"command"})), strings(at((*containers)[0], {"args"})));
  return Find(ns + "/" + name, annotation, flags.dataset_url, flags.graph_name);
}

}  // namespace sim::dglmodels
