// The Recorder is the harness's witness of a run: an actor ("harness-recorder") watching dgljobs,
// pods and configmaps that fills the RunRecord (run_record.h) with the job timelines, pod
// accounting (GPU-seconds, the pods' records for the visual reports) and ConfigMap snapshots, and
// tells the FaultInjector when a job enters a phase (`when` faults). It checks nothing: the
// invariants are the InvariantChecker's (invariants.h).
//
// The StageObserver receives what kubelets and workload models report (sim::WorkloadObserver):
// stages go to the job's breakdown and the pod's record, and to the checker; memory figures to the
// job's peaks per role.
//
// REQUIRES: single-threaded use; the record, the injector and the checker outlive them.
#pragma once

#include "fakeapi/client/json.h"
#include "sim/cluster/program.h"
#include "sim/cluster/scheduler.h"
#include "sim/cluster/simulation.h"
#include "sim/harness/run/run_record.h"

#include <map>
#include <optional>
#include <string>
#include <unordered_map>

namespace harness {

class FaultInjector;
class InvariantChecker;

class Recorder : public sim::Actor {
 public:
  Recorder(sim::Simulation& sim, RunRecord& record, FaultInjector& faults);

  void Start() override;

  // The job's record, made (and put in submission order) when first asked for.
  JobRecord& Job(const JobKey& key);
  // The run is over: closes every open running interval and computes the GPUs-in-use timeline.
  void Finish();
  // Snapshots every ConfigMap in the API into the record.
  void SnapshotConfigMaps();
  // The pods it follows: those seen and not yet deleted (a deleted pod's record stays in the
  // RunRecord; what the recorder kept to account for it goes).
  std::size_t PodsTracked() const { return pods_.size(); }

 private:
  struct PodInfo {
    std::size_t record = 0;  // the pod's index in RunRecord::pods
    std::optional<JobKey> job;
    std::int64_t gpus = 0;
    std::optional<Micros> running_since;
    bool ended = false;
  };

  void OnJob(const kube::Json& job);
  void OnJobDeleted(const kube::Json& job);
  void OnPod(const kube::Json& pod);
  void OnPodDeleted(const kube::Json& pod);
  void OnConfigMap(const kube::Json& cm);
  // The pod's record for the reports: when it was first seen and bound, its phase, its containers.
  void RecordPod(PodRecord& record, const kube::Json& pod);
  // The earliest startedAt (or, with `finished`, the latest finishedAt) of the app containers in
  // `state` ("running", "terminated"), in simulated time; nullopt when none is written.
  std::optional<Micros> StatusTime(const kube::Json& pod, const char* state, bool finished);
  // The pod stopped holding its GPUs at `end` (default now).
  void Stop(PodInfo& info, std::optional<Micros> end = std::nullopt);

  RunRecord& record_;
  FaultInjector& faults_;
  // The pods seen and not deleted, by uid: looked up once per pod event, so hashed (Finish, the
  // one walk over them, takes them in uid order).
  std::unordered_map<std::string, PodInfo> pods_;
};

class StageObserver : public sim::WorkloadObserver {
 public:
  StageObserver(RunRecord& record, InvariantChecker& checker) : record_(record), checker_(checker) {}
  void OnStage(const kube::Json& pod, std::string_view stage, Micros begin, Micros end) override;
  void OnMemory(const kube::Json& pod, std::string_view container, std::int64_t bytes) override;

 private:
  JobRecord* JobOf(const kube::Json& pod);
  RunRecord& record_;
  InvariantChecker& checker_;
};

// Sum of the containers' nvidia.com/gpu limits (a request stands in for a missing limit).
std::int64_t GpusOf(const kube::Json& pod);

}  // namespace harness
