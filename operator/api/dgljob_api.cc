// Conversion, defaulting and validation of DGLJobs. Everything here reads untrusted JSON (user
// manifests, API requests), so every access checks the type first: nothing throws, wrong types are
// reported by validation as causes with their field path, in the wording of the Kubernetes API.
#include "operator/api/dgljob_api.h"


#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace dgl {
namespace {

using nlohmann::json;
using kube::StatusCause;

constexpr const char* kPartitionModes[] = {"DGL-API", "ParMETIS", "DistParMETIS", "Skip"};
constexpr const char* kCleanPodPolicies[] = {"Running", "All", "None"};
constexpr const char* kRestartPolicies[] = {"Never", "OnFailure", "ExitCode"};
constexpr const char* kReplicaTypes[] = {kReplicaLauncher, kReplicaWorker, kReplicaPartitioner};

constexpr std::int64_t kDefaultBackoffLimit = 3;
constexpr const char* kDefaultCleanPodPolicy = "Running";
constexpr const char* kDefaultRestartPolicy = "OnFailure";

// A member of an object, or nullptr when `j` is not an object, the key is absent or the value is
// null (null means "unset", as in a merge patch).
const json* Member(const json& j, const std::string& key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return nullptr;
  return &*it;
}

json* MutableMember(json& j, const std::string& key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return nullptr;
  return &*it;
}

bool Has(const json& j, const std::string& key) { return Member(j, key) != nullptr; }

// Integers, and floats with an integral value (YAML and JSON writers differ on "2" vs "2.0").
std::optional<std::int64_t> AsInt(const json& v) {
  if (v.is_number_unsigned()) {
    auto u = v.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      return std::numeric_limits<std::int64_t>::max();
    }
    return static_cast<std::int64_t>(u);
  }
  if (v.is_number_integer()) return v.get<std::int64_t>();
  if (v.is_number_float()) {
    double d = v.get<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e18) {
      return static_cast<std::int64_t>(d);
    }
  }
  return std::nullopt;
}

const std::string* AsString(const json* v) {
  return v != nullptr && v->is_string() ? v->get_ptr<const std::string*>() : nullptr;
}

// A non-negative decimal integer written as digits only; nullopt otherwise (or when absurdly long).
std::optional<std::int64_t> ParseDigits(std::string_view text) {
  if (text.empty() || text.size() > 15) return std::nullopt;
  std::int64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return value;
}

// A whole-number resource quantity (GPUs): 8 or "8". nullopt for anything else.
std::optional<std::int64_t> WholeQuantity(const json& v) {
  if (v.is_string()) return ParseDigits(v.get_ref<const std::string&>());
  auto n = AsInt(v);
  if (n && *n >= 0) return n;
  return std::nullopt;
}

// The value as kubectl prints it in an error: strings quoted, numbers bare. Never throws (invalid
// UTF-8 is replaced) and stays short.
std::string Show(const json& v) {
  std::string s = v.dump(-1, ' ', false, json::error_handler_t::replace);
  constexpr std::size_t kMax = 80;
  if (s.size() > kMax) s = s.substr(0, kMax) + "...";
  return s;
}

std::string Quoted(std::string_view s) { return Show(json(std::string(s))); }

template <std::size_t N>
std::string SupportedValues(const char* const (&values)[N]) {
  std::string out;
  for (std::size_t i = 0; i < N; ++i) {
    if (i > 0) out += ", ";
    out += Quoted(values[i]);
  }
  return out;
}

template <std::size_t N>
bool OneOf(std::string_view s, const char* const (&values)[N]) {
  for (const char* v : values) {
    if (s == v) return true;
  }
  return false;
}

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

