// A sweep's rows are what running each point alone gives, on any number of threads; shards merged
// give the unsharded outputs byte for byte, and slices that do not belong together do not merge.
#include "sim/harness/sweep/metrics.h"
#include "sim/harness/sweep/point_document.h"
#include "sim/harness/sweep/results.h"
#include "sim/harness/sweep/sweep_pages.h"
#include "sim/harness/sweep/sweep_runner.h"

#include "sim/harness/run/runner.h"

#include <gtest/gtest.h>

namespace harness::sweep {
namespace {

using json = kube::Json;

const std::string kSweepRunnerDataDir = std::string(DGLSIM_SOURCE_DIR) + "/tests/sim/data/sweep";

const SweepSpec& Spec() {
  static const SweepSpec spec = [] {
    SweepLoad load = LoadSweepFile(kSweepRunnerDataDir + "/small-sweep.yaml");
    EXPECT_TRUE(load.ok());
    return *load.spec;
  }();
  return spec;
}

const std::vector<json>& Rows() {
  static const std::vector<json> rows = RunSweep(Spec(), {.jobs = 3});
  return rows;
}

TEST(SweepRunner, RowsEqualEachPointRunAlone) {
  const SweepSpec& spec = Spec();
  ASSERT_EQ(Rows().size(), RunCount(spec));
  for (std::size_t run : {std::size_t{0}, std::size_t{3}, std::size_t{17}}) {
    const std::size_t point = run / spec.seeds.size();
    const std::uint64_t seed = spec.seeds[run % spec.seeds.size()];
    ScenarioLoad load = LoadScenarioString(PointScenarioText(spec, point, seed), "alone.yaml", spec.base_dir);
    ASSERT_TRUE(load.ok());
    EXPECT_EQ(load.scenario->seed, seed);
    json alone = RowOf(*load.scenario, RunScenario(*load.scenario));
    const json& row = Rows()[run];
    EXPECT_EQ(row["run"], run);
    EXPECT_EQ(row["point"], point);
    for (const auto& [key, value] : alone.items()) EXPECT_EQ(row[key], value) << "run " << run << " " << key;
  }
  // The sweep varies what it says: the 8Gi launcher is OOMKilled, the 16Gi one is not.
  EXPECT_EQ(Rows()[0]["outcome"], "Succeeded");
  EXPECT_EQ(Rows()[2]["outcome"], "Failed");
  EXPECT_EQ(Rows()[2]["lostTo"], "OOMKilled");
  EXPECT_NE(Rows()[0]["traceHash"], Rows()[1]["traceHash"]);  // two seeds, two runs
}

TEST(SweepRunner, OneThreadGivesTheSameRows) {
  EXPECT_EQ(RunSweep(Spec(), {.jobs = 1}), Rows());
}

TEST(SweepRunner, ShardsMergedEqualTheUnshardedOutputsByteForByte) {
  const json header = SweepHeader(Spec());
  const SweepResult whole = ResultOf(header, Rows());
  std::vector<json> slices;
  std::vector<std::string> names;
  for (std::size_t i : {2u, 0u, 1u}) {  // any order
    const Shard shard{i, 3};
    std::vector<json> rows;
    for (const json& row : Rows())
      if (shard.Takes(row["run"].get<std::size_t>())) rows.push_back(row);
    EXPECT_EQ(RunSweep(Spec(), {.jobs = 2, .shard = shard}), rows);
    slices.push_back(json::parse(SliceJson(header, shard, rows).dump()));
    names.push_back("slice" + std::to_string(i));
  }
  std::vector<std::string> problems;
  std::optional<SweepResult> merged = MergeSlices(slices, names, &problems);
  ASSERT_TRUE(merged) << problems.front();
  EXPECT_EQ(ResultCsv(*merged), ResultCsv(whole));
  EXPECT_EQ(ResultJsonText(*merged), ResultJsonText(whole));
  EXPECT_EQ(SweepHtml(*merged), SweepHtml(whole));
  EXPECT_EQ(SweepTable(*merged), SweepTable(whole));

  // A missing shard, a shard twice, a slice of another sweep: refused, each said.
  problems.clear();
  EXPECT_FALSE(MergeSlices({slices[0], slices[1], slices[1]}, {"a", "b", "c"}, &problems));
  EXPECT_EQ(problems, (std::vector<std::string>{"c: shard 0 again (also in b)", "shard 1 of 3 is missing"}));
  json other = slices[0];
  other["sweep"]["fingerprint"] = "0000000000000000";
  problems.clear();
  EXPECT_FALSE(MergeSlices({slices[1], other, slices[2]}, {"a", "b", "c"}, &problems));
  ASSERT_FALSE(problems.empty());
  EXPECT_NE(problems[0].find("b: a slice of another sweep"), std::string::npos) << problems[0];
}

TEST(SweepRunner, ShardsParse) {
  EXPECT_EQ(ParseShard("2/8")->index, 2u);
  EXPECT_EQ(ParseShard("2/8")->count, 8u);
  for (const char* bad : {"8/8", "1/0", "a/2", "1", "/2", "1/2x"}) EXPECT_FALSE(ParseShard(bad)) << bad;
}

TEST(SweepRunner, TheOutputsCarryEveryFigure) {
  const SweepResult whole = ResultOf(SweepHeader(Spec()), Rows());
  const std::string csv = ResultCsv(whole);
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "run,point,seed,workers,minutes,memory,outcome,lostTo,reason,partitionMode,makespanSeconds,spanSeconds,queueingSeconds,"
            "imagePullSeconds,downloadSeconds,prepareSeconds,partitionSeconds,dispatchSeconds,loadSeconds,trainingSeconds,gpuHours,providedGpuHours,idleGpuHours,"
            "lostGpuHours,partitionerPeakMemoryBytes,launcherPeakMemoryBytes,workerPeakMemoryBytes,serverPeakMemoryBytes,"
            "samplerPeakMemoryBytes,trainerPeakMemoryBytes,restarts,cost,busyCost,queueingP50Seconds,"
            "queueingP90Seconds,queueingP95Seconds,queueingP99Seconds,queueingMaxSeconds,gpuUtilization,trainingGpuUtilization,"
            "epochSeconds,jobs,nodes,nodeHours,peakNodes,poolNodes,interruptions,gpus,"
            "simulatedSeconds,traceHash");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 24);
  const std::string html = SweepHtml(whole);
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("Pareto front"), std::string::npos);
  EXPECT_NE(html.find("OOMKilled"), std::string::npos);  // failed points marked with their reason
  EXPECT_EQ(html.find("http://"), html.find("http://www.w3.org/2000/svg"));  // nothing fetched
  EXPECT_NE(html.find("<th>time per epoch</th>"), std::string::npos);
  EXPECT_NE(html.find("<th>GPU time training</th>"), std::string::npos);
}

