#include "sim/dgl/tri_workload.h"

#include "sim/dgl/laws.h"

#include <algorithm>

namespace sim::dglmodels {

TriEpochCost TriEpoch(const DatasetInfo& d, const Calibration& c, const PartSizes& parts, const TriConfig& config) {
  TriEpochCost out;
  const int training = std::max(1, config.worker_pods + config.trainer_pods);
  const int samplers = config.sampler_pods > 0
                           ? std::max(0, config.sampler_pods * config.samplers / training)
                           : config.samplers;
  const EpochConfig pods{.machines = training, .trainers = config.trainers_per_pod, .samplers = samplers,
                         .gpus = config.gpus, .cpu_speed = config.cpu_speed};
  // Worker pods fetch the cut's share of the features; trainer pods hold no partition and fetch them
  // all. The training pods run in step, so the epoch is the slower pod's.
  const EpochTime epoch = TrainingEpoch(d, c, parts, pods);
  if (config.worker_pods > 0) out.compute_seconds = epoch.total;
  if (config.trainer_pods > 0) {
    EpochConfig fetching = pods;
    fetching.remote_fraction = 1.0;
    out.compute_seconds = std::max(out.compute_seconds, TrainingEpoch(d, c, parts, fetching).total);
  }

  const double seeds_per_pod = static_cast<double>(std::max<std::int64_t>(1, d.train_nodes)) / training;
  const double feature_bytes = c.feature_bytes_per_value * static_cast<double>(d.feature_dim);
  const double serving = config.worker_pods + config.server_pods;
  if (serving > 1) out.worker_remote_bytes = epoch.remote_bytes_per_machine;
  out.trainer_feature_bytes = seeds_per_pod * c.sampled_nodes_per_seed * feature_bytes;
  const double structure_per_seed = c.sampled_edges_per_seed * c.bytes_per_sampled_edge;
  if (config.sampler_pods > 0) {
    const double all_seeds = seeds_per_pod * training;
    out.sampler_structure_bytes = all_seeds * structure_per_seed / config.sampler_pods;
    out.sampler_block_bytes = out.sampler_structure_bytes;
  } else {
    out.trainer_structure_bytes = seeds_per_pod * structure_per_seed;
  }
  return out;
}

double ServerPodBytes(const PartFiles& files) { return files.total(); }

double TrainerPodBytes(const Calibration& c, const DatasetInfo& d, int trainers) {
  return std::max(1, trainers) * ProcessBytes(c, static_cast<double>(d.nodes));
}

double SamplerPodBytes(const Calibration& c, int samplers) { return std::max(1, samplers) * c.sampler_bytes; }

}  // namespace sim::dglmodels
