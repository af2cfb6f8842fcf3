// The scenario loader's cluster section: node templates and Node manifests, storage, scheduler,
// images and timings. See loader.h.
#include "sim/harness/config/loader.h"

#include "fakeapi/client/quantity.h"

#include "sim/cluster/cluster.h"
#include "sim/harness/config/generators.h"

#include <cmath>
#include <cstdlib>
#include <functional>
#include <utility>

namespace harness::loading {

std::string TooManyNodes(std::size_t nodes) {
  return "the cluster would have " + std::to_string(nodes) + " nodes; a scenario holds at most " +
         std::to_string(kMaxNodes) + " (docs/limits.md)";
}

std::string GpusPastTheBound(std::int64_t gpus) {
  return std::to_string(gpus) + " GPUs on one node; at most " + std::to_string(kMaxNodeGpus) + " (docs/limits.md)";
}

// A Node manifest's GPU capacity and allocatable, bounded as a template's are.
void Loader::CheckManifestGpus(const json& node, const std::function<void(const std::string&, const std::string&)>& problem) {
  const json* status = Get(node, "status");
  if (status == nullptr || !status->is_object()) return;
  for (const char* list : {"capacity", "allocatable"}) {
    const json* resources = Get(*status, list);
    const json* gpus = resources != nullptr && resources->is_object() ? Get(*resources, sim::kResourceGpu) : nullptr;
    if (gpus == nullptr) continue;
    const std::string at = std::string("status.") + list + "[" + sim::kResourceGpu + "]";
    auto units = gpus->is_string() ? kube::ParseQuantity(gpus->get<std::string>())
                 : gpus->is_number_integer() ? std::optional<std::int64_t>(gpus->get<std::int64_t>())
                                             : std::nullopt;
    if (!units || *units < 0) problem(at, "invalid quantity " + gpus->dump());
    else if (*units > kMaxNodeGpus) problem(at, GpusPastTheBound(*units));
  }
}
namespace {

constexpr const char* kPriceAnnotation = "dglsim.io/price-per-hour";

// The price a dglsim.io/price-per-hour annotation gives ("32.77"), or nullopt when it is not one.
std::optional<double> PriceAnnotation(const json& value) {
  const std::string text = value.is_string() ? value.get<std::string>() : "";
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const double price = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !std::isfinite(price) || price < 0) return std::nullopt;
  return price;
}

}  // namespace

void Loader::LoadCluster(const json& cluster, ClusterSpec& c) {
  CheckSchemaFields(cluster, "cluster", "cluster");
  const json* nodes = Get(cluster, "nodes");
  if ((nodes == nullptr || (nodes->is_array() && nodes->empty())) && Get(cluster, "nodePools") == nullptr) {
    Problem("cluster.nodes", "at least one node (a template or a manifest) or one of cluster.nodePools is required");
  }
  Sequence(cluster, "nodes", "cluster", [&](const json& item, const std::string& path) { LoadNodeGroup(item, path, c); });
  LoadNodePools(cluster, c);
  if (const json* storage = Get(cluster, "storage"); storage != nullptr && ExpectObject(*storage, "cluster.storage")) {
    CheckSchemaFields(*storage, "cluster.storage", "cluster.storage");
    if (auto b = Bandwidth(*storage, "bandwidth", "cluster.storage")) c.storage_bytes_per_second = *b;
  }
  if (const json* network = Get(cluster, "network"); network != nullptr && ExpectObject(*network, "cluster.network")) {
    CheckSchemaFields(*network, "cluster.network", "cluster.network");
    if (auto w = Number(*network, "rerateWindow", "cluster.network", 0, 1)) c.network_rerate_window = *w;
  }
  if (const json* sched = Get(cluster, "scheduler"); sched != nullptr && ExpectObject(*sched, "cluster.scheduler")) {
    CheckSchemaFields(*sched, "cluster.scheduler", "cluster.scheduler");
    if (auto scoring = Enum(*sched, "scoring", "cluster.scheduler", {"LeastAllocated", "MostAllocated"})) {
      c.scheduler.scoring = *scoring == "MostAllocated" ? Scoring::kMostAllocated : Scoring::kLeastAllocated;
    }
    if (auto gang = Bool(*sched, "gang", "cluster.scheduler")) c.scheduler.gang = *gang;
    if (auto p = Integer(*sched, "percentageOfNodesToScore", "cluster.scheduler", 0, 100))
      c.scheduler.percentage_of_nodes_to_score = static_cast<int>(*p);
  }
  if (const json* images = Get(cluster, "images"); images != nullptr && ExpectObject(*images, "cluster.images")) {
    LoadImages(*images, c.images);
  }
  if (const json* t = Get(cluster, "timings"); t != nullptr && ExpectObject(*t, "cluster.timings")) {
    LoadTimings(*t, c.timings);
  }
}

