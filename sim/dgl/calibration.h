// Calibration holds every constant of the DGL workload models (sim/dgl/laws.h, models.h): dataset
// preparation, DGL's single-process partition pipeline, METIS, ParMETIS, DGL's chunked distributed
// pipeline, partition files, the DGL server's partition load, worker memory, sampling and training
// epochs, DGL-KE. Each constant names its source beside it: a published figure of
// docs/models.md, arithmetic on those (*derived*), a measurement made here with
// `dglsim calibrate` (*measured here*, the points are in sim/dgl/published.cc), or a planning value
// (*unconfirmed*). Every unconfirmed value carries a range (UncertainParameters below); the
// predictions are also evaluated at the ends of the ranges (sim/dgl/uncertainty.h). A law fitted
// over enough measured points (sim/dgl/fits.h) carries an error factor instead, nominally 1, whose
// range is the law's leave-one-out error band: its fitted constants then carry no range of their own.
//
// Most laws are *anchored*: they are written as a published figure times a ratio of shape functions
// (law(x) = published * shape(x) / shape(published point)), so that they hold the published point
// exactly whatever the shape parameters, and their uncertainty grows with the distance from it.
//
// Units: seconds, bytes, bytes per second; "per edge" always means per symmetrised edge (an
// undirected edge counted once in each direction, as DGL's partition_graph stores it); times are on
// a machine of cpuSpeed 1.0 (the reference machine: the one of the published DGL METIS log) unless
// the name says otherwise.
//
// The `dglsim/v1 Calibration` files that `dglsim calibrate` writes are read by the harness
// (sim/harness/config/calibration_file.h); this layer reads no files. WithMeasuredMachine turns a
// file's measured points (or, without points, its straight-line fit at the sizes `dglsim calibrate`
// measures by default) into the speed and memory of METIS on that machine relative to the METIS law
// (metis_machine_speed, metis_memory_scale); the law then predicts any graph, part count and
// constraint count on that machine.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sim::dglmodels {

// The published DGL METIS run on ogbn-papers100M that the partition-pipeline laws are anchored to
// (docs/models.md "Partitioning"): 111,059,956 nodes, 3,228,124,712 symmetrised edges, 64 parts,
// --balance-train and --balance-edges (4 METIS constraints: DGL's metis_partition_assignment adds
// one weight per value of the train mask and, with balance_edges, one in-degree weight per value).
inline constexpr double kPapersNodes = 111'059'956;
inline constexpr double kPapersSymEdges = 3'228'124'712;
inline constexpr double kPapersStoredEdges = 1'615'685'872;
inline constexpr double kPapersFeatureDim = 128;
inline constexpr double kPapersTrainNodes = 1'207'179;  // OGB split
inline constexpr double kProductsNodes = 2'449'029;
inline constexpr double kProductsSymEdges = 123'718'280;
inline constexpr double kProductsFeatureDim = 100;
inline constexpr double kProductsTrainNodes = 196'615;   // OGB split

struct Calibration {
  std::string name = "default";  // metadata.name of the file it came from

  // ---- dataset preparation: download, unpack, OGB's loader ----------------------------------------
  // docs/models.md "Dataset preparation" (kumo.ai's PyG dataset page, a secondary source): the
  // papers100M download is about 57 GB, its raw files an edge list of about 12 GB and node features
  // of about 54 GB. Raw bytes per stored edge 12 GB / 1.616 G = 7.43 and per feature value
  // 54 GB / (111 M x 128) = 3.80 (*derived*); the archive is 57 / 66 = 0.864 of the raw files.
  double raw_bytes_per_stored_edge = 12e9 / kPapersStoredEdges;
  double raw_bytes_per_feature_value = 54e9 / (kPapersNodes * kPapersFeatureDim);
  double archive_ratio = 57.0 / 66.0;
  // Unpacking the archive (python zipfile, one thread), raw bytes out per second: *unconfirmed*.
  double unpack_bytes_per_second = 150e6;
  // OGB's loader turning the raw files into a DGL graph, raw bytes per second: *unconfirmed*.
  double ogb_load_bytes_per_second = 100e6;
  // Loading papers100M through OGB's loader needs about 400 GB (docs/models.md, secondary source):
  // 4.84 times the raw data held in memory (16 B per stored edge as int64 pairs + 4 B per float32
  // feature value = 82.7 GB; *derived*).
  double ogb_peak_factor = 400e9 / (16 * kPapersStoredEdges + 4 * kPapersNodes * kPapersFeatureDim);
  // What the loader saves (graph 13 GB and features 53 GB on disk afterwards, DGL's disk-based
  // feature example): the sizes `du -h` prints, GiB: the features are exactly 111 M x 128 float32 =
  // 56.86 GB = 52.96 GiB. The graph 13 GiB = 13.96 GB: 8.64 B per stored edge (*derived*; an int64
  // CSC of the directed graph would be 8 B per edge + 8 B per node); the features at
  // feature_bytes_per_value.
  double processed_bytes_per_stored_edge = 13.0 * 1024 * 1024 * 1024 / kPapersStoredEdges;

