// A RunRecord is everything one run of a scenario leaves behind for the expectations and the
// reports (sim/harness/run/runner.h makes one): per job its phase timeline, submission and
// completion, restarts, pods, GPU-seconds, conditions, stage breakdown and memory peaks; per pod
// its node, times, container runs and stages; the cluster's nodes, outages, pool nodes (requested,
// Ready, gone) and GPUs in use over time; ConfigMap snapshots, pod counts, invariant checks and violations, faults applied, notes,
// and the run's figures (end time, events, API writes, trace hash). Times are simulated time from
// the scenario's start.
//
// What each job figure means:
// - phases: every phase change as the recorder's watch saw it (one watch latency after the write);
//   submitted: its first creation; completed: its first terminal phase; restarts: the largest
//   status.restartCount seen; pods_created: distinct pod uids labelled with the job.
// - GPU-seconds: per pod, its nvidia.com/gpu limits times its running time: from its containers'
//   earliest startedAt, as the kubelet wrote it, to their latest finishedAt when it reaches
//   Succeeded / Failed, or to its deletion or the end of the run as the recorder saw them.
// - stage_intervals: what the kubelets (imagePull) and the workload models (download, partition,
//   dispatch, load, training) reported, plus queueing (submission to the first binding);
//   Breakdown() is the length of each stage's union. peak_memory: the largest memory use any
//   container of a role reported.
// - conditions and the job's ConfigMap data: as last seen (also after deletion).
#pragma once

#include "fakeapi/client/json.h"
#include "sim/harness/config/scenario.h"

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace harness {

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
  kube::Json conditions = kube::Json::array();  // status.conditions as last seen
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
  // The ranges of the workload models' predictions (sim/dgl/predictions.h): seconds a stage would
  // take beyond (low, high) the simulated one at the ends of the uncertain parameters' ranges, and a
  // role's memory peak at those ends, in bytes. Empty for stages and roles no DGL program reported.
  std::map<std::string, std::pair<double, double>> stage_spread;
  std::map<std::string, std::pair<double, double>> peak_memory_range;
  // Stage name -> time the job spent in it: the length of the union of its intervals, so stages
  // running on several pods at once count once.
  std::map<std::string, Micros> Breakdown() const;
  // A breakdown stage in seconds with its range: {value, low, high} (low = high = value without one).
  std::array<double, 3> StageRange(const std::string& stage) const;
  // The makespan's range: the makespan plus every stage's spread (the stages of a job follow one
  // another); nullopt without a makespan.
  std::optional<std::array<double, 3>> MakespanRange() const;
  // A role's peak memory with its range, in bytes; nullopt when the role reported none.
  std::optional<std::array<double, 3>> PeakRange(const std::string& role) const;
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
  std::string reason;   // of the termination
  std::string message;  // of the termination (the log's tail under FallbackToLogsOnError)
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

// A node of an autoscaled pool (cluster.nodePools), as the autoscaler reported it. It is paid for
// from its request (the machine is launched then: its boot is paid for) to `gone`: its removal, or
// its interruption (a spot machine taken back).
struct PoolNodeRecord {
  std::string name;
  std::string pool;
  std::int64_t gpus = 0;      // its machine's nvidia.com/gpu
  double price_per_hour = 0;  // its pool's
  bool spot = false;
  Micros requested = 0;
  std::optional<Micros> ready;   // Ready in the API
  std::optional<Micros> notice;  // a spot interruption notice
  std::optional<Micros> gone;    // removed or interrupted
  bool interrupted = false;
};

// The cluster's GPUs held by running pods from `at` on (a step function; see RunRecord).
struct GpuStep {
  Micros at = 0;
  std::int64_t in_use = 0;
};

struct InvariantViolation {
  std::string name;  // an invariant of the registry (sim/harness/config/invariants.h)
  Micros at = 0;
  std::string detail;
};

// Everything a run leaves behind for expectations and reports.
struct RunRecord {
  std::string scenario;
  std::string description;
  std::map<std::string, std::string> labels;       // the scenario's metadata.labels
  std::map<std::string, std::string> annotations;  // and metadata.annotations
  std::uint64_t seed = 1;
  Micros end = 0;            // simulated time when the run stopped
  bool hit_until = false;    // stopped by `until` with work left
  std::uint64_t events = 0;  // engine events executed
  std::int64_t api_writes = 0;
  std::int64_t watch_events = 0;  // events the API server queued to watchers: each write times the watches it concerns
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
  // The in-simulation operator's metrics at the end (Prometheus text format; "" without operator).
  std::string operator_metrics;
  std::vector<std::string> forbidden;  // distinct refused requests, "<actor>: <403 message>" (Simulation::refusals)
  std::vector<std::string> notes;      // things the summary must say (skipped, why a job is not done)
  int nodes = 0;
  std::int64_t gpus = 0;
  double gpu_seconds = 0;  // every pod's, jobs or not
  double price_per_hour = 0;  // the cluster's (ClusterSpec::PricePerHour); 0 = unpriced
  // For the visual reports (--html, --trace).
  std::vector<PodRecord> pods;  // every pod seen, in the order first seen
  // uid -> index into pods. Hashed: looked up on every pod event, and a tree of 100,000 uids costs
  // a cache miss per level; never iterated, so its order reaches no result.
  std::unordered_map<std::string, std::size_t> pod_index;
  std::vector<NodeRecord> node_list;             // the nodes at the end of the run, in API order
  std::vector<NodeOutage> node_outages;          // in the order they began
  // Autoscaled pools' nodes, in the order requested, and the nodes and GPUs that are not theirs
  // (cluster.nodes: there from start to end).
  std::vector<PoolNodeRecord> pool_nodes;
  int fixed_nodes = 0;
  std::int64_t fixed_gpus = 0;
  // GPUs in use over time, from each pod's [started, released) times its GPUs: a step at each
  // change, in time order, starting at 0 with 0; its integral is gpu_seconds.
  std::vector<GpuStep> gpus_in_use;

  // The pod with this uid, added (uid only) when unknown; PodIndex is its index in `pods` (which
  // stays valid as pods are added, where a reference does not).
  PodRecord& Pod(const std::string& uid) { return pods[PodIndex(uid)]; }
  std::size_t PodIndex(const std::string& uid);
};

}  // namespace harness
