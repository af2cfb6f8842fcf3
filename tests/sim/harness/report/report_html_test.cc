// The page of a run (--html): an SVG row per node and a bar per pod, the job phases, GPU use, the
// expectations; names from the scenario escaped; large runs aggregated to stay small; the same
// bytes for the same seed; and `dglsim run --html/--trace` writing the files or saying why not.
#include "sim/harness/report/report_html.h"

#include "sim/harness/checks/expectations.h"
#include "sim/harness/report/trace_export.h"
#include "sim/harness/run_command.h"
#include "tests/sim/harness/harness_test_util.h"
#include "tests/sim/harness/report/report_test_util.h"
#include "sim/harness/config/units.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace harness {
namespace {

using testing::Load;
using testing::SmallScenario;

std::size_t Count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

std::string Section(const std::string& html, const std::string& svg_id) {
  std::size_t begin = html.find("<svg id=\"" + svg_id + "\"");
  if (begin == std::string::npos) return "";
  return html.substr(begin, html.find("</svg>", begin) - begin);
}

TEST(HtmlReportTest, HasANodeRowPerNodeAPodBarPerPodAndThePhasesOfTheJob) {
  Scenario s = Load(SmallScenario("  - {at: 3m, kind: NodeDown, node: n-2, for: 1m}\n", "  - {job: j, phase: Succeeded}\n"));
  RunRecord r = RunScenario(s);
  auto results = EvaluateExpectations(s, r);
  std::string html = HtmlReport(r, results);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("</html>"), std::string::npos);
  std::string gantt = Section(html, "gantt");
  ASSERT_FALSE(gantt.empty());
  EXPECT_EQ(Count(gantt, "<g class=\"node\">"), 3u);
  EXPECT_EQ(Count(gantt, "<g class=\"pod\""), r.pods.size());
  for (const auto& pod : r.pods) EXPECT_NE(gantt.find(pod.ns + "/" + pod.name), std::string::npos) << pod.name;
  for (const char* node : {">n-0<", ">n-1<", ">n-2<"}) EXPECT_NE(gantt.find(node), std::string::npos) << node;
  EXPECT_NE(gantt.find("url(#down)"), std::string::npos);  // the outage of n-2
  std::string phases = Section(html, "phases");
  EXPECT_NE(phases.find(">Training<"), std::string::npos);
  EXPECT_NE(phases.find(">Succeeded<"), std::string::npos);
  EXPECT_EQ(Count(phases, "<g class=\"phasebar\""), r.jobs.at(JobKey{"default", "j"}).phases.size());
  EXPECT_NE(Section(html, "gpuchart").find("class=\"gpuarea\""), std::string::npos);
  // The summary, the expectations and the trace hash.
  EXPECT_NE(html.find("default/j"), std::string::npos);
  EXPECT_NE(html.find("PASS</span> job j phase Succeeded"), std::string::npos) << html.substr(html.find("expectations"), 600);
  EXPECT_NE(html.find(r.trace_hash), std::string::npos);
  EXPECT_NE(html.find("NodeDown n-2"), std::string::npos);
  // Self-contained: nothing loaded from anywhere.
  EXPECT_EQ(Count(html, "http"), Count(html, "http://www.w3.org/2000/svg"));  // only the SVG namespace
  for (const char* external : {"src=", "<link", "@import"}) EXPECT_EQ(html.find(external), std::string::npos) << external;
}

