// The objects of a DGLJob other than its pods (builders.h): metadata, the ConfigMap with the
// hand-off files, RBAC, the headless Services and the PodGroup.
#include "operator/controller/builders.h"

#include "operator/controller/pod_state.h"

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace dgl {
namespace {

using json = kube::Json;

// Appends "<ip> <port> <pieces...>\n" to `out`: the lines of the files rebuilt whenever a pod of
// the job gets its IP, built in one string rather than from temporaries.
void AppendLine(std::string& out, std::string_view ip, std::initializer_list<std::string_view> pieces) {
  static const std::string port = std::to_string(kDglPort);
  out.append(ip).append(" ").append(port);
  for (std::string_view piece : pieces) out.append(" ").append(piece);
  out.append("\n");
}

// One such line on its own.
std::string Line(std::string_view ip, std::string_view rest) {
  std::string out;
  AppendLine(out, ip, {rest});
  return out;
}

// ipconfig: the pods that hold a partition (workers, then servers) with an IP, in the proposal's
// format "<IP> <port> <servers> <pod> <GPUs>".
std::string Ipconfig(const json& job, const PodAddresses& addresses) {
  const std::string name = JobName(job);
  const std::string servers = std::to_string(GetNumServers(job));
  std::string out;
  for (const char* role : {kRoleWorker, kRoleServer}) {
    const RoleAddresses* r = addresses.FindRole(role);
    if (r == nullptr) continue;
    const std::string gpus = std::string_view(role) == kRoleWorker ? std::to_string(GetSlotsPerWorker(job))
                                                                     : std::to_string(GetGpusPerPod(job, kReplicaServer));
    // std::map iterates in numeric index order: worker-10 follows worker-9 (the original sorted
    // names as strings and paired worker-10 with worker-2's IP).
    for (const auto& [index, ip] : r->ips) AppendLine(out, ip, {servers, ReplicaPodName(name, role, index), gpus});
  }
  return out;
}

// The original hostfile format "<IP> <port> <pod> slots=<n>" for the pods of `role`, numeric order,
// pods without an IP yet included (an empty IP column).
std::string HostLines(const std::string& name, const PodAddresses& addresses, const char* role, const std::string& slots) {
  const RoleAddresses* r = addresses.FindRole(role);
  if (r == nullptr) return "";
  const std::string slots_field = "slots=" + slots;
  std::string out;
  // The two by index in one ordered walk; an index in both is listed once, with its IP.
  auto with = r->ips.begin();
  auto without = r->without_ip.begin();
  while (with != r->ips.end() || without != r->without_ip.end()) {
    const bool take_with = without == r->without_ip.end() || (with != r->ips.end() && with->first <= *without);
    const std::int64_t index = take_with ? with->first : *without;
    AppendLine(out, take_with ? std::string_view(with->second) : std::string_view(), {ReplicaPodName(name, role, index), slots_field});
    if (take_with) {
      if (without != r->without_ip.end() && *without == index) ++without;
      ++with;
    } else {
      ++without;
    }
  }
  return out;
}

}  // namespace

std::string JobName(const json& job) {
  return StringField(job, {"metadata", "name"});
}

// (Built member by member with kube::MakeObject: these run for every object the operator creates.)
json ControllerOwnerRef(const json& job) {
  return kube::MakeObject("apiVersion", kApiVersion, "blockOwnerDeletion", true, "controller", true, "kind", kKind,
                          "name", JobName(job), "uid", kube::UidOf(job));
}

json OwnedMetadata(const json& job, const std::string& name, std::string_view replica_type) {
  json labels = kube::MakeObject(kLabelJobName, JobName(job));
  if (!replica_type.empty()) labels[kLabelReplicaType] = std::string(replica_type);
  json owners = json::array();
  owners.push_back(ControllerOwnerRef(job));
  return kube::MakeObject("annotations", json::object(), "labels", std::move(labels), "name", name, "namespace",
                          kube::NamespaceOf(job), "ownerReferences", std::move(owners));
}

const std::string& KubexecScript() {
  static const std::string script =
      "#!/bin/sh\n"
      "set -x\n"
      "POD_NAME=$1; shift\n"
      "/opt/kube/kubectl exec ${POD_NAME} -- /bin/sh -c \"$*\"\n";
  return script;
}

const RoleAddresses* PodAddresses::FindRole(const std::string& role) const {
  auto it = roles.find(role);
  return it == roles.end() ? nullptr : &it->second;
}

std::map<std::string, std::string> BuildConfigData(const json& job, const PodAddresses& addresses) {
  const std::string name = JobName(job);
  std::map<std::string, std::string> data;
  data[kConfigIpconfig] = Ipconfig(job, addresses);
  data[kConfigHostfile] = HostLines(name, addresses, kRoleWorker, std::to_string(GetSlotsPerWorker(job))) +
                          HostLines(name, addresses, kRoleServer, "0");
  data[kConfigPartfile] = addresses.partitioner       ? Line(*addresses.partitioner, PartitionerName(name))
                          : addresses.partitioner_wanted ? Line("", PartitionerName(name))
                                                         : "";
  data[kConfigLeadfile] = addresses.launcher ? Line(*addresses.launcher, LauncherName(name)) : "";
  data[kConfigKubexec] = KubexecScript();
  if (GetIndexedPods(job, kReplicaTrainer) > 0) {
    const std::int64_t gpus = GetGpusPerPod(job, kReplicaTrainer);
    data[kConfigTrainerfile] = HostLines(name, addresses, kRoleTrainer, std::to_string(gpus > 0 ? gpus : 1));
  }
  if (GetIndexedPods(job, kReplicaSampler) > 0) data[kConfigSamplerfile] = HostLines(name, addresses, kRoleSampler, "1");
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

json BuildRoleRules(const json& job, std::string_view role) {
  const std::string job_name = JobName(job);
  json targets = json::array();
  if (role == kRolePartitioner) {
    targets.push_back(LauncherName(job_name));  // copies the partitions into the launcher
  } else {
    // The launcher execs into every pod it runs DGL in.
    for (const IndexedReplica& r : kIndexedReplicas) {
      for (std::int64_t i = 0; i < GetIndexedPods(job, r.type); ++i) targets.push_back(ReplicaPodName(job_name, r.role, i));
    }
  }
  json rules = json::array();
  rules.push_back({{"apiGroups", {""}}, {"resources", {"pods"}}, {"verbs", {"get", "list", "watch"}}});
  rules.push_back({{"apiGroups", {""}}, {"resources", {"pods/exec"}}, {"verbs", {"create"}}, {"resourceNames", targets}});
  return rules;
}

json BuildRole(const json& job, std::string_view role) {
  const std::string name = JobName(job) + "-" + std::string(role);
  json r = {{"apiVersion", "rbac.authorization.k8s.io/v1"},
            {"kind", "Role"},
            {"metadata", OwnedMetadata(job, name, role)},
            {"rules", BuildRoleRules(job, role)}};
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

json BuildRoleServiceSpec(const json& job, std::string_view role) {
  json ports = json::array();
  for (std::int64_t i = 0; i < GetNumServers(job); ++i) {
    ports.push_back({{"name", "dgl-server-" + std::to_string(i)},
                     {"port", kDglPort + i},
                     {"targetPort", kDglPort + i},
                     {"protocol", "TCP"}});
  }
  return {{"clusterIP", "None"},
          {"selector", {{kLabelJobName, JobName(job)}, {kLabelReplicaType, std::string(role)}}},
          {"ports", ports}};
}

json BuildRoleService(const json& job, std::string_view role) {
  json svc = {{"apiVersion", "v1"},
              {"kind", "Service"},
              {"metadata", OwnedMetadata(job, RoleServiceName(JobName(job), role), role)},
              {"spec", BuildRoleServiceSpec(job, role)}};
  svc["metadata"].erase("annotations");
  return svc;
}

json BuildWorkerService(const json& job) { return BuildRoleService(job, kRoleWorker); }

json BuildPodGroupSpec(const json& job, std::int64_t min_member) {
  json spec = {{"minMember", min_member}};
  if (auto timeout = GetSchedulingInt(job, "scheduleTimeoutSeconds")) spec["scheduleTimeoutSeconds"] = *timeout;
  return spec;
}

json BuildPodGroup(const json& job, std::int64_t min_member) {
  json pg = {{"apiVersion", "scheduling.x-k8s.io/v1alpha1"},
             {"kind", "PodGroup"},
             {"metadata", OwnedMetadata(job, JobName(job), "")},
             {"spec", BuildPodGroupSpec(job, min_member)}};
  pg["metadata"].erase("annotations");
  return pg;
}

}  // namespace dgl
