// The DGL operator hosted as a simulated actor drives real simulated pods (kubelets running the
// generic annotation-driven programs) from submission to a terminal phase, and survives restarts.
#include "sim/cluster/operator_actor.h"

#include "operator/admission/dgljob_admission.h"
#include "operator/api/dgljob_api.h"
#include "sim/cluster/kubelet.h"

#include <gtest/gtest.h>

#include <map>

namespace sim {
namespace {

using json = kube::Json;

// Binds every unscheduled pod to the nodes in turn: a stand-in for the scheduler.
class RoundRobinBinder : public Actor {
 public:
  RoundRobinBinder(Simulation& sim, std::vector<std::string> nodes) : Actor(sim, "binder"), nodes_(std::move(nodes)) {}
  void Start() override {
    AddInformer("pods", {.field_selector = "spec.nodeName="}, {.on_add = [this](const kube::ObjectPtr& pod) {
                  std::string ns = kube::NamespaceOf(*pod), name = kube::NameOf(*pod);
                  After(kMillisecond, [this, ns, name] {
                    client().Create("pods/binding",
                                    {{"metadata", {{"name", name}}}, {"target", {{"name", nodes_[next_++ % nodes_.size()]}}}}, ns);
                  });
                }});
  }

 private:
  std::vector<std::string> nodes_;
  std::size_t next_ = 0;
};

json ActorContainer(const std::string& name) {
  return {{"name", name}, {"image", "dgloperator/graphsage:v0.1"}, {"command", {"dglrun"}},
          {"resources", {{"limits", {{"cpu", "1"}, {"memory", "2Gi"}}}}}};
}

json Replica(int replicas, const std::string& container) {
  json tmpl;
  tmpl["metadata"]["annotations"]["dglsim.io/duration"] = "60s";
  tmpl["spec"]["containers"] = json::array({ActorContainer(container)});
  return {{"replicas", replicas}, {"template", tmpl}};
}

json Job(const std::string& mode, int workers) {
  json job = {{"apiVersion", "kubeflow.org/v1alpha1"}, {"kind", "DGLJob"}};
  job["metadata"] = {{"name", "j"}, {"namespace", "default"}};
  job["spec"]["partitionMode"] = mode;
  job["spec"]["dglReplicaSpecs"]["Launcher"] = Replica(1, "dgl-launcher");
  if (mode != "Skip") job["spec"]["dglReplicaSpecs"]["Worker"] = Replica(workers, "dgl-worker");
  return job;
}

struct ActorCluster {
  Simulation sim;
  OperatorActor* op = nullptr;
  explicit ActorCluster(int nodes, std::uint64_t seed = 1) : sim({.seed = seed}) {
    dgl::RegisterDGLJobAdmission(sim.store());
    std::vector<std::string> names;
    for (int i = 0; i < nodes; ++i) {
      std::string name = "node-" + std::to_string(i);
      names.push_back(name);
      sim.store().Create("nodes", {{"metadata", {{"name", name}}},
                                   {"status", {{"addresses", {{{"type", "InternalIP"}, {"address", "10.0.0." + std::to_string(i + 10)}}}}}}});
      // 1 GB images: pulled in 5 s, so the workers run before the 60 s launcher ends.
      sim.AddActor<Kubelet>(KubeletConfig{.node_name = name,
                                          .pod_cidr = "10.244." + std::to_string(i) + ".0/24",
                                          .default_image_size = 1'000'000'000});
    }
    sim.AddActor<RoundRobinBinder>(names);
    op = &sim.AddActor<OperatorActor>();
    sim.Start();
  }
  json JobNow() { return **sim.store().Get("dgljobs", "default", "j"); }
};

TEST(OperatorActorTest, SkipModeRunsToSucceeded) {
  ActorCluster c(1);
  ASSERT_TRUE(c.sim.store().Create("dgljobs", Job("Skip", 0)).ok());
  c.sim.RunUntil(2 * kHour);
  EXPECT_EQ(c.JobNow()["status"]["phase"], "Succeeded") << c.JobNow()["status"].dump();
  EXPECT_TRUE(c.JobNow()["status"].contains("completionTime"));
}

TEST(OperatorActorTest, EveryPartitionModeRunsToSucceeded) {
  for (const char* mode : {"DGL-API", "ParMETIS", "DistParMETIS"}) {
    ActorCluster c(3);
    ASSERT_TRUE(c.sim.store().Create("dgljobs", Job(mode, 2)).ok());
    c.sim.RunUntil(2 * kHour);
    json status = c.JobNow()["status"];
    EXPECT_EQ(status["phase"], "Succeeded") << mode << ": " << status.dump();
    // The stages happened, in order, each recorded as a condition transition.
    for (const char* type : {"Partitioning", "Partitioned", "Training"}) {
      bool found = false;
      for (const auto& c : status["conditions"]) found = found || c["type"] == type;
      EXPECT_TRUE(found) << mode << " never reached " << type << ": " << status.dump();
    }
  }
}

// Records when each worker first runs and when the launcher's main container starts.
class HandOffRecorder : public Actor {
 public:
  explicit HandOffRecorder(Simulation& sim) : Actor(sim, "hand-off-recorder") {}
  void Start() override {
    auto see = [this](const kube::ObjectPtr& pod) {
      const std::string& name = kube::NameOf(*pod);
      const json& status = (*pod)["status"];
      if (name.find("-worker-") != std::string::npos && status.value("phase", "") == "Running")
        worker_running.emplace(name, Now());
      if (name.ends_with("-launcher") && status.contains("containerStatuses") && launcher_main_started < 0)
        for (const auto& c : status["containerStatuses"])
          if (c.contains("state") && c["state"].contains("running")) launcher_main_started = Now();
    };
    AddInformer("pods", {}, {.on_add = see, .on_update = [see](const kube::ObjectPtr&, const kube::ObjectPtr& p) { see(p); }});
  }
  std::map<std::string, Micros> worker_running;
  Micros launcher_main_started = -1;
};

TEST(OperatorActorTest, TheLauncherTrainsOnlyAfterEveryWorkerRuns) {
  // The launcher's watcher-loop-worker reads the hostfile once, when it starts, right after the
  // partitioner succeeded: the workers exist by then but have no IP yet. It must still wait for
  // every one of them.
  for (const char* mode : {"DGL-API", "ParMETIS"}) {
    ActorCluster c(3);
    auto& recorder = c.sim.AddActor<HandOffRecorder>();
    ASSERT_TRUE(c.sim.store().Create("dgljobs", Job(mode, 2)).ok());
    c.sim.RunUntil(2 * kHour);
    ASSERT_EQ(recorder.worker_running.size(), 2u) << mode;
    ASSERT_GE(recorder.launcher_main_started, 0) << mode;
    for (const auto& [worker, at] : recorder.worker_running)
      EXPECT_GE(recorder.launcher_main_started, at) << mode << ": the launcher started before " << worker << " ran";
  }
}

TEST(OperatorActorTest, AnOperatorRestartMidJobEndsInTheSameFinalState) {
  auto final_phase = [](bool restart) {
    ActorCluster c(3);
    c.sim.store().Create("dgljobs", Job("DGL-API", 2));
    if (restart) c.sim.engine().Schedule(90 * kSecond, [&c] { c.op->Restart(); });
    c.sim.RunUntil(2 * kHour);
    json status = c.JobNow()["status"];
    return std::make_pair(status["phase"].get<std::string>(), status.value("restartCount", 0));
  };
  auto clean = final_phase(false);
  auto restarted = final_phase(true);
  EXPECT_EQ(clean.first, "Succeeded");
  EXPECT_EQ(restarted, clean);
}

TEST(OperatorActorTest, TwentyPercentConflictsStillEndInTheSameFinalState) {
  ActorCluster c(3);
  c.sim.store().Create("dgljobs", Job("DGL-API", 2));
  c.op->faulty_client().SetPlan({.conflict_rate = 0.2});
  c.sim.RunUntil(2 * kHour);
  EXPECT_EQ(c.JobNow()["status"]["phase"], "Succeeded") << c.JobNow()["status"].dump();
  EXPECT_GT(c.op->faulty_client().counts().conflicts, 0);
}

TEST(OperatorActorTest, TheSameSeedGivesTheSameTrace) {
  auto hash = [] {
    ActorCluster c(3, 42);
    c.sim.store().Create("dgljobs", Job("DGL-API", 2));
    c.sim.RunUntil(2 * kHour);
    return c.sim.trace().HashHex();
  };
  EXPECT_EQ(hash(), hash());
}

}  // namespace
}  // namespace sim
