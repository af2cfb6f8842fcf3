#include "operator/controller/observed_phase.h"

#include "operator/controller/builders.h"

namespace dgl {
namespace {

PhaseObservation ObserveSkip(const JobPods& pods) {
  if (pods.launcher() && pods.launcher()->Running()) {
    return {kPhaseTraining, kReasonLauncherRunning, "The launcher trains on one machine"};
  }
  return {kPhasePending, kReasonPodsPending, "Waiting for the launcher to start"};
}

// MSP: the launcher's dist-partitioner init container runs ParMETIS on the workers.
PhaseObservation ObserveDistParMetis(const JobPods& pods) {
  const auto& launcher = pods.launcher();
  if (launcher && launcher->Running()) {
    return {kPhaseTraining, kReasonTrainingRunning, "The launcher is training on the workers"};
  }
  const std::string dist =
      launcher && !launcher->terminating ? InitContainerState(launcher->obj(), kDistPartitioner) : "";
  if (dist == "running") {
    return {kPhasePartitioning, kReasonDistPartitionerRunning, "ParMETIS is partitioning the graph with one rank per worker"};
  }
  if (dist == "succeeded") return {kPhasePartitioned, kReasonPartitionsReady, "Every worker holds its partition"};
  return {kPhasePending, kReasonPodsPending, "Waiting for the workers and the launcher to start"};
}

// SSP and SMP: a partitioner pod first, then the workers.
PhaseObservation ObservePartitionerPod(PartitionMode mode, const JobPods& pods) {
  const auto& partitioner = pods.partitioner();
  const bool launcher_running = pods.launcher() && pods.launcher()->Running();
  if (partitioner && !partitioner->terminating && partitioner->Succeeded()) {
    if (launcher_running && pods.AllRunning(kRoleWorker)) {
      return {kPhaseTraining, kReasonTrainingRunning, "The launcher dispatched the partitions and is training"};
    }
    return {kPhasePartitioned, kReasonPartitionerSucceeded, "Partitions are ready; waiting for the workers"};
  }
  if (partitioner && partitioner->Running()) {
    return {kPhasePartitioning, kReasonPartitionerRunning,
            std::string(mode == PartitionMode::kParMetis ? "ParMETIS (pm_dglpart)" : "The DGL API") +
                " is partitioning the graph in " + partitioner->Name()};
  }
  return {kPhasePending, kReasonPodsPending, "Waiting for the partitioner to start"};
}

}  // namespace

PhaseObservation ObservePhase(PartitionMode mode, const JobPods& pods) {
  switch (mode) {
    case PartitionMode::kSkip:
      return ObserveSkip(pods);
    case PartitionMode::kDistParMetis:
      return ObserveDistParMetis(pods);
    case PartitionMode::kDglApi:
    case PartitionMode::kParMetis:
      break;
  }
  return ObservePartitionerPod(mode, pods);
}

}  // namespace dgl