// Splits command and args into shell-like words: whitespace, quotes and ';' separate words, so a
// whole script in one string ("sh -c 'dglrun --num-servers 2; ...'") yields the same words as a
// list of arguments would.
std::vector<std::string> CommandWords(const json& container) {
  std::vector<std::string> words;
  for (const char* key : {"command", "args"}) {
    const json* list = Member(container, key);
    if (list == nullptr || !list->is_array()) continue;
    for (const json& element : *list) {
      if (!element.is_string()) continue;
      std::string word;
      for (char c : element.get_ref<const std::string&>()) {
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '"' || c == '\'' || c == ';') {
          if (!word.empty()) words.push_back(std::move(word));
          word.clear();
        } else {
          word += c;
        }
      }
      if (!word.empty()) words.push_back(std::move(word));
    }
  }
  return words;
}

const json* ReplicaSpec(const json& job, const std::string& type) {
  const json* spec = Member(job, "spec");
  if (spec == nullptr) return nullptr;
  const json* replicas = Member(*spec, "dglReplicaSpecs");
  if (replicas == nullptr) return nullptr;
  const json* replica = Member(*replicas, type);
  return replica != nullptr && replica->is_object() ? replica : nullptr;
}

const json* Containers(const json* replica_spec) {
  if (replica_spec == nullptr) return nullptr;
  const json* tmpl = Member(*replica_spec, "template");
  if (tmpl == nullptr) return nullptr;
  const json* pod_spec = Member(*tmpl, "spec");
  if (pod_spec == nullptr) return nullptr;
  const json* containers = Member(*pod_spec, "containers");
  return containers != nullptr && containers->is_array() ? containers : nullptr;
}

// slotsPerWorker default: the first Worker container with a whole nvidia.com/gpu limit, else 1.
std::int64_t DefaultSlotsPerWorker(const json& job) {
  const json* containers = Containers(ReplicaSpec(job, kReplicaWorker));
  if (containers == nullptr) return 1;
  for (const json& container : *containers) {
    const json* resources = Member(container, "resources");
    const json* limits = resources != nullptr ? Member(*resources, "limits") : nullptr;
    const json* gpus = limits != nullptr ? Member(*limits, kGpuResource) : nullptr;
    if (gpus == nullptr) continue;
    auto n = WholeQuantity(*gpus);
    if (n) return *n >= 1 ? *n : 1;
  }
  return 1;
}

// numServers default: --num-servers of the first Launcher container that passes it, else 1.
std::int64_t DefaultNumServers(const json& job) {
  const json* containers = Containers(ReplicaSpec(job, kReplicaLauncher));
  if (containers == nullptr) return 1;
  for (const json& container : *containers) {
    auto value = FindCommandFlag(container, "--num-servers");
    if (!value) continue;
    if (auto n = ParseDigits(*value)) return *n;
  }
  return 1;
}

// The original operator's partitioner: the Worker template running the Launcher's command (dglrun
// reads its phase from the environment, so the same command line partitions).
std::optional<json> DefaultPartitionerTemplate(const json& job) {
  const json* worker = ReplicaSpec(job, kReplicaWorker);
  const json* worker_template = worker != nullptr ? Member(*worker, "template") : nullptr;
  if (worker_template == nullptr || !worker_template->is_object()) return std::nullopt;
  json tmpl = *worker_template;
  json* pod_spec = MutableMember(tmpl, "spec");
  json* containers = pod_spec != nullptr ? MutableMember(*pod_spec, "containers") : nullptr;
  const json* launcher_containers = Containers(ReplicaSpec(job, kReplicaLauncher));
  if (containers != nullptr && containers->is_array() && !containers->empty() &&
      (*containers)[0].is_object() && launcher_containers != nullptr &&
      !launcher_containers->empty() && (*launcher_containers)[0].is_object()) {
    json& target = (*containers)[0];
    const json& launcher = (*launcher_containers)[0];
    for (const char* key : {"command", "args"}) {
      if (const json* value = Member(launcher, key)) {
        target[key] = *value;
      } else {
        target.erase(key);
      }
    }
  }
  return tmpl;
}

