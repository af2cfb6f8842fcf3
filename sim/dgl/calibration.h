// Calibration holds every constant of the DGL workload models: partitioning (DGL's single-process
// METIS pipeline, random partitioning, ParMETIS), partition files, the DGL server's partition load,
// training epochs and DGL-KE. The defaults are fitted to the published figures of
// shared/reference/calibration.md; the source of each is named beside it. Figures marked
// *unconfirmed* are planning numbers with no published fit: a scenario or a `dglsim calibrate`
// file should override them for real planning.
//
// Units: seconds, bytes, bytes per second; "per edge" always means per symmetrised edge (an
// undirected edge counted once in each direction, as DGL's partition_graph stores it), and times
// are on a machine of cpuSpeed 1.0 (the calibration machine) unless the name says otherwise.
//
// The `dglsim/v1 Calibration` files that override these defaults are read by the harness
// (sim/harness/config/calibration_file.h); this layer reads no files.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sim::dglmodels {

struct Calibration {
  std::string name = "default";  // metadata.name of the file it came from

  // ---- single-process METIS through dgl.distributed.partition_graph (SSP) -----------------------
  // calibration.md "Partitioning", the DGL run log on ogbn-papers100M (3,228,124,712 symmetrised
  // edges), 64 parts, balance constraints: METIS 4,845.8 s -> 666,170 symmetrised edges/s.
  double metis_edges_per_second = 666'170;
  double metis_fixed_seconds = 0;
  // Peak bytes per symmetrised edge of the METIS step at `metis_reference_parts` parts with balance
  // constraints: 599.2 GB / 3.228 G edges = 185.6 B (calibration.md, derived).
  double metis_bytes_per_edge = 185.6;
  double metis_fixed_bytes = 0;
  int metis_reference_parts = 64;  // the part count of that log
  // The graph alone, bidirected, before constraint weights: 234 GB / 3.228 G = 72.5 B per edge (the
  // log's "to bidirected" step). Plain METIS without balance constraints peaks there (within the
  // 60-75 B/edge of calibration.md, *unconfirmed*). With constraints the METIS peak grows from this
  // level with log2(parts) (the depth of METIS's initial recursive bisection; the functional form is
  // ours, *unconfirmed*) to metis_bytes_per_edge at metis_reference_parts.
  double graph_bytes_per_edge = 72.5;
  // The other partition_graph steps, seconds per symmetrised edge and peak bytes per symmetrised
  // edge, from the same log: to homogeneous 6.9 s / 190 GB, to bidirected 152.9 s / 234 GB,
  // constraint weights 40.5 s / 500.6 GB, reshuffle 210.7 s, split 428.7 s. Reshuffle and split hold
  // the bidirected graph (no peak is published for them: *unconfirmed*).
  double homogeneous_seconds_per_edge = 6.9 / 3.228124712e9;
  double homogeneous_bytes_per_edge = 190e9 / 3.228124712e9;
  double bidirected_seconds_per_edge = 152.9 / 3.228124712e9;
  double constraint_seconds_per_edge = 40.5 / 3.228124712e9;
  double constraint_bytes_per_edge = 500.6e9 / 3.228124712e9;
  double reshuffle_seconds_per_edge = 210.7 / 3.228124712e9;
  double split_seconds_per_edge = 428.7 / 3.228124712e9;

  // ---- random partitioning: "effectively free (well under a second per 100 M nodes) plus I/O" ----
  double random_seconds_per_node = 0.5 / 100e6;

  // ---- ParMETIS pm_dglpart (SMP in one pod, MSP across the workers) -----------------------------
  // A rank holding more than about 2^31 ints of message data fails (ParMETIS issue #8).
  double parmetis_message_limit_ints = 2147483648.0;
  // Message ints per symmetrised edge of a machine's share: the ranks of one machine exchange
  // through one shared-memory buffer, so the limit applies per machine. 2 ints per edge fits issue
  // #8's three points: 1 B edges fail with 3 ranks on 1 machine (4.0 G > 2^31), work on 3 machines
  // (1.3 G), and 2.19 B edges fail on 3 machines (2.9 G).
  double parmetis_ints_per_edge = 2.0;
  // Parallel efficiency per rank: "0.5-0.8 per rank is a planning range" (*unconfirmed*).
  double parmetis_efficiency = 0.65;
  // ParMETIS's serial work rate and memory are those of METIS without constraints (*unconfirmed*).
  // Each rank holds its share of the graph at graph_bytes_per_edge, plus a per-rank overhead.
  double parmetis_rank_overhead_bytes = 512.0 * 1024 * 1024;  // MPI + Python per process, *unconfirmed*
  // DGL's distributed pipeline: after ParMETIS, each partition is shuffled to its owner (each edge
  // owned by its destination's part, calibration.md); the bytes moved are the partition files.

