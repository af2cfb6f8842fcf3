// Bad sweep files are refused before any point runs, every problem located in the sweep file
// (FILE:LINE:COL: path: message): its own fields, paths that are not in the base, and points the
// scenario loader refuses, located at the value that made them bad.
#include "sim/harness/sweep/sweep_file.h"

#include <gtest/gtest.h>

namespace harness::sweep {
namespace {

const std::string kSweepFileDataDir = std::string(DGLSIM_SOURCE_DIR) + "/tests/sim/data/sweep";

const std::string kHead = "apiVersion: dglsim/v1\nkind: Sweep\nbase: small.yaml\n";

std::vector<std::string> Problems(const std::string& body) { return LoadSweepString(kHead + body, "s.yaml", kSweepFileDataDir).problems; }

TEST(SweepFile, TheExampleLoadsEveryPoint) {
  SweepLoad load = LoadSweepFile(kSweepFileDataDir + "/small-sweep.yaml");
  ASSERT_TRUE(load.ok()) << load.problems.front();
  const SweepSpec& spec = *load.spec;
  EXPECT_EQ(spec.points.size(), 12u);  // 3 x 2 x 2, the first parameter slowest
  EXPECT_EQ(spec.PointLabel(1), "workers=1 minutes=10 memory=8Gi");
  EXPECT_EQ(spec.seeds, (std::vector<std::uint64_t>{1, 2}));  // `seeds: 2`: seeds 1..2 (the base's is 7)
  EXPECT_TRUE(spec.parameters[0].numeric);
  EXPECT_FALSE(spec.parameters[2].numeric);
  EXPECT_EQ(spec.objective.goal, Goal::kCheapest);
  EXPECT_EQ(spec.point_texts.size(), 12u);
}

TEST(SweepFile, SeedsAreOneToNForACountTheListAsWrittenAndTheBasesSeedByDefault) {
  const std::string parameter = "parameters:\n  - {name: workers, set: [\"jobs[0].inline.spec.dglReplicaSpecs.Worker.replicas\"], values: [1]}\n";
  auto seeds = [&](const std::string& line) {
    SweepLoad load = LoadSweepString(kHead + line + parameter, "s.yaml", kSweepFileDataDir);
    EXPECT_TRUE(load.ok()) << (load.problems.empty() ? "" : load.problems.front());
    return load.ok() ? load.spec->seeds : std::vector<std::uint64_t>{};
  };
  EXPECT_EQ(seeds("seeds: 3\n"), (std::vector<std::uint64_t>{1, 2, 3}));  // small.yaml has seed: 7
  EXPECT_EQ(seeds("seeds: [9, 4]\n"), (std::vector<std::uint64_t>{9, 4}));
  EXPECT_EQ(seeds(""), (std::vector<std::uint64_t>{7}));
}

TEST(SweepFile, APathNotInTheBaseIsAnErrorWithASuggestion) {
  const auto problems = Problems("parameters:\n  - {name: w, set: [\"jobs[0].inline.spec.dglReplicaSpecs.Worker.replica\"], values: [1]}\n");
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0],
            "s.yaml:5:21: parameters[0].set[0]: no \"replica\" in jobs[0].inline.spec.dglReplicaSpecs.Worker (did you mean "
            "\"replicas\"?): a sweep writes only fields the base scenario has");
  const auto index = Problems("parameters:\n  - {name: w, set: [\"cluster.nodes[3].count\"], values: [1]}\n");
  ASSERT_EQ(index.size(), 1u);
  EXPECT_NE(index[0].find("cluster.nodes has 1 items; there is no [3]"), std::string::npos) << index[0];
}

TEST(SweepFile, APointTheLoaderRefusesIsLocatedAtItsValue) {
  const auto problems = Problems(
      "parameters:\n"
      "  - name: nodes\n"
      "    set: [\"cluster.nodes[0].count\"]\n"
      "    values: [2, 0, \"many\"]\n");
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_EQ(problems[0], "s.yaml:7:17: parameters[0].values[1]: point 1 (nodes=0): cluster.nodes[0].count: must be at least 1, got 0");
  EXPECT_EQ(problems[1],
            "s.yaml:7:20: parameters[0].values[2]: point 2 (nodes=many): cluster.nodes[0].count: must be an integer, got a string");
}

