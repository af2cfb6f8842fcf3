// `dglsim suite --jobs N`: scenarios run on several threads give exactly what they give one after
// the other (same exit codes, same summaries, same trace hashes), in the order of the files.
#include "sim/harness/suite.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace harness {
namespace {

const std::string kScenarios = std::string(DGLSIM_SOURCE_DIR) + "/scenarios/";

// Scenarios that use the randomness (API faults, scheduler jitter), faults, restarts and a real
// graph, so that runs sharing anything would show.
std::vector<std::string> Files() {
  std::vector<std::string> files;
  for (const char* name : {"worker-killed-restarts", "api-faults", "operator-restart", "node-down-during-training",
                           "twelve-workers-ipconfig", "partitioner-failures"}) {
    files.push_back(kScenarios + name + ".yaml");
    EXPECT_TRUE(std::filesystem::exists(files.back())) << files.back();
  }
  return files;
}

std::string TraceHash(const std::string& output) {
  auto at = output.find("trace hash ");
  if (at == std::string::npos) return "";
  return output.substr(at + 11, output.find('\n', at) - at - 11);
}

TEST(HarnessSuiteTest, FourThreadsGiveTheSameResultsAsOneInFileOrder) {
  std::vector<std::string> files = Files();
  std::vector<SuiteOutcome> one = RunSuite(files, {.jobs = 1});
  std::vector<SuiteOutcome> four = RunSuite(files, {.jobs = 4});
  ASSERT_EQ(one.size(), files.size());
  ASSERT_EQ(four.size(), files.size());
  for (std::size_t i = 0; i < files.size(); ++i) {
    SCOPED_TRACE(files[i]);
    EXPECT_EQ(one[i].file, files[i]);
    EXPECT_EQ(four[i].file, files[i]);
    EXPECT_EQ(one[i].code, 0) << one[i].output;
    EXPECT_EQ(four[i].code, one[i].code);
    EXPECT_FALSE(TraceHash(one[i].output).empty()) << one[i].output;
    EXPECT_EQ(TraceHash(four[i].output), TraceHash(one[i].output));
    EXPECT_EQ(four[i].output, one[i].output);  // the whole summary, not only the hash
  }
}

TEST(HarnessSuiteTest, TheSameScenarioOnEveryThreadAtOnceGivesOneHash) {
  std::vector<std::string> files(4, kScenarios + "api-faults.yaml");
  std::vector<SuiteOutcome> runs = RunSuite(files, {.jobs = 4});
  ASSERT_EQ(runs.size(), 4u);
  for (const auto& r : runs) {
    EXPECT_EQ(r.code, 0) << r.output;
    EXPECT_EQ(TraceHash(r.output), TraceHash(runs[0].output));
  }
}

TEST(HarnessSuiteTest, ProgressOncePerScenarioAndBadInputDoesNotStopTheOthers) {
  const std::string bad = ::testing::TempDir() + "/harness_suite_bad.yaml";
  std::ofstream(bad) << "apiVersion: dglsim/v1\nkind: Scenario\nseed: abc\n";
  std::vector<std::string> files = {kScenarios + "skip-mode.yaml", bad, kScenarios + "worker-killed-restarts.yaml"};
  std::vector<std::size_t> done;
  SuiteOptions options;
  options.jobs = 3;
  options.on_finished = [&](const SuiteOutcome&, std::size_t n, std::size_t total) {
    EXPECT_EQ(total, 3u);
    done.push_back(n);
  };
  std::vector<SuiteOutcome> outcomes = RunSuite(files, options);
  EXPECT_EQ(done, (std::vector<std::size_t>{1, 2, 3}));
  ASSERT_EQ(outcomes.size(), 3u);
  EXPECT_EQ(outcomes[0].code, 0) << outcomes[0].output;
  EXPECT_EQ(outcomes[1].code, 2);
  EXPECT_NE(outcomes[1].output.find(bad + ":3:7: seed: must be an integer"), std::string::npos) << outcomes[1].output;
  EXPECT_EQ(outcomes[2].code, 0) << outcomes[2].output;
}

TEST(HarnessSuiteTest, NoFilesNoRuns) {
  EXPECT_TRUE(RunSuite({}, {.jobs = 4}).empty());
}

}  // namespace
}  // namespace harness