  // ---- files ----------------------------------------------------------------------------------
  // The raw dataset download: ogbn-papers100M on disk is graph 13 GB, 13 GB / 1.616 G stored edges
  // = 8.0 B per edge, plus features at 4 B x dim per node (calibration.md "Datasets", graphbolt
  // README).
  double raw_bytes_per_stored_edge = 13e9 / 1.615685872e9;
  // Partition graph.dgl: 1.5 / 1.6 GB for products and 23 / 22 GB for papers100M with 2 parts,
  // "about 14-25 bytes per symmetrised edge" (calibration.md, derived): the middle, 19.5.
  double partition_bytes_per_edge = 19.5;
  double feature_bytes_per_value = 4;  // float32 node features, 4 B x featureDim per node

  // ---- the DGL server's partition load (DGL issue #4514: 15 GB graph + 25 GB features over NFS,
  // about 115 s: load_graph 31.1 s, format 11.5 s, graph to shared memory 12.1 s, load_feats 42.5 s,
  // feats to shared memory 18.2 s). Reads go at most at these rates (deserialisation), the rest is
  // CPU time per byte.
  double load_graph_bytes_per_second = 15e9 / 31.1;
  double load_feats_bytes_per_second = 25e9 / 42.5;
  double format_seconds_per_byte = 11.5 / 15e9;
  double graph_shm_seconds_per_byte = 12.1 / 15e9;
  double feats_shm_seconds_per_byte = 18.2 / 25e9;

  // ---- training ----------------------------------------------------------------------------
  // DistDGL (Zheng et al. 2020): 13 s per epoch on ogbn-papers100M on 16 machines, linear
  // speed-up: 208 machine-seconds per epoch over its 1,207,179 training nodes (OGB split).
  double train_seconds_per_seed = 13.0 * 16 / 1'207'179;
  // The configuration that figure is taken as (*unconfirmed*: the abstract does not say): one
  // trainer and no extra sampler per machine, CPU only.
  int reference_trainers = 1;
  int reference_samplers = 0;
  // Speed-up of more trainers / samplers per machine: (t / t_ref)^a x ((1 + s) / (1 + s_ref))^b.
  double trainer_exponent = 0.5;   // *unconfirmed*
  double sampler_exponent = 0.25;  // *unconfirmed*
  // A GPU trainer's speed-up over a CPU trainer. DistDGLv2 (2021): 5-10 s per epoch on 64 GPUs
  // for graphs of hundreds of millions of nodes; 2.0 puts papers100M on 16 machines with one GPU
  // trainer each at about 6.5 s (*unconfirmed* fit to that range).
  double gpu_speedup = 2.0;
  // Remote features a trainer fetches per training seed: sampled neighbourhood nodes per seed
  // (3 layers, fan-out 15/10/5 after de-duplication, *unconfirmed*) times the fraction that is
  // remote (from the edge cut) times 4 B x featureDim.
  double sampled_nodes_per_seed = 200;
  // Edge-cut fraction of METIS relative to random partitioning (random cuts 1 - 1/parts of the
  // edges); used when the partition was not computed for real (*unconfirmed*).
  double metis_cut_ratio = 0.1;
  // Start of the Python processes (import torch, dgl) per launch: *unconfirmed*.
  double process_start_seconds = 5;
  // Memory of one trainer process beyond the shared partition: *unconfirmed*.
  double trainer_bytes = 1.0 * 1024 * 1024 * 1024;
  // train_dist.py's --num_epochs default (dmlc/dgl examples/distributed/graphsage/train_dist.py).
  int default_epochs = 20;

  // ---- tri-workload jobs (sim/dgl/tri_workload.h): sampling across pods ---------------------------
  // Sampled edges per training seed with train_dist.py's fan-out 15,10,5 before de-duplication:
  // 15 + 15x10 + 15x10x5 = 915; each travels as two int64 node ids, 16 B (*unconfirmed*: no
  // published measurement of DGL's sampling traffic).
  double sampled_edges_per_seed = 915;
  double bytes_per_sampled_edge = 16;
  // Memory of one sampler process in a sampler pod (*unconfirmed*: planning value).
  double sampler_bytes = 512.0 * 1024 * 1024;

  // ---- DGL-KE (dglkerun: dglke_partition, whole dataset to every worker, dglke_dist_train) ------
  // dglke_dist_train step time per triple of a batch (*unconfirmed*), the hard-coded max_step and
  // batch size of dglkerun (*unconfirmed*: planning values).
  double ke_seconds_per_triple = 2e-6;
  std::int64_t ke_max_step = 1000;
  std::int64_t ke_batch_size = 1000;
};

// METIS peak bytes per symmetrised edge for `parts` parts, with or without balance constraints.
double MetisBytesPerEdge(const Calibration& c, int parts, bool balance_constraints);

// One measured point of a calibration file (informational).
struct CalibrationPoint {
  std::int64_t nodes = 0, edges = 0;
  int parts = 0;
  double seconds = 0;
  std::int64_t peak_bytes = 0;
};


}  // namespace sim::dglmodels
