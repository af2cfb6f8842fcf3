// Container programs: duration parsing, registry resolution, and the built-in programs run by a
// kubelet (sleep, generic, kubectl-download, watcher-loop in its ready and finished modes).
#include "sim/cluster/kubelet.h"
#include "sim/cluster/program.h"

#include <gtest/gtest.h>

namespace sim {
namespace {

using kube::ObjectPtr;
using json = kube::Json;

TEST(ProgramDurationTest, ParsesTheFormsProgramsAndAnnotationsUse) {
  EXPECT_EQ(ParseDuration("10"), 10 * kSecond);
  EXPECT_EQ(ParseDuration("1.5"), 1500 * kMillisecond);
  EXPECT_EQ(ParseDuration("90s"), 90 * kSecond);
  EXPECT_EQ(ParseDuration("5m"), 5 * kMinute);
  EXPECT_EQ(ParseDuration("1h30m"), 90 * kMinute);
  EXPECT_EQ(ParseDuration("365d"), 365 * 24 * kHour);
  EXPECT_EQ(ParseDuration("250ms"), 250 * kMillisecond);
  EXPECT_EQ(ParseDuration("infinity"), kForever);
  EXPECT_EQ(ParseDuration("abc"), std::nullopt);
  EXPECT_EQ(ParseDuration("-5"), std::nullopt);
  EXPECT_EQ(ParseDuration("5x"), std::nullopt);
  EXPECT_EQ(ParseDuration(""), std::nullopt);
}

TEST(ProgramRegistryTest, GlobsMatchLikeAShell) {
  EXPECT_TRUE(GlobMatch("*watcher-loop*", "dgloperator/watcher-loop:latest"));
  EXPECT_TRUE(GlobMatch("sleep *", "sleep 365d"));
  EXPECT_FALSE(GlobMatch("sleep *", "sleep"));
  EXPECT_TRUE(GlobMatch("a?c", "abc"));
  EXPECT_FALSE(GlobMatch("a?c", "abbc"));
}

json PodWith(json annotations) {
  return {{"metadata", {{"name", "p"}, {"namespace", "default"}, {"annotations", annotations}}}};
}

TEST(ProgramRegistryTest, PicksByAnnotationThenImageOrCommandThenGeneric) {
  ProgramRegistry registry;
  json sleep = {{"name", "w"}, {"image", "dgloperator/examples:graphsage-dist"}, {"command", {"sleep"}}, {"args", {"365d"}}};
  json watcher = {{"name", "watch"}, {"image", "dgloperator/watcher-loop:latest"}};
  json download = {{"name", "kubectl-download"}, {"image", "dgloperator/kubectl-download:latest"}};
  json plain = {{"name", "main"}, {"image", "python:3.9"}, {"command", {"python", "train.py"}}};
  EXPECT_EQ(registry.Resolve(PodWith({}), sleep), "sleep");
  EXPECT_EQ(registry.Resolve(PodWith({}), watcher), "watcher-loop");
  EXPECT_EQ(registry.Resolve(PodWith({}), download), "kubectl-download");
  EXPECT_EQ(registry.Resolve(PodWith({}), plain), "generic");
  EXPECT_EQ(registry.Resolve(PodWith({{"dglsim.io/program", "sleep"}}), plain), "sleep");
  EXPECT_EQ(registry.Resolve(PodWith({{"dglsim.io/program", "sleep"}, {"dglsim.io/program.main", "generic"}}), plain),
            "generic");
  // A later rule wins: a model registered for the image takes over from the built-in sleep.
  registry.Register("dgl-worker", MakeGenericProgram);
  registry.MatchImage("dgloperator/examples:*", "dgl-worker");
  EXPECT_EQ(registry.Resolve(PodWith({}), sleep), "dgl-worker");
  EXPECT_NE(registry.Create("dgl-worker"), nullptr);
  EXPECT_EQ(registry.Create("nope"), nullptr);
}

TEST(ProgramRegistryTest, AnswersAreRememberedPerImageAndCommandLineAndForgottenWhenARuleIsAdded) {
  ProgramRegistry registry;
  json sleeper = {{"name", "a"}, {"image", "busybox:1.36"}, {"command", {"sleep"}}, {"args", {"10"}}};
  json echoer = {{"name", "a"}, {"image", "busybox:1.36"}, {"command", {"echo"}}, {"args", {"10"}}};
  // The same image with another command line is another answer, asked in either order and again.
  for (int round = 0; round < 2; ++round) {
    EXPECT_EQ(registry.Resolve(PodWith({}), sleeper), "sleep");
    EXPECT_EQ(registry.Resolve(PodWith({}), echoer), "generic");
  }
  // A command rule added after both were answered takes effect at once.
  registry.MatchCommand("echo *", "sleep");
  EXPECT_EQ(registry.Resolve(PodWith({}), echoer), "sleep");
  registry.MatchImage("busybox:*", "generic");
  EXPECT_EQ(registry.Resolve(PodWith({}), sleeper), "generic");
}

TEST(ProgramWatcherLoopTest, ReadsField3OfEachLineAndSkipsTheLauncher) {
  EXPECT_EQ(WatcherLoopPodNames("10.0.0.1 30050 job-worker-0 slots=1\n10.0.0.2 30050 job-worker-1 slots=1\n"),
            (std::vector<std::string>{"job-worker-0", "job-worker-1"}));
  EXPECT_EQ(WatcherLoopPodNames("10.0.0.9 30050 job-partitioner\n"), (std::vector<std::string>{"job-partitioner"}));
  EXPECT_EQ(WatcherLoopPodNames("10.0.0.3 30050 job-launcher slots=1\n"), (std::vector<std::string>{}));
  EXPECT_EQ(WatcherLoopPodNames(""), (std::vector<std::string>{}));
}

// ---- programs inside a kubelet --------------------------------------------------------------

class ProgramTest : public ::testing::Test {
 protected:
  void SetUp() override {
    sim_ = std::make_unique<Simulation>(SimulationOptions{.watch_latency = 0});
    KubeletConfig config;
    config.node_name = "n1";
    config.pod_cidr = "10.244.1.0/24";
    config.host_ip = "192.168.0.11";
    config.pod_startup = kSecond;
    config.container_start = 0;
    config.preloaded_images = {"busybox:1.36", "dgloperator/watcher-loop:latest",
                               "dgloperator/kubectl-download:latest"};
    config.manifest_check = 0;
    kubelet_ = &sim_->AddActor<Kubelet>(config);
    sim_->Start();
  }
  Simulation& sim() { return *sim_; }

