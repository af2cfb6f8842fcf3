#include "sim/dgl/laws.h"

#include <algorithm>
#include <cmath>

namespace sim::dglmodels {

namespace {

constexpr int kReferenceParts = 64;
constexpr int kReferenceConstraints = 4;
// The published plain-METIS point the constraint cost is fitted to: ogbn-products, 64 parts, 20.8 s.
constexpr double kProductsMetisSeconds = 20.8;

double Log2(double x) { return std::log2(std::max(1.0, x)); }

GraphShape PapersShape() { return {kPapersNodes, kPapersSymEdges, kPapersFeatureDim, Structure::kReal}; }
GraphShape ProductsShape() { return {kProductsNodes, kProductsSymEdges, kProductsFeatureDim, Structure::kReal}; }

// W(E, N) x E^size_exponent: the size part of the METIS time law.
double MetisSizeShape(const Calibration& c, const GraphShape& g) {
  const double work = g.sym_edges + c.metis_edges_per_node * g.nodes;
  return work * std::pow(std::max(1.0, g.sym_edges), c.metis_size_exponent);
}

double MetisPartsShape(const Calibration& c, int parts, Structure s) {
  const double share = s == Structure::kRandom ? c.metis_random_parts_share : c.metis_parts_share;
  return 1.0 + share * std::pow(std::max(1, parts) / static_cast<double>(kReferenceParts), c.metis_parts_exponent);
}

double MetisConstraintShape(double cost, int constraints) { return 1.0 + cost * (std::max(1, constraints) - 1); }

// METIS time at the reference machine, before the calibration file's machine speed.
double MetisReferenceSeconds(const Calibration& c, const GraphShape& g, int parts, int constraints, double cost) {
  const GraphShape anchor = PapersShape();
  double seconds = c.metis_reference_seconds * MetisSizeShape(c, g) / MetisSizeShape(c, anchor) *
                   MetisPartsShape(c, parts, g.structure) / MetisPartsShape(c, kReferenceParts, g.structure) *
                   MetisConstraintShape(cost, constraints) / MetisConstraintShape(cost, kReferenceConstraints);
  if (g.structure == Structure::kRandom) seconds *= c.metis_random_structure;
  return seconds;
}

double MetisAnchorWorkspace(const Calibration& c) {
  return c.metis_peak_bytes - c.bidirected_bytes - 8.0 * kReferenceConstraints * kPapersNodes;
}

}  // namespace

const char* ToString(Structure s) { return s == Structure::kRandom ? "random" : "real"; }

int MetisConstraints(bool balance_train, bool balance_edges) {
  const int types = balance_train ? 2 : 0;  // train mask: two values
  int weights = types;
  if (balance_edges) weights += balance_train ? types : 1;
  return std::max(1, weights);
}

double MetisConstraintCost(const Calibration& c) {
  // Products with the log's 4 constraints on the reference machine, against the published plain run
  // on a machine metis_home_machine_speed times as fast.
  const double four = MetisReferenceSeconds(c, ProductsShape(), kReferenceParts, kReferenceConstraints, 0.0);
  const double plain_here = kProductsMetisSeconds * std::max(0.1, c.metis_home_machine_speed);
  return std::max(0.0, (four / plain_here - 1.0) / (kReferenceConstraints - 1));
}

double ExtrapolationDistance(double size, double low, double high) {
  if (!(size > 0) || !(high > 0) || !(high >= low)) return 0;
  if (size > high) return std::log(size / high);
  if (low > 0 && size < low) return std::log(low / size);
  return 0;
}

double MetisExtrapolationDistance(const GraphShape& g) {
  return ExtrapolationDistance(g.sym_edges, 0, g.structure == Structure::kRandom ? 63'543'364 : kPapersSymEdges);
}

double MetisSeconds(const Calibration& c, const GraphShape& g, int parts, int constraints) {
  const double seconds = MetisReferenceSeconds(c, g, parts, constraints, MetisConstraintCost(c));
  return seconds * c.metis_time_error * std::pow(c.metis_time_extrapolation, MetisExtrapolationDistance(g)) /
         std::max(1e-6, c.metis_machine_speed);
}

double DispatchRankSeconds(const Calibration& c, double edges_per_rank) {
  const double d = ExtrapolationDistance(edges_per_rank, 0, kDispatchCheckedHigh);
  return (c.dispatch_fixed_seconds + c.dispatch_seconds_per_edge * edges_per_rank) * c.dispatch_time_error *
         std::pow(c.dispatch_extrapolation, d);
}

double RandomPartitionSeconds(const Calibration& c, double nodes) {
  const double d = ExtrapolationDistance(nodes, 0, kRandomPartitionCheckedHigh);
  return (c.random_partition_fixed_seconds + c.random_partition_seconds_per_node * nodes) *
         c.random_partition_error * std::pow(c.random_partition_extrapolation, d);
}

double MetisWorkspaceBytes(const Calibration& c, const GraphShape& g) {
  const double rho = c.metis_memory_edges_per_node;
  const double shape = (g.sym_edges + rho * g.nodes) / (kPapersSymEdges + rho * kPapersNodes);
  return MetisAnchorWorkspace(c) * shape * c.metis_memory_scale * c.metis_memory_error;
}

double Metis32Bytes(const Calibration& c, const GraphShape& g) {
  return (c.metis32_bytes_per_edge * g.sym_edges + c.metis32_bytes_per_node * g.nodes) * c.metis_memory_error;
}

double RandomCutFraction(int parts) { return parts <= 1 ? 0.0 : 1.0 - 1.0 / parts; }

double MetisCutFraction(const Calibration& c, int parts, Structure s) {
  if (parts <= 1) return 0.0;
  const bool random = s == Structure::kRandom;
  const double q64 = random ? c.metis_random_cut_q64 : c.metis_cut_q64;
  const double growth = random ? c.metis_random_cut_growth : c.metis_cut_growth;
  const double error = random ? c.metis_cut_error : 1.0;
  const double q = std::min(1.0, q64 * std::pow(Log2(parts) / Log2(kReferenceParts), growth) * error);
  return RandomCutFraction(parts) * q;
}

double RandomAssignmentSeconds(const Calibration& c, double nodes) {
  return nodes * c.random_seconds_per_node * c.metis_home_machine_speed;
}

double ParmetisEfficiency(const Calibration& c, int ranks) {
  return 1.0 / (1.0 + c.parmetis_efficiency_decay * Log2(ranks));
}

ParmetisTime ParmetisSeconds(const Calibration& c, const GraphShape& g, int parts, int constraints, int ranks,
                             int machines, double link_bytes_per_second, double cpu_speed) {
  ranks = std::max(1, ranks);
  machines = std::clamp(machines, 1, ranks);
  const double cpu = cpu_speed > 0 ? cpu_speed : 1.0;
  ParmetisTime t;
  const double serial = MetisSeconds(c, g, parts, constraints) * c.parmetis_work_factor / cpu;
  t.compute = serial / (ranks * ParmetisEfficiency(c, ranks));
  if (ranks > 1) {
    // Each machine's share of the boundary crosses its link; ranks of one machine message faster.
    const double boundary = g.sym_edges / machines * RandomCutFraction(machines > 1 ? machines : ranks);
    const double link = link_bytes_per_second > 0 ? link_bytes_per_second : 10e9;
    const double latency = c.parmetis_message_seconds * (machines > 1 ? 1.0 : 0.1);
    t.communication = c.parmetis_exchange_volume * boundary * c.parmetis_bytes_per_cut_edge / link +
                      c.parmetis_rounds * (ranks - 1) * latency;
  }
  return t;
}

ParmetisCheck CheckParmetis(const Calibration& c, const GraphShape& g, int machines) {
  ParmetisCheck out;
  out.ints_per_rank = c.parmetis_ints_per_edge * g.sym_edges / std::max(1, machines);
  out.overflows = out.ints_per_rank > c.parmetis_message_limit_ints;
  return out;
}

double RemoteFraction(const Calibration& c, int machines, double cut_fraction) {
  if (machines <= 1) return 0.0;
  return std::min(1.0 - 1.0 / machines, c.remote_hops * cut_fraction);
}

namespace {

// A trainer's time per seed when `trainers` share a machine, relative to `reference` trainers.
double TrainerShare(const Calibration& c, double trainers, double reference) {
  return std::pow(std::max(1.0, trainers) / std::max(1.0, reference), 1.0 - c.trainer_exponent);
}

// Sampling of one trainer: its seeds plus one request per layer to every other machine per step.
double SamplingWork(const Calibration& c, double seeds_per_trainer, const EpochConfig& config, double trainers) {
  const double cpu = config.cpu_speed > 0 ? config.cpu_speed : 1.0;
  const double steps = std::ceil(seeds_per_trainer / std::max(1, config.batch));
  return seeds_per_trainer * c.sampling_seconds_per_seed * TrainerShare(c, trainers, c.sampling_reference_trainers) /
             cpu +
         steps * c.sampling_layers * (std::max(1, config.machines) - 1) * c.rpc_seconds_per_request;
}

struct TrainBudget {
  double per_seed = 0;        // seconds of compute and fetches per seed at the anchor
  double remote_anchor = 0;   // the remote fraction there
};

// What remains of DistDGL's 13 s after its sampling, per seed (at least a tenth of the epoch).
TrainBudget AnchorBudget(const Calibration& c) {
  EpochConfig anchor{.machines = c.epoch_reference_machines, .samplers = c.reference_samplers,
                     .batch = c.reference_batch};
  const double seeds = kPapersTrainNodes / anchor.machines / std::max(1.0, c.reference_trainers);
  const double sampling = SamplingWork(c, seeds, anchor, c.reference_trainers);
  TrainBudget b;
  b.per_seed = std::max(0.1 * c.epoch_reference_seconds, c.epoch_reference_seconds - c.sampling_epoch_seconds - sampling) /
               seeds;
  b.remote_anchor =
      RemoteFraction(c, anchor.machines, MetisCutFraction(c, anchor.machines, Structure::kReal));
  return b;
}

}  // namespace

double SamplingSecondsPerEpoch(const Calibration& c, double train_nodes, const EpochConfig& config) {
  const double seeds = std::max(1.0, train_nodes) / std::max(1, config.machines) / std::max(1, config.trainers);
  return c.sampling_epoch_seconds + SamplingWork(c, seeds, config, config.trainers);
}

EpochTime Epoch(const Calibration& c, const GraphShape& g, double train_nodes, const EpochConfig& config) {
  EpochTime t;
  const int machines = std::max(1, config.machines);
  const double cpu = config.cpu_speed > 0 ? config.cpu_speed : 1.0;
  const double seeds = std::max(1.0, train_nodes) / machines / std::max(1, config.trainers);
  const double cut = config.cut_fraction >= 0 ? config.cut_fraction : MetisCutFraction(c, machines, g.structure);
  const double remote = config.remote_fraction >= 0 ? std::min(1.0, config.remote_fraction) : RemoteFraction(c, machines, cut);
  const TrainBudget budget = AnchorBudget(c);
  const double remote_ratio = budget.remote_anchor > 0 ? remote / budget.remote_anchor : 0.0;
  const double compute = (1.0 - c.remote_share) / (config.gpus > 0 ? std::max(1e-3, c.gpu_speedup) : 1.0);
  const double per_seed = budget.per_seed * TrainerShare(c, config.trainers, c.reference_trainers) *
                          (compute + c.remote_share * remote_ratio) / cpu;
  t.fixed = c.sampling_epoch_seconds / cpu;
  t.sampling = SamplingWork(c, seeds, config, config.trainers);
  t.train = seeds * per_seed;
  t.total = config.samplers > 0
                ? t.fixed + std::max(t.train, t.sampling / std::pow(config.samplers, c.sampler_exponent))
                : t.fixed + t.sampling + t.train;
  t.remote_bytes_per_machine = std::max(1.0, train_nodes) / machines * c.sampled_nodes_per_seed * remote *
                               c.feature_bytes_per_value * g.feature_dim;
  return t;
}

double SharedMemoryBytes(const Calibration& c, const GraphShape& g, double part_edges, double part_nodes,
                         double feature_nodes) {
  return feature_nodes * c.feature_bytes_per_value * g.feature_dim + c.shm_bytes_per_edge * part_edges +
         c.shm_bytes_per_node * part_nodes;
}

double ProcessBytes(const Calibration& c, double graph_nodes) {
  return c.process_bytes + c.process_bytes_per_graph_node * graph_nodes;
}

}  // namespace sim::dglmodels
