// The whole simulated cluster at scale.
//
// BM_ClusterWeek: N GPU nodes, each with its kubelet, the scheduler and the node lifecycle
// controller, running P annotation-driven pods that arrive over a simulated week and each run
// 30 min to 2 h (no operator, no DGL models). Design targets: 1,000 nodes and ~10,000 pods over a
// week in under 5 s, ~100,000 pods in under 60 s, on one core.
//
// BM_FleetScenario: a scale scenario of scenarios/scale/ run whole, as `dglsim run` runs it (the
// operator, the DGL workload models, the recorder and the invariant checker included):
// fleet-day (50 nodes, 50 DGLJobs) and, by name (--benchmark_filter=FleetWeek), fleet-week
// (1,000 nodes, 1,000 DGLJobs, ~14,000 pods over six days; the performance target: under 1 s and
// 300 MB on one core).
//
// Each reports CPU time, engine events and API writes per second of CPU, simulated seconds per
// second of CPU, and the peak resident memory of the process (VmHWM: the largest of every case
// run before it in the same process, so run the big ones alone).
#include "sim/cluster/cluster.h"
#include "sim/cluster/kubelet.h"
#include "sim/cluster/node_lifecycle.h"
#include "sim/cluster/scheduler.h"
#include "sim/harness/config/scenario.h"
#include "sim/harness/run/runner.h"

#include <benchmark/benchmark.h>

#include <fstream>
#include <string>

namespace sim {
namespace {

using json = kube::Json;

double PeakRssMiB() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  return 0;
}

void BM_ClusterWeek(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  const int pods = static_cast<int>(state.range(1));
  std::uint64_t events = 0;
  std::int64_t writes = 0, succeeded = 0;
  for (auto _ : state) {
    state.PauseTiming();
    auto sim = std::make_unique<Simulation>(SimulationOptions{.seed = 7, .history_limit = 10'000, .trace = {.keep_records = false}});
    Cluster cluster(*sim);
    NodeTemplate t;
    t.name = "gpu";
    t.count = nodes;
    t.capacity = {{"cpu", "96"}, {"memory", "768Gi"}, {"nvidia.com/gpu", "8"}, {"ephemeral-storage", "2Ti"}};
    if (!cluster.AddNodes(t).ok()) state.SkipWithError("nodes");
    sim->AddActor<Scheduler>();
    sim->AddActor<NodeLifecycleController>(cluster);
    for (const auto& [name, spec] : cluster.specs())
      sim->AddActor<Kubelet>(KubeletConfig{.node_name = name, .pod_cidr = spec.pod_cidr, .preloaded_images = {"trainer:v1"}});
    auto& rng = sim->Random("bench/arrivals");
    for (int i = 0; i < pods; ++i) {
      Micros at = rng.UniformInt(0, 7 * 24 * kHour);
      std::string duration = std::to_string(rng.UniformInt(30, 120)) + "m";
      json pod = {{"metadata", {{"name", "p-" + std::to_string(i)}, {"namespace", "default"},
                                {"annotations", {{"dglsim.io/duration", duration}}}}},
                  {"spec", {{"restartPolicy", "Never"},
                            {"containers", json::array({{{"name", "main"}, {"image", "trainer:v1"},
                                                         {"resources", {{"requests", {{"cpu", "8"}, {"memory", "64Gi"},
                                                                                      {"nvidia.com/gpu", "1"}}}}}}})}}}};
      Simulation* s = sim.get();
      sim->engine().ScheduleAt(at, [s, pod = std::move(pod)]() mutable { s->store().Create("pods", std::move(pod)); });
    }
    sim->Start();
    std::uint64_t before = sim->engine().events_executed();
    std::int64_t writes_before = sim->store().Stats().writes;
    state.ResumeTiming();

    sim->RunUntil(8 * 24 * kHour);

    state.PauseTiming();
    events += sim->engine().events_executed() - before;
    writes += sim->store().Stats().writes - writes_before;
    auto done = sim->store().List("pods", {.field_selector = "status.phase=Succeeded"});
    succeeded = done.ok() ? static_cast<std::int64_t>(done->items.size()) : 0;
    if (succeeded != pods) state.SkipWithError("not every pod succeeded");
    sim.reset();
    state.ResumeTiming();
  }
  state.counters["events_per_s"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
  state.counters["api_writes_per_s"] = benchmark::Counter(static_cast<double>(writes), benchmark::Counter::kIsRate);
  state.counters["events"] = static_cast<double>(events);
  state.counters["succeeded"] = static_cast<double>(succeeded);
  state.counters["peak_rss_MiB"] = PeakRssMiB();
}
BENCHMARK(BM_ClusterWeek)
    ->Args({100, 1000})
    ->Args({1000, 10000})
    ->ArgNames({"nodes", "pods"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1);

// The 100,000-pod target; run it by name: --benchmark_filter=ClusterWeekLarge
BENCHMARK(BM_ClusterWeek)
    ->Name("BM_ClusterWeekLarge")
    ->Args({1000, 100000})
    ->ArgNames({"nodes", "pods"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1);

void BM_FleetScenario(benchmark::State& state, const char* file) {
  const std::string path = std::string(DGLSIM_SOURCE_DIR) + "/scenarios/scale/" + file;
  harness::ScenarioLoad load = harness::LoadScenario(path);
  if (!load.ok()) {
    state.SkipWithError(("cannot load " + path).c_str());
    return;
  }
  harness::RunRecord record;
  for (auto _ : state) record = harness::RunScenario(*load.scenario);
  const double runs = static_cast<double>(state.iterations());
  state.counters["events_per_s"] = benchmark::Counter(static_cast<double>(record.events) * runs, benchmark::Counter::kIsRate);
  state.counters["api_writes_per_s"] = benchmark::Counter(static_cast<double>(record.api_writes) * runs, benchmark::Counter::kIsRate);
  state.counters["sim_s_per_s"] = benchmark::Counter(static_cast<double>(record.end) / kube::kSecond * runs, benchmark::Counter::kIsRate);
  state.counters["events"] = static_cast<double>(record.events);
  state.counters["api_writes"] = static_cast<double>(record.api_writes);
  state.counters["jobs"] = static_cast<double>(record.jobs.size());
  state.counters["peak_rss_MiB"] = PeakRssMiB();
  state.SetLabel("trace " + record.trace_hash);
}
BENCHMARK_CAPTURE(BM_FleetScenario, FleetDay, "fleet-day.yaml")->Unit(benchmark::kMillisecond)->Iterations(1);
// 1,000 nodes, 1,000 DGLJobs over six days; run it by name: --benchmark_filter=FleetWeek
BENCHMARK_CAPTURE(BM_FleetScenario, FleetWeek, "fleet-week.yaml")->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
}  // namespace sim

BENCHMARK_MAIN();
