// Reports of one run (shared/design/scenarios.md): the short human summary `dglsim run` prints and
// the JSON report of `--json`.
//
// The summary: the scenario, seed and end time; one line per job (phase, makespan, GPU-hours,
// restarts, pods, and "stage breakdown not modelled yet"); faults applied; notes; each expectation
// with PASS / FAIL and its detail; invariant violations; the trace hash.
//
// The JSON report has the documented fields. Values the simulator does not model yet are null
// (breakdown, peakMemoryBytes, idleGpuSeconds, cluster.gpuUtilization) rather than invented.
// Added fields: description, endedBy ("jobs" or "until"), traceRecords, faults, notes,
// jobs[].dataset, jobs[].deleted, cluster.pricePerHour and cluster.cost (RunSpanSeconds times the
// price; both null when no node has a pricePerHour). `wallSeconds` is the only field that differs run to run.
#pragma once

#include "sim/harness/checks/expectations.h"
#include "sim/harness/run/runner.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace harness {

// How long the cluster was needed: from the first job's submission to the last job's completion,
// or to the run's end when a job never completed; 0 without jobs. The cost is this times the
// cluster's price per hour.
double RunSpanSeconds(const RunRecord& record);

bool AllPassed(const std::vector<ExpectationResult>& results);
std::string FormatSummary(const RunRecord& record, const std::vector<ExpectationResult>& results);
// `wall_seconds` < 0: the field is omitted (for comparisons across runs).
nlohmann::json ReportJson(const RunRecord& record, const std::vector<ExpectationResult>& results,
                          double wall_seconds = -1);

}  // namespace harness
