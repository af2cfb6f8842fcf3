#include "operator/api/validation.h"

#include "operator/api/cause_list.h"
#include "operator/api/command_line.h"
#include "operator/api/json_fields.h"
#include "operator/api/types.h"

#include <algorithm>
#include <limits>
#include <map>
#include <string>

namespace dgl {
namespace {

using json = kube::Json;
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
  } else if (type != kReplicaPartitioner) {
    // Worker, Server, Sampler, Trainer: indexed pods, at least one (omit the type for none).
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
  // The CRD's schema says format: int32, as Kubernetes' replicas are.
  if (count && *count > std::numeric_limits<std::int32_t>::max()) {
    causes.Invalid(count_path, (*replica)["replicas"], "must be of type int32 (at most 2147483647)");
    count.reset();
  }
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

// The replica counts a job asks for, once validated (absent or invalid: 0, capped so that sums of
// absurd counts cannot overflow).
struct ReplicaCounts {
  std::int64_t partitioner_pods = 0;  // 1 when a partitioner pod runs
  std::map<std::string, std::int64_t> indexed;  // by replica type: Worker, Server, Sampler, Trainer
  std::int64_t Of(const std::string& type) const {
    auto it = indexed.find(type);
    return it == indexed.end() ? 0 : it->second;
  }
  std::int64_t Total() const {
    std::int64_t total = 1 + partitioner_pods;  // the launcher
    for (const auto& [type, n] : indexed) total += n;
    return total;
  }
};

// Which replica types a job may combine. Workers hold partitions and train; without them, Server
// pods must hold the partitions and Trainer pods must train. Skip runs the launcher alone.
void ValidateRoleCombination(CauseList& causes, const json& replicas, PartitionMode mode) {
  const std::string base = "spec.dglReplicaSpecs.";
  const bool workers = Has(replicas, kReplicaWorker), servers = Has(replicas, kReplicaServer);
  const bool trainers = Has(replicas, kReplicaTrainer);
  if (mode == PartitionMode::kSkip) {
    for (const char* type : {kReplicaServer, kReplicaSampler, kReplicaTrainer}) {
      if (Has(replicas, type)) causes.Forbidden(base + type, "partitionMode Skip runs the launcher alone");
    }
    return;
  }
  if (workers) return;
  if (!servers && !trainers) {
    causes.Required(base + kReplicaWorker, "a job runs Worker pods, or Server and Trainer pods");
  } else if (!servers) {
    causes.Required(base + kReplicaServer, "Trainer pods need Server pods (or Worker pods) to hold the partitions");
  } else if (!trainers) {
    causes.Required(base + kReplicaTrainer, "Server pods need Trainer pods (or Worker pods) to train");
  }
}

// dglrun's --num-partitions must equal the pods that hold a partition (Worker + Server replicas):
// partition i goes to the i-th of them. (DGL-KE's dglkerun copies the whole dataset to every worker
// instead, and other launchers' flags mean what they mean: only dglrun's is checked.)
void ValidatePartitionCount(CauseList& causes, const json& job, const ReplicaCounts& counts) {
  const json* launcher = FirstContainer(ReplicaSpec(job, kReplicaLauncher));
  if (launcher == nullptr || !CommandRuns(*launcher, "dglrun")) return;
  auto flag = FindCommandFlag(*launcher, "--num-partitions");
  const std::int64_t parts = flag ? ParseDigits(*flag).value_or(-1) : -1;  // -1: not given as a count
  const std::int64_t serving = counts.Of(kReplicaWorker) + counts.Of(kReplicaServer);
  if (parts < 0 || serving == 0 || parts == serving) return;
  const char* type = counts.Of(kReplicaServer) > 0 ? kReplicaServer : kReplicaWorker;
  const std::string path = std::string("spec.dglReplicaSpecs.") + type + ".replicas";
  const std::string held = counts.Of(kReplicaServer) > 0 ? "Worker + Server replicas" : "Worker replicas";
  const std::string what = parts > serving
                               ? "more partitions than server pods: " + std::to_string(parts - serving) +
                                     " partitions would have no server"
                               : "fewer partitions than server pods: " + std::to_string(serving - parts) +
                                     " server pods would have no partition";
  causes.Invalid(path, *Member(*ReplicaSpec(job, type), "replicas"),
                 "the Launcher's command asks for --num-partitions " + std::to_string(parts) + ", but " + held +
                     " give " + std::to_string(serving) + " pods that hold a partition (" + what + ")");
}

// With LauncherInit the partitioner is the launcher's init container: only its one container and
// the volumes it mounts are used; anything else of the Partitioner template would be ignored.
void ValidateLauncherInitPartitioner(CauseList& causes, const json& replicas) {
  const std::string path = std::string("spec.dglReplicaSpecs.") + kReplicaPartitioner;
  const json* partitioner = Member(replicas, kReplicaPartitioner);
  if (partitioner == nullptr || !partitioner->is_object()) return;
  const std::string why = "with partitionerPlacement LauncherInit the partitioner runs in the launcher's pod: set it "
                          "on the Launcher template";
  if (auto n = AsInt(partitioner->value("replicas", json(1))); n && *n != 1) {
    causes.Invalid(path + ".replicas", (*partitioner)["replicas"], "must be 1 with partitionerPlacement LauncherInit");
  }
  const json* tmpl = Member(*partitioner, "template");
  if (tmpl == nullptr || !tmpl->is_object()) return;
  if (const json* metadata = Member(*tmpl, "metadata"); metadata != nullptr && metadata->is_object()) {
    for (const auto& item : metadata->items()) causes.Forbidden(path + ".template.metadata." + item.key(), why);
  }
  const json* pod_spec = Member(*tmpl, "spec");
  if (pod_spec == nullptr || !pod_spec->is_object()) return;
  for (const auto& item : pod_spec->items()) {
    if (item.key() != "containers" && item.key() != "volumes") causes.Forbidden(path + ".template.spec." + item.key(), why);
  }
  const json* containers = Member(*pod_spec, "containers");
  if (containers != nullptr && containers->is_array() && containers->size() > 1) {
    causes.Invalid(path + ".template.spec.containers", json(containers->size()),
                   "must hold one container with partitionerPlacement LauncherInit: it becomes the launcher's init "
                   "container");
  }
}

void ValidatePlacement(CauseList& causes, const json& spec, PartitionMode mode) {
  const std::string* text = causes.Enum(spec, "partitionerPlacement", "spec.partitionerPlacement", kPartitionerPlacements);
  if (text == nullptr || *text != kPlacementLauncherInit) return;
  if (!RunsPartitioner(mode)) {
    causes.Invalid("spec.partitionerPlacement", spec["partitionerPlacement"],
                   std::string("LauncherInit needs a partitioner: partitionMode DGL-API or ParMETIS (partitionMode ") +
                       ToString(mode) + " runs none)");
    return;
  }
  if (const json* replicas = Member(spec, "dglReplicaSpecs"); replicas != nullptr && replicas->is_object()) {
    ValidateLauncherInitPartitioner(causes, *replicas);
  }
}

// Validates every replica spec; returns the counts of the pods they ask for.
ReplicaCounts ValidateReplicas(CauseList& causes, const json& spec, PartitionMode mode) {
  ReplicaCounts counts;
  // Defaulting adds the partitioner pod where one runs.
  const std::string* placement = AsString(Member(spec, "partitionerPlacement"));
  const bool launcher_init = placement != nullptr && *placement == kPlacementLauncherInit;
  counts.partitioner_pods = RunsPartitioner(mode) && !launcher_init ? 1 : 0;
  const json* replicas = causes.Object(spec, "dglReplicaSpecs", "spec.dglReplicaSpecs", true);
  if (replicas == nullptr) return counts;
  for (const auto& item : replicas->items()) {
    if (!OneOf(item.key(), kReplicaTypes)) {
      causes.NotSupported("spec.dglReplicaSpecs." + item.key(), json(item.key()), SupportedValues(kReplicaTypes));
    }
  }
  ValidateReplica(causes, *replicas, kReplicaLauncher, true);
  ValidateRoleCombination(causes, *replicas, mode);
  for (const IndexedReplica& r : kIndexedReplicas) {
    auto n = ValidateReplica(causes, *replicas, r.type, false);
    // Skip runs the launcher alone.
    if (mode != PartitionMode::kSkip) counts.indexed[r.type] = std::min<std::int64_t>(n.value_or(0), 1LL << 40);
  }
  auto partitioners = ValidateReplica(causes, *replicas, kReplicaPartitioner, false);
  if (counts.partitioner_pods > 0 && Has(*replicas, kReplicaPartitioner)) counts.partitioner_pods = partitioners.value_or(1);
  return counts;
}

// Pods are named "<job>-launcher", "<job>-partitioner", "<job>-<role>-<i>": the longest name.
std::string LongestPodSuffix(const ReplicaCounts& counts) {
  std::string suffix = counts.partitioner_pods > 0 ? "-partitioner" : "-launcher";
  for (const IndexedReplica& r : kIndexedReplicas) {
    const std::int64_t n = counts.Of(r.type);
    if (n < 1) continue;
    // Appended piece by piece: `"-" + std::string(...)` draws g++ 12's false -Wrestrict at -O3
    // (libstdc++'s operator+(const char*, string&&), GCC bug 105329).
    std::string candidate = "-";
    candidate.append(r.role).append("-").append(std::to_string(n - 1));
    if (candidate.size() > suffix.size()) suffix = std::move(candidate);
  }
  return suffix;
}

void ValidateHeader(CauseList& causes, const json& job) {
  if (const std::string* api = causes.String(job, "apiVersion", "apiVersion", false); api != nullptr && *api != kApiVersion) {
    causes.NotSupported("apiVersion", job["apiVersion"], Quoted(kApiVersion));
  }
  if (const std::string* kind = causes.String(job, "kind", "kind", false); kind != nullptr && *kind != kKind) {
    causes.NotSupported("kind", job["kind"], Quoted(kKind));
  }
}

ReplicaCounts ValidateSpec(CauseList& causes, const json& job, const json& spec) {
  PartitionMode mode = PartitionMode::kDglApi;
  if (const std::string* text = causes.Enum(spec, "partitionMode", "spec.partitionMode", kPartitionModes)) {
    mode = *ParsePartitionMode(*text);
  }
  causes.IntAtLeast(spec, "slotsPerWorker", "spec.slotsPerWorker", 1);
  causes.IntAtLeast(spec, "numServers", "spec.numServers", 1);
  if (Has(spec, "cleanPodPolicy")) {
    causes.Forbidden("spec.cleanPodPolicy", std::string("moved to spec.runPolicy.cleanPodPolicy in ") + kApiVersion);
  }
  ValidatePlacement(causes, spec, mode);
  ReplicaCounts counts = ValidateReplicas(causes, spec, mode);
  if (mode != PartitionMode::kSkip) ValidatePartitionCount(causes, job, counts);
  ValidateRunPolicy(causes, spec, counts.Total());
  return counts;
}

}  // namespace

std::vector<StatusCause> ValidateDGLJob(const json& job) {
  CauseList causes;
  if (!job.is_object()) {
    causes.TypeInvalid("", job, "object");
    return causes.Take();
  }
  ValidateHeader(causes, job);
  const json* metadata = causes.Object(job, "metadata", "metadata", true);
  const json* spec = causes.Object(job, "spec", "spec", true);
  ReplicaCounts counts;
  counts.partitioner_pods = 1;  // without a spec: DGL-API's partitioner, for the name budget
  if (spec != nullptr) counts = ValidateSpec(causes, job, *spec);
  if (metadata != nullptr) {
    const std::string suffix = LongestPodSuffix(counts);
    ValidateName(causes, *metadata, suffix.size(), suffix);
  }
  return causes.Take();
}

}  // namespace dgl
