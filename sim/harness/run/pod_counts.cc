#include "sim/harness/run/pod_counts.h"

#include "sim/cluster/simulation.h"

namespace harness {

PodCountProbes::PodCountProbes(sim::Simulation& sim, RunRecord& record, const std::vector<ExpectationSpec>& expectations)
    : sim_(sim), record_(record), expectations_(expectations), events_(sim.engine()) {}

void PodCountProbes::Schedule() {
  for (std::size_t i = 0; i < expectations_.size(); ++i) {
    const ExpectationSpec& e = expectations_[i];
    if (e.kind == ExpectKind::kPodCount && e.at_time) events_.At(*e.at_time, [this, i] { Count(i); });
  }
}

void PodCountProbes::CountAtEnd() {
  for (std::size_t i = 0; i < expectations_.size(); ++i) {
    const ExpectationSpec& e = expectations_[i];
    if (e.kind == ExpectKind::kPodCount && !e.at_time) Count(i);
  }
}

void PodCountProbes::Count(std::size_t index) {
  const ExpectationSpec& e = expectations_[index];
  auto list = sim_.store().List("pods", {.namespace_ = e.pods_namespace, .label_selector = e.pods_selector});
  record_.pod_counts[index] = list.ok() ? static_cast<std::int64_t>(list->items.size()) : -1;
}

}  // namespace harness
