#include "operator/api/types.h"

#include "operator/api/defaulting.h"
#include "operator/api/json_fields.h"

#include <algorithm>

namespace dgl {

using json = kube::Json;
using namespace fields;

const char* ToString(PartitionMode mode) {
  switch (mode) {
    case PartitionMode::kDglApi: return "DGL-API";
    case PartitionMode::kParMetis: return "ParMETIS";
    case PartitionMode::kDistParMetis: return "DistParMETIS";
    case PartitionMode::kSkip: return "Skip";
  }
  return "DGL-API";
}

std::optional<PartitionMode> ParsePartitionMode(std::string_view text) {
  if (text == "DGL-API") return PartitionMode::kDglApi;
  if (text == "ParMETIS") return PartitionMode::kParMetis;
  if (text == "DistParMETIS") return PartitionMode::kDistParMetis;
  if (text == "Skip") return PartitionMode::kSkip;
  return std::nullopt;
}

bool RunsPartitioner(PartitionMode mode) { return mode == PartitionMode::kDglApi || mode == PartitionMode::kParMetis; }

const char* ToString(PartitionerPlacement placement) {
  return placement == PartitionerPlacement::kLauncherInit ? kPlacementLauncherInit : kPlacementPod;
}

std::optional<PartitionerPlacement> ParsePartitionerPlacement(std::string_view text) {
  if (text == kPlacementPod) return PartitionerPlacement::kPod;
  if (text == kPlacementLauncherInit) return PartitionerPlacement::kLauncherInit;
  return std::nullopt;
}

// Typed accessors: defaults of the contract wherever the job does not say otherwise.

PartitionMode GetPartitionMode(const json& job) {
  const json* spec = Member(job, "spec");
  const std::string* text = spec != nullptr ? AsString(Member(*spec, "partitionMode")) : nullptr;
  auto mode = text != nullptr ? ParsePartitionMode(*text) : std::nullopt;
  return mode.value_or(PartitionMode::kDglApi);
}

PartitionerPlacement GetPartitionerPlacement(const json& job) {
  const json* spec = Member(job, "spec");
  const std::string* text = spec != nullptr ? AsString(Member(*spec, "partitionerPlacement")) : nullptr;
  auto placement = text != nullptr ? ParsePartitionerPlacement(*text) : std::nullopt;
  if (!RunsPartitioner(GetPartitionMode(job))) return PartitionerPlacement::kPod;
  return placement.value_or(PartitionerPlacement::kPod);
}

bool RunsPartitionerPod(const json& job) {
  return RunsPartitioner(GetPartitionMode(job)) && GetPartitionerPlacement(job) == PartitionerPlacement::kPod;
}

bool RunsPartitionerInLauncher(const json& job) {
  return RunsPartitioner(GetPartitionMode(job)) && GetPartitionerPlacement(job) == PartitionerPlacement::kLauncherInit;
}

std::int64_t GetIndexedPods(const json& job, std::string_view replica_type) {
  if (GetPartitionMode(job) == PartitionMode::kSkip) return 0;
  return GetReplicas(job, replica_type);
}

std::int64_t GetServingPods(const json& job) {
  return GetIndexedPods(job, kReplicaWorker) + GetIndexedPods(job, kReplicaServer);
}

std::int64_t GetGpusPerPod(const json& job, std::string_view replica_type) {
  return GpuLimit(job, std::string(replica_type)).value_or(0);
}

bool IsTriWorkload(const json& job) {
  return GetIndexedPods(job, kReplicaServer) + GetIndexedPods(job, kReplicaSampler) +
             GetIndexedPods(job, kReplicaTrainer) > 0;
}

std::vector<std::string> JobPodNames(const json& job, std::int64_t cap) {
  const json* metadata = Member(job, "metadata");
  const std::string* name_value = metadata != nullptr ? AsString(Member(*metadata, "name")) : nullptr;
  const std::string name = name_value != nullptr ? *name_value : std::string();
  std::vector<std::string> pods;
  if (RunsPartitionerPod(job)) pods.push_back(PartitionerName(name));
  pods.push_back(LauncherName(name));
  for (const IndexedReplica& r : kIndexedReplicas) {
    const std::int64_t n = std::min(GetIndexedPods(job, r.type), cap);
    for (std::int64_t i = 0; i < n; ++i) pods.push_back(ReplicaPodName(name, r.role, i));
  }
  return pods;
}

std::int64_t GetSlotsPerWorker(const json& job) {
  auto n = SpecInt(job, {"slotsPerWorker"});
  return n && *n >= 1 ? *n : DefaultSlotsPerWorker(job);
}

std::int64_t GetNumServers(const json& job) {
  auto n = SpecInt(job, {"numServers"});
  return n && *n >= 1 ? *n : DefaultNumServers(job);
}

std::int64_t GetReplicas(const json& job, std::string_view replica_type) {
  const json* replica = ReplicaSpec(job, replica_type);
  if (replica == nullptr) return 0;
  const json* count = Member(*replica, "replicas");
  // Launcher and Partitioner default to 1; the indexed replica types have no default.
  if (count == nullptr) return replica_type == kReplicaLauncher || replica_type == kReplicaPartitioner ? 1 : 0;
  auto n = AsInt(*count);
  return n && *n >= 0 ? *n : 0;
}

std::string GetRestartPolicy(const json& job, std::string_view replica_type) {
  const json* replica = ReplicaSpec(job, replica_type);
  const std::string* policy = replica != nullptr ? AsString(Member(*replica, "restartPolicy")) : nullptr;
  return policy != nullptr && OneOf(*policy, kRestartPolicies) ? *policy : kDefaultRestartPolicy;
}

const json* GetReplicaTemplate(const json& job, std::string_view replica_type) {
  const json* replica = ReplicaSpec(job, replica_type);
  const json* tmpl = replica != nullptr ? Member(*replica, "template") : nullptr;
  return tmpl != nullptr && tmpl->is_object() ? tmpl : nullptr;
}

std::string GetCleanPodPolicy(const json& job) {
  const json* spec = Member(job, "spec");
  const json* run = spec != nullptr ? Member(*spec, "runPolicy") : nullptr;
  const std::string* policy = run != nullptr ? AsString(Member(*run, "cleanPodPolicy")) : nullptr;
  return policy != nullptr && OneOf(*policy, kCleanPodPolicies) ? *policy : kDefaultCleanPodPolicy;
}

std::int64_t GetBackoffLimit(const json& job) {
  auto n = SpecInt(job, {"runPolicy", "backoffLimit"});
  return n && *n >= 0 ? *n : kDefaultBackoffLimit;
}

bool GetSuspend(const json& job) {
  const json* spec = Member(job, "spec");
  const json* run = spec != nullptr ? Member(*spec, "runPolicy") : nullptr;
  const json* suspend = run != nullptr ? Member(*run, "suspend") : nullptr;
  return suspend != nullptr && suspend->is_boolean() && suspend->get<bool>();
}

std::optional<std::int64_t> GetActiveDeadlineSeconds(const json& job) {
  auto n = SpecInt(job, {"runPolicy", "activeDeadlineSeconds"});
  return n && *n >= 1 ? n : std::nullopt;
}

std::optional<std::int64_t> GetTtlSecondsAfterFinished(const json& job) {
  auto n = SpecInt(job, {"runPolicy", "ttlSecondsAfterFinished"});
  return n && *n >= 0 ? n : std::nullopt;
}

std::optional<std::int64_t> GetSchedulingInt(const json& job, std::string_view field) {
  return SpecInt(job, {"runPolicy", "schedulingPolicy", std::string(field)});
}

}  // namespace dgl
