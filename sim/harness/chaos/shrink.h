// The shrinker of `dglsim chaos --shrink`: reduces the drawn faults of a failing seed to a small
// schedule that still fails the same way, so that a person can read it and check it in as a
// regression scenario.
//
// `still_fails(faults)` runs the scenario with those faults and says whether it still fails the
// same way (the CLI: the same invariant is violated; tests pass a predicate of their own). The
// shrinker calls it at most `max_runs` times, in this order, and keeps every change that still fails:
// 1. no drawn fault at all (the failure does not need one);
// 2. delta debugging (Zeller's ddmin): drop halves, then quarters, ... then single faults;
// 3. per fault, in order, while any of these still fails (passes repeat until nothing changes):
//    move it later (an `at` halfway to `until`), halve its `for` (whole seconds, at least 1 s),
//    halve each ApiFaults rate (grid of 0.001) and latency, bring a NetworkSlow factor halfway to 1
//    (grid of 0.01).
// Every accepted step is reported through `on_step` as one line. Values stay on the grids the
// schedule draws on, so the result writes exactly into a scenario file.
#pragma once

#include "sim/harness/config/scenario.h"

#include <functional>
#include <string>
#include <vector>

namespace harness::chaos {

struct ShrinkResult {
  std::vector<FaultSpec> faults;  // the smallest schedule found that still fails
  int runs = 0;                   // predicate calls made
  bool budget_exhausted = false;  // stopped at max_runs, perhaps before the smallest
};

ShrinkResult Shrink(std::vector<FaultSpec> faults, Micros until,
                    const std::function<bool(const std::vector<FaultSpec>&)>& still_fails, int max_runs,
                    const std::function<void(const std::string&)>& on_step = {});

// One line describing a fault, as the steps print it: "faults[3] NodeDown gpu-1 at 12m for 5m".
std::string DescribeFault(const FaultSpec& fault);

}  // namespace harness::chaos
