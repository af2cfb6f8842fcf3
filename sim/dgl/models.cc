#include "sim/dgl/models.h"

#include <algorithm>
#include <cmath>

namespace sim::dglmodels {

namespace {

double Cpu(double cpu_speed) { return cpu_speed > 0 ? cpu_speed : 1.0; }

// Bytes per symmetrised edge of the graph structure DGL holds at a step of the published log, once
// the log's node data (papers100M's features, labels and masks) is taken out.
double StructureBytesPerEdge(const Calibration& c, double step_bytes) {
  const double papers_node_data = kPapersNodes * (c.feature_bytes_per_value * kPapersFeatureDim + c.node_label_bytes);
  return std::max(0.0, step_bytes - papers_node_data) / kPapersSymEdges;
}

// A step of partition_graph's log, scaled to `d`: its structure per edge plus `d`'s node data.
double LogStepBytes(const DatasetInfo& d, const Calibration& c, double step_bytes, double share = 1.0) {
  return share * (StructureBytesPerEdge(c, step_bytes) * d.SymEdges() + NodeDataBytes(d, c));
}

}  // namespace

double TotalSeconds(const std::vector<PartitionStep>& steps) {
  double total = 0;
  for (const auto& s : steps) total += s.seconds;
  return total;
}

double PeakBytes(const std::vector<PartitionStep>& steps) {
  double peak = 0;
  for (const auto& s : steps) peak = std::max(peak, s.peak_bytes);
  return peak;
}

GraphShape ShapeOf(const DatasetInfo& d) {
  return {static_cast<double>(d.nodes), d.SymEdges(), static_cast<double>(d.feature_dim), d.structure};
}

double NodeDataBytes(const DatasetInfo& d, const Calibration& c) {
  return static_cast<double>(d.nodes) *
         (c.feature_bytes_per_value * static_cast<double>(d.feature_dim) + c.node_label_bytes);
}

double RawBytes(const DatasetInfo& d, const Calibration& c) {
  return c.raw_bytes_per_stored_edge * static_cast<double>(d.edges) +
         c.raw_bytes_per_feature_value * static_cast<double>(d.feature_dim) * static_cast<double>(d.nodes);
}

double ArchiveBytes(const DatasetInfo& d, const Calibration& c) { return c.archive_ratio * RawBytes(d, c); }

double ProcessedBytes(const DatasetInfo& d, const Calibration& c) {
  return c.processed_bytes_per_stored_edge * static_cast<double>(d.edges) +
         c.feature_bytes_per_value * static_cast<double>(d.feature_dim) * static_cast<double>(d.nodes);
}

double GraphDataBytes(const DatasetInfo& d, const Calibration& c) {
  return 16.0 * static_cast<double>(d.edges) +
         c.feature_bytes_per_value * static_cast<double>(d.feature_dim) * static_cast<double>(d.nodes);
}

std::vector<PartitionStep> PrepareSteps(const DatasetInfo& d, const Calibration& c, double cpu_speed, double share) {
  const double cpu = Cpu(cpu_speed);
  const double raw = RawBytes(d, c) * share;
  return {{"unpack", raw / (c.unpack_bytes_per_second * cpu), c.process_bytes},
          {"OGB load", raw / (c.ogb_load_bytes_per_second * cpu), c.ogb_peak_factor * GraphDataBytes(d, c) * share}};
}

std::vector<PartitionStep> SspSteps(const DatasetInfo& d, const Calibration& c, const PartitionOptions& options,
                                    double cpu_speed) {
  const double e = d.SymEdges();
  const double cpu = Cpu(cpu_speed);
  const GraphShape shape = ShapeOf(d);
  const double graph = LogStepBytes(d, c, c.bidirected_bytes);
  const int constraints = MetisConstraints(options.balance_train, options.balance_edges);
  const double weights = 8.0 * (options.balance_train || options.balance_edges ? constraints : 0) * d.nodes;
  std::vector<PartitionStep> steps;
  steps.push_back({"to homogeneous", e * c.homogeneous_seconds_per_edge / cpu, LogStepBytes(d, c, c.homogeneous_bytes)});
  steps.push_back({"to bidirected", e * c.bidirected_seconds_per_edge / cpu, graph});
  if (options.random) {
    steps.push_back({"random assignment", RandomAssignmentSeconds(c, static_cast<double>(d.nodes)) / cpu, graph});
  } else {
    if (options.balance_train || options.balance_edges) {
      // The in-degree weights need the in-edge format of the whole graph; train masks alone are cheap.
      steps.push_back({"constraint weights",
                       e * c.constraint_seconds_per_edge * (options.balance_edges ? 1.0 : 0.1) / cpu,
                       options.balance_edges ? LogStepBytes(d, c, c.constraint_bytes) : graph + weights});
    }
    steps.push_back({"METIS", MetisSeconds(c, shape, options.parts, constraints) / cpu,
                     graph + weights + MetisWorkspaceBytes(c, shape)});
  }
  steps.push_back({"reshuffle", e * c.reshuffle_seconds_per_edge / cpu, graph});
  steps.push_back({"split", e * c.split_seconds_per_edge / cpu, graph});
  return steps;
}

ParmetisCheck CheckParmetis(const DatasetInfo& d, const Calibration& c, int machines) {
  return CheckParmetis(c, ShapeOf(d), machines);
}

namespace {

// ParMETIS over `run`: the step and one machine's memory at its peak.
PartitionStep ParmetisStep(const DatasetInfo& d, const Calibration& c, const PartitionOptions& options,
                           const ParmetisRun& run) {
  const int machines = std::clamp(run.machines, 1, std::max(1, run.ranks));
  const double ranks_per_machine = std::ceil(static_cast<double>(std::max(1, run.ranks)) / machines);
  const GraphShape shape = ShapeOf(d);
  const int constraints = MetisConstraints(options.balance_train, options.balance_edges);
  const ParmetisTime t = ParmetisSeconds(c, shape, options.parts, constraints, run.ranks, machines,
                                         run.link_bytes_per_second, run.cpu_speed);
  return {"ParMETIS", t.total(), MetisWorkspaceBytes(c, shape) / machines + ranks_per_machine * c.parmetis_rank_overhead_bytes};
}

}  // namespace

std::vector<PartitionStep> ParmetisSteps(const DatasetInfo& d, const Calibration& c, const PartitionOptions& options,
                                         const ParmetisRun& run) {
  const double e = d.SymEdges();
  const double cpu = Cpu(run.cpu_speed);
  const double share = 1.0 / std::clamp(run.machines, 1, std::max(1, run.ranks));
  const double graph = LogStepBytes(d, c, c.bidirected_bytes, share);
  std::vector<PartitionStep> steps;
  steps.push_back({"ParMETIS input (homogeneous, bidirected, text files)",
                   e * share * (c.homogeneous_seconds_per_edge + c.bidirected_seconds_per_edge) / cpu, graph});
  steps.push_back(ParmetisStep(d, c, options, run));
  steps.push_back({"build partitions", e * share * (c.reshuffle_seconds_per_edge + c.split_seconds_per_edge) / cpu, graph});
  return steps;
}

std::vector<PartitionStep> ChunkedAssignmentSteps(const DatasetInfo& d, const Calibration& c,
                                                  const PartitionOptions& options, const ParmetisRun& run) {
  const double cpu = Cpu(run.cpu_speed);
  const double nodes = static_cast<double>(d.nodes);
  if (options.random) {
    // tools/partition_algo/random_partition.py: one process draws a part id per node and writes it
    // as a line of text (measured here).
    return {{"random_partition.py", RandomPartitionSeconds(c, nodes) / cpu, c.process_bytes + 8.0 * nodes}};
  }
  const double e = d.SymEdges();
  const double share = 1.0 / std::clamp(run.machines, 1, std::max(1, run.ranks));
  const double graph = LogStepBytes(d, c, c.bidirected_bytes, share);
  return {{"parmetis_preprocess", e * share * (c.homogeneous_seconds_per_edge + c.bidirected_seconds_per_edge) / cpu,
           graph},
          ParmetisStep(d, c, options, run),
          {"parmetis_postprocess", nodes * share * c.random_seconds_per_node * 10 / cpu, c.process_bytes + 8.0 * nodes * share}};
}

std::vector<PartitionStep> DispatchDataSteps(const DatasetInfo& d, const Calibration& c, int machines, double cpu_speed) {
  const double cpu = Cpu(cpu_speed);
  const double share = 1.0 / std::max(1, machines);
  const double data = GraphDataBytes(d, c) * share;
  const double peak = c.dispatch_memory_factor * data;
  // The ranks' work measured here: reading and parsing the chunks, sorting and looking up ids,
  // building and saving the DGL objects, per directed edge a rank owns (laws.h DispatchRankSeconds).
  return {{"dispatch_data.py: load chunks", data / (c.load_feats_bytes_per_second * cpu), data},
          {"dispatch_data.py: shuffle and build partitions",
           DispatchRankSeconds(c, static_cast<double>(d.edges) * share) / cpu, peak}};
}

double DispatchShuffleBytesPerMachine(const DatasetInfo& d, const Calibration& c, int machines) {
  const double n = std::max(1, machines);
  return GraphDataBytes(d, c) / n * (1.0 - 1.0 / n);
}

std::vector<PartFiles> PartitionFiles(const DatasetInfo& d, const Calibration& c, const PartSizes& parts) {
  std::vector<PartFiles> out;
  out.reserve(parts.nodes.size());
  // A part's share of the graph as loaded: its symmetrised edges, halved for a directed graph.
  const double loaded = d.SymEdges() > 0 ? d.LoadedEdges() / d.SymEdges() : 1.0;
  for (std::size_t i = 0; i < parts.nodes.size(); ++i) {
    PartFiles f;
    f.graph_bytes = c.partition_bytes_per_loaded_edge * parts.edges[i] * loaded;
    f.feature_bytes = c.feature_bytes_per_value * static_cast<double>(d.feature_dim) * parts.nodes[i];
    out.push_back(f);
  }
  return out;
}

LoadSteps ServerLoad(const PartFiles& files, const Calibration& c, double read_bytes_per_second, double cpu_speed) {
  const double cpu = Cpu(cpu_speed);
  const double read = read_bytes_per_second > 0 ? read_bytes_per_second : 1e30;
  LoadSteps s;
  s.load_graph = files.graph_bytes / std::min(read, c.load_graph_bytes_per_second * cpu);
  s.format = files.graph_bytes * c.format_seconds_per_byte / cpu;
  s.graph_to_shm = files.graph_bytes * c.graph_shm_seconds_per_byte / cpu;
  s.load_feats = files.feature_bytes / std::min(read, c.load_feats_bytes_per_second * cpu);
  s.feats_to_shm = files.feature_bytes * c.feats_shm_seconds_per_byte / cpu;
  return s;
}

int WorkerProcesses::count() const {
  return std::max(1, servers) + std::max(1, trainers) * (1 + std::max(0, samplers));
}

double WorkerServingBytes(const DatasetInfo& d, const Calibration& c, const PartSizes& parts, std::size_t i,
                          const WorkerProcesses& processes) {
  if (i >= parts.nodes.size()) return 0;
  return SharedMemoryBytes(c, ShapeOf(d), parts.edges[i], parts.nodes[i], parts.nodes[i]) +
         processes.count() * ProcessBytes(c, static_cast<double>(d.nodes));
}

double WorkerLoadPeakBytes(const DatasetInfo& d, const Calibration& c, const PartSizes& parts, std::size_t i,
                           const PartFiles& files, const WorkerProcesses& processes) {
  if (i >= parts.nodes.size()) return 0;
  return SharedMemoryBytes(c, ShapeOf(d), parts.edges[i], parts.nodes[i], parts.nodes[i]) +
         std::max(0.0, c.load_graph_copies - 1.0) * files.graph_bytes +
         std::max(1, processes.servers) * ProcessBytes(c, static_cast<double>(d.nodes));
}

EpochTime TrainingEpoch(const DatasetInfo& d, const Calibration& c, const PartSizes& parts, EpochConfig config) {
  config.cut_fraction = parts.cut_fraction;
  return Epoch(c, ShapeOf(d), static_cast<double>(d.train_nodes), config);
}

}  // namespace sim::dglmodels
