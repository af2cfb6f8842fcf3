// The invariants the harness checks while a run goes: each one fires where it should (a pod bound
// to a NotReady node through the store, a synthetic feed of workload stages, writes of our own
// scheduled into a run) and stays quiet on a clean run.
#include "tests/sim/harness/harness_test_util.h"

#include "clock/clock.h"
#include "sim/cluster/simulation.h"
#include "sim/harness/report/report.h"
#include "sim/harness/run/invariants.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <utility>
#include <vector>

namespace harness {
namespace {

using kube::kSecond;
using json = kube::Json;

std::vector<std::string> Details(const RunRecord& r, const std::string& name) {
  std::vector<std::string> out;
  for (const auto& v : r.invariant_violations)
    if (v.name == name) out.push_back(v.detail);
  return out;
}

// ---- noPodOnNotReadyNode: a Simulation built by hand, pods bound through the store -------------

class NotReadyNodeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    sim_.store().Create("namespaces", {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "default"}}}});
    checker_ = &sim_.AddActor<InvariantChecker>(record_);
    sim_.Start();
  }

  void AddNode(const std::string& name, const std::string& ready) {
    ASSERT_TRUE(sim_.store().Create("nodes", {{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", {{"name", name}}}}).ok());
    SetReady(name, ready);
  }
  void SetReady(const std::string& name, const std::string& ready) {
    json status = {{"status", {{"conditions", json::array({{{"type", "Ready"}, {"status", ready}}})}}}};
    ASSERT_TRUE(sim_.store().Patch("nodes", "", name, status, kube::PatchType::kMerge, "status").ok());
  }
  void AddPod(const std::string& name, const std::string& node) {
    json pod = {{"apiVersion", "v1"},
                {"kind", "Pod"},
                {"metadata", {{"name", name}, {"namespace", "default"}}},
                {"spec", {{"containers", json::array({{{"name", "c"}, {"image", "i"}}})}}}};
    if (!node.empty()) pod["spec"]["nodeName"] = node;
    ASSERT_TRUE(sim_.store().Create("pods", pod).ok());
  }
  // As the scheduler binds: a Binding for the pods/binding subresource.
  void Bind(const std::string& pod, const std::string& node) {
    json binding = {{"apiVersion", "v1"},
                    {"kind", "Binding"},
                    {"metadata", {{"name", pod}, {"namespace", "default"}}},
                    {"target", {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", node}}}};
    ASSERT_TRUE(sim_.store().Create("pods/binding", binding, "default").ok());
  }
  void Run() { sim_.RunUntil(sim_.Now() + kSecond); }

  sim::Simulation sim_;
  RunRecord record_;
  InvariantChecker* checker_ = nullptr;
};

TEST_F(NotReadyNodeTest, APodBoundToANotReadyNodeViolatesTheInvariant) {
  AddNode("up", "True");
  AddNode("down", "False");
  Run();
  AddPod("fine", "up");
  AddPod("doomed", "down");
  Run();
  EXPECT_EQ(record_.invariant_checks["noPodOnNotReadyNode"], 2);
  EXPECT_EQ(Details(record_, "noPodOnNotReadyNode"),
            std::vector<std::string>{"pod default/doomed was bound to node down while its Ready condition is False"});
  ASSERT_EQ(record_.invariant_violations.size(), 1u);
  EXPECT_EQ(record_.invariant_violations[0].at, sim_.Now() - kSecond + sim_.options().watch_latency);
}

TEST_F(NotReadyNodeTest, BindingLaterThroughTheStoreIsCheckedOnceAndUnknownNodesCount) {
  AddNode("flaky", "Unknown");
  AddPod("waiting", "");
  Run();
  EXPECT_EQ(record_.invariant_checks["noPodOnNotReadyNode"], 0);  // unbound: nothing to check
  Bind("waiting", "flaky");
  AddPod("lost", "nosuch");
  Run();
  EXPECT_EQ(Details(record_, "noPodOnNotReadyNode"),
            (std::vector<std::string>{"pod default/waiting was bound to node flaky while its Ready condition is Unknown",
                                      "pod default/lost was bound to node nosuch, which does not exist"}));
  // Later updates of an already bound pod are not new bindings.
  ASSERT_TRUE(sim_.store().Patch("pods", "default", "waiting", {{"metadata", {{"labels", {{"a", "b"}}}}}}).ok());
  Run();
  EXPECT_EQ(record_.invariant_checks["noPodOnNotReadyNode"], 2);
}

TEST_F(NotReadyNodeTest, ADeletedPodLeavesNothingBehindInTheChecker) {
  AddNode("up", "True");
  AddPod("finished", "up");
  AddPod("running", "up");
  Run();
  ASSERT_TRUE(sim_.store().Patch("pods", "default", "finished", {{"status", {{"phase", "Succeeded"}}}},
                                 kube::PatchType::kMerge, "status").ok());
  Run();
  EXPECT_EQ(checker_->PodsTracked(), 2u);
  kube::DeleteOptions now;
  now.grace_period_seconds = 0;
  ASSERT_TRUE(sim_.store().Delete("pods", "default", "finished", now).ok());
  Run();
  EXPECT_EQ(checker_->PodsTracked(), 1u);
  ASSERT_TRUE(sim_.store().Delete("pods", "default", "running", now).ok());
  Run();
  EXPECT_EQ(checker_->PodsTracked(), 0u);
  EXPECT_TRUE(record_.invariant_violations.empty());
}

TEST_F(NotReadyNodeTest, ANodeThatGoesNotReadyAfterItsPodsWereBoundIsNoViolation) {
  AddNode("n", "True");
  Run();
  AddPod("early", "n");
  SetReady("n", "False");  // written after the bind: seen after it too
  Run();
  EXPECT_TRUE(record_.invariant_violations.empty());
  SetReady("n", "True");
  Run();
  AddPod("after-recovery", "n");
  Run();
  EXPECT_TRUE(record_.invariant_violations.empty());
  EXPECT_EQ(record_.invariant_checks["noPodOnNotReadyNode"], 2);
}

// ---- noTrainingBeforePartition: a synthetic feed of workload stages ------------------------------

class TrainingBeforePartitionTest : public ::testing::Test {
 protected:
  TrainingBeforePartitionTest() : checker_(sim_.AddActor<InvariantChecker>(record_)) {
    SetMode("j", "DGL-API");
  }
  void SetMode(const std::string& job, const std::string& mode) { record_.jobs[JobKey{"default", job}].partition_mode = mode; }
  json Pod(const std::string& job, const std::string& name, const std::string& role, Micros created) {
    return {{"metadata",
             {{"name", name},
              {"namespace", "default"},
              {"creationTimestamp", kube::FormatTime(sim_.engine().epoch() + created)},
              {"labels", {{"training.kubeflow.org/job-name", job}, {"training.kubeflow.org/replica-type", role}}}}}};
  }
  std::size_t Violations() { return Details(record_, "noTrainingBeforePartition").size(); }

  sim::Simulation sim_;
  RunRecord record_;
  InvariantChecker& checker_;
};

TEST_F(TrainingBeforePartitionTest, LoadOrTrainingBeforeTheDispatchEndedFires) {
  json launcher = Pod("j", "j-launcher", "launcher", 0), worker = Pod("j", "j-worker-0", "worker", 0);
  checker_.OnStage(worker, "load", 10 * kSecond, 20 * kSecond);  // nothing delivered yet
  ASSERT_EQ(Violations(), 1u);
  EXPECT_EQ(Details(record_, "noTrainingBeforePartition")[0],
            "worker default/j-worker-0 began load at 10s before job default/j's partitions reached it (none was delivered)");
  checker_.OnStage(launcher, "dispatch", 30 * kSecond, 40 * kSecond);
  checker_.OnStage(worker, "training", 35 * kSecond, 50 * kSecond);  // while the dispatch still ran
  EXPECT_EQ(Violations(), 2u);
  checker_.OnStage(worker, "load", 40 * kSecond, 45 * kSecond);
  checker_.OnStage(launcher, "training", 45 * kSecond, 90 * kSecond);
  checker_.OnStage(worker, "imagePull", 0, 5 * kSecond);  // not a stage that needs partitions
  EXPECT_EQ(Violations(), 2u);
  EXPECT_EQ(record_.invariant_checks["noTrainingBeforePartition"], 4);
}

TEST_F(TrainingBeforePartitionTest, ARestartedPodNeedsADeliveryMadeAfterItWasCreated) {
  checker_.OnStage(Pod("j", "j-launcher", "launcher", 0), "dispatch", 30 * kSecond, 40 * kSecond);
  json again = Pod("j", "j-worker-0", "worker", 100 * kSecond);  // recreated by a restart
  checker_.OnStage(again, "load", 120 * kSecond, 130 * kSecond);
  EXPECT_EQ(Violations(), 1u);
  checker_.OnStage(Pod("j", "j-launcher", "launcher", 100 * kSecond), "dispatch", 140 * kSecond, 150 * kSecond);
  checker_.OnStage(again, "load", 150 * kSecond, 160 * kSecond);
  EXPECT_EQ(Violations(), 1u);
}

TEST_F(TrainingBeforePartitionTest, SkipJobsAreExemptAndMspPartitionsInPlace) {
  SetMode("alone", "Skip");
  checker_.OnStage(Pod("alone", "alone-launcher", "launcher", 0), "training", 0, 10 * kSecond);
  SetMode("msp", "DistParMETIS");
  json worker = Pod("msp", "msp-worker-1", "worker", 0);
  checker_.OnStage(Pod("msp", "msp-launcher", "launcher", 0), "partition", 5 * kSecond, 20 * kSecond);
  checker_.OnStage(worker, "load", 20 * kSecond, 30 * kSecond);
  // In DGL-API a partition that ended is not yet a delivery: the launcher must dispatch it.
  checker_.OnStage(Pod("j", "j-partitioner", "partitioner", 0), "partition", 5 * kSecond, 20 * kSecond);
  checker_.OnStage(Pod("j", "j-worker-0", "worker", 0), "load", 25 * kSecond, 30 * kSecond);
  EXPECT_EQ(Violations(), 1u);
  EXPECT_EQ(record_.invariant_checks["noTrainingBeforePartition"], 2);
  // Pods of no job are not checked.
  checker_.OnStage({{"metadata", {{"name", "stray"}, {"namespace", "default"}}}}, "training", 0, kSecond);
  EXPECT_EQ(record_.invariant_checks["noTrainingBeforePartition"], 2);
}

// ---- the invariants of the job watch, made to fire by writes of our own in a run -----------------

// The small scenario without the operator: only the writes the test schedules move the job.
Scenario WithoutOperator(const std::string& expect, const std::string& actions = "") {
  std::string text = testing::SmallScenario("", expect);
  text.insert(text.find("jobs:"), "operator: {enabled: false}\n");
  if (!actions.empty()) text.insert(text.find("expect:"), actions);
  return testing::Load(text);
}

void SetPhaseAt(sim::Simulation& sim, Micros at, const std::string& phase) {
  sim.engine().ScheduleAt(at, [&sim, phase] {
    auto r = sim.store().Patch("dgljobs", "default", "j", {{"status", {{"phase", phase}}}}, kube::PatchType::kMerge, "status");
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  });
}

// Runs `s` with the job's status.phase written at the given times (seconds).
RunRecord RunWithPhases(const Scenario& s, std::vector<std::pair<int, std::string>> phases) {
  RunOptions options;
  options.before_start = [phases](sim::Simulation& sim) {
    for (const auto& [at, phase] : phases) SetPhaseAt(sim, at * kSecond, phase);
  };
  return RunScenario(s, options);
}

TEST(HarnessInvariantsTest, APhaseThatGoesBackwardsViolatesPhasesMoveForward) {
  Scenario s = WithoutOperator("  - {invariants: [phasesMoveForward]}\n");
  RunRecord r = RunWithPhases(s, {{10, "Training"}, {20, "Partitioning"}});
  EXPECT_EQ(Details(r, "phasesMoveForward"), std::vector<std::string>{"job default/j went from Training to Partitioning"});
  auto results = EvaluateExpectations(s, r);
  EXPECT_FALSE(results[0].passed);
  EXPECT_NE(results[0].detail.find("phasesMoveForward: job default/j went from Training to Partitioning"), std::string::npos)
      << results[0].detail;
}

TEST(HarnessInvariantsTest, RestartingIsTheWayBack) {
  Scenario s = WithoutOperator("  - {invariants: [phasesMoveForward]}\n");
  RunRecord r = RunWithPhases(s, {{10, "Training"}, {20, "Restarting"}, {30, "Partitioning"}});
  EXPECT_TRUE(Details(r, "phasesMoveForward").empty());
  EXPECT_EQ(r.invariant_checks["phasesMoveForward"], 3);
}

TEST(HarnessInvariantsTest, SucceededWithoutALauncherExitingZeroIsAViolation) {
  Scenario s = WithoutOperator("  - {invariants: [succeededOnlyIfLauncherSucceeded]}\n");
  RunRecord r = RunWithPhases(s, {{10, "Succeeded"}});
  EXPECT_EQ(Details(r, "succeededOnlyIfLauncherSucceeded"),
            std::vector<std::string>{"job default/j Succeeded but no launcher of it was seen exiting 0"});
  EXPECT_FALSE(EvaluateExpectations(s, r)[0].passed);
  // The JSON report carries it with its time.
  json report = ReportJson(r, EvaluateExpectations(s, r));
  ASSERT_EQ(report["invariantViolations"].size(), 1u);
  EXPECT_EQ(report["invariantViolations"][0]["invariant"], "succeededOnlyIfLauncherSucceeded");
  EXPECT_GE(report["invariantViolations"][0]["at"].get<double>(), 10.0);
  EXPECT_LT(report["invariantViolations"][0]["at"].get<double>(), 11.0);
}

TEST(HarnessInvariantsTest, ObjectsADeletedJobLeavesBehindAreViolations) {
  // A ConfigMap and a pod that carry the job's name but no ownerReference: GC cannot find them.
  Scenario s = WithoutOperator("  - {invariants: [noObjectsAfterDelete]}\n", "  - {at: 1m, delete: j}\n");
  RunOptions options;
  options.before_start = [](sim::Simulation& sim) {
    sim.engine().ScheduleAt(5 * kSecond, [&sim] {
      sim.store().Create("configmaps", {{"apiVersion", "v1"}, {"kind", "ConfigMap"},
                                        {"metadata", {{"name", "j-config"}, {"namespace", "default"}}}});
      sim.store().Create("pods", {{"apiVersion", "v1"},
                                  {"kind", "Pod"},
                                  {"metadata", {{"name", "orphan"}, {"namespace", "default"},
                                                {"labels", {{"training.kubeflow.org/job-name", "j"}}}}},
                                  {"spec", {{"containers", json::array({{{"name", "c"}, {"image", "i"}}})}}}});
    });
  };
  RunRecord r = RunScenario(s, options);
  EXPECT_EQ(Details(r, "noObjectsAfterDelete"),
            std::vector<std::string>{"job default/j was deleted but pod orphan, configmap j-config remain"});
  EXPECT_FALSE(EvaluateExpectations(s, r)[0].passed);
}

TEST(HarnessInvariantsTest, ACleanRunChecksEveryInvariantAndViolatesNone) {
  Scenario s = testing::Load(testing::SmallScenario("", "  - {invariants: all}\n"));
  RunRecord r = RunScenario(s);
  EXPECT_TRUE(r.invariant_violations.empty());
  for (const char* name : {"nodeNotOvercommitted", "noPodOnNotReadyNode", "succeededOnlyIfLauncherSucceeded", "phasesMoveForward",
                           "resourceVersionsIncrease", "jobsTerminalOrProgressing"})
    EXPECT_GT(r.invariant_checks[name], 0) << name;
  auto results = EvaluateExpectations(s, r);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_TRUE(results[0].passed) << results[0].detail;
  EXPECT_EQ(results[0].detail, "");  // every invariant is implemented: nothing to note
}

// A node lost for good under a running job: its pods are evicted and the job restarts elsewhere;
// the scheduler never binds anything to the NotReady node while it is down.
TEST(HarnessInvariantsTest, NothingIsBoundToANodeWhileItIsNotReady) {
  Scenario s = testing::Load(testing::SmallScenario(
      "  - {when: {job: j, phase: Training}, after: 1m, kind: NodeDown, nodeOf: default/j-worker-0}\n",
      "  - {invariants: [noPodOnNotReadyNode]}\n"));
  RunRecord r = RunScenario(s);
  EXPECT_TRUE(Details(r, "noPodOnNotReadyNode").empty());
  EXPECT_GT(r.invariant_checks["noPodOnNotReadyNode"], 4);  // the restart bound new pods
  EXPECT_GE(r.jobs.at(JobKey{"default", "j"}).restarts, 1);
}

}  // namespace
}  // namespace harness
