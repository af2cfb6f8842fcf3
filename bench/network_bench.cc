// Speed of the flow-level network model: 10,000 flows over 1,000 nodes starting and ending, each
// start and end re-rating the flows it shares links with. Items per second are flows per second
// (start + max-min re-rating + completion). Counters: re-rate passes, the share of them that were
// one-link re-rates (network.h), and the mean number of flows each pass re-rated (the size of the
// connected component it touched).
//
// Traffic patterns:
//   - JobLocal: flows between nodes of the same 8-node job (DGL workers exchanging partitions);
//     components stay small, which is the case the model is built for.
//   - AllToAll: sources and destinations drawn from all 1,000 nodes; with ~10 flows per NIC the
//     flows form one giant component, so every start and end re-rates most live flows.
//   - StorageFanIn: every flow a download from the shared store, all in one component.
// Arrivals are spread over `window` simulated seconds (range argument, 0 = all at once), so the
// number of flows alive together goes from all 10,000 down to a few hundred (except for the
// storage fan-in, where the store's 100 GB/s keeps most flows alive for the whole run).
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "sim/kernel/engine.h"
#include "sim/kernel/random.h"
#include "sim/network/network.h"

namespace {

constexpr int kNodes = 1000;
constexpr int kFlows = 10'000;
constexpr double kNicBps = 12.5e9;  // 100 Gbit/s, the reference machines of docs/models.md
constexpr double kDiskBps = 2e9;

enum class Pattern { kJobLocal, kAllToAll, kStorageFanIn };

struct Planned {
  sim::Micros at;
  int src;
  int dst;
  double bytes;
};

std::vector<Planned> Plan(Pattern pattern, sim::Micros window) {
  sim::RandomStream rng(7);
  std::vector<Planned> plan;
  plan.reserve(kFlows);
  for (int i = 0; i < kFlows; ++i) {
    Planned p;
    p.at = window > 0 ? rng.UniformInt(0, window) : 0;
    p.bytes = rng.Uniform(0.1e9, 2e9);
    if (pattern == Pattern::kJobLocal) {
      const int job = static_cast<int>(rng.UniformInt(0, kNodes / 8 - 1));
      p.src = job * 8 + static_cast<int>(rng.UniformInt(0, 7));
      p.dst = job * 8 + static_cast<int>(rng.UniformInt(0, 7));
    } else {
      p.src = static_cast<int>(rng.UniformInt(0, kNodes - 1));
      p.dst = static_cast<int>(rng.UniformInt(0, kNodes - 1));
    }
    if (p.dst == p.src) p.dst = pattern == Pattern::kJobLocal ? p.src / 8 * 8 + (p.src % 8 + 1) % 8 : (p.src + 1) % kNodes;
    plan.push_back(p);
  }
  return plan;
}

void RunPattern(benchmark::State& state, Pattern pattern) {
  const sim::Micros window = state.range(0) * kube::kSecond;
  const std::vector<Planned> plan = Plan(pattern, window);
  std::vector<std::string> names;
  for (int i = 0; i < kNodes; ++i) names.push_back("node-" + std::to_string(i));
  std::uint64_t rerates = 0;
  std::uint64_t one_link = 0;
  std::uint64_t rerated = 0;
  std::uint64_t completed = 0;
  sim::Micros makespan = 0;
  for (auto _ : state) {
    sim::Engine engine;
    sim::Network net(engine, sim::NetworkConfig{.storage_bps = 100e9});
    for (const std::string& name : names) net.AddNode(name, kNicBps, kDiskBps);
    for (const Planned& p : plan) {
      engine.ScheduleAt(p.at, [&net, &names, &p, pattern] {
        const sim::Endpoint src = pattern == Pattern::kStorageFanIn ? sim::Endpoint::Storage()
                                                                    : sim::Endpoint::Memory(names[p.src]);
        net.StartFlow({src, sim::Endpoint::Memory(names[p.dst]), p.bytes});
      });
    }
    engine.RunUntilIdle();
    rerates = net.rerates();
    one_link = net.rerates_one_link();
    rerated = net.flows_rerated();
    completed = net.flows_completed();
    makespan = engine.Now();
  }
  if (completed != kFlows) state.SkipWithError("not every flow completed");
  state.SetItemsProcessed(state.iterations() * kFlows);
  state.counters["rerates"] = static_cast<double>(rerates);
  state.counters["one_link_share"] = rerates == 0 ? 0 : static_cast<double>(one_link) / static_cast<double>(rerates);
  state.counters["flows_per_rerate"] = rerates == 0 ? 0 : static_cast<double>(rerated) / rerates;
  state.counters["sim_seconds"] = static_cast<double>(makespan) / kube::kSecond;
}

void BM_JobLocal(benchmark::State& state) { RunPattern(state, Pattern::kJobLocal); }
void BM_AllToAll(benchmark::State& state) { RunPattern(state, Pattern::kAllToAll); }
void BM_StorageFanIn(benchmark::State& state) { RunPattern(state, Pattern::kStorageFanIn); }

// The re-rate performance target: 5,000 long downloads from the shared store (one link, one component)
// stay alive while one more flow starts and is cancelled, again and again; each start and each
// cancel changes the storage's share for all of them (each is a one-link re-rate, network.h).
// Items per second are re-rates per second (target 50,000).
void BM_OneLinkRerate(benchmark::State& state) {
  const int flows = static_cast<int>(state.range(0));
  sim::Engine engine;
  sim::Network net(engine, sim::NetworkConfig{.storage_bps = 1e9});
  std::vector<std::string> names;
  for (int i = 0; i < kNodes; ++i) names.push_back("node-" + std::to_string(i));
  for (const std::string& name : names) net.AddNode(name, kNicBps, kDiskBps);
  for (int i = 0; i < flows; ++i) net.StartFlow({sim::Endpoint::Storage(), sim::Endpoint::Memory(names[i % kNodes]), 1e15});
  engine.Step();  // the first re-rate of all of them
  const std::uint64_t before = net.rerates();
  int k = 0;
  for (auto _ : state) {
    sim::FlowId extra = net.StartFlow({sim::Endpoint::Storage(), sim::Endpoint::Memory(names[k++ % kNodes]), 1e15});
    engine.Step();
    net.CancelFlow(extra);
    engine.Step();
  }
  const double rerates = static_cast<double>(net.rerates() - before);
  state.counters["rerates_per_s"] = benchmark::Counter(rerates, benchmark::Counter::kIsRate);
  state.counters["one_link_share"] = static_cast<double>(net.rerates_one_link()) / std::max(rerates, 1.0);
  state.counters["flows_per_rerate"] = static_cast<double>(net.flows_rerated()) / static_cast<double>(std::max<std::uint64_t>(net.rerates(), 1));
}
BENCHMARK(BM_OneLinkRerate)->Arg(5000)->Unit(benchmark::kMillisecond);

// The epoch performance target: all-to-all traffic between 64 workers (4,032 flows) each epoch, as the
// tri-role training's remote features and sampled blocks. One iteration is one epoch: every flow
// starts at once, the epoch ends when the last is done. The second argument spreads the flows'
// sizes by +-that percent (0: all equal, so they all end together; 20: each ending re-rates the
// others). The third is the network's rerate_window in parts per thousand (0: exact). Items per
// second are epochs per second; `epoch_s` is the epoch's simulated length, which the window makes
// longer (compare it with the exact run's).
void BM_EpochAllToAll(benchmark::State& state) {
  const int workers = static_cast<int>(state.range(0));
  const double spread = static_cast<double>(state.range(1)) / 100;
  sim::Engine engine;
  sim::Network net(engine, {.rerate_window = static_cast<double>(state.range(2)) / 1000});
  std::vector<std::string> names;
  for (int i = 0; i < workers; ++i) names.push_back("worker-" + std::to_string(i));
  for (const std::string& name : names) net.AddNode(name, kNicBps, kDiskBps);
  sim::RandomStream rng(11);
  std::vector<double> bytes;
  for (int i = 0; i < workers * (workers - 1); ++i) bytes.push_back(100e6 * (1 + rng.Uniform(-spread, spread)));
  std::uint64_t rerates = 0;
  sim::Micros epoch = 0;
  for (auto _ : state) {
    const std::uint64_t before = net.rerates();
    const sim::Micros begin = engine.Now();
    std::size_t k = 0;
    for (int i = 0; i < workers; ++i) {
      for (int j = 0; j < workers; ++j) {
        if (i != j) net.StartFlow({sim::Endpoint::Memory(names[i]), sim::Endpoint::Memory(names[j]), bytes[k++]});
      }
    }
    engine.RunUntilIdle();
    rerates = net.rerates() - before;
    epoch = engine.Now() - begin;
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["flows"] = static_cast<double>(workers * (workers - 1));
  state.counters["rerates_per_epoch"] = static_cast<double>(rerates);
  state.counters["epoch_s"] = static_cast<double>(epoch) / 1e6;
}
BENCHMARK(BM_EpochAllToAll)
    ->Args({64, 0, 0})
    ->Args({64, 20, 0})
    ->Args({64, 20, 1})
    ->Args({64, 20, 10})
    ->Unit(benchmark::kMillisecond);

BENCHMARK(BM_JobLocal)->Arg(0)->Arg(5)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AllToAll)->Arg(0)->Arg(5)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_StorageFanIn)->Arg(0)->Arg(5)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
