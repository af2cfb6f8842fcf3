// Builders are pure functions from a (defaulted, validated) DGLJob to the objects the operator
// creates for it: the ConfigMap with the hand-off files, least-privilege RBAC, the headless Services
// of the pods that serve DGL, the PodGroup and the pods. They keep what the original operator's
// dglrun images rely on (pod names, ConfigMap keys, init containers, env, volumes; the original is
// described in docs/dgljob-api.md) and fix its defects (numeric worker order, numServers ports
// instead of 20, one Service). No API calls, no clock: the reconciler decides what to create and
// when. Objects are built in builders.cc, pods in pod_builders.cc.
//
// Tri-workload jobs (Server, Sampler, Trainer replicas beside or instead of Worker): the pods that
// hold a partition are the workers, then the servers (ipconfig and hostfile list them in that
// order: partition i goes to the i-th); trainerfile and samplerfile list the trainer and sampler
// pods; the launcher waits for every one of them and may exec into each.
#pragma once

#include "fakeapi/client/json.h"
#include "operator/api/dgljob_api.h"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
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
inline constexpr const char* kWatcherTrainer = "watcher-loop-trainer";
inline constexpr const char* kWatcherSampler = "watcher-loop-sampler";
inline constexpr const char* kDistPartitioner = "dist-partitioner";
// The partitioner as the launcher's init container (partitionerPlacement LauncherInit), in place of
// watcher-loop-partitioner.
inline constexpr const char* kLauncherPartitioner = "partitioner";

struct BuildOptions {
  // The original operator's --kubectl-download-image and --watcher-loop-image flags.
  std::string kubectl_download_image = "dgloperator/kubectl-download:latest";
  std::string watcher_loop_image = "dgloperator/watcher-loop:latest";
  // Gang scheduling: pods join PodGroup J and are scheduled by `gang_scheduler_name` (if not empty).
  bool gang_scheduling = false;
  std::string gang_scheduler_name;
};

// Object names.
std::string JobName(const kube::Json& job);

// The controller ownerReference to the job (blockOwnerDeletion, controller).
kube::Json ControllerOwnerRef(const kube::Json& job);
// metadata for an object of the job: name, namespace, the job labels, the ownerReference.
// `replica_type` is a replica-type label ("launcher", "worker", ...) or "" (no replica-type label).
kube::Json OwnedMetadata(const kube::Json& job, const std::string& name, std::string_view replica_type);

// The IPs known for the pods of one indexed replica type.
struct RoleAddresses {
  std::map<std::int64_t, std::string> ips;  // by index: numeric order
  // Live pods that have no IP yet. The hostfile (and trainerfile, samplerfile) lists them too (with
  // an empty IP column, as the original did), so the launcher's watcher-loop, which reads the file
  // once, knows every pod it must wait for; ipconfig lists only pods with an IP.
  std::set<std::int64_t> without_ip;
  friend bool operator==(const RoleAddresses&, const RoleAddresses&) = default;
};

// The IPs known for the job's pods (absent: no IP yet).
struct PodAddresses {
  std::optional<std::string> partitioner;
  // A partitioner pod runs in this job: the partfile names it even before it has an IP (an empty IP
  // column), so the launcher's watcher-loop, which reads the file once, waits for it (a partitioner
  // still unscheduled when the launcher starts would otherwise let the launcher through at once).
  bool partitioner_wanted = false;
  std::optional<std::string> launcher;
  std::map<std::string, RoleAddresses> roles;  // by replica-type label: worker, server, sampler, trainer
  RoleAddresses& Role(const std::string& role) { return roles[role]; }
  const RoleAddresses* FindRole(const std::string& role) const;
  friend bool operator==(const PodAddresses&, const PodAddresses&) = default;
};

// ConfigMap data: ipconfig, hostfile, partfile, leadfile, kubexec.sh (keys always present), and
// trainerfile / samplerfile where the job has trainer / sampler pods.
std::map<std::string, std::string> BuildConfigData(const kube::Json& job, const PodAddresses& addresses);
kube::Json BuildConfigMap(const kube::Json& job, const PodAddresses& addresses);
// The exec helper the launcher and partitioner run through kubectl.
const std::string& KubexecScript();

