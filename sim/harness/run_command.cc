#include "sim/harness/run_command.h"

#include "sim/harness/expectations.h"
#include "sim/harness/report.h"
#include "sim/harness/runner.h"
#include "sim/harness/scenario.h"

#include <chrono>
#include <exception>
#include <fstream>
#include <iostream>

namespace harness {

int RunScenarioCommand(const std::string& path, const RunCommandOptions& options) {
  return RunScenarioCommand(path, options, std::cout, std::cerr);
}

int RunScenarioCommand(const std::string& path, const RunCommandOptions& options, std::ostream& out, std::ostream& err) {
  try {
    ScenarioLoad load = LoadScenario(path);
    for (const auto& w : load.warnings) err << w << "\n";
    if (!load.ok()) {
      for (const auto& p : load.problems) err << p << "\n";
      if (load.problems.empty()) err << path << ": the scenario could not be loaded\n";
      return 2;
    }
    // Wall time is measured for the report's wallSeconds only; nothing in the run reads it.
    auto wall_start = std::chrono::steady_clock::now();
    RunRecord record = RunScenario(*load.scenario, RunOptions{.seed = options.seed});
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    std::vector<ExpectationResult> results = EvaluateExpectations(*load.scenario, record);
    if (!options.quiet) out << FormatSummary(record, results);
    int code = AllPassed(results) ? 0 : 1;
    if (!options.json_path.empty()) {
      std::ofstream file(options.json_path);
      file << ReportJson(record, results, wall).dump(2) << "\n";
      if (!file) {
        err << options.json_path << ": cannot write the JSON report\n";
        return 1;
      }
    }
    return code;
  } catch (const std::exception& e) {
    err << path << ": internal error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace harness
