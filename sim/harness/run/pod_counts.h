// PodCountProbes count the pods matching each `pods:` expectation (namespace, label selector) at its
// `at`: a scheduled probe for a time, a count at the end for `at: end`. The counts go into
// RunRecord::pod_counts by expectation index; a probe whose time the run never reaches leaves none.
//
// REQUIRES: single-threaded use; the simulation and the record outlive the probes.
#pragma once

#include "sim/harness/config/scenario.h"
#include "sim/harness/run/run_record.h"
#include "sim/kernel/owned_events.h"

#include <vector>

namespace sim {
class Simulation;
}  // namespace sim

namespace harness {

class PodCountProbes {
 public:
  PodCountProbes(sim::Simulation& sim, RunRecord& record, const std::vector<ExpectationSpec>& expectations);

  // Schedules the timed probes. Call once, before the run.
  void Schedule();
  // Counts for the `at: end` expectations, now.
  void CountAtEnd();

 private:
  void Count(std::size_t index);

  sim::Simulation& sim_;
  RunRecord& record_;
  const std::vector<ExpectationSpec>& expectations_;
  sim::OwnedEvents events_;  // last: dies first
};

}  // namespace harness