// cluster.scheduler.placements: pods of the scenario's jobs, nodes of its cluster.
void Loader::LoadPlacements(const json& cluster, ClusterSpec& c) {
  const json* sched = Get(cluster, "scheduler");
  if (sched == nullptr || !sched->is_object()) return;
  const std::vector<std::string> names = c.NodeNames();
  Sequence(*sched, "placements", "cluster.scheduler", [&](const json& item, const std::string& path) {
    if (!ExpectObject(item, path, "a placement {pod, nodes}")) return;
    CheckSchemaFields(item, path, "cluster.scheduler.placements[]");
    PlacementSpec p;
    p.field_path = path;
    const json* pod = Get(item, "pod");
    if (pod == nullptr) return Problem(Child(path, "pod"), "required field is missing");
    auto key = ResolvePod(*pod, Child(path, "pod"));
    const json* nodes = Get(item, "nodes");
    const std::string nodes_path = Child(path, "nodes");
    if (nodes == nullptr || !nodes->is_array() || nodes->empty())
      return Problem(nodes_path, "a sequence of node names, one per pod of that name in the order they are created");
    for (std::size_t i = 0; i < nodes->size(); ++i) {
      const json& n = (*nodes)[i];
      if (!n.is_string()) {
        Problem(Index(nodes_path, i), "must be a node name, got " + TypeName(n));
      } else if (!Contains(names, n.get<std::string>())) {
        const std::string near = SuggestName(n.get<std::string>(), names);
        Problem(Index(nodes_path, i), "no node " + Quoted(n.get<std::string>()) + " in cluster.nodes" +
                                          (near.empty() ? "" : " (did you mean " + Quoted(near) + "?)"));
      } else {
        p.nodes.push_back(n.get<std::string>());
      }
    }
    if (key && p.nodes.size() == nodes->size()) {
      p.pod = *key;
      c.scheduler.placements.push_back(std::move(p));
    }
  });
}

void Loader::LoadImages(const json& images, ImageSettings& settings) {
  const std::string path = "cluster.images";
  CheckSchemaFields(images, path, path);
  if (auto b = Bandwidth(images, "pullBandwidth", path)) settings.pull_bytes_per_second = *b;
  if (const json* size = Get(images, "defaultSize")) {
    if (auto bytes = Size(*size, Child(path, "defaultSize"))) settings.default_size = *bytes;
  }
  if (const json* sizes = Get(images, "sizes"); sizes != nullptr && ExpectObject(*sizes, Child(path, "sizes"))) {
    for (const auto& [image, size] : sizes->items()) {
      if (auto bytes = Size(size, Child(Child(path, "sizes"), image))) settings.sizes[image] = *bytes;
    }
  }
}

void Loader::LoadTimings(const json& t, Timings& timings) {
  const std::string path = "cluster.timings";
  CheckSchemaFields(t, path, path);
  if (auto d = Duration(t, "podStartup", path)) timings.pod_startup = *d;
  if (auto d = Duration(t, "nodeMonitorGracePeriod", path, true)) timings.node_monitor_grace_period = *d;
  if (auto d = Duration(t, "tolerationSeconds", path)) timings.toleration_seconds = *d;
  if (auto d = Duration(t, "podRestartBackoff", path)) timings.pod_restart_backoff = *d;
  if (auto d = Duration(t, "podRestartBackoffMax", path)) timings.pod_restart_backoff_max = *d;
}

void Loader::AddNodeName(const std::string& name, const std::string& path) {
  if (!node_names_.insert(name).second) {
    Problem(path, "node " + Quoted(name) + " is defined twice");
    return;
  }
  node_order_.push_back(name);
}

