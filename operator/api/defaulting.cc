#include "operator/api/defaulting.h"

#include "operator/api/command_line.h"
#include "operator/api/json_fields.h"
#include "operator/api/types.h"

#include <string>
#include <utility>

namespace dgl {
namespace {

using json = kube::Json;
using namespace fields;

void DefaultRunPolicy(json& spec) {
  if (!Has(spec, "runPolicy")) spec["runPolicy"] = json::object();
  json& run = spec["runPolicy"];
  if (!run.is_object()) return;
  if (!Has(run, "cleanPodPolicy")) run["cleanPodPolicy"] = kDefaultCleanPodPolicy;
  if (!Has(run, "backoffLimit")) run["backoffLimit"] = kDefaultBackoffLimit;
  if (!Has(run, "suspend")) run["suspend"] = false;
}

// DGL-API and ParMETIS run a partitioner: without a Partitioner spec (or without its template) it
// is the original's, built from the Worker template.
void DefaultPartitioner(const json& job, json& replicas) {
  json* partitioner = MutableMember(replicas, kReplicaPartitioner);
  if (partitioner == nullptr) {
    if (auto tmpl = DefaultPartitionerTemplate(job)) {
      replicas[kReplicaPartitioner] = json{{"replicas", 1}, {"template", std::move(*tmpl)}};
    }
  } else if (partitioner->is_object() && !Has(*partitioner, "template")) {
    if (auto tmpl = DefaultPartitionerTemplate(job)) (*partitioner)["template"] = std::move(*tmpl);
  } else if (partitioner->is_object()) {
    json* tmpl = MutableMember(*partitioner, "template");
    json* pod_spec = tmpl != nullptr ? MutableMember(*tmpl, "spec") : nullptr;
    json* containers = pod_spec != nullptr ? MutableMember(*pod_spec, "containers") : nullptr;
    if (containers != nullptr && containers->is_array() && !containers->empty()) {
      DefaultPartitionerCommand(job, (*containers)[0]);
    }
  }
}

// A LauncherInit partitioner is one init container in the launcher's pod: of the template it was
// copied from, only the first container and the volumes stay (a Worker template's nodeSelector,
// tolerations or labels are the launcher's pod's business, and validation refuses them there).
void KeepInitContainerShape(json& tmpl) {
  tmpl.erase("metadata");
  json* pod_spec = MutableMember(tmpl, "spec");
  if (pod_spec == nullptr || !pod_spec->is_object()) return;
  json kept = json::object();
  if (const json* containers = Member(*pod_spec, "containers"); containers != nullptr && containers->is_array()) {
    kept["containers"] = containers->empty() ? json::array() : json::array({containers->front()});
  }
  if (const json* volumes = Member(*pod_spec, "volumes")) kept["volumes"] = *volumes;
  *pod_spec = std::move(kept);
}

}  // namespace

std::int64_t DefaultSlotsPerWorker(const json& job) {
  auto n = GpuLimit(job, kReplicaWorker);
  return n && *n >= 1 ? *n : 1;
}

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

std::optional<json> DefaultPartitionerTemplate(const json& job) {
  const json* worker = ReplicaSpec(job, kReplicaWorker);
  if (worker == nullptr) worker = ReplicaSpec(job, kReplicaServer);  // a job of servers and trainers
  const json* worker_template = worker != nullptr ? Member(*worker, "template") : nullptr;
  if (worker_template == nullptr || !worker_template->is_object()) return std::nullopt;
  json tmpl = *worker_template;
  json* pod_spec = MutableMember(tmpl, "spec");
  json* containers = pod_spec != nullptr ? MutableMember(*pod_spec, "containers") : nullptr;
  const json* launcher = FirstContainer(ReplicaSpec(job, kReplicaLauncher));
  if (containers != nullptr && containers->is_array() && !containers->empty() && (*containers)[0].is_object() &&
      launcher != nullptr) {
    json& target = (*containers)[0];
    for (const char* key : {"command", "args"}) {
      if (const json* value = Member(*launcher, key)) {
        target[key] = *value;
      } else {
        target.erase(key);
      }
    }
  }
  if (RunsPartitionerInLauncher(job)) KeepInitContainerShape(tmpl);
  return tmpl;
}

bool DefaultPartitionerCommand(const json& job, json& container) {
  if (!container.is_object() || Has(container, "command") || Has(container, "args")) return false;
  const json* launcher = FirstContainer(ReplicaSpec(job, kReplicaLauncher));
  if (launcher == nullptr) return false;
  bool changed = false;
  for (const char* key : {"command", "args"}) {
    if (const json* value = Member(*launcher, key)) {
      container[key] = *value;
      changed = true;
    }
  }
  return changed;
}

void DefaultDGLJob(json& job) {
  if (!job.is_object()) return;
  if (!Has(job, "spec")) job["spec"] = json::object();
  json& spec = job["spec"];
  if (!spec.is_object()) return;

  if (!Has(spec, "partitionMode")) spec["partitionMode"] = ToString(PartitionMode::kDglApi);
  if (!Has(spec, "partitionerPlacement")) spec["partitionerPlacement"] = kPlacementPod;
  if (!Has(spec, "slotsPerWorker")) spec["slotsPerWorker"] = DefaultSlotsPerWorker(job);
  if (!Has(spec, "numServers")) spec["numServers"] = DefaultNumServers(job);
  DefaultRunPolicy(spec);

  json* replicas = MutableMember(spec, "dglReplicaSpecs");
  if (replicas == nullptr || !replicas->is_object()) return;
  const std::string* mode_text = AsString(Member(spec, "partitionMode"));
  std::optional<PartitionMode> mode = mode_text != nullptr ? ParsePartitionMode(*mode_text) : std::nullopt;
  if (mode && RunsPartitioner(*mode)) DefaultPartitioner(job, *replicas);
  for (const char* type : kReplicaTypes) {
    json* replica = MutableMember(*replicas, type);
    if (replica == nullptr || !replica->is_object()) continue;
    if (!Has(*replica, "restartPolicy")) (*replica)["restartPolicy"] = kDefaultRestartPolicy;
    const bool single = std::string_view(type) == kReplicaLauncher || std::string_view(type) == kReplicaPartitioner;
    if (single && !Has(*replica, "replicas")) (*replica)["replicas"] = 1;
  }
}

}  // namespace dgl
