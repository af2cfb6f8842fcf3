// The simulated scheduler at cluster scale: 10,000 pods (every other one asking for a GPU) onto
// 100 to 100,000 eight-GPU nodes, in simulated time, with kube-scheduler's adaptive
// percentageOfNodesToScore (percentage 0) or every node looked at (100, where the nodes of one
// state are checked once for them all). Reports engine events per wall second, wall time per pod,
// filter checks per second and per pod, and the simulated time the whole placement took.
#include "sim/cluster/cluster.h"
#include "sim/cluster/scheduler.h"

#include <benchmark/benchmark.h>

#include <string>

namespace sim {
namespace {

using json = kube::Json;

void BM_SchedulePods(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  const int pods = static_cast<int>(state.range(1));
  const auto scoring = state.range(2) ? ScoringPolicy::kMostAllocated : ScoringPolicy::kLeastAllocated;
  const int percentage = static_cast<int>(state.range(3));
  std::uint64_t events = 0;
  std::int64_t evaluated = 0;
  Micros simulated = 0;
  for (auto _ : state) {
    state.PauseTiming();
    auto sim = std::make_unique<Simulation>(SimulationOptions{.trace = {.keep_records = false}});
    Cluster cluster(*sim);
    NodeTemplate t;
    t.name = "gpu";
    t.count = nodes;
    t.capacity = {{"cpu", "96"}, {"memory", "768Gi"}, {"nvidia.com/gpu", "8"}, {"ephemeral-storage", "2Ti"}};
    if (!cluster.AddNodes(t).ok()) state.SkipWithError("nodes");
    auto& scheduler = sim->AddActor<Scheduler>(SchedulerConfig{.scoring = scoring, .percentage_of_nodes_to_score = percentage});
    sim->Start();
    std::uint64_t before = sim->engine().events_executed();
    state.ResumeTiming();

    for (int i = 0; i < pods; ++i) {
      json requests = {{"cpu", "2"}, {"memory", "8Gi"}};
      if (i % 2 == 0) requests["nvidia.com/gpu"] = 1;
      sim->store().Create("pods", {{"metadata", {{"name", "p-" + std::to_string(i)}, {"namespace", "default"}}},
                                   {"spec",
                                    {{"containers", json::array({{{"name", "main"},
                                                                  {"image", "dgloperator/examples:graphsage-dist"},
                                                                  {"resources", {{"requests", requests}}}}})}}}});
    }
    sim->RunUntilIdle();

    state.PauseTiming();
    if (scheduler.stats().bound != pods) state.SkipWithError("not every pod was bound");
    events += sim->engine().events_executed() - before;
    evaluated += scheduler.stats().nodes_evaluated;
    simulated = sim->Now();
    sim.reset();
    state.ResumeTiming();
  }
  state.counters["events_per_s"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
  state.counters["pods_per_s"] =
      benchmark::Counter(static_cast<double>(pods) * state.iterations(), benchmark::Counter::kIsRate);
  // Wall microseconds per pod: the inverse of a rate counted in millionths of a pod.
  state.counters["wall_us_per_pod"] =
      benchmark::Counter(static_cast<double>(pods) * state.iterations(),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert, benchmark::Counter::kIs1000);
  state.counters["node_checks_per_s"] = benchmark::Counter(static_cast<double>(evaluated), benchmark::Counter::kIsRate);
  state.counters["checks_per_pod"] = static_cast<double>(evaluated) / (static_cast<double>(pods) * state.iterations());
  state.counters["simulated_s"] = static_cast<double>(simulated) / kSecond;
}
BENCHMARK(BM_SchedulePods)
    ->Args({1000, 10000, 0, 0})
    ->Args({1000, 10000, 1, 0})
    ->Args({1000, 10000, 0, 100})
    ->Args({100, 1000, 0, 0})
    ->Args({10000, 10000, 0, 0})
    ->Args({10000, 10000, 0, 100})
    ->Args({100000, 10000, 0, 0})
    ->Args({100000, 10000, 0, 100})
    ->ArgNames({"nodes", "pods", "most_allocated", "percentage"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1);

}  // namespace
}  // namespace sim

BENCHMARK_MAIN();
