// The harness end to end: every expectation kind seen passing on one run and failing on a run
// where it should; the JSON report's documented fields with their types; determinism of a scenario
// that draws on the seed (three runs, then another seed).
#include "tests/sim/harness/harness_test_util.h"

#include "sim/harness/report/report.h"
#include "sim/harness/config/units.h"

#include <gtest/gtest.h>

namespace harness {
namespace {

using json = kube::Json;

// The small scenario with a partitioner that reports a 5Gi memory peak.
std::string WithPeakMemory(std::string text) {
  const std::string from = "metadata: {annotations: {dglsim.io/duration: 1m}}";
  auto at = text.find(from);
  EXPECT_NE(at, std::string::npos);
  if (at != std::string::npos)
    text.replace(at, from.size(), "metadata: {annotations: {dglsim.io/duration: 1m, dglsim.io/peak-memory: 5Gi}}");
  return text;
}

const char* kPartitioner = "training.kubeflow.org/job-name=j,training.kubeflow.org/replica-type=partitioner";

TEST(HarnessExpectationsTest, EveryKindPassesWhereItHolds) {
  Scenario s = testing::Load(WithPeakMemory(testing::SmallScenario("",
      "  - {job: j, phase: Succeeded}\n"
      "  - {job: j, phases: [Pending, Partitioning, Partitioned, Training, Succeeded]}\n"
      "  - {job: j, condition: Succeeded, reason: LauncherSucceeded}\n"
      "  - {job: j, within: 1h}\n"
      "  - {job: j, restarts: 0}\n"
      "  - {configMap: default/j-config, key: ipconfig, lines: 2}\n"
      "  - {configMap: default/j-config, key: hostfile, line: 1, matches: '^\\S+ 30050 j-worker-1 slots=1$'}\n"
      "  - {job: j, breakdown: imagePull, between: [1ms, 1h]}\n"
      "  - {job: j, peakMemory: partitioner, between: [5Gi, 5Gi]}\n" +
      std::string("  - {pods: {namespace: default, selector: \"") + kPartitioner + "\"}, count: 1, at: end}\n"
      "  - {invariants: all}\n")));
  RunRecord r = RunScenario(s);
  auto results = EvaluateExpectations(s, r);
  ASSERT_EQ(results.size(), 11u);
  for (const auto& e : results) EXPECT_TRUE(e.passed) << e.text << ": " << e.detail;
}

TEST(HarnessExpectationsTest, EveryKindFailsWhereItDoesNotHold) {
  // The worker-1 killed in Training: one restart. Each expectation below is wrong about the run.
  Scenario s = testing::Load(WithPeakMemory(testing::SmallScenario(
      "  - {when: {job: j, phase: Training}, after: 1m, kind: PodKill, pod: j-worker-1}\n",
      "  - {job: j, phase: Failed}\n"
      "  - {job: j, phases: [Succeeded, Training]}\n"
      "  - {job: j, condition: Succeeded, reason: JobSucceeded}\n"
      "  - {job: j, within: 5m}\n"
      "  - {job: j, restarts: 0}\n"
      "  - {configMap: default/j-config, key: ipconfig, lines: 3}\n"
      "  - {configMap: default/j-config, key: ipconfig, line: 0, matches: 'j-worker-1'}\n"
      "  - {job: j, breakdown: imagePull, between: [10h, 11h]}\n"
      "  - {job: j, peakMemory: partitioner, between: [1Gi, 2Gi]}\n" +
      std::string("  - {pods: {namespace: default, selector: \"") + kPartitioner + "\"}, count: 5, at: end}\n")));
  RunRecord r = RunScenario(s);
  auto results = EvaluateExpectations(s, r);
  ASSERT_EQ(results.size(), 10u);
  for (std::size_t i = 0; i < results.size(); ++i) {
    EXPECT_FALSE(results[i].passed) << results[i].text;
    EXPECT_FALSE(results[i].detail.empty()) << results[i].text;  // says what was seen instead
  }
  EXPECT_EQ(results[0].detail.substr(0, 20), "phase is Succeeded; ");
  EXPECT_EQ(results[4].detail, "restarts 1");
  EXPECT_EQ(results[5].detail, "2 lines");
  EXPECT_EQ(results[9].detail, "1 pods");
}

TEST(HarnessExpectationsTest, InvariantsFailOnARunThatNeverEnds) {
  std::string text = testing::SmallScenario("", "  - {invariants: all}\n");
  text.insert(text.find("jobs:"), "operator: {enabled: false}\n");
  Scenario s = testing::Load(text);
  RunRecord r = RunScenario(s);
  auto results = EvaluateExpectations(s, r);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_FALSE(results[0].passed);
  EXPECT_NE(results[0].detail.find("jobsTerminalOrProgressing: job default/j ended the run in phase (none)"), std::string::npos)
      << results[0].detail;
}

// Every field scenarios.md documents, with its type (numbers that may be unknown are null).
TEST(HarnessReportTest, JsonFieldsHaveTheDocumentedTypes) {
  Scenario s = testing::Load(WithPeakMemory(testing::SmallScenario("", "  - {job: j, phase: Succeeded}\n  - {invariants: all}\n")));
  RunRecord r = RunScenario(s);
  json j = ReportJson(r, EvaluateExpectations(s, r), 0.25);
  EXPECT_TRUE(j["scenario"].is_string());
  EXPECT_TRUE(j["seed"].is_number_unsigned());
  EXPECT_TRUE(j["passed"].is_boolean());
  EXPECT_TRUE(j["simulatedSeconds"].is_number());
  EXPECT_EQ(j["wallSeconds"], 0.25);
  EXPECT_TRUE(j["events"].is_number_integer());
  EXPECT_TRUE(j["apiWrites"].is_number_integer());
  EXPECT_TRUE(j["traceHash"].is_string());
  EXPECT_FALSE(j["traceHash"].get<std::string>().empty());
  ASSERT_TRUE(j["jobs"].is_array());
  ASSERT_EQ(j["jobs"].size(), 1u);
  const json& job = j["jobs"][0];
  for (const char* field : {"namespace", "name", "partitionMode", "phase"}) EXPECT_TRUE(job[field].is_string()) << field;
  for (const char* field : {"submitted", "completed", "makespan", "gpuSeconds"}) EXPECT_TRUE(job[field].is_number()) << field;
  for (const char* field : {"restarts", "podsCreated"}) EXPECT_TRUE(job[field].is_number_integer()) << field;
  EXPECT_TRUE(job["idleGpuSeconds"].is_number() || job["idleGpuSeconds"].is_null());
  ASSERT_TRUE(job["phases"].is_array());
  ASSERT_FALSE(job["phases"].empty());
  for (const json& p : job["phases"]) {
    EXPECT_TRUE(p["phase"].is_string());
    EXPECT_TRUE(p["at"].is_number());
  }
  ASSERT_TRUE(job["breakdown"].is_object() || job["breakdown"].is_null());
  if (job["breakdown"].is_object()) {
    for (const auto& [stage, seconds] : job["breakdown"].items()) EXPECT_TRUE(seconds.is_number()) << stage;
  }
  ASSERT_TRUE(job["peakMemoryBytes"].is_object() || job["peakMemoryBytes"].is_null());
  if (job["peakMemoryBytes"].is_object()) {
    for (const auto& [role, bytes] : job["peakMemoryBytes"].items()) EXPECT_TRUE(bytes.is_number_integer()) << role;
  }
  const json& cluster = j["cluster"];
  EXPECT_EQ(cluster["nodes"], 3);
  EXPECT_EQ(cluster["gpus"], 12);
  EXPECT_TRUE(cluster["gpuUtilization"].is_number());
  ASSERT_TRUE(j["expectations"].is_array());
  ASSERT_EQ(j["expectations"].size(), 2u);
  for (const json& e : j["expectations"]) {
    EXPECT_TRUE(e["expect"].is_string());
    EXPECT_TRUE(e["passed"].is_boolean());
    EXPECT_TRUE(e["detail"].is_string());
  }
  EXPECT_TRUE(j["invariantViolations"].is_array());
  EXPECT_TRUE(j["invariantViolations"].empty());
}

// A DGL job's predictions carry the models' ranges in the summary, the JSON report (added fields)
// and the HTML page; low <= value <= high everywhere, and the ranges move the makespan.
TEST(HarnessReportTest, DglPredictionsShowTheirRangesInEveryReport) {
  ScenarioLoad load = LoadScenario(std::string(DGLSIM_SOURCE_DIR) + "/scenarios/ssp-products.yaml");
  ASSERT_TRUE(load.ok()) << ::testing::PrintToString(load.problems);
  RunRecord r = RunScenario(*load.scenario);
  const auto results = EvaluateExpectations(*load.scenario, r);
  json j = ReportJson(r, results);
  const json& job = j["jobs"][0];
  ASSERT_TRUE(job["breakdownRange"].is_object());
  for (const char* stage : {"download", "prepare", "partition", "dispatch", "load", "training"}) {
    ASSERT_TRUE(job["breakdownRange"].contains(stage)) << stage;
    const double value = job["breakdown"][stage], low = job["breakdownRange"][stage]["low"],
                 high = job["breakdownRange"][stage]["high"];
    EXPECT_LE(low, value) << stage;
    EXPECT_GE(high, value) << stage;
  }
  EXPECT_LT(job["breakdownRange"]["partition"]["low"].get<double>(), job["breakdown"]["partition"].get<double>());
  EXPECT_GT(job["breakdownRange"]["training"]["high"].get<double>(), job["breakdown"]["training"].get<double>());
  ASSERT_TRUE(job["peakMemoryBytesRange"]["partitioner"].is_object());
  EXPECT_LE(job["peakMemoryBytesRange"]["partitioner"]["low"].get<double>(), job["peakMemoryBytes"]["partitioner"].get<double>());
  EXPECT_GE(job["peakMemoryBytesRange"]["partitioner"]["high"].get<double>(), job["peakMemoryBytes"]["partitioner"].get<double>());
  ASSERT_TRUE(job["makespanRange"].is_object());
  EXPECT_LT(job["makespanRange"]["low"].get<double>(), job["makespan"].get<double>());
  EXPECT_GT(job["makespanRange"]["high"].get<double>(), job["makespan"].get<double>());
  EXPECT_TRUE(job["gpuSecondsRange"].is_object());
  // Stages the models did not predict have no spread.
  EXPECT_EQ(job["breakdownRange"]["imagePull"]["low"], job["breakdown"]["imagePull"]);

  const std::string summary = FormatSummary(r, results);
  const auto [value, low, high] = r.jobs.begin()->second.StageRange("partition");
  EXPECT_NE(summary.find("partition " + FormatSpan(value, low, high)), std::string::npos) << summary;
  EXPECT_NE(summary.find("    memory: partitioner "), std::string::npos) << summary;
  EXPECT_NE(summary.find(" GB ("), std::string::npos) << summary;
}

// api-faults.yaml draws conflicts and errors from the seed: the same seed gives the same trace and
// the same report (but wallSeconds) three times; another seed gives another trace.
TEST(HarnessDeterminismTest, SameSeedSameTraceAndJsonThreeTimesAnotherSeedDiffers) {
  ScenarioLoad load = LoadScenario(std::string(DGLSIM_SOURCE_DIR) + "/scenarios/api-faults.yaml");
  ASSERT_TRUE(load.ok()) << ::testing::PrintToString(load.problems);
  const Scenario& s = *load.scenario;
  std::vector<std::string> reports, hashes;
  for (int i = 0; i < 3; ++i) {
    RunRecord r = RunScenario(s);
    hashes.push_back(r.trace_hash);
    reports.push_back(ReportJson(r, EvaluateExpectations(s, r)).dump());
  }
  EXPECT_EQ(hashes[1], hashes[0]);
  EXPECT_EQ(hashes[2], hashes[0]);
  EXPECT_EQ(reports[1], reports[0]);
  EXPECT_EQ(reports[2], reports[0]);
  EXPECT_EQ(reports[0].find("wallSeconds"), std::string::npos);
  RunRecord other = RunScenario(s, {.seed = s.seed + 1});
  EXPECT_NE(other.trace_hash, hashes[0]);
  EXPECT_NE(ReportJson(other, EvaluateExpectations(s, other)).dump(), reports[0]);
}

}  // namespace
}  // namespace harness