// A DGL job's row: every predicted stage and the peak memory with the models' ranges.
TEST(HtmlReportTest, TheJobsTableShowsPredictionsWithTheirRanges) {
  ScenarioLoad load = LoadScenario(std::string(DGLSIM_SOURCE_DIR) + "/scenarios/ssp-products.yaml");
  ASSERT_TRUE(load.ok());
  RunRecord r = RunScenario(*load.scenario);
  std::string html = HtmlReport(r, EvaluateExpectations(*load.scenario, r));
  const JobRecord& job = r.jobs.begin()->second;
  for (const char* stage : {"prepare", "partition", "training"}) {
    const auto [value, low, high] = job.StageRange(stage);
    EXPECT_NE(html.find(std::string(stage) + " " + FormatSpan(value, low, high)), std::string::npos) << stage;
  }
  EXPECT_NE(html.find("<th>Peak memory</th>"), std::string::npos);
  const auto peak = job.PeakRange("partitioner");
  ASSERT_TRUE(peak.has_value());
  EXPECT_NE(html.find("partitioner " + FormatBytesRange((*peak)[0], (*peak)[1], (*peak)[2])), std::string::npos);
}

TEST(HtmlReportTest, EscapesEveryNameFromTheScenario) {
  RunRecord r = testing::SyntheticRecord(2, 2, 2);
  const std::string evil = "<script>alert(1)</script>";
  r.scenario = evil;
  r.description = "\"quoted\" & " + evil;
  JobKey old_key = r.job_order[0], key{"default", evil};
  JobRecord job = r.jobs.at(old_key);
  job.key = key;
  job.dataset = evil;
  r.jobs.erase(old_key);
  r.jobs[key] = job;
  r.job_order[0] = key;
  for (auto& pod : r.pods)
    if (pod.job == old_key) {
      pod.job = key;
      pod.name = evil;
    }
  r.node_list[0].name = evil;
  for (auto& pod : r.pods)
    if (pod.node == "node-0") pod.node = evil;
  r.fault_log.push_back("1m PodKill " + evil);
  r.notes.push_back(evil);
  r.invariant_violations.push_back({"nodeNotOvercommitted", 0, evil});
  std::vector<ExpectationResult> results{{"job " + evil + " phase Succeeded", false, evil}};
  std::string html = HtmlReport(r, results);
  EXPECT_EQ(html.find("<script>alert"), std::string::npos);
  EXPECT_EQ(Count(html, "<script>"), 1u);  // the page's own
  EXPECT_GE(Count(html, "&lt;script&gt;alert(1)&lt;/script&gt;"), 8u);
  EXPECT_NE(html.find("&quot;quoted&quot; &amp; "), std::string::npos);
}

