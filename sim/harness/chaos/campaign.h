// A chaos campaign (`dglsim chaos`): one scenario run once per seed of a range, each run with the
// fault schedule its seed draws (schedule.h) added to the scenario's own faults (scenario_file.h).
//
// A seed fails when its run violates any invariant of the registry (sim/harness/config/invariants.h,
// all checked on every run: among them every job ends terminal or still progressing, nothing of a
// deleted job is left, no node is over-committed), when the run throws, or, with keep_expectations,
// when an expectation of the scenario's `expect:` list fails.
//
// Seeds run on a pool of threads, each run a Simulation of its own (as the suite's, suite.h); the
// outcomes come back in seed order and do not depend on the number of threads: a seed's run reads
// nothing but the scenario, the options and the seed.
#pragma once

#include "sim/harness/chaos/schedule.h"
#include "sim/harness/config/scenario.h"
#include "sim/harness/shards.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

namespace harness::chaos {

struct ChaosOptions {
  ChaosRates rates;
  bool keep_expectations = false;  // also judge the scenario's own `expect:` list
};

// What failed, as a seed's outcome names it: an invariant's registry name, or one of these.
inline constexpr const char* kExpectationFailed = "expectation";
inline constexpr const char* kInternalError = "internalError";

struct SeedOutcome {
  std::uint64_t seed = 0;
  std::size_t drawn_faults = 0;
  bool failed = false;
  std::string failure;            // the first thing that failed ("" when it passed)
  std::string detail;             // what was seen, one line
  std::set<std::string> failures; // every invariant violated (and kExpectationFailed / kInternalError)
  std::string trace_hash;
  double wall_seconds = 0;        // measured for the report only
};

// Runs `base` for `seed` with `drawn` faults added, and judges it.
SeedOutcome RunSeedWithFaults(const Scenario& base, const ChaosOptions& options, std::uint64_t seed,
                              const std::vector<FaultSpec>& drawn);
// The same with the faults seed `seed` draws.
SeedOutcome RunSeed(const Scenario& base, const ChaosOptions& options, std::uint64_t seed);

struct CampaignOptions {
  std::size_t jobs = 0;  // threads; 0 = one per hardware thread; never more than seeds
  // Only the seeds first + i for which shard.Takes(i) (`dglsim chaos --shard I/N`): seeds first + I,
  // first + I + N, ... The default takes every seed.
  Shard shard;
  // Called as each seed finishes (in finishing order), one call at a time: done of total, failed so far.
  std::function<void(const SeedOutcome& outcome, std::size_t done, std::size_t total, std::size_t failed)> on_finished;
};

// Runs seeds first..last (inclusive), those of campaign.shard; one outcome per seed run, in seed
// order. REQUIRES first <= last.
std::vector<SeedOutcome> RunCampaign(const Scenario& base, const ChaosOptions& options, std::uint64_t first,
                                     std::uint64_t last, const CampaignOptions& campaign = {});

}  // namespace harness::chaos
