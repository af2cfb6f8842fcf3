// Why a job is not done when the run ends: for every job submitted that is neither terminal nor
// deleted at the end of a run, notes for the summary saying where it stands and what it waits on,
// one line for the job and one per pod of it that has not finished, from the API as it is:
//
//   job default/big ended the run in Partitioning (last condition Partitioning: ...)
//   job default/big waits on pod default/big-partitioner, Running on gpu-0: container main running since 1m2s
//   job default/big waits on pod default/big-worker-3, Pending: unschedulable: 0/3 nodes are available: ...
//   job default/big waits on pod default/big-launcher, Pending on gpu-1: init container kubectl-download
//       waiting: ImagePullBackOff (Back-off pulling image "...")
//
// A pod waits on the first init container that has not exited 0, or else on every app container
// that is not running (waiting with its reason and message, or exited with its code); an unbound
// pod on the scheduler's PodScheduled=False message; a pod being deleted on its deletion. A job
// with no pod says so, and a Suspended job says it was suspended.
#pragma once

#include "sim/harness/run/run_record.h"

#include <string>
#include <vector>

namespace fakeapi {
class Store;
}  // namespace fakeapi

namespace harness {

// The notes, job by job in submission order.
// `epoch`: the API time at simulated time 0.
std::vector<std::string> ExplainUnfinishedJobs(fakeapi::Store& store, const RunRecord& record, Micros epoch);

}  // namespace harness
