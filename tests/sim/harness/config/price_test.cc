// cluster.nodes[].pricePerHour and the annotation dglsim.io/price-per-hour: loaded, refused when
// wrong, and turned into the JSON report's cost.
#include "sim/harness/config/scenario.h"
#include "sim/harness/report/report.h"
#include "sim/harness/run/runner.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace harness {
namespace {

const std::string kPriceDataDir = std::string(DGLSIM_SOURCE_DIR) + "/tests/sim/data/sweep";

std::string Text(const std::string& price) {
  return R"(apiVersion: dglsim/v1
kind: Scenario
cluster:
  nodes:
    - {name: gpu, count: 2, capacity: {cpu: "8", nvidia.com/gpu: "1"})" + price + R"(}
)";
}

TEST(ScenarioPrice, TemplatesSumTheirNodes) {
  ScenarioLoad load = LoadScenarioString(Text(", pricePerHour: 2.5"), "p.yaml", kPriceDataDir);
  ASSERT_TRUE(load.ok()) << load.problems.front();
  EXPECT_DOUBLE_EQ(load.scenario->cluster.PricePerHour(), 5.0);
  EXPECT_DOUBLE_EQ(LoadScenarioString(Text(""), "p.yaml", kPriceDataDir).scenario->cluster.PricePerHour(), 0.0);
}

TEST(ScenarioPrice, BadPricesAreRefusedWithTheirPlace) {
  ScenarioLoad negative = LoadScenarioString(Text(", pricePerHour: -1"), "p.yaml", kPriceDataDir);
  ASSERT_EQ(negative.problems.size(), 1u);
  EXPECT_EQ(negative.problems[0], "p.yaml:5:86: cluster.nodes[0].pricePerHour: must be at least 0.0, got -1");
  ScenarioLoad text = LoadScenarioString(Text(", pricePerHour: cheap"), "p.yaml", kPriceDataDir);
  ASSERT_EQ(text.problems.size(), 1u);
  EXPECT_NE(text.problems[0].find("pricePerHour: must be a number"), std::string::npos) << text.problems[0];
}

TEST(ScenarioPrice, NodeManifestsCarryItAsAnAnnotation) {
  const std::string dir = ::testing::TempDir() + "/price-nodes";
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/nodes.yaml") << R"(apiVersion: v1
kind: NodeList
items:
  - metadata: {name: a, annotations: {dglsim.io/price-per-hour: "1.25"}}
    status: {capacity: {cpu: "4"}}
  - metadata: {name: b, annotations: {dglsim.io/price-per-hour: "lots"}}
    status: {capacity: {cpu: "4"}}
)";
  const std::string scenario = "apiVersion: dglsim/v1\nkind: Scenario\ncluster:\n  nodes: [{manifest: nodes.yaml}]\n";
  ScenarioLoad load = LoadScenarioString(scenario, "s.yaml", dir);
  ASSERT_EQ(load.problems.size(), 1u);
  EXPECT_NE(load.problems[0].find("items[1].metadata.annotations[dglsim.io/price-per-hour]: must be a price per hour"),
            std::string::npos)
      << load.problems[0];
  std::ofstream(dir + "/nodes.yaml") << "apiVersion: v1\nkind: Node\nmetadata: {name: a, annotations: {dglsim.io/price-per-hour: \"1.25\"}}\n";
  ScenarioLoad good = LoadScenarioString(scenario, "s.yaml", dir);
  ASSERT_TRUE(good.ok()) << good.problems.front();
  EXPECT_DOUBLE_EQ(good.scenario->cluster.PricePerHour(), 1.25);
}

// The price changes the report: the cost is the price times the hours the cluster was needed.
TEST(ScenarioPrice, TheReportCostsTheSpan) {
  ScenarioLoad load = LoadScenario(kPriceDataDir + "/small.yaml");
  ASSERT_TRUE(load.ok());
  const RunRecord record = RunScenario(*load.scenario);
  const kube::Json report = ReportJson(record, {});
  EXPECT_DOUBLE_EQ(report["cluster"]["pricePerHour"].get<double>(), 6.0);
  EXPECT_GT(RunSpanSeconds(record), 1200.0);
  EXPECT_DOUBLE_EQ(report["cluster"]["cost"].get<double>(), 6.0 * RunSpanSeconds(record) / 3600);
  EXPECT_NE(FormatSummary(record, {}).find("  cost "), std::string::npos);

  Scenario unpriced = *load.scenario;
  unpriced.cluster.nodes[0].node_template->price_per_hour = 0;
  const kube::Json free = ReportJson(RunScenario(unpriced), {});
  EXPECT_TRUE(free["cluster"]["cost"].is_null());
  EXPECT_TRUE(free["cluster"]["pricePerHour"].is_null());
}

}  // namespace
}  // namespace harness
