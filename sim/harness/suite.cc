#include "sim/harness/suite.h"

#include "sim/harness/parallel_runs.h"
#include "sim/harness/run_command.h"

#include <chrono>
#include <functional>
#include <sstream>

namespace harness {

std::vector<SuiteOutcome> RunSuite(const std::vector<std::string>& files, const SuiteOptions& options) {
  std::vector<SuiteOutcome> outcomes(files.size());
  auto run = [&](std::size_t i) {
    SuiteOutcome& o = outcomes[i];
    o.file = files[i];
    std::ostringstream out, err;
    auto start = std::chrono::steady_clock::now();
    o.code = RunScenarioCommand(files[i], {}, out, err);  // never throws
    o.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    o.output = out.str() + err.str();
  };
  std::function<void(std::size_t, std::size_t)> finished;
  if (options.on_finished) {
    finished = [&](std::size_t i, std::size_t done) { options.on_finished(outcomes[i], done, files.size()); };
  }
  RunInParallel(files.size(), options.jobs, run, finished);
  return outcomes;
}

}  // namespace harness
