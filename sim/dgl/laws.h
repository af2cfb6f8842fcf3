// The scaling laws of the DGL workload models: closed-form functions of a graph's size and structure,
// the part count, the machines and a Calibration. sim/dgl/models.h composes them into the stages a
// program runs; sim/dgl/published.cc evaluates them at every published point.
//
// Each law says where it comes from and where it was checked; the constants are in calibration.h.
// The laws fitted over the METIS runs measured here (sim/dgl/fits.h) multiply by an error factor,
// nominally 1, whose range is their leave-one-out band: metis_time_error (METIS time, x/÷ 2.0),
// metis_memory_error (both memory laws, x/÷ 1.14), metis_cut_error (the random-structure cut,
// x/÷ 1.13). Ranges checked (inside them the laws were compared with published or measured
// figures; outside they extrapolate):
//   METIS time     1.0 M - 63.5 M edges measured here (R-MAT, Barabasi-Albert), 124 M
//                  (ogbn-products) and 3.2 G (ogbn-papers100M) published; 2 - 4,096 parts; 1 or 4
//                  constraints.
//   METIS memory   1.0 M - 63.5 M edges measured here, 124 M and 3.2 G published (mt-metis, DGL).
//   edge cut       2 - 4,096 parts measured here (R-MAT, Barabasi-Albert); 64 parts published
//                  (ogbn-products).
//   ParMETIS       the MPI message limit at 1 B and 2.19 B edges (ParMETIS issue #8); no published
//                  timing: efficiency and communication are planning values.
//   random         ogbn-products' 2.45 M nodes (0.02 s, published) and 100 M nodes ("well under a
//   assignment     second", docs/models.md); random_partition.py measured here (reports/dgl-measured/).
//   dispatch_data  the real pipeline measured here at a few million edges per rank; a published
//                  billion-scale run (DGL v0.9.1's blog) as a held-out check. Beyond the measured
//                  sizes the METIS time, dispatch and random_partition laws widen their bands with
//                  the distance (fits.h, Extrapolation).
//   epoch          16 machines (DistDGL), its speed-up from 8 to 16, 8 x 8 GPUs (DistDGLv2);
//                  sampling on 2 machines with 4 trainers each, ogbn-products and ogbn-papers100M
//                  (GraphBolt). Other machine counts are extrapolation.
//   worker memory  2 machines, ogbn-products and ogbn-papers100M (GraphBolt): an exact two-point fit
//                  with no further point to check it against.
// Pure functions; nothing here reads a clock or draws a random number.
#pragma once

#include "sim/dgl/calibration.h"

