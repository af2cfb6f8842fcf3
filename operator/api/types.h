// The DGLJob API's types and constants (kubeflow.org/v1alpha1): group, version and kind, the
// partition modes, the enumerations and defaults of the spec, and typed accessors that read a
// defaulted, validated DGLJob. The vocabulary the operator reports in (phases, conditions, labels,
// object names) is in vocabulary.h. The contract is docs/dgljob-api.md.
#pragma once

#include "fakeapi/client/json.h"
#include "operator/api/vocabulary.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dgl {

inline constexpr const char* kApiVersion = "kubeflow.org/v1alpha1";
inline constexpr const char* kLegacyApiVersion = "qihoo.net/v1alpha1";
inline constexpr const char* kKind = "DGLJob";
inline constexpr int kDglPort = 30050;

// The GPU resource whose Worker limit defaults slotsPerWorker.
inline constexpr const char* kGpuResource = "nvidia.com/gpu";
// Kubernetes object names the operator builds from the job name must stay DNS-1123 labels.
inline constexpr std::size_t kMaxPodNameLength = 63;

// The values the spec's enumerations allow, in the order errors list them.
inline constexpr const char* kPartitionModes[] = {"DGL-API", "ParMETIS", "DistParMETIS", "Skip"};
inline constexpr const char* kCleanPodRunning = "Running";
inline constexpr const char* kCleanPodAll = "All";
inline constexpr const char* kCleanPodNone = "None";
inline constexpr const char* kCleanPodPolicies[] = {kCleanPodRunning, kCleanPodAll, kCleanPodNone};
inline constexpr const char* kRestartNever = "Never";
inline constexpr const char* kRestartOnFailure = "OnFailure";
inline constexpr const char* kRestartExitCode = "ExitCode";
inline constexpr const char* kRestartPolicies[] = {kRestartNever, kRestartOnFailure, kRestartExitCode};
inline constexpr const char* kReplicaTypes[] = {kReplicaLauncher, kReplicaWorker,  kReplicaPartitioner,
                                                kReplicaServer,   kReplicaSampler, kReplicaTrainer};
inline constexpr const char* kPlacementPod = "Pod";
inline constexpr const char* kPlacementLauncherInit = "LauncherInit";
inline constexpr const char* kPartitionerPlacements[] = {kPlacementPod, kPlacementLauncherInit};

// Defaults of the spec (also the CRD schema's defaults).
inline constexpr std::int64_t kDefaultBackoffLimit = 3;
inline constexpr const char* kDefaultCleanPodPolicy = kCleanPodRunning;
inline constexpr const char* kDefaultRestartPolicy = kRestartOnFailure;

enum class PartitionMode { kDglApi, kParMetis, kDistParMetis, kSkip };
// "DGL-API", "ParMETIS", "DistParMETIS", "Skip".
const char* ToString(PartitionMode mode);
std::optional<PartitionMode> ParsePartitionMode(std::string_view text);
// DGL-API and ParMETIS run a partitioner before the workers exist (in a pod of its own, or in the
// launcher's init container); DistParMETIS partitions on the workers; Skip not at all.
bool RunsPartitioner(PartitionMode mode);

// spec.partitionerPlacement: where the partitioner of DGL-API and ParMETIS runs. Pod: a pod of its
// own, which copies the partitions into the launcher. LauncherInit: the launcher's init container
// (in place of watcher-loop-partitioner), writing the partitions onto the launcher's own volume; the
// launcher's pod then asks for the partitioner's CPU and memory for the whole job.
enum class PartitionerPlacement { kPod, kLauncherInit };
const char* ToString(PartitionerPlacement placement);
std::optional<PartitionerPlacement> ParsePartitionerPlacement(std::string_view text);

// Typed accessors for a defaulted, validated DGLJob. On anything else they return the contract's
// defaults rather than throw.
PartitionMode GetPartitionMode(const kube::Json& job);
// Pod unless the job says LauncherInit and its mode runs a partitioner.
PartitionerPlacement GetPartitionerPlacement(const kube::Json& job);
// The job runs a partitioner pod J-partitioner (DGL-API or ParMETIS, placement Pod).
bool RunsPartitionerPod(const kube::Json& job);
// The job runs its partitioner in the launcher's init container (placement LauncherInit).
bool RunsPartitionerInLauncher(const kube::Json& job);
// Indexed pods of replica type `replica_type` the job runs: its replicas, 0 when absent or in Skip
// mode (the launcher trains alone).
std::int64_t GetIndexedPods(const kube::Json& job, std::string_view replica_type);
// The pods that hold a partition and run DGL servers: workers, then servers. Partition i goes to
// the i-th of them (ipconfig and hostfile list them in that order).
std::int64_t GetServingPods(const kube::Json& job);
// The whole nvidia.com/gpu limit of the first container of `replica_type` that sets one; 0 if none.
std::int64_t GetGpusPerPod(const kube::Json& job, std::string_view replica_type);
// The job runs servers, samplers or trainers in pods of their own.
bool IsTriWorkload(const kube::Json& job);
// The names of every pod the job runs: partitioner, launcher, then the indexed pods in
// kIndexedReplicas order. Counts are capped at `cap` per replica type.
std::vector<std::string> JobPodNames(const kube::Json& job, std::int64_t cap = 100000);
std::int64_t GetSlotsPerWorker(const kube::Json& job);
std::int64_t GetNumServers(const kube::Json& job);
// spec.dglReplicaSpecs.<type>.replicas; 0 when the replica type is absent.
std::int64_t GetReplicas(const kube::Json& job, std::string_view replica_type);
// spec.dglReplicaSpecs.<type>.restartPolicy; "OnFailure" when absent.
std::string GetRestartPolicy(const kube::Json& job, std::string_view replica_type);
// spec.dglReplicaSpecs.<type>.template; nullptr when absent.
const kube::Json* GetReplicaTemplate(const kube::Json& job, std::string_view replica_type);
std::string GetCleanPodPolicy(const kube::Json& job);
std::int64_t GetBackoffLimit(const kube::Json& job);
bool GetSuspend(const kube::Json& job);
std::optional<std::int64_t> GetActiveDeadlineSeconds(const kube::Json& job);
std::optional<std::int64_t> GetTtlSecondsAfterFinished(const kube::Json& job);
// spec.runPolicy.schedulingPolicy.<field> for minAvailable and scheduleTimeoutSeconds.
std::optional<std::int64_t> GetSchedulingInt(const kube::Json& job, std::string_view field);

}  // namespace dgl