TEST(HtmlReportTest, EscapeReplacesBytesThatAreNotUtf8) {
  EXPECT_EQ(HtmlEscape("a<b>&\"'"), "a&lt;b&gt;&amp;&quot;&#39;");
  EXPECT_EQ(HtmlEscape("caf\xC3\xA9"), "caf\xC3\xA9");
  EXPECT_EQ(HtmlEscape("x\xFFy"), "x\xEF\xBF\xBDy");
  EXPECT_EQ(HtmlEscape("\xE2\x82"), "\xEF\xBF\xBD\xEF\xBF\xBD");  // cut short
  EXPECT_EQ(HtmlEscape("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD");  // overlong '/'
  EXPECT_EQ(HtmlEscape(std::string("a\0b", 3)), "a\xEF\xBF\xBD" "b");
}

TEST(HtmlReportTest, AThousandNodesAndTenThousandPodsStayUnderThreeMegabytes) {
  RunRecord r = testing::SyntheticRecord(1000, 1000, 10);
  ASSERT_EQ(r.pods.size(), 10000u);
  auto start = std::chrono::steady_clock::now();
  std::string html = HtmlReport(r, {});
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "[ info ] 1000 nodes, 10000 pods, 1000 jobs: " << html.size() << " bytes in " << seconds << " s\n";
  EXPECT_LT(html.size(), 3u * 1000 * 1000);
  std::string gantt = Section(html, "gantt");
  EXPECT_EQ(Count(gantt, "<g class=\"pod\""), 0u);  // aggregated
  EXPECT_EQ(Count(gantt, "<g class=\"node\">"), 100u);  // groups of 10 nodes
  EXPECT_NE(html.find("each row is a group of 10 nodes"), std::string::npos);
  EXPECT_EQ(Count(Section(html, "phases"), "<g class=\"phasebar\""), 100u * 4);  // 100 jobs, 4 phases each
  EXPECT_NE(html.find("Phases of the first 100 jobs by submission; 900 more not drawn"), std::string::npos);
  EXPECT_NE(html.find("700 more jobs not listed"), std::string::npos);  // the table lists 300
}

TEST(HtmlReportTest, UpToTheCapEveryPodGetsItsBar) {
  RunRecord r = testing::SyntheticRecord(150, 400, 10);  // 4000 pods on 150 nodes
  std::string html = HtmlReport(r, {});
  std::string gantt = Section(html, "gantt");
  EXPECT_EQ(Count(gantt, "<g class=\"node\">"), 150u);
  EXPECT_EQ(Count(gantt, "<g class=\"pod\""), 4000u);
  EXPECT_LT(html.size(), 3u * 1000 * 1000);
}

TEST(HtmlReportTest, TheSameSeedGivesTheSameBytes) {
  Scenario s = Load(SmallScenario("  - {at: 3m, kind: NodeDown, node: n-1, for: 2m}\n", "  - {job: j, phase: Succeeded}\n"));
  RunRecord a = RunScenario(s), b = RunScenario(s);
  EXPECT_EQ(HtmlReport(a, EvaluateExpectations(s, a)), HtmlReport(b, EvaluateExpectations(s, b)));
}

class ReportFilesTest : public ::testing::Test {
 protected:
  std::string dir_ = ::testing::TempDir() + "/report_files_test";
  std::string scenario_;
  void SetUp() override {
    std::filesystem::create_directories(dir_);
    scenario_ = dir_ + "/small.yaml";
    std::ofstream(scenario_) << SmallScenario("", "  - {job: j, phase: Succeeded}\n");
  }
  static std::string Read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
};

TEST_F(ReportFilesTest, RunWritesTheHtmlAndTheTraceByteIdenticallyRunToRun) {
  std::ostringstream out, err;
  RunCommandOptions options{.html_path = dir_ + "/a.html", .trace_path = dir_ + "/a.json", .quiet = true};
  ASSERT_EQ(RunScenarioCommand(scenario_, options, out, err), 0) << err.str();
  options.html_path = dir_ + "/b.html";
  options.trace_path = dir_ + "/b.json";
  ASSERT_EQ(RunScenarioCommand(scenario_, options, out, err), 0) << err.str();
  std::string html = Read(dir_ + "/a.html"), trace = Read(dir_ + "/a.json");
  EXPECT_NE(html.find("<svg id=\"gantt\""), std::string::npos);
  EXPECT_FALSE(kube::Json::parse(trace, nullptr, false).is_discarded());
  EXPECT_EQ(html, Read(dir_ + "/b.html"));
  EXPECT_EQ(trace, Read(dir_ + "/b.json"));
}

TEST_F(ReportFilesTest, AnOutputPathThatCannotBeWrittenIsBadUsageBeforeTheRun) {
  for (const std::string& bad : {dir_ + "/no-such-dir/r.html", dir_}) {
    std::ostringstream out, err;
    EXPECT_EQ(RunScenarioCommand(scenario_, {.html_path = bad}, out, err), 2) << bad;
    EXPECT_NE(err.str().find(bad + ": cannot write the HTML report"), std::string::npos) << err.str();
    EXPECT_TRUE(out.str().empty()) << "the run should not have started: " << out.str();
  }
  std::ostringstream out, err;
  EXPECT_EQ(RunScenarioCommand(scenario_, {.trace_path = dir_ + "/missing/t.json"}, out, err), 2);
  EXPECT_NE(err.str().find("cannot write the trace: no such directory"), std::string::npos) << err.str();
}

}  // namespace
}  // namespace harness