  // ---- dgl.distributed.partition_graph in one process (SSP), the published log (anchors) -----------
  // to homogeneous 6.9 s / 190 GB, to bidirected 152.9 s / 234 GB, constraint weights 40.5 s /
  // 500.6 GB, METIS 4,845.8 s / 599.2 GB, reshuffle 210.7 s, split 428.7 s. The memory figures hold
  // the node data too (features 56.9 GB, labels and masks): per edge below is what remains after
  // node_data_bytes (*derived*), so that a graph with other features gets its own figure.
  double homogeneous_seconds_per_edge = 6.9 / kPapersSymEdges;
  double bidirected_seconds_per_edge = 152.9 / kPapersSymEdges;
  double constraint_seconds_per_edge = 40.5 / kPapersSymEdges;
  double reshuffle_seconds_per_edge = 210.7 / kPapersSymEdges;
  double split_seconds_per_edge = 428.7 / kPapersSymEdges;
  double homogeneous_bytes = 190e9;
  double bidirected_bytes = 234e9;
  double constraint_bytes = 500.6e9;
  double metis_peak_bytes = 599.2e9;
  // Node data besides the features, per node (labels as int64, train/val/test masks): *unconfirmed*.
  double node_label_bytes = 16;

  // ---- METIS (METIS_PartGraphKway through DGL), anchored to the log's METIS step -----------------
  // seconds = 4,845.8 x W(E,N)/W(papers) x (E/E_papers)^size_exponent x P(k)/P(64)
  //           x C(ncon)/C(4) x structure / cpuSpeed,   W = E + metis_edges_per_node x N.
  double metis_reference_seconds = 4845.8;
  // Edge-equivalents of work per node: 2-4 *measured here* (R-MAT, edge factors 4/8/32 at 131 K and
  // 524 K nodes; sim/dgl/fits.h), range 2-6. Not refitted over all the runs measured here: their
  // best fit (about 20, with the Barabasi-Albert runs) predicts mt-metis's products -> papers100M
  // ratio (docs/models.md) 40 % too high, and lowers the runs' leave-one-out error by 1 % only.
  double metis_edges_per_node = 3.0;
  // Per-edge cost growing with the graph (caches, NUMA): time ~ E^(1 + size_exponent). *Measured
  // here*: 0.03-0.19 over 1.8 M-63.5 M edges (R-MAT, 16 and 64 parts); mt-metis' products -> papers100M
  // ratio (43.5 for 26 x the edges) asks 0.14 (docs/models.md). Range 0.05-0.2.
  double metis_size_exponent = 0.12;
  // Part count: P(k) = 1 + share x (k/64)^exponent, fitted exactly to METIS on ogbn-products at 64,
  // 1,024 and 4,096 parts (20.8, 37.6, 66.8 s: ratios 1.808 and 3.212; docs/models.md).
  double metis_parts_share = 0.1927;
  double metis_parts_exponent = 0.646;
  // Graphs without locality grow faster with the parts (*measured here*: R-MAT from 64 to 1,024
  // parts 4.8-5.3x, Barabasi-Albert from 16 to 64 parts 1.6-1.9x): their share, fitted over the 30
  // runs of reports/metis-measured/ (least squares in log space, the machine's speed fitted with
  // it: FitRandomPartsShare in fits.h). No range: the runs' leave-one-out error (metis_time_error)
  // holds what is uncertain about it.
  double metis_random_parts_share = 0.51;
  // Constraints: C(ncon) = 1 + cost x (ncon - 1), C(4) at the anchor. `cost` is not a constant of its
  // own: it is fitted (MetisConstraintCost in laws.h) so that plain METIS on ogbn-products at 64
  // parts takes the published 20.8 s on a "home machine" metis_home_machine_speed times as fast as
  // the log's machine (*unconfirmed*: a desktop core against the log's x1e-class Xeon, 1.0-2.5).
  double metis_home_machine_speed = 1.8;
  // Graphs without locality (R-MAT, Erdos-Renyi, Barabasi-Albert) partition slower per edge than
  // real ones (docs/models.md); *unconfirmed* factor, range 2.5-6.7 (6.7: R-MAT measured here at
  // 0.98 M edges/s against products' 5.95 M/s on the home machine, were the machines alike).
  double metis_random_structure = 4.0;
  // The METIS time law's error (*measured here*): 1 at its value; its range is the 90 % band of the
  // law's leave-one-out errors over the 30 runs of reports/metis-measured/ (each run predicted with
  // this machine's speed fitted over the other 29): rms 0.41 in log, t(29) = 1.70, x/÷ 2.02. It
  // holds timing noise on a shared machine (the same 262 K-node, 64-part partition took 5.4 s and
  // 6.4 s of CPU in two runs), METIS's irregular part-count behaviour (R-MAT at 16 parts slower
  // than at 64) and structure (Barabasi-Albert about twice R-MAT's time per edge). Real graphs have
  // no such runs: they borrow this band (the products and papers100M points are one run each).
  double metis_time_error = 1.0;
  // Beyond the largest sizes it was checked on (laws.h: 63.5 M symmetrised edges for graphs without
  // locality, 3.2 G for real ones) the METIS time law's band widens: this factor, 1 at its
  // value, is raised to the distance in e-folds (fits.h, Extrapolation; *measured here*: the
  // slope's standard error over the 30 runs, or what leave-one-scale-out shows, the larger).
  double metis_time_extrapolation = 1.0;
  // Memory of METIS's own arrays (64-bit indices in DGL's build), anchored to the log: 599.2 GB at the
  // METIS step = the bidirected graph (234 GB) + constraint weights (8 B x 4 x N) + workspace 361.6 GB
  // (*derived*). The workspace grows as E + metis_memory_edges_per_node x N: the ratio of the 32-bit
  // fit below, 155.7 B per node to 60.4 B per edge (*measured here*), no range of its own (the error
  // factor below holds it). Without balance constraints METIS holds the same workspace (about 2 % less).
  double metis_memory_edges_per_node = 2.58;
  // Debian's 32-bit METIS measured here: 60.4 B per edge + 155.7 B per node including the input
  // arrays, least squares on the relative error over the 30 runs of reports/metis-measured/
  // (FitMetis32Memory in fits.h; *measured here*); the workspace of DGL's 64-bit build is 1.70
  // times that (*derived*: 361.6 GB against 212 GB for papers100M).
  double metis32_bytes_per_edge = 60.4;
  double metis32_bytes_per_node = 155.7;
  // The METIS memory laws' error (*measured here*): 1 at its value; its range is the 90 % band of the
  // 32-bit law's leave-one-out errors over the 30 runs (rms 0.075, t(29) = 1.70: x/÷ 1.14). It
  // applies to the 64-bit workspace too.
  double metis_memory_error = 1.0;
  // Edge cut of METIS as a share of random assignment's (1 - 1/k): q64 x (log2 k / 6)^growth, at
  // most 1. Real graphs: 16.7 M of 121.8 M symmetrised edges at 64 parts on ogbn-products
  // (docs/models.md), q64 = 0.137; other real graphs cut more or less (*unconfirmed* 0.10-0.25);
  // growth with log2 k *unconfirmed* 0.5-1.5. Random structure (*measured here*: R-MAT 0.66 of
  // random assignment's cut at 2 parts, 0.68 at 8, 0.77 at 16, 0.92 at 64, 0.95 at 1,024 and 4,096;
  // Barabasi-Albert 0.76 at 16, 0.80 at 64): q64 0.845, growth 0.192, a least-squares line in log
  // space over the 30 runs of reports/metis-measured/ (FitRandomCut in fits.h).
  double metis_cut_q64 = 16.7 / 121.8;
  double metis_cut_growth = 1.0;
  double metis_random_cut_q64 = 0.845;
  double metis_random_cut_growth = 0.192;
  // The random-structure cut's error (*measured here*): 1 at its value; its range is the 90 % band
  // of the fit's leave-one-out errors over the 30 runs (rms 0.071, t(29) = 1.70: x/÷ 1.13).
  double metis_cut_error = 1.0;

