// The simulated machines, their heartbeats and the DefaultTolerationSeconds admission plugin.
// See cluster.h.
#include "sim/cluster/cluster.h"

#include "fakeapi/client/json_path.h"
#include "fakeapi/server/rbac_bootstrap.h"
#include "fakeapi/client/quantity.h"

#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <utility>
#include <vector>

namespace sim {

using json = kube::Json;

namespace {

// The string member `key` of `obj`; "" when absent.
std::string StringAt(const json& obj, const char* key) { return kube::JsonString(obj, {key}); }

std::optional<double> ParsePlainNumber(std::string_view text) {
  std::string s(text);
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || !(v > 0)) return std::nullopt;
  return v;
}

// A deterministic identifier from a node's name: 32 hex digits, optionally as a UUID.
std::string IdFor(const std::string& name, std::uint64_t salt, bool uuid) {
  std::uint64_t a = 1469598103934665603ULL ^ salt, b = 1099511628211ULL + salt;
  for (unsigned char c : name) {
    a = (a ^ c) * 1099511628211ULL;
    b = (b ^ c) * 0x9e3779b97f4a7c15ULL;
  }
  char hex[33];
  std::snprintf(hex, sizeof hex, "%016llx%016llx", static_cast<unsigned long long>(a), static_cast<unsigned long long>(b));
  std::string id(hex);
  if (!uuid) return id;
  return id.substr(0, 8) + "-" + id.substr(8, 4) + "-" + id.substr(12, 4) + "-" + id.substr(16, 4) + "-" + id.substr(20);
}

// status.nodeInfo as a kubelet reports it, every field set (clients such as the official Python
// client refuse a node without bootID, machineID, systemUUID, kernel, OS image and runtime), with
// identifiers derived from the name and values that say the machine is simulated. Fields a node
// manifest gives are kept.
void FillNodeInfo(json& status, const std::string& name) {
  json& info = status["nodeInfo"];
  if (!info.is_object()) info = json::object();
  const json defaults = {{"architecture", "amd64"},
                         {"bootID", IdFor(name, 1, true)},
                         {"containerRuntimeVersion", "dglsim://simulated"},
                         {"kernelVersion", "simulated"},
                         {"kubeProxyVersion", "v1.32.0"},
                         {"kubeletVersion", "v1.32.0"},
                         {"machineID", IdFor(name, 2, false)},
                         {"operatingSystem", "linux"},
                         {"osImage", "dglsim simulated node"},
                         {"systemUUID", IdFor(name, 3, true)}};
  for (auto it = defaults.begin(); it != defaults.end(); ++it)
    if (!info.contains(it.key()) || !info[it.key()].is_string()) info[it.key()] = *it;
  if (!status["daemonEndpoints"].is_object()) status["daemonEndpoints"] = {{"kubeletEndpoint", {{"Port", 10250}}}};
}

}  // namespace

// ---- taints and tolerations ----------------------------------------------------------------------

json Taint::ToJson() const {
  json t = {{"key", key}, {"effect", effect}};
  if (!value.empty()) t["value"] = value;
  if (time_added) t["timeAdded"] = kube::FormatTime(*time_added);
  return t;
}

Taint Taint::FromJson(const json& taint) {
  Taint t{StringAt(taint, "key"), StringAt(taint, "value"), StringAt(taint, "effect"), std::nullopt};
  if (auto added = kube::ParseTime(StringAt(taint, "timeAdded"))) t.time_added = *added;
  return t;
}

Toleration Toleration::FromJson(const json& toleration) {
  Toleration t;
  t.key = StringAt(toleration, "key");
  std::string op = StringAt(toleration, "operator");
  if (!op.empty()) t.op = op;
  t.value = StringAt(toleration, "value");
  t.effect = StringAt(toleration, "effect");
  if (toleration.is_object()) {
    auto it = toleration.find("tolerationSeconds");
    if (it != toleration.end() && it->is_number_integer()) t.toleration_seconds = it->get<std::int64_t>();
  }
  return t;
}

