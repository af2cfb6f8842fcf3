#include "sim/harness/run_command.h"

#include "sim/harness/checks/expectations.h"
#include "sim/harness/config/scenario.h"
#include "sim/harness/report/report.h"
#include "sim/harness/report/report_html.h"
#include "sim/harness/report/trace_export.h"
#include "sim/harness/run/runner.h"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>

namespace harness {

std::string CannotWrite(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path p(path);
  if (fs::is_directory(p, ec)) return "it is a directory";
  fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  if (!fs::is_directory(dir, ec)) return "no such directory " + dir.string();
  if (fs::exists(p, ec) ? ::access(path.c_str(), W_OK) != 0 : ::access(dir.c_str(), W_OK | X_OK) != 0)
    return std::strerror(errno);
  return "";
}

bool WriteReport(const std::string& path, const std::string& what, const std::string& text, std::ostream& err) {
  errno = 0;
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (file) file << text;
  if (file) file.close();
  if (!file) {
    err << path << ": cannot write the " << what << (errno ? std::string(": ") + std::strerror(errno) : "") << "\n";
    return false;
  }
  return true;
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
    if (!options.html_path.empty() && !WriteReport(options.html_path, "HTML report", HtmlReport(record, results), err))
      return 1;
    if (!options.trace_path.empty() && !WriteReport(options.trace_path, "trace", ChromeTrace(record), err)) return 1;
    return code;
  } catch (const std::exception& e) {
    err << path << ": internal error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace harness
