#include "sim/harness/run/run_record.h"

#include <algorithm>

namespace harness {

PodRecord& RunRecord::Pod(const std::string& uid) {
  auto [it, inserted] = pod_index.try_emplace(uid, pods.size());
  if (inserted) pods.emplace_back().uid = uid;
  return pods[it->second];
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

}  // namespace harness
