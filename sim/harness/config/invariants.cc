#include "sim/harness/config/invariants.h"

#include <algorithm>

namespace harness {

const std::vector<InvariantInfo>& Invariants() {
  static const std::vector<InvariantInfo> kRegistry = {
      {Invariant::kNodeNotOvercommitted, "nodeNotOvercommitted",
       "the pods bound to a node never request more cpu, memory, ephemeral-storage, GPUs or pods than its allocatable",
       "on every binding the checker's pod watch sees, against the node's allocatable at that moment"},
      {Invariant::kNoPodOnNotReadyNode, "noPodOnNotReadyNode",
       "no pod is bound to a node whose Ready condition is not True, or to a node that does not exist",
       "on every binding the checker's pod watch sees, against the node's Ready condition as its node watch saw it"},
      {Invariant::kSucceededOnlyIfLauncherSucceeded, "succeededOnlyIfLauncherSucceeded",
       "a job is Succeeded only after a launcher pod of it was seen Succeeded (every container exited 0)",
       "whenever the checker's job watch sees a job enter Succeeded"},
      {Invariant::kNoTrainingBeforePartition, "noTrainingBeforePartition",
       "no worker loads or trains before its job's partitions reached it (DistParMETIS partitions in place; Skip "
       "mode has none)",
       "on every load or training stage a workload model reports"},
      {Invariant::kPhasesMoveForward, "phasesMoveForward",
       "a job's phase only moves forward (back only through Restarting or Suspended), and never leaves Succeeded",
       "on every phase change the checker's job watch sees"},
      {Invariant::kNoObjectsAfterDelete, "noObjectsAfterDelete",
       "nothing of a deleted job (pods, its ConfigMap) is left once garbage collection ran; objects still being "
       "deleted do not count",
       "at the end of the run, for every job that was deleted"},
      {Invariant::kResourceVersionsIncrease, "resourceVersionsIncrease",
       "an object's resourceVersion only grows",
       "on every update of a job or a pod the checker's watches see"},
      {Invariant::kJobsTerminalOrProgressing, "jobsTerminalOrProgressing",
       "every job ends the run terminal, deleted or suspended, or was still changing (within the last hour) when "
       "`until` cut the run",
       "at the end of the run, for every job submitted"},
  };
  return kRegistry;
}

const InvariantInfo& InfoOf(Invariant invariant) {
  const auto& all = Invariants();
  return *std::find_if(all.begin(), all.end(), [&](const InvariantInfo& i) { return i.id == invariant; });
}

std::optional<Invariant> InvariantNamed(std::string_view name) {
  for (const InvariantInfo& i : Invariants())
    if (i.name == name) return i.id;
  return std::nullopt;
}

}  // namespace harness
