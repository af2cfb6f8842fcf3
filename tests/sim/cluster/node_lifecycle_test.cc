// The node lifecycle controller: the node-failure timeline (NotReady after the grace period,
// NoExecute taints, evictions after the tolerations), recovery, and determinism.
#include "sim/cluster/node_lifecycle.h"

#include "sim/cluster/cluster.h"
#include "sim/cluster/scheduler.h"

#include <gtest/gtest.h>

#include <string>

namespace sim {
namespace {

using json = kube::Json;

NodeTemplate Gpus(const std::string& name, int count) {
  NodeTemplate t;
  t.name = name;
  t.count = count;
  t.capacity = {{"cpu", "96"}, {"memory", "768Gi"}, {"nvidia.com/gpu", "8"}};
  return t;
}

json RunningPod(const std::string& name, const std::string& node, json tolerations = nullptr) {
  json pod = {{"metadata", {{"name", name}, {"namespace", "default"}}},
              {"spec", {{"nodeName", node}, {"containers", json::array({{{"name", "c"}, {"image", "busybox:1.36"}}})}}},
              {"status",
               {{"phase", "Running"},
                {"conditions", json::array({{{"type", "Ready"}, {"status", "True"}}})}}}};
  if (!tolerations.is_null()) pod["spec"]["tolerations"] = tolerations;
  return pod;
}

class NodeLifecycleTest : public ::testing::Test {
 protected:
  explicit NodeLifecycleTest(ClusterOptions options = {}) : cluster_(sim_, std::move(options)) {}
  void Boot() {
    ASSERT_TRUE(cluster_.AddNodes(Gpus("gpu", 2)).ok());
    controller_ = &sim_.AddActor<NodeLifecycleController>(cluster_);
    sim_.Start();
  }
  void DownAt(Micros t, const std::string& node) {
    sim_.engine().ScheduleAt(t, [this, node] { cluster_.NodeDown(node); });
  }
  void UpAt(Micros t, const std::string& node) {
    sim_.engine().ScheduleAt(t, [this, node] { cluster_.NodeUp(node); });
  }
  json Node(const std::string& name) { return **sim_.store().Get("nodes", "", name); }
  std::string Ready(const std::string& name) { return NodeReadyStatus(Node(name)); }
  std::vector<std::string> TaintKeys(const std::string& name) {
    std::vector<std::string> out;
    for (const auto& t : TaintsOf(Node(name))) out.push_back(t.key + ":" + t.effect);
    return out;
  }
  // "gone", "terminating" or "alive".
  std::string PodState(const std::string& name) {
    auto r = sim_.store().Get("pods", "default", name);
    if (!r.ok()) return "gone";
    return (**r)["metadata"].contains("deletionTimestamp") ? "terminating" : "alive";
  }

