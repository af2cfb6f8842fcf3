#include "operator/controller/builders.h"

#include "fakeapi/client/quantity.h"

#include <string>
#include <utility>
#include <vector>

namespace dgl {
namespace {

using nlohmann::json;

constexpr const char* kConfigVolume = "config-volume";
constexpr const char* kKubeVolume = "kube-volume";
constexpr const char* kDatasetVolume = "dataset-volume";
constexpr const char* kShmVolume = "shm-volume";
constexpr const char* kConfigPath = "/etc/dgl";
constexpr const char* kKubePath = "/opt/kube";
constexpr int kModeExecutable = 0555;
constexpr int kModeReadOnly = 0444;

const json* Member(const json& obj, const char* key) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(key);
  return it == obj.end() || it->is_null() ? nullptr : &*it;
}

std::string StringMember(const json& obj, const char* key) {
  const json* v = Member(obj, key);
  return v != nullptr && v->is_string() ? v->get<std::string>() : std::string();
}

json& ArrayMember(json& obj, const char* key) {
  json& v = obj[key];
  if (!v.is_array()) v = json::array();
  return v;
}

// Sets env `name` on a container, replacing an existing value.
void SetEnv(json& container, const std::string& name, const std::string& value) {
  json& env = ArrayMember(container, "env");
  for (json& e : env) {
    if (e.is_object() && StringMember(e, "name") == name) {
      e = json{{"name", name}, {"value", value}};
      return;
    }
  }
  env.push_back({{"name", name}, {"value", value}});
}

// Adds a volumeMount unless the container already mounts something at that path or by that name.
void AddMount(json& container, const std::string& volume, const std::string& path) {
  json& mounts = ArrayMember(container, "volumeMounts");
  for (const json& m : mounts) {
    if (StringMember(m, "mountPath") == path || StringMember(m, "name") == volume) return;
  }
  mounts.push_back({{"name", volume}, {"mountPath", path}});
}

bool HasVolume(const json& pod_spec, const std::string& name) {
  const json* volumes = Member(pod_spec, "volumes");
  if (volumes == nullptr || !volumes->is_array()) return false;
  for (const json& v : *volumes) {
    if (StringMember(v, "name") == name) return true;
  }
  return false;
}

void AddVolume(json& pod_spec, json volume) {
  if (HasVolume(pod_spec, volume["name"].get<std::string>())) return;
  ArrayMember(pod_spec, "volumes").push_back(std::move(volume));
}

json ConfigVolume(const std::string& job_name, const std::vector<const char*>& keys) {
  json items = json::array();
  for (const char* key : keys) {
    const int mode = std::string_view(key) == kConfigKubexec ? kModeExecutable : kModeReadOnly;
    items.push_back({{"key", key}, {"path", key}, {"mode", mode}});
  }
  return {{"name", kConfigVolume}, {"configMap", {{"name", ConfigMapName(job_name)}, {"items", items}}}};
}

json EmptyDir(const char* name) { return {{"name", name}, {"emptyDir", json::object()}}; }

// The template's pod spec and metadata merged with the operator's metadata for pod `name`.
json PodFromTemplate(const json& job, const char* replica_type_key, const std::string& name,
                     std::string_view replica_type, std::int64_t index, const BuildOptions& options,
                     std::int64_t restart_epoch) {
  const json* tmpl = GetReplicaTemplate(job, replica_type_key);
  json pod = {{"apiVersion", "v1"}, {"kind", "Pod"}};
  json meta = OwnedMetadata(job, name, replica_type);
  if (tmpl != nullptr) {
    if (const json* tmeta = Member(*tmpl, "metadata"); tmeta != nullptr) {
      for (const char* key : {"labels", "annotations"}) {
        const json* values = Member(*tmeta, key);
        if (values == nullptr || !values->is_object()) continue;
        for (const auto& [k, v] : values->items()) {
          if (!meta[key].contains(k)) meta[key][k] = v;
        }
      }
    }
  }
  meta["labels"][kLabelReplicaIndex] = std::to_string(index);
  meta["annotations"][kAnnotationRestartEpoch] = std::to_string(restart_epoch);
  if (options.gang_scheduling) meta["labels"][kLabelPodGroup] = JobName(job);
  pod["metadata"] = std::move(meta);
  json spec = tmpl != nullptr && Member(*tmpl, "spec") != nullptr ? (*tmpl)["spec"] : json::object();
  if (!spec.is_object()) spec = json::object();
  if (!spec.contains("containers") || !spec["containers"].is_array()) spec["containers"] = json::array();
  if (spec["containers"].empty()) spec["containers"].push_back(json::object());
  // The operator restarts pods itself, per the replica's restartPolicy.
  spec["restartPolicy"] = "Never";
  if (options.gang_scheduling && !options.gang_scheduler_name.empty()) {
    spec["schedulerName"] = options.gang_scheduler_name;
  }
  if (const json* spec_root = Member(job, "spec")) {
    if (const json* run = Member(*spec_root, "runPolicy")) {
      if (const json* sched = Member(*run, "schedulingPolicy")) {
        std::string priority = StringMember(*sched, "priorityClass");
        if (!priority.empty() && !spec.contains("priorityClassName")) spec["priorityClassName"] = priority;
      }
    }
  }
  pod["spec"] = std::move(spec);
  return pod;
}

json WatcherResources() {
  json r = {{"cpu", "100m"}, {"memory", "512Mi"}, {"ephemeral-storage", "5Gi"}};
  return {{"requests", r}, {"limits", r}};
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
  const json* spec = tmpl != nullptr ? Member(*tmpl, "spec") : nullptr;
  const json* containers = spec != nullptr ? Member(*spec, "containers") : nullptr;
  if (containers == nullptr || !containers->is_array()) return "";
  for (const json& c : *containers) {
    const json* mounts = Member(c, "volumeMounts");
    if (mounts == nullptr || !mounts->is_array()) continue;
    for (const json& m : *mounts) {
      if (StringMember(m, "mountPath") == kDatasetPath) return StringMember(m, "name");
    }
  }
  return "";
}

const json* LauncherVolume(const json& job, const std::string& name) {
  const json* tmpl = GetReplicaTemplate(job, kReplicaLauncher);
  const json* spec = tmpl != nullptr ? Member(*tmpl, "spec") : nullptr;
  const json* volumes = spec != nullptr ? Member(*spec, "volumes") : nullptr;
  if (volumes == nullptr || !volumes->is_array()) return nullptr;
  for (const json& v : *volumes) {
    if (StringMember(v, "name") == name) return &v;
  }
  return nullptr;
}

bool HasResources(const json& container) {
  const json* r = Member(container, "resources");
  if (r == nullptr || !r->is_object()) return false;
  for (const char* key : {"requests", "limits"}) {
    const json* v = Member(*r, key);
    if (v != nullptr && v->is_object() && !v->empty()) return true;
  }
  return false;
}

void DefaultLauncherResources(json& container) {
  if (HasResources(container)) return;
  json r = {{"cpu", "1"}, {"memory", "2Gi"}};
  container["resources"] = {{"requests", r}, {"limits", r}};
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
  json shm = {{"name", kShmVolume}, {"emptyDir", {{"medium", "Memory"}}}};
  // Half the memory limit for /dev/shm (the original rounded this down to whole GB, often 0).
  if (const json* resources = Member(main, "resources")) {
    if (const json* limits = Member(*resources, "limits")) {
      const json* memory = Member(*limits, "memory");
      if (memory != nullptr && memory->is_string()) {
        if (auto bytes = kube::ParseQuantity(memory->get<std::string>()); bytes && *bytes > 1) {
          shm["emptyDir"]["sizeLimit"] = kube::FormatBytes(*bytes / 2);
        }
      }
    }
  }
  AddVolume(spec, std::move(shm));
  AddVolume(spec, ConfigVolume(JobName(job), {kConfigKubexec, kConfigHostfile, kConfigPartfile, kConfigLeadfile, kConfigIpconfig}));
}

std::string Line(const std::string& ip, const std::string& rest) { return ip + " " + std::to_string(kDglPort) + " " + rest + "\n"; }

}  // namespace

