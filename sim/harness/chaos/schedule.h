// The fault schedule of one chaos seed (`dglsim chaos`): faults of every kind the simulator has,
// drawn at random times and on random targets of the scenario, from the seed alone.
//
// What is drawn, per seed (RandomStream "chaos-schedule" of the seed; nothing else is read):
// - for each kind, in FaultKind order, a count from a Poisson law whose mean is the kind's rate
//   (ChaosRates::per_seed; 0 turns the kind off), at most kMaxFaultsPerKind;
// - for each fault its trigger: `at` a whole second in [0, until * window), or, for half of them when
//   the scenario has jobs, `when` a random job enters a random phase of Pending, Partitioning,
//   Partitioned or Training, `after` 0 to 10 min;
// - its target and strength: NodeDown a node of the cluster (or, one time in four, `nodeOf` a pod a
//   job creates), NodeUp a node, PodKill (exit code 1 or 137) and OOM a pod a job creates,
//   ImagePullError every image ("*") on one node or all, NetworkSlow one node or all with a factor in
//   [0.05, 1], ApiFaults conflict / error / timeout rates up to the maxima (multiples of 0.001) and,
//   one time in three, a latency up to 200 ms, WatchDrop, OperatorRestart down 5 s (half the time)
//   or 1 s to 2 min;
// - every fault that can be undone is (`for` 1 s to max_for, whole seconds): a node left down or an
//   image never pullable makes a job that cannot finish, which is no bug. Times, durations, rates
//   and factors are drawn on grids a scenario file writes exactly, so a drawn schedule written as a
//   scenario (scenario_file.h) replays bit for bit.
// The drawn faults come sorted by `at` (stably), `when` faults last; field paths are
// "faults[<first_index + i>]".
#pragma once

#include "sim/harness/config/scenario.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace harness::chaos {

inline constexpr int kMaxFaultsPerKind = 1000;

struct ChaosRates {
  // Mean number of faults of each kind per seed. Missing kinds: 0.
  std::map<FaultKind, double> per_seed = DefaultPerSeed();
  double max_conflict_rate = 0.3;  // ApiFaults
  double max_error_rate = 0.05;
  double max_timeout_rate = 0.02;
  // Longest `for` of a fault; nullopt: a quarter of the scenario's `until`.
  std::optional<Micros> max_for;
  // Faults triggered `at` a time start before until * window.
  double window = 0.5;

  static std::map<FaultKind, double> DefaultPerSeed();
};

// Every fault kind, in FaultKind (schema) order, and the kind named `name` ("NodeDown").
const std::vector<FaultKind>& AllFaultKinds();
std::optional<FaultKind> FaultKindNamed(const std::string& name);

// The faults of chaos seed `seed` for `scenario`. Deterministic: the same scenario, rates and seed
// give the same faults. `first_index` numbers their field paths (the scenario's own faults come first).
std::vector<FaultSpec> DrawFaults(const Scenario& scenario, const ChaosRates& rates, std::uint64_t seed,
                                  std::size_t first_index = 0);

}  // namespace harness::chaos