  // ---- random partitioning: 0.02 s for ogbn-products' 2.45 M nodes on the home machine -----------
  // (docs/models.md), 8.2 ns per node there; "well under a second per 100 M nodes".
  double random_seconds_per_node = 0.02 / kProductsNodes;

  // ---- ParMETIS pm_dglpart (SMP in one pod, MSP across the workers) --------------------------------
  // A rank holding more than about 2^31 ints of message data fails (ParMETIS issue #8).
  double parmetis_message_limit_ints = 2147483648.0;
  // Message ints per symmetrised edge of a machine's share: the ranks of one machine exchange
  // through one shared-memory buffer, so the limit applies per machine. 2 ints per edge fits issue
  // #8's three points: 1 B edges fail with 3 ranks on 1 machine (4.0 G > 2^31), work on 3 machines
  // (1.3 G), and 2.19 B edges fail on 3 machines (2.9 G).
  double parmetis_ints_per_edge = 2.0;
  // ParMETIS's serial work against METIS on the same graph: *unconfirmed*, 1.0-2.0.
  double parmetis_work_factor = 1.2;
  // Parallel efficiency per rank falls with the ranks: eff(R) = 1 / (1 + decay x log2 R).
  // docs/models.md: "0.5-0.8 per rank is a planning range" (*unconfirmed*); 0.125 gives 0.80 at 4
  // ranks and 0.57 at 64; range 0.06-0.25.
  double parmetis_efficiency_decay = 0.125;
  // Communication (*unconfirmed*): the boundary of each rank's share crosses the link
  // parmetis_exchange_volume times (levels shrink geometrically: about 4 sweeps per level, twice
  // the finest graph in all; 4-16), 16 B per cut edge; and parmetis_rounds rounds of one message to
  // every other rank (matching and refinement steps over all levels; 50-200), 50 us each over a
  // network (a tenth of that between ranks of one machine); the bytes per cut edge *unconfirmed* 8-32.
  double parmetis_exchange_volume = 8;
  double parmetis_bytes_per_cut_edge = 16;
  double parmetis_rounds = 100;
  double parmetis_message_seconds = 50e-6;
  // Per rank: MPI + Python (*unconfirmed*, 256 MiB - 1 GiB).
  double parmetis_rank_overhead_bytes = 512.0 * 1024 * 1024;

