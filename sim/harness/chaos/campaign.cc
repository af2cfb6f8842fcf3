#include "sim/harness/chaos/campaign.h"

#include "sim/harness/chaos/scenario_file.h"
#include "sim/harness/checks/expectations.h"
#include "sim/harness/parallel_runs.h"
#include "sim/harness/run/runner.h"

#include <chrono>
#include <exception>

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
  std::vector<std::uint64_t> seeds;
  for (std::uint64_t i = 0; i <= last - first; ++i)
    if (campaign.shard.Takes(static_cast<std::size_t>(i))) seeds.push_back(first + i);
  const std::size_t total = seeds.size();
  std::vector<SeedOutcome> outcomes(total);
  std::size_t failed = 0;  // counted in `finished`, which runs one call at a time
  RunInParallel(
      total, campaign.jobs, [&](std::size_t i) { outcomes[i] = RunSeed(base, options, seeds[i]); },  // never throws
      [&](std::size_t i, std::size_t done) {
        if (outcomes[i].failed) ++failed;
        if (campaign.on_finished) campaign.on_finished(outcomes[i], done, total, failed);
      });
  return outcomes;
}

}  // namespace harness::chaos
