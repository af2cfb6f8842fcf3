// The Chrome trace of one run (`dglsim run --trace FILE`): trace-event JSON in the "traceEvents"
// array form, which Perfetto (ui.perfetto.dev) and chrome://tracing open.
//
// What it holds (times are simulated microseconds from the scenario start, as the format wants):
// - process "jobs" (pid 1): a thread per job, in order of submission, with a complete ("X") slice
//   per phase the job was in, and an instant event when it reached Succeeded or Failed;
// - process "cluster" (pid 2): the counter "GPUs in use" (a step at every change), a thread
//   "faults" with an instant event per fault applied, and a thread "invariants" with one per
//   violation;
// - process "unscheduled pods" (pid 3), only when some pod was never bound: the pods' waits;
// - a process per node (pid 100 + its index in natural name order), named with its GPUs: a thread
//   per pod slot (see report_layout.h) with a slice per pod from binding to release, and inside it
//   a slice per container run and per stage its programs reported; a thread "node" with its
//   outages (NodeDown to NodeUp).
// On every thread slices are either disjoint or nested (a container inside its pod, a stage inside
// its container); a child that would overlap a sibling goes to an extra thread of the same slot
// ("slot 1 +1"), so no viewer has to guess. Children are clipped to their pod's slice.
//
// Metadata ("M") events name every process and thread and give their sort order. `otherData`
// holds the scenario, seed and trace hash. The output is a pure function of the record: the same
// scenario and seed give the same bytes.
#pragma once

#include "fakeapi/client/json.h"
#include "sim/harness/run/runner.h"

#include <string>

namespace harness {

kube::Json ChromeTraceJson(const RunRecord& record);
// ChromeTraceJson as text: one event per line, so the file diffs and greps well.
std::string ChromeTrace(const RunRecord& record);

}  // namespace harness
