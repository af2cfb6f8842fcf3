// The tri-workload cost model (sim/dgl/tri_workload.h): where the bytes go when servers, samplers
// and trainers leave the worker pod, and that compute is models.h's epoch over the training pods.
#include "sim/dgl/tri_workload.h"

#include "sim/dgl/calibration.h"
#include "sim/dgl/dataset.h"
#include "sim/dgl/laws.h"
#include "sim/dgl/models.h"

#include <gtest/gtest.h>

namespace sim::dglmodels {
namespace {

DatasetInfo ProductsDataset() {
  DatasetInfo d;
  d.name = "ogbn-products";
  d.nodes = 2'449'029;
  d.edges = 61'859'140;
  d.feature_dim = 100;
  d.train_nodes = TrainNodesFor("ogbn-products", d.nodes);
  return d;
}

TEST(DglTriWorkloadTest, WorkersAloneCostWhatTheWorkerModelCosts) {
  const DatasetInfo d = ProductsDataset();
  const Calibration c;
  const PartSizes parts = SplitGraph(d, c, 4, false);
  TriEpochCost tri = TriEpoch(d, c, parts, {.worker_pods = 4, .samplers = 4});
  EpochTime workers = TrainingEpoch(d, c, parts, {.machines = 4, .trainers = 1, .samplers = 4});
  EXPECT_DOUBLE_EQ(tri.compute_seconds, workers.total);
  EXPECT_DOUBLE_EQ(tri.worker_remote_bytes, workers.remote_bytes_per_machine);
  EXPECT_EQ(tri.sampler_structure_bytes, 0);
}

// A trainer pod holds no partition: every sampled feature crosses the network, not only the cut.
TEST(DglTriWorkloadTest, TrainerPodsFetchEveryFeatureAndTheSampledStructure) {
  const DatasetInfo d = ProductsDataset();
  const Calibration c;
  const PartSizes parts = SplitGraph(d, c, 2, false);
  TriEpochCost tri = TriEpoch(d, c, parts, {.server_pods = 2, .trainer_pods = 2, .samplers = 4});
  const double seeds = static_cast<double>(d.train_nodes) / 2;
  EXPECT_DOUBLE_EQ(tri.trainer_feature_bytes, seeds * c.sampled_nodes_per_seed * 4.0 * 100);
  EXPECT_DOUBLE_EQ(tri.trainer_structure_bytes, seeds * c.sampled_edges_per_seed * c.bytes_per_sampled_edge);
  EXPECT_GT(tri.trainer_feature_bytes, TriEpoch(d, c, parts, {.worker_pods = 2}).worker_remote_bytes * 5);
}

// A trainer pod's compute is charged for fetching every feature (remote fraction 1), not the cut of
// the serving pods' partitions: fewer, larger server partitions do not make trainer pods faster, and
// trainer pods are never faster than as many worker pods, which hold a partition each.
TEST(DglTriWorkloadTest, TrainerPodsPayForEveryRemoteFeatureWhateverTheCut) {
  const DatasetInfo d = ProductsDataset();
  const Calibration c;
  const PartSizes two = SplitGraph(d, c, 2, false), four = SplitGraph(d, c, 4, false);
  ASSERT_LT(two.cut_fraction, four.cut_fraction);
  const double on_two = TriEpoch(d, c, two, {.server_pods = 2, .trainer_pods = 4, .samplers = 4}).compute_seconds;
  const double on_four = TriEpoch(d, c, four, {.server_pods = 4, .trainer_pods = 4, .samplers = 4}).compute_seconds;
  EXPECT_DOUBLE_EQ(on_two, on_four);
  EpochConfig all_remote{.machines = 4, .samplers = 4, .remote_fraction = 1.0};
  EXPECT_DOUBLE_EQ(on_four, TrainingEpoch(d, c, four, all_remote).total);
  const double workers = TriEpoch(d, c, four, {.worker_pods = 4, .samplers = 4}).compute_seconds;
  EXPECT_GT(on_four, workers);
  // Beside workers, the trainer pods are the slower ones: the epoch is theirs.
  EXPECT_DOUBLE_EQ(TriEpoch(d, c, two, {.worker_pods = 2, .trainer_pods = 2, .samplers = 4}).compute_seconds, on_two);
}

TEST(DglTriWorkloadTest, SamplerPodsFetchTheStructureAndSendTheBlocks) {
  const DatasetInfo d = ProductsDataset();
  const Calibration c;
  const PartSizes parts = SplitGraph(d, c, 2, false);
  TriEpochCost tri = TriEpoch(d, c, parts, {.server_pods = 2, .trainer_pods = 4, .sampler_pods = 2, .samplers = 4});
  const double all = static_cast<double>(d.train_nodes) * c.sampled_edges_per_seed * c.bytes_per_sampled_edge;
  EXPECT_NEAR(tri.sampler_structure_bytes, all / 2, all * 1e-12);
  EXPECT_DOUBLE_EQ(tri.sampler_block_bytes, tri.sampler_structure_bytes);
  EXPECT_EQ(tri.trainer_structure_bytes, 0);
}

// Trainers scale apart from servers: more trainer pods split the seeds; more sampler pods add
// sampler processes per training pod; GPUs speed the trainers up.
TEST(DglTriWorkloadTest, ComputeShrinksWithTrainerPodsSamplerPodsAndGpus) {
  const DatasetInfo d = ProductsDataset();
  const Calibration c;
  const PartSizes parts = SplitGraph(d, c, 2, false);
  const TriConfig base{.server_pods = 2, .trainer_pods = 2, .samplers = 1};
  const double two = TriEpoch(d, c, parts, base).compute_seconds;
  TriConfig four = base;
  four.trainer_pods = 4;
  EXPECT_LT(TriEpoch(d, c, parts, four).compute_seconds, two);
  TriConfig sampled = base;
  sampled.sampler_pods = 4;
  sampled.samplers = 4;
  // Sampler processes take the sampling off the trainers: the epoch is never longer, and shorter
  // only where sampling, not training, was the bottleneck (models.h).
  EXPECT_LE(TriEpoch(d, c, parts, sampled).compute_seconds, two);
  TriConfig gpus = base;
  gpus.gpus = 1;
  EXPECT_LT(TriEpoch(d, c, parts, gpus).compute_seconds, two);
}

TEST(DglTriWorkloadTest, PodMemoryIsWhatEachRoleHolds) {
  const Calibration c;
  const DatasetInfo d = ProductsDataset();
  const PartFiles files{.graph_bytes = 3e9, .feature_bytes = 5e9};
  EXPECT_DOUBLE_EQ(ServerPodBytes(files), 8e9);
  EXPECT_DOUBLE_EQ(TrainerPodBytes(c, d, 2), 2 * ProcessBytes(c, static_cast<double>(d.nodes)));
  EXPECT_DOUBLE_EQ(SamplerPodBytes(c, 4), 4 * c.sampler_bytes);
}

}  // namespace
}  // namespace sim::dglmodels
