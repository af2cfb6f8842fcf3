// The pods of a DGLJob (builders.h): the launcher with its init-container hand-off, the partitioner
// (a pod of its own, or the launcher's init container with partitionerPlacement LauncherInit), and
// the indexed pods of workers, servers, samplers and trainers, in the shape the original operator's
// dglrun images rely on.
#include "operator/controller/builders.h"

#include "fakeapi/client/quantity.h"
#include "operator/controller/pod_state.h"

#include <string>
#include <utility>
#include <vector>

namespace dgl {
namespace {

using json = kube::Json;

constexpr const char* kConfigVolume = "config-volume";
constexpr const char* kKubeVolume = "kube-volume";
constexpr const char* kDatasetVolume = "dataset-volume";
constexpr const char* kShmVolume = "shm-volume";
constexpr const char* kConfigPath = "/etc/dgl";
constexpr const char* kKubePath = "/opt/kube";
constexpr int kModeExecutable = 0555;
constexpr int kModeReadOnly = 0444;

json& ArrayMember(json& obj, const char* key) {
  json& v = obj[key];
  if (!v.is_array()) v = json::array();
  return v;
}

// Sets env `name` on a container, replacing an existing value.
void SetEnv(json& container, const std::string& name, const std::string& value) {
  json& env = ArrayMember(container, "env");
  for (json& e : env) {
    if (e.is_object() && StringField(e, {"name"}) == name) {
      e = kube::MakeObject("name", name, "value", value);
      return;
    }
  }
  env.push_back(kube::MakeObject("name", name, "value", value));
}

// Adds a volumeMount unless the container already mounts something at that path or by that name.
void AddMount(json& container, const std::string& volume, const std::string& path) {
  json& mounts = ArrayMember(container, "volumeMounts");
  for (const json& m : mounts) {
    if (StringField(m, {"mountPath"}) == path || StringField(m, {"name"}) == volume) return;
  }
  mounts.push_back(kube::MakeObject("name", volume, "mountPath", path));
}

bool HasVolume(const json& pod_spec, const std::string& name) {
  const json* volumes = FindField(pod_spec, {"volumes"});
  if (volumes == nullptr || !volumes->is_array()) return false;
  for (const json& v : *volumes) {
    if (StringField(v, {"name"}) == name) return true;
  }
  return false;
}

void AddVolume(json& pod_spec, json volume) {
  if (HasVolume(pod_spec, volume["name"].get<std::string>())) return;
  ArrayMember(pod_spec, "volumes").push_back(std::move(volume));
}

json ConfigVolume(const std::string& job_name, const std::vector<const char*>& keys) {
  json items = json::array();
  items.get_ref<json::array_t&>().reserve(keys.size());
  for (const char* key : keys) {
    const int mode = std::string_view(key) == kConfigKubexec ? kModeExecutable : kModeReadOnly;
    items.push_back(kube::MakeObject("key", key, "mode", mode, "path", key));
  }
  return kube::MakeObject("configMap", kube::MakeObject("items", std::move(items), "name", ConfigMapName(job_name)),
                          "name", kConfigVolume);
}

// The ConfigMap keys a launcher reads: the tri-workload files only where those pods exist.
std::vector<const char*> LauncherConfigKeys(const json& job) {
  std::vector<const char*> keys = {kConfigKubexec, kConfigHostfile, kConfigPartfile, kConfigIpconfig};
  if (GetIndexedPods(job, kReplicaTrainer) > 0) keys.push_back(kConfigTrainerfile);
  if (GetIndexedPods(job, kReplicaSampler) > 0) keys.push_back(kConfigSamplerfile);
  return keys;
}

json EmptyDir(const char* name) { return kube::MakeObject("emptyDir", json::object(), "name", name); }

// Labels and annotations of the template's metadata, under the operator's own.
void MergeTemplateMetadata(const json* tmpl, json& meta) {
  const json* tmeta = tmpl != nullptr ? FindField(*tmpl, {"metadata"}) : nullptr;
  if (tmeta == nullptr) return;
  for (const char* key : {"labels", "annotations"}) {
    const json* values = FindField(*tmeta, {key});
    if (values == nullptr || !values->is_object()) continue;
    for (const auto& [k, v] : values->items()) {
      if (!meta[key].contains(k)) meta[key][k] = v;
    }
  }
}

// The template's pod spec and metadata merged with the operator's metadata for pod `name`.
json PodFromTemplate(const json& job, const char* replica_type_key, const std::string& name,
                     std::string_view replica_type, std::int64_t index, const BuildOptions& options,
                     std::int64_t restart_epoch) {
  const json* tmpl = GetReplicaTemplate(job, replica_type_key);
  json pod = kube::MakeObject("apiVersion", "v1", "kind", "Pod");
  json meta = OwnedMetadata(job, name, replica_type);
  MergeTemplateMetadata(tmpl, meta);
  meta["labels"][kLabelReplicaIndex] = std::to_string(index);
  meta["annotations"][kAnnotationRestartEpoch] = std::to_string(restart_epoch);
  if (options.gang_scheduling) meta["labels"][kLabelPodGroup] = JobName(job);
  pod["metadata"] = std::move(meta);
  json spec = tmpl != nullptr && FindField(*tmpl, {"spec"}) != nullptr ? (*tmpl)["spec"] : json::object();
  if (!spec.is_object()) spec = json::object();
  if (!spec.contains("containers") || !spec["containers"].is_array()) spec["containers"] = json::array();
  if (spec["containers"].empty()) spec["containers"].push_back(json::object());
  // The operator restarts pods itself, per the replica's restartPolicy.
  spec["restartPolicy"] = "Never";
  if (options.gang_scheduling && !options.gang_scheduler_name.empty()) {
    spec["schedulerName"] = options.gang_scheduler_name;
  }
  const std::string priority = StringField(job, {"spec", "runPolicy", "schedulingPolicy", "priorityClass"});
  if (!priority.empty() && !spec.contains("priorityClassName")) spec["priorityClassName"] = priority;
  pod["spec"] = std::move(spec);
  return pod;
}

json WatcherResources() {
  json r = kube::MakeObject("cpu", "100m", "ephemeral-storage", "5Gi", "memory", "512Mi");
  return kube::MakeObject("limits", r, "requests", std::move(r));
}

json KubectlDownloadContainer(const BuildOptions& options) {
  return {{"name", kKubectlDownload},
          {"image", options.kubectl_download_image},
          {"imagePullPolicy", "Always"},
          {"command", {"cp", "/bin/kubectl", std::string(kKubePath) + "/kubectl"}},
          {"volumeMounts", {{{"name", kKubeVolume}, {"mountPath", kKubePath}}}}};
}

json WatcherContainer(const json& job, const BuildOptions& options, const char* name, const char* mode,
                      const char* file, bool mount_dataset, const std::string& dataset_volume) {
  json c = {{"name", name},
            {"image", options.watcher_loop_image},
            {"env",
             {{{"name", "NAMESPACE"}, {"value", job["metadata"].value("namespace", "")}},
              {{"name", "WATCHERFILE"}, {"value", std::string(kConfigPath) + "/" + file}},
              {{"name", "WATCHERMODE"}, {"value", mode}}}},
            {"volumeMounts", {{{"name", kConfigVolume}, {"mountPath", kConfigPath}}}},
            {"resources", WatcherResources()}};
  if (mount_dataset) c["volumeMounts"].push_back({{"name", dataset_volume}, {"mountPath", kDatasetPath}});
  return c;
}

// The name of the volume the Launcher template mounts at kDatasetPath, if any.
std::string LauncherDatasetVolume(const json& job) {
  const json* tmpl = GetReplicaTemplate(job, kReplicaLauncher);
  const json* containers = tmpl != nullptr ? FindField(*tmpl, {"spec", "containers"}) : nullptr;
  if (containers == nullptr || !containers->is_array()) return "";
  for (const json& c : *containers) {
    const json* mounts = FindField(c, {"volumeMounts"});
    if (mounts == nullptr || !mounts->is_array()) continue;
    for (const json& m : *mounts) {
      if (StringField(m, {"mountPath"}) == kDatasetPath) return StringField(m, {"name"});
    }
  }
  return "";
}

const json* TemplateVolume(const json& job, const char* replica_type, const std::string& name) {
  const json* tmpl = GetReplicaTemplate(job, replica_type);
  const json* volumes = tmpl != nullptr ? FindField(*tmpl, {"spec", "volumes"}) : nullptr;
  if (volumes == nullptr || !volumes->is_array()) return nullptr;
  for (const json& v : *volumes) {
    if (StringField(v, {"name"}) == name) return &v;
  }
  return nullptr;
}

bool HasResources(const json& container) {
  for (const char* key : {"requests", "limits"}) {
    const json* v = FindField(container, {"resources", key});
    if (v != nullptr && v->is_object() && !v->empty()) return true;
  }
  return false;
}

void DefaultLauncherResources(json& container) {
  if (HasResources(container)) return;
  json r = kube::MakeObject("cpu", "1", "memory", "2Gi");
  container["resources"] = kube::MakeObject("limits", r, "requests", std::move(r));
}

// The launcher's env for dglrun (original: DGL_OPERATOR_* paths).
void SetLauncherEnv(json& container) {
  SetEnv(container, "DGL_OPERATOR_KUBEXEC_PATH", std::string(kConfigPath) + "/" + kConfigKubexec);
  SetEnv(container, "DGL_OPERATOR_HOSTFILE_PATH", std::string(kConfigPath) + "/" + kConfigHostfile);
  SetEnv(container, "DGL_OPERATOR_IPCONFIG_PATH", std::string(kConfigPath) + "/" + kConfigIpconfig);
  SetEnv(container, "DGL_OPERATOR_KUBECTL_PATH", std::string(kKubePath) + "/kubectl");
  SetEnv(container, "DGL_OPERATOR_ENV", "1");
}

// What the original's buildWorkerOrPartitionerPod does to both workers and the partitioner.
void ApplyWorkerShape(const json& job, json& pod) {
  json& spec = pod["spec"];
  json& main = spec["containers"][0];
  if (!main.contains("command") || main["command"].is_null() || main["command"].empty()) {
    main["command"] = {"sleep"};
    main["args"] = {"365d"};
  }
  SetEnv(main, "DGL_OPERATOR_ENV", "1");
  AddMount(main, kShmVolume, "/dev/shm");
  AddMount(main, kConfigVolume, kConfigPath);
  json shm = kube::MakeObject("emptyDir", kube::MakeObject("medium", "Memory"), "name", kShmVolume);
  // Half the memory limit for /dev/shm (the original rounded this down to whole GB, often 0).
  const json* memory = FindField(main, {"resources", "limits", "memory"});
  if (memory != nullptr && memory->is_string()) {
    if (auto bytes = kube::ParseQuantity(memory->get<std::string>()); bytes && *bytes > 1) {
      shm["emptyDir"]["sizeLimit"] = kube::FormatBytes(*bytes / 2);
    }
  }
  AddVolume(spec, std::move(shm));
  AddVolume(spec, ConfigVolume(JobName(job), {kConfigKubexec, kConfigHostfile, kConfigPartfile, kConfigLeadfile,
                                              kConfigIpconfig}));
}

// The partitioner's container as the launcher's init container (LauncherInit): the Partitioner
// template's first container, running the Launcher's command unless it has its own, writing the
// partitions straight onto the launcher's dataset volume.
json LauncherPartitionerContainer(const json& job, const std::string& dataset_volume) {
  json container = json::object();
  const json* tmpl = GetReplicaTemplate(job, kReplicaPartitioner);
  std::optional<json> fallback;
  if (tmpl == nullptr && (fallback = DefaultPartitionerTemplate(job))) tmpl = &*fallback;
  const json* containers = tmpl != nullptr ? FindField(*tmpl, {"spec", "containers"}) : nullptr;
  if (containers != nullptr && containers->is_array() && !containers->empty() && (*containers)[0].is_object()) {
    container = (*containers)[0];
  }
  DefaultPartitionerCommand(job, container);
  container["name"] = kLauncherPartitioner;  // unique in the pod, whatever the template called it
  container.erase("ports");
  SetEnv(container, kEnvPhase, kPhaseEnvPartitioner);
  SetEnv(container, kEnvPartitionMode, ToString(GetPartitionMode(job)));
  SetEnv(container, kEnvPartitionerPlacement, kPlacementLauncherInit);
  SetLauncherEnv(container);
  AddMount(container, kKubeVolume, kKubePath);
  AddMount(container, kConfigVolume, kConfigPath);
  AddMount(container, dataset_volume, kDatasetPath);
  return container;
}

// The volumes of the Partitioner template that its container mounts (a LauncherInit partitioner
// brings them into the launcher's pod).
void AddPartitionerVolumes(const json& job, const json& container, json& pod_spec) {
  const json* mounts = FindField(container, {"volumeMounts"});
  if (mounts == nullptr || !mounts->is_array()) return;
  for (const json& m : *mounts) {
    if (const json* v = TemplateVolume(job, kReplicaPartitioner, StringField(m, {"name"}))) AddVolume(pod_spec, *v);
  }
}

// MSP: after the workers are ready, ParMETIS with one rank per pod that holds a partition.
json DistPartitionerContainer(const json& job, const json& main, const std::string& dataset_volume) {
  json dist = {{"name", kDistPartitioner}, {"image", main.value("image", "")}};
  // What the user asked of the container that does their work carries over to the one that now
  // does it (terminationMessagePolicy: the failure's words in the pod status).
  for (const char* key : {"command", "args", "resources", "imagePullPolicy", "terminationMessagePolicy"}) {
    if (main.contains(key)) dist[key] = main[key];
  }
  SetLauncherEnv(dist);
  SetEnv(dist, kEnvPartitionMode, ToString(GetPartitionMode(job)));
  SetEnv(dist, kEnvPhase, kPhaseEnvDistPartitioner);
  AddMount(dist, kKubeVolume, kKubePath);
  AddMount(dist, kConfigVolume, kConfigPath);
  AddMount(dist, dataset_volume, kDatasetPath);
  return dist;
}

// The operator's init containers of a launcher, in order: kubectl, the partitioner hand-off (none
// when `partitions_ready`: they are on the launcher's claim already), the watchers of the pods the
// launcher runs DGL in, and (MSP) the distributed partitioner.
json LauncherInitContainers(const json& job, const BuildOptions& options, const json& main,
                            const std::string& dataset_volume, bool partitions_ready) {
  json init = json::array({KubectlDownloadContainer(options)});
  if (RunsPartitionerPod(job)) {
    if (!partitions_ready) {
      init.push_back(WatcherContainer(job, options, kWatcherPartitioner, "finished", kConfigPartfile, true, dataset_volume));
    }
  } else if (RunsPartitionerInLauncher(job) && !partitions_ready) {
    init.push_back(LauncherPartitionerContainer(job, dataset_volume));
  }
  init.push_back(WatcherContainer(job, options, kWatcherWorker, "ready", kConfigHostfile, false, dataset_volume));
  if (GetIndexedPods(job, kReplicaTrainer) > 0) {
    init.push_back(WatcherContainer(job, options, kWatcherTrainer, "ready", kConfigTrainerfile, false, dataset_volume));
  }
  if (GetIndexedPods(job, kReplicaSampler) > 0) {
    init.push_back(WatcherContainer(job, options, kWatcherSampler, "ready", kConfigSamplerfile, false, dataset_volume));
  }
  if (GetPartitionMode(job) == PartitionMode::kDistParMetis) {
    init.push_back(DistPartitionerContainer(job, main, dataset_volume));
  }
  return init;
}

}  // namespace

bool PartitionsOnPersistentVolume(const json& job) {
  const std::string volume = LauncherDatasetVolume(job);
  if (volume.empty()) return false;
  const json* v = TemplateVolume(job, kReplicaLauncher, volume);
  return v != nullptr && FindField(*v, {"persistentVolumeClaim"}) != nullptr;
}

json BuildLauncherPod(const json& job, const BuildOptions& options, std::int64_t restart_epoch,
                      bool partitions_ready) {
  const std::string job_name = JobName(job);
  const PartitionMode mode = GetPartitionMode(job);
  json pod = PodFromTemplate(job, kReplicaLauncher, LauncherName(job_name), kRoleLauncher, 0, options, restart_epoch);
  json& spec = pod["spec"];
  json& main = spec["containers"][0];
  DefaultLauncherResources(main);
  SetEnv(main, kEnvPartitionMode, ToString(mode));
  if (mode == PartitionMode::kSkip) {
    SetEnv(main, kEnvPhase, kPhaseEnvLauncherWorkload);
    return pod;
  }
  spec["serviceAccountName"] = LauncherName(job_name);
  SetLauncherEnv(main);
  std::string dataset_volume = LauncherDatasetVolume(job);
  if (dataset_volume.empty()) dataset_volume = kDatasetVolume;
  AddMount(main, kKubeVolume, kKubePath);
  AddMount(main, kConfigVolume, kConfigPath);
  AddMount(main, dataset_volume, kDatasetPath);

  json init = LauncherInitContainers(job, options, main, dataset_volume, partitions_ready);
  // The operator's init containers run first; the template's own run after them.
  if (const json* own = FindField(spec, {"initContainers"}); own != nullptr && own->is_array()) {
    for (const json& c : *own) init.push_back(c);
  }
  for (const json& c : init) {
    if (c.value("name", "") == kLauncherPartitioner) AddPartitionerVolumes(job, c, spec);
  }
  spec["initContainers"] = std::move(init);
  AddVolume(spec, EmptyDir(kKubeVolume));
  AddVolume(spec, EmptyDir(dataset_volume.c_str()));
  AddVolume(spec, ConfigVolume(job_name, LauncherConfigKeys(job)));
  return pod;
}

// The index-free part of an indexed pod: BuildReplicaPod's pod but for the three fields
// SetReplicaIndex sets (built here for index 0, then overwritten).
json ReplicaPodBase(const json& job, const char* replica_type, const BuildOptions& options,
                    std::int64_t restart_epoch) {
  const std::string job_name = JobName(job);
  const std::string role = ReplicaRole(replica_type);
  json pod = PodFromTemplate(job, replica_type, ReplicaPodName(job_name, role, 0), role, 0, options, restart_epoch);
  ApplyWorkerShape(job, pod);
  json& spec = pod["spec"];
  if (role == kRoleWorker || role == kRoleServer) {
    // DNS J-<role>-i.J-<role>.<ns> through the role's headless Service; the DGL server ports.
    spec["subdomain"] = RoleServiceName(job_name, role);
    json ports = json::array();
    for (std::int64_t i = 0; i < GetNumServers(job); ++i) {
      ports.push_back(kube::MakeObject("containerPort", kDglPort + i, "name", "c-port-" + std::to_string(i), "protocol", "TCP"));
    }
    spec["containers"][0]["ports"] = std::move(ports);
  }
  SetEnv(spec["containers"][0], kEnvPartitionMode, ToString(GetPartitionMode(job)));
  return pod;
}

// Everything of a pod that depends on its index (PodFromTemplate's name and label, the hostname).
void SetReplicaIndex(json& pod, const json& job, const char* replica_type, std::int64_t index) {
  const std::string role = ReplicaRole(replica_type);
  const std::string name = ReplicaPodName(JobName(job), role, index);
  json& meta = pod["metadata"];
  meta["name"] = name;
  meta["labels"][kLabelReplicaIndex] = std::to_string(index);
  if (role == kRoleWorker || role == kRoleServer) pod["spec"]["hostname"] = name;
}

json BuildReplicaPod(const json& job, const char* replica_type, std::int64_t index, const BuildOptions& options,
                     std::int64_t restart_epoch) {
  json pod = ReplicaPodBase(job, replica_type, options, restart_epoch);
  SetReplicaIndex(pod, job, replica_type, index);
  return pod;
}

json BuildWorkerPod(const json& job, std::int64_t index, const BuildOptions& options, std::int64_t restart_epoch) {
  return BuildReplicaPod(job, kReplicaWorker, index, options, restart_epoch);
}

json BuildPartitionerPod(const json& job, const BuildOptions& options, std::int64_t restart_epoch) {
  const std::string job_name = JobName(job);
  json pod = PodFromTemplate(job, kReplicaPartitioner, PartitionerName(job_name), kRolePartitioner, 0, options,
                             restart_epoch);
  // Also for jobs that were never defaulted (a real cluster without the admission webhook).
  DefaultPartitionerCommand(job, pod["spec"]["containers"][0]);
  ApplyWorkerShape(job, pod);
  json& spec = pod["spec"];
  json& main = spec["containers"][0];
  main.erase("ports");
  SetEnv(main, kEnvPhase, kPhaseEnvPartitioner);
  SetEnv(main, kEnvPartitionMode, ToString(GetPartitionMode(job)));
  SetEnv(main, "DGL_OPERATOR_KUBEXEC_PATH", std::string(kConfigPath) + "/" + kConfigKubexec);
  SetEnv(main, "DGL_OPERATOR_KUBECTL_PATH", std::string(kKubePath) + "/kubectl");
  AddMount(main, kKubeVolume, kKubePath);
  spec["serviceAccountName"] = PartitionerName(job_name);
  json init = json::array({KubectlDownloadContainer(options)});
  if (const json* own = FindField(spec, {"initContainers"}); own != nullptr && own->is_array()) {
    for (const json& c : *own) init.push_back(c);
  }
  spec["initContainers"] = std::move(init);
  AddVolume(spec, EmptyDir(kKubeVolume));
  // Partitions written straight to the claim survive restarts.
  if (PartitionsOnPersistentVolume(job)) {
    const std::string volume = LauncherDatasetVolume(job);
    AddMount(main, volume, kDatasetPath);
    if (const json* v = TemplateVolume(job, kReplicaLauncher, volume)) AddVolume(spec, *v);
  }
  return pod;
}

}  // namespace dgl
