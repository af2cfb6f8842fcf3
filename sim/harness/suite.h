// A suite is many scenario files run as `dglsim run` would run each one, on a pool of threads
// (parallel_runs.h).
//
// Every scenario run is a Simulation of its own (its engine, store, actors and random streams);
// nothing in fakeapi/, operator/ or sim/ is shared between runs but immutable function-local
// constants, so runs on different threads do not interact and each gives the trace hash it gives
// alone. The outcomes come back in the order of `files`, whatever order the runs finish in.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace harness {

struct SuiteOutcome {
  std::string file;
  int code = 0;              // RunScenarioCommand's: 0 passed, 1 failed, 2 bad input
  double wall_seconds = 0;   // measured for the report only; nothing reads it in a run
  std::string output;        // the run's summary and messages (stdout, then stderr)
};

struct SuiteOptions {
  // Threads; 0 = one per hardware thread. Never more than there are files.
  std::size_t jobs = 0;
  // Called as each run finishes (in finishing order, `done` of `total`), one call at a time.
  std::function<void(const SuiteOutcome& outcome, std::size_t done, std::size_t total)> on_finished;
};

// Runs every file; the result has one outcome per file, in the order given. Never throws.
std::vector<SuiteOutcome> RunSuite(const std::vector<std::string>& files, const SuiteOptions& options = {});

}  // namespace harness
