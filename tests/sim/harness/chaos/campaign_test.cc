// Chaos campaigns: a seed's run judged by the invariants, the written scenario replaying it to the
// same trace hash, results independent of the number of threads, and the shrinker on real runs.
#include "sim/harness/chaos/campaign.h"

#include "sim/harness/chaos/scenario_file.h"
#include "sim/harness/chaos/shrink.h"
#include "sim/harness/run_command.h"
#include "tests/sim/harness/harness_test_util.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace harness::chaos {
namespace {

using testing::SmallScenario;

namespace fs = std::filesystem;

// A fresh directory under the test's temporary folder.
fs::path TempDir(const std::string& name) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("dglsim-chaos-" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// `text` written to `dir`/scenario.yaml and loaded from there (SeedScenarioFile reads the file again).
Scenario LoadFile(const fs::path& dir, const std::string& text) {
  const fs::path path = dir / "scenario.yaml";
  std::ofstream(path) << text;
  ScenarioLoad load = LoadScenario(path.string());
  EXPECT_TRUE(load.ok()) << (load.problems.empty() ? "" : load.problems[0]);
  return load.ok() ? *load.scenario : Scenario{};
}

// The small scenario's job asks for workers of 8 GPUs on 4-GPU nodes: it stays Pending whatever
// the faults, and jobsTerminalOrProgressing fails.
std::string Unschedulable() {
  std::string text = SmallScenario("", "");
  const std::string from = "nvidia.com/gpu: \"1\"";
  text.replace(text.find(from), from.size(), "nvidia.com/gpu: \"8\"");
  return text;
}

TEST(ChaosCampaignTest, TheWrittenScenarioReplaysTheSeedToTheSameTraceHash) {
  const fs::path dir = TempDir("replay");
  const fs::path out = dir / "out";
  fs::create_directories(out);
  const Scenario base = LoadFile(dir, SmallScenario("  - {at: 1m, kind: WatchDrop}\n", ""));
  const ChaosOptions options;
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const SeedOutcome outcome = RunSeed(base, options, seed);
    ASSERT_FALSE(outcome.trace_hash.empty());
    const std::vector<FaultSpec> drawn = DrawFaults(base, options.rates, seed, base.faults.size());
    const Scenario seeded = SeedScenario(base, seed, drawn, false);
    ASSERT_EQ(seeded.faults.size(), drawn.size() + 1);  // the scenario's own fault is kept
    const ScenarioFileText file = SeedScenarioFile(base, seeded, false, out.string(), "seed " + std::to_string(seed));
    ASSERT_EQ(file.error, "");
    const fs::path path = out / ("seed-" + std::to_string(seed) + ".yaml");
    std::ofstream(path) << file.text;
    ScenarioLoad again = LoadScenario(path.string());
    ASSERT_TRUE(again.ok()) << (again.problems.empty() ? "" : again.problems[0]) << "\n" << file.text;
    EXPECT_EQ(again.scenario->seed, seed);
    EXPECT_EQ(again.scenario->faults.size(), seeded.faults.size());
    EXPECT_EQ(RunScenario(*again.scenario).trace_hash, outcome.trace_hash) << file.text;
    std::ostringstream sink;
    EXPECT_EQ(RunScenarioCommand(path.string(), {.quiet = true}, sink, sink), outcome.failed ? 1 : 0) << sink.str();
  }
}

TEST(ChaosCampaignTest, RelativePathsAreRewrittenForTheFolderTheFileGoesTo) {
  const fs::path dir = TempDir("paths");
  fs::create_directories(dir / "manifests");
  fs::create_directories(dir / "deep" / "out");
  std::string text = SmallScenario("", "");
  // The job from a manifest file next to the scenario instead of inline.
  const std::size_t inline_at = text.find("    inline:");
  const std::size_t spec_end = text.find("expect:");
  std::string manifest = text.substr(text.find("      apiVersion: kubeflow.org"), spec_end - text.find("      apiVersion: kubeflow.org"));
  std::string unindented;
  std::istringstream lines(manifest);
  for (std::string line; std::getline(lines, line);) unindented += line.substr(std::min<std::size_t>(6, line.size())) + "\n";
  std::ofstream(dir / "manifests" / "job.yaml") << unindented;
  text = text.substr(0, inline_at) + "    manifest: manifests/job.yaml\n" + text.substr(spec_end);
  const Scenario base = LoadFile(dir, text);
  const fs::path out = dir / "deep" / "out";
  const ScenarioFileText file = SeedScenarioFile(base, SeedScenario(base, 3, DrawFaults(base, {}, 3), false), false,
                                                 out.string(), "");
  ASSERT_EQ(file.error, "");
  EXPECT_NE(file.text.find("manifest: ../../manifests/job.yaml"), std::string::npos) << file.text;
  std::ofstream(out / "seed-3.yaml") << file.text;
  EXPECT_TRUE(LoadScenario((out / "seed-3.yaml").string()).ok());
}

// How many times `needle` occurs in `text`.
std::size_t Occurrences(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

TEST(ChaosCampaignTest, TheWrittenScenarioExpectsEveryInvariantOnceEvenWhenTheBaseAlreadyDoes) {
  const fs::path dir = TempDir("invariants-once");
  const Scenario base = LoadFile(dir, SmallScenario("", "  - {job: j, phase: Succeeded}\n  - {invariants: all}\n"));
  for (const bool keep : {false, true}) {
    SCOPED_TRACE(keep ? "keep expectations" : "invariants only");
    const ScenarioFileText file = SeedScenarioFile(base, SeedScenario(base, 2, DrawFaults(base, {}, 2), keep), keep,
                                                   dir.string(), "seed 2");
    ASSERT_EQ(file.error, "");
    EXPECT_EQ(Occurrences(file.text, "invariants"), 1u) << file.text;
    EXPECT_EQ(Occurrences(file.text, "phase: Succeeded"), keep ? 1u : 0u) << file.text;
    const fs::path path = dir / (keep ? "kept.yaml" : "invariants.yaml");
    std::ofstream(path) << file.text;
    ScenarioLoad again = LoadScenario(path.string());
    ASSERT_TRUE(again.ok()) << (again.problems.empty() ? "" : again.problems[0]) << "\n" << file.text;
    EXPECT_EQ(again.scenario->expectations.size(), keep ? 2u : 1u);
  }
}

TEST(ChaosCampaignTest, OutcomesDoNotDependOnTheNumberOfThreads) {
  const fs::path dir = TempDir("threads");
  const Scenario base = LoadFile(dir, SmallScenario("", ""));
  ChaosOptions options;
  options.rates.per_seed[FaultKind::kPodKill] = 2;
  const auto one = RunCampaign(base, options, 10, 17, {.jobs = 1});
  std::size_t calls = 0;
  const auto three = RunCampaign(base, options, 10, 17,
                                 {.jobs = 3, .on_finished = [&](const SeedOutcome&, std::size_t done, std::size_t total,
                                                                std::size_t) {
                                   ++calls;
                                   EXPECT_LE(done, total);
                                 }});
  EXPECT_EQ(calls, 8u);
  ASSERT_EQ(one.size(), 8u);
  ASSERT_EQ(three.size(), 8u);
  std::set<std::string> hashes;
  for (std::size_t i = 0; i < one.size(); ++i) {
    EXPECT_EQ(one[i].seed, 10 + i);
    EXPECT_EQ(three[i].seed, one[i].seed);
    EXPECT_EQ(three[i].trace_hash, one[i].trace_hash);
    EXPECT_EQ(three[i].failures, one[i].failures);
    EXPECT_EQ(three[i].drawn_faults, one[i].drawn_faults);
    hashes.insert(one[i].trace_hash);
  }
  EXPECT_EQ(hashes.size(), 8u);  // every seed ran something of its own
}

TEST(ChaosCampaignTest, ASeedFailsOnAnInvariantAndOnlyWithKeepExpectationsOnTheScenariosExpectations) {
  const fs::path dir = TempDir("judge");
  ChaosOptions quiet;
  quiet.rates.per_seed.clear();
  const SeedOutcome stuck = RunSeed(LoadFile(dir, Unschedulable()), quiet, 1);
  EXPECT_TRUE(stuck.failed);
  EXPECT_EQ(stuck.failure, "jobsTerminalOrProgressing");
  EXPECT_NE(stuck.detail.find("default/j"), std::string::npos) << stuck.detail;

  // The job succeeds, but the scenario expects it to fail: only --keep-expectations judges that.
  const Scenario wrong = LoadFile(dir, SmallScenario("", "  - {job: j, phase: Failed}\n"));
  EXPECT_FALSE(RunSeed(wrong, quiet, 1).failed);
  ChaosOptions keep = quiet;
  keep.keep_expectations = true;
  const SeedOutcome judged = RunSeed(wrong, keep, 1);
  EXPECT_TRUE(judged.failed);
  EXPECT_EQ(judged.failure, kExpectationFailed);
}

TEST(ChaosShrinkTest, RealRunsShrinkToTheFaultsTheFailureNeeds) {
  // Every node down for good from the start leaves the job Pending: jobsTerminalOrProgressing. The
  // watch drop and the slow network have nothing to do with it; one or two nodes down do not suffice
  // (one node of 4 GPUs holds the whole job).
  const fs::path dir = TempDir("shrink");
  const Scenario base = LoadFile(dir, SmallScenario("", ""));
  std::vector<FaultSpec> faults;
  auto add = [&](FaultKind kind, Micros at, const std::string& node = "", std::optional<Micros> duration = {}) {
    FaultSpec f;
    f.kind = kind;
    f.trigger.at = at;
    f.node = node;
    f.duration = duration;
    faults.push_back(f);
  };
  add(FaultKind::kWatchDrop, 0);
  add(FaultKind::kNodeDown, 0, "n-0");
  add(FaultKind::kNetworkSlow, 60 * kube::kSecond, "", 600 * kube::kSecond);
  faults.back().factor = 0.1;
  add(FaultKind::kNodeDown, 0, "n-1");
  add(FaultKind::kNodeDown, 0, "n-2");
  ChaosOptions options;
  auto still_fails = [&](const std::vector<FaultSpec>& f) {
    return RunSeedWithFaults(base, options, 7, f).failures.count("jobsTerminalOrProgressing") > 0;
  };
  ASSERT_TRUE(still_fails(faults));
  std::vector<std::string> steps;
  const ShrinkResult result = Shrink(faults, base.until, still_fails, 100, [&](const std::string& s) { steps.push_back(s); });
  ASSERT_EQ(result.faults.size(), 3u);
  for (const FaultSpec& f : result.faults) EXPECT_EQ(f.kind, FaultKind::kNodeDown);
  EXPECT_FALSE(result.budget_exhausted);
  EXPECT_FALSE(steps.empty());
  // Written as a scenario file, it fails `dglsim run` the same way.
  const ScenarioFileText file = SeedScenarioFile(base, SeedScenario(base, 7, result.faults, false), false, dir.string(), "");
  std::ofstream(dir / "shrunk.yaml") << file.text;
  std::ostringstream sink;
  EXPECT_EQ(RunScenarioCommand((dir / "shrunk.yaml").string(), {}, sink, sink), 1);
  EXPECT_NE(sink.str().find("jobsTerminalOrProgressing"), std::string::npos) << sink.str();
}

}  // namespace
}  // namespace harness::chaos
