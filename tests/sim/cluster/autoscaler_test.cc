// The simulated cluster-autoscaler against the simulated scheduler, through the API only: scale-up
// after its delay for the pods the scheduler marked Unschedulable, gangs scaled up whole or not at
// all, the expanders, scale-down after the unneeded time above the pool's minimum, spot
// interruptions with their notice. No kubelets: a bound pod holds its node until the test finishes
// it (phase Succeeded) or deletes it.
#include "sim/cluster/autoscaler.h"

#include "sim/cluster/cluster.h"
#include "sim/cluster/scheduler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace sim {
namespace {

using json = kube::Json;

NodePool GpuPool(const std::string& name, int max, const std::string& cpu = "32", const std::string& memory = "128Gi") {
  NodePool pool;
  pool.name = name;
  pool.max = max;
  pool.machine.capacity = {{"cpu", cpu}, {"memory", memory}, {"nvidia.com/gpu", "4"}};
  return pool;
}

json GpuPod(const std::string& name, int gpus, const std::string& group = "") {
  json limits = {{"nvidia.com/gpu", std::to_string(gpus)}, {"cpu", "8"}, {"memory", "32Gi"}};
  json pod = {{"metadata", {{"name", name}, {"namespace", "default"}}},
              {"spec", {{"containers", json::array({{{"name", "main"}, {"image", "i"}, {"resources", {{"limits", limits}}}}})}}}};
  if (!group.empty()) pod["metadata"]["labels"] = {{"scheduling.x-k8s.io/pod-group", group}};
  return pod;
}

class AutoscalerTest : public ::testing::Test {
 protected:
  void Boot(AutoscalerOptions options) {
    sim_.AddActor<Scheduler>();
    autoscaler_ = &sim_.AddActor<Autoscaler>(cluster_, std::move(options), [this](const PoolNodeEvent& e) {
      static const char* const kKinds[] = {"requested", "ready", "removed", "notice", "interrupted"};
      events_.push_back(std::to_string(sim_.Now() / kSecond) + "s " + kKinds[static_cast<int>(e.kind)] + " " + e.node);
    });
    ASSERT_TRUE(autoscaler_->AddMinimumNodes().ok());
    sim_.Start();
  }
  void CreatePod(const json& pod) { ASSERT_TRUE(sim_.store().Create("pods", pod).ok()) << pod.dump(); }
  std::string NodeOf(const std::string& pod) {
    auto r = sim_.store().Get("pods", "default", pod);
    return r.ok() ? (**r)["spec"].value("nodeName", "") : "";
  }
  void Finish(const std::string& pod) {
    ASSERT_TRUE(sim_.store().Patch("pods", "default", pod, {{"status", {{"phase", "Succeeded"}}}}, kube::PatchType::kMerge, "status").ok());
  }
  std::vector<std::string> NodeNames() {
    std::vector<std::string> names;
    auto nodes = sim_.store().List("nodes");
    if (nodes.ok())
      for (const auto& n : nodes->items) names.push_back(kube::NameOf(*n));
    return names;
  }
  std::size_t Count(const std::string& what) {
    return static_cast<std::size_t>(std::count_if(events_.begin(), events_.end(), [&](const std::string& e) { return e.find(what) != std::string::npos; }));
  }

