// cluster.nodePools and cluster.autoscaler as the loader reads them: the defaults, stated once (sim/
// cluster/autoscaler.h), and every bad field refused with its file, line, column and path, fields
// that would change nothing included.
#include "sim/harness/config/scenario.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace harness {
namespace {

const std::string kPoolsDataDir = std::string(DGLSIM_SOURCE_DIR) + "/tests/sim/data";

// A pool-only cluster; `pool` is the pool's flow mapping's extra fields, `rest` more of the cluster.
std::string PoolScenario(const std::string& pool, const std::string& rest = "") {
  return "apiVersion: dglsim/v1\n"
         "kind: Scenario\n"
         "metadata: {name: pools}\n"
         "cluster:\n"
         "  nodePools:\n"
         "    - {name: gpu, max: 4, capacity: {cpu: \"96\", nvidia.com/gpu: \"8\"}" +
         pool + "}\n" + rest;
}

std::vector<std::string> PoolProblems(const std::string& text) { return LoadScenarioString(text, "p.yaml", kPoolsDataDir).problems; }

bool HasProblem(const std::vector<std::string>& problems, const std::string& text) {
  for (const std::string& p : problems)
    if (p == text) return true;
  ADD_FAILURE() << "no problem \"" << text << "\" among " << ::testing::PrintToString(problems);
  return false;
}

TEST(NodePoolsTest, DefaultsAreClusterAutoscalersAndStatedOnce) {
  ScenarioLoad load = LoadScenarioString(PoolScenario(""), "p.yaml", kPoolsDataDir);
  ASSERT_TRUE(load.ok()) << ::testing::PrintToString(load.problems);
  const ClusterSpec& c = load.scenario->cluster;
  ASSERT_EQ(c.pools.size(), 1u);
  EXPECT_TRUE(c.nodes.empty());
  EXPECT_EQ(c.pools[0].machine.name, "gpu");
  EXPECT_EQ(c.pools[0].min, 0);
  EXPECT_EQ(c.pools[0].max, 4);
  EXPECT_EQ(c.pools[0].scale_up_delay, sim::kDefaultScaleUpDelay);
  EXPECT_EQ(c.pools[0].mean_time_to_interruption, 0);
  EXPECT_EQ(c.autoscaler.expander, sim::Expander::kLeastWaste);
  EXPECT_EQ(c.autoscaler.scan_interval, 10 * kube::kSecond);
  EXPECT_EQ(c.autoscaler.scale_down_unneeded_time, 600 * kube::kSecond);
  EXPECT_EQ(c.autoscaler.scale_down_delay_after_add, 600 * kube::kSecond);
  // The pool's maximum counts in what the cluster can ever hold.
  EXPECT_EQ(c.PodCapacity(), 4 * 110);
}

TEST(NodePoolsTest, EveryFieldIsRead) {
  ScenarioLoad load = LoadScenarioString(
      PoolScenario(", min: 1, scaleUpDelay: 5m, priority: 3, pricePerHour: 2.5, spot: {meanTimeToInterruption: 6h, notice: 30s}",
                   "  autoscaler: {expander: priority, scanInterval: 30s, scaleDownUnneededTime: 5m, scaleDownDelayAfterAdd: 0s}\n"),
      "p.yaml", kPoolsDataDir);
  ASSERT_TRUE(load.ok()) << ::testing::PrintToString(load.problems);
  const ClusterSpec& c = load.scenario->cluster;
  EXPECT_EQ(c.pools[0].min, 1);
  EXPECT_EQ(c.pools[0].scale_up_delay, 300 * kube::kSecond);
  EXPECT_EQ(c.pools[0].priority, 3);
  EXPECT_DOUBLE_EQ(c.pools[0].machine.price_per_hour, 2.5);
  EXPECT_EQ(c.pools[0].mean_time_to_interruption, 6 * 3600 * kube::kSecond);
  EXPECT_EQ(c.pools[0].interruption_notice, 30 * kube::kSecond);
  EXPECT_EQ(c.autoscaler.expander, sim::Expander::kPriority);
  EXPECT_EQ(c.autoscaler.scan_interval, 30 * kube::kSecond);
  EXPECT_EQ(c.autoscaler.scale_down_unneeded_time, 300 * kube::kSecond);
  EXPECT_EQ(c.autoscaler.scale_down_delay_after_add, 0);
}

TEST(NodePoolsTest, BadFieldsAreLocated) {
  // Line 6 is the pool's: a problem is located at the value (the key for a missing field).
  HasProblem(PoolProblems(PoolScenario(", min: 5")), "p.yaml:6:76: cluster.nodePools[0].min: is above max (4)");
  HasProblem(PoolProblems(PoolScenario(", scaleUpDelay: soon")), "p.yaml:6:85: cluster.nodePools[0].scaleUpDelay: invalid duration \"soon\"");
  HasProblem(PoolProblems(PoolScenario(", spot: {notice: 1m}")),
      "p.yaml:6:71: cluster.nodePools[0].spot.meanTimeToInterruption: required field is missing");
  HasProblem(PoolProblems(PoolScenario(", spot: {meanTimeToInterruption: 10s}")),
      "p.yaml:6:102: cluster.nodePools[0].spot.meanTimeToInterruption: must be at least 1m");
  HasProblem(PoolProblems(PoolScenario(", minimum: 1")),
      "p.yaml:6:80: cluster.nodePools[0].minimum: unknown field \"minimum\"");
  // A priority without the priority expander would change nothing.
  HasProblem(PoolProblems(PoolScenario(", priority: 2")),
      "p.yaml:6:81: cluster.nodePools[0].priority: only the priority expander reads it: set cluster.autoscaler.expander: priority");
  // A pool the autoscaler cannot size.
  const std::vector<std::string> no_capacity = PoolProblems(
      "apiVersion: dglsim/v1\nkind: Scenario\nmetadata: {name: pools}\ncluster:\n  nodePools:\n    - {name: gpu, max: 4}\n");
  HasProblem(no_capacity, "p.yaml:6:7: cluster.nodePools[0].capacity: required field is missing: the autoscaler sizes a scale-up by what a node holds");
  // The autoscaler without a pool, and the utilisation threshold, refused with the reason.
  HasProblem(PoolProblems("apiVersion: dglsim/v1\nkind: Scenario\nmetadata: {name: pools}\ncluster:\n  nodes: [{name: n}]\n"
                   "  autoscaler: {expander: least-waste}\n"),
      "p.yaml:6:3: cluster.autoscaler: scales node pools, and cluster.nodePools declares none: remove it or add a pool");
  const std::vector<std::string> threshold = PoolProblems(PoolScenario("", "  autoscaler: {scaleDownUtilizationThreshold: 0.5}\n"));
  ASSERT_EQ(threshold.size(), 1u);
  EXPECT_EQ(threshold[0].rfind("p.yaml:7:47: cluster.autoscaler.scaleDownUtilizationThreshold: refused: not a setting of the simulated autoscaler", 0), 0u)
      << threshold[0];
  // Names that would collide with the fixed nodes'.
  HasProblem(PoolProblems("apiVersion: dglsim/v1\nkind: Scenario\nmetadata: {name: pools}\ncluster:\n  nodes: [{name: gpu}]\n"
                   "  nodePools: [{name: gpu, max: 1, capacity: {cpu: \"1\"}}]\n"),
      "p.yaml:6:22: cluster.nodePools[0].name: pool \"gpu\" would name its nodes as cluster.nodes' template \"gpu\" does");
}

}  // namespace
}  // namespace harness