bool Tolerates(const Toleration& toleration, const Taint& taint) {
  if (!toleration.effect.empty() && toleration.effect != taint.effect) return false;
  if (!toleration.key.empty() && toleration.key != taint.key) return false;
  if (toleration.op == "Exists") return true;
  if (toleration.op == "Equal" || toleration.op.empty()) return toleration.value == taint.value;
  return false;
}

std::vector<Taint> TaintsOf(const json& node) {
  std::vector<Taint> out;
  auto spec = node.find("spec");
  if (spec == node.end() || !spec->is_object()) return out;
  auto taints = spec->find("taints");
  if (taints == spec->end() || !taints->is_array()) return out;
  for (const auto& t : *taints) out.push_back(Taint::FromJson(t));
  return out;
}

std::vector<Toleration> TolerationsOf(const json& pod) {
  std::vector<Toleration> out;
  auto spec = pod.find("spec");
  if (spec == pod.end() || !spec->is_object()) return out;
  auto list = spec->find("tolerations");
  if (list == spec->end() || !list->is_array()) return out;
  for (const auto& t : *list) out.push_back(Toleration::FromJson(t));
  return out;
}

std::string NodeReadyStatus(const json& node) {
  auto status = node.find("status");
  if (status == node.end() || !status->is_object()) return "";
  auto conditions = status->find("conditions");
  if (conditions == status->end() || !conditions->is_array()) return "";
  for (const auto& c : *conditions)
    if (StringAt(c, "type") == "Ready") return StringAt(c, "status");
  return "";
}

json ReadyCondition(Micros api_now, Micros last_transition) {
  return {{"type", "Ready"},
          {"status", "True"},
          {"reason", "KubeletReady"},
          {"message", "kubelet is posting ready status"},
          {"lastHeartbeatTime", kube::FormatTime(api_now)},
          {"lastTransitionTime", kube::FormatTime(last_transition)}};
}

// ---- the cluster ---------------------------------------------------------------------------------

Cluster::Cluster(Simulation& sim, ClusterOptions options) : sim_(sim), options_(std::move(options)) {
  if (!options_.parse_bandwidth) options_.parse_bandwidth = ParsePlainNumber;
  heartbeat_ = std::make_unique<NodeHeartbeat>(sim_, *this);
  if (sim_.started()) heartbeat_->Start();
  if (options_.default_toleration_seconds >= 0) {
    // DefaultTolerationSeconds (plugin/pkg/admission/defaulttolerationseconds): a pod that does not
    // already tolerate the taint (same key or empty key, NoExecute or empty effect) gets one.
    // The two tolerations are built once, sealed: every pod's copy shares them (json.h).
    std::vector<std::pair<const char*, json>> added;
    for (const char* key : {kTaintNotReady, kTaintUnreachable}) {
      json t = kube::MakeObject("effect", "NoExecute", "key", key, "operator", "Exists", "tolerationSeconds",
                                options_.default_toleration_seconds);
      kube::SealTree(t);
      added.emplace_back(key, std::move(t));
    }
    sim_.store().AddDefaulter("pods", [added = std::move(added)](fakeapi::AdmissionRequest& r) {
      if (r.operation != fakeapi::Operation::kCreate || !r.subresource.empty()) return;
      json& spec = (*r.object)["spec"];
      if (!spec.is_object()) return;
      json& tolerations = spec["tolerations"];
      if (!tolerations.is_array()) tolerations = json::array();
      for (const auto& [key, toleration] : added) {
        bool tolerated = false;
        for (const auto& t : std::as_const(tolerations)) {
          const json* k = kube::JsonAt(t, {"key"});
          const json* effect = kube::JsonAt(t, {"effect"});
          const std::string_view kv = k != nullptr && k->is_string() ? std::string_view(k->get_ref<const std::string&>()) : "";
          const std::string_view ev =
              effect != nullptr && effect->is_string() ? std::string_view(effect->get_ref<const std::string&>()) : "";
          if ((kv == key || kv.empty()) && (ev == "NoExecute" || ev.empty())) tolerated = true;
        }
        if (!tolerated) tolerations.push_back(toleration);
      }
    });
  }
}

