// A live run is a scenario run that other threads can look at and write to while it goes, as
// `dglsim serve` does over HTTP. The simulation is assembled exactly as RunScenario assembles it
// (it *is* RunScenario, with RunOptions::drive taking over the loop), then stepped in short slices
// paced to the wall clock. Every slice runs under a SimLock; other threads do their work on the
// store (or on any actor) only through the same SimLock, between slices, so the single-threaded
// simulation never sees two threads at once.
//
// Pacing: with a speed S, simulated time advances S seconds per wall second from the start. With
// fast forward (`--speed max`), it runs as fast as it can, in steps of the runner's check interval
// as `dglsim run` takes them. Either way simulated time stops where `dglsim run` of the same
// scenario and seed stops, so that what clients see is what the run reports: at the scenario's
// `until`, or at the scenario's end (every entry applied, every job terminal, no controller's armed
// timer, see runner.h; and no DGLJob in the API neither Succeeded nor Failed) once the settle
// period after it has passed, or when nothing is left to happen at all. A write from a client
// while time stands still at the end (kubectl creating a job) starts it again, up to `until`; at
// `until` it stays stopped. `on_time_stopped` says when it stops. Only `should_stop` ends a live
// run.
//
// Timestamps: `epoch` is the API time at simulated time 0 (`dglsim serve` passes the wall clock's
// now, so that ages read as a user expects; a run's default otherwise).
//
// The wall clock is read here (and in the HTTP server) only: the simulation itself never sees it.
#pragma once

#include "sim/harness/config/scenario.h"
#include "sim/harness/run/runner.h"

#include <atomic>
#include <functional>
#include <mutex>
#include <optional>

namespace fakeapi {
class AuditLog;
class Store;
}

namespace harness {

// Mutual exclusion between the simulation thread and request threads, in which waiting requests
// go before the simulation's next slice (a plain mutex would let the simulation take it back at
// once, slice after slice).
class SimLock {
 public:
  // For request threads: runs `work` between two slices of the simulation.
  void Run(const std::function<void()>& work);
  // For the simulation thread.
  void lock() { mu_.lock(); }
  void unlock() { mu_.unlock(); }
  // For the simulation thread, not holding the lock: returns once no request is waiting for it.
  void LetRequestsIn();

 private:
  std::mutex mu_;
  std::atomic<int> waiting_{0};
};

struct LiveOptions {
  std::optional<std::uint64_t> seed;  // overrides the scenario's
  double speed = 1.0;                 // simulated seconds per wall second (> 0)
  bool fast_forward = false;          // `--speed max` (see above); `speed` is then unused
  SimLock* lock = nullptr;            // required
  // Called once the simulation has started, under the lock: start serving here.
  std::function<void(sim::Simulation&)> on_start;
  // Called between slices, without the lock; the run ends once it returns true. Required.
  std::function<bool()> should_stop;
  // Called without the lock once the simulation has stopped stepping, before it is torn down: stop
  // servers that use it here (their request threads may still be waiting for the lock).
  std::function<void(sim::Simulation&)> on_stop;
  // Called under the lock each time simulated time stops; `why` is "until", "end" (the scenario's
  // end and its settle period) or "idle" (nothing left to happen).
  std::function<void(sim::Simulation&, const char* why)> on_time_stopped;
  std::optional<Micros> epoch;  // the API time at simulated time 0 (default: RunOptions')
  fakeapi::AuditLog* audit = nullptr;  // RunOptions::audit: the simulation's API calls are logged there
};

// Runs the scenario live until options.should_stop() and returns its record. Never throws.
RunRecord RunLive(const Scenario& scenario, const LiveOptions& options);

// Whether any DGLJob in the store is neither Succeeded nor Failed.
bool AnyJobInFlight(fakeapi::Store& store);

}  // namespace harness
