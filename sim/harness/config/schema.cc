#include "sim/harness/config/schema.h"

#include <algorithm>
#include <iterator>
#include <utility>

namespace harness {
namespace {

using R = FieldRole;

// The table, in the order the format describes the fields.
constexpr SchemaField kSchema[] = {
  {"apiVersion", R::kFormat},
  {"kind", R::kFormat},
  {"metadata", R::kReport},
  {"metadata.name", R::kReport},
  {"metadata.description", R::kReport},
  {"metadata.labels", R::kReport},
  {"metadata.annotations", R::kReport},
  {"seed", R::kRun},
  {"until", R::kRun},
  {"cluster", R::kRun},
  {"cluster.nodes", R::kRun},
  {"cluster.nodes[].name", R::kRun},
  {"cluster.nodes[].count", R::kRun},
  {"cluster.nodes[].capacity", R::kRun},
  {"cluster.nodes[].labels", R::kRun},
  {"cluster.nodes[].taints", R::kRun},
  {"cluster.nodes[].taints[].key", R::kRun},
  {"cluster.nodes[].taints[].value", R::kRun},
  {"cluster.nodes[].taints[].effect", R::kRun},
  {"cluster.nodes[].network", R::kRun},
  {"cluster.nodes[].disk", R::kRun},
  {"cluster.nodes[].cpuSpeed", R::kRun},
  {"cluster.nodes[].pricePerHour", R::kReport},
  {"cluster.nodes[].mtbf", R::kRun},
  {"cluster.nodes[].repairTime", R::kRun},
  {"cluster.nodes[].manifest", R::kRun},
  {"cluster.nodePools", R::kRun},
  {"cluster.nodePools[].name", R::kRun},
  {"cluster.nodePools[].min", R::kRun},
  {"cluster.nodePools[].max", R::kRun},
  {"cluster.nodePools[].capacity", R::kRun},
  {"cluster.nodePools[].labels", R::kRun},
  {"cluster.nodePools[].taints", R::kRun},
  {"cluster.nodePools[].taints[].key", R::kRun},
  {"cluster.nodePools[].taints[].value", R::kRun},
  {"cluster.nodePools[].taints[].effect", R::kRun},
  {"cluster.nodePools[].network", R::kRun},
  {"cluster.nodePools[].disk", R::kRun},
  {"cluster.nodePools[].cpuSpeed", R::kRun},
  {"cluster.nodePools[].pricePerHour", R::kReport},
  {"cluster.nodePools[].scaleUpDelay", R::kRun},
  {"cluster.nodePools[].priority", R::kRun},
  {"cluster.nodePools[].spot", R::kRun},
  {"cluster.nodePools[].spot.meanTimeToInterruption", R::kRun},
  {"cluster.nodePools[].spot.notice", R::kRun},
  {"cluster.autoscaler", R::kRun},
  {"cluster.autoscaler.expander", R::kRun},
  {"cluster.autoscaler.scanInterval", R::kRun},
  {"cluster.autoscaler.scaleDownUnneededTime", R::kRun},
  {"cluster.autoscaler.scaleDownDelayAfterAdd", R::kRun},
  {"cluster.storage", R::kRun},
  {"cluster.storage.bandwidth", R::kRun},
  {"cluster.network", R::kRun},
  {"cluster.network.rerateWindow", R::kRun},
  {"cluster.scheduler", R::kRun},
  {"cluster.scheduler.scoring", R::kRun},
  {"cluster.scheduler.gang", R::kRun},
  {"cluster.scheduler.percentageOfNodesToScore", R::kRun},
  {"cluster.scheduler.placements", R::kRun},
  {"cluster.scheduler.placements[].pod", R::kRun},
  {"cluster.scheduler.placements[].nodes", R::kRun},
  {"cluster.images", R::kRun},
  {"cluster.images.pullBandwidth", R::kRun},
  {"cluster.images.defaultSize", R::kRun},
  {"cluster.images.sizes", R::kRun},
  {"cluster.timings", R::kRun},
  {"cluster.timings.podStartup", R::kRun},
  {"cluster.timings.nodeMonitorGracePeriod", R::kRun},
  {"cluster.timings.tolerationSeconds", R::kRun},
  {"cluster.timings.podRestartBackoff", R::kRun},
  {"cluster.timings.podRestartBackoffMax", R::kRun},
  {"api", R::kRun},
  {"api.watchLatency", R::kRun},
  {"api.requestLatency", R::kRun},
  {"operator", R::kRun},
  {"operator.enabled", R::kRun},
  {"operator.reconcileLatency", R::kRun},
  {"operator.gangScheduling", R::kRun},
  {"operator.rbac", R::kRun},
  {"calibration", R::kRun},
  {"datasets", R::kRun},
  {"datasets[].name", R::kRun},
  {"datasets[].preset", R::kRun},
  {"datasets[].nodes", R::kRun},
  {"datasets[].edges", R::kRun},
  {"datasets[].featureDim", R::kRun},
  {"datasets[].url", R::kRun},
  {"datasets[].edgeList", R::kRun},
  {"datasets[].structure", R::kRun},
  {"jobs", R::kRun},
  {"jobs[].at", R::kRun},
  {"jobs[].manifest", R::kRun},
  {"jobs[].inline", R::kRun},
  {"jobs[].dataset", R::kRun},
  {"jobs[].delete", R::kRun},
  {"jobs[].delete.namespace", R::kRun},
  {"jobs[].delete.name", R::kRun},
  {"jobs[].suspend", R::kRun},
  {"jobs[].suspend.namespace", R::kRun},
  {"jobs[].suspend.name", R::kRun},
  {"jobs[].resume", R::kRun},
  {"jobs[].resume.namespace", R::kRun},
  {"jobs[].resume.name", R::kRun},
  {"arrivals", R::kRun},
  {"arrivals[].name", R::kRun},
  {"arrivals[].process", R::kRun},
  {"arrivals[].meanInterval", R::kRun},
  {"arrivals[].count", R::kRun},
  {"arrivals[].start", R::kRun},
  {"arrivals[].file", R::kRun},
  {"arrivals[].templates", R::kRun},
  {"arrivals[].templates[].weight", R::kRun},
  {"arrivals[].templates[].name", R::kRun},
  {"arrivals[].templates[].dataset", R::kRun},
  {"arrivals[].templates[].manifest", R::kRun},
  {"arrivals[].templates[].inline", R::kRun},
  {"faults", R::kRun},
  {"faults[].at", R::kRun},
  {"faults[].when", R::kRun},
  {"faults[].when.job", R::kRun},
  {"faults[].when.phase", R::kRun},
  {"faults[].after", R::kRun},
  {"faults[].kind", R::kRun},
  {"faults[NodeDown].node", R::kRun},
  {"faults[NodeDown].nodeOf", R::kRun},
  {"faults[NodeDown].for", R::kRun},
  {"faults[NodeUp].node", R::kRun},
  {"faults[PodKill].pod", R::kRun},
  {"faults[PodKill].container", R::kRun},
  {"faults[PodKill].exitCode", R::kRun},
  {"faults[OOM].pod", R::kRun},
  {"faults[OOM].container", R::kRun},
  {"faults[ImagePullError].image", R::kRun},
  {"faults[ImagePullError].node", R::kRun},
  {"faults[ImagePullError].for", R::kRun},
  {"faults[NetworkSlow].node", R::kRun},
  {"faults[NetworkSlow].factor", R::kRun},
  {"faults[NetworkSlow].for", R::kRun},
  {"faults[ApiFaults].for", R::kRun},
  {"faults[ApiFaults].conflictRate", R::kRun},
  {"faults[ApiFaults].errorRate", R::kRun},
  {"faults[ApiFaults].timeoutRate", R::kRun},
  {"faults[ApiFaults].latency", R::kRun},
  {"faults[WatchDrop]", R::kRun},
  {"faults[OperatorRestart].for", R::kRun},
  {"faults[RbacRuleRemoved].role", R::kRun},
  {"faults[RbacRuleRemoved].rule", R::kRun},
  {"faults[RbacRuleRemoved].for", R::kRun},
  {"faults[NodeDeleted].node", R::kRun},
  {"faults[NodeDeleted].nodeOf", R::kRun},
  {"expect", R::kVerdict},
  {"expect[phase].job", R::kVerdict},
  {"expect[phase].phase", R::kVerdict},
  {"expect[phases].job", R::kVerdict},
  {"expect[phases].phases", R::kVerdict},
  {"expect[condition].job", R::kVerdict},
  {"expect[condition].condition", R::kVerdict},
  {"expect[condition].reason", R::kVerdict},
  {"expect[condition].status", R::kVerdict},
  {"expect[within].job", R::kVerdict},
  {"expect[within].within", R::kVerdict},
  {"expect[restarts].job", R::kVerdict},
  {"expect[restarts].restarts", R::kVerdict},
  {"expect[configMap].configMap", R::kVerdict},
  {"expect[configMap].key", R::kVerdict},
  {"expect[configMap].lines", R::kVerdict},
  {"expect[configMap].line", R::kVerdict},
  {"expect[configMap].matches", R::kVerdict},
  {"expect[breakdown].job", R::kVerdict},
  {"expect[breakdown].breakdown", R::kVerdict},
  {"expect[breakdown].between", R::kVerdict},
  {"expect[peakMemory].job", R::kVerdict},
  {"expect[peakMemory].peakMemory", R::kVerdict},
  {"expect[peakMemory].between", R::kVerdict},
  {"expect[pods].pods", R::kVerdict},
  {"expect[pods].pods.namespace", R::kVerdict},
  {"expect[pods].pods.selector", R::kVerdict},
  {"expect[pods].count", R::kVerdict},
  {"expect[pods].at", R::kVerdict},
  {"expect[nodes].nodes", R::kVerdict},
  {"expect[nodes].at", R::kVerdict},
  {"expect[invariants].invariants", R::kVerdict},
};

// "faults[NodeDown].node" -> ("faults[NodeDown]", "node"); "seed" -> ("", "seed").
std::pair<std::string_view, std::string_view> Split(std::string_view path) {
  const std::size_t dot = path.rfind('.');
  if (dot == std::string_view::npos) return {"", path};
  return {path.substr(0, dot), path.substr(dot + 1)};
}

}  // namespace

const std::vector<SchemaField>& ScenarioSchema() {
  static const std::vector<SchemaField> schema(std::begin(kSchema), std::end(kSchema));
  return schema;
}

std::vector<std::string> SchemaChildren(std::string_view parent) {
  std::vector<std::string> out;
  for (const SchemaField& f : ScenarioSchema()) {
    auto [p, name] = Split(f.path);
    if (p != parent || name.find('[') != std::string_view::npos) continue;  // "faults[WatchDrop]" is a kind
    if (std::find(out.begin(), out.end(), name) == out.end()) out.emplace_back(name);
  }
  return out;
}

std::vector<std::string> SchemaKinds(std::string_view sequence) {
  std::vector<std::string> out;
  const std::string prefix = std::string(sequence) + "[";
  for (const SchemaField& f : ScenarioSchema()) {
    if (!f.path.starts_with(prefix) || f.path.size() <= prefix.size() || f.path[prefix.size()] == ']') continue;
    const std::size_t close = f.path.find(']', prefix.size());
    if (close == std::string_view::npos) continue;
    std::string kind(f.path.substr(prefix.size(), close - prefix.size()));
    if (std::find(out.begin(), out.end(), kind) == out.end()) out.push_back(kind);
  }
  return out;
}

const std::vector<RetiredField>& RetiredFields() {
  static const std::vector<RetiredField> kRetired = {
      {"cluster.timings.nodeStatusUpdateFrequency",
       "not a setting of the simulated cluster: a node's kubelet posts its status when it changes, and a node that "
       "goes down stops heartbeating at once (in Kubernetes the heartbeat is the node's Lease, renewed every 10 s, "
       "a quarter of nodeLeaseDurationSeconds, whatever nodeStatusUpdateFrequency says); set "
       "nodeMonitorGracePeriod for how long a silent node stays Ready"},
      {"cluster.autoscaler.scaleDownUtilizationThreshold",
       "not a setting of the simulated autoscaler: it removes only empty nodes, because a DGL job's pods (owned "
       "by a custom controller, with emptyDir volumes) are never evicted under cluster-autoscaler's defaults "
       "(--skip-nodes-with-custom-controller-pods, --skip-nodes-with-local-storage), so the utilisation "
       "threshold (default 0.5) would decide nothing; set scaleDownUnneededTime"},
      {"cluster.timings.terminationGracePeriod",
       "not a setting of a cluster: a pod's grace period is its spec.terminationGracePeriodSeconds (the API server "
       "defaults it to 30 s); set it in the job's pod templates"},
  };
  return kRetired;
}

}  // namespace harness