Cluster::~Cluster() = default;

std::string Cluster::InternalIpFor(std::size_t i) {
  // 10.0.0.1 .. : 250 hosts per /24 keeps clear of .0 and .255.
  return "10.0." + std::to_string(i / 250) + "." + std::to_string(i % 250 + 1);
}

std::string Cluster::PodCidrFor(std::size_t i) {
  // 10.244.<i>.0/24 as kubeadm's default cluster CIDR hands out; past 256 nodes the next /16s
  // (10.245 ... 10.255), then the shared address space 100.64.0.0/10.
  if (i < 12 * 256) return "10." + std::to_string(244 + i / 256) + "." + std::to_string(i % 256) + ".0/24";
  std::size_t j = i - 12 * 256;
  return "100." + std::to_string(64 + j / 256) + "." + std::to_string(j % 256) + ".0/24";
}

kube::Status Cluster::CreateNode(json node, NodeSimSpec spec) {
  const std::string name = StringAt(node["metadata"], "name");
  auto created = sim_.store().Create("nodes", std::move(node));
  if (!created.ok()) return created.status();
  specs_[name] = std::move(spec);
  liveness_[name] = Liveness{true, sim_.Now()};
  return kube::Status::Ok();
}

kube::Status Cluster::AddNodes(const NodeTemplate& t) {
  for (int k = 0; k < t.count; ++k)
    if (auto s = AddNode(t, t.name + "-" + std::to_string(k)); !s.ok()) return s;
  return kube::Status::Ok();
}

kube::Status Cluster::AddNode(const NodeTemplate& t, const std::string& name) {
  const Micros api_now = sim_.engine().clock().Now();
  std::size_t index = specs_.size();
  NodeSimSpec spec{t.nic_bytes_per_second, t.disk_bytes_per_second, t.cpu_speed, PodCidrFor(index), InternalIpFor(index)};
  json labels = {{"kubernetes.io/arch", "amd64"}, {"kubernetes.io/os", "linux"}};
  for (const auto& [key, value] : t.labels) labels[key] = value;
  labels["kubernetes.io/hostname"] = name;
  json capacity = json::object();
  for (const auto& [key, value] : t.capacity) capacity[key] = value;
  if (!capacity.contains("pods")) capacity["pods"] = std::to_string(kDefaultMaxPods);
  if (!capacity.contains("ephemeral-storage")) capacity["ephemeral-storage"] = kDefaultEphemeralStorage;
  json taints = json::array();
  for (const auto& taint : t.taints) taints.push_back(taint.ToJson());
  json node = {
      {"metadata", {{"name", name}, {"labels", labels}}},
      {"spec", {{"podCIDR", spec.pod_cidr}, {"podCIDRs", json::array({spec.pod_cidr})}}},
      {"status",
       {{"capacity", capacity},
        {"allocatable", capacity},
        {"conditions", json::array({ReadyCondition(api_now, api_now)})},
        {"addresses", json::array({{{"type", "InternalIP"}, {"address", spec.internal_ip}},
                                   {{"type", "Hostname"}, {"address", name}}})}}}};
  FillNodeInfo(node["status"], name);
  if (!taints.empty()) node["spec"]["taints"] = taints;
  return CreateNode(std::move(node), std::move(spec));
}