std::string JobRef(const json& job) {
  const json* metadata = Member(job, "metadata");
  const std::string* ns = metadata != nullptr ? AsString(Member(*metadata, "namespace")) : nullptr;
  const std::string* name = metadata != nullptr ? AsString(Member(*metadata, "name")) : nullptr;
  std::string ref = "DGLJob ";
  if (ns != nullptr) ref += *ns + "/";
  ref += name != nullptr ? *name : "<unnamed>";
  return ref;
}

// Collects causes; each Add* mirrors a k8s.io/apimachinery field.Error type and its wording.
class CauseList {
 public:
  void Required(const std::string& path, const std::string& detail = "") {
    Add("FieldValueRequired", path, detail.empty() ? "Required value" : "Required value: " + detail);
  }
  void Invalid(const std::string& path, const json& value, const std::string& detail) {
    Add("FieldValueInvalid", path, "Invalid value: " + Show(value) + ": " + detail);
  }
  void TypeInvalid(const std::string& path, const json& value, const std::string& type) {
    Add("FieldValueTypeInvalid", path, "Invalid value: " + Show(value) + ": must be of type " + type);
  }
  void NotSupported(const std::string& path, const json& value, const std::string& supported) {
    Add("FieldValueNotSupported", path, "Unsupported value: " + Show(value) + ": supported values: " + supported);
  }
  void Forbidden(const std::string& path, const std::string& detail) {
    Add("FieldValueForbidden", path, "Forbidden: " + detail);
  }
  std::vector<StatusCause> Take() { return std::move(causes_); }

  // Typed reads: nullptr/nullopt both when absent and when of the wrong type (then with a cause).
  const json* Object(const json& parent, const std::string& key, const std::string& path, bool required) {
    const json* v = Member(parent, key);
    if (v == nullptr) {
      if (required) Required(path);
      return nullptr;
    }
    if (!v->is_object()) {
      TypeInvalid(path, *v, "object");
      return nullptr;
    }
    return v;
  }
  const json* Array(const json& parent, const std::string& key, const std::string& path, bool required) {
    const json* v = Member(parent, key);
    if (v == nullptr) {
      if (required) Required(path);
      return nullptr;
    }
    if (!v->is_array()) {
      TypeInvalid(path, *v, "array");
      return nullptr;
    }
    return v;
  }
  const std::string* String(const json& parent, const std::string& key, const std::string& path, bool required) {
    const json* v = Member(parent, key);
    if (v == nullptr) {
      if (required) Required(path);
      return nullptr;
    }
    if (!v->is_string()) {
      TypeInvalid(path, *v, "string");
      return nullptr;
    }
    if (required && v->get_ref<const std::string&>().empty()) {
      Required(path);
      return nullptr;
    }
    return v->get_ptr<const std::string*>();
  }
  std::optional<std::int64_t> Int(const json& parent, const std::string& key, const std::string& path, bool required) {
    const json* v = Member(parent, key);
    if (v == nullptr) {
      if (required) Required(path);
      return std::nullopt;
    }
    auto n = AsInt(*v);
    if (!n) TypeInvalid(path, *v, "integer");
    return n;
  }
  // An optional integer >= minimum.
  std::optional<std::int64_t> IntAtLeast(const json& parent, const std::string& key, const std::string& path,
                                         std::int64_t minimum, bool required = false) {
    auto n = Int(parent, key, path, required);
    if (n && *n < minimum) {
      Invalid(path, *Member(parent, key), "must be >= " + std::to_string(minimum));
      return std::nullopt;
    }
    return n;
  }
  template <std::size_t N>
  const std::string* Enum(const json& parent, const std::string& key, const std::string& path,
                          const char* const (&values)[N]) {
    const std::string* s = String(parent, key, path, false);
    if (s != nullptr && !OneOf(*s, values)) {
      NotSupported(path, *Member(parent, key), SupportedValues(values));
      return nullptr;
    }
    return s;
  }

