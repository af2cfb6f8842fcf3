// Reports of one run (docs: the scenario format's reports): the short human summary `dglsim run`
// prints and the JSON report of `--json`.
//
// The summary: the scenario, seed and end time ("(until reached)" when `until` cut it); with node
// pools, a line of pool nodes requested, Ready, interrupted and node-hours paid; one line per
// job (phase, makespan, GPU-hours, restarts, pods, dataset, the stage breakdown recorded), the
// predictions of the workload models with their ranges (`partition 1.60 h (1.20 - 2.10 h)`), and a
// second line with the roles' memory peaks and their ranges; faults applied; notes (among them, for
// a job not done, what it waits on); each expectation with PASS / FAIL and its detail; the number of
// invariant violations; the trace hash.
//
// The JSON report has the documented fields: per job its phases, breakdown (every stage of
// kBreakdownStages, 0 when not recorded) and peakMemoryBytes (per role recorded), GPU-seconds;
// the cluster's nodes, GPUs, GPU-seconds and gpuUtilization (null without GPUs). idleGpuSeconds
// is not modelled and is null, never invented. Added fields: description, labels and annotations
// (the scenario's metadata), endedBy ("jobs" or "until"), traceRecords, faults, notes,
// jobs[].dataset, jobs[].deleted, the ranges jobs[].breakdownRange.STAGE, peakMemoryBytesRange.ROLE,
// makespanRange and gpuSecondsRange, each {low, high} (low = high where the models are sure),
// cluster.pricePerHour and cluster.cost (RunCost; both null when nothing is priced), with node
// pools cluster.pools: {poolNodes, interruptions, nodes: [{name, pool, spot, requested,
// ready, notice, gone, interrupted}]} (seconds), and `invariants`: every invariant of the registry with its description, the
// checks made and the violations found. `wallSeconds` is the only field that differs run to run.
#pragma once

#include "fakeapi/client/json.h"
#include "sim/harness/checks/expectations.h"
#include "sim/harness/run/runner.h"

#include <string>
#include <vector>

namespace harness {

// How long the cluster was needed: from the first job's submission to the last job's completion,
// or to the run's end when a job never completed; 0 without jobs. The cost is this times the
// cluster's price per hour.
double RunSpanSeconds(const RunRecord& record);
// When the span starts: the first job's submission (0 without one).
Micros RunSpanStart(const RunRecord& record);
// The seconds a pool node is paid for within the run: from its request (or the span's start, for a
// pool's minimum nodes, as the fixed nodes are paid from it) to its removal or interruption, even
// after the span's end (a pool shrinks some time after the last job), or to the span's end.
double PoolNodeBilledSeconds(const PoolNodeRecord& node, const RunRecord& record);
// What the nodes cost: the fixed nodes' price per hour times the span, plus each pool node's price
// times its billed time; nullopt when nothing is priced.
std::optional<double> RunCost(const RunRecord& record);

bool AllPassed(const std::vector<ExpectationResult>& results);
std::string FormatSummary(const RunRecord& record, const std::vector<ExpectationResult>& results);
// `wall_seconds` < 0: the field is omitted (for comparisons across runs).
kube::Json ReportJson(const RunRecord& record, const std::vector<ExpectationResult>& results,
                          double wall_seconds = -1);

}  // namespace harness
