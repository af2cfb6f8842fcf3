// Image pulls through the flow network: a pull is a registry -> disk flow capped at the pull
// bandwidth, so a slow NIC, a dead node and concurrent pulls change how long it takes; each pull is
// reported as stage "imagePull" of the pods that waited for it.
#include "sim/cluster/cluster.h"
#include "sim/cluster/kubelet.h"

#include <gtest/gtest.h>

#include <set>

namespace sim {
namespace {

using kube::ObjectPtr;
using json = kube::Json;

// Collects the stages kubelets report.
class StageLog : public WorkloadObserver {
 public:
  struct Stage {
    std::string pod, stage;
    Micros begin, end;
  };
  void OnStage(const json& pod, std::string_view stage, Micros begin, Micros end) override {
    stages.push_back({kube::NameOf(pod), std::string(stage), begin, end});
  }
  void OnMemory(const json&, std::string_view, std::int64_t) override {}
  std::vector<Stage> stages;
};

// Records when each pod's first container first ran.
class RunningLog : public Actor {
 public:
  explicit RunningLog(Simulation& sim) : Actor(sim, "running-log") {}
  void Start() override {
    auto record = [this](const ObjectPtr& pod) {
      const std::string name = kube::NameOf(*pod);
      if (running.contains(name) || !pod->contains("status")) return;
      if ((*pod)["status"].value("phase", "") == "Running") running[name] = Now();
    };
    AddInformer("pods", {}, {.on_add = record, .on_update = [record](const ObjectPtr&, const ObjectPtr& p) { record(p); }});
  }
  std::map<std::string, Micros> running;
};

json PullingPod(const std::string& name, const std::string& image) {
  return {{"metadata", {{"name", name}, {"namespace", "default"}, {"annotations", {{"dglsim.io/duration", "10s"}}}}},
          {"spec", {{"restartPolicy", "Never"}, {"containers", json::array({{{"name", "main"}, {"image", image}}})}}}};
}

class KubeletNetworkTest : public ::testing::Test {
 protected:
  // One node "node-0" with a 1 GB/s NIC and 2 GB/s disk; pulls at 100 MB/s of 1 GB images (10 s).
  void Build(bool network, bool serialize = true, double nic = 1e9) {
    cluster_.reset();  // a second Build(): the old cluster's actors unregister from the old simulation
    sim_ = std::make_unique<Simulation>(SimulationOptions{.seed = 1, .watch_latency = 0});
    cluster_ = std::make_unique<Cluster>(*sim_);
    NodeTemplate t;
    t.name = "node";
    t.capacity = {{"cpu", "8"}, {"memory", "64Gi"}};
    t.nic_bytes_per_second = nic;
    ASSERT_TRUE(cluster_->AddNodes(t).ok());
    KubeletConfig config;
    config.node_name = "node-0";
    config.image_pull_bytes_per_second = 100e6;
    config.default_image_size = 1'000'000'000;
    config.pod_startup = kSecond;
    config.container_start = 0;
    config.serialize_image_pulls = serialize;
    config.observer = &stages_;
    if (network) {
      network_ = &sim_->EnableNetwork();
      network_->AddNode("node-0", nic, 2e9);
      config.network = network_;
    }
    log_ = &sim_->AddActor<RunningLog>();
    kubelet_ = &sim_->AddActor<Kubelet>(config);
    sim_->Start();
  }
  void Run(const json& pod, Micros at = 0) {
    sim_->engine().ScheduleAt(at, [this, pod] {
      ASSERT_TRUE(sim_->store().Create("pods", pod).ok());
      json binding = {{"metadata", {{"name", pod["metadata"]["name"]}, {"namespace", "default"}}},
                      {"target", {{"kind", "Node"}, {"name", "node-0"}}}};
      ASSERT_TRUE(sim_->store().Create("pods/binding", binding).ok());
    });
  }
  Micros RunningAt(const std::string& pod) {
    auto it = log_->running.find(pod);
    return it == log_->running.end() ? -1 : it->second;
  }

