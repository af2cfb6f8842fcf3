// Failure cost by volume kind: a sweep that moves the launcher's partitions from an emptyDir into a
// PersistentVolumeClaim shows what a lost node costs each (tests/sim/data/sweep/volume-sweep.yaml:
// an SSP job whose launcher's node goes down during the training).
#include "sim/harness/sweep/sweep_runner.h"

#include <gtest/gtest.h>

namespace harness::sweep {
namespace {

using json = kube::Json;

const std::string kDir = std::string(DGLSIM_SOURCE_DIR) + "/tests/sim/data/sweep";

TEST(SweepFailureCost, PartitionsOnAClaimAreNotMadeAgainAfterTheLaunchersNodeIsLost) {
  SweepLoad load = LoadSweepFile(kDir + "/volume-sweep.yaml");
  ASSERT_TRUE(load.ok()) << (load.problems.empty() ? "" : load.problems.front());
  ASSERT_EQ(load.spec->parameters.front().values.size(), 2u);
  const std::vector<json> rows = RunSweep(*load.spec, {.jobs = 2});
  ASSERT_EQ(rows.size(), 2u);
  const json& empty_dir = rows[0];
  const json& claim = rows[1];
  ASSERT_EQ(empty_dir["parameters"]["partitions"], "emptyDir");
  ASSERT_EQ(claim["parameters"]["partitions"], "PVC");
  for (const json* row : {&empty_dir, &claim}) {
    EXPECT_EQ((*row)["outcome"], "Succeeded") << (*row)["reason"];
    EXPECT_EQ((*row)["restarts"], 1);  // the launcher's loss, once
  }
  // The emptyDir went with the launcher's pod: the partitioner downloads and partitions again. The
  // claim outlives it: the new launcher finds the partitions and trains.
  const double partitioned_once = claim["breakdownSeconds"]["partition"].get<double>();
  EXPECT_GT(partitioned_once, 0);
  EXPECT_NEAR(empty_dir["breakdownSeconds"]["partition"].get<double>(), 2 * partitioned_once, 1e-6);
  EXPECT_GT(empty_dir["breakdownSeconds"]["download"].get<double>(), claim["breakdownSeconds"]["download"].get<double>());
  // Partitioning again costs time and money: the cluster's GPUs stand idle while it runs. The
  // workers hold theirs about as long in both: the stage restart deletes every worker of the broken
  // run, and the emptyDir's new ones are created only once the partitions are made again. The
  // training thrown away before the restart is the same in both.
  EXPECT_GT(empty_dir["makespanSeconds"].get<double>(), claim["makespanSeconds"].get<double>());
  EXPECT_GT(empty_dir["cost"].get<double>(), claim["cost"].get<double>());
  EXPECT_GT(empty_dir["idleGpuHours"].get<double>(), claim["idleGpuHours"].get<double>());
  EXPECT_NEAR(empty_dir["gpuHours"].get<double>(), claim["gpuHours"].get<double>(), 0.01);
  EXPECT_GT(claim["lostGpuHours"].get<double>(), 0);
  EXPECT_DOUBLE_EQ(empty_dir["lostGpuHours"].get<double>(), claim["lostGpuHours"].get<double>());
}

}  // namespace
}  // namespace harness::sweep