std::string JobName(const json& job) {
  const json* meta = Member(job, "metadata");
  return meta != nullptr ? StringMember(*meta, "name") : std::string();
}

json ControllerOwnerRef(const json& job) {
  return {{"apiVersion", kApiVersion},
          {"kind", kKind},
          {"name", JobName(job)},
          {"uid", job["metadata"].value("uid", "")},
          {"controller", true},
          {"blockOwnerDeletion", true}};
}

json OwnedMetadata(const json& job, const std::string& name, std::string_view replica_type) {
  json labels = {{kLabelJobName, JobName(job)}};
  if (!replica_type.empty()) labels[kLabelReplicaType] = std::string(replica_type);
  return {{"name", name},
          {"namespace", job["metadata"].value("namespace", "")},
          {"labels", labels},
          {"annotations", json::object()},
          {"ownerReferences", json::array({ControllerOwnerRef(job)})}};
}

const std::string& KubexecScript() {
  static const std::string script =
      "#!/bin/sh\n"
      "set -x\n"
      "POD_NAME=$1; shift\n"
      "/opt/kube/kubectl exec ${POD_NAME} -- /bin/sh -c \"$*\"\n";
  return script;
}

std::map<std::string, std::string> BuildConfigData(const json& job, const PodAddresses& addresses) {
  const std::string name = JobName(job);
  const std::string servers = std::to_string(GetNumServers(job));
  const std::string slots = std::to_string(GetSlotsPerWorker(job));
  std::string ipconfig;
  std::string hostfile;
  // std::map iterates in numeric index order: worker-10 follows worker-9 (the original sorted names
  // as strings and paired worker-10 with worker-2's IP).
  for (const auto& [index, ip] : addresses.workers) ipconfig += Line(ip, servers + " " + WorkerName(name, index) + " " + slots);
  std::map<std::int64_t, std::string> hosts = addresses.workers;
  for (std::int64_t index : addresses.workers_without_ip) hosts.emplace(index, "");
  for (const auto& [index, ip] : hosts) hostfile += Line(ip, WorkerName(name, index) + " slots=" + slots);
  std::map<std::string, std::string> data;
  data[kConfigIpconfig] = std::move(ipconfig);
  data[kConfigHostfile] = std::move(hostfile);
  data[kConfigPartfile] = addresses.partitioner ? Line(*addresses.partitioner, PartitionerName(name)) : "";
  data[kConfigLeadfile] = addresses.launcher ? Line(*addresses.launcher, LauncherName(name)) : "";
  data[kConfigKubexec] = KubexecScript();
  return data;
}

