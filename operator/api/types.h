// The DGLJob API's types and constants (kubeflow.org/v1alpha1): group, version and kind, the
// partition modes, the enumerations and defaults of the spec, and typed accessors that read a
// defaulted, validated DGLJob. The vocabulary the operator reports in (phases, conditions, labels,
// object names) is in vocabulary.h. The contract is docs/dgljob-api.md.
#pragma once

#include "operator/api/vocabulary.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

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
inline constexpr const char* kReplicaTypes[] = {kReplicaLauncher, kReplicaWorker, kReplicaPartitioner};

// Defaults of the spec (also the CRD schema's defaults).
inline constexpr std::int64_t kDefaultBackoffLimit = 3;
inline constexpr const char* kDefaultCleanPodPolicy = kCleanPodRunning;
inline constexpr const char* kDefaultRestartPolicy = kRestartOnFailure;

enum class PartitionMode { kDglApi, kParMetis, kDistParMetis, kSkip };
// "DGL-API", "ParMETIS", "DistParMETIS", "Skip".
const char* ToString(PartitionMode mode);
std::optional<PartitionMode> ParsePartitionMode(std::string_view text);
// DGL-API and ParMETIS run a partitioner pod; DistParMETIS partitions on the workers; Skip not at all.
bool RunsPartitionerPod(PartitionMode mode);

// Typed accessors for a defaulted, validated DGLJob. On anything else they return the contract's
// defaults rather than throw.
PartitionMode GetPartitionMode(const nlohmann::json& job);
std::int64_t GetSlotsPerWorker(const nlohmann::json& job);
std::int64_t GetNumServers(const nlohmann::json& job);
// spec.dglReplicaSpecs.<type>.replicas; 0 when the replica type is absent.
std::int64_t GetReplicas(const nlohmann::json& job, std::string_view replica_type);
// spec.dglReplicaSpecs.<type>.restartPolicy; "OnFailure" when absent.
std::string GetRestartPolicy(const nlohmann::json& job, std::string_view replica_type);
// spec.dglReplicaSpecs.<type>.template; nullptr when absent.
const nlohmann::json* GetReplicaTemplate(const nlohmann::json& job, std::string_view replica_type);
std::string GetCleanPodPolicy(const nlohmann::json& job);
std::int64_t GetBackoffLimit(const nlohmann::json& job);
bool GetSuspend(const nlohmann::json& job);
std::optional<std::int64_t> GetActiveDeadlineSeconds(const nlohmann::json& job);
std::optional<std::int64_t> GetTtlSecondsAfterFinished(const nlohmann::json& job);
// spec.runPolicy.schedulingPolicy.<field> for minAvailable and scheduleTimeoutSeconds.
std::optional<std::int64_t> GetSchedulingInt(const nlohmann::json& job, std::string_view field);

}  // namespace dgl
