// Running a sweep: every (point, seed) pair is one run, numbered point-major
// (run = point * seeds + seed index). A shard I of N (harness::Shard, sim/harness/shards.h) takes
// the runs whose number is I modulo N, so shards get a mix of points and their outputs interleave
// back into the unsharded order (results.h).
//
// Runs go on a pool of threads (parallel_runs.h, as `dglsim suite`'s): each run loads its point's
// scenario text and runs it in a Simulation of its own, so runs do not interact and a row is the
// same on any number of threads. Rows come back in run order whatever order they finish in.
#pragma once

#include "fakeapi/client/json.h"
#include "sim/harness/shards.h"
#include "sim/harness/sweep/sweep_file.h"

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace harness::sweep {

struct SweepRunOptions {
  std::size_t jobs = 0;  // threads; 0 = one per hardware thread
  Shard shard;
  // Called as each run finishes (in finishing order), one call at a time: `done` of `total` runs of
  // this shard.
  std::function<void(std::size_t done, std::size_t total)> on_finished;
};

// The number of runs of the whole sweep.
std::size_t RunCount(const SweepSpec& spec);

// One run's row (metrics.h), with run, point, seed and the point's parameter labels. A run that
// throws (a model's internal error) gives outcome "Error" with the message as its reason.
kube::Json RunOne(const SweepSpec& spec, std::size_t run);

// The rows of the shard's runs, in run order. Never throws.
std::vector<kube::Json> RunSweep(const SweepSpec& spec, const SweepRunOptions& options = {});

}  // namespace harness::sweep