json BuildConfigMap(const json& job, const PodAddresses& addresses) {
  json cm = {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", OwnedMetadata(job, ConfigMapName(JobName(job)), "")}};
  cm["metadata"].erase("annotations");
  cm["data"] = BuildConfigData(job, addresses);
  return cm;
}

json BuildServiceAccount(const json& job, std::string_view role) {
  const std::string name = std::string(JobName(job)) + "-" + std::string(role);
  json sa = {{"apiVersion", "v1"}, {"kind", "ServiceAccount"}, {"metadata", OwnedMetadata(job, name, role)}};
  sa["metadata"].erase("annotations");
  return sa;
}

json BuildRole(const json& job, std::string_view role) {
  const std::string job_name = JobName(job);
  const std::string name = job_name + "-" + std::string(role);
  json targets = json::array();
  if (role == kRolePartitioner) {
    targets.push_back(LauncherName(job_name));  // copies the partitions into the launcher
  } else {
    for (std::int64_t i = 0; i < GetReplicas(job, kReplicaWorker); ++i) targets.push_back(WorkerName(job_name, i));
  }
  json rules = json::array();
  rules.push_back({{"apiGroups", {""}}, {"resources", {"pods"}}, {"verbs", {"get", "list", "watch"}}});
  rules.push_back({{"apiGroups", {""}}, {"resources", {"pods/exec"}}, {"verbs", {"create"}}, {"resourceNames", targets}});
  json r = {{"apiVersion", "rbac.authorization.k8s.io/v1"},
            {"kind", "Role"},
            {"metadata", OwnedMetadata(job, name, role)},
            {"rules", rules}};
  r["metadata"].erase("annotations");
  return r;
}

json BuildRoleBinding(const json& job, std::string_view role) {
  const std::string name = JobName(job) + "-" + std::string(role);
  json rb = {{"apiVersion", "rbac.authorization.k8s.io/v1"},
             {"kind", "RoleBinding"},
             {"metadata", OwnedMetadata(job, name, role)},
             {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "Role"}, {"name", name}}},
             {"subjects",
              {{{"kind", "ServiceAccount"}, {"name", name}, {"namespace", job["metadata"].value("namespace", "")}}}}};
  rb["metadata"].erase("annotations");
  return rb;
}

json BuildWorkerService(const json& job) {
  const std::string job_name = JobName(job);
  json ports = json::array();
  for (std::int64_t i = 0; i < GetNumServers(job); ++i) {
    ports.push_back({{"name", "dgl-server-" + std::to_string(i)},
                     {"port", kDglPort + i},
                     {"targetPort", kDglPort + i},
                     {"protocol", "TCP"}});
  }
  json svc = {{"apiVersion", "v1"},
              {"kind", "Service"},
              {"metadata", OwnedMetadata(job, WorkerServiceName(job_name), kRoleWorker)},
              {"spec",
               {{"clusterIP", "None"},
                {"selector", {{kLabelJobName, job_name}, {kLabelReplicaType, kRoleWorker}}},
                {"ports", ports}}}};
  svc["metadata"].erase("annotations");
  return svc;
}

