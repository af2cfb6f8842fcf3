// The phase a DGLJob's current pods show, with the reason and message of its condition: a pure
// function of the partition mode and the pods, computed in the same pass that read them (the
// original lagged one reconcile). Failures, restarts, suspension and deadlines are decided
// elsewhere (failure_policy.h, the reconcile pass); this only reads progress.
#pragma once

#include "operator/api/types.h"
#include "operator/controller/job_pods.h"

#include <string>

namespace dgl {

struct PhaseObservation {
  std::string phase, reason, message;
};

// Training needs the launcher and every wanted worker, server, sampler and trainer pod Running.
PhaseObservation ObservePhase(PartitionMode mode, PartitionerPlacement placement, const JobPods& pods);

}  // namespace dgl
