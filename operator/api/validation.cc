#include "operator/api/validation.h"

#include "operator/api/cause_list.h"
#include "operator/api/json_fields.h"
#include "operator/api/types.h"

#include <algorithm>
#include <string>

namespace dgl {
namespace {

using nlohmann::json;
using kube::StatusCause;
using namespace fields;

// RFC 1123 label: lower-case alphanumerics and '-', starting and ending alphanumeric.
bool IsDns1123Label(std::string_view s) {
  if (s.empty() || s.size() > 63) return false;
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (!alnum(s.front()) || !alnum(s.back())) return false;
  for (char c : s) {
    if (!alnum(c) && c != '-') return false;
  }
  return true;
}

constexpr const char* kDns1123LabelDetail =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

void ValidateContainer(CauseList& causes, const json& container, const std::string& path) {
  if (!container.is_object()) {
    causes.TypeInvalid(path, container, "object");
    return;
  }
  if (const std::string* name = causes.String(container, "name", path + ".name", true)) {
    if (!IsDns1123Label(*name)) causes.Invalid(path + ".name", container["name"], kDns1123LabelDetail);
  }
  causes.String(container, "image", path + ".image", true);
  for (const char* key : {"command", "args"}) {
    const std::string list_path = path + "." + key;
    if (const json* list = causes.Array(container, key, list_path, false)) {
      for (std::size_t i = 0; i < list->size(); ++i) {
        if (!(*list)[i].is_string()) {
          causes.TypeInvalid(list_path + "[" + std::to_string(i) + "]", (*list)[i], "string");
        }
      }
    }
  }
  const json* resources = causes.Object(container, "resources", path + ".resources", false);
  if (resources == nullptr) return;
  for (const char* key : {"limits", "requests"}) {
    const json* quantities = causes.Object(*resources, key, path + ".resources." + key, false);
    if (quantities == nullptr) continue;
    if (const json* gpus = Member(*quantities, kGpuResource)) {
      if (!WholeQuantity(*gpus)) {
        causes.Invalid(path + ".resources." + key + "[" + kGpuResource + "]", *gpus,
                       "must be a whole, non-negative number of GPUs");
      }
    }
  }
}

void ValidatePodTemplate(CauseList& causes, const json& replica, const std::string& path) {
  const json* tmpl = causes.Object(replica, "template", path + ".template", true);
  if (tmpl == nullptr) return;
  causes.Object(*tmpl, "metadata", path + ".template.metadata", false);
  const json* pod_spec = causes.Object(*tmpl, "spec", path + ".template.spec", true);
  if (pod_spec == nullptr) return;
  const std::string containers_path = path + ".template.spec.containers";
  const json* containers = causes.Array(*pod_spec, "containers", containers_path, true);
  if (containers != nullptr) {
    if (containers->empty()) causes.Required(containers_path, "must contain at least one container");
    for (std::size_t i = 0; i < containers->size(); ++i) {
      ValidateContainer(causes, (*containers)[i], containers_path + "[" + std::to_string(i) + "]");
    }
  }
  const std::string init_path = path + ".template.spec.initContainers";
  if (const json* init = causes.Array(*pod_spec, "initContainers", init_path, false)) {
    for (std::size_t i = 0; i < init->size(); ++i) {
      ValidateContainer(causes, (*init)[i], init_path + "[" + std::to_string(i) + "]");
    }
  }
}

// Validates one replica spec; returns its replica count when valid.
std::optional<std::int64_t> ValidateReplica(CauseList& causes, const json& replicas, const std::string& type,
                                            bool required) {
  const std::string path = "spec.dglReplicaSpecs." + type;
  const json* replica = causes.Object(replicas, type, path, required);
  if (replica == nullptr) return std::nullopt;
  const std::string count_path = path + ".replicas";
  std::optional<std::int64_t> count;
  if (type == kReplicaLauncher) {
    count = causes.Int(*replica, "replicas", count_path, true);
    if (count && *count != 1) {
      causes.Invalid(count_path, (*replica)["replicas"], "must be 1");
      count.reset();
    }
  } else if (type == kReplicaWorker) {
    count = causes.IntAtLeast(*replica, "replicas", count_path, 1, /*required=*/true);
  } else {
    count = causes.Int(*replica, "replicas", count_path, false);
    if (!Has(*replica, "replicas")) count = 1;
    if (count && *count != 0 && *count != 1) {
      causes.Invalid(count_path, (*replica)["replicas"], "must be 0 or 1");
      count.reset();
    }
  }
  causes.Enum(*replica, "restartPolicy", path + ".restartPolicy", kRestartPolicies);
  ValidatePodTemplate(causes, *replica, path);
  return count;
}

void ValidateRunPolicy(CauseList& causes, const json& spec, std::int64_t total_pods) {
  const json* run = causes.Object(spec, "runPolicy", "spec.runPolicy", false);
  if (run == nullptr) return;
  causes.Enum(*run, "cleanPodPolicy", "spec.runPolicy.cleanPodPolicy", kCleanPodPolicies);
  causes.IntAtLeast(*run, "ttlSecondsAfterFinished", "spec.runPolicy.ttlSecondsAfterFinished", 0);
  causes.IntAtLeast(*run, "activeDeadlineSeconds", "spec.runPolicy.activeDeadlineSeconds", 1);
  causes.IntAtLeast(*run, "backoffLimit", "spec.runPolicy.backoffLimit", 0);
  if (const json* suspend = Member(*run, "suspend"); suspend != nullptr && !suspend->is_boolean()) {
    causes.TypeInvalid("spec.runPolicy.suspend", *suspend, "boolean");
  }
  const std::string sp = "spec.runPolicy.schedulingPolicy";
  const json* scheduling = causes.Object(*run, "schedulingPolicy", sp, false);
  if (scheduling == nullptr) return;
  auto min_available = causes.IntAtLeast(*scheduling, "minAvailable", sp + ".minAvailable", 1);
  if (min_available && total_pods > 0 && *min_available > total_pods) {
    // A gang larger than the job can never be scheduled: the job would stay Pending forever.
    causes.Invalid(sp + ".minAvailable", (*scheduling)["minAvailable"],
                   "must be <= " + std::to_string(total_pods) + ", the number of pods of the job");
  }
  causes.String(*scheduling, "queue", sp + ".queue", false);
  if (const std::string* priority = causes.String(*scheduling, "priorityClass", sp + ".priorityClass", false)) {
    if (priority->empty()) causes.Invalid(sp + ".priorityClass", (*scheduling)["priorityClass"], "must not be empty");
  }
  causes.IntAtLeast(*scheduling, "scheduleTimeoutSeconds", sp + ".scheduleTimeoutSeconds", 1);
}

// Pods are named "<job>-launcher", "<job>-partitioner", "<job>-worker-<i>": the longest must stay
// a valid label, and so must the name itself.
void ValidateName(CauseList& causes, const json& metadata, std::size_t longest_suffix,
                  const std::string& longest_pod_suffix) {
  const std::size_t budget = kMaxPodNameLength - longest_suffix;
  const json* name_value = Member(metadata, "name");
  if (name_value == nullptr) {
    // The store generates a name from generateName (5 random characters).
    const std::string* prefix = causes.String(metadata, "generateName", "metadata.generateName", false);
    if (prefix == nullptr) {
      if (!Has(metadata, "generateName")) causes.Required("metadata.name", "name or generateName is required");
      return;
    }
    constexpr std::size_t kRandomSuffix = 5;
    if (prefix->empty() || !IsDns1123Label(*prefix + "x")) {
      causes.Invalid("metadata.generateName", metadata["generateName"], kDns1123LabelDetail);
    } else if (prefix->size() + kRandomSuffix > budget) {
      causes.Invalid("metadata.generateName", metadata["generateName"],
                     "must be no more than " + std::to_string(budget - kRandomSuffix) +
                         " characters so that pod names such as \"<name>" + longest_pod_suffix +
                         "\" stay within 63 characters");
    }
    return;
  }
  const std::string* name = causes.String(metadata, "name", "metadata.name", true);
  if (name == nullptr) return;
  if (!IsDns1123Label(*name)) {
    causes.Invalid("metadata.name", *name_value, kDns1123LabelDetail);
  } else if (name->size() > budget) {
    causes.Invalid("metadata.name", *name_value,
                   "must be no more than " + std::to_string(budget) + " characters so that pod name \"" +
                       *name + longest_pod_suffix + "\" stays within 63 characters");
  }
}

}  // namespace

std::vector<StatusCause> ValidateDGLJob(const json& job) {
  CauseList causes;
  if (!job.is_object()) {
    causes.TypeInvalid("", job, "object");
    return causes.Take();
  }
  if (const std::string* api = causes.String(job, "apiVersion", "apiVersion", false); api != nullptr && *api != kApiVersion) {
    causes.NotSupported("apiVersion", job["apiVersion"], Quoted(kApiVersion));
  }
  if (const std::string* kind = causes.String(job, "kind", "kind", false); kind != nullptr && *kind != kKind) {
    causes.NotSupported("kind", job["kind"], Quoted(kKind));
  }
  const json* metadata = causes.Object(job, "metadata", "metadata", true);
  const json* spec = causes.Object(job, "spec", "spec", true);

  PartitionMode mode = PartitionMode::kDglApi;
  if (spec != nullptr) {
    if (const std::string* text = causes.Enum(*spec, "partitionMode", "spec.partitionMode", kPartitionModes)) {
      mode = *ParsePartitionMode(*text);
    }
  }
  // Pods the job will run, for the gang size and the name budget (defaulting adds the partitioner).
  std::int64_t worker_pods = 0;
  std::int64_t partitioner_pods = RunsPartitionerPod(mode) ? 1 : 0;
  if (spec != nullptr) {
    causes.IntAtLeast(*spec, "slotsPerWorker", "spec.slotsPerWorker", 1);
    causes.IntAtLeast(*spec, "numServers", "spec.numServers", 1);
    if (Has(*spec, "cleanPodPolicy")) {
      causes.Forbidden("spec.cleanPodPolicy",
                       std::string("moved to spec.runPolicy.cleanPodPolicy in ") + kApiVersion);
    }
    if (const json* replicas = causes.Object(*spec, "dglReplicaSpecs", "spec.dglReplicaSpecs", true)) {
      for (const auto& item : replicas->items()) {
        if (!OneOf(item.key(), kReplicaTypes)) {
          causes.NotSupported("spec.dglReplicaSpecs." + item.key(), json(item.key()), SupportedValues(kReplicaTypes));
        }
      }
      ValidateReplica(causes, *replicas, kReplicaLauncher, true);
      auto workers = ValidateReplica(causes, *replicas, kReplicaWorker, mode != PartitionMode::kSkip);
      auto partitioners = ValidateReplica(causes, *replicas, kReplicaPartitioner, false);
      // Skip runs the launcher alone. Capped so that sums of absurd counts cannot overflow.
      if (mode != PartitionMode::kSkip) worker_pods = std::min<std::int64_t>(workers.value_or(0), 1LL << 40);
      if (RunsPartitionerPod(mode) && Has(*replicas, kReplicaPartitioner)) partitioner_pods = partitioners.value_or(1);
    }
    ValidateRunPolicy(causes, *spec, 1 + worker_pods + partitioner_pods);
  }

  if (metadata != nullptr) {
    std::string suffix = partitioner_pods > 0 ? "-partitioner" : "-launcher";
    if (worker_pods >= 1) {
      std::string worker_suffix = "-worker-" + std::to_string(worker_pods - 1);
      if (worker_suffix.size() > suffix.size()) suffix = worker_suffix;
    }
    ValidateName(causes, *metadata, suffix.size(), suffix);
  }
  return causes.Take();
}

}  // namespace dgl
