// A run's row: the queueing delay of a job is the time some pod of its first attempt waited for a
// node, a failed container's words reach the reason in one line, the time per epoch is the training
// stage over the launcher's epochs, the GPU time training counts the GPUs held while it trained, and
// the busy cost pays each node only while it holds a pod.
#include "sim/harness/sweep/metrics.h"

#include <gtest/gtest.h>

namespace harness::sweep {
namespace {

constexpr Micros kMin = 60 * kube::kSecond;

// One SMP-like job, submitted at 0: a partitioner created at 0 and bound at 3m, then (after 20
// minutes of partitioning) two workers created at 25m, bound at 30m and 32m; a relaunch at 40m
// whose pod waits until 50m, after the job restarted at 35m.
RunRecord SmpRun(const std::string& phase) {
  RunRecord record;
  const JobKey key{"dgl", "sage"};
  record.job_order.push_back(key);
  JobRecord& job = record.jobs[key];
  job.key = key;
  job.submitted = 0;
  job.phase = phase;
  job.phases = {{"Pending", 0}, {"Restarting", 35 * kMin}, {phase, 60 * kMin}};
  job.completed = 60 * kMin;
  auto pod = [&](const char* uid, Micros created, Micros bound) {
    PodRecord& p = record.Pod(uid);
    p.name = uid;
    p.job = key;
    p.created = created;
    p.bound = bound;
    return &p;
  };
  pod("partitioner", 0, 3 * kMin);
  pod("worker-0", 25 * kMin, 30 * kMin);
  pod("worker-1", 25 * kMin, 32 * kMin);
  PodRecord* relaunch = pod("launcher-2", 40 * kMin, 50 * kMin);
  if (phase == "Failed") {
    job.conditions = kube::Json::array({{{"type", "Failed"}, {"status", "True"}, {"reason", "LauncherFailed"}}});
    relaunch->containers.push_back({.name = "main", .finished = 55 * kMin, .exit_code = 1, .reason = "Error",
                                    .message = "[dglrun] start\n\nFatal error in PMPI_Alltoallv: too many ints\npm_dglpart: failed\n"});
  }
  record.end = 60 * kMin;
  return record;
}

TEST(SweepMetrics, QueueingCountsTheFirstAttemptsWaitsNotThePartitioningBetweenThem) {
  const kube::Json row = RowOf(Scenario{}, SmpRun("Succeeded"));
  // 3 minutes for the partitioner, then 25m..32m for the workers; the relaunch after the restart
  // does not count.
  EXPECT_DOUBLE_EQ(row["queueingSeconds"]["max"].get<double>(), 10 * 60.0);
}

TEST(SweepMetrics, AFailedContainersLastTwoLinesAreTheReason) {
  const kube::Json row = RowOf(Scenario{}, SmpRun("Failed"));
  EXPECT_EQ(row["reason"], "LauncherFailed (launcher-2: Fatal error in PMPI_Alltoallv: too many ints pm_dglpart: failed)");
  EXPECT_EQ(row["lostTo"], "MPI limit");
}

// A scenario submitting job dgl/sage whose launcher runs `command` (dglrun's flags in it).
Scenario ScenarioWithLauncher(const kube::Json& command) {
  Scenario scenario;
  JobEntry entry;
  entry.targets.push_back({"dgl", "sage"});
  entry.objects.push_back(
      {{"spec", {{"dglReplicaSpecs", {{"Launcher", {{"template", {{"spec", {{"containers", {{{"name", "main"}, {"command", command}}}}}}}}}}}}}}});
  scenario.jobs.push_back(entry);
  return scenario;
}

// A job that trained from 10m to 20m (two intervals, one overlapping the other) on a 4-GPU pod
// that ran from 5m to 25m and a 2-GPU pod that ran from 15m to 25m, on a cluster of 8 GPUs, and
// ended at 30m.
RunRecord TrainingRun() {
  RunRecord record;
  const JobKey key{"dgl", "sage"};
  record.job_order.push_back(key);
  JobRecord& job = record.jobs[key];
  job.key = key;
  job.submitted = 0;
  job.completed = 30 * kMin;
  job.phase = "Succeeded";
  job.stage_intervals["training"] = {{14 * kMin, 20 * kMin}, {10 * kMin, 16 * kMin}};
  auto pod = [&](const char* uid, std::int64_t gpus, Micros started) {
    PodRecord& p = record.Pod(uid);
    p.name = uid;
    p.job = key;
    p.gpus = gpus;
    p.started = started;
    p.released = 25 * kMin;
  };
  pod("trainer-0", 4, 5 * kMin);
  pod("trainer-1", 2, 15 * kMin);
  pod("server-0", 0, 0);
  record.gpus = 8;
  record.end = 30 * kMin;
  return record;
}

TEST(SweepMetrics, TimePerEpochIsTheTrainingStageOverTheLaunchersEpochs) {
  const RunRecord record = TrainingRun();
  // 10 minutes of training (the union of the intervals) over dglrun's --num-epochs 4.
  kube::Json row = RowOf(ScenarioWithLauncher({"dglrun", "--num-epochs", "4"}), record);
  EXPECT_DOUBLE_EQ(row["epochSeconds"].get<double>(), 150.0);
  // Without the flag, the training script's default (20 epochs).
  row = RowOf(ScenarioWithLauncher({"dglrun", "--num-servers", "1"}), record);
  EXPECT_DOUBLE_EQ(row["epochSeconds"].get<double>(), 30.0);
  // DGL-KE's dglkerun trains once; another launcher has no epochs, nor does a job never submitted.
  EXPECT_DOUBLE_EQ(RowOf(ScenarioWithLauncher({"dglkerun"}), record)["epochSeconds"].get<double>(), 600.0);
  EXPECT_TRUE(RowOf(ScenarioWithLauncher({"python", "train.py"}), record)["epochSeconds"].is_null());
  EXPECT_TRUE(RowOf(Scenario{}, record)["epochSeconds"].is_null());
}

TEST(SweepMetrics, TrainingGpuUtilizationCountsTheGpusHeldWhileTheJobTrained) {
  const kube::Json row = RowOf(ScenarioWithLauncher({"dglrun"}), TrainingRun());
  // 4 GPUs x 10 min + 2 GPUs x 5 min (15m..20m) = 50 GPU-minutes of 8 GPUs x 30 min.
  EXPECT_DOUBLE_EQ(row["trainingGpuUtilization"].get<double>(), 50.0 / 240.0);
  // A cluster without GPUs has no share to give.
  RunRecord record = TrainingRun();
  record.gpus = 0;
  EXPECT_TRUE(RowOf(ScenarioWithLauncher({"dglrun"}), record)["trainingGpuUtilization"].is_null());
}

TEST(SweepMetrics, BusyCostPaysEachNodeOnlyWhileItHoldsAPod) {
  Scenario scenario;
  NodeTemplateSpec big{.name = "big", .count = 2, .price_per_hour = 10};
  NodeTemplateSpec free_node{.name = "free", .count = 1};
  scenario.cluster.nodes = {{.node_template = big}, {.node_template = free_node}};
  RunRecord record;
  auto pod = [&](const char* uid, const char* node, Micros bound, std::optional<Micros> released) {
    PodRecord& p = record.Pod(uid);
    p.node = node;
    p.bound = bound;
    p.released = released;
  };
  // big-0 holds pods over 0..30m and 20m..60m (one hour in all), big-1 one from 45m to the end
  // (90m), the unpriced node one all along; a pod never bound costs nothing.
  pod("a", "big-0", 0, 30 * kMin);
  pod("b", "big-0", 20 * kMin, 60 * kMin);
  pod("c", "big-1", 45 * kMin, std::nullopt);
  pod("d", "free-0", 0, 90 * kMin);
  pod("e", "", 0, std::nullopt);
  const JobKey key{"dgl", "sage"};
  record.job_order.push_back(key);
  record.jobs[key] = {.key = key, .submitted = 0, .completed = 90 * kMin, .phase = "Succeeded"};
  record.end = 90 * kMin;
  const kube::Json row = RowOf(scenario, record);
  EXPECT_DOUBLE_EQ(row["busyCost"].get<double>(), 10 * 1.0 + 10 * 0.75);
  // The whole cluster's cost counts both big nodes for the span whatever they held.
  EXPECT_DOUBLE_EQ(row["cost"].get<double>(), 20 * 1.5);
  EXPECT_TRUE(RowOf(Scenario{}, record)["busyCost"].is_null());
}

// A planner pays for what the cluster provides: two 4-GPU fixed nodes over a two-hour span, and
// pool nodes from their request (one asked for at 30m, Ready at 33m, removed at 2h10m, after the
// span; one asked for at 1h, interrupted at 1h30m; one at the pool's minimum from before the
// first submission), whether their pods held the GPUs or not.
TEST(SweepMetrics, PoolNodesArePaidFromTheirRequestToTheirRemovalOrInterruption) {
  Scenario scenario;
  NodeTemplateSpec fixed{.name = "fixed", .count = 2, .price_per_hour = 10};
  scenario.cluster.nodes = {{.node_template = fixed}};
  RunRecord record;
  const JobKey key{"dgl", "sage"};
  record.job_order.push_back(key);
  record.jobs[key] = {.key = key, .submitted = 10 * kMin, .completed = 130 * kMin, .phase = "Succeeded"};
  record.end = 140 * kMin;
  record.nodes = 3;  // at the end: the fixed ones and the minimum node
  record.gpus = 12;
  record.fixed_nodes = 2;
  record.fixed_gpus = 8;
  record.price_per_hour = 20;
  record.pool_nodes = {
      {.name = "p-0", .pool = "p", .gpus = 4, .price_per_hour = 6, .requested = 0, .ready = 0},
      {.name = "p-1", .pool = "p", .gpus = 4, .price_per_hour = 6, .requested = 30 * kMin, .ready = 33 * kMin, .gone = 140 * kMin},
      {.name = "p-2", .pool = "p", .gpus = 4, .price_per_hour = 6, .spot = true, .requested = 60 * kMin, .ready = 63 * kMin,
       .notice = 88 * kMin, .gone = 90 * kMin, .interrupted = true},
  };
  const kube::Json row = RowOf(scenario, record);
  // Span 10m..130m (2 h). Paid: p-0 2 h (from the span's start), p-1 110 min, p-2 30 min.
  const double pool_hours = 2.0 + 110.0 / 60 + 0.5;
  EXPECT_DOUBLE_EQ(row["cost"].get<double>(), 20 * 2.0 + 6 * pool_hours);
  EXPECT_DOUBLE_EQ(row["providedGpuHours"].get<double>(), 8 * 2.0 + 4 * pool_hours);
  EXPECT_DOUBLE_EQ(row["nodeHours"].get<double>(), 2 * 2.0 + pool_hours);
  // Ready at once: the two fixed nodes, p-0, and p-1 with p-2 from 63m to 90m.
  EXPECT_EQ(row["peakNodes"].get<int>(), 5);
  EXPECT_EQ(row["poolNodes"].get<int>(), 3);
  EXPECT_EQ(row["interruptions"].get<int>(), 1);
}

}  // namespace
}  // namespace harness::sweep