json BuildPodGroup(const json& job, std::int64_t min_member) {
  json pg = {{"apiVersion", "scheduling.x-k8s.io/v1alpha1"},
             {"kind", "PodGroup"},
             {"metadata", OwnedMetadata(job, JobName(job), "")},
             {"spec", {{"minMember", min_member}}}};
  pg["metadata"].erase("annotations");
  if (auto timeout = GetSchedulingInt(job, "scheduleTimeoutSeconds")) pg["spec"]["scheduleTimeoutSeconds"] = *timeout;
  return pg;
}

bool PartitionsOnPersistentVolume(const json& job) {
  const std::string volume = LauncherDatasetVolume(job);
  if (volume.empty()) return false;
  const json* v = LauncherVolume(job, volume);
  return v != nullptr && Member(*v, "persistentVolumeClaim") != nullptr;
}

json BuildLauncherPod(const json& job, const BuildOptions& options, std::int64_t restart_epoch) {
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

  json init = json::array();
  init.push_back(KubectlDownloadContainer(options));
  if (RunsPartitionerPod(mode)) {
    init.push_back(WatcherContainer(job, options, kWatcherPartitioner, "finished", kConfigPartfile, true, dataset_volume));
    init.push_back(WatcherContainer(job, options, kWatcherWorker, "ready", kConfigHostfile, false, dataset_volume));
  } else {
    // MSP: wait for the workers, then ParMETIS with one rank per worker partitions in place.
    init.push_back(WatcherContainer(job, options, kWatcherWorker, "ready", kConfigHostfile, false, dataset_volume));
    json dist = {{"name", kDistPartitioner}, {"image", main.value("image", "")}};
    for (const char* key : {"command", "args", "resources", "imagePullPolicy"}) {
      if (main.contains(key)) dist[key] = main[key];
    }
    SetLauncherEnv(dist);
    SetEnv(dist, kEnvPartitionMode, ToString(mode));
    SetEnv(dist, kEnvPhase, kPhaseEnvDistPartitioner);
    AddMount(dist, kKubeVolume, kKubePath);
    AddMount(dist, kConfigVolume, kConfigPath);
    AddMount(dist, dataset_volume, kDatasetPath);
    init.push_back(std::move(dist));
  }
  // The operator's init containers run first; the template's own run after them.
  if (const json* own = Member(spec, "initContainers"); own != nullptr && own->is_array()) {
    for (const json& c : *own) init.push_back(c);
  }
  spec["initContainers"] = std::move(init);
  AddVolume(spec, EmptyDir(kKubeVolume));
  AddVolume(spec, EmptyDir(dataset_volume.c_str()));
  AddVolume(spec, ConfigVolume(job_name, {kConfigKubexec, kConfigHostfile, kConfigPartfile, kConfigIpconfig}));
  return pod;
}

json BuildWorkerPod(const json& job, std::int64_t index, const BuildOptions& options, std::int64_t restart_epoch) {
  const std::string job_name = JobName(job);
  json pod = PodFromTemplate(job, kReplicaWorker, WorkerName(job_name, index), kRoleWorker, index, options, restart_epoch);
  ApplyWorkerShape(job, pod);
  json& spec = pod["spec"];
  // DNS J-worker-i.J-worker.<ns> through the headless Service.
  spec["hostname"] = WorkerName(job_name, index);
  spec["subdomain"] = WorkerServiceName(job_name);
  json ports = json::array();
  for (std::int64_t i = 0; i < GetNumServers(job); ++i) {
    ports.push_back({{"name", "c-port-" + std::to_string(i)}, {"containerPort", kDglPort + i}, {"protocol", "TCP"}});
  }
  spec["containers"][0]["ports"] = std::move(ports);
  SetEnv(spec["containers"][0], kEnvPartitionMode, ToString(GetPartitionMode(job)));
  return pod;
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
  if (const json* own = Member(spec, "initContainers"); own != nullptr && own->is_array()) {
    for (const json& c : *own) init.push_back(c);
  }
  spec["initContainers"] = std::move(init);
  AddVolume(spec, EmptyDir(kKubeVolume));
  // Partitions written straight to the claim survive restarts.
  if (PartitionsOnPersistentVolume(job)) {
    const std::string volume = LauncherDatasetVolume(job);
    AddMount(main, volume, kDatasetPath);
    if (const json* v = LauncherVolume(job, volume)) AddVolume(spec, *v);
  }
  return pod;
}

}  // namespace dgl
