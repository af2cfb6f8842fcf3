// The page of one run (`dglsim run --html FILE`): one self-contained HTML file, inline CSS and
// SVG, nothing loaded from anywhere, readable without scripts.
//
// Sections: a header (scenario, description, seed, verdict, simulated time, events, nodes, GPUs,
// utilisation, trace hash); the jobs table (phase, partition mode, submitted, makespan, stage
// breakdown, peak memory per role, GPU-hours, restarts, pods; the workload models' predictions with
// their ranges, "partition 1.60 h (1.20 - 2.10 h)"); the timeline: one bar row per job with its phases, then a
// Gantt chart of pods on nodes (one row per node, pods on the slots of report_layout.h, coloured by
// job and shaded by role, the wait from binding to the first container start drawn lighter, node
// outages hatched, every bar with a tooltip); GPUs in use over time; the expectations with pass /
// fail; invariant violations; faults applied; notes. Time axes are in simulated time, with ticks in
// readable units (30s, 5m, 1h30m).
//
// Large runs stay small: with more nodes than HtmlOptions::max_node_rows or more pods than
// max_pod_bars the Gantt chart draws groups of nodes (each row: how many of its GPUs were in use
// over time) instead of pods, and jobs beyond max_job_rows (table) and max_phase_rows (phase chart)
// are left out; the page says what it aggregated or left out.
//
// Every text from the scenario is HTML-escaped. A short inline script (optional: the page is
// complete without it) highlights a job's bars on hover and writes what the page drew into
// data-* attributes of <body> (data-pod-bars, data-node-rows) once laid out, for the browser test.
// The page is a pure function of its inputs: no clock, no randomness.
#pragma once

#include "sim/harness/checks/expectations.h"
#include "sim/harness/run/runner.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace harness {

struct HtmlOptions {
  std::size_t max_node_rows = 200;  // more nodes: the Gantt chart aggregates
  std::size_t max_pod_bars = 5000;  // more pods: the Gantt chart aggregates
  std::size_t max_job_rows = 300;   // jobs listed in the table
  std::size_t max_phase_rows = 100; // jobs drawn in the phase chart (past 30, as thin rows)
};

std::string HtmlReport(const RunRecord& record, const std::vector<ExpectationResult>& results,
                       const HtmlOptions& options = {});

// `text` with &, <, >, " and ' replaced by entities; bytes that are not valid UTF-8, and control
// characters other than tab and newline, become U+FFFD: fit for HTML, SVG and any XML 1.0 text or
// attribute (the JUnit of dglsim chaos).
std::string HtmlEscape(std::string_view text);

}  // namespace harness
