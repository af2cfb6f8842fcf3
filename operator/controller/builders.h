// Builders are pure functions from a (defaulted, validated) DGLJob to the objects the operator
// creates for it: the ConfigMap with the hand-off files, least-privilege RBAC, the headless worker
// Service, the PodGroup and the pods. They keep what the original operator's dglrun images rely on
// (pod names, ConfigMap keys, init containers, env, volumes; shared/reference/original-operator.md)
// and fix its defects (numeric worker order, numServers ports instead of 20, one Service).
// No API calls, no clock: the reconciler decides what to create and when.
#pragma once

#include "operator/api/dgljob_api.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <set>
#include <optional>
#include <string>
#include <string_view>

namespace dgl {

// Where dglrun keeps the partitions; a PersistentVolumeClaim mounted here survives restarts.
inline constexpr const char* kDatasetPath = "/dgl_workspace/dataset";
// The coscheduling plugin's pod label naming the PodGroup.
inline constexpr const char* kLabelPodGroup = "scheduling.x-k8s.io/pod-group";
// Names of the operator's init containers.
inline constexpr const char* kKubectlDownload = "kubectl-download";
inline constexpr const char* kWatcherPartitioner = "watcher-loop-partitioner";
inline constexpr const char* kWatcherWorker = "watcher-loop-worker";
inline constexpr const char* kDistPartitioner = "dist-partitioner";

struct BuildOptions {
  // The original operator's --kubectl-download-image and --watcher-loop-image flags.
  std::string kubectl_download_image = "dgloperator/kubectl-download:latest";
  std::string watcher_loop_image = "dgloperator/watcher-loop:latest";
  // Gang scheduling: pods join PodGroup J and are scheduled by `gang_scheduler_name` (if not empty).
  bool gang_scheduling = false;
  std::string gang_scheduler_name;
};

// Object names.
std::string JobName(const nlohmann::json& job);

// The controller ownerReference to the job (blockOwnerDeletion, controller).
nlohmann::json ControllerOwnerRef(const nlohmann::json& job);
// metadata for an object of the job: name, namespace, the job labels, the ownerReference.
// `replica_type` is "launcher", "worker", "partitioner" or "" (no replica-type label).
nlohmann::json OwnedMetadata(const nlohmann::json& job, const std::string& name, std::string_view replica_type);

// The IPs known for the job's pods (absent: no IP yet).
struct PodAddresses {
  std::optional<std::string> partitioner;
  std::optional<std::string> launcher;
  std::map<std::int64_t, std::string> workers;  // by worker index: numeric order
  // Live worker pods that have no IP yet. The hostfile lists them too (with an empty IP column,
  // as the original did), so the launcher's watcher-loop, which reads the file once, knows every
  // worker it must wait for; ipconfig lists only workers with an IP.
  std::set<std::int64_t> workers_without_ip;
};

// ConfigMap data: ipconfig, hostfile, partfile, leadfile, kubexec.sh (keys always present).
std::map<std::string, std::string> BuildConfigData(const nlohmann::json& job, const PodAddresses& addresses);
nlohmann::json BuildConfigMap(const nlohmann::json& job, const PodAddresses& addresses);
// The exec helper the launcher and partitioner run through kubectl.
const std::string& KubexecScript();

// RBAC for `role` "launcher" (exec into the workers) or "partitioner" (exec into the launcher).
nlohmann::json BuildServiceAccount(const nlohmann::json& job, std::string_view role);
nlohmann::json BuildRole(const nlohmann::json& job, std::string_view role);
nlohmann::json BuildRoleBinding(const nlohmann::json& job, std::string_view role);

// The one headless Service J-worker selecting the workers, ports 30050 .. 30050+numServers-1.
nlohmann::json BuildWorkerService(const nlohmann::json& job);
// PodGroup J (scheduling.x-k8s.io/v1alpha1) with spec.minMember.
nlohmann::json BuildPodGroup(const nlohmann::json& job, std::int64_t min_member);

// Whether the Launcher template mounts a PersistentVolumeClaim at kDatasetPath: partitions then
// survive a restart and training restarts without partitioning again.
bool PartitionsOnPersistentVolume(const nlohmann::json& job);

// Pods. `restart_epoch` is status.restartCount at creation (annotation kAnnotationRestartEpoch).
nlohmann::json BuildLauncherPod(const nlohmann::json& job, const BuildOptions& options, std::int64_t restart_epoch);
nlohmann::json BuildWorkerPod(const nlohmann::json& job, std::int64_t index, const BuildOptions& options,
                              std::int64_t restart_epoch);
// The partitioner's container runs the Launcher's command line when its template gives no command
// and no args (DefaultPartitionerCommand), never the image's default.
nlohmann::json BuildPartitionerPod(const nlohmann::json& job, const BuildOptions& options,
                                   std::int64_t restart_epoch);

}  // namespace dgl