TEST(SweepFile, ItsOwnFieldsAreChecked) {
  const auto problems = Problems(
      "parameters:\n"
      "  - {name: w, set: [\"cluster.nodes[0].count\"], values: [1, 1], colour: red}\n"
      "points: [{w: 1}, {v: 1}, {w: 3}]\n"
      "objective: {goal: quickest, queueing: {percentile: 97, under: 10m}}\n"
      "seeds: 0\n");
  const std::vector<std::string> expected = {
      "s.yaml:5:72: parameters[0].colour: unknown field \"colour\"",
      "s.yaml:5:60: parameters[0].values[1]: the value \"1\" is listed twice",
      "s.yaml:8:8: seeds: must be a count (1 to 10000) or a non-empty list of seeds, got 0",
      "s.yaml:7:19: objective.goal: unsupported value \"quickest\": one of fastest, cheapest",
      "s.yaml:7:52: objective.queueing.percentile: must be one of 50, 90, 95, 99, got 97",
  };
  EXPECT_EQ(problems, expected);
  const auto points = Problems("parameters:\n  - {name: w, set: [\"cluster.nodes[0].count\"], values: [1]}\npoints: [{w: 1}, {v: 1}, {w: 3}]\n");
  const std::vector<std::string> expected_points = {
      "s.yaml:6:22: points[1].v: no parameter named \"v\" (did you mean \"w\"?)",
      "s.yaml:6:30: points[2].w: parameter \"w\" has no value \"3\"",
  };
  EXPECT_EQ(points, expected_points);
}

TEST(SweepFile, PlotsNameKnownFiguresOnce) {
  SweepLoad load = LoadSweepString(kHead + "parameters:\n  - {name: w, set: [\"cluster.nodes[0].count\"], values: [1]}\n"
                                           "plots: [epochTime, cost]\n",
                                   "s.yaml", kSweepFileDataDir);
  ASSERT_TRUE(load.ok()) << load.problems.front();
  EXPECT_EQ(load.spec->plots, (std::vector<std::string>{"epochTime", "cost"}));
  const auto problems = Problems("parameters:\n  - {name: w, set: [\"cluster.nodes[0].count\"], values: [1]}\n"
                                 "plots: [epochtime, cost, cost, 3]\n");
  const std::vector<std::string> expected = {
      "s.yaml:6:9: plots[0]: unknown figure \"epochtime\" (did you mean \"epochTime\"?)",
      "s.yaml:6:26: plots[2]: figure \"cost\" is listed twice",
      "s.yaml:6:32: plots[3]: unknown figure \"3\": one of makespan, cost, busyCost, epochTime, gpuUtilization, "
      "trainingGpuUtilization, queueing",
  };
  EXPECT_EQ(problems, expected);
  EXPECT_EQ(Problems("parameters:\n  - {name: w, set: [\"cluster.nodes[0].count\"], values: [1]}\nplots: []\n"),
            std::vector<std::string>{"s.yaml:6:1: plots: must be a non-empty list of figures (makespan, cost, busyCost, "
                                     "epochTime, gpuUtilization, trainingGpuUtilization, queueing), got []"});
}

TEST(SweepFile, TheBaseScenarioMustLoad) {
  SweepLoad load = LoadSweepString("apiVersion: dglsim/v1\nkind: Sweep\nbase: missing.yaml\nparameters: []\n", "s.yaml", kSweepFileDataDir);
  ASSERT_FALSE(load.ok());
  EXPECT_NE(load.problems[0].find("missing.yaml"), std::string::npos) << load.problems[0];
  const auto seed = Problems("parameters:\n  - {name: s, set: [seed], values: [1]}\n");
  ASSERT_EQ(seed.size(), 1u);
  EXPECT_NE(seed[0].find("the seed is set by `seeds:`"), std::string::npos);
}

TEST(SweepFile, APathIntoAManifestFileInlinesIt) {
  SweepLoad load = LoadSweepString(
      "apiVersion: dglsim/v1\nkind: Sweep\nbase: ../../../../scenarios/ssp-products-2-workers.yaml\n"
      "parameters:\n  - {name: mode, set: [\"jobs[0].manifest.spec.partitionMode\"], values: [DGL-API, ParMETIS, Bogus]}\n",
      "s.yaml", kSweepFileDataDir);
  ASSERT_EQ(load.problems.size(), 1u);
  EXPECT_NE(load.problems[0].find("s.yaml:5:92: parameters[0].values[2]: point 2 (mode=Bogus): jobs[0].inline.spec.partitionMode"),
            std::string::npos)
      << load.problems[0];
}

}  // namespace
}  // namespace harness::sweep
