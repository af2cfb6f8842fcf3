// `dglsim run SCENARIO.yaml [--seed N] [--json FILE] [--html FILE] [--trace FILE] [--metrics FILE]
// [--audit-log FILE] [--quiet] [--progress]`: load, run, judge, report (--metrics: the in-simulation
// operator's metrics as a Prometheus scrape at the end of the run would read them; --audit-log: every
// API call as kube-apiserver's audit log). The reports are written whether or not the expectations
// hold. With `progress`, a line on `err` each time the run passes another hundredth of the
// scenario's `until` (simulated time, so the same lines for the same run), saying how far it is:
//   progress: 12% (23h02m of 8d simulated), 1,204,611 events, 206,337 API writes, 10,385 objects
// Progress changes nothing in the run: reports and trace hashes are the same with it.
// Exit codes: 0 every expectation holds; 1 an expectation or invariant failed; 2 bad input, with
// the loader's messages (FILE:LINE:COL: field: message) on `err`, or a report that cannot be
// written: a path refused before the run (a missing directory, a directory, no permission: nothing
// is simulated in vain) or a write that fails after it (a full disk, /dev/full), each said on `err`;
// the other reports are still written. An unexpected internal error (an exception from a model) is
// reported on `err` as "FILE: internal error: ..." with exit code 1. Never throws.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>

namespace harness {

struct RunCommandOptions {
  std::optional<std::uint64_t> seed;  // overrides the scenario's
  std::string json_path;              // "" = no JSON report
  std::string html_path;              // "" = no HTML page (report_html.h)
  std::string trace_path;             // "" = no Chrome trace (trace_export.h)
  std::string metrics_path;           // "" = no final scrape of the operator's metrics (Prometheus text)
  // "" = no audit log; else every API call of the run, one audit.k8s.io/v1 Event per line in
  // simulated time (fakeapi/server/audit_log.h), as kube-apiserver's --audit-log-path writes it.
  std::string audit_log_path;
  bool quiet = false;                 // no summary on `out`
  bool progress = false;              // progress lines on `err` (see above)
  bool exits_after = false;           // the process exits after this run (RunOptions::leave_to_exit)
};

int RunScenarioCommand(const std::string& path, const RunCommandOptions& options);
// Writes `text` to `path` (the `what` of messages: "JSON report"); on failure says so on `err`
// ("PATH: cannot write the JSON report: No space left on device") and returns false.
bool WriteReport(const std::string& path, const std::string& what, const std::string& text, std::ostream& err);
int RunScenarioCommand(const std::string& path, const RunCommandOptions& options, std::ostream& out, std::ostream& err);

}  // namespace harness