 private:
  void Add(const char* type, const std::string& path, std::string message) {
    causes_.push_back(StatusCause{type, path, std::move(message)});
  }
  std::vector<StatusCause> causes_;
};

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

bool RunsPartitionerPod(PartitionMode mode) {
  return mode == PartitionMode::kDglApi || mode == PartitionMode::kParMetis;
}

std::optional<std::string> FindCommandFlag(const json& container, std::string_view flag) {
  if (!container.is_object() || flag.empty()) return std::nullopt;
  std::vector<std::string> words = CommandWords(container);
  std::optional<std::string> value;
  for (std::size_t i = 0; i < words.size(); ++i) {
    std::string_view word = words[i];
    if (word == flag) {
      if (i + 1 < words.size()) value = words[i + 1];
    } else if (word.size() > flag.size() && word.substr(0, flag.size()) == flag && word[flag.size()] == '=') {
      value = std::string(word.substr(flag.size() + 1));
    }
  }
  return value;
}

std::vector<std::string> ConvertLegacy(json& job) {
  std::vector<std::string> warnings;
  if (!job.is_object()) return warnings;
  const std::string ref = JobRef(job);
  if (const std::string* api = AsString(Member(job, "apiVersion")); api != nullptr && *api == kLegacyApiVersion) {
    job["apiVersion"] = kApiVersion;
    warnings.push_back(ref + ": apiVersion " + kLegacyApiVersion + " converted to " + kApiVersion);
  }
  // spec.cleanPodPolicy exists only in the legacy schema, so it moves whatever the apiVersion says.
  json* spec = MutableMember(job, "spec");
  if (spec == nullptr || !spec->is_object()) return warnings;
  auto legacy = spec->find("cleanPodPolicy");
  if (legacy == spec->end()) return warnings;
  if (legacy->is_null()) {
    spec->erase(legacy);
    return warnings;
  }
  json* run = MutableMember(*spec, "runPolicy");
  if (run == nullptr) {
    (*spec)["runPolicy"] = json::object();
    run = &(*spec)["runPolicy"];
  }
  if (!run->is_object()) return warnings;  // validation reports both fields
  legacy = spec->find("cleanPodPolicy");   // (*spec)["runPolicy"] may have moved the members
  if (const json* current = Member(*run, "cleanPodPolicy")) {
    warnings.push_back(ref + ": spec.cleanPodPolicy " + Show(*legacy) + " dropped: spec.runPolicy.cleanPodPolicy " +
                       Show(*current) + " is already set");
  } else {
    (*run)["cleanPodPolicy"] = *legacy;
    warnings.push_back(ref + ": spec.cleanPodPolicy moved to spec.runPolicy.cleanPodPolicy");
  }
  spec->erase("cleanPodPolicy");
  return warnings;
}

