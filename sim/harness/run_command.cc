#include "sim/harness/run_command.h"

#include "sim/harness/checks/expectations.h"
#include "sim/harness/config/scenario.h"
#include "sim/harness/output_file.h"
#include "sim/harness/report/report.h"
#include "sim/harness/report/report_html.h"
#include "sim/harness/report/trace_export.h"
#include "sim/harness/run/runner.h"

#include <chrono>
#include <exception>
#include <iostream>

namespace harness {

// Writes `text` to `path`; on failure says so on `err` and returns false.
bool WriteReport(const std::string& path, const std::string& what, const std::string& text, std::ostream& err) {
  std::string why;
  if (WriteOutputFile(path, text, &why)) return true;
  err << path << ": cannot write the " << what << ": " << why << "\n";
  return false;
}

int RunScenarioCommand(const std::string& path, const RunCommandOptions& options) {
  return RunScenarioCommand(path, options, std::cout, std::cerr);
}

int RunScenarioCommand(const std::string& path, const RunCommandOptions& options, std::ostream& out, std::ostream& err) {
  try {
    for (const auto& [file, what] : {std::pair{options.json_path, "JSON report"}, std::pair{options.html_path, "HTML report"},
                                     std::pair{options.trace_path, "trace"}}) {
      if (file.empty()) continue;
      if (std::string why = CannotWrite(file); !why.empty()) {
        err << file << ": cannot write the " << what << ": " << why << "\n";
        return 2;
      }
    }
    ScenarioLoad load = LoadScenario(path, options.seed);
    for (const auto& w : load.warnings) err << w << "\n";
    if (!load.ok()) {
      for (const auto& p : load.problems) err << p << "\n";
      if (load.problems.empty()) err << path << ": the scenario could not be loaded\n";
      return 2;
    }
    // Wall time is measured for the report's wallSeconds only; nothing in the run reads it.
    auto wall_start = std::chrono::steady_clock::now();
    RunRecord record = RunScenario(*load.scenario, RunOptions{.seed = options.seed, .leave_to_exit = options.exits_after});
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    std::vector<ExpectationResult> results = EvaluateExpectations(*load.scenario, record);
    if (!options.quiet) out << FormatSummary(record, results);
    int code = AllPassed(results) ? 0 : 1;
    // A report that cannot be written is not a failed expectation: exit 2, whatever the verdict.
    if (!options.json_path.empty() &&
        !WriteReport(options.json_path, "JSON report", ReportJson(record, results, wall).dump(2) + "\n", err))
      code = 2;
    if (!options.html_path.empty() && !WriteReport(options.html_path, "HTML report", HtmlReport(record, results), err))
      code = 2;
    if (!options.trace_path.empty() && !WriteReport(options.trace_path, "trace", ChromeTrace(record), err)) code = 2;
    return code;
  } catch (const std::exception& e) {
    err << path << ": internal error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace harness