void Loader::LoadNodeGroup(const json& item, const std::string& path, ClusterSpec& c) {
  if (!ExpectObject(item, path, "a node template (name, count, capacity, ...) or {manifest: FILE}")) return;
  const std::vector<std::string> fields = SchemaChildren("cluster.nodes[]");
  NodeGroup group;
  group.field_path = path;
  if (Get(item, "manifest") != nullptr) {
    CheckFields(item, path, {"manifest"}, fields);
    auto relative = String(item, "manifest", path, true);
    if (!relative) return;
    NodeManifestSpec manifest;
    manifest.path = Resolve(*relative);
    LoadNodeManifest(manifest, Child(path, "manifest"));
    group.manifest = std::move(manifest);
    c.nodes.push_back(std::move(group));
    return;
  }
  std::vector<std::string> template_fields = fields;
  std::erase(template_fields, "manifest");
  CheckFields(item, path, template_fields, fields);
  NodeTemplateSpec t;
  auto name = String(item, "name", path, true);
  if (name && !IsDns1123Label(*name)) {
    Problem(Child(path, "name"), "invalid node name " + Quoted(*name) +
                                     ": lower-case letters, digits and '-', starting and ending with a letter or digit");
    name.reset();
  }
  if (auto count = Integer(item, "count", path, 1, 100000)) t.count = static_cast<int>(*count);
  if (const json* capacity = Get(item, "capacity"); capacity != nullptr && ExpectObject(*capacity, Child(path, "capacity")))
    LoadCapacity(*capacity, Child(path, "capacity"), t);
  if (const json* labels = Get(item, "labels"); labels != nullptr && ExpectObject(*labels, Child(path, "labels")))
    LoadLabels(*labels, Child(path, "labels"), t);
  LoadMachine(item, path, "cluster.nodes[].taints[]", t);
  if (!name) return;
  t.name = *name;
  if (static_cast<std::int64_t>(node_order_.size()) + t.count > kMaxNodes)
    return Problem(Child(path, "count"), TooManyNodes(node_order_.size() + static_cast<std::size_t>(t.count)));
  for (int i = 0; i < t.count; ++i) AddNodeName(t.name + "-" + std::to_string(i), Child(path, "name"));
  LoadNodeFailures(item, path, t);
  group.node_template = std::move(t);
  c.nodes.push_back(std::move(group));
}

// mtbf / repairTime: NodeDown faults drawn per node from the run's seed (generators.h).
void Loader::LoadNodeFailures(const json& item, const std::string& path, NodeTemplateSpec& t) {
  auto mtbf = Duration(item, "mtbf", path, true);
  auto repair = Duration(item, "repairTime", path, true);
  if (repair && !mtbf) Problem(Child(path, "repairTime"), "repairTime goes with mtbf (the mean time between a node's failures)");
  if (!mtbf) return;
  if (*mtbf < 60 * kube::kSecond) return Problem(Child(path, "mtbf"), "must be at least 1m");
  t.mtbf = *mtbf;
  if (repair) t.repair_time = *repair;
  constexpr std::size_t kLimit = 10000;
  for (int i = 0; i < t.count; ++i) {
    const std::string node = t.name + "-" + std::to_string(i);
    std::vector<Outage> outages = NodeOutages(seed_, node, t.mtbf, t.repair_time, until_, kLimit + 1);
    if (outages.size() > kLimit) {
      return Problem(Child(path, "mtbf"), "draws more than " + std::to_string(kLimit) + " failures of " + node + " before until");
    }
    for (const Outage& o : outages) {
      FaultSpec f;
      f.field_path = Child(path, "mtbf");
      f.kind = FaultKind::kNodeDown;
      f.trigger.at = o.at;
      f.duration = o.duration;
      f.node = node;
      generated_faults_.push_back(std::move(f));
    }
  }
}

void Loader::LoadCapacity(const json& capacity, const std::string& path, NodeTemplateSpec& t) {
  for (const auto& [resource, value] : capacity.items()) {
    const std::string field = Child(path, resource);
    std::string text;
    if (value.is_string()) {
      text = value.get<std::string>();
    } else if (value.is_number()) {
      text = value.dump();
    } else {
      Problem(field, "must be a quantity such as \"96\" or \"768Gi\", got " + TypeName(value));
      continue;
    }
    auto milli = kube::ParseQuantityMilli(text);
    auto units = kube::ParseQuantity(text);
    if (!milli || !units || *milli < 0) {
      Problem(field, "invalid quantity " + Quoted(text));
      continue;
    }
    if (resource == sim::kResourceGpu && *units > kMaxNodeGpus) {
      Problem(field, GpusPastTheBound(*units));
      continue;
    }
    t.capacity[resource] = ResourceQuantity{text, *milli, *units};
  }
}

void Loader::LoadLabels(const json& labels, const std::string& path, NodeTemplateSpec& t) {
  for (const auto& [key, value] : labels.items()) {
    if (value.is_string()) {
      t.labels[key] = value.get<std::string>();
    } else if (value.is_number() || value.is_boolean()) {
      Problem(Child(path, key), "label values are strings: quote " + value.dump());
    } else {
      Problem(Child(path, key), "must be a string, got " + TypeName(value));
    }
  }
}