  std::unique_ptr<Simulation> sim_;
  std::unique_ptr<Cluster> cluster_;
  Network* network_ = nullptr;
  StageLog stages_;
  RunningLog* log_ = nullptr;
  Kubelet* kubelet_ = nullptr;
};

TEST_F(KubeletNetworkTest, AnUncontendedPullTakesSizeOverPullBandwidthWithOrWithoutANetwork) {
  for (bool network : {false, true}) {
    Build(network);
    Run(PullingPod("a", "one:v1"));
    sim_->RunUntilIdle();
    // Sandbox at 1 s, a 10 s pull.
    EXPECT_EQ(RunningAt("a"), 11 * kSecond) << "network " << network;
    EXPECT_EQ(kubelet_->stats().image_pulls, 1);
  }
  // With the network, the bytes crossed the node's NIC and disk.
  EXPECT_EQ(network_->flows_completed(), 1u);
  EXPECT_DOUBLE_EQ(network_->Link("node-0/disk").bytes_carried, 1e9);
}

TEST_F(KubeletNetworkTest, APullIsReportedAsStageImagePullOfEveryPodThatWaitedForIt) {
  Build(true);
  Run(PullingPod("a", "one:v1"));
  Run(PullingPod("b", "one:v1"));  // queued behind a's pull of the same image
  Run(PullingPod("c", "two:v1"), 50 * kSecond);
  sim_->RunUntilIdle();
  ASSERT_EQ(stages_.stages.size(), 3u);
  EXPECT_EQ(stages_.stages[0].pod, "a");
  EXPECT_EQ(stages_.stages[1].pod, "b");
  for (int i : {0, 1}) {
    EXPECT_EQ(stages_.stages[i].stage, "imagePull");
    EXPECT_EQ(stages_.stages[i].begin, 1 * kSecond);
    EXPECT_EQ(stages_.stages[i].end, 11 * kSecond);
  }
  EXPECT_EQ(stages_.stages[2].pod, "c");
  EXPECT_EQ(stages_.stages[2].begin, 51 * kSecond);
  EXPECT_EQ(stages_.stages[2].end, 61 * kSecond);
  EXPECT_EQ(RunningAt("b"), 11 * kSecond);  // the cache served b once a's pull was done
  EXPECT_EQ(kubelet_->stats().image_pulls, 2);
}

TEST_F(KubeletNetworkTest, PullsStaySerialThroughTheNetwork) {
  Build(true);
  Run(PullingPod("a", "one:v1"));
  Run(PullingPod("b", "two:v1"));
  sim_->RunUntilIdle();
  EXPECT_EQ(RunningAt("a"), 11 * kSecond);
  EXPECT_EQ(RunningAt("b"), 21 * kSecond);
}

TEST_F(KubeletNetworkTest, ConcurrentPullsShareTheNodesNic) {
  // Parallel pulls capped at 100 MB/s each through a 150 MB/s NIC: two at once get 75 MB/s each,
  // so both take 1 GB / 75 MB/s = 13.33 s instead of 10 s.
  Build(true, /*serialize=*/false, /*nic=*/150e6);
  Run(PullingPod("a", "one:v1"));
  Run(PullingPod("b", "two:v1"));
  sim_->RunUntilIdle();
  const Micros pull = RunningAt("a") - kSecond;
  EXPECT_NEAR(static_cast<double>(pull), 1e9 / 75e6 * 1e6, 2);
  EXPECT_EQ(RunningAt("b"), RunningAt("a"));
}

TEST_F(KubeletNetworkTest, AFlowNetworkSlowedNicStretchesAPullByOneOverTheFactor) {
  // A 1 GB/s NIC slowed to 0.05 leaves 50 MB/s, below the 100 MB/s pull cap: 20 s, not 10 s.
  Build(true);
  network_->SetNodeNicFactor("node-0", 0.05);
  Run(PullingPod("a", "one:v1"));
  sim_->RunUntilIdle();
  EXPECT_EQ(RunningAt("a"), 21 * kSecond);
}

TEST_F(KubeletNetworkTest, ANodeThatDiesMidPullCancelsItsFlowAndPullsAgainWhenBack) {
  Build(true);
  cluster_->AddLivenessObserver([this](const std::string&, bool up, Micros) { kubelet_->SetNodeUp(up); });
  json pod = PullingPod("a", "one:v1");
  pod["spec"]["restartPolicy"] = "Always";
  pod["metadata"]["annotations"]["dglsim.io/duration"] = "infinity";
  Run(pod);
  sim_->RunUntil(5 * kSecond);
  EXPECT_EQ(network_->active_flows(), 1u);
  cluster_->NodeDown("node-0");
  EXPECT_EQ(network_->active_flows(), 0u);  // the runtime's pull died with the machine
  sim_->RunUntil(100 * kSecond);
  EXPECT_FALSE(kubelet_->HasImage("one:v1"));
  cluster_->NodeUp("node-0");
  sim_->RunUntil(200 * kSecond);
  EXPECT_TRUE(kubelet_->HasImage("one:v1"));
  // Back at 100 s: a new sandbox after 1 s, then the whole 10 s pull again.
  ASSERT_FALSE(stages_.stages.empty());
  EXPECT_EQ(stages_.stages.back().begin, 101 * kSecond);
  EXPECT_EQ(stages_.stages.back().end, 111 * kSecond);
  EXPECT_EQ(kubelet_->stats().image_pulls, 2);
}

TEST_F(KubeletNetworkTest, PullsThroughTheNetworkGiveTheSameTraceRunAfterRun) {
  std::set<std::uint64_t> hashes;
  for (int run = 0; run < 3; ++run) {
    Build(true, /*serialize=*/false, /*nic=*/150e6);
    for (int i = 0; i < 5; ++i) Run(PullingPod("p" + std::to_string(i), "image-" + std::to_string(i % 3) + ":v1"), i * kSecond);
    sim_->RunUntilIdle();
    hashes.insert(sim_->trace().hash());
  }
  EXPECT_EQ(hashes.size(), 1u);
}

}  // namespace
}  // namespace sim
