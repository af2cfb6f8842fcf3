// A Cluster is the set of simulated machines: it turns node templates, or real v1 Node / NodeList
// objects (as `kubectl get nodes -o yaml` prints them, converted to JSON), into Node objects in the
// API, and keeps what the API does not say about a machine (NIC and disk bandwidth, relative CPU
// speed, pod CIDR) in a NodeSpecTable that kubelets and the network model read.
//
// It also says which machines are up. A machine that goes down (NodeDown) stops heartbeating at
// that instant, and when the simulation has a flow network its NIC and disk stop (flows to and from
// it stall until NodeUp); the node lifecycle controller learns it the way the real one learns from a Lease
// that is no longer renewed, through a liveness observer, and marks the node NotReady after its
// grace period. NodeUp resumes the heartbeat: the NodeHeartbeat actor posts Ready=True as a
// restarted kubelet does, and the controller lifts its taints. Heartbeats are not written to the API
// every 10 s (a week of 1,000 nodes would be 60 M writes): only state changes are.
//
// Machines may also come and go while the simulation runs (AddNode, RemoveNode: the autoscaler's
// node pools, sim/cluster/autoscaler.h); a removed machine's Node object is deleted.
//
// The Cluster registers the DefaultTolerationSeconds admission plugin on pods: every pod created
// without a toleration for node.kubernetes.io/not-ready and node.kubernetes.io/unreachable
// (NoExecute) gets one with tolerationSeconds 300, so its pods leave a dead node 300 s after the node
// is marked NotReady.
//
// Taint and toleration matching lives here too, shared by the scheduler and the controller.
//
// The Cluster owns its NodeHeartbeat actor (it dies with the cluster). Actors given the Cluster
// (the node lifecycle controller) must die before it.
//
// REQUIRES: single-threaded use, like the Simulation it belongs to, which must outlive it.
#pragma once

#include "fakeapi/client/json.h"
#include "fakeapi/client/status.h"
#include "sim/cluster/simulation.h"

#include <compare>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sim {

// Well-known names.
inline constexpr const char* kTaintNotReady = "node.kubernetes.io/not-ready";
inline constexpr const char* kTaintUnreachable = "node.kubernetes.io/unreachable";
inline constexpr const char* kTaintUnschedulable = "node.kubernetes.io/unschedulable";
inline constexpr const char* kResourceGpu = "nvidia.com/gpu";
// Pods a node holds when its capacity does not say (the kubelet's --max-pods default).
inline constexpr int kDefaultMaxPods = 110;
inline constexpr const char* kAnnotationNetwork = "dglsim.io/network";
inline constexpr const char* kAnnotationDisk = "dglsim.io/disk";
inline constexpr const char* kAnnotationCpuSpeed = "dglsim.io/cpu-speed";
// The ephemeral-storage capacity a node gets when its template or manifest does not say: a real
// kubelet always reports one (the size of its root filesystem), and pods requesting some (the DGL
// launcher's watcher containers ask for 5Gi) could not schedule on a node without it. 100Gi is a
// typical node root disk (GKE node pools default to a 100 GB boot disk).
inline constexpr const char* kDefaultEphemeralStorage = "100Gi";

// What a machine is when nothing says otherwise: a 100 Gbit/s NIC (12.5 GB/s each direction, the
// docs/models.md machines), a 2 GB/s disk (the scenarios.md example), the calibration machine's CPU.
inline constexpr double kDefaultNicBytesPerSecond = 12.5e9;
inline constexpr double kDefaultDiskBytesPerSecond = 2e9;
inline constexpr double kDefaultCpuSpeed = 1.0;
// DefaultTolerationSeconds: how long pods tolerate a not-ready or unreachable node.
inline constexpr std::int64_t kDefaultTolerationSeconds = 300;

// ---- taints and tolerations ----------------------------------------------------------------------

struct Taint {
  std::string key;
  std::string value;
  std::string effect;  // NoSchedule, PreferNoSchedule, NoExecute
  std::optional<Micros> time_added;  // API time (epoch-based), for NoExecute taints
  friend auto operator<=>(const Taint&, const Taint&) = default;
  kube::Json ToJson() const;
  static Taint FromJson(const kube::Json& taint);
};

struct Toleration {
  std::string key;       // "" with Exists tolerates every taint
  std::string op = "Equal";  // Equal, Exists
  std::string value;
  std::string effect;    // "" matches every effect
  std::optional<std::int64_t> toleration_seconds;  // NoExecute only; unset = forever
  static Toleration FromJson(const kube::Json& toleration);
};

// Whether `toleration` tolerates `taint` (v1.Toleration.ToleratesTaint).
bool Tolerates(const Toleration& toleration, const Taint& taint);
// Parsed spec.taints of a node / spec.tolerations of a pod.
std::vector<Taint> TaintsOf(const kube::Json& node);
std::vector<Toleration> TolerationsOf(const kube::Json& pod);
// The Ready condition's status of a node ("True", "False", "Unknown"); "" when absent.
std::string NodeReadyStatus(const kube::Json& node);

// ---- what the API does not say about a machine --------------------------------------------------

struct NodeSimSpec {
  double nic_bytes_per_second = kDefaultNicBytesPerSecond;  // each direction
  double disk_bytes_per_second = kDefaultDiskBytesPerSecond;
  double cpu_speed = kDefaultCpuSpeed;                      // relative to the calibration machine
  std::string pod_cidr;                  // "10.244.3.0/24"
  std::string internal_ip;               // "10.0.0.4"
};
// Node name -> simulation properties, in name order.
using NodeSpecTable = std::map<std::string, NodeSimSpec, std::less<>>;

