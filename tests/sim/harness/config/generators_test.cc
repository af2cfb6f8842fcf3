// arrivals (Poisson, trace) and node failures (mtbf): drawn from the run's seed, the same for the
// same seed, located problems when wrong, and they change the run.
#include "sim/harness/config/generators.h"
#include "sim/harness/config/scale_limits.h"
#include "sim/harness/config/scenario.h"
#include "sim/harness/run/runner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>

namespace harness {
namespace {

const std::string kDir = std::string(DGLSIM_SOURCE_DIR) + "/tests/sim/data/sweep";

std::vector<Micros> SubmitTimes(const Scenario& s) {
  std::vector<Micros> times;
  for (const JobEntry& job : s.jobs) times.push_back(job.at);
  return times;
}

TEST(Arrivals, PoissonJobsAreDrawnFromTheSeed) {
  ScenarioLoad load = LoadScenario(kDir + "/fleet.yaml");
  ASSERT_TRUE(load.ok()) << load.problems.front();
  const Scenario& s = *load.scenario;
  ASSERT_EQ(s.jobs.size(), 12u);
  EXPECT_EQ(s.job_keys.front().name, "mix-0");
  EXPECT_EQ(s.job_keys.back().name, "mix-11");
  EXPECT_TRUE(std::is_sorted(s.jobs.begin(), s.jobs.end(), [](const JobEntry& a, const JobEntry& b) { return a.at < b.at; }));
  EXPECT_EQ(SubmitTimes(*LoadScenario(kDir + "/fleet.yaml").scenario), SubmitTimes(s));  // same seed, same times
  ScenarioLoad reseeded = LoadScenario(kDir + "/fleet.yaml", 4);
  ASSERT_TRUE(reseeded.ok());
  EXPECT_EQ(reseeded.scenario->seed, 4u);
  EXPECT_NE(SubmitTimes(*reseeded.scenario), SubmitTimes(s));
  // Both templates are drawn (weights 3 and 1), each job from one of them.
  int long_jobs = 0;
  for (const JobEntry& job : s.jobs) long_jobs += job.field_path == "arrivals[0].templates[1]" ? 1 : 0;
  EXPECT_GT(long_jobs, 0);
  EXPECT_LT(long_jobs, 12);
  // The mean gap is about the meanInterval (10 min) over 12 draws.
  EXPECT_GT(s.jobs.back().at, 30 * 60 * kube::kSecond);
  EXPECT_LT(s.jobs.back().at, 6 * 3600 * kube::kSecond);
}

std::string FleetWith(const std::string& from, const std::string& to) {
  YamlLoad yaml = LoadYamlFile(kDir + "/fleet.yaml");
  std::ifstream in(kDir + "/fleet.yaml");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

TEST(Arrivals, ATraceGivesTheTimesAndTemplates) {
  ScenarioLoad load = LoadScenarioString(
      FleetWith("    process: Poisson\n    meanInterval: 10m\n    count: 12\n", "    process: Trace\n    file: trace.txt\n"), "f.yaml", kDir);
  ASSERT_TRUE(load.ok()) << load.problems.front();
  EXPECT_EQ(SubmitTimes(*load.scenario), (std::vector<Micros>{0, 300 * kube::kSecond, 3600 * kube::kSecond}));
  EXPECT_EQ(load.scenario->jobs[0].field_path, "arrivals[0].templates[0]");  // "short"
  EXPECT_EQ(load.scenario->jobs[2].field_path, "arrivals[0].templates[1]");  // "long"
}

TEST(Arrivals, BadArrivalsAreLocated) {
  ScenarioLoad load = LoadScenarioString(FleetWith("    count: 12\n", "    count: 0\n    file: x.txt\n"), "f.yaml", kDir);
  ASSERT_EQ(load.problems.size(), 2u);
  EXPECT_EQ(load.problems[0], "f.yaml:16:12: arrivals[0].count: must be at least 1, got 0");
  EXPECT_EQ(load.problems[1], "f.yaml:17:11: arrivals[0].file: file goes with process: Trace");
  ScenarioLoad bad_template = LoadScenarioString(FleetWith("partitionMode: DistParMETIS", "partitionMode: Fast"), "f.yaml", kDir);
  ASSERT_EQ(bad_template.problems.size(), 1u);  // said once, not once per job drawn from it
  EXPECT_NE(bad_template.problems[0].find("f.yaml:25:28: arrivals[0].templates[0].inline.spec.partitionMode"), std::string::npos)
      << bad_template.problems[0];
}

// Jobs drawn past the scenario's pod limit are refused where the drawing crosses it; they were
// dropped without a word once their template had been drawn before (a scenario ran with fewer
// jobs than it asked for).
TEST(Arrivals, DrawsPastThePodLimitAreRefused) {
  // Jobs of 10,001 pods (a launcher and 10,000 workers) on 100 nodes (11,000 pods at once), one
  // more of them than the limit holds: 151 jobs drawn (with 101-pod jobs it took 14,852, which
  // was most of this module's test time under the sanitizers).
  const std::int64_t jobs = kMaxPods / 10'001 + 1;
  std::string text = FleetWith("    count: 12\n", "    count: " + std::to_string(jobs) + "\n");
  const std::string one_node = "{name: gpu, count: 1,";
  text.replace(text.find(one_node), one_node.size(), "{name: gpu, count: 100,");
  for (std::size_t at = text.find("Worker: {replicas: 1,"); at != std::string::npos; at = text.find("Worker: {replicas: 1,", at))
    text.replace(at, std::string("Worker: {replicas: 1,").size(), "Worker: {replicas: 10000,");
  ScenarioLoad load = LoadScenarioString(text, "f.yaml", kDir);
  ASSERT_EQ(load.problems.size(), 1u);
  EXPECT_NE(load.problems[0].find("pods; at most " + std::to_string(kMaxPods) + " (docs/limits.md)"), std::string::npos)
      << load.problems[0];
  EXPECT_NE(load.problems[0].find("arrivals[0].templates["), std::string::npos) << load.problems[0];
}

TEST(NodeFailures, MtbfDrawsNodeDownFaultsThatChangeTheRun) {
  const std::string text = FleetWith("pricePerHour: 4}", "pricePerHour: 4, mtbf: 2h, repairTime: 20m}");
  ScenarioLoad load = LoadScenarioString(text, "f.yaml", kDir);
  ASSERT_TRUE(load.ok()) << load.problems.front();
  const std::vector<FaultSpec>& faults = load.scenario->faults;
  ASSERT_FALSE(faults.empty());
  for (const FaultSpec& f : faults) {
    EXPECT_EQ(f.kind, FaultKind::kNodeDown);
    EXPECT_EQ(f.node, "gpu-0");
    EXPECT_EQ(f.duration, 20 * 60 * kube::kSecond);
    EXPECT_EQ(f.field_path, "cluster.nodes[0].mtbf");
  }
  // About until / (mtbf + repair) = 48h / 2h20m failures.
  EXPECT_GT(faults.size(), 8u);
  EXPECT_LT(faults.size(), 45u);
  EXPECT_EQ(NodeOutages(3, "gpu-0", 2 * 3600 * kube::kSecond, 1200 * kube::kSecond, 48 * 3600 * kube::kSecond, 1000).size(), faults.size());
  const RunRecord failing = RunScenario(*load.scenario);
  EXPECT_FALSE(failing.fault_log.empty());
  EXPECT_NE(failing.trace_hash, RunScenario(*LoadScenario(kDir + "/fleet.yaml").scenario).trace_hash);

  ScenarioLoad bad = LoadScenarioString(FleetWith("pricePerHour: 4}", "pricePerHour: 4, repairTime: 20m, mtbf: 30s}"), "f.yaml", kDir);
  ASSERT_EQ(bad.problems.size(), 1u);
  EXPECT_NE(bad.problems[0].find("cluster.nodes[0].mtbf: must be at least 1m"), std::string::npos) << bad.problems[0];
}

}  // namespace
}  // namespace harness
