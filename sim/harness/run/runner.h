// RunScenario turns a loaded Scenario into one run of the simulated cluster and returns its
// RunRecord (run_record.h). It is small on purpose; the parts it strings together are:
//
// - World (world.h): the simulation's parts, built in order and owned so that each dies before
//   what it uses: the Simulation, the cluster, the actors (kubelets, node lifecycle controller,
//   scheduler, the DGL operator), the invariant checker, the fault injector, the recorder, the
//   job driver and the pod-count probes.
// - The run loop (below): simulated time in steps of `check_interval` until `until`, or until the
//   scenario is done: every job entry applied, every submitted job terminal (Succeeded / Failed) or
//   deleted, and no actor holding armed work (Actor::HasPendingWork: the operator's requeue-after
//   for a TTL or a deadline, a pending eviction). It then runs a settle period (kSettle, at most to
//   `until`) so that cleanup and garbage collection are seen by `pods ... at: end` expectations.
// - The end of the run (World::Finish, end_of_run.h): the recorder's open intervals closed, the
//   end-of-run invariants, pod counts at the end, ConfigMaps, why any job is not done, and the
//   run's figures (events, API writes, trace hash).
//
// REQUIRES: single-threaded use. Nothing here throws on any scenario the loader accepted.
#pragma once

#include "sim/harness/config/scenario.h"
#include "sim/harness/run/run_record.h"

#include <cstdint>
#include <functional>
#include <optional>

namespace sim {
class Simulation;
}  // namespace sim
namespace fakeapi {
class AuditLog;
}  // namespace fakeapi

namespace harness {

// How long the run goes on once the scenario is done (pod cleanup, graceful deletion, GC).
inline constexpr Micros kSettle = 5 * 60 * kube::kSecond;
// How often the run loop looks whether the scenario is done (RunOptions::check_interval's default).
inline constexpr Micros kRunCheckInterval = 10 * kube::kSecond;

struct RunOptions {
  std::optional<std::uint64_t> seed;  // overrides the scenario's
  // Step of the run loop: how often the runner looks whether the scenario is done.
  Micros check_interval = kRunCheckInterval;
  // The API time at simulated time 0 (creation timestamps, conditions' times); unset: 2026-01-01
  // (kube::ManualClock::kDefaultStart), so that runs are reproducible to the byte. Only what the
  // API shows depends on it, never the course of the run.
  std::optional<Micros> epoch;
  // Where the run's API calls are logged in kube-apiserver's audit format (sim::SimulationOptions::audit);
  // null: nowhere. It must outlive the run.
  fakeapi::AuditLog* audit = nullptr;
  // Called once the run is assembled, before it starts: tests schedule writes of their own into
  // the run (to make an invariant fire, say).
  std::function<void(sim::Simulation&)> before_start;
  // Set by `dglsim serve` (sim/harness/run/live_run.h): called right after the simulation started, in
  // place of the runner's loop; it steps `sim` itself and returns when the run should end.
  // `scenario_done()` says whether the scenario is done (see above). The record is then completed
  // as after any run.
  std::function<void(sim::Simulation& sim, const std::function<bool()>& scenario_done)> drive;
  // For a process that exits right after the run (`dglsim run`): the simulation is not torn down
  // but left to the process's exit, which returns its memory at once. Freeing every stored object,
  // version and cache one by one is about 5 % of a fleet week's CPU. It stays reachable (from a
  // static list), so leak checkers do not report it.
  bool leave_to_exit = false;
  // Called after each step of the runner's loop (every `check_interval` of simulated time), e.g.
  // to say how far a long run has come. It must not change the simulation: it only reads.
  std::function<void(sim::Simulation& sim)> after_step;
};

// Runs the scenario to its end and returns the record. Never throws.
RunRecord RunScenario(const Scenario& scenario, const RunOptions& options = {});

}  // namespace harness
