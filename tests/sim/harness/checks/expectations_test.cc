// Every expectation kind judged against a run record: each one passing where it should and failing,
// with a detail, where it should. Records are built by hand; one test judges a real run.
#include "sim/harness/checks/expectations.h"

#include "tests/sim/harness/harness_test_util.h"

#include <gtest/gtest.h>

namespace harness {
namespace {

constexpr Micros kS = kube::kSecond;

RunRecord Record() {
  RunRecord r;
  JobRecord job;
  job.key = {"default", "big"};
  job.submitted = 0;
  job.completed = 3600 * kS;
  job.phases = {{"Pending", 0}, {"Partitioning", 10 * kS}, {"Partitioned", 100 * kS}, {"Training", 110 * kS},
                {"Restarting", 500 * kS}, {"Training", 600 * kS}, {"Succeeded", 3600 * kS}};
  job.phase = "Succeeded";
  job.restarts = 1;
  job.conditions = kube::Json::array({{{"type", "Succeeded"}, {"status", "True"}, {"reason", "JobSucceeded"}},
                                          {{"type", "Restarting"}, {"status", "False"}, {"reason", "WorkerFailed"}}});
  r.jobs[job.key] = job;
  r.job_order.push_back(job.key);
  r.config_maps["default/big-config"] = {{"ipconfig", "10.0.0.1 30050 1 big-worker-0 8\n10.0.0.2 30050 1 big-worker-1 8\n"}};
  r.pod_counts[0] = 0;
  return r;
}

ExpectationSpec JobSpec(ExpectKind kind) {
  ExpectationSpec e;
  e.kind = kind;
  e.job = JobKey{"default", "big"};
  return e;
}

ExpectationResult Eval(const ExpectationSpec& e, const RunRecord& r = Record(), std::size_t index = 0) {
  return EvaluateExpectation(e, index, r);
}

TEST(ExpectationTest, Phase) {
  auto e = JobSpec(ExpectKind::kPhase);
  e.phase = "Succeeded";
  EXPECT_TRUE(Eval(e).passed);
  e.phase = "Failed";
  auto r = Eval(e);
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.detail.find("phase is Succeeded"), std::string::npos) << r.detail;
}

TEST(ExpectationTest, PhasesInOrderWithOthersBetween) {
  auto e = JobSpec(ExpectKind::kPhases);
  e.phases = {"Pending", "Training", "Restarting", "Succeeded"};
  EXPECT_TRUE(Eval(e).passed);
  e.phases = {"Training", "Partitioning"};
  auto r = Eval(e);
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.detail.find("never reached Partitioning"), std::string::npos) << r.detail;
}

TEST(ExpectationTest, ConditionAndReason) {
  auto e = JobSpec(ExpectKind::kCondition);
  e.condition = "Succeeded";
  EXPECT_TRUE(Eval(e).passed);
  e.reason = "JobSucceeded";
  EXPECT_TRUE(Eval(e).passed);
  e.reason = "Other";
  EXPECT_FALSE(Eval(e).passed);
  e.condition = "Restarting";
  e.reason = "";
  auto r = Eval(e);  // status False, expected True
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.detail.find("status False"), std::string::npos) << r.detail;
  e.condition = "Failed";
  EXPECT_EQ(Eval(e).detail, "no condition Failed");
}

TEST(ExpectationTest, Within) {
  auto e = JobSpec(ExpectKind::kWithin);
  e.within = 2 * 3600 * kS;
  EXPECT_TRUE(Eval(e).passed);
  e.within = 30 * 60 * kS;
  auto r = Eval(e);
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.detail.find("took 1h"), std::string::npos) << r.detail;
  RunRecord unfinished = Record();
  unfinished.jobs.begin()->second.completed.reset();
  e.within = 2 * 3600 * kS;
  EXPECT_FALSE(Eval(e, unfinished).passed);
}

TEST(ExpectationTest, Restarts) {
  auto e = JobSpec(ExpectKind::kRestarts);
  e.restarts = 1;
  EXPECT_TRUE(Eval(e).passed);
  e.restarts = 0;
  EXPECT_EQ(Eval(e).detail, "restarts 1");
}

TEST(ExpectationTest, AJobNeverSubmittedFails) {
  auto e = JobSpec(ExpectKind::kPhase);
  e.job = JobKey{"default", "nobody"};
  e.phase = "Succeeded";
  auto r = Eval(e);
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.detail.find("never submitted"), std::string::npos);
}

