#include "sim/harness/report/report_layout.h"

#include "operator/api/vocabulary.h"
#include "sim/harness/config/units.h"

#include <algorithm>
#include <map>

namespace harness {

bool NaturalLess(std::string_view a, std::string_view b) {
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (digit(a[i]) && digit(b[j])) {
      std::size_t ie = i, je = j;
      while (ie < a.size() && digit(a[ie])) ++ie;
      while (je < b.size() && digit(b[je])) ++je;
      // Compare as numbers without overflow: skip leading zeros, then longer is larger.
      std::size_t is = i, js = j;
      while (is + 1 < ie && a[is] == '0') ++is;
      while (js + 1 < je && b[js] == '0') ++js;
      std::string_view na = a.substr(is, ie - is), nb = b.substr(js, je - js);
      if (na.size() != nb.size()) return na.size() < nb.size();
      if (na != nb) return na < nb;
      if (ie - i != je - j) return ie - i < je - j;  // "01" after "1": stable, total order
      i = ie;
      j = je;
      continue;
    }
    if (a[i] != b[j]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]);
    ++i;
    ++j;
  }
  return a.size() - i < b.size() - j;
}

namespace {

// Packs placements (sorted by begin) into the lowest free slot.
int Pack(std::vector<PodPlacement>& pods) {
  std::stable_sort(pods.begin(), pods.end(), [](const PodPlacement& x, const PodPlacement& y) {
    return x.begin != y.begin ? x.begin < y.begin : x.end < y.end;
  });
  std::vector<Micros> free_at;  // slot -> end of its last pod
  for (auto& p : pods) {
    std::size_t slot = 0;
    while (slot < free_at.size() && free_at[slot] > p.begin) ++slot;
    if (slot == free_at.size()) free_at.push_back(p.end);
    else free_at[slot] = p.end;
    p.slot = static_cast<int>(slot);
  }
  return static_cast<int>(free_at.size());
}

}  // namespace

PodLayout LayOutPods(const RunRecord& record) {
  PodLayout layout;
  layout.unscheduled.name = "(unscheduled)";
  std::map<std::string, NodeRow> rows;
  for (const auto& n : record.node_list) {
    NodeRow& row = rows[n.name];
    row.name = n.name;
    row.gpus = n.gpus;
  }
  for (const auto& pod : record.pods) {
    if (pod.name.empty()) continue;  // reported by a program but never seen by the recorder
    Micros until = pod.released ? *pod.released : pod.deleted ? *pod.deleted : record.end;
    if (!pod.node.empty() && pod.bound) {
      NodeRow& row = rows[pod.node];
      row.name = pod.node;
      row.pods.push_back({&pod, *pod.bound, std::max(until, *pod.bound), 0});
    } else {
      Micros from = pod.created.value_or(0);
      layout.unscheduled.pods.push_back({&pod, from, std::max(until, from), 0});
    }
  }
  for (const auto& outage : record.node_outages) {
    NodeRow& row = rows[outage.node];
    row.name = outage.node;
    row.outages.push_back(outage);
  }
  for (auto& [name, row] : rows) {
    row.slots = Pack(row.pods);
    layout.nodes.push_back(std::move(row));
  }
  std::stable_sort(layout.nodes.begin(), layout.nodes.end(),
                   [](const NodeRow& a, const NodeRow& b) { return NaturalLess(a.name, b.name); });
  layout.unscheduled.slots = Pack(layout.unscheduled.pods);
  return layout;
}

std::vector<PhaseSpan> PhaseSpans(const JobRecord& job, Micros run_end) {
  std::vector<PhaseSpan> out;
  Micros stop = job.deleted && job.deleted_at ? *job.deleted_at : run_end;
  for (std::size_t i = 0; i < job.phases.size(); ++i) {
    const PhaseChange& p = job.phases[i];
    PhaseSpan span{p.phase, p.at, p.at, dgl::IsTerminalPhase(p.phase)};
    if (!span.terminal) span.end = std::max(p.at, i + 1 < job.phases.size() ? job.phases[i + 1].at : stop);
    out.push_back(std::move(span));
  }
  return out;
}

std::vector<FaultMark> FaultMarks(const RunRecord& record) {
  std::vector<FaultMark> out;
  for (const auto& line : record.fault_log) {
    std::size_t space = line.find(' ');
    auto at = ParseDuration(line.substr(0, space));
    out.push_back({at.value.value_or(0), space == std::string::npos ? line : line.substr(space + 1)});
  }
  return out;
}

std::string RoleOf(const PodRecord& pod) {
  return pod.role.empty() ? "pod" : pod.role;
}

std::string ShortPodName(const PodRecord& pod) {
  if (pod.job) {
    const std::string prefix = pod.job->name + "-";
    if (pod.name.size() > prefix.size() && pod.name.compare(0, prefix.size(), prefix) == 0)
      return pod.name.substr(prefix.size());
  }
  return pod.name;
}

}  // namespace harness