// A machine's taints, network and disk bandwidth, CPU speed and price, as a node template and a
// node pool declare them alike; `taint_schema` names the taints' schema entry.
void Loader::LoadMachine(const json& item, const std::string& path, const char* taint_schema, NodeTemplateSpec& t) {
  Sequence(item, "taints", path, [&](const json& taint, const std::string& taint_path) {
    if (!ExpectObject(taint, taint_path, "a taint {key, value, effect}")) return;
    CheckSchemaFields(taint, taint_path, taint_schema);
    NodeTaint nt;
    if (auto key = String(taint, "key", taint_path, true)) nt.key = *key;
    if (auto value = String(taint, "value", taint_path)) nt.value = *value;
    if (auto effect = Enum(taint, "effect", taint_path, {"NoSchedule", "PreferNoSchedule", "NoExecute"}, true)) nt.effect = *effect;
    t.taints.push_back(nt);
  });
  if (auto b = Bandwidth(item, "network", path)) t.network_bytes_per_second = *b;
  if (auto b = Bandwidth(item, "disk", path)) t.disk_bytes_per_second = *b;
  if (auto speed = Number(item, "cpuSpeed", path, 0, 1000, true)) t.cpu_speed = *speed;
  if (auto price = Number(item, "pricePerHour", path, 0, 1e9)) t.price_per_hour = *price;
}

// Nodes from a v1 Node / NodeList / List file, reported against that file.
void Loader::LoadNodeManifest(NodeManifestSpec& manifest, const std::string& field) {
  YamlLoad load = LoadYamlFile(manifest.path);
  if (!load.ok()) {
    Problem(field, "cannot load " + Quoted(manifest.path) + ": " + load.error->message);
    if (load.error->pos.known()) out_->problems.push_back(load.error->ToString());
    return;
  }
  for (const YamlDocument& document : load.documents) {
    if (document.value.is_null()) continue;
    auto problem = [&](const std::string& path, const std::string& message) {
      out_->problems.push_back(FormatProblem(manifest.path, document.positions, path, message));
    };
    auto add = [&](json node, const std::string& path) {
      if (!node.is_object()) {
        problem(path, "expected a v1 Node, got " + TypeName(node));
        return;
      }
      if (!node.contains("apiVersion")) node["apiVersion"] = "v1";
      if (!node.contains("kind")) node["kind"] = "Node";
      if (node["apiVersion"] != "v1" || node["kind"] != "Node") {
        problem(path, "expected a v1 Node, got " + node["apiVersion"].dump() + " " + node["kind"].dump());
        return;
      }
      const json* metadata = Get(node, "metadata");
      const json* name = metadata != nullptr ? Get(*metadata, "name") : nullptr;
      if (name == nullptr || !name->is_string() || name->get_ref<const std::string&>().empty()) {
        problem(JoinPath(path, "metadata.name"), "required field is missing");
        return;
      }
      const std::string node_name = name->get<std::string>();
      if (!node_names_.insert(node_name).second) {
        problem(JoinPath(path, "metadata.name"), "node " + Quoted(node_name) + " is defined twice");
        return;
      }
      if (static_cast<std::int64_t>(node_order_.size()) >= kMaxNodes) {
        problem(path, TooManyNodes(node_order_.size() + 1));
        return;
      }
      node_order_.push_back(node_name);
      CheckManifestGpus(node, [&](const std::string& at, const std::string& message) { problem(JoinPath(path, at), message); });
      // Bandwidth annotations must parse, so the runner can trust them.
      if (const json* annotations = Get(*metadata, "annotations"); annotations != nullptr && annotations->is_object()) {
        for (const char* key : {"dglsim.io/network", "dglsim.io/disk"}) {
          if (const json* a = Get(*annotations, key)) {
            Parsed<double> b = ParseBandwidthValue(*a);
            if (!b.ok()) problem(JoinPath(path, std::string("metadata.annotations[") + key + "]"), b.error);
          }
        }
        if (const json* a = Get(*annotations, kPriceAnnotation)) {
          if (auto price = PriceAnnotation(*a)) {
            manifest.price_per_hour_total += *price;
            if (*price > 0) manifest.prices[node_name] = *price;
          } else {
            problem(JoinPath(path, std::string("metadata.annotations[") + kPriceAnnotation + "]"),
                    "must be a price per hour such as \"32.77\", got " + a->dump());
          }
        }
      }
      manifest.nodes.push_back(std::move(node));
    };
    const json& v = document.value;
    const std::string kind = v.is_object() && v.contains("kind") && v["kind"].is_string() ? v["kind"].get<std::string>() : "";
    if (kind == "NodeList" || kind == "List") {
      const json* items = Get(v, "items");
      if (items == nullptr) continue;
      if (!items->is_array()) {
        problem("items", "must be a sequence, got " + TypeName(*items));
        continue;
      }
      for (std::size_t i = 0; i < items->size(); ++i) add((*items)[i], "items[" + std::to_string(i) + "]");
    } else {
      add(v, "");
    }
  }
  if (manifest.nodes.empty() && load.documents.size() <= 1 && out_->problems.empty()) {
    Problem(field, "no nodes in " + Quoted(manifest.path));
  }
}

}  // namespace harness::loading
