#include "operator/controller/observed_phase.h"

#include "operator/controller/builders.h"

#include "fakeapi/client/json_path.h"

#include <string>

namespace dgl {
namespace {

bool AllStagePodsRunning(const JobPods& pods) {
  for (const auto& [role, wanted] : pods.wanted()) {
    if (!pods.AllRunning(role)) return false;
  }
  return true;
}

// A not-Running pod's wait, as `dglsim run`'s closing notes give it: the scheduler's reason while
// it is unbound, else the first init container not done or app container not running, with the
// kubelet's reason.
std::string PodWait(const PodView& p) {
  const std::string who = "pod " + p.Name();
  if (p.terminating) return who + " is being deleted";
  const kube::Json& pod = p.obj();
  if (p.NodeName().empty()) {
    if (const kube::Json* conditions = kube::JsonAt(pod, {"status", "conditions"}); conditions && conditions->is_array())
      for (const kube::Json& c : *conditions)
        if (kube::JsonString(c, {"type"}) == "PodScheduled" && kube::JsonString(c, {"status"}) == "False") {
          const std::string message = kube::JsonString(c, {"message"});
          return who + " is unschedulable" + (message.empty() ? "" : ": " + message);
        }
    return who + " is not scheduled yet";
  }
  for (const char* list : {"initContainerStatuses", "containerStatuses"}) {
    const kube::Json* statuses = kube::JsonAt(pod, {"status", list});
    if (!statuses || !statuses->is_array()) continue;
    for (const kube::Json& c : *statuses) {
      const bool init = list[0] == 'i';
      const kube::Json* t = kube::JsonAt(c, {"state", "terminated"});
      if (init && t && kube::JsonInt(*t, {"exitCode"}, -1) == 0) continue;
      if (!init && kube::JsonAt(c, {"state", "running"})) continue;
      std::string state = kube::JsonAt(c, {"state", "running"}) ? "running" : "waiting";
      if (const std::string reason = kube::JsonString(c, {"state", "waiting", "reason"}); !reason.empty()) state += ": " + reason;
      if (t) state = "exited " + std::to_string(kube::JsonInt(*t, {"exitCode"}));
      return who + " on " + p.NodeName() + ": " + (init ? "init container " : "container ") +
             kube::JsonString(c, {"name"}) + " " + state;
    }
  }
  return who + " is " + std::string(p.phase) + " on " + p.NodeName();
}

// What the stage's pods wait for: the first wanted pod (each replica type's by index, then the
// launcher, which waits for them in its init containers) that is missing or not Running, as
// ": <wait>"; "" when every one runs.
std::string StageWait(const JobPods& pods, bool with_launcher) {
  for (const auto& [role, wanted] : pods.wanted()) {
    const auto& indexed = pods.Indexed(role);
    for (std::int64_t i = 0; i < wanted; ++i) {
      auto it = indexed.find(i);
      if (it == indexed.end()) return ": the " + role + " pod of index " + std::to_string(i) + " is not created yet";
      if (!it->second.Running()) return ": " + PodWait(it->second);
    }
  }
  if (with_launcher && pods.launcher() && !pods.launcher()->Running()) return ": " + PodWait(*pods.launcher());
  return "";
}

std::string Partitioning(PartitionMode mode) {
  return mode == PartitionMode::kParMetis ? "ParMETIS (pm_dglpart)" : "The DGL API";
}

PhaseObservation ObserveSkip(const JobPods& pods) {
  if (pods.launcher() && pods.launcher()->Running()) {
    return {kPhaseTraining, kReasonLauncherRunning, "The launcher trains on one machine"};
  }
  return {kPhasePending, kReasonPodsPending,
          "Waiting for the launcher to start" + (pods.launcher() ? ": " + PodWait(*pods.launcher()) : std::string())};
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
  return {kPhasePending, kReasonPodsPending, "Waiting for the workers and the launcher to start" + StageWait(pods, true)};
}

// SSP and SMP: a partitioner pod first (unless the partitions are kept), then the workers.
PhaseObservation ObservePartitionerPod(PartitionMode mode, const JobPods& pods, bool partitions_kept) {
  const auto& partitioner = pods.partitioner();
  const bool launcher_running = pods.launcher() && pods.launcher()->Running();
  if (partitions_kept || (partitioner && !partitioner->terminating && partitioner->Succeeded())) {
    if (launcher_running && AllStagePodsRunning(pods)) {
      return {kPhaseTraining, kReasonTrainingRunning, "The launcher dispatched the partitions and is training"};
    }
    return {kPhasePartitioned, kReasonPartitionerSucceeded, "Partitions are ready; waiting for the workers" + StageWait(pods, true)};
  }
  if (partitioner && partitioner->Running()) {
    return {kPhasePartitioning, kReasonPartitionerRunning,
            Partitioning(mode) + " is partitioning the graph in " + partitioner->Name()};
  }
  return {kPhasePending, kReasonPodsPending,
          "Waiting for the partitioner to start" +
              (partitioner ? ": " + PodWait(*partitioner) : std::string(": its pod is not created yet"))};
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
            (present ? "Partitions are ready on the launcher's volume; waiting for the workers"
                     : "Partitions are ready on the launcher's PersistentVolumeClaim; waiting for the workers") +
                StageWait(pods, false)};
  }
  if (state == "running") {
    return {kPhasePartitioning, kReasonPartitionerRunning,
            Partitioning(mode) + " is partitioning the graph in the init container " + kLauncherPartitioner + " of " +
                launcher->Name()};
  }
  return {kPhasePending, kReasonPodsPending, "Waiting for the launcher's partitioner to start: " + PodWait(*launcher)};
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
