// The runner turns a loaded Scenario into one run of the simulated cluster and records what the
// expectations and reports need.
//
// Assembly (in this order): a Simulation (seed, watch latency), the DGLJob admission, the
// scenario's namespaces, a Cluster from the node templates and Node manifests (bandwidth
// annotations parsed with harness units), one Kubelet per node (pod CIDR and host IP from the
// cluster's spec table, image sizes, pull bandwidth, podStartup, restart back-offs) wired to the
// Cluster's liveness observer so NodeDown / NodeUp stop and resume it, the NodeLifecycleController
// (grace period; tolerationSeconds through the Cluster's DefaultTolerationSeconds plugin), the
// Scheduler (scoring, gang), the OperatorActor (unless operator.enabled is false), a recorder actor
// watching dgljobs, pods and configmaps, an invariant checker, and the FaultInjector.
//
// Jobs are created (and deleted, suspended, resumed) at their `at` by the harness itself, directly
// in the store, as `kubectl` would. The run ends at `until`, or once every job entry has been
// applied and every submitted job is terminal (Succeeded / Failed) or deleted; it then runs a
// settle period (kSettle, at most to `until`) so that cleanup and garbage collection are seen by
// `pods ... at: end` expectations. Times in the record are simulated time from the scenario start.
//
// What is recorded per job: the phase timeline (as the recorder's watch saw it, i.e. one watch
// latency after the write), submit and completion time, makespan, restarts (status.restartCount,
// the largest seen), pods created (distinct pod uids labelled with the job), GPU-seconds (per pod,
// its nvidia.com/gpu limits times its running time: from its containers' earliest startedAt, as the
// kubelet wrote it, to their latest finishedAt when it reaches Succeeded / Failed, or to its deletion
// or the end of the run as the recorder saw them), conditions as last seen, and a snapshot
// of the job's ConfigMap data as last seen (also after deletion).
//
// For the visual reports, per pod (RunRecord::pods): namespace/name, job, replica type, node, GPUs,
// when it was created, bound, started, finished, released and deleted, its last phase, its
// container runs (from its status) and the stage intervals its programs reported; for the cluster:
// the nodes, their outages (NodeDown to NodeUp) and the GPUs in use over time.
//
// Not modelled yet (reported as such, never invented): the stage breakdown, peak memory, idle
// GPU-seconds, NetworkSlow (the flow network is not wired into the runner).
//
// REQUIRES: single-threaded use. Nothing here throws on any scenario the loader accepted.
#pragma once

#include "sim/harness/config/scenario.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace sim {
class Simulation;
}  // namespace sim

