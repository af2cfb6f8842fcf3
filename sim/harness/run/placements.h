// The scenario's recorded placements (cluster.scheduler.placements, scenario.h's PlacementSpec) as
// a pod admission defaulter: the i-th pod of a named pod the API admits gets a required node
// affinity term on metadata.name In [nodes[i]], ANDed into each of its own terms (or the only term
// when it has none), as the DaemonSet controller pins its pods to their node. The scheduler then
// places it there when it fits, and nowhere else (it waits, unschedulable, while it does not);
// pods after the last listed node are left alone. A create the API refuses after admission (a name
// that is taken) still counts: the operator creates a pod only once its previous incarnation is gone.
//
// REQUIRES: single-threaded use; `sim` outlives what it installs.
#pragma once

#include "sim/cluster/simulation.h"
#include "sim/harness/config/scenario.h"

#include <vector>

namespace harness {

void InstallPlacements(sim::Simulation& sim, const std::vector<PlacementSpec>& placements);

}  // namespace harness
