// Reports of one run (shared/design/scenarios.md): the short human summary `dglsim run` prints and
// the JSON report of `--json`.
//
// The summary: the scenario, seed and end time; one line per job (phase, makespan, GPU-hours,
// restarts, pods, dataset, stage breakdown), the predictions of the workload models with their
// ranges (`partition 1.60 h (1.20 - 2.10 h)`), and a second line with the roles' memory peaks and
// their ranges; faults applied; notes; each expectation with PASS / FAIL and its detail; invariant
// violations; the trace hash.
//
// The JSON report has the documented fields. Values the simulator does not model yet are null
// (idleGpuSeconds, cluster.gpuUtilization without GPUs) rather than invented. Added fields:
// description, endedBy ("jobs" or "until"), traceRecords, faults, notes, jobs[].dataset,
// jobs[].deleted, and the ranges jobs[].breakdownRange.STAGE, peakMemoryBytesRange.ROLE,
// makespanRange and gpuSecondsRange, each {low, high} (low = high where the models are sure).
// `wallSeconds` is the only field that differs run to run.
#pragma once

#include "sim/harness/checks/expectations.h"
#include "sim/harness/run/runner.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace harness {

bool AllPassed(const std::vector<ExpectationResult>& results);
std::string FormatSummary(const RunRecord& record, const std::vector<ExpectationResult>& results);
// `wall_seconds` < 0: the field is omitted (for comparisons across runs).
nlohmann::json ReportJson(const RunRecord& record, const std::vector<ExpectationResult>& results,
                          double wall_seconds = -1);

}  // namespace harness
