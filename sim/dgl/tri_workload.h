// The cost model of a tri-workload DGL job: DGL servers, samplers and trainers in pods of their own
// (DGLJob replica types Server, Sampler, Trainer) beside or instead of workers that run all three.
// A pure function of the dataset, the calibration and the pod counts, like models.h, which it
// extends: what changes when the roles leave the worker pod is where the bytes go.
//
//  - Seeds are split over the training pods (workers and trainer pods); compute per epoch is that of
//    models.h's TrainingEpoch with the training pods as machines, where a worker pod fetches the
//    cut's share of its seeds' features and a trainer pod all of them (laws.h's remote_fraction 1).
//    The training pods run in step: with trainer pods the epoch is theirs, whatever the partitions'
//    cut, and never shorter than the workers' on as many pods. Sampler pods add sampler processes:
//    each runs --num-samplers of them, shared by the training pods (samplers per training pod =
//    sampler pods x --num-samplers / training pods); without sampler pods each training pod samples
//    with its own --num-samplers, as a worker does.
//  - A worker pod holds a partition: it fetches only the remote share of its sampled neighbourhood's
//    features (the edge cut): TrainingEpoch's remote bytes per machine. A trainer pod holds none: every feature it needs
//    crosses the network from the server pods.
//  - Sampling reads the graph structure from the servers: a trainer pod without sampler pods
//    fetches the sampled structure itself; sampler pods fetch it for every training pod and send
//    the mini-batch blocks on to them.
//  - Memory: a server pod holds its partition files; a trainer pod --num-trainers processes of
//    laws.h's ProcessBytes; a sampler pod --num-samplers of Calibration::sampler_bytes.
#pragma once

#include "sim/dgl/calibration.h"
#include "sim/dgl/dataset.h"
#include "sim/dgl/models.h"

namespace sim::dglmodels {

struct TriConfig {
  int worker_pods = 0;       // hold a partition and train
  int server_pods = 0;       // hold a partition
  int trainer_pods = 0;      // train
  int sampler_pods = 0;      // sample for the training pods
  int trainers_per_pod = 1;  // --num-trainers
  int samplers = 0;          // --num-samplers: per training pod, or per sampler pod when there are any
  int gpus = 0;              // per training pod (the fewest of any)
  double cpu_speed = 1.0;    // of the slowest training pod's node
};

struct TriEpochCost {
  double compute_seconds = 0;          // every training pod in parallel
  double worker_remote_bytes = 0;      // features one worker pod fetches from the other serving pods
  double trainer_feature_bytes = 0;    // features one trainer pod fetches from the serving pods
  double trainer_structure_bytes = 0;  // sampled structure one trainer pod fetches (no sampler pods)
  double sampler_structure_bytes = 0;  // sampled structure one sampler pod fetches from the servers
  double sampler_block_bytes = 0;      // mini-batch blocks one sampler pod sends to the training pods
};

// `parts`: the partitions of the serving pods (workers, then servers).
TriEpochCost TriEpoch(const DatasetInfo& d, const Calibration& c, const PartSizes& parts, const TriConfig& config);

// Memory of a pod that only serves (its partition in shared memory), only trains, or only samples.
double ServerPodBytes(const PartFiles& files);
double TrainerPodBytes(const Calibration& c, const DatasetInfo& d, int trainers);
double SamplerPodBytes(const Calibration& c, int samplers);

}  // namespace sim::dglmodels
