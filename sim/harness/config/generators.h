// Seeded generators a scenario can ask for instead of listing every event by hand, drawn when the
// scenario is loaded from the run's seed (the file's `seed`, or the seed given to LoadScenario):
//
// - Job arrivals (`arrivals:`): submit times from a Poisson process (exponential gaps with a mean
//   interval) or from a trace file of submit times, each job a copy of one of the arrival's
//   templates, picked by weight unless the trace line names it.
// - Node failures (`cluster.nodes[].mtbf`): each node of the template goes down after an
//   exponentially distributed time with that mean, stays down for `repairTime`, and so on until
//   `until`.
//
// Each draws from a stream of its own (sim::RandomStream::ForComponent: "arrivals/NAME",
// "failures/NODE"), so adding an arrival or a node changes no other's draws. Same seed, same events.
#pragma once

#include "clock/clock.h"

#include <cstdint>
#include <string>
#include <vector>

namespace harness {

// Submit times (microseconds) of `count` jobs from `start` with exponential gaps of mean `mean`.
std::vector<kube::Micros> PoissonTimes(std::uint64_t seed, const std::string& arrival, kube::Micros start, kube::Micros mean,
                                       std::int64_t count);

// For each job, the index of a template picked by weight (weights > 0), from its own stream.
std::vector<std::size_t> PickTemplates(std::uint64_t seed, const std::string& arrival, const std::vector<double>& weights,
                                       std::size_t jobs);

// One node's outages: (down at, for how long), from the node's stream, every one starting before
// `until`; at most `limit` of them.
struct Outage {
  kube::Micros at = 0;
  kube::Micros duration = 0;
};
std::vector<Outage> NodeOutages(std::uint64_t seed, const std::string& node, kube::Micros mtbf, kube::Micros repair,
                                kube::Micros until, std::size_t limit);

}  // namespace harness
