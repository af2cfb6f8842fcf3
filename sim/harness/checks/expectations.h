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
// - invariants: the named invariants (every one for `all`) had no violation. The runner checks
//   nodeNotOvercommitted (on every bind its watch sees), phasesMoveForward (except through
//   Restarting / Suspended), succeededOnlyIfLauncherSucceeded, noObjectsAfterDelete (at the end;
//   objects being deleted do not count), resourceVersionsIncrease (on every watched update of jobs
//   and pods) and, for `all`, jobsTerminalOrProgressing (every job terminal, deleted or suspended
//   at the end, or still changing when `until` cut the run); the InvariantChecker
//   (invariants.h) adds noPodOnNotReadyNode (on every bind) and noTrainingBeforePartition (on every
//   "load" / "training" stage a workload model reports). Each violation has its time and detail.
// - breakdown, peakMemory: not modelled yet: reported FAILED with detail "not modelled yet".
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

// The invariants the runner checks while the run goes.
const std::vector<std::string>& CheckedInvariants();

ExpectationResult EvaluateExpectation(const ExpectationSpec& spec, std::size_t index, const RunRecord& record);
std::vector<ExpectationResult> EvaluateExpectations(const Scenario& scenario, const RunRecord& record);

}  // namespace harness
