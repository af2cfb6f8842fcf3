#include "sim/harness/run_command.h"

#include "fakeapi/server/audit_log.h"

#include "sim/cluster/simulation.h"
#include "sim/harness/checks/expectations.h"
#include "sim/harness/config/scenario.h"
#include "sim/harness/config/units.h"
#include "sim/harness/output_file.h"
#include "sim/harness/report/report.h"
#include "sim/harness/report/report_html.h"
#include "sim/harness/report/trace_export.h"
#include "sim/harness/run/runner.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <functional>
#include <iostream>

namespace harness {
namespace {

// 1234567 -> "1,234,567" (n >= 0).
std::string Grouped(std::int64_t n) {
  const std::string digits = std::to_string(n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

// A line on `err` each time the run passes another hundredth of `until`, in simulated time.
std::function<void(sim::Simulation&)> ProgressPrinter(Micros until, std::ostream& err) {
  return [until, &err, said = std::int64_t{0}](sim::Simulation& sim) mutable {
    if (until <= 0) return;
    const std::int64_t percent = std::min<std::int64_t>(100, sim.Now() * 100 / until);
    if (percent <= said) return;
    said = percent;
    const fakeapi::StoreStats stats = sim.store().Stats();
    err << "progress: " << percent << "% (" << FormatDuration(sim.Now()) << " of " << FormatDuration(until)
        << " simulated), " << Grouped(static_cast<std::int64_t>(sim.engine().events_executed())) << " events, "
        << Grouped(stats.writes) << " API writes, " << Grouped(stats.objects) << " objects" << std::endl;
  };
}

}  // namespace

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
                                     std::pair{options.trace_path, "trace"}, std::pair{options.metrics_path, "metrics"},
                                     std::pair{options.audit_log_path, "audit log"}}) {
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
    RunOptions run{.seed = options.seed, .leave_to_exit = options.exits_after};
    fakeapi::AuditLog audit;
    if (!options.audit_log_path.empty()) {
      if (kube::Status opened = audit.Open(options.audit_log_path); !opened.ok()) {
        err << options.audit_log_path << ": " << opened.message() << "\n";
        return 2;
      }
      run.audit = &audit;
      run.leave_to_exit = false;  // the log is flushed and closed as the run's world goes
    }
    if (options.progress) run.after_step = ProgressPrinter(load.scenario->until, err);
    RunRecord record = RunScenario(*load.scenario, run);
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
    if (!options.metrics_path.empty() && !WriteReport(options.metrics_path, "metrics", record.operator_metrics, err))
      code = 2;
    if (run.audit) {
      audit.Flush();
      if (!audit.good()) {
        err << options.audit_log_path << ": cannot write the audit log\n";
        code = 2;
      }
    }
    return code;
  } catch (const std::exception& e) {
    err << path << ": internal error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace harness
