// A run's row: the queueing delay of a job is the time some pod of its first attempt waited for a
// node, and a failed container's words reach the reason in one line.
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
    job.conditions = nlohmann::json::array({{{"type", "Failed"}, {"status", "True"}, {"reason", "LauncherFailed"}}});
    relaunch->containers.push_back({.name = "main", .finished = 55 * kMin, .exit_code = 1, .reason = "Error",
                                    .message = "[dglrun] start\n\nFatal error in PMPI_Alltoallv: too many ints\npm_dglpart: failed\n"});
  }
  record.end = 60 * kMin;
  return record;
}

TEST(SweepMetrics, QueueingCountsTheFirstAttemptsWaitsNotThePartitioningBetweenThem) {
  const nlohmann::json row = RowOf(Scenario{}, SmpRun("Succeeded"));
  // 3 minutes for the partitioner, then 25m..32m for the workers; the relaunch after the restart
  // does not count.
  EXPECT_DOUBLE_EQ(row["queueingSeconds"]["max"].get<double>(), 10 * 60.0);
}

TEST(SweepMetrics, AFailedContainersLastTwoLinesAreTheReason) {
  const nlohmann::json row = RowOf(Scenario{}, SmpRun("Failed"));
  EXPECT_EQ(row["reason"], "LauncherFailed (launcher-2: Fatal error in PMPI_Alltoallv: too many ints pm_dglpart: failed)");
  EXPECT_EQ(row["lostTo"], "MPI limit");
}

}  // namespace
}  // namespace harness::sweep