void DefaultDGLJob(json& job) {
  if (!job.is_object()) return;
  if (!Has(job, "spec")) job["spec"] = json::object();
  json& spec = job["spec"];
  if (!spec.is_object()) return;

  if (!Has(spec, "partitionMode")) spec["partitionMode"] = ToString(PartitionMode::kDglApi);
  if (!Has(spec, "slotsPerWorker")) spec["slotsPerWorker"] = DefaultSlotsPerWorker(job);
  if (!Has(spec, "numServers")) spec["numServers"] = DefaultNumServers(job);

  if (!Has(spec, "runPolicy")) spec["runPolicy"] = json::object();
  if (json& run = spec["runPolicy"]; run.is_object()) {
    if (!Has(run, "cleanPodPolicy")) run["cleanPodPolicy"] = kDefaultCleanPodPolicy;
    if (!Has(run, "backoffLimit")) run["backoffLimit"] = kDefaultBackoffLimit;
    if (!Has(run, "suspend")) run["suspend"] = false;
  }

  json* replicas = MutableMember(spec, "dglReplicaSpecs");
  if (replicas == nullptr || !replicas->is_object()) return;

  const std::string* mode_text = AsString(Member(spec, "partitionMode"));
  std::optional<PartitionMode> mode = mode_text != nullptr ? ParsePartitionMode(*mode_text) : std::nullopt;
  if (mode && RunsPartitionerPod(*mode)) {
    json* partitioner = MutableMember(*replicas, kReplicaPartitioner);
    if (partitioner == nullptr) {
      if (auto tmpl = DefaultPartitionerTemplate(job)) {
        (*replicas)[kReplicaPartitioner] = json{{"replicas", 1}, {"template", std::move(*tmpl)}};
      }
    } else if (partitioner->is_object() && !Has(*partitioner, "template")) {
      if (auto tmpl = DefaultPartitionerTemplate(job)) (*partitioner)["template"] = std::move(*tmpl);
    }
  }
  for (const char* type : kReplicaTypes) {
    json* replica = MutableMember(*replicas, type);
    if (replica == nullptr || !replica->is_object()) continue;
    if (!Has(*replica, "restartPolicy")) (*replica)["restartPolicy"] = kDefaultRestartPolicy;
    const bool single = std::string_view(type) != kReplicaWorker;
    if (single && !Has(*replica, "replicas")) (*replica)["replicas"] = 1;
  }
}

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

// --- The CRD schema: the same enums, minimums and required fields as ValidateDGLJob above. ---

namespace {

template <std::size_t N>
json EnumValues(const char* const (&values)[N]) {
  json out = json::array();
  for (const char* v : values) out.push_back(v);
  return out;
}

json IntAtLeastSchema(std::int64_t minimum, const std::string& description) {
  return {{"type", "integer"}, {"format", "int64"}, {"minimum", minimum}, {"description", description}};
}

json StringArraySchema() { return {{"type", "array"}, {"items", {{"type", "string"}}}}; }

// A container as ValidateContainer checks it; everything else a Pod allows is preserved as is.
json ContainerSchema() {
  json gpu = {{"x-kubernetes-int-or-string", true},
              {"pattern", "^[0-9]+$"},
              {"description", "whole, non-negative number of GPUs"}};
  json quantities = {{"type", "object"},
                     {"x-kubernetes-preserve-unknown-fields", true},
                     {"properties", {{kGpuResource, gpu}}}};
  return {{"type", "object"},
          {"required", json::array({"name", "image"})},
          {"x-kubernetes-preserve-unknown-fields", true},
          {"properties",
           {{"name", {{"type", "string"}, {"maxLength", 63}, {"pattern", "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"}}},
            {"image", {{"type", "string"}, {"minLength", 1}}},
            {"command", StringArraySchema()},
            {"args", StringArraySchema()},
            {"resources",
             {{"type", "object"},
              {"x-kubernetes-preserve-unknown-fields", true},
              {"properties", {{"limits", quantities}, {"requests", quantities}}}}}}}};
}

json ReplicaSchema(const char* type) {
  json replicas = {{"type", "integer"}, {"format", "int32"}};
  std::vector<std::string> required = {"template"};
  if (std::string_view(type) == kReplicaLauncher) {
    replicas["minimum"] = 1;
    replicas["maximum"] = 1;
    replicas["default"] = 1;
    replicas["description"] = "must be 1";
  } else if (std::string_view(type) == kReplicaWorker) {
    replicas["minimum"] = 1;
    replicas["description"] = "number of workers, >= 1";
    required.push_back("replicas");
  } else {
    replicas["minimum"] = 0;
    replicas["maximum"] = 1;
    replicas["description"] = "0 or 1";
  }
  json containers = {{"type", "array"}, {"minItems", 1}, {"items", ContainerSchema()}};
  json init_containers = {{"type", "array"}, {"items", ContainerSchema()}};
  json pod_template = {
      {"type", "object"},
      {"required", json::array({"spec"})},
      {"properties",
       {{"metadata", {{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}}},
        {"spec",
         {{"type", "object"},
          {"required", json::array({"containers"})},
          {"x-kubernetes-preserve-unknown-fields", true},
          {"properties", {{"containers", containers}, {"initContainers", init_containers}}}}}}}};
  return {{"type", "object"},
          {"required", required},
          {"properties",
           {{"replicas", replicas},
            {"restartPolicy",
             {{"type", "string"}, {"enum", EnumValues(kRestartPolicies)}, {"default", kDefaultRestartPolicy}}},
            {"template", pod_template}}}};
}

}  // namespace