  // ---- DGL's chunked distributed pipeline (DGL >= 0.9.1: chunked graph format, ParMETIS or random
  // assignment, dispatch_data.py). DGL: "the combined CPU RAM of the cluster is able to hold the
  // entire graph data" and recommends 2-3x the graph data size (docs/models.md): a machine peaks at
  // this factor times its share of the graph and features (*unconfirmed* 2-3).
  double dispatch_memory_factor = 2.5;
  // dispatch_data.py (what it launches on each machine: distpartitioning/data_proc_pipeline.py) and
  // random_partition.py, *measured here* with the real DGL 2.1.0 pipeline (scripts/measure-dgl.py,
  // reports/dgl-measured/; sim/dgl/fits.h DispatchRuns, RandomPartitionRuns): CPU seconds of one
  // rank = fixed + per edge x the directed edges it owns, on R-MAT, uniform random and community
  // graphs, least squares on the relative error, times this machine's speed against the reference
  // (0.68: MeasuredMachineSpeed over the METIS runs measured here). Per-edge Python and NumPy work
  // (reading the chunks, sorting and looking up ids, building and saving the DGL objects), not
  // bytes over a NIC: the shuffle's flows are separate. random_partition.py's time did not grow measurably over the
  // nodes measured (its import dominates): a constant. The error factors carry the laws'
  // leave-one-out bands, the extrapolation factors the error per e-fold beyond the sizes measured
  // (fits.h, Extrapolation).
  double dispatch_fixed_seconds = 4.474;
  double dispatch_seconds_per_edge = 2.096e-06;
  double dispatch_time_error = 1.0;
  double dispatch_extrapolation = 1.0;
  double random_partition_fixed_seconds = 2.646;
  double random_partition_seconds_per_node = 4.143e-07;
  double random_partition_error = 1.0;
  double random_partition_extrapolation = 1.0;