TEST(ExpectationTest, ConfigMapLinesAndLineMatches) {
  ExpectationSpec e;
  e.kind = ExpectKind::kConfigMapLines;
  e.config_map = JobKey{"default", "big-config"};
  e.key = "ipconfig";
  e.lines = 2;
  EXPECT_TRUE(Eval(e).passed);
  e.lines = 8;
  EXPECT_EQ(Eval(e).detail, "2 lines");
  e.kind = ExpectKind::kConfigMapLine;
  e.line = 1;
  std::string error;
  e.matcher = LineRegex::Compile(R"(^\S+ 30050 1 big-worker-1 8$)", &error);
  EXPECT_TRUE(Eval(e).passed);
  e.matcher = LineRegex::Compile(R"(^\S+ 30050 1 big-worker-3 8$)", &error);
  auto r = Eval(e);
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.detail.find("big-worker-1"), std::string::npos) << r.detail;
  e.line = 5;
  EXPECT_FALSE(Eval(e).passed);
  e.key = "hostfile";
  EXPECT_NE(Eval(e).detail.find("no key hostfile"), std::string::npos);
  e.config_map = JobKey{"default", "other"};
  EXPECT_NE(Eval(e).detail.find("no ConfigMap"), std::string::npos);
}

TEST(ExpectationTest, BreakdownAndPeakMemoryFailWhenTheJobRecordedNone) {
  auto e = JobSpec(ExpectKind::kBreakdown);
  e.stage = "partition";
  auto r = Eval(e);
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.detail, "no partition stage was recorded for the job");
  e = JobSpec(ExpectKind::kPeakMemory);
  e.memory_role = "partitioner";
  r = Eval(e);
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.detail, "no memory use of a partitioner was recorded");
}

TEST(ExpectationTest, PodCount) {
  ExpectationSpec e;
  e.kind = ExpectKind::kPodCount;
  e.pods_selector = "training.kubeflow.org/job-name=big";
  e.count = 0;
  EXPECT_TRUE(Eval(e, Record(), 0).passed);
  e.count = 3;
  EXPECT_EQ(Eval(e, Record(), 0).detail, "0 pods");
  EXPECT_FALSE(Eval(e, Record(), 7).passed);  // never counted
}

TEST(ExpectationTest, Invariants) {
  ExpectationSpec e;
  e.kind = ExpectKind::kInvariants;
  for (const InvariantInfo& i : Invariants()) e.invariants.emplace_back(i.name);
  auto ok = Eval(e);
  EXPECT_TRUE(ok.passed);
  EXPECT_EQ(ok.detail, "") << ok.detail;  // every invariant is checked: nothing "not implemented"
  RunRecord bad = Record();
  bad.invariant_violations.push_back({"nodeNotOvercommitted", 5 * kS, "node n-0 over-committed on nvidia.com/gpu"});
  auto r = Eval(e, bad);
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.detail.find("over-committed"), std::string::npos) << r.detail;
  bad.invariant_violations = {{"jobsTerminalOrProgressing", 5 * kS, "job default/big ended the run in phase Training"}};
  EXPECT_FALSE(Eval(e, bad).passed);
  // Only the named invariants count.
  e.invariants = {"phasesMoveForward"};
  EXPECT_TRUE(Eval(e, bad).passed);
}

TEST(ExpectationTest, EveryKindOnARealRun) {
  Scenario s = testing::Load(testing::SmallScenario("",
      "  - {job: j, phase: Succeeded}\n"
      "  - {job: j, phases: [Pending, Partitioning, Partitioned, Training, Succeeded]}\n"
      "  - {job: j, condition: Succeeded}\n"
      "  - {job: j, within: 1h}\n"
      "  - {job: j, restarts: 0}\n"
      "  - {configMap: default/j-config, key: ipconfig, lines: 2}\n"
      "  - {configMap: default/j-config, key: ipconfig, line: 1, matches: 'j-worker-1'}\n"
      "  - {pods: {namespace: default, selector: \"training.kubeflow.org/job-name=j,training.kubeflow.org/replica-type=partitioner\"}, count: 1, at: 2s}\n"
      "  - {invariants: all}\n"
      "  - {job: j, phase: Failed}\n"
      "  - {job: j, within: 5m}\n"));
  RunRecord r = RunScenario(s);
  auto results = EvaluateExpectations(s, r);
  ASSERT_EQ(results.size(), 11u);
  for (std::size_t i = 0; i + 2 < results.size(); ++i)
    EXPECT_TRUE(results[i].passed) << results[i].text << ": " << results[i].detail;
  EXPECT_FALSE(results[9].passed);
  EXPECT_FALSE(results[10].passed);
}

}  // namespace
}  // namespace harness