  Simulation sim_;
  Cluster cluster_;
  NodeLifecycleController* controller_ = nullptr;
};

class NodeLifecycleWithoutDefaultTolerationsTest : public NodeLifecycleTest {
 protected:
  NodeLifecycleWithoutDefaultTolerationsTest() : NodeLifecycleTest({.default_toleration_seconds = -1}) {}
};

TEST_F(NodeLifecycleTest, ANodeThatStopsHeartbeatingIsNotReadyAndTaintedAfterTheGracePeriod) {
  Boot();
  DownAt(100 * kSecond, "gpu-0");
  sim_.RunUntil(150 * kSecond - 1);
  EXPECT_EQ(Ready("gpu-0"), "True");
  EXPECT_TRUE(TaintKeys("gpu-0").empty());
  sim_.RunUntil(150 * kSecond);
  EXPECT_EQ(Ready("gpu-0"), "Unknown");
  json node = Node("gpu-0");
  EXPECT_EQ(node["status"]["conditions"][0]["reason"], "NodeStatusUnknown");
  EXPECT_EQ(node["status"]["conditions"][0]["message"], "Kubelet stopped posting node status.");
  EXPECT_EQ(TaintKeys("gpu-0"), (std::vector<std::string>{"node.kubernetes.io/unreachable:NoSchedule",
                                                          "node.kubernetes.io/unreachable:NoExecute"}));
  EXPECT_EQ(Ready("gpu-1"), "True");
  EXPECT_EQ(controller_->stats().nodes_marked_not_ready, 1);
}

TEST_F(NodeLifecycleTest, PodsWithTheDefaultTolerationsAreEvicted350SecondsAfterTheNodeDied) {
  Boot();
  ASSERT_TRUE(sim_.store().Create("pods", RunningPod("worker", "gpu-0")).ok());
  ASSERT_TRUE(sim_.store().Create("pods", RunningPod("other", "gpu-1")).ok());
  DownAt(100 * kSecond, "gpu-0");
  sim_.RunUntil(200 * kSecond);
  EXPECT_EQ(controller_->EvictionTime("default/worker"), 450 * kSecond);
  sim_.RunUntil(450 * kSecond - 1);
  EXPECT_EQ(PodState("worker"), "alive");
  sim_.RunUntil(450 * kSecond);
  // Deleted gracefully; no kubelet confirms on a dead node, so it stays Terminating.
  EXPECT_EQ(PodState("worker"), "terminating");
  sim_.RunUntil(2 * kHour);
  EXPECT_EQ(PodState("worker"), "terminating");
  EXPECT_EQ(PodState("other"), "alive");
  EXPECT_EQ(controller_->stats().evictions, 1);
}

TEST_F(NodeLifecycleTest, ThePodsReadyConditionTurnsFalseWhenItsNodeIsNotReady) {
  Boot();
  ASSERT_TRUE(sim_.store().Create("pods", RunningPod("worker", "gpu-0")).ok());
  DownAt(100 * kSecond, "gpu-0");
  sim_.RunUntil(151 * kSecond);
  json pod = **sim_.store().Get("pods", "default", "worker");
  EXPECT_EQ(pod["status"]["conditions"][0]["type"], "Ready");
  EXPECT_EQ(pod["status"]["conditions"][0]["status"], "False");
}

TEST_F(NodeLifecycleTest, AShorterTolerationEvictsSooner) {
  Boot();
  json tolerations = json::array({{{"key", kTaintUnreachable}, {"operator", "Exists"}, {"effect", "NoExecute"},
                                   {"tolerationSeconds", 30}}});
  ASSERT_TRUE(sim_.store().Create("pods", RunningPod("quick", "gpu-0", tolerations)).ok());
  DownAt(100 * kSecond, "gpu-0");
  sim_.RunUntil(180 * kSecond - 1);
  EXPECT_EQ(PodState("quick"), "alive");
  sim_.RunUntil(180 * kSecond);
  EXPECT_EQ(PodState("quick"), "terminating");
}

TEST_F(NodeLifecycleTest, APodToleratingUnreachableForeverStays) {
  Boot();
  json tolerations = json::array({{{"key", kTaintUnreachable}, {"operator", "Exists"}}});
  ASSERT_TRUE(sim_.store().Create("pods", RunningPod("daemon", "gpu-0", tolerations)).ok());
  DownAt(100 * kSecond, "gpu-0");
  sim_.RunUntil(kHour);
  EXPECT_EQ(PodState("daemon"), "alive");
  EXPECT_EQ(controller_->EvictionTime("default/daemon"), -1);
}

TEST_F(NodeLifecycleWithoutDefaultTolerationsTest, PodsWithoutTolerationsAreEvictedAsSoonAsTheNodeIsNotReady) {
  Boot();
  ASSERT_TRUE(sim_.store().Create("pods", RunningPod("bare", "gpu-0")).ok());
  DownAt(100 * kSecond, "gpu-0");
  sim_.RunUntil(150 * kSecond);
  EXPECT_EQ(PodState("bare"), "alive");
  // The taint manager sees the taint one watch latency later and deletes at once.
  sim_.RunUntil(150 * kSecond + 10 * kMillisecond);
  EXPECT_EQ(PodState("bare"), "terminating");
}

TEST_F(NodeLifecycleTest, ANodeBackWithinTheGracePeriodIsNeverMarked) {
  Boot();
  DownAt(100 * kSecond, "gpu-0");
  UpAt(130 * kSecond, "gpu-0");
  sim_.RunUntil(10 * kMinute);
  EXPECT_EQ(Ready("gpu-0"), "True");
  EXPECT_TRUE(TaintKeys("gpu-0").empty());
  EXPECT_EQ(controller_->stats().nodes_marked_not_ready, 0);
}

TEST_F(NodeLifecycleTest, ANodeThatComesBackIsReadyUntaintedAndItsPodsStay) {
  Boot();
  ASSERT_TRUE(sim_.store().Create("pods", RunningPod("worker", "gpu-0")).ok());
  DownAt(100 * kSecond, "gpu-0");
  UpAt(300 * kSecond, "gpu-0");
  sim_.RunUntil(299 * kSecond);
  ASSERT_EQ(Ready("gpu-0"), "Unknown");
  sim_.RunUntil(301 * kSecond);
  EXPECT_EQ(Ready("gpu-0"), "True");
  EXPECT_TRUE(TaintKeys("gpu-0").empty());
  EXPECT_EQ(controller_->EvictionTime("default/worker"), -1);
  sim_.RunUntil(kHour);
  EXPECT_EQ(PodState("worker"), "alive");
  EXPECT_EQ(controller_->stats().nodes_recovered, 1);
}

// Chaos seed 888: a node came back while the API refused writes, the patch lifting its readiness
// taints failed once, and nothing tried it again, so the node kept node.kubernetes.io/unreachable
// (and its pods their unschedulable replacements) for the rest of the run.
TEST_F(NodeLifecycleTest, ARefusedUntaintIsTriedAgainUntilItHolds) {
  Boot();
  DownAt(100 * kSecond, "gpu-0");
  sim_.RunUntil(200 * kSecond);
  ASSERT_EQ(Ready("gpu-0"), "Unknown");
  ASSERT_FALSE(TaintKeys("gpu-0").empty());
  // Every actor's write is refused; the node reads Ready again (written past the actors' faults).
  sim_.SetApiFaults({.conflict_rate = 1.0});
  json node = Node("gpu-0");
  for (auto& c : node["status"]["conditions"])
    if (c["type"] == "Ready") c["status"] = "True";
  ASSERT_TRUE(sim_.store().UpdateStatus("nodes", node).ok());
  sim_.RunUntil(230 * kSecond);
  EXPECT_FALSE(TaintKeys("gpu-0").empty());
  EXPECT_EQ(controller_->stats().nodes_recovered, 0);
  sim_.SetApiFaults({});
  sim_.RunUntil(240 * kSecond);
  EXPECT_TRUE(TaintKeys("gpu-0").empty());
  EXPECT_EQ(controller_->stats().nodes_recovered, 1);
}

TEST_F(NodeLifecycleTest, TheSchedulerStopsPlacingPodsOnANotReadyNode) {
  auto& scheduler = sim_.AddActor<Scheduler>();
  Boot();
  DownAt(100 * kSecond, "gpu-0");
  sim_.RunUntil(200 * kSecond);
  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE(sim_.store()
                    .Create("pods", {{"metadata", {{"name", "p" + std::to_string(i)}, {"namespace", "default"}}},
                                     {"spec", {{"containers", json::array({{{"name", "c"}, {"image", "x:1"}}})}}}})
                    .ok());
  sim_.RunUntil(201 * kSecond);
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ((**sim_.store().Get("pods", "default", "p" + std::to_string(i)))["spec"]["nodeName"], "gpu-1");
  EXPECT_EQ(scheduler.stats().bound, 3);
}

std::string FailureRun(std::uint64_t seed) {
  Simulation sim({.seed = seed});
  Cluster cluster(sim);
  EXPECT_TRUE(cluster.AddNodes(Gpus("gpu", 4)).ok());
  sim.AddActor<Scheduler>();
  sim.AddActor<NodeLifecycleController>(cluster);
  sim.Start();
  for (int i = 0; i < 12; ++i)
    sim.store().Create("pods", {{"metadata", {{"name", "w" + std::to_string(i)}, {"namespace", "default"}}},
                                {"spec",
                                 {{"containers", json::array({{{"name", "c"},
                                                               {"image", "x:1"},
                                                               {"resources", {{"limits", {{"nvidia.com/gpu", 2}}}}}}})}}}});
  sim.engine().ScheduleAt(10 * kSecond, [&] { cluster.NodeDown("gpu-1"); });
  sim.engine().ScheduleAt(20 * kMinute, [&] { cluster.NodeUp("gpu-1"); });
  sim.RunUntil(kHour);
  return sim.trace().HashHex();
}

TEST(NodeLifecycleDeterminismTest, TheSameSeedGivesTheSameFailureTrace) {
  std::string first = FailureRun(3);
  EXPECT_EQ(first, FailureRun(3));
  EXPECT_EQ(first, FailureRun(3));
  EXPECT_NE(first, FailureRun(4));
}

}  // namespace
}  // namespace sim