std::vector<std::string> ChartIds(const SweepResult& result) {
  std::vector<std::string> ids;
  for (const NamedChart& chart : SweepCharts(result)) ids.push_back(chart.id);
  return ids;
}

TEST(SweepRunner, PlotsChartTheFiguresTheFileLists) {
  // By default: makespan and cost against each parameter, then the Pareto front.
  EXPECT_EQ(ChartIds(ResultOf(SweepHeader(Spec()), Rows())),
            (std::vector<std::string>{"makespan-vs-workers", "cost-vs-workers", "makespan-vs-minutes", "cost-vs-minutes",
                                      "makespan-vs-memory", "cost-vs-memory", "pareto"}));
  SweepSpec spec = Spec();
  spec.plots = {"epochTime", "trainingGpuUtilization", "gpuUtilization"};
  // The small sweep's jobs run the generic program (no epochs): give each run a time per epoch.
  std::vector<json> rows = Rows();
  for (json& row : rows) row["epochSeconds"] = 1.0 + row["point"].get<double>();
  const SweepResult result = ResultOf(SweepHeader(spec), rows);
  const std::vector<std::string> ids = ChartIds(result);
  ASSERT_EQ(ids.size(), 10u);
  EXPECT_EQ(std::vector<std::string>(ids.begin(), ids.begin() + 3),
            (std::vector<std::string>{"epoch-vs-workers", "training-utilisation-vs-workers", "utilisation-vs-workers"}));
  const NamedChart epoch = SweepCharts(result).front();
  EXPECT_EQ(epoch.chart.y_label, "time per epoch (seconds)");
  // Each succeeded point is on the chart at its time per epoch.
  std::size_t plotted = 0;
  for (const auto& series : epoch.chart.series) plotted += series.points.size();
  std::size_t succeeded = 0;
  for (const json& p : PointSummaries(result)) succeeded += p["outcome"] == "Succeeded" && p["epochSeconds"].is_number();
  EXPECT_GT(succeeded, 0u);
  EXPECT_EQ(plotted, succeeded);
  // The header carries the list, so merged slices chart the same.
  EXPECT_EQ(SweepHeader(spec)["plots"], json({"epochTime", "trainingGpuUtilization", "gpuUtilization"}));
  EXPECT_FALSE(SweepHeader(Spec()).contains("plots"));
}

}  // namespace
}  // namespace harness::sweep