// RBAC for `role` "launcher" (exec into the workers, servers, samplers and trainers) or
// "partitioner" (exec into the launcher).
kube::Json BuildServiceAccount(const kube::Json& job, std::string_view role);
kube::Json BuildRole(const kube::Json& job, std::string_view role);
// The Role's rules alone: what the operator owns of it (a reconcile compares them without building
// the rest).
kube::Json BuildRoleRules(const kube::Json& job, std::string_view role);
kube::Json BuildRoleBinding(const kube::Json& job, std::string_view role);

// The headless Service J-<role> selecting the pods of `role` ("worker" or "server"), ports 30050 ..
// 30050+numServers-1: one Service per role that serves DGL.
kube::Json BuildRoleService(const kube::Json& job, std::string_view role);
// Its spec alone (clusterIP None, selector, ports).
kube::Json BuildRoleServiceSpec(const kube::Json& job, std::string_view role);
kube::Json BuildWorkerService(const kube::Json& job);  // BuildRoleService(job, "worker")
// PodGroup J (scheduling.x-k8s.io/v1alpha1) with spec.minMember.
kube::Json BuildPodGroup(const kube::Json& job, std::int64_t min_member);
kube::Json BuildPodGroupSpec(const kube::Json& job, std::int64_t min_member);  // its spec alone

// Whether the Launcher template mounts a PersistentVolumeClaim at kDatasetPath: partitions then
// survive a restart and training restarts without partitioning again.
bool PartitionsOnPersistentVolume(const kube::Json& job);

// Pods. `restart_epoch` is status.restartCount at creation (annotation kAnnotationRestartEpoch).
// The launcher's init containers: kubectl-download; then watcher-loop-partitioner (a partitioner
// pod), or the partitioner itself (LauncherInit), neither when `partitions_ready` (they are already
// on the launcher's PersistentVolumeClaim); watcher-loop-worker (hostfile), watcher-loop-trainer and
// watcher-loop-sampler where those pods exist; dist-partitioner (DistParMETIS).
kube::Json BuildLauncherPod(const kube::Json& job, const BuildOptions& options, std::int64_t restart_epoch,
                                bool partitions_ready = false);
// Pod J-<role>-<index> of an indexed replica type (Worker, Server, Sampler, Trainer): the template
// in the worker shape (sleep unless it has a command, /dev/shm, the ConfigMap); workers and servers
// also get numServers ports and their Service's DNS name.
kube::Json BuildReplicaPod(const kube::Json& job, const char* replica_type, std::int64_t index,
                               const BuildOptions& options, std::int64_t restart_epoch);
// BuildReplicaPod in two steps, for a pass that creates many pods of one replica type: the pods of
// a replica type differ only in their name, their replica-index label and (workers, servers) their
// hostname, so ReplicaPodBase builds the rest once (sealed by the caller, kube::SealTree, copies of
// it share its containers, volumes and metadata) and SetReplicaIndex makes a copy pod `index`:
// SetReplicaIndex(ReplicaPodBase(job, t, o, e), job, t, i) is BuildReplicaPod(job, t, i, o, e).
kube::Json ReplicaPodBase(const kube::Json& job, const char* replica_type, const BuildOptions& options,
                          std::int64_t restart_epoch);
void SetReplicaIndex(kube::Json& pod, const kube::Json& job, const char* replica_type, std::int64_t index);
kube::Json BuildWorkerPod(const kube::Json& job, std::int64_t index, const BuildOptions& options,
                              std::int64_t restart_epoch);
// The partitioner's container runs the Launcher's command line when its template gives no command
// and no args (DefaultPartitionerCommand), never the image's default.
kube::Json BuildPartitionerPod(const kube::Json& job, const BuildOptions& options,
                                   std::int64_t restart_epoch);

}  // namespace dgl
