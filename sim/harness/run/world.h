// A World is one scenario's simulated cluster, whole: it builds every part of the run from the
// Scenario and owns them. The parts are members declared in the order they are built, so they die
// in the reverse order, each before the parts it uses: nothing is torn down by hand, and no part
// outlives what it refers to. Every part that schedules events owns them (sim/kernel/owned_events.h),
// so they die with it.
//
// Built in this order (the order of the API writes and of the actors matters to the trace):
//   1. the Simulation (seed, watch latency), with the DGLJob admission and the scenario's namespaces;
//   2. the Cluster: the node templates and Node manifests (bandwidth annotations parsed with harness
//      units), its node heartbeat actor and the DefaultTolerationSeconds plugin; with node pools,
//      the Autoscaler and the pools' minimum nodes; the flow network with every node's NIC and
//      disk and the shared storage (a pool node added later gets its NIC, disk and kubelet when it
//      is Ready);
//   3. the InvariantChecker (every invariant) and the StageObserver (stages and memory peaks);
//   4. the DGL workload models' environment and program registry, and one Kubelet per node (pod CIDR
//      and host IP from the cluster's spec table, image sizes, pull bandwidth, podStartup, restart
//      back-offs), stopped and resumed by NodeDown / NodeUp through the cluster's liveness observer;
//   5. the NodeLifecycleController (grace period), the PodGarbageCollector (the pods of deleted
//      nodes), the Scheduler (scoring, gang, the recorded placements), the OperatorActor
//      (unless operator.enabled is false) and the API's base latency (api.requestLatency);
//   6. the FaultInjector, the Recorder, the JobDriver and the PodCountProbes, which schedule the
//      scenario's jobs, faults and timed pod counts, in that order.
//
// REQUIRES: single-threaded use; the scenario and the record outlive the World.
#pragma once

#include "sim/cluster/simulation.h"
#include "sim/harness/config/scenario.h"
#include "sim/harness/run/run_record.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace sim {
class Autoscaler;
class Cluster;
struct PoolNodeEvent;
class Kubelet;
class NodeLifecycleController;
class PodGarbageCollector;
class OperatorActor;
class ProgramRegistry;
class Scheduler;
namespace dglmodels {
class DglEnvironment;
}  // namespace dglmodels
}  // namespace sim

namespace harness {

class FaultInjector;
class InvariantChecker;
class JobDriver;
class PodCountProbes;
class Recorder;
class StageObserver;

class World {
 public:
  // `epoch`: the API time at simulated time 0 (RunOptions::epoch); unset, the engine's default.
  // `audit`: where API calls are logged (RunOptions::audit), or null.
  World(const Scenario& scenario, RunRecord& record, std::uint64_t seed, std::optional<Micros> epoch = std::nullopt,
        fakeapi::AuditLog* audit = nullptr);
  ~World();
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  sim::Simulation& sim() { return sim_; }
  // Starts every actor.
  void Start() { sim_.Start(); }

  // Every job entry applied and every submitted job terminal (Succeeded / Failed) or deleted.
  bool JobsDone() const;
  // JobsDone() and no actor holds armed work (Actor::HasPendingWork): nothing more will happen
  // but cleanup.
  bool ScenarioDone() const;

  // The run is over at `until` (or earlier): completes the record (end time, open intervals, the
  // end-of-run invariants, pod counts at the end, ConfigMaps, why a job is not done, the run's
  // figures and trace hash, the in-simulation operator's metrics as a final scrape). Call once.
  void Finish(Micros until);

 private:
  void BuildApi();
  void BuildCluster();
  void BuildKubelets();
  void BuildControllers();
  void BuildHarness();
  void OnLiveness(const std::string& node, bool up);
  void BuildAutoscaler();
  // A pool node's news from the autoscaler: into the record; a Ready node gets its NIC, disk and
  // kubelet once the run is built.
  void OnPoolNode(const sim::PoolNodeEvent& event);
  void AddKubelet(const std::string& node, const sim::NodeSimSpec& spec);
  void RecordFigures();

  const Scenario& scenario_;
  RunRecord& record_;
  sim::Simulation sim_;
  std::unique_ptr<sim::Cluster> cluster_;
  std::unique_ptr<InvariantChecker> checker_;
  std::unique_ptr<StageObserver> observer_;
  std::shared_ptr<const sim::dglmodels::DglEnvironment> dgl_;
  std::shared_ptr<sim::ProgramRegistry> programs_;
  std::vector<std::unique_ptr<sim::Kubelet>> kubelets_;  // in node name order
  std::map<std::string, sim::Kubelet*> kubelet_of_node_;
  std::unique_ptr<sim::NodeLifecycleController> node_lifecycle_;
  std::unique_ptr<sim::PodGarbageCollector> pod_gc_;
  std::unique_ptr<sim::Scheduler> scheduler_;
  std::unique_ptr<sim::OperatorActor> operator_;  // none when operator.enabled is false
  std::unique_ptr<sim::Autoscaler> autoscaler_;   // none without cluster.nodePools
  std::map<std::string, std::size_t> pool_node_index_;  // into record_.pool_nodes
  bool kubelets_built_ = false;
  std::unique_ptr<FaultInjector> faults_;
  std::unique_ptr<Recorder> recorder_;
  std::unique_ptr<JobDriver> jobs_;
  std::unique_ptr<PodCountProbes> pod_counts_;
};

}  // namespace harness