nlohmann::json DGLJobOpenApiSchema() {
  json scheduling = {
      {"type", "object"},
      {"properties",
       {{"minAvailable", IntAtLeastSchema(1, "gang size; at most the number of pods of the job")},
        {"queue", {{"type", "string"}}},
        {"priorityClass", {{"type", "string"}, {"minLength", 1}}},
        {"scheduleTimeoutSeconds", IntAtLeastSchema(1, "fail the job when pods stay unschedulable this long")}}}};
  json run_policy = {
      {"type", "object"},
      {"properties",
       {{"cleanPodPolicy",
         {{"type", "string"}, {"enum", EnumValues(kCleanPodPolicies)}, {"default", kDefaultCleanPodPolicy}}},
        {"ttlSecondsAfterFinished", IntAtLeastSchema(0, "delete the job this long after it finished")},
        {"activeDeadlineSeconds", IntAtLeastSchema(1, "fail the job when it runs longer")},
        {"backoffLimit", IntAtLeastSchema(0, "restarts of a failed stage before the job fails")},
        {"suspend", {{"type", "boolean"}, {"default", false}}},
        {"schedulingPolicy", scheduling}}}};
  run_policy["properties"]["backoffLimit"]["default"] = kDefaultBackoffLimit;
  json replica_specs = {{"type", "object"}, {"required", json::array({kReplicaLauncher})}, {"properties", json::object()}};
  for (const char* type : kReplicaTypes) replica_specs["properties"][type] = ReplicaSchema(type);
  json spec = {
      {"type", "object"},
      {"required", json::array({"dglReplicaSpecs"})},
      {"properties",
       {{"partitionMode",
         {{"type", "string"}, {"enum", EnumValues(kPartitionModes)}, {"default", ToString(PartitionMode::kDglApi)}}},
        {"slotsPerWorker", IntAtLeastSchema(1, "default: the Worker container's nvidia.com/gpu limit, else 1")},
        {"numServers", IntAtLeastSchema(1, "DGL servers per worker; default: --num-servers of the launcher, else 1")},
        // Listed only so that the rule below can refuse it instead of pruning it silently.
        {"cleanPodPolicy",
         {{"type", "string"}, {"description", std::string("moved to spec.runPolicy.cleanPodPolicy in ") + kApiVersion}}},
        {"runPolicy", run_policy},
        {"dglReplicaSpecs", replica_specs}}},
      {"x-kubernetes-validations",
       json::array({{{"rule", "!has(self.cleanPodPolicy)"},
         {"message", std::string("spec.cleanPodPolicy moved to spec.runPolicy.cleanPodPolicy in ") + kApiVersion}},
        {{"rule", "(has(self.partitionMode) && self.partitionMode == 'Skip') || has(self.dglReplicaSpecs.Worker)"},
         {"message", "spec.dglReplicaSpecs.Worker is required unless partitionMode is Skip"}}})}};
  return {{"type", "object"},
          {"required", json::array({"spec"})},
          {"properties",
           {{"apiVersion", {{"type", "string"}}},
            {"kind", {{"type", "string"}}},
            {"metadata",
             {{"type", "object"},
              {"properties",
               {{"name", {{"type", "string"}, {"maxLength", 63}, {"pattern", "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"}}}}}}},
            {"spec", spec},
            // Written by the operator only; kept whole.
            {"status", {{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}}}}}};
}

