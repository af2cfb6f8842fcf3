// Every fault kind of a scenario, applied by the FaultInjector to a real run, and its effect on a
// small DGL-API job (harness_test_util.h): node loss, killed and OOMKilled containers, operator
// restarts, API faults, watch drops, image pull errors; and Kubelet::KillContainer itself.
#include "sim/harness/run/faults.h"

#include "sim/cluster/kubelet.h"
#include "sim/harness/report/report.h"
#include "tests/sim/harness/harness_test_util.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace harness {
namespace {

using testing::Load;
using testing::SmallScenario;
using testing::Timeline;

constexpr Micros kOneSecond = kube::kSecond;

RunRecord RunWith(const std::string& faults, const std::string& expect = "") {
  Scenario s = Load(SmallScenario(faults, expect));
  return RunScenario(s);
}

const JobRecord& J(const RunRecord& r) { return r.jobs.at(JobKey{"default", "j"}); }

std::optional<Micros> FirstPhaseAt(const JobRecord& job, const std::string& phase, Micros after = 0) {
  for (const auto& p : job.phases)
    if (p.phase == phase && p.at >= after) return p.at;
  return std::nullopt;
}

std::optional<Micros> FaultTime(const RunRecord& r, const std::string& phase) {
  for (const auto& p : J(r).phases)
    if (p.phase == phase) return p.at;
  return std::nullopt;
}

bool LogHas(const RunRecord& r, const std::string& text) {
  return std::any_of(r.fault_log.begin(), r.fault_log.end(),
                     [&](const std::string& line) { return line.find(text) != std::string::npos; });
}

std::string Describe(const RunRecord& r) {
  std::string out = Timeline(J(r)) + "\n";
  for (const auto& f : r.fault_log) out += "fault " + f + "\n";
  for (const auto& v : r.invariant_violations) out += "violation " + v.name + ": " + v.detail + "\n";
  return out;
}

TEST(FaultsTest, ACleanRunSucceeds) {
  RunRecord r = RunWith("");
  EXPECT_EQ(J(r).phase, "Succeeded") << Describe(r);
  EXPECT_TRUE(r.fault_log.empty());
}

TEST(FaultsTest, NodeDownDuringTrainingLosesItsPodsWhenTheNodeIsMarkedNotReadyAndTheJobRestarts) {
  RunRecord r = RunWith("  - {when: {job: default/j, phase: Training}, after: 1m, kind: NodeDown, nodeOf: default/j-worker-0}\n");
  const JobRecord& job = J(r);
  ASSERT_TRUE(LogHas(r, "NodeDown n-")) << Describe(r);
  auto training = FaultTime(r, "Training");
  ASSERT_TRUE(training);
  Micros down = *training + 60 * kOneSecond;
  // The worker's pod still reads Running until the node lifecycle controller marks its node
  // NotReady (nodeMonitorGracePeriod, 50 s); from then on the operator judges it lost, without
  // waiting for the taint manager's eviction 300 s later.
  auto reaction = std::min(FirstPhaseAt(job, "Restarting", down).value_or(INT64_MAX),
                           FirstPhaseAt(job, "Failed", down).value_or(INT64_MAX));
  ASSERT_NE(reaction, INT64_MAX) << Describe(r);
  EXPECT_GE(reaction - down, 40 * kOneSecond) << Describe(r);
  EXPECT_LT(reaction - down, 120 * kOneSecond) << Describe(r);
  EXPECT_EQ(job.phase, "Succeeded") << Describe(r);
  EXPECT_EQ(job.restarts, 1) << Describe(r);
}

// The small scenario with its pods pinned (cluster.scheduler.placements): the partitioner and the
// launcher on n-1, worker 0 on n-2, worker 1 on n-0, their first incarnations only.
RunRecord RunPinned(const std::string& faults) {
  std::string text = SmallScenario(faults, "");
  const std::string images = "  images: {defaultSize: 1G}\n";
  text.replace(text.find(images), images.size(),
               images + "  scheduler:\n    placements:\n"
                        "      - {pod: default/j-partitioner, nodes: [n-1]}\n"
                        "      - {pod: default/j-launcher, nodes: [n-1]}\n"
                        "      - {pod: default/j-worker-0, nodes: [n-2]}\n"
                        "      - {pod: default/j-worker-1, nodes: [n-0]}\n");
  return RunScenario(Load(text));
}

// The pods of `name` the run saw, in the order first seen.
std::vector<const PodRecord*> PodsNamed(const RunRecord& r, const std::string& name) {
  std::vector<const PodRecord*> out;
  for (const PodRecord& p : r.pods)
    if (p.name == name) out.push_back(&p);
  return out;
}

std::string LastConditionReason(const JobRecord& job, const std::string& type) {
  for (const auto& c : job.conditions)
    if (c.value("type", "") == type) return c.value("reason", "");
  return "";
}

TEST(FaultsTest, PlacementsPinTheFirstIncarnationsOfTheNamedPodsToTheirNodes) {
  RunRecord r = RunPinned("");
  ASSERT_EQ(J(r).phase, "Succeeded") << Describe(r);
  for (const auto& [pod, node] : std::vector<std::pair<std::string, std::string>>{
           {"j-partitioner", "n-1"}, {"j-launcher", "n-1"}, {"j-worker-0", "n-2"}, {"j-worker-1", "n-0"}}) {
    auto pods = PodsNamed(r, pod);
    ASSERT_FALSE(pods.empty()) << pod;
    EXPECT_EQ(pods.front()->node, node) << pod;
  }
  // Unpinned, the scheduler puts them elsewhere (LeastAllocated, ties to the name first in order).
  RunRecord free = RunWith("");
  for (const char* pod : {"j-launcher", "j-worker-0", "j-worker-1"})
    EXPECT_NE(PodsNamed(free, pod).front()->node, PodsNamed(r, pod).front()->node)
        << pod << ": the pin proves nothing, the scheduler puts it there anyway";
}

TEST(FaultsTest, NodeDeletedDuringTrainingFailsItsPodsThroughThePodGarbageCollectorAndTheJobRestarts) {
  RunRecord r = RunPinned("  - {when: {job: default/j, phase: Training}, after: 1m, kind: NodeDeleted, nodeOf: default/j-worker-1}\n"
                          "  - {when: {job: default/j, phase: Training}, after: 2m, kind: NodeUp, node: n-0}\n");
  const JobRecord& job = J(r);
  ASSERT_TRUE(LogHas(r, "NodeDeleted n-0")) << Describe(r);
  EXPECT_TRUE(LogHas(r, "NodeUp n-0 skipped: the node was deleted")) << Describe(r);
  auto training = FaultTime(r, "Training");
  ASSERT_TRUE(training);
  const Micros deleted = *training + 60 * kOneSecond;
  // The pod garbage collector's next pass (every 20 s) quarantines the node, the pass 40 s later
  // marks the worker Failed and deletes it: the operator sees a failed worker, not a lost one.
  auto restarting = FirstPhaseAt(job, "Restarting", deleted);
  ASSERT_TRUE(restarting) << Describe(r);
  EXPECT_GE(*restarting - deleted, 40 * kOneSecond) << Describe(r);
  EXPECT_LE(*restarting - deleted, 61 * kOneSecond) << Describe(r);
  EXPECT_EQ(LastConditionReason(job, "Restarting"), "WorkerFailed") << Describe(r);
  auto worker = PodsNamed(r, "j-worker-1");
  ASSERT_GE(worker.size(), 2u) << Describe(r);
  EXPECT_EQ(worker.front()->node, "n-0");
  EXPECT_EQ(worker.front()->phase, "Failed");
  ASSERT_TRUE(worker.front()->deleted) << Describe(r);
  EXPECT_GE(*worker.front()->deleted - deleted, 40 * kOneSecond);
  EXPECT_NE(worker.back()->node, "n-0") << "the restarted worker went to the deleted node";
  // The Node object is gone; the two left hold the job, which succeeds.
  for (const NodeRecord& n : r.node_list) EXPECT_NE(n.name, "n-0");
  EXPECT_EQ(r.node_list.size(), 2u);
  EXPECT_EQ(job.phase, "Succeeded") << Describe(r);
  EXPECT_EQ(job.restarts, 1) << Describe(r);
  EXPECT_TRUE(r.invariant_violations.empty()) << Describe(r);
}

TEST(FaultsTest, NodeDownForAWhileThenUpAgain) {
  RunRecord r = RunWith("  - {at: 30s, kind: NodeDown, node: n-2, for: 2m}\n  - {at: 20m, kind: NodeUp, node: n-2}\n");
  EXPECT_TRUE(LogHas(r, "NodeDown n-2 for 2m")) << Describe(r);
  EXPECT_TRUE(LogHas(r, "NodeUp n-2 (end of NodeDown)")) << Describe(r);
  EXPECT_EQ(J(r).phase, "Succeeded") << Describe(r);
}

TEST(FaultsTest, AWorkerKilledDuringTrainingRestartsTheJobWhichThenSucceeds) {
  RunRecord r = RunWith("  - {when: {job: default/j, phase: Training}, after: 2m, kind: PodKill, pod: default/j-worker-1, exitCode: 137}\n");
  const JobRecord& job = J(r);
  EXPECT_TRUE(LogHas(r, "PodKill default/j-worker-1 exit 137 Error")) << Describe(r);
  auto training = FaultTime(r, "Training");
  ASSERT_TRUE(training);
  EXPECT_TRUE(FirstPhaseAt(job, "Restarting", *training)) << Describe(r);
  EXPECT_EQ(job.phase, "Succeeded") << Describe(r);
  EXPECT_EQ(job.restarts, 1) << Describe(r);
  EXPECT_TRUE(r.invariant_violations.empty()) << Describe(r);
}

TEST(FaultsTest, AnOomKilledWorkerIsRecordedAsOomKilledAndTheJobReacts) {
  RunRecord r = RunWith("  - {when: {job: default/j, phase: Training}, after: 2m, kind: OOM, pod: default/j-worker-0}\n");
  EXPECT_TRUE(LogHas(r, "OOM default/j-worker-0 exit 137 OOMKilled")) << Describe(r);
  const JobRecord& job = J(r);
  EXPECT_TRUE(job.restarts >= 1 || job.phase == "Failed") << Describe(r);
}

TEST(FaultsTest, APodKillOfAMissingPodIsSkippedAndLogged) {
  RunRecord r = RunWith("  - {at: 1s, kind: PodKill, pod: default/j-worker-1}\n");
  EXPECT_TRUE(LogHas(r, "skipped")) << Describe(r);
  EXPECT_EQ(J(r).phase, "Succeeded");
}

TEST(FaultsTest, OperatorRestartAndApiFaultsEndInTheSameFinalPhaseAsACleanRun) {
  RunRecord clean = RunWith("");
  RunRecord faulty = RunWith(
      "  - {at: 0s, kind: ApiFaults, for: 5m, conflictRate: 0.1, errorRate: 0.02}\n"
      "  - {at: 90s, kind: OperatorRestart}\n"
      "  - {when: {job: default/j, phase: Training}, after: 30s, kind: OperatorRestart}\n");
  EXPECT_TRUE(LogHas(faulty, "OperatorRestart")) << Describe(faulty);
  EXPECT_TRUE(LogHas(faulty, "ApiFaults end")) << Describe(faulty);
  EXPECT_EQ(J(faulty).phase, J(clean).phase) << Describe(faulty);
  EXPECT_EQ(J(faulty).restarts, J(clean).restarts) << Describe(faulty);
  EXPECT_NE(faulty.trace_hash, clean.trace_hash);
}

TEST(FaultsTest, AfterWatchDropsTheJobStillSucceeds) {
  RunRecord r = RunWith("  - {at: 30s, kind: WatchDrop}\n  - {when: {job: default/j, phase: Training}, after: 1m, kind: WatchDrop}\n");
  EXPECT_EQ(std::count_if(r.fault_log.begin(), r.fault_log.end(),
                          [](const std::string& l) { return l.find("WatchDrop") != std::string::npos; }),
            2);
  EXPECT_EQ(J(r).phase, "Succeeded") << Describe(r);
}

TEST(FaultsTest, ImagePullErrorsForAWhileDelayTheJobWhichStillSucceeds) {
  RunRecord clean = RunWith("");
  RunRecord r = RunWith("  - {at: 0s, kind: ImagePullError, image: \"dgloperator/*\", for: 3m}\n");
  EXPECT_TRUE(LogHas(r, "ImagePullError dgloperator/* ends")) << Describe(r);
  EXPECT_EQ(J(r).phase, "Succeeded") << Describe(r);
  ASSERT_TRUE(J(r).Makespan() && J(clean).Makespan());
  EXPECT_GE(*J(r).Makespan() - *J(clean).Makespan(), 2 * 60 * kOneSecond) << Describe(r);
}

TEST(FaultsTest, ImagePullErrorOnOneNodeFailsPullsThereOnly) {
  RunRecord r = RunWith("  - {at: 0s, kind: ImagePullError, image: \"dgloperator/*\", node: n-1, for: 3m}\n");
  EXPECT_TRUE(LogHas(r, "ImagePullError dgloperator/* on n-1 for 3m")) << Describe(r);
  EXPECT_EQ(J(r).phase, "Succeeded") << Describe(r);
  int on_n1 = 0, elsewhere = 0;
  for (const auto& pod : r.pods)
    for (const auto& stage : pod.stages) {
      if (stage.stage != "imagePull") continue;
      if (pod.node == "n-1") {
        // Refused until the fault ends at 3m: the pull that succeeds starts after it.
        ++on_n1;
        EXPECT_GE(stage.begin, 3 * 60 * kOneSecond) << pod.name;
      } else {
        // 1 GB at 200 MB/s: 5 s, as without the fault.
        ++elsewhere;
        EXPECT_LE(stage.end - stage.begin, 10 * kOneSecond) << pod.name << " on " << pod.node;
      }
    }
  EXPECT_GT(on_n1, 0) << "no pod pulled on n-1: the case proves nothing";
  EXPECT_GT(elsewhere, 0);
}

TEST(FaultsTest, OperatorRestartForKeepsTheOperatorDownThatLong) {
  RunRecord quick = RunWith("  - {at: 30s, kind: OperatorRestart}\n");
  RunRecord slow = RunWith("  - {at: 30s, kind: OperatorRestart, for: 10m}\n");
  EXPECT_TRUE(LogHas(slow, "OperatorRestart down for 10m")) << Describe(slow);
  EXPECT_EQ(J(slow).phase, "Succeeded") << Describe(slow);
  // The pods go on without the operator; what it writes (the job's phases) waits for it: the
  // partitioner is done after about a minute, but nobody says Partitioned before 10m30s.
  auto quick_partitioned = FirstPhaseAt(J(quick), "Partitioned");
  auto slow_partitioned = FirstPhaseAt(J(slow), "Partitioned");
  ASSERT_TRUE(quick_partitioned && slow_partitioned) << Describe(slow);
  EXPECT_LT(*quick_partitioned, 3 * 60 * kOneSecond) << Describe(quick);
  EXPECT_GE(*slow_partitioned, 10 * 60 * kOneSecond + 30 * kOneSecond) << Describe(slow);
}

// The longest imagePull stage any pod of the run reported.
Micros LongestPull(const RunRecord& r) {
  Micros longest = 0;
  for (const auto& pod : r.pods)
    for (const auto& stage : pod.stages)
      if (stage.stage == "imagePull") longest = std::max(longest, stage.end - stage.begin);
  return longest;
}

TEST(FaultsTest, NetworkSlowStretchesImagePullsByOneOverTheFactorAndEndsAfterItsFor) {
  // 1 GB images pulled at 200 MB/s take 5 s; a 100 Gbit NIC at 0.004 carries only 50 MB/s: 20 s.
  RunRecord clean = RunWith("");
  RunRecord slow = RunWith("  - {at: 0s, kind: NetworkSlow, factor: 0.004, for: 5m}\n");
  EXPECT_TRUE(LogHas(slow, "NetworkSlow every node factor 0.004")) << Describe(slow);
  EXPECT_TRUE(LogHas(slow, "NetworkSlow every node ends")) << Describe(slow);
  EXPECT_EQ(LongestPull(clean), 5 * kOneSecond);
  EXPECT_EQ(LongestPull(slow), 20 * kOneSecond);
  EXPECT_EQ(J(slow).phase, "Succeeded") << Describe(slow);
  EXPECT_GT(*J(slow).Makespan(), *J(clean).Makespan());
}

TEST(FaultsTest, NetworkSlowOfOneNodeSlowsOnlyThatNode) {
  RunRecord r = RunWith("  - {at: 0s, kind: NetworkSlow, node: n-0, factor: 0.004}\n");
  EXPECT_TRUE(LogHas(r, "NetworkSlow n-0 factor 0.004")) << Describe(r);
  for (const auto& pod : r.pods)
    for (const auto& stage : pod.stages)
      if (stage.stage == "imagePull") {
        EXPECT_EQ(stage.end - stage.begin, pod.node == "n-0" ? 20 * kOneSecond : 5 * kOneSecond) << pod.name;
      }
}

TEST(FaultsTest, FaultRunsAreDeterministic) {
  std::string faults = "  - {at: 0s, kind: ApiFaults, for: 1h, conflictRate: 0.1}\n"
                       "  - {when: {job: default/j, phase: Training}, after: 2m, kind: PodKill, pod: default/j-worker-1}\n";
  RunRecord a = RunWith(faults), b = RunWith(faults);
  EXPECT_EQ(a.trace_hash, b.trace_hash);
  EXPECT_EQ(a.fault_log, b.fault_log);
}

// Kubelet::KillContainer on its own: a running container ends with the given code and reason.
TEST(FaultsKubeletTest, KillContainerEndsARunningContainer) {
  sim::Simulation simulation({.seed = 1, .watch_latency = 0});
  auto& kubelet = simulation.AddActor<sim::Kubelet>(
      sim::KubeletConfig{.node_name = "n", .host_ip = "10.0.0.1", .default_image_size = 1'000'000, .pod_startup = 0});
  simulation.Start();
  kube::Json pod = {{"metadata", {{"name", "p"}, {"namespace", "default"}, {"annotations", {{"dglsim.io/duration", "1h"}}}}},
                        {"spec", {{"nodeName", "n"}, {"restartPolicy", "Never"},
                                  {"containers", {{{"name", "c"}, {"image", "busybox"}}}}}}};
  ASSERT_TRUE(simulation.store().Create("pods", pod, "default").ok());
  simulation.RunUntil(60 * kOneSecond);
  EXPECT_FALSE(kubelet.KillContainer("default", "missing", "", 137, "Error"));
  EXPECT_FALSE(kubelet.KillContainer("default", "p", "other", 137, "Error"));
  EXPECT_TRUE(kubelet.KillContainer("default", "p", "", 137, "OOMKilled"));
  simulation.RunUntil(61 * kOneSecond);
  auto got = simulation.store().Get("pods", "default", "p");
  ASSERT_TRUE(got.ok());
  const auto& status = (**got)["status"];
  EXPECT_EQ(status["phase"], "Failed") << status.dump();
  EXPECT_EQ(status["containerStatuses"][0]["state"]["terminated"]["exitCode"], 137);
  EXPECT_EQ(status["containerStatuses"][0]["state"]["terminated"]["reason"], "OOMKilled");
  EXPECT_FALSE(kubelet.KillContainer("default", "p", "", 137, "Error"));  // no longer running
}

}  // namespace
}  // namespace harness
