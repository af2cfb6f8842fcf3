// The scenario loader's node pools: cluster.nodePools and cluster.autoscaler. See loader.h and
// sim/cluster/autoscaler.h for what they do.
#include "sim/harness/config/loader.h"

#include "sim/cluster/autoscaler.h"

#include <utility>

namespace harness::loading {

void Loader::LoadNodePools(const json& cluster, ClusterSpec& c) {
  Sequence(cluster, "nodePools", "cluster", [&](const json& item, const std::string& path) { LoadNodePool(item, path, c); });
  if (const json* autoscaler = Get(cluster, "autoscaler"); autoscaler != nullptr && ExpectObject(*autoscaler, "cluster.autoscaler")) {
    const std::string path = "cluster.autoscaler";
    CheckSchemaFields(*autoscaler, path, path);
    if (Get(cluster, "nodePools") == nullptr) Problem(path, "scales node pools, and cluster.nodePools declares none: remove it or add a pool");
    if (auto e = Enum(*autoscaler, "expander", path, {"least-waste", "priority"}))
      c.autoscaler.expander = *e == "priority" ? sim::Expander::kPriority : sim::Expander::kLeastWaste;
    if (auto d = Duration(*autoscaler, "scanInterval", path, true)) c.autoscaler.scan_interval = *d;
    if (auto d = Duration(*autoscaler, "scaleDownUnneededTime", path)) c.autoscaler.scale_down_unneeded_time = *d;
    if (auto d = Duration(*autoscaler, "scaleDownDelayAfterAdd", path)) c.autoscaler.scale_down_delay_after_add = *d;
  }
  // A priority only the priority expander reads would change nothing.
  if (c.autoscaler.expander != sim::Expander::kPriority)
    for (std::size_t i = 0; i < c.pools.size(); ++i)
      if (c.pools[i].priority != 0)
        Problem(Child(c.pools[i].field_path, "priority"), "only the priority expander reads it: set cluster.autoscaler.expander: priority");
}

void Loader::LoadNodePool(const json& item, const std::string& path, ClusterSpec& c) {
  if (!ExpectObject(item, path, "a node pool {name, min, max, capacity, ...}")) return;
  CheckSchemaFields(item, path, "cluster.nodePools[]");
  NodePoolSpec pool;
  pool.field_path = path;
  NodeTemplateSpec& t = pool.machine;
  auto name = String(item, "name", path, true);
  if (name && !IsDns1123Label(*name)) {
    Problem(Child(path, "name"), "invalid pool name " + Quoted(*name) +
                                     ": lower-case letters, digits and '-', starting and ending with a letter or digit");
    name.reset();
  }
  if (name) {
    for (const NodeGroup& group : c.nodes)
      if (group.node_template && group.node_template->name == *name)
        Problem(Child(path, "name"), "pool " + Quoted(*name) + " would name its nodes as cluster.nodes' template " + Quoted(*name) + " does");
    for (const NodePoolSpec& other : c.pools)
      if (other.machine.name == *name) Problem(Child(path, "name"), "pool " + Quoted(*name) + " is defined twice");
    for (const std::string& node : node_order_)
      if (node.starts_with(*name + "-") && node.find_first_not_of("0123456789", name->size() + 1) == std::string::npos)
        Problem(Child(path, "name"), "node " + Quoted(node) + " of cluster.nodes has a name this pool's nodes take");
  }
  const auto min = Integer(item, "min", path, 0, kMaxNodes);
  const auto max = Integer(item, "max", path, 1, kMaxNodes, true);
  if (min) pool.min = static_cast<int>(*min);
  if (max) pool.max = static_cast<int>(*max);
  if (min && max && *min > *max) Problem(Child(path, "min"), "is above max (" + std::to_string(*max) + ")");
  if (max) {
    std::int64_t most = static_cast<std::int64_t>(node_order_.size()) + *max;
    for (const NodePoolSpec& other : c.pools) most += other.max;
    if (most > kMaxNodes) Problem(Child(path, "max"), TooManyNodes(static_cast<std::size_t>(most)));
  }
  if (const json* capacity = Get(item, "capacity"); capacity != nullptr && ExpectObject(*capacity, Child(path, "capacity")))
    LoadCapacity(*capacity, Child(path, "capacity"), t);
  else if (capacity == nullptr)
    Problem(Child(path, "capacity"), "required field is missing: the autoscaler sizes a scale-up by what a node holds");
  if (const json* labels = Get(item, "labels"); labels != nullptr && ExpectObject(*labels, Child(path, "labels")))
    LoadLabels(*labels, Child(path, "labels"), t);
  for (const char* reserved : {sim::kLabelNodePool, sim::kLabelCapacityType})
    if (t.labels.contains(reserved)) Problem(Child(Child(path, "labels"), reserved), "is set by the autoscaler on the pool's nodes");
  LoadMachine(item, path, "cluster.nodePools[].taints[]", t);
  if (auto d = Duration(item, "scaleUpDelay", path)) pool.scale_up_delay = *d;
  if (auto p = Integer(item, "priority", path, -1000000, 1000000)) pool.priority = static_cast<int>(*p);
  if (const json* spot = Get(item, "spot"); spot != nullptr && ExpectObject(*spot, Child(path, "spot"))) {
    const std::string spot_path = Child(path, "spot");
    CheckSchemaFields(*spot, spot_path, "cluster.nodePools[].spot");
    if (auto mtti = Duration(*spot, "meanTimeToInterruption", spot_path, true, true)) {
      if (*mtti < 60 * kube::kSecond) Problem(Child(spot_path, "meanTimeToInterruption"), "must be at least 1m");
      else pool.mean_time_to_interruption = *mtti;
    }
    if (auto notice = Duration(*spot, "notice", spot_path)) pool.interruption_notice = *notice;
  }
  if (!name) return;
  t.name = *name;
  t.count = 0;
  c.pools.push_back(std::move(pool));
}

}  // namespace harness::loading