  void Run(json pod, Micros at = 0) {
    sim().engine().ScheduleAt(at, [this, pod] {
      ASSERT_TRUE(sim().store().Create("pods", pod).ok());
      ASSERT_TRUE(sim().store()
                      .Create("pods/binding", json{{"metadata", {{"name", pod["metadata"]["name"]}, {"namespace", "default"}}},
                                                   {"target", {{"name", "n1"}}}})
                      .ok());
    });
  }
  json Status(const std::string& name) {
    auto r = sim().store().Get("pods", "default", name);
    return r.ok() ? (**r)["status"] : json();
  }
  std::string Phase(const std::string& name) { return Status(name).value("phase", ""); }
  json Terminated(const std::string& name, const char* list = "containerStatuses", int i = 0) {
    return Status(name)[list][i]["state"]["terminated"];
  }

  std::unique_ptr<Simulation> sim_;
  Kubelet* kubelet_ = nullptr;
};

json SimplePod(const std::string& name, json container, json annotations = json::object()) {
  if (!container.contains("image")) container["image"] = "busybox:1.36";
  return {{"metadata", {{"name", name}, {"namespace", "default"}, {"annotations", annotations}}},
          {"spec", {{"restartPolicy", "Never"}, {"containers", json::array({container})}}}};
}

TEST_F(ProgramTest, SleepRunsForTheSumOfItsArguments) {
  Run(SimplePod("p", {{"name", "main"}, {"command", {"sleep"}}, {"args", {"1m", "30"}}}));
  sim().RunUntilIdle();
  json t = Terminated("p");
  EXPECT_EQ(t["exitCode"], 0);
  EXPECT_EQ(t["finishedAt"], kube::FormatTime(kube::ManualClock::kDefaultStart + 91 * kSecond));
}

TEST_F(ProgramTest, SleepInfinityNeverExitsAndABadIntervalExitsOne) {
  Run(SimplePod("forever", {{"name", "main"}, {"command", {"sleep", "infinity"}}}));
  Run(SimplePod("bad", {{"name", "main"}, {"command", {"sleep"}}, {"args", {"soon"}}}));
  sim().RunUntil(400 * 24 * kHour);
  EXPECT_EQ(Phase("forever"), "Running");
  EXPECT_EQ(Terminated("bad")["exitCode"], 1);
  EXPECT_EQ((*kubelet_->Logs("default", "bad", "main"))[0], "sleep: invalid time interval 'soon'");
}

TEST_F(ProgramTest, GenericProgramDefaultsToOneSecondAndExitZero) {
  Run(SimplePod("p", {{"name", "main"}}));
  sim().RunUntilIdle();
  EXPECT_EQ(Phase("p"), "Succeeded");
  EXPECT_EQ(Terminated("p")["finishedAt"], kube::FormatTime(kube::ManualClock::kDefaultStart + 2 * kSecond));
}

TEST_F(ProgramTest, GenericProgramTakesPerContainerAnnotationsOverPodWideOnes) {
  json pod = SimplePod("p", {{"name", "a"}},
                       {{"dglsim.io/duration", "10s"}, {"dglsim.io/exit-code", "0"}, {"dglsim.io/exit-code.b", "4"},
                        {"dglsim.io/duration.b", "3s"}});
  pod["spec"]["containers"].push_back({{"name", "b"}, {"image", "busybox:1.36"}});
  Run(pod);
  sim().RunUntilIdle();
  EXPECT_EQ(Terminated("p", "containerStatuses", 0)["exitCode"], 0);
  EXPECT_EQ(Terminated("p", "containerStatuses", 1)["exitCode"], 4);
  EXPECT_EQ(Terminated("p", "containerStatuses", 1)["finishedAt"],
            kube::FormatTime(kube::ManualClock::kDefaultStart + 4 * kSecond));
  EXPECT_EQ(Phase("p"), "Failed");
}

TEST_F(ProgramTest, AnUnknownProgramFailsToStartWithStartError) {
  Run(SimplePod("p", {{"name", "main"}}, {{"dglsim.io/program", "no-such-model"}}));
  sim().RunUntilIdle();
  EXPECT_EQ(Terminated("p")["reason"], "StartError");
  EXPECT_EQ(Terminated("p")["exitCode"], 128);
}

TEST_F(ProgramTest, KubectlDownloadCopiesTheBinaryQuicklyAndExitsZero) {
  json pod = SimplePod("p", {{"name", "main"}, {"dglsim.io/duration", "infinity"}});
  pod["metadata"]["annotations"]["dglsim.io/duration"] = "infinity";
  pod["spec"]["initContainers"] = {{{"name", "kubectl-download"},
                                    {"image", "dgloperator/kubectl-download:latest"},
                                    {"volumeMounts", {{{"name", "kube-volume"}, {"mountPath", "/opt/kube"}}}}}};
  pod["spec"]["volumes"] = {{{"name", "kube-volume"}, {"emptyDir", json::object()}}};
  Run(pod);
  sim().RunUntil(10 * kSecond);
  json t = Terminated("p", "initContainerStatuses");
  EXPECT_EQ(t["exitCode"], 0);
  EXPECT_EQ(t["finishedAt"], kube::FormatTime(kube::ManualClock::kDefaultStart + kSecond));  // 0.3 s copy
  EXPECT_EQ(kubelet_->Volume("default", "p", "kube-volume")->Read("kubectl"), kKubectlBinaryBytes);
}

// A launcher-like pod whose watcher-loop init container watches the pods named in `file`.
json WatcherPod(const std::string& name, const std::string& mode, const std::string& file) {
  json watcher = {{"name", "watcher-loop"},
                  {"image", "dgloperator/watcher-loop:latest"},
                  {"env", {{{"name", "WATCHERFILE"}, {"value", "/etc/dgl/" + file}}, {{"name", "WATCHERMODE"}, {"value", mode}}}},
                  {"volumeMounts", {{{"name", "config-volume"}, {"mountPath", "/etc/dgl"}}}}};
  json pod = SimplePod(name, {{"name", "main"}}, {{"dglsim.io/duration.main", "infinity"}});
  pod["spec"]["initContainers"] = json::array({watcher});
  pod["spec"]["volumes"] = {{{"name", "config-volume"},
                             {"configMap",
                              {{"name", "job-config"},
                               {"items", {{{"key", "hostfile"}, {"path", "hostfile"}}, {{"key", "partfile"}, {"path", "partfile"}}}}}}}};
  return pod;
}

void CreateConfig(Simulation& sim, const std::string& hostfile, const std::string& partfile) {
  ASSERT_TRUE(sim.store()
                  .Create("configmaps", json{{"metadata", {{"name", "job-config"}, {"namespace", "default"}}},
                                             {"data", {{"hostfile", hostfile}, {"partfile", partfile}}}})
                  .ok());
}

TEST_F(ProgramTest, WatcherLoopReadyExitsWhenEveryHostfilePodIsRunning) {
  CreateConfig(sim(), "10.0.0.1 30050 job-worker-0 slots=1\n10.0.0.2 30050 job-worker-1 slots=1\n10.0.0.3 30050 job-launcher slots=1\n", "");
  Run(WatcherPod("job-launcher", "ready", "hostfile"));
  json worker = {{"name", "main"}};
  Run(SimplePod("job-worker-0", worker, {{"dglsim.io/duration", "infinity"}}), 10 * kSecond);
  Run(SimplePod("job-worker-1", worker, {{"dglsim.io/duration", "infinity"}}), 20 * kSecond);
  sim().RunUntil(15 * kSecond);
  EXPECT_EQ(Status("job-launcher")["initContainerStatuses"][0]["state"].contains("running"), true);
  sim().RunUntil(30 * kSecond);
  json t = Terminated("job-launcher", "initContainerStatuses");
  EXPECT_EQ(t["exitCode"], 0);
  // worker-1 is bound at 20 s and Running at 21 s (sandbox); the watcher sees it at once.
  EXPECT_EQ(t["finishedAt"], kube::FormatTime(kube::ManualClock::kDefaultStart + 21 * kSecond));
  EXPECT_EQ(Phase("job-launcher"), "Running");
}

TEST_F(ProgramTest, WatcherLoopFinishedExitsWhenThePartitionerSucceeds) {
  CreateConfig(sim(), "", "10.0.0.9 30050 job-partitioner\n");
  Run(SimplePod("job-partitioner", {{"name", "main"}}, {{"dglsim.io/duration", "60s"}}));
  Run(WatcherPod("job-launcher", "finished", "partfile"));
  sim().RunUntilIdle();
  json t = Terminated("job-launcher", "initContainerStatuses");
  EXPECT_EQ(t["exitCode"], 0);
  EXPECT_EQ(t["finishedAt"], kube::FormatTime(kube::ManualClock::kDefaultStart + 61 * kSecond));
}

TEST_F(ProgramTest, WatcherLoopWaitsForeverOnAFailedPod) {
  CreateConfig(sim(), "", "10.0.0.9 30050 job-partitioner\n");
  Run(SimplePod("job-partitioner", {{"name", "main"}}, {{"dglsim.io/exit-code", "1"}}));
  Run(WatcherPod("job-launcher", "finished", "partfile"));
  sim().RunUntil(7 * 24 * kHour);
  EXPECT_EQ(Phase("job-partitioner"), "Failed");
  EXPECT_EQ(Phase("job-launcher"), "Pending");
  EXPECT_TRUE(Status("job-launcher")["initContainerStatuses"][0]["state"].contains("running"));
}

TEST_F(ProgramTest, WatcherLoopReadsItsFileOnceAtStartAndAnEmptyFileExitsAtOnce) {
  CreateConfig(sim(), "", "");  // the operator has not filled it in yet
  Run(WatcherPod("job-launcher", "ready", "hostfile"));
  sim().engine().ScheduleAt(500 * kMillisecond, [&] {
    sim().store().Patch("configmaps", "default", "job-config",
                        json{{"data", {{"hostfile", "10.0.0.1 30050 job-worker-0 slots=1\n"}}}});
  });
  sim().RunUntil(5 * kSecond);
  // The file was read when the watcher started (1 s), after the update: it waits for worker-0.
  EXPECT_TRUE(Status("job-launcher")["initContainerStatuses"][0]["state"].contains("running"));

  // A watcher that starts before the update sees an empty file and exits at once (the race of
  // the original operator's issues #22 and #24).
  sim().store().Delete("pods", "default", "job-launcher", {.grace_period_seconds = 0});
  sim().store().Patch("configmaps", "default", "job-config", json{{"data", {{"hostfile", ""}}}});
  Run(WatcherPod("early", "ready", "hostfile"), 10 * kSecond);
  sim().engine().ScheduleAt(12 * kSecond, [&] {
    sim().store().Patch("configmaps", "default", "job-config",
                        json{{"data", {{"hostfile", "10.0.0.1 30050 job-worker-0 slots=1\n"}}}});
  });
  sim().RunUntil(20 * kSecond);
  EXPECT_EQ(Terminated("early", "initContainerStatuses")["exitCode"], 0);
  EXPECT_EQ(Phase("early"), "Running");
}

}  // namespace
}  // namespace sim