kube::Status Cluster::AddNodesFromManifest(const json& manifest) {
  if (!manifest.is_object()) return kube::Status::BadRequest("a Node or NodeList must be a JSON object");
  std::string kind = StringAt(manifest, "kind");
  if (kind == "NodeList" || kind == "List") {
    auto items = manifest.find("items");
    if (items == manifest.end() || !items->is_array())
      return kube::Status::BadRequest("a " + kind + " needs an items array");
    for (const auto& item : *items)
      if (auto s = AddNodesFromManifest(item); !s.ok()) return s;
    return kube::Status::Ok();
  }
  if (kind != "Node") return kube::Status::BadRequest("expected a Node or NodeList, got kind \"" + kind + "\"");

  json node = manifest;
  json& meta = node["metadata"];
  if (!meta.is_object()) return kube::Status::BadRequest("a Node needs metadata");
  for (const char* server_owned : {"uid", "resourceVersion", "creationTimestamp", "managedFields", "selfLink",
                                   "generation", "deletionTimestamp", "deletionGracePeriodSeconds"})
    meta.erase(server_owned);
  const std::string name = StringAt(meta, "name");
  std::size_t index = specs_.size();

  NodeSimSpec spec;
  const json& annotations = meta.contains("annotations") ? meta["annotations"] : json::object();
  if (auto v = options_.parse_bandwidth(StringAt(annotations, kAnnotationNetwork))) spec.nic_bytes_per_second = *v;
  if (auto v = options_.parse_bandwidth(StringAt(annotations, kAnnotationDisk))) spec.disk_bytes_per_second = *v;
  if (auto v = ParsePlainNumber(StringAt(annotations, kAnnotationCpuSpeed))) spec.cpu_speed = *v;

  json& labels = meta["labels"];
  if (!labels.is_object()) labels = json::object();
  if (!labels.contains("kubernetes.io/hostname")) labels["kubernetes.io/hostname"] = name;

  json& node_spec = node["spec"];
  if (!node_spec.is_object()) node_spec = json::object();
  spec.pod_cidr = StringAt(node_spec, "podCIDR");
  if (spec.pod_cidr.empty()) {
    spec.pod_cidr = PodCidrFor(index);
    node_spec["podCIDR"] = spec.pod_cidr;
    node_spec["podCIDRs"] = json::array({spec.pod_cidr});
  }

  json& status = node["status"];
  if (!status.is_object()) status = json::object();
  if (!status["capacity"].is_object()) status["capacity"] = json::object();
  if (!status["capacity"].contains("pods")) status["capacity"]["pods"] = std::to_string(kDefaultMaxPods);
  if (!status["capacity"].contains("ephemeral-storage")) status["capacity"]["ephemeral-storage"] = kDefaultEphemeralStorage;
  if (!status["allocatable"].is_object()) status["allocatable"] = status["capacity"];
  if (!status["allocatable"].contains("ephemeral-storage"))
    status["allocatable"]["ephemeral-storage"] = status["capacity"]["ephemeral-storage"];
  json& addresses = status["addresses"];
  if (!addresses.is_array()) addresses = json::array();
  for (const auto& a : addresses)
    if (StringAt(a, "type") == "InternalIP") spec.internal_ip = StringAt(a, "address");
  if (spec.internal_ip.empty()) {
    spec.internal_ip = InternalIpFor(index);
    addresses.push_back({{"type", "InternalIP"}, {"address", spec.internal_ip}});
  }
  // The machine starts up: whatever the export said, it is Ready now.
  const Micros api_now = sim_.engine().clock().Now();
  json conditions = json::array();
  if (status["conditions"].is_array())
    for (const auto& c : status["conditions"])
      if (StringAt(c, "type") != "Ready") conditions.push_back(c);
  conditions.push_back(ReadyCondition(api_now, api_now));
  status["conditions"] = std::move(conditions);
  FillNodeInfo(status, name);
  return CreateNode(std::move(node), std::move(spec));
}

const NodeSimSpec* Cluster::Spec(std::string_view node) const {
  auto it = specs_.find(node);
  return it == specs_.end() ? nullptr : &it->second;
}

