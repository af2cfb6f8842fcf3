// The DGL workload models as pure functions of a dataset, a calibration and a configuration: every
// stage the real scripts run, each with its time and peak memory, built from the scaling laws of
// sim/dgl/laws.h:
//
//   download     the dataset's archive (or chunk files) from the shared storage
//   prepare      unpacking the archive and OGB's loader turning it into a DGL graph
//   partition    SSP: dgl.distributed.partition_graph's steps (to homogeneous, to bidirected,
//                constraint weights, METIS or random assignment, reshuffle, split) and saving;
//                SMP / MSP: ParMETIS (pm_dglpart) with its input conversion and partition building;
//                the chunked pipeline (DGL >= 0.9.1): ParMETIS or random assignment over chunks
//   dispatch     partitions to their machines (dispatch_data.py in the chunked pipeline)
//   load         the DGL server's partition load (DGL issue #4514's five steps)
//   training     epochs of sampling, compute and remote feature fetches
//
// Where each stage was checked (sim/dgl/published.cc; elsewhere the laws extrapolate):
//   download, prepare   ogbn-papers100M only (57 GB archive, about 400 GB through OGB's loader;
//                       a secondary source), the files it saves (DGL's disk-based feature example)
//   partition (SSP)     the published log's steps on ogbn-papers100M at 64 parts; ogbn-products in 2
//                       parts below the original example's 20 GiB limit; METIS as laws.h says
//   partition (ParMETIS, chunked)  the MPI message limit only: no published timing; random_partition.py
//                       and dispatch_data.py measured here (reports/dgl-measured/) and one published
//                       billion-scale run as a held-out check
//   dispatch            partition files of 2 parts, ogbn-products and ogbn-papers100M; the chunked
//                       pipeline's 2-3x memory rule as DGL states it
//   load                DGL issue #4514's one partition (15 GB graph + 25 GB features over NFS)
//   training            as laws.h's epoch and worker memory
//
// The programs (sim/dgl/programs.h) turn these into simulated time, memory and network flows; they
// evaluate the same functions at the optimistic and pessimistic calibrations for the ranges the
// reports show. The tests check them against the published figures (sim/dgl/published.h).
#pragma once

#include "sim/dgl/calibration.h"
#include "sim/dgl/dataset.h"
#include "sim/dgl/laws.h"

#include <cstdint>
#include <string>
#include <vector>