nlohmann::json DGLJobCrd() {
  json columns = json::array({
      {{"name", "Phase"}, {"type", "string"}, {"jsonPath", ".status.phase"}},
      {{"name", "Mode"}, {"type", "string"}, {"jsonPath", ".spec.partitionMode"}},
      {{"name", "Workers"}, {"type", "integer"}, {"jsonPath", ".spec.dglReplicaSpecs.Worker.replicas"}},
      {{"name", "Restarts"}, {"type", "integer"}, {"jsonPath", ".status.restartCount"}},
      {{"name", "Age"}, {"type", "date"}, {"jsonPath", ".metadata.creationTimestamp"}},
  });
  json version = {{"name", "v1alpha1"},
                  {"served", true},
                  {"storage", true},
                  {"subresources", {{"status", json::object()}}},
                  {"additionalPrinterColumns", columns},
                  {"schema", {{"openAPIV3Schema", DGLJobOpenApiSchema()}}}};
  return {{"apiVersion", "apiextensions.k8s.io/v1"},
          {"kind", "CustomResourceDefinition"},
          {"metadata", {{"name", "dgljobs.kubeflow.org"}}},
          {"spec",
           {{"group", "kubeflow.org"},
            {"scope", "Namespaced"},
            {"names",
             {{"kind", kKind},
              {"listKind", "DGLJobList"},
              {"plural", "dgljobs"},
              {"singular", "dgljob"},
              {"shortNames", json::array({"dgl"})}}},
            {"versions", json::array({version})}}}};
}

// Typed accessors: defaults of the contract wherever the job does not say otherwise.

PartitionMode GetPartitionMode(const json& job) {
  const json* spec = Member(job, "spec");
  const std::string* text = spec != nullptr ? AsString(Member(*spec, "partitionMode")) : nullptr;
  auto mode = text != nullptr ? ParsePartitionMode(*text) : std::nullopt;
  return mode.value_or(PartitionMode::kDglApi);
}

namespace {
std::optional<std::int64_t> SpecInt(const json& job, const std::vector<std::string>& path) {
  const json* node = Member(job, "spec");
  for (const std::string& key : path) {
    if (node == nullptr) return std::nullopt;
    node = Member(*node, key);
  }
  return node != nullptr ? AsInt(*node) : std::nullopt;
}
}  // namespace

std::int64_t GetSlotsPerWorker(const json& job) {
  auto n = SpecInt(job, {"slotsPerWorker"});
  return n && *n >= 1 ? *n : DefaultSlotsPerWorker(job);
}

std::int64_t GetNumServers(const json& job) {
  auto n = SpecInt(job, {"numServers"});
  return n && *n >= 1 ? *n : DefaultNumServers(job);
}

std::int64_t GetReplicas(const json& job, std::string_view replica_type) {
  const json* replica = ReplicaSpec(job, std::string(replica_type));
  if (replica == nullptr) return 0;
  const json* count = Member(*replica, "replicas");
  if (count == nullptr) return replica_type == kReplicaWorker ? 0 : 1;
  auto n = AsInt(*count);
  return n && *n >= 0 ? *n : 0;
}

std::string GetRestartPolicy(const json& job, std::string_view replica_type) {
  const json* replica = ReplicaSpec(job, std::string(replica_type));
  const std::string* policy = replica != nullptr ? AsString(Member(*replica, "restartPolicy")) : nullptr;
  return policy != nullptr && OneOf(*policy, kRestartPolicies) ? *policy : kDefaultRestartPolicy;
}

const json* GetReplicaTemplate(const json& job, std::string_view replica_type) {
  const json* replica = ReplicaSpec(job, std::string(replica_type));
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