// A family of identical machines, named `<name>-0` .. `<name>-<count-1>`.
struct NodeTemplate {
  std::string name;
  int count = 1;
  // Quantities as the API writes them: {"cpu": "96", "memory": "768Gi", "nvidia.com/gpu": "8"}.
  // "pods" defaults to "110", "ephemeral-storage" to kDefaultEphemeralStorage. Allocatable equals
  // capacity.
  std::map<std::string, std::string> capacity;
  std::map<std::string, std::string> labels;
  std::vector<Taint> taints;
  double nic_bytes_per_second = kDefaultNicBytesPerSecond;
  double disk_bytes_per_second = kDefaultDiskBytesPerSecond;
  double cpu_speed = kDefaultCpuSpeed;
};

struct ClusterOptions {
  // DefaultTolerationSeconds admission: the seconds given to added not-ready / unreachable
  // tolerations; a negative value turns the plugin off.
  std::int64_t default_toleration_seconds = kDefaultTolerationSeconds;
  // Reads a bandwidth annotation (dglsim.io/network, dglsim.io/disk) in bytes/s. The default takes
  // a plain number ("12500000000"); the scenario loader installs one that reads "100Gbps".
  std::function<std::optional<double>(std::string_view)> parse_bandwidth;
  // How often the heartbeat actor refreshes lastHeartbeatTime of every up node in the API, as
  // the kubelet's nodeStatusReportFrequency does. 0 (default): only on state changes.
  Micros status_report_period = 0;
};

class NodeHeartbeat;

class Cluster {
 public:
  // Called when a node stops (up = false) or resumes heartbeating; `last_heartbeat` is the
  // simulated time of its last heartbeat (the moment it went down, or now).
  using LivenessObserver = std::function<void(const std::string& node, bool up, Micros last_heartbeat)>;

  Cluster(Simulation& sim, ClusterOptions options = {});
  ~Cluster();
  Cluster(const Cluster&) = delete;
  Cluster& operator=(const Cluster&) = delete;

  // Creates the template's nodes in the API (now) and in the spec table. Fails (and stops) on the
  // first API error, e.g. a name that is taken.
  kube::Status AddNodes(const NodeTemplate& node_template);
  // Creates one node of the template named `name` (its count and name unused), as AddNodes does.
  kube::Status AddNode(const NodeTemplate& node_template, const std::string& name);
  // Creates nodes from a v1 Node or NodeList (kind List of Nodes is accepted too). Capacity,
  // allocatable, labels, taints, podCIDR and addresses are kept; server-owned metadata is dropped;
  // the Ready condition is set True now. Simulation properties come from the dglsim.io/*
  // annotations or the defaults.
  kube::Status AddNodesFromManifest(const kube::Json& node_or_list);

  const NodeSpecTable& specs() const { return specs_; }
  // nullptr when no such node.
  const NodeSimSpec* Spec(std::string_view node) const;
  std::size_t size() const { return specs_.size(); }

  // The machine stops: no more heartbeats, its kubelet does nothing. No-op if already down or unknown.
  void NodeDown(const std::string& node);
  // The machine is back: the heartbeat resumes and posts Ready=True. No-op if up or unknown.
  void NodeUp(const std::string& node);
  // The machine is taken away (a scale-down, an interrupted spot machine): it stops as NodeDown
  // stops it, without telling the liveness observers (the caller stops its kubelet), and its Node
  // object is deleted. Its spec stays in the table (kubelets may point at it). NotFound if unknown.
  kube::Status RemoveNode(const std::string& node);
  bool IsUp(std::string_view node) const;
  // Simulated time of the node's last heartbeat: Now() while up.
  Micros LastHeartbeat(std::string_view node) const;
  // Observers run synchronously inside NodeDown / NodeUp, in the order added.
  void AddLivenessObserver(LivenessObserver observer);

  Simulation& sim() { return sim_; }
  const ClusterOptions& options() const { return options_; }

 private:
  struct Liveness {
    bool up = true;
    Micros since = 0;  // when it last went down or up
  };
  kube::Status CreateNode(kube::Json node, NodeSimSpec spec);
  // Node number i's address and pod range.
  static std::string InternalIpFor(std::size_t i);
  static std::string PodCidrFor(std::size_t i);

  Simulation& sim_;
  ClusterOptions options_;
  NodeSpecTable specs_;
  std::map<std::string, Liveness, std::less<>> liveness_;
  std::vector<LivenessObserver> observers_;
  std::unique_ptr<NodeHeartbeat> heartbeat_;  // an actor of the simulation that dies with the cluster
};

// Posts node status as the kubelets of the cluster would, for every node at once: Ready=True when a
// node comes back (and, with ClusterOptions::status_report_period, periodic refreshes of
// lastHeartbeatTime).
class NodeHeartbeat : public Actor {
 public:
  NodeHeartbeat(Simulation& sim, Cluster& cluster);
  void Start() override;
  // Posts Ready=True with a fresh heartbeat (a kubelet that came back).
  void PostReady(const std::string& node);

 private:
  void Refresh();
  Cluster& cluster_;
};

// The Ready condition a kubelet posts.
kube::Json ReadyCondition(Micros api_now, Micros last_transition);

}  // namespace sim
