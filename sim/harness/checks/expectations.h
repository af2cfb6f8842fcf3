// Expectations: every `expect:` entry of a scenario judged against the record of a run, each with
// passed and a one-line detail saying what was seen.
//
// - phase: the job's last phase. phases: the listed phases occur in the timeline in this order
//   (others may sit between). condition (+reason, status): a condition of that type with that
//   status (and reason, if given) as last seen. within: submitted -> terminal no later than the
//   limit. restarts: status.restartCount equals the number.
// - configMap key lines / line matches: the ConfigMap's data at the end of the run, or as last
//   seen before it was deleted; lines are counted without a trailing empty line.
// - pods selector count: the number of matching pods at `at` (end, or a time).
// - nodes: the nodes the cluster has at `at` (end, or a time): the fixed ones, and the node pools'
//   nodes Ready by then and not yet removed or interrupted.
// - breakdown: the time the job spent in a stage (the union of the stage's intervals over its pods,
//   JobRecord::Breakdown) lies between the bounds. peakMemory: the largest memory use a container
//   of that role reported lies between the bounds.
// - invariants: no violation of the named invariants (every one of the registry for `all`,
//   sim/harness/config/invariants.h; the InvariantChecker of sim/harness/run/invariants.h checks
//   them all). The detail names the first three violations with their times.
// A job expectation about a job that was never submitted fails, saying so.
#pragma once

#include "sim/harness/config/scenario.h"
#include "sim/harness/run/runner.h"

#include <string>
#include <vector>

namespace harness {

struct ExpectationResult {
  std::string text;  // the expectation in one line
  bool passed = false;
  std::string detail;  // what was seen; "" when it passed with nothing to add
};

ExpectationResult EvaluateExpectation(const ExpectationSpec& spec, std::size_t index, const RunRecord& record);
std::vector<ExpectationResult> EvaluateExpectations(const Scenario& scenario, const RunRecord& record);

}  // namespace harness
