// A Scenario is one `dglsim/v1` scenario file, loaded, checked and typed: the cluster, the settings
// of the simulated Kubernetes and of the operator, the datasets, the jobs with their submit times and
// actions, the faults and the expectations (the format is shared/design/scenarios.md). The runner
// reads only this struct; it never looks at the YAML again.
//
// LoadScenario checks the whole file before anything runs and reports every problem it finds, each
// as one line `FILE:LINE:COL: FIELD.PATH: message` (the manifest a job names is reported against its
// own file and positions). Kinds of problem: YAML syntax, unknown fields (with "did you mean" for a
// near miss), wrong types, bad durations, sizes and bandwidths, values out of range, unknown fault or
// expectation kinds, references to nodes, jobs, pods, ConfigMaps or datasets the scenario does not
// define, missing or unreadable files, and DGLJob admission failures. Legacy qihoo.net/v1alpha1
// manifests are converted, with a warning. Nothing here throws or crashes on any input.
//
// Every field the format has is in the schema (schema.h), with what changing it does; two fields
// it once took are refused with the reason (RetiredFields).
//
// Defaults (every one can be overridden in the file). Those of the simulated cluster are the
// simulator's own, defined once in sim/ (the constant named) and only referred to here:
//   metadata.name                   the file name without .yaml / .yml
//   seed                            1
//   until                           7d (the run also ends once every job is terminal and nothing is
//                                   pending: no controller holds armed work, see runner.h)
//   cluster.nodes[].count           1; a template makes nodes <name>-0 .. <name>-<count-1>
//   cluster.nodes[].capacity        none ("pods" is added by the cluster: 110)
//   cluster.nodes[].network         100Gbps (12.5 GB/s each direction; sim::kDefaultNicBytesPerSecond)
//   cluster.nodes[].disk            2GBps (sim::kDefaultDiskBytesPerSecond)
//   cluster.nodes[].cpuSpeed        1.0 (the calibration machine; sim::kDefaultCpuSpeed)
//   cluster.nodes[].pricePerHour    0 (unpriced: reports give no cost); Node manifests: the annotation
//                                   dglsim.io/price-per-hour
//   cluster.nodes[].mtbf            none (nodes never fail by themselves); repairTime 1h
//   cluster.nodePools[]             none; min 0, scaleUpDelay 3m (sim::kDefaultScaleUpDelay), priority 0,
//                                   spot.notice 2m (sim::kDefaultInterruptionNotice); the machine's
//                                   fields default as cluster.nodes[]'s
//   cluster.autoscaler              {expander: least-waste, scanInterval: 10s, scaleDownUnneededTime: 10m,
//                                    scaleDownDelayAfterAdd: 10m} (sim::kDefaultScanInterval, ...:
//                                   cluster-autoscaler's own defaults)
//   arrivals[]                      none; arrivals[].start 0s, templates[].weight 1 (generators.h)
//   Node manifests: the same network, disk and cpuSpeed, unless the annotations dglsim.io/network,
//                   dglsim.io/disk, dglsim.io/cpu-speed say otherwise
//   cluster.storage.bandwidth       550MBps (one NFS client; sim::kDefaultStorageBytesPerSecond)
//   cluster.scheduler               {scoring: LeastAllocated, gang: false, percentageOfNodesToScore: 100}
//   cluster.images                  {pullBandwidth: 200MBps (sim::kDefaultImagePullBytesPerSecond),
//                                    defaultSize: 10G (sim::kDefaultImageSize), sizes: {}}
//   cluster.timings                 {podStartup: 1s (sim::kDefaultPodStartup),
//                                    nodeMonitorGracePeriod: 50s (sim::kDefaultNodeMonitorGracePeriod),
//                                    tolerationSeconds: 300s (sim::kDefaultTolerationSeconds),
//                                    podRestartBackoff: 10s, podRestartBackoffMax: 5m
//                                    (sim::kDefaultBackoffInitial, kDefaultBackoffMax: Kubernetes' CrashLoopBackOff)}
//   api                             {watchLatency: 1ms (sim::kDefaultWatchLatency), requestLatency: 0s}
//   operator                        {enabled: true, reconcileLatency: 1ms (sim::kDefaultReconcileLatency),
//                                    gangScheduling: false, rbac: deploy/rbac.yaml as compiled in}
//   calibration                     none: the workload models' defaults (sim/dgl/calibration.h)
//   datasets[].structure            real (locality; "random" for R-MAT-like graphs METIS partitions slower)
//   jobs[].at                       0s; a DGLJob without metadata.namespace goes to "default"
//   faults[].after                  0s (with `when`); faults[].for: unset, the fault is never undone
//   PodKill.exitCode                137 (SIGKILL); OOM.exitCode 137, reason OOMKilled
//   NetworkSlow.node                every node when absent
//   pods expectation `at`           end
#pragma once