namespace sim::dglmodels {

// Whether a graph has the locality of real graphs or none (R-MAT, Erdos-Renyi, Barabasi-Albert).
enum class Structure { kReal, kRandom };
const char* ToString(Structure s);

// What the laws need of a graph.
struct GraphShape {
  double nodes = 0;
  double sym_edges = 0;     // symmetrised edges
  double feature_dim = 0;
  Structure structure = Structure::kReal;
};

// ---- METIS ----------------------------------------------------------------------------------------

// The METIS constraints DGL's metis_partition_assignment builds: one weight per value of the train
// mask with --balance-train (2), with --balance-edges one in-degree weight per value (or one in
// all); none given: METIS's single default constraint.
int MetisConstraints(bool balance_train, bool balance_edges);
// C(ncon) = 1 + cost x (ncon - 1): the cost of each constraint beyond the first, fitted so that
// plain METIS on ogbn-products at 64 parts takes 20.8 s on the home machine (calibration.h).
double MetisConstraintCost(const Calibration& c);
// METIS_PartGraphKway's time on a machine of cpu speed 1 (the DGL log's), divided by the calibration
// file's metis_machine_speed, times metis_time_error and metis_time_extrapolation to the power of
// MetisExtrapolationDistance.
double MetisSeconds(const Calibration& c, const GraphShape& g, int parts, int constraints);
// The workspace of DGL's 64-bit METIS (its own arrays, not the DGL graph it is called on), anchored
// at 361.6 GB for ogbn-papers100M; scaled by the calibration file's metis_memory_scale and by
// metis_memory_error.
double MetisWorkspaceBytes(const Calibration& c, const GraphShape& g);
// A standalone 32-bit METIS process (Debian's libmetis, mt-metis-like baselines): its input arrays
// and workspace, as `dglsim calibrate` measures them, times metis_memory_error.
double Metis32Bytes(const Calibration& c, const GraphShape& g);
// The share of the symmetrised edges METIS cuts into `parts` parts (for graphs without locality
// times metis_cut_error, at most random assignment's), and random assignment's.
double MetisCutFraction(const Calibration& c, int parts, Structure s);
double RandomCutFraction(int parts);
// Random assignment (numpy's randint over the nodes) on a machine of cpu speed 1.
double RandomAssignmentSeconds(const Calibration& c, double nodes);

// How far `size` lies outside [low, high], in e-folds (natural log); 0 inside; low 0: no lower end.
double ExtrapolationDistance(double size, double low, double high);
// How far a graph lies beyond the largest sizes the METIS time law was checked on, in e-folds of
// its symmetrised edges (0 below): 63.5 M edges measured here for graphs without locality, 3.2 G
// published for real ones. MetisSeconds multiplies by metis_time_extrapolation to this power, so
// that its band widens with the distance. The laws widen upwards only: below the checked sizes
// their times are small (the runs here reach down to 1 M edges).
double MetisExtrapolationDistance(const GraphShape& g);

// ---- DGL's chunked pipeline, measured here (calibration.h, reports/dgl-measured/) ----------------

// The sizes the chunked pipeline's laws were measured at: edges per rank of dispatch_data.py and
// nodes of random_partition.py (DispatchRuns, RandomPartitionRuns in fits.h).
inline constexpr double kDispatchCheckedLow = 250000;
inline constexpr double kDispatchCheckedHigh = 4000000;
inline constexpr double kRandomPartitionCheckedLow = 62500;
inline constexpr double kRandomPartitionCheckedHigh = 1048576;
// One rank of dispatch_data.py owning `edges_per_rank` directed edges, CPU seconds on a machine of
// cpu speed 1, times dispatch_time_error and dispatch_extrapolation to the power of the distance
// beyond the largest size measured.
double DispatchRankSeconds(const Calibration& c, double edges_per_rank);
// random_partition.py over `nodes` nodes (one process), likewise.
double RandomPartitionSeconds(const Calibration& c, double nodes);

// ---- ParMETIS -------------------------------------------------------------------------------------

// Parallel efficiency per rank, 1 / (1 + decay x log2 ranks).
double ParmetisEfficiency(const Calibration& c, int ranks);
struct ParmetisTime {
  double compute = 0;        // the serial work shared out at the efficiency of `ranks`
  double communication = 0;  // boundary exchanges and per-message latency
  double total() const { return compute + communication; }
};
// pm_dglpart with `ranks` ranks over `machines` machines linked at `link_bytes_per_second` (a NIC;
// the memory bus when all ranks share one machine), `cpu_speed` the slowest machine's.
ParmetisTime ParmetisSeconds(const Calibration& c, const GraphShape& g, int parts, int constraints, int ranks,
                             int machines, double link_bytes_per_second, double cpu_speed);
// Message ints the busiest machine's ranks hold, and whether that passes MPI's 2^31 count.
struct ParmetisCheck {
  double ints_per_rank = 0;
  bool overflows = false;
};
ParmetisCheck CheckParmetis(const Calibration& c, const GraphShape& g, int machines);

// ---- sampling and training -----------------------------------------------------------------------

struct EpochConfig {
  int machines = 1;
  int trainers = 1;   // per machine
  int samplers = 0;   // per trainer
  int gpus = 0;       // per machine (0: CPU training)
  int batch = 1000;   // seeds per trainer per step
  double cpu_speed = 1.0;
  double cut_fraction = -1;  // of the partition the machines hold; < 0: METIS's, from the law
  // Of a seed's sampled features held on other machines; < 0: RemoteFraction of the cut. A pod that
  // holds no partition (a tri-workload job's trainer pod) fetches every one of them: 1.
  double remote_fraction = -1;
};
struct EpochTime {
  double fixed = 0;     // per-epoch start of the data loaders
  double sampling = 0;  // per trainer: neighbourhood sampling and its requests to other machines
  double train = 0;     // per trainer: forward / backward and remote feature fetches
  double total = 0;     // fixed + sampling + train, or fixed + max(train, sampling / samplers^b)
  double remote_bytes_per_machine = 0;  // features pulled from other machines
};
// One epoch over `train_nodes` seeds. Anchored: the DistDGL configuration (calibration.h) on
// ogbn-papers100M takes epoch_reference_seconds whatever the uncertain parameters; the remote
// share of that epoch grows with the edge cut, hence with the machines, so speed-up flattens.
EpochTime Epoch(const Calibration& c, const GraphShape& g, double train_nodes, const EpochConfig& config);
// Sampling time per epoch of one trainer (what the GraphBolt README reports).
double SamplingSecondsPerEpoch(const Calibration& c, double train_nodes, const EpochConfig& config);
// The share of a trainer's sampled input nodes that live on other machines.
double RemoteFraction(const Calibration& c, int machines, double cut_fraction);

// ---- memory of a worker ---------------------------------------------------------------------------

// Shared memory of a machine's servers holding a part of `part_edges` owned edges, `part_nodes`
// nodes (halo included) and features of `feature_nodes` nodes.
double SharedMemoryBytes(const Calibration& c, const GraphShape& g, double part_edges, double part_nodes,
                         double feature_nodes);
// Private memory of one DGL process (server, trainer or sampler) of a graph of `graph_nodes` nodes.
double ProcessBytes(const Calibration& c, double graph_nodes);

}  // namespace sim::dglmodels
