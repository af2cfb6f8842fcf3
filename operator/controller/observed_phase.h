// The phase a DGLJob's current pods show, with the reason and message of its condition: a pure
// function of the partition mode and the pods, computed in the same pass that read them (the
// original lagged one reconcile). Failures, restarts, suspension and deadlines are decided
// elsewhere (failure_policy.h, the reconcile pass); this only reads progress.
//
// A message of a phase that waits names what it waits for, as `dglsim run`'s closing notes do: the
// first pod of the stage that is missing or not Running, and why (the scheduler's reason while it
// is unbound, "pod J-worker-2 is unschedulable: 0/4 nodes are available: ..."; else its first init
// container not done or app container not running, with the kubelet's reason).
#pragma once

#include "operator/api/types.h"
#include "operator/controller/job_pods.h"

#include <string>

namespace dgl {

struct PhaseObservation {
  std::string phase, reason, message;
};

// Training needs the launcher and every wanted worker, server, sampler and trainer pod Running.
// `partitions_kept`: the partitions exist without a partitioner pod (on the launcher's
// PersistentVolumeClaim from an earlier run, or already delivered to the current launcher), so a
// partitioner pod that is gone (evicted after it succeeded) reads as succeeded.
PhaseObservation ObservePhase(PartitionMode mode, PartitionerPlacement placement, const JobPods& pods,
                              bool partitions_kept = false);

}  // namespace dgl
