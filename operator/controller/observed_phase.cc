#include "operator/controller/observed_phase.h"

#include "operator/controller/builders.h"

#include <string>

namespace dgl {
namespace {

bool AllStagePodsRunning(const JobPods& pods) {
  for (const auto& [role, wanted] : pods.wanted()) {
    if (!pods.AllRunning(role)) return false;
  }
  return true;
}

std::string Partitioning(PartitionMode mode) {
  return mode == PartitionMode::kParMetis ? "ParMETIS (pm_dglpart)" : "The DGL API";
}

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

// SSP and SMP: a partitioner pod first (unless the partitions are kept), then the workers.
PhaseObservation ObservePartitionerPod(PartitionMode mode, const JobPods& pods, bool partitions_kept) {
  const auto& partitioner = pods.partitioner();
  const bool launcher_running = pods.launcher() && pods.launcher()->Running();
  if (partitions_kept || (partitioner && !partitioner->terminating && partitioner->Succeeded())) {
    if (launcher_running && AllStagePodsRunning(pods)) {
      return {kPhaseTraining, kReasonTrainingRunning, "The launcher dispatched the partitions and is training"};
    }
    return {kPhasePartitioned, kReasonPartitionerSucceeded, "Partitions are ready; waiting for the workers"};
  }
  if (partitioner && partitioner->Running()) {
    return {kPhasePartitioning, kReasonPartitionerRunning,
            Partitioning(mode) + " is partitioning the graph in " + partitioner->Name()};
  }
  return {kPhasePending, kReasonPodsPending, "Waiting for the partitioner to start"};
}

// LauncherInit: the partitioner is the launcher's init container (absent when the partitions were
// already on the launcher's PersistentVolumeClaim).
PhaseObservation ObserveLauncherPartitioner(PartitionMode mode, const JobPods& pods) {
  const auto& launcher = pods.launcher();
  if (!launcher || launcher->terminating) return {kPhasePending, kReasonPodsPending, "Waiting for the launcher to start"};
  const bool present = InitContainerSpec(launcher->obj(), kLauncherPartitioner) != nullptr;
  const std::string state = present ? InitContainerState(launcher->obj(), kLauncherPartitioner) : "succeeded";
  if (launcher->Running() && AllStagePodsRunning(pods)) {
    return {kPhaseTraining, kReasonTrainingRunning, "The launcher dispatched the partitions and is training"};
  }
  if (state == "succeeded" || launcher->Running()) {
    return {kPhasePartitioned, kReasonPartitionerSucceeded,
            present ? "Partitions are ready on the launcher's volume; waiting for the workers"
                    : "Partitions are ready on the launcher's PersistentVolumeClaim; waiting for the workers"};
  }
  if (state == "running") {
    return {kPhasePartitioning, kReasonPartitionerRunning,
            Partitioning(mode) + " is partitioning the graph in the init container " + kLauncherPartitioner + " of " +
                launcher->Name()};
  }
  return {kPhasePending, kReasonPodsPending, "Waiting for the launcher's partitioner to start"};
}

}  // namespace

PhaseObservation ObservePhase(PartitionMode mode, PartitionerPlacement placement, const JobPods& pods,
                              bool partitions_kept) {
  switch (mode) {
    case PartitionMode::kSkip:
      return ObserveSkip(pods);
    case PartitionMode::kDistParMetis:
      return ObserveDistParMetis(pods);
    case PartitionMode::kDglApi:
    case PartitionMode::kParMetis:
      break;
  }
  if (placement == PartitionerPlacement::kLauncherInit) return ObserveLauncherPartitioner(mode, pods);
  return ObservePartitionerPod(mode, pods, partitions_kept);
}

}  // namespace dgl
