// The scenario runner end to end: runs are deterministic, and `dglsim run`'s exit codes and reports.
// That every scenario of scenarios/ meets its expectations is checked once, by CTest: one entry per
// file (label scenario, tests/CMakeLists.txt), each running `dglsim run` on it.
#include "sim/harness/run/runner.h"

#include "sim/harness/checks/expectations.h"
#include "sim/harness/report/report.h"
#include "sim/harness/run_command.h"
#include "tests/shared_examples.h"
#include "tests/sim/harness/harness_test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <sstream>

namespace harness {
namespace {

using testing::Load;
using testing::SmallScenario;

std::string ScenarioPath(const std::string& name) { return std::string(DGLSIM_SOURCE_DIR) + "/scenarios/" + name; }

TEST(RunnerTest, ASmallJobRunsThroughEveryPhase) {
  Scenario s = Load(SmallScenario("", ""));
  RunRecord r = RunScenario(s);
  const JobRecord& job = r.jobs.at(JobKey{"default", "j"});
  EXPECT_EQ(job.phase, "Succeeded") << testing::Timeline(job);
  ASSERT_TRUE(job.Makespan());
  EXPECT_GT(*job.Makespan(), 10 * 60 * kube::kSecond);  // the workers alone run 10 min
  EXPECT_LT(*job.Makespan(), 30 * 60 * kube::kSecond);
  EXPECT_EQ(job.restarts, 0);
  EXPECT_GE(job.pods_created, 4);  // partitioner, launcher, 2 workers
  // 2 one-GPU workers for about 10 min each.
  EXPECT_GT(job.gpu_seconds, 2 * 590.0);
  EXPECT_LT(job.gpu_seconds, 2 * 700.0);
  EXPECT_FALSE(r.hit_until);
  EXPECT_EQ(r.nodes, 3);
  EXPECT_EQ(r.gpus, 12);
  EXPECT_TRUE(r.invariant_violations.empty());
  EXPECT_FALSE(r.trace_hash.empty());
}

TEST(RunnerTest, AWorldLeftToTheExitGivesTheSameRecord) {
  // `dglsim run` leaves the simulation to the process's exit instead of freeing it: the record
  // must not depend on that (the world has finished with it before).
  Scenario s = Load(SmallScenario("", ""));
  RunRecord freed = RunScenario(s);
  RunRecord left = RunScenario(s, RunOptions{.leave_to_exit = true});
  EXPECT_EQ(left.trace_hash, freed.trace_hash);
  EXPECT_EQ(left.events, freed.events);
  EXPECT_EQ(left.api_writes, freed.api_writes);
  EXPECT_EQ(left.jobs.at(JobKey{"default", "j"}).phase, "Succeeded");
}

TEST(RunnerTest, TheSameSeedGivesTheSameTraceHashAndJson) {
  Scenario s = Load(SmallScenario("", ""));
  RunRecord a = RunScenario(s), b = RunScenario(s), c = RunScenario(s);
  EXPECT_EQ(a.trace_hash, b.trace_hash);
  EXPECT_EQ(a.trace_hash, c.trace_hash);
  auto ra = EvaluateExpectations(s, a), rb = EvaluateExpectations(s, b);
  EXPECT_EQ(ReportJson(a, ra).dump(), ReportJson(b, rb).dump());
}

TEST(RunnerTest, AnotherSeedGivesAnotherTrace) {
  Scenario s = Load(SmallScenario("", ""));
  RunRecord a = RunScenario(s, {.seed = 1}), b = RunScenario(s, {.seed = 2});
  EXPECT_EQ(a.seed, 1u);
  EXPECT_EQ(b.seed, 2u);
  // The scheduler's per-decision jitter draws from the seed.
  EXPECT_NE(a.trace_hash, b.trace_hash);
  EXPECT_EQ(a.jobs.at(JobKey{"default", "j"}).phase, b.jobs.at(JobKey{"default", "j"}).phase);
}

TEST(RunnerTest, JobActionsDeleteAJobAtItsTime) {
  std::string text = SmallScenario("", "  - {pods: {namespace: default, selector: \"training.kubeflow.org/job-name=j\"}, count: 0, at: end}\n"
                                      "  - {invariants: all}\n");
  // Append a delete action to the jobs list, 5 minutes in (before the job can finish).
  std::string action = "  - at: 5m\n    delete: {namespace: default, name: j}\n";
  text.insert(text.find("expect:"), action);
  Scenario s = Load(text);
  RunRecord r = RunScenario(s);
  const JobRecord& job = r.jobs.at(JobKey{"default", "j"});
  EXPECT_TRUE(job.deleted);
  EXPECT_FALSE(r.hit_until);
  EXPECT_EQ(r.invariant_checks["noObjectsAfterDelete"], 1);
  auto results = EvaluateExpectations(s, r);
  EXPECT_TRUE(AllPassed(results)) << FormatSummary(r, results);
}

// A text with `from` replaced by `to` (once; the test fails when `from` is missing).
std::string With(std::string text, const std::string& from, const std::string& to) {
  auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

TEST(RunnerTest, APendingTtlIsWorkTheRunWaitsFor) {
  // The job ends after about 11 minutes; its TTL is 20 minutes, longer than the settle period.
  std::string text = With(SmallScenario("", "  - {pods: {namespace: default, selector: \"training.kubeflow.org/job-name=j\"}, count: 0, at: end}\n"),
                          "runPolicy: {backoffLimit: 3}", "runPolicy: {backoffLimit: 3, ttlSecondsAfterFinished: 1200}");
  Scenario s = Load(text);
  RunRecord r = RunScenario(s);
  const JobRecord& job = r.jobs.at(JobKey{"default", "j"});
  ASSERT_TRUE(job.completed);
  EXPECT_TRUE(job.deleted) << "the TTL never fired; the run ended at " << r.end / kube::kSecond << " s";
  ASSERT_TRUE(job.deleted_at);
  // The TTL counts from status.completionTime, which has whole seconds.
  EXPECT_GE(*job.deleted_at, *job.completed + 1199 * kube::kSecond);
  // Then the settle period, from the first check (every 10 s) that found nothing pending.
  EXPECT_GT(r.end, *job.deleted_at + kSettle - 10 * kube::kSecond);
  EXPECT_LE(r.end, *job.deleted_at + kSettle + 20 * kube::kSecond);
  EXPECT_FALSE(r.hit_until);
  auto results = EvaluateExpectations(s, r);
  EXPECT_TRUE(AllPassed(results)) << FormatSummary(r, results);
}

TEST(RunnerTest, AJobNotDoneAtTheEndSaysWhatItWaitsOn) {
  // Workers that want 8 GPUs of 4-GPU nodes never schedule; `until` cuts the run.
  std::string text = With(SmallScenario("", "  - {job: j, phase: Succeeded}\n"), "nvidia.com/gpu: \"1\"", "nvidia.com/gpu: \"8\"");
  text = With(text, "until: 12h", "until: 30m");
  Scenario s = Load(text);
  RunRecord r = RunScenario(s);
  std::string notes;
  for (const auto& n : r.notes) notes += n + "\n";
  EXPECT_NE(notes.find("job default/j ended the run in "), std::string::npos) << notes;
  EXPECT_NE(notes.find("job default/j waits on pod default/j-worker-0, Pending: unschedulable: 0/3 nodes are available"),
            std::string::npos)
      << notes;
  EXPECT_NE(notes.find("Insufficient nvidia.com/gpu"), std::string::npos) << notes;
  // The summary carries the notes.
  EXPECT_NE(FormatSummary(r, EvaluateExpectations(s, r)).find("waits on pod default/j-worker-1"), std::string::npos);
}

TEST(RunnerTest, AJobWaitingOnAnImagePullSaysSo) {
  std::string text = With(SmallScenario("  - {at: 0s, kind: ImagePullError, image: \"dgloperator/*\"}\n", "  - {job: j, phase: Succeeded}\n"),
                          "until: 12h", "until: 20m");
  Scenario s = Load(text);
  RunRecord r = RunScenario(s);
  std::string notes;
  for (const auto& n : r.notes) notes += n + "\n";
  // The glob matches the operator's own init container image too: that is what the pods wait on.
  EXPECT_NE(notes.find("job default/j waits on pod default/j-launcher, Pending on "), std::string::npos) << notes;
  EXPECT_NE(notes.find(": init container kubectl-download waiting: ImagePullBackOff (Back-off pulling image "
                       "\"dgloperator/kubectl-download:latest\")"),
            std::string::npos)
      << notes;
}

TEST(RunnerTest, JsonReportHasTheDocumentedFields) {
  Scenario s = Load(SmallScenario("", "  - {job: j, phase: Succeeded}\n"));
  RunRecord r = RunScenario(s);
  auto results = EvaluateExpectations(s, r);
  kube::Json j = ReportJson(r, results, 0.5);
  for (const char* field : {"scenario", "seed", "passed", "simulatedSeconds", "wallSeconds", "events", "apiWrites", "watchEvents",
                            "traceHash", "jobs", "cluster", "expectations", "invariantViolations"})
    EXPECT_TRUE(j.contains(field)) << field;
  // Every pod write reaches at least its node's kubelet, the scheduler and the operator.
  EXPECT_EQ(j["watchEvents"], r.watch_events);
  EXPECT_GT(r.watch_events, 2 * r.api_writes);
  ASSERT_EQ(j["jobs"].size(), 1u);
  const auto& job = j["jobs"][0];
  for (const char* field : {"namespace", "name", "partitionMode", "phase", "submitted", "completed", "makespan",
                            "phases", "breakdown", "peakMemoryBytes", "restarts", "gpuSeconds", "idleGpuSeconds",
                            "podsCreated"})
    EXPECT_TRUE(job.contains(field)) << field;
  EXPECT_EQ(job["phase"], "Succeeded");
  EXPECT_EQ(job["partitionMode"], "DGL-API");
  EXPECT_TRUE(job["breakdown"].is_object());  // every stage of the breakdown, in seconds
  EXPECT_TRUE(job["breakdown"].contains("queueing"));
  EXPECT_TRUE(job["peakMemoryBytes"].is_object());
  EXPECT_EQ(j["passed"], true);
  EXPECT_EQ(j["expectations"][0]["passed"], true);
  EXPECT_EQ(j["cluster"]["gpus"], 12);
  // The invariants, as the registry describes them, with the checks made.
  ASSERT_EQ(j["invariants"].size(), Invariants().size());
  for (std::size_t i = 0; i < Invariants().size(); ++i) {
    EXPECT_EQ(j["invariants"][i]["name"], std::string(Invariants()[i].name));
    EXPECT_EQ(j["invariants"][i]["description"], std::string(Invariants()[i].description));
    EXPECT_GE(j["invariants"][i]["checks"].get<std::int64_t>(), 0) << Invariants()[i].name;
    EXPECT_EQ(j["invariants"][i]["violations"], 0);
  }
}

class RunnerCommandTest : public ::testing::Test {
 protected:
  std::string Write(const std::string& name, const std::string& text) {
    std::string dir = ::testing::TempDir();
    std::string path = dir + "/" + name;
    std::ofstream(path) << text;
    return path;
  }
};

TEST_F(RunnerCommandTest, ExitCodeZeroWhenEveryExpectationHolds) {
  std::string path = Write("ok.yaml", SmallScenario("", "  - {job: j, phase: Succeeded}\n"));
  std::string json_path = ::testing::TempDir() + "/ok.json";
  std::ostringstream out, err;
  EXPECT_EQ(RunScenarioCommand(path, {.json_path = json_path}, out, err), 0) << err.str();
  EXPECT_NE(out.str().find("PASS job"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("trace hash"), std::string::npos);
  std::ifstream in(json_path);
  kube::Json j = kube::Json::parse(in, nullptr, false);
  ASSERT_FALSE(j.is_discarded());
  EXPECT_EQ(j["passed"], true);
}

TEST_F(RunnerCommandTest, ExitCodeOneWithADetailWhenAnExpectationFails) {
  std::string path = Write("fail.yaml", SmallScenario("", "  - {job: j, phase: Failed}\n  - {job: j, within: 1m}\n"));
  std::ostringstream out, err;
  EXPECT_EQ(RunScenarioCommand(path, {}, out, err), 1);
  EXPECT_NE(out.str().find("FAIL job"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("phase is Succeeded"), std::string::npos) << out.str();
}

TEST_F(RunnerCommandTest, ExitCodeOneWhenAnInvariantIsViolated) {
  // Workers pinned by spec.nodeName to one 4-GPU node, 4 GPUs each: the node is over-committed.
  std::string text = SmallScenario("", "  - {invariants: all}\n");
  std::string limits = "nvidia.com/gpu: \"1\", cpu: \"4\"";
  text.replace(text.find(limits), limits.size(), "nvidia.com/gpu: \"4\", cpu: \"4\"");
  text.insert(text.find("                containers:\n                  - name: main"), "                nodeName: n-1\n");
  std::string path = Write("overcommit.yaml", text);
  std::string json_path = ::testing::TempDir() + "/overcommit.json";
  std::ostringstream out, err;
  EXPECT_EQ(RunScenarioCommand(path, {.json_path = json_path}, out, err), 1) << out.str();
  EXPECT_NE(out.str().find("FAIL invariants all"), std::string::npos) << out.str();
  std::ifstream in(json_path);
  kube::Json j = kube::Json::parse(in, nullptr, false);
  ASSERT_FALSE(j.is_discarded());
  EXPECT_EQ(j["passed"], false);
  ASSERT_FALSE(j["invariantViolations"].empty());
  EXPECT_EQ(j["invariantViolations"][0]["invariant"], "nodeNotOvercommitted");
}

TEST_F(RunnerCommandTest, ExitCodeTwoWithTheLoadersMessagesOnBadInput) {
  std::string path = Write("bad.yaml", "apiVersion: dglsim/v1\nkind: Scenario\nuntil: 5 minutes\n");
  std::ostringstream out, err;
  EXPECT_EQ(RunScenarioCommand(path, {}, out, err), 2);
  EXPECT_NE(err.str().find("bad.yaml:3"), std::string::npos) << err.str();
  EXPECT_EQ(RunScenarioCommand(::testing::TempDir() + "/missing.yaml", {}, out, err), 2);
}

TEST_F(RunnerCommandTest, QuietPrintsNothing) {
  std::string path = Write("quiet.yaml", SmallScenario("", "  - {job: j, phase: Succeeded}\n"));
  std::ostringstream out, err;
  EXPECT_EQ(RunScenarioCommand(path, {.quiet = true}, out, err), 0);
  EXPECT_TRUE(out.str().empty());
}

}  // namespace
}  // namespace harness

namespace harness {
namespace {

TEST(RunnerSummaryTest, NamesEveryJobTheFaultsTheExpectationsAndTheTraceHash) {
  ScenarioLoad load = LoadScenario(ScenarioPath("node-down-during-training.yaml"));
  ASSERT_TRUE(load.ok());
  RunRecord record = RunScenario(*load.scenario);
  auto results = EvaluateExpectations(*load.scenario, record);
  std::string summary = FormatSummary(record, results);
  std::cout << summary;
  EXPECT_NE(summary.find("job default/sage  Succeeded  makespan "), std::string::npos);
  EXPECT_NE(summary.find("GPU-hours"), std::string::npos);
  EXPECT_NE(summary.find("fault "), std::string::npos);
  EXPECT_NE(summary.find("NodeDown gpu-"), std::string::npos);
  EXPECT_NE(summary.find("PASS job sage restarts 1"), std::string::npos);
  EXPECT_NE(summary.find("trace hash " + record.trace_hash), std::string::npos);
  // The restart came when the node was marked NotReady, 50 s (nodeMonitorGracePeriod) after it
  // died, give or take the watch and reconcile latencies: not at the eviction 300 s later.
  const JobRecord& job = record.jobs.at(JobKey{"default", "sage"});
  Micros training = -1, restarting = -1;
  for (const auto& p : job.phases) {
    if (p.phase == "Training" && training < 0) training = p.at;
    if (p.phase == "Restarting" && restarting < 0) restarting = p.at;
  }
  ASSERT_GE(training, 0);
  ASSERT_GE(restarting, 0);
  Micros after_down = restarting - (training + 60 * kube::kSecond);
  EXPECT_GE(after_down, 49 * kube::kSecond);
  EXPECT_LE(after_down, 80 * kube::kSecond);
}

TEST(RunnerSummaryTest, AScenarioFileGivesTheSameJsonRunToRun) {
  ScenarioLoad load = LoadScenario(ScenarioPath("ssp-products-2-workers.yaml"));
  ASSERT_TRUE(load.ok());
  auto json_of = [&] {
    RunRecord r = RunScenario(*load.scenario);
    return ReportJson(r, EvaluateExpectations(*load.scenario, r)).dump();
  };
  std::string first = json_of();
  EXPECT_EQ(first, json_of());
  EXPECT_EQ(first, json_of());
}

}  // namespace
}  // namespace harness

namespace harness {
namespace {

// The whole format at once (Node manifests, every fault kind, two jobs, breakdown and peakMemory
// expectations): the run completes and the record is coherent, even where expectations fail.
TEST(RunnerRobustnessTest, TheFullExampleRunsToItsEnd) {
  DGLSIM_REQUIRE_SHARED_EXAMPLES();  // its first job is the original GraphSAGE_dist.yaml
  ScenarioLoad load = LoadScenario(std::string(DGLSIM_SOURCE_DIR) + "/tests/sim/data/full-example.yaml");
  ASSERT_TRUE(load.ok()) << (load.problems.empty() ? "" : load.problems[0]);
  RunRecord r = RunScenario(*load.scenario);
  auto results = EvaluateExpectations(*load.scenario, r);
  std::string summary = FormatSummary(r, results);
  EXPECT_GT(r.nodes, 4) << summary;  // the templates and the manifest's nodes
  EXPECT_EQ(r.jobs.size(), 2u) << summary;
  EXPECT_GE(r.fault_log.size(), 6u) << summary;
  // Its breakdown and peakMemory expectations are evaluated now (none says "not modelled yet").
  for (const auto& e : results) EXPECT_NE(e.detail, "not modelled yet") << e.text;
  kube::Json j = ReportJson(r, results);
  EXPECT_EQ(j["passed"], false);
  EXPECT_EQ(j["jobs"].size(), 2u);
}

// Nothing left to happen (no operator, no events pending) ends the run early, with the job stuck.
TEST(RunnerRobustnessTest, WithoutTheOperatorNothingMovesAndTheRunStopsWhenIdle) {
  std::string text = testing::SmallScenario("", "  - {job: j, phase: Succeeded}\n  - {invariants: all}\n");
  text.replace(text.find("until: 12h"), 10, "until: 3h\noperator: {enabled: false}");
  Scenario s = testing::Load(text);
  RunRecord r = RunScenario(s);
  EXPECT_FALSE(r.hit_until);
  EXPECT_LT(r.end, 3 * 3600 * kube::kSecond);
  EXPECT_EQ(r.jobs.at(JobKey{"default", "j"}).phase, "");
  auto results = EvaluateExpectations(s, r);
  EXPECT_FALSE(results[0].passed);
  EXPECT_FALSE(results[1].passed);  // the job is not terminal and nothing will move it
  EXPECT_NE(results[1].detail.find("jobsTerminalOrProgressing"), std::string::npos) << results[1].detail;
  EXPECT_NE(FormatSummary(r, results).find("the operator is disabled"), std::string::npos);
}

TEST(RunnerRobustnessTest, SuspendAndResumeAtTheirTimes) {
  std::string text = testing::SmallScenario("", "  - {job: j, phase: Succeeded}\n  - {invariants: all}\n");
  text.insert(text.find("expect:"),
              "  - {at: 3m, suspend: {namespace: default, name: j}}\n  - {at: 10m, resume: {namespace: default, name: j}}\n");
  Scenario s = testing::Load(text);
  RunRecord r = RunScenario(s);
  const JobRecord& job = r.jobs.at(JobKey{"default", "j"});
  bool suspended = false;
  for (const auto& p : job.phases) suspended = suspended || (p.phase == "Suspended" && p.at >= 180 * kube::kSecond);
  EXPECT_TRUE(suspended) << testing::Timeline(job);
  auto results = EvaluateExpectations(s, r);
  EXPECT_TRUE(AllPassed(results)) << FormatSummary(r, results);
  EXPECT_GT(*job.completed, 20 * 60 * kube::kSecond);  // 10 min of training after the resume
}

// Worker templates pinned to one node with spec.nodeName bypass the scheduler, as they would in a
// real cluster: two 4-GPU workers on a 4-GPU node over-commit it, and the invariant says so.
TEST(RunnerRobustnessTest, AnOverCommittedNodeViolatesTheInvariant) {
  std::string text = testing::SmallScenario("", "  - {invariants: [nodeNotOvercommitted]}\n");
  std::string worker_limits = "resources: {limits: {nvidia.com/gpu: \"1\", cpu: \"4\", memory: 16Gi}}";
  auto at = text.find(worker_limits);
  ASSERT_NE(at, std::string::npos);
  text.replace(at, worker_limits.size(), "resources: {limits: {nvidia.com/gpu: \"4\", cpu: \"4\", memory: 16Gi}}");
  text.insert(text.find("                containers:\n                  - name: main"), "                nodeName: n-1\n");
  Scenario s = testing::Load(text);
  RunRecord r = RunScenario(s);
  auto results = EvaluateExpectations(s, r);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_FALSE(results[0].passed) << FormatSummary(r, results);
  EXPECT_NE(results[0].detail.find("over-committed on nvidia.com/gpu"), std::string::npos) << results[0].detail;
}

}  // namespace
}  // namespace harness
