// `dglsim run SCENARIO.yaml [--seed N] [--json FILE] [--quiet]`: load, run, judge, report.
// Exit codes: 0 every expectation holds; 1 an expectation or invariant failed (or the JSON report
// could not be written); 2 bad input, with the loader's messages (FILE:LINE:COL: field: message)
// on `err`. An unexpected internal error (an exception from a model) is reported on `err` as
// "FILE: internal error: ..." with exit code 1. Never throws.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>

namespace harness {

struct RunCommandOptions {
  std::optional<std::uint64_t> seed;  // overrides the scenario's
  std::string json_path;              // "" = no JSON report
  bool quiet = false;                 // no summary on `out`
};

int RunScenarioCommand(const std::string& path, const RunCommandOptions& options);
int RunScenarioCommand(const std::string& path, const RunCommandOptions& options, std::ostream& out, std::ostream& err);

}  // namespace harness
