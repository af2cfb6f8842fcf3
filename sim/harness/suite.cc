#include "sim/harness/suite.h"

#include "sim/harness/run_command.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>
#include <sstream>
#include <system_error>
#include <thread>

namespace harness {

std::vector<SuiteOutcome> RunSuite(const std::vector<std::string>& files, const SuiteOptions& options) {
  std::vector<SuiteOutcome> outcomes(files.size());
  if (files.empty()) return outcomes;
  std::size_t jobs = options.jobs > 0 ? options.jobs : std::max(1u, std::thread::hardware_concurrency());
  jobs = std::min(jobs, files.size());

  std::atomic<std::size_t> next{0};
  std::mutex done_mutex;
  std::size_t done = 0;
  auto work = [&] {
    for (std::size_t i = next++; i < files.size(); i = next++) {
      SuiteOutcome& o = outcomes[i];
      o.file = files[i];
      std::ostringstream out, err;
      auto start = std::chrono::steady_clock::now();
      o.code = RunScenarioCommand(files[i], {}, out, err);  // never throws
      o.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      o.output = out.str() + err.str();
      std::lock_guard<std::mutex> lock(done_mutex);
      ++done;
      if (options.on_finished) {
        try {
          options.on_finished(o, done, files.size());
        } catch (const std::exception&) {
          // Progress is a courtesy; a failing callback must not lose the results.
        }
      }
    }
  };
  // This thread runs scenarios too; a thread that cannot be started leaves its share to the others.
  std::vector<std::thread> threads;
  for (std::size_t t = 1; t < jobs; ++t) {
    try {
      threads.emplace_back(work);
    } catch (const std::system_error&) {
      break;
    }
  }
  work();
  for (auto& t : threads) t.join();
  return outcomes;
}

}  // namespace harness