void Cluster::NodeDown(const std::string& node) {
  auto it = liveness_.find(node);
  if (it == liveness_.end() || !it->second.up) return;
  it->second = Liveness{false, sim_.Now()};
  sim_.trace().Record(sim_.Now(), "cluster", "node down " + node);
  if (Network* network = sim_.network()) network->SetNodeUp(node, false);  // its flows stall
  for (auto& observer : observers_) observer(node, false, it->second.since);
}

void Cluster::NodeUp(const std::string& node) {
  auto it = liveness_.find(node);
  if (it == liveness_.end() || it->second.up) return;
  it->second = Liveness{true, sim_.Now()};
  sim_.trace().Record(sim_.Now(), "cluster", "node up " + node);
  if (Network* network = sim_.network()) network->SetNodeUp(node, true);
  for (auto& observer : observers_) observer(node, true, sim_.Now());
  heartbeat_->PostReady(node);
}

kube::Status Cluster::RemoveNode(const std::string& node) {
  auto it = liveness_.find(node);
  if (it == liveness_.end()) return kube::Status::NotFound("nodes", node);
  if (it->second.up) {
    it->second = Liveness{false, sim_.Now()};
    if (Network* network = sim_.network()) network->SetNodeUp(node, false);
  }
  sim_.trace().Record(sim_.Now(), "cluster", "node removed " + node);
  auto deleted = sim_.store().Delete("nodes", "", node);
  return deleted.ok() ? kube::Status::Ok() : deleted.status();
}

bool Cluster::IsUp(std::string_view node) const {
  auto it = liveness_.find(node);
  return it != liveness_.end() && it->second.up;
}

Micros Cluster::LastHeartbeat(std::string_view node) const {
  auto it = liveness_.find(node);
  if (it == liveness_.end()) return 0;
  return it->second.up ? sim_.Now() : it->second.since;
}

void Cluster::AddLivenessObserver(LivenessObserver observer) { observers_.push_back(std::move(observer)); }

// ---- heartbeats ----------------------------------------------------------------------------------

// The kubelets' status posts, for every node: a member of system:nodes.
NodeHeartbeat::NodeHeartbeat(Simulation& sim, Cluster& cluster) : Actor(sim, "node-heartbeat"), cluster_(cluster) {
  SetIdentity(fakeapi::rbac::NodeUser("heartbeat"));
}

void NodeHeartbeat::Start() {
  if (cluster_.options().status_report_period > 0) After(cluster_.options().status_report_period, [this] { Refresh(); });
}

void NodeHeartbeat::PostReady(const std::string& node) {
  auto current = client().Get("nodes", "", node);
  if (!current.ok()) return;
  const Micros api_now = sim().engine().clock().Now();
  json conditions = json::array();
  Micros transition = api_now;
  auto status = (*current)->find("status");
  if (status != (*current)->end() && status->contains("conditions") && (*status)["conditions"].is_array())
    for (const auto& c : (*status)["conditions"]) {
      if (StringAt(c, "type") != "Ready") {
        conditions.push_back(c);
      } else if (StringAt(c, "status") == "True") {
        if (auto t = kube::ParseTime(StringAt(c, "lastTransitionTime"))) transition = *t;
      }
    }
  conditions.push_back(ReadyCondition(api_now, transition));
  auto r = client().Patch("nodes", "", node, {{"status", {{"conditions", conditions}}}}, kube::PatchType::kMerge,
                          "status");
  if (!r.ok()) {
    // A kubelet retries its status post; ours does after a second.
    After(kSecond, [this, node] {
      if (cluster_.IsUp(node)) PostReady(node);
    });
  }
}

void NodeHeartbeat::Refresh() {
  for (const auto& [name, spec] : cluster_.specs())
    if (cluster_.IsUp(name)) PostReady(name);
  After(cluster_.options().status_report_period, [this] { Refresh(); });
}

}  // namespace sim
