// ObservePhase (operator/controller/observed_phase.h): a phase that waits says what it waits for,
// the pod and the scheduler's or the kubelet's reason, not a stage that is long over.
#include "operator/controller/observed_phase.h"

#include "fakeapi/client/client.h"

#include <gtest/gtest.h>

#include <string>

namespace dgl {
namespace {

using json = kube::Json;

kube::ObjectPtr ObservedPod(const std::string& name, const std::string& phase, const std::string& node, json status = {}) {
  if (!status.is_object()) status = json::object();
  status["phase"] = phase;
  return kube::ShareObject(json{{"metadata", {{"name", name}}}, {"spec", {{"nodeName", node}}}, {"status", status}});
}

constexpr const char* kNoGpus = "0/3 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/unreachable: }, "
                                "2 Insufficient nvidia.com/gpu.";

// Three 4-GPU workers, one node lost for good: the partitioner succeeded long ago, the launcher and
// two workers run, the third worker cannot be placed.
JobPods OneWorkerUnschedulable() {
  JobPods pods("sage", {{"worker", 3}});
  pods.Put(ObservedPod("sage-partitioner", "Succeeded", "cpu-0"));
  pods.Put(ObservedPod("sage-launcher", "Pending", "cpu-0",
                       {{"initContainerStatuses",
                         json::array({{{"name", "watcher-loop-partitioner"}, {"state", {{"terminated", {{"exitCode", 0}}}}}},
                                      {{"name", "watcher-loop-worker"}, {"state", {{"running", json::object()}}}}})}}));
  pods.Put(ObservedPod("sage-worker-0", "Running", "gpu-0"));
  pods.Put(ObservedPod("sage-worker-1", "Running", "gpu-1"));
  pods.Put(ObservedPod(
      "sage-worker-2", "Pending", "",
      {{"conditions", json::array({{{"type", "PodScheduled"}, {"status", "False"}, {"reason", "Unschedulable"}, {"message", kNoGpus}}})}}));
  return pods;
}

TEST(ObservedPhase, PartitionedNamesTheUnschedulableWorkerAndTheSchedulersReason) {
  const JobPods pods = OneWorkerUnschedulable();
  const PhaseObservation seen = ObservePhase(PartitionMode::kDglApi, PartitionerPlacement::kPod, pods);
  EXPECT_EQ(seen.phase, kPhasePartitioned);
  EXPECT_EQ(seen.message.find("partitioner to start"), std::string::npos) << seen.message;
  EXPECT_EQ(seen.message, std::string("Partitions are ready; waiting for the workers: pod sage-worker-2 is unschedulable: ") +
                              kNoGpus);
  // With every worker running, the launcher still in its init containers is named.
  JobPods workers_running = OneWorkerUnschedulable();
  workers_running.Put(ObservedPod("sage-worker-2", "Running", "gpu-1"));
  const PhaseObservation later = ObservePhase(PartitionMode::kDglApi, PartitionerPlacement::kPod, workers_running);
  EXPECT_EQ(later.message,
            "Partitions are ready; waiting for the workers: pod sage-launcher on cpu-0: init container watcher-loop-worker running");
}

TEST(ObservedPhase, PendingNamesWhatThePartitionerWaitsFor) {
  JobPods pods("sage", {{"worker", 1}});
  pods.Put(ObservedPod("sage-partitioner", "Pending", "gpu-0",
                       {{"containerStatuses",
                         json::array({{{"name", "main"}, {"state", {{"waiting", {{"reason", "ImagePullBackOff"}}}}}}})}}));
  const PhaseObservation seen = ObservePhase(PartitionMode::kDglApi, PartitionerPlacement::kPod, pods);
  EXPECT_EQ(seen.phase, kPhasePending);
  EXPECT_EQ(seen.message,
            "Waiting for the partitioner to start: pod sage-partitioner on gpu-0: container main waiting: ImagePullBackOff");
}

}  // namespace
}  // namespace dgl
