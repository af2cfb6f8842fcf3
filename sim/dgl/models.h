// The DGL workload models as pure functions of a dataset, a calibration and a configuration: the
// steps of DGL's partition pipeline with their time and peak memory, ParMETIS's message limit and
// parallel time, partition file sizes, the DGL server's partition load, and epoch time. The
// programs (sim/dgl/programs.h) turn these into simulated time, memory and network flows; the
// tests check them against the published figures they are fitted to.
#pragma once

#include "sim/dgl/calibration.h"
#include "sim/dgl/dataset.h"

#include <cstdint>
#include <string>
#include <vector>

namespace sim::dglmodels {

// One step of a partitioning pipeline: its name as the log prints it, how long it takes and the
// process's memory at its peak.
struct PartitionStep {
  std::string name;
  double seconds = 0;
  double peak_bytes = 0;
};

// dgl.distributed.partition_graph in one process (SSP): to homogeneous, to bidirected, constraint
// weights (with --balance-train / --balance-edges), METIS or random assignment, reshuffle, split.
// `cpu_speed` scales every time (1.0 = the calibration machine).
std::vector<PartitionStep> SspSteps(const DatasetInfo& d, const Calibration& c, int parts, bool balance, bool random,
                                    double cpu_speed);

// ParMETIS (pm_dglpart): whether a rank overflows MPI's int message count. `machines`: how many
// machines the ranks are spread over (1 for SMP in one pod; the worker count for MSP).
struct ParmetisCheck {
  double ints_per_rank = 0;  // message ints a rank of the busiest machine holds
  bool overflows = false;
};
ParmetisCheck CheckParmetis(const DatasetInfo& d, const Calibration& c, int machines);

// ParMETIS on `ranks` processes over `machines` machines: the steps (prepare = to homogeneous and
// bidirected, shared out; ParMETIS itself; each with the memory of ONE machine's ranks).
std::vector<PartitionStep> ParmetisSteps(const DatasetInfo& d, const Calibration& c, int ranks, int machines,
                                         double cpu_speed);

// Partition files of part i.
struct PartFiles {
  double graph_bytes = 0;    // graph.dgl
  double feature_bytes = 0;  // node_feat.dgl
  double total() const { return graph_bytes + feature_bytes; }
};
std::vector<PartFiles> PartitionFiles(const DatasetInfo& d, const Calibration& c, const PartSizes& parts);

// The DGL server's load of one partition read at `read_bytes_per_second` (the disk or NFS it comes
// from): the five steps of DGL issue #4514.
struct LoadSteps {
  double load_graph = 0, format = 0, graph_to_shm = 0, load_feats = 0, feats_to_shm = 0;
  double total() const { return load_graph + format + graph_to_shm + load_feats + feats_to_shm; }
};
LoadSteps ServerLoad(const PartFiles& files, const Calibration& c, double read_bytes_per_second, double cpu_speed);

// One epoch of distributed training: compute (sampling + forward/backward, linear in machines) and
// the remote feature bytes each machine fetches.
struct TrainConfig {
  int machines = 1;
  int trainers = 1;   // per machine
  int samplers = 0;   // per trainer
  int gpus = 0;       // per machine
  double cpu_speed = 1.0;
};
struct EpochCost {
  double compute_seconds = 0;
  double remote_bytes_per_machine = 0;
};
EpochCost Epoch(const DatasetInfo& d, const Calibration& c, const PartSizes& parts, const TrainConfig& config);

// Memory of a worker holding part files `files`: while loading (the deserialised copy and the
// shared-memory copy) and while serving (shared memory plus its trainers).
double WorkerLoadPeakBytes(const PartFiles& files);
double WorkerServingBytes(const PartFiles& files, const Calibration& c, int trainers);

}  // namespace sim::dglmodels
