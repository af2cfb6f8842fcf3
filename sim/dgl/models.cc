#include "sim/dgl/models.h"

#include <algorithm>
#include <cmath>

namespace sim::dglmodels {

std::vector<PartitionStep> SspSteps(const DatasetInfo& d, const Calibration& c, int parts, bool balance, bool random,
                                    double cpu_speed) {
  const double e = d.SymEdges();
  const double cpu = cpu_speed > 0 ? cpu_speed : 1.0;
  const double graph = e * c.graph_bytes_per_edge;
  std::vector<PartitionStep> steps;
  steps.push_back({"to homogeneous", e * c.homogeneous_seconds_per_edge / cpu, e * c.homogeneous_bytes_per_edge});
  steps.push_back({"to bidirected", e * c.bidirected_seconds_per_edge / cpu, graph});
  if (random) {
    steps.push_back({"random assignment", static_cast<double>(d.nodes) * c.random_seconds_per_node / cpu, graph});
  } else {
    if (balance) steps.push_back({"constraint weights", e * c.constraint_seconds_per_edge / cpu, e * c.constraint_bytes_per_edge});
    steps.push_back({"METIS", c.metis_fixed_seconds + e / (c.metis_edges_per_second * cpu),
                     c.metis_fixed_bytes + e * MetisBytesPerEdge(c, parts, balance)});
  }
  steps.push_back({"reshuffle", e * c.reshuffle_seconds_per_edge / cpu, graph});
  steps.push_back({"split", e * c.split_seconds_per_edge / cpu, graph});
  return steps;
}

ParmetisCheck CheckParmetis(const DatasetInfo& d, const Calibration& c, int machines) {
  ParmetisCheck out;
  out.ints_per_rank = c.parmetis_ints_per_edge * d.SymEdges() / std::max(1, machines);
  out.overflows = out.ints_per_rank > c.parmetis_message_limit_ints;
  return out;
}

std::vector<PartitionStep> ParmetisSteps(const DatasetInfo& d, const Calibration& c, int ranks, int machines,
                                         double cpu_speed) {
  const double e = d.SymEdges();
  const double cpu = cpu_speed > 0 ? cpu_speed : 1.0;
  ranks = std::max(1, ranks);
  machines = std::clamp(machines, 1, ranks);
  const double speedup = std::max(1.0, ranks * c.parmetis_efficiency);
  const double ranks_per_machine = std::ceil(static_cast<double>(ranks) / machines);
  // One machine holds its ranks' share of the graph, plus each rank's own overhead.
  const double share = e / machines;
  const double machine_bytes = share * c.graph_bytes_per_edge + ranks_per_machine * c.parmetis_rank_overhead_bytes;
  std::vector<PartitionStep> steps;
  steps.push_back({"prepare (homogeneous, bidirected)",
                   e * (c.homogeneous_seconds_per_edge + c.bidirected_seconds_per_edge) / cpu / speedup,
                   share * c.homogeneous_bytes_per_edge});
  steps.push_back({"ParMETIS", c.metis_fixed_seconds + e / (c.metis_edges_per_second * cpu) / speedup, machine_bytes});
  return steps;
}

std::vector<PartFiles> PartitionFiles(const DatasetInfo& d, const Calibration& c, const PartSizes& parts) {
  std::vector<PartFiles> out;
  for (std::size_t i = 0; i < parts.nodes.size(); ++i) {
    PartFiles f;
    // Halo nodes are stored in the part too (with their ids, not their features).
    f.graph_bytes = c.partition_bytes_per_edge * parts.edges[i];
    f.feature_bytes = c.feature_bytes_per_value * static_cast<double>(d.feature_dim) * parts.nodes[i];
    out.push_back(f);
  }
  return out;
}

LoadSteps ServerLoad(const PartFiles& files, const Calibration& c, double read_bytes_per_second, double cpu_speed) {
  const double cpu = cpu_speed > 0 ? cpu_speed : 1.0;
  const double read = read_bytes_per_second > 0 ? read_bytes_per_second : 1e30;
  LoadSteps s;
  s.load_graph = files.graph_bytes / std::min(read, c.load_graph_bytes_per_second * cpu);
  s.format = files.graph_bytes * c.format_seconds_per_byte / cpu;
  s.graph_to_shm = files.graph_bytes * c.graph_shm_seconds_per_byte / cpu;
  s.load_feats = files.feature_bytes / std::min(read, c.load_feats_bytes_per_second * cpu);
  s.feats_to_shm = files.feature_bytes * c.feats_shm_seconds_per_byte / cpu;
  return s;
}

EpochCost Epoch(const DatasetInfo& d, const Calibration& c, const PartSizes& parts, const TrainConfig& config) {
  EpochCost out;
  const int machines = std::max(1, config.machines);
  const double cpu = config.cpu_speed > 0 ? config.cpu_speed : 1.0;
  const double trainers = std::max(1, config.trainers);
  double speedup = std::pow(trainers / std::max(1, c.reference_trainers), c.trainer_exponent) *
                   std::pow((1.0 + std::max(0, config.samplers)) / (1.0 + std::max(0, c.reference_samplers)),
                            c.sampler_exponent);
  if (config.gpus > 0) speedup *= c.gpu_speedup;
  const double seeds = static_cast<double>(std::max<std::int64_t>(1, d.train_nodes));
  out.compute_seconds = seeds * c.train_seconds_per_seed / machines / speedup / cpu;
  if (machines > 1)
    out.remote_bytes_per_machine = seeds / machines * c.sampled_nodes_per_seed * parts.cut_fraction *
                                   c.feature_bytes_per_value * static_cast<double>(d.feature_dim);
  return out;
}

double WorkerLoadPeakBytes(const PartFiles& files) { return 2.0 * files.total(); }

double WorkerServingBytes(const PartFiles& files, const Calibration& c, int trainers) {
  return files.total() + std::max(1, trainers) * c.trainer_bytes;
}

}  // namespace sim::dglmodels