  Simulation sim_;
  Cluster cluster_{sim_};
  Autoscaler* autoscaler_ = nullptr;
  std::vector<std::string> events_;
};

TEST_F(AutoscalerTest, ScalesUpForUnschedulablePodsAfterTheDelay) {
  AutoscalerOptions options;
  options.pools = {GpuPool("gpu", 3)};
  options.pools[0].scale_up_delay = 3 * kMinute;
  Boot(options);
  CreatePod(GpuPod("a", 4));
  CreatePod(GpuPod("b", 4));
  // The scheduler marks both Unschedulable; the scan at 10 s asks for two nodes, Ready 3 min later.
  sim_.RunUntil(3 * kMinute + 9 * kSecond);
  EXPECT_TRUE(NodeNames().empty());
  EXPECT_EQ(events_, (std::vector<std::string>{"10s requested gpu-0", "10s requested gpu-1"}));
  EXPECT_TRUE(autoscaler_->HasPendingWork());
  sim_.RunUntil(3 * kMinute + 12 * kSecond);
  EXPECT_EQ(NodeNames(), (std::vector<std::string>{"gpu-0", "gpu-1"}));
  EXPECT_NE(NodeOf("a"), "");
  EXPECT_NE(NodeOf("b"), "");
  EXPECT_NE(NodeOf("a"), NodeOf("b"));
  EXPECT_EQ(autoscaler_->PoolSize("gpu"), 2);
  // A pod too large for the machine scales nothing up.
  CreatePod(GpuPod("huge", 8));
  sim_.RunUntil(5 * kMinute);
  EXPECT_EQ(Count("requested"), 2u);
}

TEST_F(AutoscalerTest, AGangScalesUpAsAWholeOrNotAtAll) {
  AutoscalerOptions options;
  options.pools = {GpuPool("gpu", 2)};
  Boot(options);
  // Three 4-GPU pods of one group need three nodes; the pool has two: none is requested, where the
  // same pods alone get two nodes.
  for (const char* name : {"g-0", "g-1", "g-2"}) CreatePod(GpuPod(name, 4, "g"));
  sim_.RunUntil(kMinute);
  EXPECT_EQ(Count("requested"), 0u);
  for (const char* name : {"s-0", "s-1", "s-2"}) CreatePod(GpuPod(name, 4));
  sim_.RunUntil(2 * kMinute);
  EXPECT_EQ(Count("requested"), 2u);
}

TEST_F(AutoscalerTest, AGangThatFitsIsRequestedInOneScan) {
  AutoscalerOptions options;
  options.pools = {GpuPool("gpu", 4)};
  Boot(options);
  for (const char* name : {"g-0", "g-1", "g-2"}) CreatePod(GpuPod(name, 2, "g"));
  sim_.RunUntil(20 * kSecond);
  // Six GPUs: two nodes, both asked for at the first scan.
  EXPECT_EQ(events_, (std::vector<std::string>{"10s requested gpu-0", "10s requested gpu-1"}));
}

TEST_F(AutoscalerTest, LeastWasteOrPriority) {
  auto run = [](Expander expander, int priority_of_big) {
    Simulation sim;
    Cluster cluster{sim};
    AutoscalerOptions options;
    options.expander = expander;
    options.pools = {GpuPool("big", 2, "96", "768Gi"), GpuPool("fit", 2)};
    options.pools[0].priority = priority_of_big;
    std::string chosen;
    sim.AddActor<Scheduler>();
    sim.AddActor<Autoscaler>(cluster, options, [&](const PoolNodeEvent& e) {
      if (chosen.empty()) chosen = e.node;
    });
    sim.Start();
    (void)sim.store().Create("pods", GpuPod("a", 4));
    sim.RunUntil(kMinute);
    return chosen;
  };
  // The pod's 8 CPUs and 32 Gi leave less unused on the smaller machine.
  EXPECT_EQ(run(Expander::kLeastWaste, 0), "fit-0");
  // Priority: the highest, ties to the pool listed first.
  EXPECT_EQ(run(Expander::kPriority, 0), "big-0");
  EXPECT_EQ(run(Expander::kPriority, -1), "fit-0");
}

TEST_F(AutoscalerTest, RemovesNodesUnneededForTheUnneededTimeDownToTheMinimum) {
  AutoscalerOptions options;
  options.pools = {GpuPool("gpu", 3)};
  options.pools[0].min = 1;
  options.pools[0].scale_up_delay = kMinute;
  Boot(options);
  CreatePod(GpuPod("a", 4));
  CreatePod(GpuPod("b", 4));
  CreatePod(GpuPod("c", 4));
  sim_.RunUntil(2 * kMinute);
  ASSERT_EQ(NodeNames(), (std::vector<std::string>{"gpu-0", "gpu-1", "gpu-2"}));
  // The scale-up at 10 s holds scale-down until 10m10s; the pods finish at 5 min.
  sim_.engine().ScheduleAt(5 * kMinute, [this] {
    Finish("a");
    Finish("b");
    Finish("c");
  });
  sim_.RunUntil(15 * kMinute);
  EXPECT_EQ(NodeNames().size(), 3u);
  // Empty from the scan at 5m10s: removable at 15m10s, cordoned then (in name order, down to the
  // minimum), removed a second later.
  sim_.RunUntil(16 * kMinute);
  EXPECT_EQ(NodeNames(), (std::vector<std::string>{"gpu-2"}));
  EXPECT_EQ(Count("removed"), 2u);
  EXPECT_EQ(events_.back(), "911s removed gpu-1");
  sim_.RunUntilIdle();
  EXPECT_FALSE(autoscaler_->HasPendingWork());
  EXPECT_EQ(NodeNames().size(), 1u);
}

TEST_F(AutoscalerTest, ASpotNodeGetsItsNoticeThenGoes) {
  AutoscalerOptions options;
  options.pools = {GpuPool("spot", 2)};
  options.pools[0].min = 1;
  options.pools[0].mean_time_to_interruption = kHour;
  Boot(options);
  CreatePod(GpuPod("a", 4));
  sim_.RunUntil(10 * kHour);
  // The notice at a drawn time, the machine gone two minutes later; its pod still bound, the Node
  // object stays until the pod goes.
  ASSERT_EQ(Count("notice"), 1u);
  ASSERT_EQ(Count("interrupted"), 1u);
  auto seconds = [&](const std::string& what) {
    for (const std::string& e : events_)
      if (e.find(what) != std::string::npos) return std::stol(e);
    return -1L;
  };
  EXPECT_EQ(seconds("interrupted spot-0") - seconds("notice spot-0"), 120);
  EXPECT_FALSE(cluster_.IsUp("spot-0"));
  EXPECT_EQ(NodeNames().front(), "spot-0");
  ASSERT_TRUE(sim_.store().Delete("pods", "default", "a").ok());
  sim_.RunUntil(10 * kHour + kMinute);
  EXPECT_EQ(Count("removed spot-0"), 1u);
  const std::vector<std::string> left = NodeNames();
  EXPECT_EQ(std::count(left.begin(), left.end(), "spot-0"), 0);
}

}  // namespace
}  // namespace sim
