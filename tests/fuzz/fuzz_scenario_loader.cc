// Fuzz target: the scenario loader (harness::LoadScenarioString), what `dglsim run`, `validate`,
// `suite`, `chaos` and `serve` do first with a file a user wrote. Relative paths resolve against the
// project's scenarios/ folder, so a fuzzed scenario can name its manifests and graphs. Any text is
// either a scenario or a list of problems, never a crash, a hang or a leak; every problem is located
// ("FILE:LINE:COL: field.path: message") in the scenario or in a file it names.
#include "sim/harness/config/scenario.h"
#include "tests/fuzz/fuzz_check.h"

#include <string>

using dglsim_fuzz::Require;

namespace {

// Digits at `at`, then `after`; advances `at` past both.
bool TakeNumber(const std::string& s, std::size_t& at, char after) {
  std::size_t start = at;
  while (at < s.size() && s[at] >= '0' && s[at] <= '9') ++at;
  if (at == start || at >= s.size() || s[at] != after) return false;
  ++at;
  return true;
}

// The scenario itself, or a file it names (a manifest, a node list, an edge list): "PATH:L:C: ...",
// one line.
bool Located(const std::string& problem) {
  if (problem.find('\n') != std::string::npos) return false;
  for (std::size_t colon = problem.find(':'); colon != std::string::npos; colon = problem.find(':', colon + 1)) {
    std::size_t at = colon + 1;
    if (TakeNumber(problem, at, ':') && TakeNumber(problem, at, ':') && at + 1 < problem.size() && problem[at] == ' ')
      return true;
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  harness::ScenarioLoad load =
      harness::LoadScenarioString(dglsim_fuzz::Text(data, size), "fuzz.yaml", DGLSIM_SOURCE_DIR "/scenarios");
  Require(load.scenario.has_value() == load.problems.empty(), "a scenario loads exactly when it has no problem");
  for (const std::string& problem : load.problems) Require(Located(problem), "every problem is located", problem);
  for (const std::string& warning : load.warnings) Require(Located(warning), "every warning is located", warning);
  return 0;
}
