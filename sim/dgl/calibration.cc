#include "sim/dgl/calibration.h"

#include "sim/dgl/laws.h"

#include <algorithm>
#include <cmath>

namespace sim::dglmodels {


namespace {

constexpr double kMi = 1024.0 * 1024;
// The laws' 90 % leave-one-out bands as factors, exp(t(29) x rms) (sim/dgl/fits.h; the test
// tests/sim/dgl/dgl_fits_test.cc derives them again from the runs).
constexpr double kMetisTimeBand = 2.02;
constexpr double kMetisMemoryBand = 1.14;
constexpr double kRandomCutBand = 1.13;
// The extrapolation factors' ranges per e-fold beyond the checked sizes, exp(t x rate) (fits.h,
// Extrapolation; the test derives them again), and the chunked pipeline's leave-one-out bands.
constexpr double kMetisTimeExtrapolation = 1.14;
constexpr double kDispatchBand = 1.09;
constexpr double kDispatchExtrapolation = 1.10;
constexpr double kRandomPartitionBand = 1.26;
constexpr double kRandomPartitionExtrapolation = 1.10;

}  // namespace

const std::vector<UncertainParameter>& UncertainParameters() {
  using C = Calibration;
  static const std::vector<UncertainParameter> kParameters = {
      {"archiveRatio", &C::archive_ratio, 0.78, 0.95, "57 GB of 66 GB raw from a secondary source: +-10 %"},
      {"unpackBytesPerSecond", &C::unpack_bytes_per_second, 100e6, 300e6, "one-thread inflate, planning"},
      {"ogbLoadBytesPerSecond", &C::ogb_load_bytes_per_second, 50e6, 250e6, "OGB's loader, planning"},
      {"ogbPeakFactor", &C::ogb_peak_factor, 3.6, 6.0, "about 400 GB (300-500 GB) from a secondary source"},
      {"nodeLabelBytes", &C::node_label_bytes, 8, 32, "labels and masks per node, planning"},
      {"metisEdgesPerNode", &C::metis_edges_per_node, 2, 6, "measured here 1.9-4.1 on R-MAT"},
      {"metisSizeExponent", &C::metis_size_exponent, 0.05, 0.2, "measured here 0.03-0.19; mt-metis 0.14"},
      {"metisPartsShare", &C::metis_parts_share, 0.12, 0.4, "products 0.19; R-MAT grows faster with the parts"},
      {"metisHomeMachineSpeed", &C::metis_home_machine_speed, 1.0, 2.5, "a desktop core against the log's Xeon"},
      {"metisRandomStructure", &C::metis_random_structure, 2.5, 6.7, "R-MAT here against products there"},
      {"metisTimeError", &C::metis_time_error, 1 / kMetisTimeBand, kMetisTimeBand,
       "90 % band of the METIS time law's leave-one-out errors, 30 runs measured here (fits.h)"},
      {"metisTimeExtrapolation", &C::metis_time_extrapolation, 1 / kMetisTimeExtrapolation, kMetisTimeExtrapolation,
       "per e-fold beyond the sizes the METIS time law was checked on (fits.h, Extrapolation)"},
      {"metisMemoryError", &C::metis_memory_error, 1 / kMetisMemoryBand, kMetisMemoryBand,
       "90 % band of the 32-bit METIS memory law's leave-one-out errors, 30 runs measured here"},
      {"metisCutQ64", &C::metis_cut_q64, 0.10, 0.25, "products 0.137; other real graphs"},
      {"metisCutGrowth", &C::metis_cut_growth, 0.5, 1.5, "planning"},
      {"metisCutError", &C::metis_cut_error, 1 / kRandomCutBand, kRandomCutBand,
       "90 % band of the random-structure cut's leave-one-out errors, 30 runs measured here"},
      {"parmetisWorkFactor", &C::parmetis_work_factor, 1.0, 2.0, "planning"},
      {"parmetisEfficiencyDecay", &C::parmetis_efficiency_decay, 0.06, 0.25, "docs/models.md: 0.5-0.8 per rank"},
      {"parmetisExchangeVolume", &C::parmetis_exchange_volume, 4, 16, "planning"},
      {"parmetisBytesPerCutEdge", &C::parmetis_bytes_per_cut_edge, 8, 32, "planning"},
      {"parmetisRounds", &C::parmetis_rounds, 50, 200, "planning"},
      {"parmetisMessageSeconds", &C::parmetis_message_seconds, 20e-6, 200e-6, "planning"},
      {"parmetisRankOverheadBytes", &C::parmetis_rank_overhead_bytes, 256 * kMi, 1024 * kMi, "planning"},
      {"dispatchMemoryFactor", &C::dispatch_memory_factor, 2.0, 3.0, "DGL: cluster RAM 2-3x the graph data"},
      {"dispatchTimeError", &C::dispatch_time_error, 1 / kDispatchBand, kDispatchBand,
       "90 % band of the dispatch_data.py law's leave-one-out errors, runs measured here (reports/dgl-measured/)"},
      {"dispatchExtrapolation", &C::dispatch_extrapolation, 1 / kDispatchExtrapolation, kDispatchExtrapolation,
       "per e-fold beyond the edges per rank measured here (fits.h, Extrapolation)"},
      {"randomPartitionError", &C::random_partition_error, 1 / kRandomPartitionBand, kRandomPartitionBand,
       "90 % band of the random_partition.py law's leave-one-out errors, runs measured here"},
      {"randomPartitionExtrapolation", &C::random_partition_extrapolation, 1 / kRandomPartitionExtrapolation,
       kRandomPartitionExtrapolation, "per e-fold beyond the nodes measured here (fits.h, Extrapolation)"},
      {"partitionBytesPerLoadedEdge", &C::partition_bytes_per_loaded_edge, 24, 29,
       "products 24.3-25.9, papers100M 27.2-28.5 B per loaded edge"},
      {"loadGraphCopies", &C::load_graph_copies, 1.5, 2.5, "planning"},
      {"shmBytesPerNode", &C::shm_bytes_per_node, 150, 350, "a two-point fit: what a part keeps per node is not published"},
      {"processBytesPerGraphNode", &C::process_bytes_per_graph_node, 30, 80,
       "a two-point fit: what a process keeps per node is not published"},
      {"referenceTrainers", &C::reference_trainers, 1, 4, "DistDGL's configuration is not in its abstract"},
      {"trainerExponent", &C::trainer_exponent, 0.3, 0.7, "planning"},
      {"samplerExponent", &C::sampler_exponent, 0.1, 0.4, "planning"},
      {"gpuSpeedup", &C::gpu_speedup, 1.5, 4.0, "DistDGLv2's 5-10 s on 64 GPUs"},
      {"sampledNodesPerSeed", &C::sampled_nodes_per_seed, 100, 300, "fan-out 10,25, planning"},
      {"remoteHops", &C::remote_hops, 1.5, 3, "planning"},
      {"remoteShare", &C::remote_share, 0.05, 0.35, "DistDGL's linear speed-up from 8 to 16 machines; planning"},
      {"rpcSecondsPerRequest", &C::rpc_seconds_per_request, 50e-6, 300e-6, "planning"},
      {"processStartSeconds", &C::process_start_seconds, 3, 15, "import torch and dgl, planning"},
      {"keSecondsPerTriple", &C::ke_seconds_per_triple, 1e-6, 5e-6, "planning"},
      {"sampledEdgesPerSeed", &C::sampled_edges_per_seed, 450, 915, "fan-out 15,10,5; de-duplication halves it at most, planning"},
      {"bytesPerSampledEdge", &C::bytes_per_sampled_edge, 8, 24, "int32 to int64 ids plus framing, planning"},
      {"samplerBytes", &C::sampler_bytes, 256 * kMi, 1024 * kMi, "planning"},
  };
  return kParameters;
}

Calibration AtRangeEnd(const Calibration& c, const UncertainParameter& p, bool high) {
  static const Calibration kDefaults;
  Calibration out = c;
  const double fallback = kDefaults.*(p.member);
  const double end = high ? p.high : p.low;
  // A value the calibration changed keeps its range relative to it.
  out.*(p.member) = fallback != 0 && c.*(p.member) != fallback ? end * (c.*(p.member) / fallback) : end;
  return out;
}

Calibration WithMeasuredMachine(Calibration c, const MetisLine& line, std::vector<CalibrationPoint> points) {
  if (points.empty() && line.edges_per_second > 0) {
    for (std::int64_t nodes = 4096; nodes <= 131072; nodes *= 2) {
      const double edges = 28.0 * static_cast<double>(nodes);
      points.push_back({.nodes = nodes, .edges = static_cast<std::int64_t>(edges), .parts = 4,
                        .seconds = line.fixed_seconds + edges / line.edges_per_second,
                        .peak_bytes = static_cast<std::int64_t>(line.fixed_bytes + line.bytes_per_edge * edges)});
    }
  }
  const Calibration reference;  // the laws at the reference machine
  const Structure structure = line.real_structure ? Structure::kReal : Structure::kRandom;
  double log_speed = 0, log_memory = 0;
  int timed = 0, sized = 0;
  for (const CalibrationPoint& p : points) {
    if (p.nodes <= 0 || p.edges <= 0 || p.parts < 2) continue;
    const GraphShape g{static_cast<double>(p.nodes), static_cast<double>(p.edges), 0, structure};
    if (p.seconds > 0) {
      log_speed += std::log(MetisSeconds(reference, g, p.parts, 1) / p.seconds);
      ++timed;
    }
    if (p.peak_bytes > 0) {
      log_memory += std::log(static_cast<double>(p.peak_bytes) / Metis32Bytes(reference, g));
      ++sized;
    }
  }
  if (timed > 0) c.metis_machine_speed = std::exp(log_speed / timed);
  if (sized > 0) c.metis_memory_scale = std::exp(log_memory / sized);
  return c;
}

}  // namespace sim::dglmodels
