// Slices of simulated time paced to the wall clock, around RunScenario's assembly.
#include "sim/harness/run/live_run.h"

#include "fakeapi/server/store.h"
#include "operator/api/vocabulary.h"
#include "sim/cluster/simulation.h"

#include <algorithm>
#include <chrono>
#include <thread>

namespace harness {

void SimLock::Run(const std::function<void()>& work) {
  ++waiting_;
  std::lock_guard<std::mutex> guard(mu_);
  --waiting_;
  work();
}

void SimLock::LetRequestsIn() {
  // A request that announced itself gets the lock before the next slice takes it; bounded so that
  // a steady stream of requests cannot stop the simulation altogether.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::milliseconds(50);
  while (waiting_.load() > 0 && std::chrono::steady_clock::now() < give_up) std::this_thread::yield();
}

bool AnyJobInFlight(fakeapi::Store& store) {
  auto jobs = store.List("dgljobs");
  if (!jobs.ok()) return false;
  for (const auto& job : jobs->items) {
    std::string phase;
    if (auto s = job->find("status"); s != job->end() && s->is_object())
      if (auto p = s->find("phase"); p != s->end() && p->is_string()) phase = p->get<std::string>();
    if (!dgl::IsTerminalPhase(phase)) return true;
  }
  return false;
}

RunRecord RunLive(const Scenario& scenario, const LiveOptions& options) {
  RunOptions run;
  run.seed = options.seed;
  run.drive = [&options](sim::Simulation& sim, const std::function<bool()>& scenario_done) {
    using WallClock = std::chrono::steady_clock;
    SimLock& lock = *options.lock;
    {
      std::lock_guard<SimLock> guard(lock);
      if (options.on_start) options.on_start(sim);
    }
    // Simulated time `sim_base` corresponds to wall time `wall_base`; fast forward moves both.
    auto wall_base = WallClock::now();
    Micros sim_base = sim.Now();
    Micros busy_until = -1;  // fast forward: simulated time up to which to keep racing
    const double speed = options.fast_forward ? 1.0 : std::max(options.speed, 1e-6);
    while (!options.should_stop()) {
      bool raced = false, behind = false;
      {
        std::lock_guard<SimLock> guard(lock);
        if (options.fast_forward) {
          if (!scenario_done() || AnyJobInFlight(sim.store())) busy_until = sim.Now() + kSettle;
          if (sim.Now() < busy_until) {
            // Slices of one simulated second for up to 20 ms of wall time, then let requests in.
            const auto slice_end = WallClock::now() + std::chrono::milliseconds(20);
            while (sim.Now() < busy_until && WallClock::now() < slice_end) sim.RunUntil(sim.Now() + kube::kSecond);
            wall_base = WallClock::now();
            sim_base = sim.Now();
            raced = true;
          }
        }
        if (!raced) {
          const auto elapsed = std::chrono::duration_cast<std::chrono::microseconds>(WallClock::now() - wall_base).count();
          const Micros target = sim_base + static_cast<Micros>(static_cast<double>(elapsed) * speed);
          // At most 20 ms of wall time's worth per slice, so that a simulation that fell behind
          // still lets requests in.
          const Micros chunk = std::max<Micros>(kube::kMillisecond, static_cast<Micros>(speed * 20'000));
          if (target > sim.Now()) sim.RunUntil(std::min(target, sim.Now() + chunk));
          behind = sim.Now() < target;
        }
      }
      lock.LetRequestsIn();
      // Caught up with the wall clock: nothing to do for a moment. (Serving pace, not a test sleep.)
      if (!raced && !behind) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    // Without the lock: stopping a server joins request threads that may be waiting for it.
    if (options.on_stop) options.on_stop(sim);
  };
  return RunScenario(scenario, run);
}

}  // namespace harness