  // ---- files ----------------------------------------------------------------------------------
  // Partition graph.dgl: 1.5 / 1.6 GB for products and 23 / 22 GB for papers100M with 2 parts (DGL's
  // distributed GraphSAGE README). A part holds the graph as DGL loaded it, not symmetrised: OGB
  // adds the reverse edges of products (123.7 M edges loaded) but not of papers100M (1.616 G, a
  // citation graph; the example partitions without --undirected). Per loaded edge: 24.3-25.9 B
  // (products), 27.2-28.5 B (papers100M); docs/models.md's "14-25 B per symmetrised edge" counted
  // papers100M's edges twice. 26.4 B, the geometric mean of the two middles (*derived*); range
  // 24-29, both graphs' spread.
  double partition_bytes_per_loaded_edge = 26.4;
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
  // While loading, a server holds the deserialised partition and its shared-memory copy: 2 copies
  // of the graph at the peak (*unconfirmed*, 1.5-2.5).
  double load_graph_copies = 2.0;

  // ---- worker memory (DGL's GraphBolt example README, DGL rows: 2 machines, 4 trainers, 0
  // samplers, 2 servers each; `free` on a machine): shared memory 2.4 GB for products, 84 GB for
  // papers100M; peak used by the processes 7.8 GB and 43 GB. Fitted exactly (*derived*):
  // shared = features + 26.0 B per owned edge + 245 B per node of the part; used = 6 processes x
  // (1.168 GB + 54 B per node of the whole graph). Two points, two unknowns each: the per-node
  // terms carry ranges (150-350 B and 30-80 B, *unconfirmed* away from those two graphs).
  double shm_bytes_per_edge = 26.0;
  double shm_bytes_per_node = 245;
  double process_bytes = 1.168e9;
  double process_bytes_per_graph_node = 54;

  // ---- sampling and training --------------------------------------------------------------------
  // Sampling time per epoch with 2 partitions (GraphBolt README, DGL rows, CPU, 4 trainers per
  // machine, no sampler processes): products 1.29-1.42 s, papers100M 5.56-6.19 s for 24,577 and
  // 150,897 seeds per trainer: a fixed 0.47 s per epoch plus 35.8 us per seed (*derived*, exact at
  // the middles).
  double sampling_epoch_seconds = 0.47;
  double sampling_seconds_per_seed = 35.8e-6;
  int sampling_reference_trainers = 4;
  // DistDGL (Zheng et al. 2020): 13 s per epoch on ogbn-papers100M on 16 machines. The epoch law is
  // anchored there: the time per seed left of 13 s after the sampling and the RPCs of that run is
  // split by remote_share into compute and remote fetches (laws.h, Epoch). The run's
  // configuration is not in the abstract (*unconfirmed*): one CPU trainer per machine, no sampler
  // processes, batch 1000, METIS partitions.
  double epoch_reference_seconds = 13.0;
  int epoch_reference_machines = 16;
  double reference_trainers = 1;  // *unconfirmed* 1-4
  int reference_samplers = 0;
  int reference_batch = 1000;
  // Several trainers on one machine share its cores: throughput x (t / t_ref)^trainer_exponent
  // (*unconfirmed*, 0.3-0.7); sampler processes take the sampling off the trainers, which then
  // overlaps the compute, sped up by s^sampler_exponent (*unconfirmed*, 0.1-0.4).
  double trainer_exponent = 0.5;
  double sampler_exponent = 0.25;
  // A GPU trainer's compute against a CPU trainer's. DistDGLv2 (2021): 5-10 s per epoch on 64 GPUs
  // for graphs of hundreds of millions of nodes (*unconfirmed*, 1.5-4).
  double gpu_speedup = 2.0;
  // Remote features: each seed's sampled neighbourhood holds sampled_nodes_per_seed input nodes
  // (fan-out 10,25 after de-duplication in a batch, *unconfirmed* 100-300); the share of them on
  // other machines is remote_hops x the METIS cut, at most 1 - 1/machines (each hop may leave the
  // part; *unconfirmed* 1.5-3). Fetching them took remote_share of DistDGL's 13 s epoch: that part
  // of the epoch grows with the remote fraction, the rest shrinks with the machines. Fitted to
  // DistDGL's "linear speed-up" (docs/models.md; the speed-up from 8 to 16 machines, 2.0, is a
  // fitted point): 0.35, the planning value before, gave 1.77; no share reaches 2.0 (the sampling
  // requests to every other machine flatten it too), 0.10 gives 1.89, within 10 %, and keeps the
  // fetches visible (*derived*; range 0.05-0.35).
  double sampled_nodes_per_seed = 200;
  double remote_hops = 2.0;
  double remote_share = 0.10;
  // Every step, each sampling layer sends one request to every other machine (2 layers): fixed
  // cost per request (*unconfirmed*, 50-300 us).
  double rpc_seconds_per_request = 100e-6;
  int sampling_layers = 2;
  // Start of the Python processes (import torch, dgl) per launch: *unconfirmed* 3-15 s.
  double process_start_seconds = 5;
  // train_dist.py's --num_epochs default (dmlc/dgl examples/distributed/graphsage/train_dist.py).
  int default_epochs = 20;

