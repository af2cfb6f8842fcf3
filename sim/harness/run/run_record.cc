#include "sim/harness/run/run_record.h"

#include <algorithm>

namespace harness {

std::size_t RunRecord::PodIndex(const std::string& uid) {
  auto [it, inserted] = pod_index.try_emplace(uid, pods.size());
  if (inserted) pods.emplace_back().uid = uid;
  return it->second;
}

std::map<std::string, Micros> JobRecord::Breakdown() const {
  std::map<std::string, Micros> out;
  for (const auto& [stage, intervals] : stage_intervals) {
    auto sorted = intervals;
    std::sort(sorted.begin(), sorted.end());
    Micros total = 0, begin = 0, end = -1;
    for (const auto& [b, e] : sorted) {
      if (b > end) {
        if (end > begin) total += end - begin;
        begin = b;
        end = e;
      } else {
        end = std::max(end, e);
      }
    }
    if (end > begin) total += end - begin;
    out[stage] = total;
  }
  return out;
}

std::array<double, 3> JobRecord::StageRange(const std::string& stage) const {
  auto stages = Breakdown();
  auto it = stages.find(stage);
  const double value = it == stages.end() ? 0.0 : static_cast<double>(it->second) / kube::kSecond;
  auto spread = stage_spread.find(stage);
  if (spread == stage_spread.end()) return {value, value, value};
  return {value, std::max(0.0, value + spread->second.first), std::max(value, value + spread->second.second)};
}

std::optional<std::array<double, 3>> JobRecord::MakespanRange() const {
  auto makespan = Makespan();
  if (!makespan) return std::nullopt;
  const double value = static_cast<double>(*makespan) / kube::kSecond;
  double low = value, high = value;
  for (const auto& [stage, spread] : stage_spread) {
    low += spread.first;
    high += spread.second;
  }
  return std::array<double, 3>{value, std::max(0.0, std::min(low, value)), std::max(high, value)};
}

std::optional<std::array<double, 3>> JobRecord::PeakRange(const std::string& role) const {
  auto peak = peak_memory.find(role);
  if (peak == peak_memory.end()) return std::nullopt;
  const double value = static_cast<double>(peak->second);
  auto range = peak_memory_range.find(role);
  if (range == peak_memory_range.end()) return std::array<double, 3>{value, value, value};
  return std::array<double, 3>{value, std::min(value, range->second.first), std::max(value, range->second.second)};
}

}  // namespace harness
