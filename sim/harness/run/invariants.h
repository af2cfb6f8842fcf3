// The InvariantChecker watches a run for two things the harness recorder's job timeline cannot see:
//
// - noPodOnNotReadyNode: a pod is bound (first seen with spec.nodeName) to a node whose Ready
//   condition is not True, or to a node that does not exist. Node and pod events come through
//   watches with the same latency, so the order in which the checker sees them is the order of
//   the writes: a node that goes NotReady after its pods were bound is no violation.
// - noTrainingBeforePartition: a pod of a job reports a "load" or "training" stage (through
//   sim::WorkloadObserver, forwarded by the runner) that begins before the job's partitions reached
//   it: the end of a "dispatch" stage of the same job no earlier than the reporting pod's creation
//   (a restarted job dispatches again to its new pods). DistParMETIS partitions in place on the
//   workers, so there the end of a "partition" stage counts as delivery too. Skip-mode jobs
//   (no partitions) and pods of no job are not checked.
//
// Violations and the number of checks go into the RunRecord (invariant_violations,
// invariant_checks), stamped with the simulated time the checker saw them. A job's partition mode
// is read from the record (JobRecord::partition_mode, which the runner's recorder fills in).
//
// REQUIRES: single-threaded use; `record` outlives the checker.
#pragma once

#include "sim/cluster/simulation.h"
#include "sim/harness/run/runner.h"

#include <nlohmann/json.hpp>

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace harness {

class InvariantChecker : public sim::Actor {
 public:
  InvariantChecker(sim::Simulation& sim, RunRecord& record);

  void Start() override;

  // `pod` spent [begin, end) in `stage` (the runner's WorkloadObserver forwards every report).
  void OnStage(const nlohmann::json& pod, std::string_view stage, Micros begin, Micros end);

 private:
  void OnNode(const nlohmann::json& node);
  void OnPod(const nlohmann::json& pod);
  void Violation(const std::string& name, const std::string& detail);

  RunRecord& record_;
  std::map<std::string, std::string> node_ready_;  // node -> Ready condition status as last seen
  std::set<std::string> bound_;                    // pod uids whose binding was checked
  // Job ("ns/name") -> end times of the stages that delivered its partitions, in report order.
  std::map<JobKey, std::vector<Micros>> deliveries_;
};

}  // namespace harness