namespace sim::dglmodels {

// One step of a pipeline: its name as the log prints it, how long it takes and the process's (or,
// for steps shared over machines, one machine's) memory at its peak.
struct PartitionStep {
  std::string name;
  double seconds = 0;
  double peak_bytes = 0;
};
double TotalSeconds(const std::vector<PartitionStep>& steps);
double PeakBytes(const std::vector<PartitionStep>& steps);

GraphShape ShapeOf(const DatasetInfo& d);
// Features and labels of every node (what DGL's graph carries through partition_graph).
double NodeDataBytes(const DatasetInfo& d, const Calibration& c);

// ---- dataset preparation ---------------------------------------------------------------------------

double RawBytes(const DatasetInfo& d, const Calibration& c);      // the unpacked raw files
double ArchiveBytes(const DatasetInfo& d, const Calibration& c);  // the download
double ProcessedBytes(const DatasetInfo& d, const Calibration& c);  // what OGB's loader saves
// The raw data held in memory: int64 edge pairs and float32 features ("graph data" in DGL's rule).
double GraphDataBytes(const DatasetInfo& d, const Calibration& c);
// Unpacking and OGB's loader over `share` of the dataset (1 = all of it, 1/n = one worker's slice).
std::vector<PartitionStep> PrepareSteps(const DatasetInfo& d, const Calibration& c, double cpu_speed,
                                        double share = 1.0);

// ---- SSP: dgl.distributed.partition_graph in one process ---------------------------------------------

struct PartitionOptions {
  int parts = 1;
  bool balance_train = false;
  bool balance_edges = false;
  bool random = false;  // --part-method random
};
std::vector<PartitionStep> SspSteps(const DatasetInfo& d, const Calibration& c, const PartitionOptions& options,
                                    double cpu_speed);

// ---- ParMETIS: SMP (all ranks in one pod) and MSP (one rank per worker) --------------------------------

struct ParmetisRun {
  int ranks = 1;
  int machines = 1;
  double link_bytes_per_second = 12.5e9;  // a machine's NIC (memory bus when machines == 1)
  double cpu_speed = 1.0;                 // the slowest machine's
};
ParmetisCheck CheckParmetis(const DatasetInfo& d, const Calibration& c, int machines);
// Input conversion (homogeneous, bidirected, ParMETIS's files; each machine its share), ParMETIS,
// and building the partitions from its output; memory is one machine's.
std::vector<PartitionStep> ParmetisSteps(const DatasetInfo& d, const Calibration& c, const PartitionOptions& options,
                                         const ParmetisRun& run);

// ---- DGL's chunked distributed pipeline --------------------------------------------------------------

// Partition assignment over the chunks: ParMETIS across the machines (with DGL's per-rank input
// conversion) or tools/partition_algo/random_partition.py (measured here: laws.h
// RandomPartitionSeconds).
std::vector<PartitionStep> ChunkedAssignmentSteps(const DatasetInfo& d, const Calibration& c,
                                                  const PartitionOptions& options, const ParmetisRun& run);
// dispatch_data.py's work on one machine besides the shuffle's flows: loading its chunks, then the
// rank's per-edge Python and NumPy work (ids sorted and looked up, DGL objects built and saved),
// measured here with the real pipeline (laws.h DispatchRankSeconds; its band widens beyond the
// measured edges per rank). Its peak is dispatch_memory_factor x the machine's share of
// the graph data (DGL: the cluster's RAM must hold 2-3 times the graph data).
std::vector<PartitionStep> DispatchDataSteps(const DatasetInfo& d, const Calibration& c, int machines,
                                             double cpu_speed);
// Bytes one machine sends to the others in dispatch_data.py's shuffle (edges and features whose
// owner is elsewhere).
double DispatchShuffleBytesPerMachine(const DatasetInfo& d, const Calibration& c, int machines);

// ---- partition files and the DGL server's load ------------------------------------------------------

struct PartFiles {
  double graph_bytes = 0;    // graph.dgl
  double feature_bytes = 0;  // node_feat.dgl
  double total() const { return graph_bytes + feature_bytes; }
};
// graph.dgl holds the part's share of the graph as loaded (DatasetInfo::LoadedEdges, half its
// symmetrised edges for a directed graph) at partition_bytes_per_loaded_edge; node_feat.dgl the
// features of its nodes.
std::vector<PartFiles> PartitionFiles(const DatasetInfo& d, const Calibration& c, const PartSizes& parts);

// The DGL server's load of one partition read at `read_bytes_per_second` (the disk or NFS it comes
// from): the five steps of DGL issue #4514.
struct LoadSteps {
  double load_graph = 0, format = 0, graph_to_shm = 0, load_feats = 0, feats_to_shm = 0;
  double total() const { return load_graph + format + graph_to_shm + load_feats + feats_to_shm; }
};
LoadSteps ServerLoad(const PartFiles& files, const Calibration& c, double read_bytes_per_second, double cpu_speed);

// ---- worker memory --------------------------------------------------------------------------------

// The DGL processes of a worker: servers + trainers x (1 + samplers).
struct WorkerProcesses {
  int servers = 1;
  int trainers = 1;
  int samplers = 0;
  int count() const;
};
// Part `i` of `parts` in shared memory (graph, halo and features) plus every process's own memory;
// while loading, a server also holds load_graph_copies - 1 more copies of the graph.
double WorkerServingBytes(const DatasetInfo& d, const Calibration& c, const PartSizes& parts, std::size_t i,
                          const WorkerProcesses& processes);
double WorkerLoadPeakBytes(const DatasetInfo& d, const Calibration& c, const PartSizes& parts, std::size_t i,
                           const PartFiles& files, const WorkerProcesses& processes);

// ---- training ---------------------------------------------------------------------------------------

// One epoch on `parts` (their cut, measured or modelled) with `config` (cut_fraction is taken from
// `parts`).
EpochTime TrainingEpoch(const DatasetInfo& d, const Calibration& c, const PartSizes& parts, EpochConfig config);

}  // namespace sim::dglmodels
