// One run of a scenario: a World, the run loop, the end of the run. See runner.h.
#include "sim/harness/run/runner.h"

#include "sim/cluster/simulation.h"
#include "sim/harness/run/world.h"

#include <algorithm>
#include <memory>
#include <vector>

namespace harness {
namespace {

// Steps of `check_interval` until `until` or until the scenario is done, then the settle period.
void RunToEnd(World& world, Micros until, const RunOptions& options) {
  sim::Simulation& sim = world.sim();
  const Micros step = std::max<Micros>(options.check_interval, kube::kMillisecond);
  while (sim.Now() < until) {
    sim.RunUntil(std::min(until, sim.Now() + step));
    if (options.after_step) options.after_step(sim);
    if (world.ScenarioDone()) {
      sim.RunUntil(std::min(until, sim.Now() + kSettle));
      return;
    }
    if (sim.engine().idle()) return;
  }
}

}  // namespace

RunRecord RunScenario(const Scenario& scenario, const RunOptions& options) {
  RunRecord record;
  record.scenario = scenario.name;
  record.description = scenario.description;
  record.labels = scenario.labels;
  record.annotations = scenario.annotations;
  record.seed = options.seed.value_or(scenario.seed);
  auto world = std::make_unique<World>(scenario, record, record.seed, options.epoch, options.audit);
  if (options.before_start) options.before_start(world->sim());
  world->Start();
  if (options.drive)  // `dglsim serve` steps the run itself
    options.drive(world->sim(), [&world] { return world->ScenarioDone(); });
  else
    RunToEnd(*world, scenario.until, options);
  world->Finish(scenario.until);
  if (options.leave_to_exit) {
    // Reachable from a static pointer, and never destroyed: not even by the exit's destructors.
    static auto* left = new std::vector<std::unique_ptr<World>>();
    left->push_back(std::move(world));
  }
  return record;
}

}  // namespace harness