namespace harness {

// How long the run goes on after the last job finished (pod cleanup, graceful deletion, GC).
inline constexpr Micros kSettle = 5 * 60 * kube::kSecond;

struct PhaseChange {
  std::string phase;
  Micros at = 0;  // simulated time
};

struct JobRecord {
  JobKey key;
  std::string partition_mode;
  std::string dataset;                // as the scenario names it; "" = none known
  std::optional<Micros> submitted;    // first creation
  std::optional<Micros> completed;    // first terminal phase
  std::vector<PhaseChange> phases;    // every phase change, in order
  std::string phase;                  // the last phase seen ("" = none yet)
  nlohmann::json conditions = nlohmann::json::array();  // status.conditions as last seen
  std::int64_t restarts = 0;
  std::int64_t pods_created = 0;
  double gpu_seconds = 0;
  bool deleted = false;               // the job object is gone
  std::optional<Micros> deleted_at;   // when the recorder saw it gone (the last time)
  std::string submit_error;           // the API's answer when the create failed
  Micros last_status_change = 0;
  // Stage intervals the kubelets and workload models reported for the job's pods (stage name as in
  // sim::WorkloadObserver -> [begin, end) in simulated time, in report order).
  std::map<std::string, std::vector<std::pair<Micros, Micros>>> stage_intervals;
  // Peak memory use per replica type ("partitioner", "launcher", "worker", "server", ...), in bytes: the largest
  // any one container of that type reached.
  std::map<std::string, std::int64_t> peak_memory;
  // Stage name -> time the job spent in it: the length of the union of its intervals, so stages
  // running on several pods at once count once.
  std::map<std::string, Micros> Breakdown() const;
  std::optional<Micros> Makespan() const {
    if (!submitted || !completed) return std::nullopt;
    return *completed - *submitted;
  }
};

// One run of one container as its status showed it (the kubelet writes whole seconds).
struct ContainerRun {
  std::string name;
  bool init = false;
  Micros started = 0;
  std::optional<Micros> finished;
  std::int64_t exit_code = 0;
  std::string reason;  // of the termination
};

// A stage of a job's breakdown one pod reported (see sim::WorkloadObserver).
struct StageInterval {
  std::string stage;
  Micros begin = 0;
  Micros end = 0;
};

// A pod as the recorder saw it: what the Gantt chart and the Chrome trace draw. Times are
// simulated; created, bound and deleted are when the recorder's watch saw them, started and
// released are the interval GPU-seconds are counted over.
struct PodRecord {
  std::string uid;
  std::string ns;
  std::string name;
  std::optional<JobKey> job;
  std::string role;                // label training.kubeflow.org/replica-type ("" = none)
  std::string node;                // the node it was bound to ("" = never bound)
  std::int64_t gpus = 0;           // nvidia.com/gpu limits of its containers
  std::optional<Micros> created;   // first seen
  std::optional<Micros> bound;     // first seen with spec.nodeName
  std::optional<Micros> started;   // its containers' earliest startedAt
  std::optional<Micros> finished;  // its containers' latest finishedAt, once Succeeded / Failed
  std::optional<Micros> released;  // stopped holding its node's resources (finished, deleted or run end)
  std::optional<Micros> deleted;   // the object was gone
  std::string phase;               // the last phase seen
  std::vector<ContainerRun> containers;  // init containers first, in the order first seen
  std::vector<StageInterval> stages;     // as its programs reported them, in report order
};

struct NodeRecord {
  std::string name;
  std::int64_t gpus = 0;  // allocatable nvidia.com/gpu
};

// A node out of service: from NodeDown to NodeUp (none: still down at the end).
struct NodeOutage {
  std::string node;
  Micros down = 0;
  std::optional<Micros> up;
};

// The cluster's GPUs held by running pods from `at` on (a step function; see RunRecord).
struct GpuStep {
  Micros at = 0;
  std::int64_t in_use = 0;
};

struct InvariantViolation {
  std::string name;  // one of kInvariantNames, or "jobsTerminalOrProgressing"
  Micros at = 0;
  std::string detail;
};

// Everything a run leaves behind for expectations and reports.
struct RunRecord {
  std::string scenario;
  std::string description;
  std::uint64_t seed = 1;
  Micros end = 0;            // simulated time when the run stopped
  bool hit_until = false;    // stopped by `until` with work left
  std::uint64_t events = 0;  // engine events executed
  std::int64_t api_writes = 0;
  std::uint64_t trace_records = 0;
  std::string trace_hash;
  std::map<JobKey, JobRecord> jobs;
  std::vector<JobKey> job_order;  // order of first submission
  // ConfigMap "ns/name" -> data, as at the end of the run or as last seen before its deletion.
  std::map<std::string, std::map<std::string, std::string>> config_maps;
  // kPodCount expectations: expectation index -> number of matching pods at its `at`.
  std::map<std::size_t, std::int64_t> pod_counts;
  std::vector<InvariantViolation> invariant_violations;
  std::map<std::string, std::int64_t> invariant_checks;  // invariant name -> checks made
  std::vector<std::string> fault_log;  // "12m30s NodeDown gpu-1", in order applied
  std::vector<std::string> notes;      // things the summary must say (not modelled, skipped)
  int nodes = 0;
  std::int64_t gpus = 0;
  double gpu_seconds = 0;  // every pod's, jobs or not
  // For the visual reports (--html, --trace).
  std::vector<PodRecord> pods;                   // every pod seen, in the order first seen
  std::map<std::string, std::size_t> pod_index;  // uid -> index into pods
  std::vector<NodeRecord> node_list;             // the nodes at the end of the run, in API order
  std::vector<NodeOutage> node_outages;          // in the order they began
  // GPUs in use over time, from each pod's [started, released) times its GPUs: a step at each
  // change, in time order, starting at 0 with 0; its integral is gpu_seconds.
  std::vector<GpuStep> gpus_in_use;

  // The pod with this uid, added (uid only) when unknown.
  PodRecord& Pod(const std::string& uid);
};

struct RunOptions {
  std::optional<std::uint64_t> seed;  // overrides the scenario's
  // Step of the run loop: how often the runner looks whether every job is done.
  Micros check_interval = 10 * kube::kSecond;
  // Called once the run is assembled, before it starts: tests schedule writes of their own into
  // the run (to make an invariant fire, say).
  std::function<void(sim::Simulation&)> before_start;
  // Set by `dglsim serve` (sim/harness/run/live_run.h): called right after the simulation started, in
  // place of the runner's loop; it steps `sim` itself and returns when the run should end.
  // `scenario_done()` says whether every job entry was applied and every job the scenario submitted
  // is terminal or deleted. The record is then completed as after any run.
  std::function<void(sim::Simulation& sim, const std::function<bool()>& scenario_done)> drive;
};

// Runs the scenario to its end and returns the record. Never throws.
RunRecord RunScenario(const Scenario& scenario, const RunOptions& options = {});

}  // namespace harness