  // ---- tri-workload jobs (sim/dgl/tri_workload.h): sampling across pods ---------------------------
  // Sampled edges per training seed with train_dist.py's fan-out 15,10,5 before de-duplication:
  // 15 + 15x10 + 15x10x5 = 915; each travels as two int64 node ids, 16 B (*unconfirmed*: no
  // published measurement of DGL's sampling traffic; ranges 450-915 edges, de-duplication in a
  // batch halving them at most, and 8-24 B, int32 ids to int64 ids with framing).
  double sampled_edges_per_seed = 915;
  double bytes_per_sampled_edge = 16;
  // Memory of one sampler process in a sampler pod (*unconfirmed*: planning value, 256 MiB - 1 GiB).
  double sampler_bytes = 512.0 * 1024 * 1024;

  // ---- DGL-KE (dglkerun: dglke_partition, whole dataset to every worker, dglke_dist_train) ------
  // dglke_dist_train step time per triple of a batch (*unconfirmed*, 1-5 us), the hard-coded
  // max_step and batch size of dglkerun (planning values).
  double ke_seconds_per_triple = 2e-6;
  std::int64_t ke_max_step = 1000;
  std::int64_t ke_batch_size = 1000;

  // ---- a calibration file's machine ---------------------------------------------------------------
  // METIS speed and memory on the machine a `dglsim calibrate` file measured, against the laws
  // (1.0 = the reference machine). Set by LoadCalibrationFile only.
  double metis_machine_speed = 1.0;
  double metis_memory_scale = 1.0;
};

// ---- uncertainty ------------------------------------------------------------------------------------

// One unconfirmed parameter and its range. Predictions are evaluated with each parameter at each end
// of its range in turn (sim/dgl/uncertainty.h), so a parameter needs no direction: whichever end
// makes a prediction smaller counts towards its low. A calibration file that changed the value
// moves the range by the same factor.
struct UncertainParameter {
  const char* key;              // camelCase, as the validation table and docs/models.md name it
  double Calibration::*member;
  double low;
  double high;
  const char* source;           // why this range
};
const std::vector<UncertainParameter>& UncertainParameters();

// `c` with parameter `p` at the low or high end of its range.
Calibration AtRangeEnd(const Calibration& c, const UncertainParameter& p, bool high);

// ---- calibration files -------------------------------------------------------------------------

// One measured point of a calibration file.
struct CalibrationPoint {
  std::int64_t nodes = 0, edges = 0;  // edges symmetrised
  int parts = 0;
  double seconds = 0;
  std::int64_t peak_bytes = 0;
  std::int64_t edge_cut = -1;  // undirected edges across parts; -1 when the file does not say
};

// The straight line a calibration file states (what `dglsim calibrate` fitted), and whether its
// graphs had locality (`structure: real`) or not (synthetic graphs, the default).
struct MetisLine {
  double edges_per_second = 0;
  double bytes_per_edge = 0;
  double fixed_seconds = 0;
  double fixed_bytes = 0;
  bool real_structure = false;
};

// `c` on the machine that measured `points`: metis_machine_speed is the geometric mean over the
// points of the METIS law's seconds over the measured ones, metis_memory_scale that of the measured
// peak over the 32-bit memory law. Without points, the line stands for points at the sizes
// `dglsim calibrate` measures by default (R-MAT, edge factor 16: about 28 symmetrised edges per
// node; 4 parts).
Calibration WithMeasuredMachine(Calibration c, const MetisLine& line, std::vector<CalibrationPoint> points);

}  // namespace sim::dglmodels
