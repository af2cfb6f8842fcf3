// Raw speed of the simulation engine: how many events per second it schedules and runs, with and
// without heavy cancellation (timeouts that are mostly cancelled before they fire, as the
// scheduler's and kubelet's back-off timers are). Also the cost of random draws and trace hashing.
#include <cstdint>
#include <functional>
#include <vector>

#include <benchmark/benchmark.h>

#include "sim/kernel/engine.h"
#include "sim/kernel/random.h"
#include "sim/kernel/trace.h"

namespace {

// Schedules N events at pseudo-random times up front, then runs them all.
void BM_ScheduleThenRun(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  sim::RandomStream rng(1);
  std::vector<sim::Micros> times(n);
  for (auto& t : times) t = rng.UniformInt(0, 1'000'000'000);
  std::uint64_t sink = 0;
  for (auto _ : state) {
    sim::Engine engine;
    for (sim::Micros t : times) engine.ScheduleAt(t, [&sink] { ++sink; });
    engine.RunUntilIdle();
  }
  benchmark::DoNotOptimize(sink);
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_ScheduleThenRun)->Arg(10'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond);

// A steady state: a fixed population of actors, each of whose events schedules its successor, so
// the queue holds `width` events while 1M run.
void BM_SelfRescheduling(benchmark::State& state) {
  const std::int64_t width = state.range(0);
  const std::int64_t total = 1'000'000;
  for (auto _ : state) {
    sim::Engine engine;
    sim::RandomStream rng(2);
    std::int64_t remaining = total;
    std::function<void()> step = [&] {
      if (--remaining > 0) engine.Schedule(1 + rng.UniformInt(0, 999), step);
    };
    for (std::int64_t i = 0; i < width; ++i) engine.Schedule(rng.UniformInt(0, 999), step);
    engine.RunUntilIdle();
  }
  state.SetItemsProcessed(state.iterations() * total);
}
BENCHMARK(BM_SelfRescheduling)->Arg(1'000)->Arg(100'000)->Unit(benchmark::kMillisecond);

// Each of 1M events arms a timeout and cancels the previous one: 1M runs, ~1M cancellations.
void BM_CancelHeavy(benchmark::State& state) {
  const std::int64_t total = 1'000'000;
  for (auto _ : state) {
    sim::Engine engine;
    std::int64_t remaining = total;
    sim::EventId timeout;
    std::uint64_t timeouts_fired = 0;
    std::function<void()> work = [&] {
      engine.Cancel(timeout);
      timeout = engine.Schedule(1'000'000, [&] { ++timeouts_fired; });
      if (--remaining > 0) engine.Schedule(10, work);
    };
    engine.Schedule(0, work);
    engine.RunUntilIdle();
    benchmark::DoNotOptimize(timeouts_fired);
  }
  state.SetItemsProcessed(state.iterations() * total);
}
BENCHMARK(BM_CancelHeavy)->Unit(benchmark::kMillisecond);

// Schedules 1M events, cancels 90% of them at random, runs the rest.
void BM_ScheduleCancelMostRun(benchmark::State& state) {
  const std::int64_t n = 1'000'000;
  sim::RandomStream rng(3);
  std::vector<sim::Micros> times(n);
  std::vector<bool> cancel(n);
  for (std::int64_t i = 0; i < n; ++i) {
    times[i] = rng.UniformInt(0, 1'000'000'000);
    cancel[i] = rng.Bernoulli(0.9);
  }
  std::vector<sim::EventId> ids(n);
  for (auto _ : state) {
    sim::Engine engine;
    std::uint64_t ran = 0;
    for (std::int64_t i = 0; i < n; ++i) ids[i] = engine.ScheduleAt(times[i], [&ran] { ++ran; });
    for (std::int64_t i = 0; i < n; ++i) {
      if (cancel[i]) engine.Cancel(ids[i]);
    }
    engine.RunUntilIdle();
    benchmark::DoNotOptimize(ran);
  }
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_ScheduleCancelMostRun)->Unit(benchmark::kMillisecond);

void BM_RandomNormal(benchmark::State& state) {
  sim::RandomStream rng(4);
  for (auto _ : state) benchmark::DoNotOptimize(rng.Normal(0.0, 1.0));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_RandomNormal);

void BM_TraceRecordHashOnly(benchmark::State& state) {
  sim::Trace::Options options;
  options.keep_records = false;
  sim::Trace trace(options);
  sim::Micros t = 0;
  for (auto _ : state) trace.Record(++t, "api", "update pods default/job-worker-3 status");
  benchmark::DoNotOptimize(trace.hash());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_TraceRecordHashOnly);

}  // namespace

BENCHMARK_MAIN();