#include "clock/clock.h"
#include "fakeapi/client/json.h"
#include "operator/api/vocabulary.h"
#include "sim/cluster/autoscaler.h"
#include "sim/cluster/cluster.h"
#include "sim/cluster/kubelet.h"
#include "sim/cluster/node_lifecycle.h"
#include "sim/cluster/operator_actor.h"
#include "sim/cluster/simulation.h"
#include "sim/network/network.h"
#include "sim/dgl/calibration.h"
#include "sim/harness/config/invariants.h"
#include "sim/harness/config/line_regex.h"
#include "sim/harness/config/manifest_check.h"
#include "sim/harness/config/yaml_json.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sim::graph {
class Graph;
}  // namespace sim::graph

namespace harness {

using kube::Micros;

// A resource quantity as written ("768Gi") and as numbers.
struct ResourceQuantity {
  std::string text;
  std::int64_t milli = 0;  // thousandths of a unit (CPU millicores * 1000 / 1000 = millicores)
  std::int64_t units = 0;  // whole units, rounded up (bytes, GPUs, cores)
};

struct NodeTaint {
  std::string key;
  std::string value;
  std::string effect;  // NoSchedule, PreferNoSchedule, NoExecute
};

// A family of identical machines, named `<name>-0` .. `<name>-<count-1>`.
struct NodeTemplateSpec {
  std::string name;
  int count = 1;
  std::map<std::string, ResourceQuantity> capacity;
  std::map<std::string, std::string> labels;
  std::vector<NodeTaint> taints;
  double network_bytes_per_second = sim::kDefaultNicBytesPerSecond;
  double disk_bytes_per_second = sim::kDefaultDiskBytesPerSecond;
  double cpu_speed = sim::kDefaultCpuSpeed;
  // pricePerHour: what one node costs per hour (any currency); reports turn the time the cluster
  // is needed into money with it (RunRecord's cost in the JSON report, dglsim sweep's cost).
  double price_per_hour = 0;
  // mtbf and repairTime: each node fails after an exponential time of mean `mtbf` (0 = never) and
  // is down for `repair_time`; the loader draws these NodeDown faults into Scenario::faults.
  Micros mtbf = 0;
  Micros repair_time = 3600 * kube::kSecond;
};

// Real v1 Node objects read from a file (a Node, a NodeList or a v1 List of Nodes, one or more
// documents), each as its JSON object with apiVersion and kind filled in.
struct NodeManifestSpec {
  std::string path;  // resolved against the scenario file's folder
  std::vector<kube::Json> nodes;
  // The nodes' annotation dglsim.io/price-per-hour ("32.77"), summed, and per node name.
  double price_per_hour_total = 0;
  std::map<std::string, double> prices;
};

// One entry of cluster.nodes: a template or a manifest.
struct NodeGroup {
  std::string field_path;  // "cluster.nodes[0]"
  std::optional<NodeTemplateSpec> node_template;
  std::optional<NodeManifestSpec> manifest;
};

// cluster.nodePools[]: a node pool the autoscaler grows and shrinks (sim/cluster/autoscaler.h):
// nodes `<name>-<k>` of one machine (capacity, labels, taints, network, disk, cpuSpeed as a
// template's), between `min` and `max` of them; `min` exist from the start.
struct NodePoolSpec {
  std::string field_path;  // "cluster.nodePools[0]"
  NodeTemplateSpec machine;  // name = the pool's; count unused; price_per_hour: one node's
  int min = 0;
  int max = 1;
  Micros scale_up_delay = sim::kDefaultScaleUpDelay;
  int priority = 0;
  // spot: each node is interrupted after an exponential time of this mean (0 = on-demand), with
  // `notice` of warning.
  Micros mean_time_to_interruption = 0;
  Micros interruption_notice = sim::kDefaultInterruptionNotice;
};

// cluster.autoscaler: how the pools scale (cluster-autoscaler's flags of the same names).
struct AutoscalerSettings {
  sim::Expander expander = sim::Expander::kLeastWaste;
  Micros scan_interval = sim::kDefaultScanInterval;
  Micros scale_down_unneeded_time = sim::kDefaultScaleDownUnneededTime;
  Micros scale_down_delay_after_add = sim::kDefaultScaleDownDelayAfterAdd;
};

enum class Scoring { kLeastAllocated, kMostAllocated };
const char* ToString(Scoring scoring);

// "namespace/name" of a job.
struct JobKey {
  std::string ns;
  std::string name;
  std::string ToString() const { return ns + "/" + name; }
  auto operator<=>(const JobKey&) const = default;
};

// cluster.scheduler.placements[]: where a pod of a job ran, as the evidence of a replayed cluster
// says (dglsim import writes them). The i-th pod of that name the API admits is given a required
// node affinity on nodes[i] (metadata.name In [node]), as the DaemonSet controller pins its pods;
// pods after the last are left to the scheduler.
struct PlacementSpec {
  std::string field_path;  // "cluster.scheduler.placements[0]"
  JobKey pod;              // namespace/name
  std::vector<std::string> nodes;
};

struct SchedulerSettings {
  Scoring scoring = Scoring::kLeastAllocated;
  bool gang = false;  // coscheduling of PodGroups
  // kube-scheduler's percentageOfNodesToScore: 0 adaptive (kube-scheduler's default), 100 every
  // node (ours: sim/cluster/scheduler.h says why).
  int percentage_of_nodes_to_score = 100;
  std::vector<PlacementSpec> placements;
};

struct ImageSettings {
  double pull_bytes_per_second = sim::kDefaultImagePullBytesPerSecond;
  std::int64_t default_size = sim::kDefaultImageSize;
  std::map<std::string, std::int64_t> sizes;  // image reference -> bytes
};

struct Timings {
  Micros pod_startup = sim::kDefaultPodStartup;
  Micros node_monitor_grace_period = sim::kDefaultNodeMonitorGracePeriod;
  Micros toleration_seconds = sim::kDefaultTolerationSeconds * kube::kSecond;
  Micros pod_restart_backoff = sim::kDefaultBackoffInitial;
  Micros pod_restart_backoff_max = sim::kDefaultBackoffMax;
};

struct ClusterSpec {
  std::vector<NodeGroup> nodes;
  std::vector<NodePoolSpec> pools;  // cluster.nodePools
  AutoscalerSettings autoscaler;
  double storage_bytes_per_second = sim::kDefaultStorageBytesPerSecond;
  // cluster.network.rerateWindow: sim::NetworkConfig::rerate_window (0: exact re-rating).
  double network_rerate_window = 0;
  SchedulerSettings scheduler;
  ImageSettings images;
  Timings timings;
  // Every node name, templates expanded, in file order.
  std::vector<std::string> NodeNames() const;
  // The whole cluster's price per hour: every node's pricePerHour (or price annotation), summed.
  double PricePerHour() const;
  // Each priced node's price per hour, by node name (unpriced nodes are left out).
  std::map<std::string, double> PricesPerHour() const;
  // The pods the cluster can hold at once: every node's `pods` capacity (110 when not given), summed,
  // the pools' at their maximum.
  std::int64_t PodCapacity() const;
};

struct ApiSettings {
  Micros watch_latency = sim::kDefaultWatchLatency;
  Micros request_latency = 0;
};

struct OperatorSettings {
  bool enabled = true;
  Micros reconcile_latency = sim::kDefaultReconcileLatency;
  bool gang_scheduling = false;
  // `rbac`: the file of Roles, ClusterRoles and bindings the operator's service account runs under
  // (resolved; "" = deploy/rbac.yaml as compiled in), and its RBAC objects, checked by the loader.
  std::string rbac_file;
  std::vector<kube::Json> rbac;
};

// deploy/rbac.yaml as it was when dglsim was built (generated by sim/harness/CMakeLists.txt).
std::string_view DefaultOperatorRbac();
// The RBAC objects of `text` (every document; a Namespace or ServiceAccount is skipped), or the
// problems, each "file:line:col: field: message".
struct RbacObjects {
  std::vector<kube::Json> objects;
  std::vector<std::string> problems;
};
RbacObjects LoadRbacObjects(std::string_view text, const std::string& file);

struct DatasetSpec {
  std::string field_path;
  std::string name;
  std::string preset;          // a built-in dataset, or ""
  std::int64_t nodes = 0;      // from the preset, or given
  std::int64_t edges = 0;
  std::int64_t feature_dim = 0;
  std::string url;
  std::string edge_list;       // a real graph file, resolved; "" when sizes are given
  std::shared_ptr<const sim::graph::Graph> graph;  // edge_list as read and parsed by the loader
  std::string structure = "real";  // "real" (locality, the default) or "random" (R-MAT-like): METIS's laws
  bool directed = false;           // the preset's graph is loaded directed (as stored): partition files
};

// The built-in dataset presets (docs/models.md and the OGB leaderboards).
struct DatasetPreset {
  const char* name;
  std::int64_t nodes;
  std::int64_t edges;
  std::int64_t feature_dim;
  const char* url;
  bool directed;  // OGB's add_inverse_edge is false: DGL loads the graph as stored
};
const std::vector<DatasetPreset>& DatasetPresets();

enum class JobAction { kSubmit, kDelete, kSuspend, kResume };
const char* ToString(JobAction action);

struct JobEntry {
  std::string field_path;  // "jobs[1]"
  Micros at = 0;
  JobAction action = JobAction::kSubmit;
  // kSubmit: the DGLJobs to create (one per document of the manifest, or the inline one), converted
  // to kubeflow.org/v1alpha1 and with metadata.namespace set, but not defaulted: admission does that.
  std::vector<kube::Json> objects;
  std::string manifest_path;  // resolved; "" for inline jobs and actions
  std::string dataset;        // `dataset:` of the entry, or the dglsim.io/dataset annotation; may be ""
  // Actions: the job acted on. kSubmit: the key of each object, in order.
  std::vector<JobKey> targets;
};

enum class FaultKind {
  kNodeDown, kNodeUp, kPodKill, kOOM, kImagePullError, kNetworkSlow, kApiFaults, kWatchDrop, kOperatorRestart,
  kRbacRuleRemoved, kNodeDeleted
};
const char* ToString(FaultKind kind);

using dgl::kJobPhases;  // the DGLJob phases (operator/api/vocabulary.h)

struct FaultTrigger {
  std::optional<Micros> at;  // at a time, or
  std::optional<JobKey> job;  // when this job first enters `phase`,
  std::string phase;
  Micros after = 0;  // plus this delay
};

struct FaultSpec {
  std::string field_path;  // "faults[3]"
  FaultKind kind = FaultKind::kWatchDrop;
  FaultTrigger trigger;
  std::optional<Micros> duration;  // `for`: undone after this long; unset = never
  std::string node;                // NodeDown, NodeUp, NetworkSlow (empty = every node), NodeDeleted
  std::optional<JobKey> node_of;   // NodeDown, NodeDeleted: the node this pod (namespace/name) runs on
  std::optional<JobKey> pod;       // PodKill, OOM: namespace/name of the pod
  std::string container;           // PodKill, OOM: a container name, "" = the first
  int exit_code = 137;             // PodKill, OOM
  std::string image;               // ImagePullError: an image glob ("dgloperator/*")
  double factor = 1.0;             // NetworkSlow: the bandwidth multiplier, in (0, 1]
  double conflict_rate = 0;        // ApiFaults
  double error_rate = 0;
  double timeout_rate = 0;
  Micros latency = 0;
  // RbacRuleRemoved: an administrator's mistake, rule `rule` (0-based) of `role` removed from the
  // policy ("ClusterRole/NAME" or "Role/NAMESPACE/NAME", a role of the operator's RBAC file or of
  // the bootstrap policy); `for` puts it back.
  std::string role;
  std::int64_t rule = 0;
};

enum class ExpectKind {
  kPhase, kPhases, kCondition, kWithin, kRestarts, kConfigMapLines, kConfigMapLine, kBreakdown, kPeakMemory,
  kPodCount, kNodeCount, kInvariants
};
const char* ToString(ExpectKind kind);

// The stages of a job's breakdown, and the pods whose peak memory is reported.
inline constexpr const char* kBreakdownStages[] = {"queueing", "imagePull", "download", "prepare",
                                                   "partition", "dispatch", "load",     "training"};
inline constexpr const char* kMemoryRoles[] = {dgl::kRolePartitioner, dgl::kRoleLauncher, dgl::kRoleWorker,
                                               dgl::kRoleServer,      dgl::kRoleSampler,  dgl::kRoleTrainer};

struct ExpectationSpec {
  std::string field_path;  // "expect[4]"
  ExpectKind kind = ExpectKind::kInvariants;
  std::optional<JobKey> job;          // every job-kind expectation
  std::string phase;                  // kPhase
  std::vector<std::string> phases;    // kPhases, in order
  std::string condition;              // kCondition: the condition type
  std::string reason;                 //   and its reason ("" = any)
  std::string status = "True";        //   and its status
  Micros within = 0;                  // kWithin: submitted -> terminal
  std::int64_t restarts = 0;          // kRestarts
  std::optional<JobKey> config_map;   // kConfigMapLines, kConfigMapLine
  std::string key;
  std::int64_t lines = 0;             // kConfigMapLines
  std::int64_t line = 0;              // kConfigMapLine: index from 0
  std::string matches;                // kConfigMapLine: the pattern as written
  LineRegex matcher;                  // kConfigMapLine: matches, compiled (line_regex.h)
  std::string stage;                  // kBreakdown
  std::pair<Micros, Micros> time_between{0, 0};
  std::string memory_role;            // kPeakMemory
  std::pair<std::int64_t, std::int64_t> bytes_between{0, 0};
  std::string pods_namespace;         // kPodCount ("" = every namespace)
  std::string pods_selector;          // a label selector, checked to parse
  std::int64_t count = 0;              // kPodCount; kNodeCount: the nodes the cluster has
  std::string at = "end";             // "end", or a duration written as in the file
  std::optional<Micros> at_time;      // set when `at` is a duration
  std::vector<std::string> invariants;  // kInvariants: registry names (config/invariants.h); all of them for `all`
  std::string text;                   // one-line human form: "job default/big phase Succeeded"
};

struct Scenario {
  std::string file;       // as given to LoadScenario
  std::string base_dir;   // the folder relative paths are resolved against
  std::string name;
  std::string description;
  // metadata.labels and metadata.annotations: for the tools that read scenario files and reports;
  // the JSON report carries them, the run never reads them.
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
  std::uint64_t seed = sim::SimulationOptions{}.seed;
  Micros until = 7 * 86400 * kube::kSecond;
  ClusterSpec cluster;
  ApiSettings api;
  OperatorSettings operator_settings;  // `operator:` in the file
  std::vector<DatasetSpec> datasets;
  // `calibration: FILE` (resolved): a dglsim/v1 Calibration over the workload models' defaults.
  std::string calibration_file;
  std::optional<sim::dglmodels::Calibration> calibration;
  // In file order, then the jobs of each arrival (field_path its template) in submit order; the
  // runner orders them by `at` (stably).
  std::vector<JobEntry> jobs;
  // In file order, then the node failures drawn from mtbf (field_path "cluster.nodes[i].mtbf").
  std::vector<FaultSpec> faults;
  std::vector<ExpectationSpec> expectations;
  // Namespaces the jobs name, sorted, without duplicates: the runner creates them at the start.
  std::vector<std::string> namespaces;
  // Every job submitted by the scenario, in order of first submission.
  std::vector<JobKey> job_keys;
  // The pods each submitted job creates, by name (partitioner, launcher, workers), as the operator
  // names them: what PodKill, OOM and NodeDown.nodeOf may name (dglsim chaos draws its targets here).
  std::map<JobKey, std::vector<std::string>> job_pods;
};

struct ScenarioLoad {
  std::optional<Scenario> scenario;   // set exactly when there are no problems
  std::vector<std::string> problems;  // "FILE:LINE:COL: FIELD.PATH: message", in file order
  std::vector<std::string> warnings;  // "FILE:LINE:COL: warning: message"
  bool ok() const { return problems.empty() && scenario.has_value(); }
};

// Reads, checks and types a scenario file. Relative paths in it are resolved against its folder.
// `seed`, when given, replaces the file's before anything is drawn from it (arrivals, node failures).
ScenarioLoad LoadScenario(const std::string& path, std::optional<std::uint64_t> seed = std::nullopt);
// The same for text; `file` names it in messages and `base_dir` resolves its relative paths.
ScenarioLoad LoadScenarioString(std::string_view text, std::string_view file, std::string_view base_dir);

// What `dglsim validate` reports for a scenario file: its problems and warnings, and a note with a
// short summary when it is valid.
ManifestReport ValidateScenarioFile(const std::string& path);

// The closest of `candidates` to `word` (edit distance at most 2, or a different case), or "".
std::string SuggestName(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace harness
