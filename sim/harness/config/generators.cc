#include "sim/harness/config/generators.h"

#include "sim/kernel/random.h"

#include <cmath>

namespace harness {

std::vector<kube::Micros> PoissonTimes(std::uint64_t seed, const std::string& arrival, kube::Micros start, kube::Micros mean,
                                       std::int64_t count) {
  sim::RandomStream stream = sim::RandomStream::ForComponent(seed, "arrivals/" + arrival);
  std::vector<kube::Micros> times;
  double t = static_cast<double>(start);
  for (std::int64_t i = 0; i < count; ++i) {
    t += stream.Exponential(static_cast<double>(mean));
    times.push_back(static_cast<kube::Micros>(std::llround(t)));
  }
  return times;
}

std::vector<std::size_t> PickTemplates(std::uint64_t seed, const std::string& arrival, const std::vector<double>& weights,
                                       std::size_t jobs) {
  sim::RandomStream stream = sim::RandomStream::ForComponent(seed, "arrivals/" + arrival + "/templates");
  double total = 0;
  for (double w : weights) total += w;
  std::vector<std::size_t> picks;
  for (std::size_t j = 0; j < jobs; ++j) {
    double u = stream.Uniform01() * total;
    std::size_t pick = weights.size() - 1;
    for (std::size_t i = 0; i < weights.size(); ++i) {
      if (u < weights[i]) {
        pick = i;
        break;
      }
      u -= weights[i];
    }
    picks.push_back(pick);
  }
  return picks;
}

std::vector<Outage> NodeOutages(std::uint64_t seed, const std::string& node, kube::Micros mtbf, kube::Micros repair,
                                kube::Micros until, std::size_t limit) {
  sim::RandomStream stream = sim::RandomStream::ForComponent(seed, "failures/" + node);
  std::vector<Outage> outages;
  double t = 0;
  while (outages.size() < limit) {
    t += stream.Exponential(static_cast<double>(mtbf));
    if (t >= static_cast<double>(until)) break;
    outages.push_back({static_cast<kube::Micros>(std::llround(t)), repair});
    t += static_cast<double>(repair);
  }
  return outages;
}

}  // namespace harness
