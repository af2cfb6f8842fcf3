// A live run is a scenario run that other threads can look at and write to while it goes, as
// `dglsim serve` does over HTTP. The simulation is assembled exactly as RunScenario assembles it
// (it *is* RunScenario, with RunOptions::drive taking over the loop), then stepped in short slices
// paced to the wall clock. Every slice runs under a SimLock; other threads do their work on the
// store (or on any actor) only through the same SimLock, between slices, so the single-threaded
// simulation never sees two threads at once.
//
// Pacing: with a speed S, simulated time advances S seconds per wall second from the start. With
// fast forward (`--speed max`), it runs as fast as it can while anything is in flight (the scenario
// not done: an entry not yet applied, a job not terminal, a controller's armed timer, see runner.h;
// a DGLJob in the API neither Succeeded nor Failed; or the settle period after the last of those),
// and at speed 1 otherwise, so that a job created later also runs to its end at once. The
// scenario's `until` does not end a live run; only `should_stop` does.
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
};

// Runs the scenario live until options.should_stop() and returns its record. Never throws.
RunRecord RunLive(const Scenario& scenario, const LiveOptions& options);

// Whether any DGLJob in the store is neither Succeeded nor Failed.
bool AnyJobInFlight(fakeapi::Store& store);

}  // namespace harness
