#include "sim/harness/chaos/campaign.h"

#include "sim/harness/chaos/scenario_file.h"
#include "sim/harness/checks/expectations.h"
#include "sim/harness/run/runner.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>

namespace harness::chaos {

SeedOutcome RunSeedWithFaults(const Scenario& base, const ChaosOptions& options, std::uint64_t seed,
                              const std::vector<FaultSpec>& drawn) {
  SeedOutcome o;
  o.seed = seed;
  o.drawn_faults = drawn.size();
  const auto start = std::chrono::steady_clock::now();
  try {
    const Scenario scenario = SeedScenario(base, seed, drawn, options.keep_expectations);
    const RunRecord record = RunScenario(scenario);
    o.trace_hash = record.trace_hash;
    for (const InvariantViolation& v : record.invariant_violations) {
      if (o.failure.empty()) {
        o.failure = v.name;
        o.detail = v.detail;
      }
      o.failures.insert(v.name);
    }
    if (options.keep_expectations) {
      for (const ExpectationResult& r : EvaluateExpectations(scenario, record)) {
        if (r.passed) continue;
        if (o.failure.empty()) {
          o.failure = kExpectationFailed;
          o.detail = r.text + ": " + r.detail;
        }
        o.failures.insert(kExpectationFailed);
      }
    }
  } catch (const std::exception& e) {
    o.failure = kInternalError;
    o.detail = e.what();
    o.failures.insert(kInternalError);
  }
  o.failed = !o.failures.empty();
  o.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return o;
}

SeedOutcome RunSeed(const Scenario& base, const ChaosOptions& options, std::uint64_t seed) {
  return RunSeedWithFaults(base, options, seed, DrawFaults(base, options.rates, seed, base.faults.size()));
}

std::vector<SeedOutcome> RunCampaign(const Scenario& base, const ChaosOptions& options, std::uint64_t first,
                                     std::uint64_t last, const CampaignOptions& campaign) {
  const std::size_t total = static_cast<std::size_t>(last - first) + 1;
  std::vector<SeedOutcome> outcomes(total);
  std::size_t jobs = campaign.jobs > 0 ? campaign.jobs : std::max(1u, std::thread::hardware_concurrency());
  jobs = std::min(jobs, total);
  std::atomic<std::size_t> next{0};
  std::mutex done_mutex;
  std::size_t done = 0, failed = 0;
  auto work = [&] {
    for (std::size_t i = next++; i < total; i = next++) {
      outcomes[i] = RunSeed(base, options, first + i);  // never throws
      std::lock_guard<std::mutex> lock(done_mutex);
      ++done;
      if (outcomes[i].failed) ++failed;
      if (!campaign.on_finished) continue;
      try {
        campaign.on_finished(outcomes[i], done, total, failed);
      } catch (const std::exception&) {
        // Progress is a courtesy; a failing callback must not lose the results.
      }
    }
  };
  // This thread runs seeds too; a thread that cannot be started leaves its share to the others.
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

}  // namespace harness::chaos
