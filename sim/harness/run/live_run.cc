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

namespace {

// Where a live run's simulated time stands: running, or stopped at `until` or at the scenario's end.
class LiveClock {
 public:
  LiveClock(sim::Simulation& sim, const LiveOptions& options, Micros until)
      : sim_(sim), options_(options), until_(until), speed_(options.fast_forward ? 1.0 : std::max(options.speed, 1e-6)) {
    Rebase();
  }

  // One slice under the lock; false when nothing was to be done (time stopped, or caught up).
  bool Slice(const std::function<bool()>& scenario_done) {
    if (stopped_) {
      // A write since (kubectl's: the simulation does not step while stopped) starts the clock
      // again, up to until.
      if (sim_.store().CurrentResourceVersion() == stopped_at_version_ || sim_.Now() >= until_) return false;
      stopped_ = false;
      settle_end_ = -1;
      Rebase();
    }
    if (sim_.Now() >= until_) return Stop("until");
    const bool in_flight = AnyJobInFlight(sim_.store());
    if (settle_end_ < 0 && scenario_done() && !in_flight) settle_end_ = std::min(until_, sim_.Now() + kSettle);
    if (settle_end_ >= 0 && (!scenario_done() || in_flight)) settle_end_ = -1;  // a new job
    const Micros limit = settle_end_ >= 0 ? settle_end_ : until_;
    if (sim_.Now() >= limit) return Stop(settle_end_ >= 0 ? "end" : "until");
    if (options_.fast_forward) {
      // Steps of the runner's check interval, as `dglsim run` takes them, for up to 20 ms of wall time.
      const auto slice_end = WallClock::now() + std::chrono::milliseconds(20);
      while (sim_.Now() < limit && WallClock::now() < slice_end) {
        sim_.RunUntil(std::min(limit, sim_.Now() + kRunCheckInterval));
        if (settle_end_ < 0 && scenario_done() && !AnyJobInFlight(sim_.store())) break;
        if (sim_.engine().idle() && settle_end_ < 0) return Stop("idle");
      }
      Rebase();
      return true;
    }
    const auto elapsed = std::chrono::duration_cast<std::chrono::microseconds>(WallClock::now() - wall_base_).count();
    const Micros target = std::min(limit, sim_base_ + static_cast<Micros>(static_cast<double>(elapsed) * speed_));
    // At most 20 ms of wall time's worth per slice, so that a simulation that fell behind still
    // lets requests in.
    const Micros chunk = std::max<Micros>(kube::kMillisecond, static_cast<Micros>(speed_ * 20'000));
    if (target > sim_.Now()) sim_.RunUntil(std::min(target, sim_.Now() + chunk));
    return sim_.Now() < target;
  }

 private:
  using WallClock = std::chrono::steady_clock;
  void Rebase() {
    wall_base_ = WallClock::now();
    sim_base_ = sim_.Now();
  }
  bool Stop(const char* why) {
    stopped_ = true;
    stopped_at_version_ = sim_.store().CurrentResourceVersion();
    if (options_.on_time_stopped) options_.on_time_stopped(sim_, why);
    return false;
  }

  sim::Simulation& sim_;
  const LiveOptions& options_;
  const Micros until_;
  const double speed_;
  // Simulated time `sim_base_` corresponds to wall time `wall_base_`.
  WallClock::time_point wall_base_;
  Micros sim_base_ = 0;
  Micros settle_end_ = -1;  // the scenario is done: time runs to here (its settle period), then stops
  bool stopped_ = false;
  std::int64_t stopped_at_version_ = 0;
};

}  // namespace

RunRecord RunLive(const Scenario& scenario, const LiveOptions& options) {
  RunOptions run;
  run.seed = options.seed;
  run.epoch = options.epoch;
  run.audit = options.audit;
  const Micros until = scenario.until;
  run.drive = [&options, until](sim::Simulation& sim, const std::function<bool()>& scenario_done) {
    SimLock& lock = *options.lock;
    {
      std::lock_guard<SimLock> guard(lock);
      if (options.on_start) options.on_start(sim);
    }
    LiveClock clock(sim, options, until);
    while (!options.should_stop()) {
      bool busy = false;
      {
        std::lock_guard<SimLock> guard(lock);
        busy = clock.Slice(scenario_done);
      }
      lock.LetRequestsIn();
      // Caught up with the wall clock, or time stopped: nothing to do for a moment. (Serving pace,
      // not a test sleep.)
      if (!busy) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    // Without the lock: stopping a server joins request threads that may be waiting for it.
    if (options.on_stop) options.on_stop(sim);
  };
  return RunScenario(scenario, run);
}

}  // namespace harness
