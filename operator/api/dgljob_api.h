// The DGLJob API (kubeflow.org/v1alpha1): conversion of the original qihoo.net/v1alpha1
// manifests, defaulting and validation, and the CRD's openAPIV3Schema built from the same rules, so
// they cannot drift. Admission in the fake API server runs them (operator/admission/). The contract is shared/design/dgljob-api.md.
#pragma once

#include "fakeapi/client/status.h"
#include "operator/api/vocabulary.h"

#include <nlohmann/json.hpp>

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

enum class PartitionMode { kDglApi, kParMetis, kDistParMetis, kSkip };
// "DGL-API", "ParMETIS", "DistParMETIS", "Skip".
const char* ToString(PartitionMode mode);
std::optional<PartitionMode> ParsePartitionMode(std::string_view text);
// DGL-API and ParMETIS run a partitioner pod; DistParMETIS partitions on the workers; Skip not at all.
bool RunsPartitionerPod(PartitionMode mode);

// Rewrites a qihoo.net/v1alpha1 DGLJob in place as kubeflow.org/v1alpha1 (apiVersion, top-level
// spec.cleanPodPolicy moved to spec.runPolicy.cleanPodPolicy). Returns one warning line per
// conversion made; empty when the object was already current.
std::vector<std::string> ConvertLegacy(nlohmann::json& job);

// Fills in every default of the contract (partitionMode, slotsPerWorker, numServers, runPolicy,
// restartPolicy, the Partitioner spec where a partitioner runs). Idempotent; tolerates any input.
// Only absent (or null) fields are filled; fields of the wrong type are left for validation.
// Launcher.replicas defaults to 1 (the only valid value); Worker.replicas has no default.
void DefaultDGLJob(nlohmann::json& job);

// Every problem with a (defaulted) DGLJob, each with its field path. Never throws.
std::vector<kube::StatusCause> ValidateDGLJob(const nlohmann::json& job);

// The openAPIV3Schema of the DGLJob CRD (structural, apiextensions.k8s.io/v1), built from the same
// enums, minimums, maximums and required fields ValidateDGLJob enforces, with CEL rules
// (x-kubernetes-validations) for the cross-field ones. Rules a schema cannot say (the name budget
// that keeps pod names within 63 characters, minAvailable <= the job's pod count) stay admission-only.
//   nlohmann::json dgl::DGLJobOpenApiSchema();
nlohmann::json DGLJobOpenApiSchema();
// The whole CustomResourceDefinition dgljobs.kubeflow.org (v1alpha1, namespaced, status
// subresource, short name dgl, printer columns) carrying DGLJobOpenApiSchema(). deploy/crd.yaml is
// this object as `dgl-operator crd` prints it.
//   nlohmann::json dgl::DGLJobCrd();
nlohmann::json DGLJobCrd();

// The value of `flag` in a container's command and args: "--flag V" or "--flag=V", also inside
// shell strings such as `sh -c "dglrun --num-servers 2"`. The last occurrence wins, as with argparse.
// nullopt when absent or when the container is not a JSON object.
std::optional<std::string> FindCommandFlag(const nlohmann::json& container, std::string_view flag);

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
