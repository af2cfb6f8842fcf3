#include "sim/harness/checks/expectations.h"

#include "sim/harness/config/units.h"

#include <algorithm>
#include <cstdio>

namespace harness {
namespace {

std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::string current;
  for (char ch : text) {
    if (ch == '\n') {
      lines.push_back(current);
      current.clear();
    } else {
      current += ch;
    }
  }
  if (!current.empty()) lines.push_back(current);
  return lines;
}

std::string Timeline(const JobRecord& job) {
  std::string out;
  for (const auto& change : job.phases) {
    if (!out.empty()) out += " -> ";
    out += change.phase;
  }
  return out.empty() ? "(no phase)" : out;
}

// "4845.8s (1h20m45s)": stage lengths are compared against bounds to the second.
std::string Seconds(Micros d) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1fs", static_cast<double>(d) / static_cast<double>(kube::kSecond));
  return std::string(buf) + " (" + FormatDuration(d) + ")";
}

std::string Gigabytes(std::int64_t bytes) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f GB (%.2f GiB)", static_cast<double>(bytes) / 1e9,
                static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0));
  return buf;
}

}  // namespace

namespace {

// What one expectation saw: passed or not, and the detail ("" when there is nothing to add).
struct Verdict {
  bool passed;
  std::string detail;
};
Verdict Pass(std::string detail = "") { return {true, std::move(detail)}; }
Verdict Fail(std::string detail) { return {false, std::move(detail)}; }

Verdict JobPhase(const ExpectationSpec& spec, const JobRecord& job) {
  if (job.phase == spec.phase) return Pass();
  return Fail("phase is " + (job.phase.empty() ? std::string("(none)") : job.phase) + "; timeline " + Timeline(job));
}

Verdict JobPhases(const ExpectationSpec& spec, const JobRecord& job) {
  std::size_t next = 0;
  for (const auto& change : job.phases)
    if (next < spec.phases.size() && change.phase == spec.phases[next]) ++next;
  if (next == spec.phases.size()) return Pass();
  return Fail("never reached " + spec.phases[next] + " in order; timeline " + Timeline(job));
}

Verdict JobCondition(const ExpectationSpec& spec, const JobRecord& job) {
  std::string seen;
  for (const auto& c : job.conditions) {
    if (!c.is_object() || c.value("type", "") != spec.condition) continue;
    std::string status = c.value("status", ""), reason = c.value("reason", "");
    if (status == spec.status && (spec.reason.empty() || reason == spec.reason)) return Pass();
    seen = "status " + status + " reason " + reason;
  }
  return Fail(seen.empty() ? "no condition " + spec.condition : "condition " + spec.condition + " has " + seen);
}

Verdict JobWithin(const ExpectationSpec& spec, const JobRecord& job) {
  auto makespan = job.Makespan();
  if (!makespan) return Fail("not terminal at the end (phase " + job.phase + ")");
  if (*makespan <= spec.within) return Pass("took " + FormatDuration(*makespan));
  return Fail("took " + FormatDuration(*makespan));
}

Verdict JobRestarts(const ExpectationSpec& spec, const JobRecord& job) {
  if (job.restarts == spec.restarts) return Pass();
  return Fail("restarts " + std::to_string(job.restarts));
}

Verdict JobBreakdown(const ExpectationSpec& spec, const JobRecord& job) {
  auto breakdown = job.Breakdown();
  auto it = breakdown.find(spec.stage);
  if (it == breakdown.end()) return Fail("no " + spec.stage + " stage was recorded for the job");
  std::string took = spec.stage + " took " + Seconds(it->second);
  if (it->second >= spec.time_between.first && it->second <= spec.time_between.second) return Pass(took);
  return Fail(took);
}

Verdict JobPeakMemory(const ExpectationSpec& spec, const JobRecord& job) {
  auto it = job.peak_memory.find(spec.memory_role);
  if (it == job.peak_memory.end()) return Fail("no memory use of a " + spec.memory_role + " was recorded");
  std::string peak = spec.memory_role + " peaked at " + Gigabytes(it->second);
  if (it->second >= spec.bytes_between.first && it->second <= spec.bytes_between.second) return Pass(peak);
  return Fail(peak);
}

// The expectations about one job: none holds for a job that was never submitted.
Verdict JobExpectation(const ExpectationSpec& spec, const RunRecord& record) {
  const JobRecord* job = nullptr;
  if (spec.job)
    if (auto it = record.jobs.find(*spec.job); it != record.jobs.end()) job = &it->second;
  if (!job || !job->submitted)
    return Fail("job " + (spec.job ? spec.job->ToString() : std::string("?")) + " was never submitted");
  switch (spec.kind) {
    case ExpectKind::kPhase: return JobPhase(spec, *job);
    case ExpectKind::kPhases: return JobPhases(spec, *job);
    case ExpectKind::kCondition: return JobCondition(spec, *job);
    case ExpectKind::kWithin: return JobWithin(spec, *job);
    case ExpectKind::kRestarts: return JobRestarts(spec, *job);
    case ExpectKind::kBreakdown: return JobBreakdown(spec, *job);
    case ExpectKind::kPeakMemory: return JobPeakMemory(spec, *job);
    default: return Fail("not an expectation about a job");
  }
}

Verdict ConfigMapLines(const ExpectationSpec& spec, const RunRecord& record) {
  std::string where = spec.config_map ? spec.config_map->ToString() : "?";
  auto cm = record.config_maps.find(where);
  if (cm == record.config_maps.end()) return Fail("no ConfigMap " + where + " was ever seen");
  auto value = cm->second.find(spec.key);
  if (value == cm->second.end()) return Fail("ConfigMap " + where + " has no key " + spec.key);
  std::vector<std::string> lines = SplitLines(value->second);
  if (spec.kind == ExpectKind::kConfigMapLines) {
    if (static_cast<std::int64_t>(lines.size()) == spec.lines) return Pass();
    return Fail(std::to_string(lines.size()) + " lines");
  }
  if (spec.line < 0 || spec.line >= static_cast<std::int64_t>(lines.size()))
    return Fail("no line " + std::to_string(spec.line) + " (" + std::to_string(lines.size()) + " lines)");
  const std::string& line = lines[static_cast<std::size_t>(spec.line)];
  if (spec.matcher.Search(line)) return Pass();
  return Fail("line " + std::to_string(spec.line) + " is \"" + line + "\"");
}

Verdict PodCount(const ExpectationSpec& spec, std::size_t index, const RunRecord& record) {
  auto it = record.pod_counts.find(index);
  if (it == record.pod_counts.end()) return Fail("not counted (the run ended before " + spec.at + ")");
  if (it->second == spec.count) return Pass();
  return Fail(std::to_string(it->second) + " pods");
}

// The nodes the cluster has at the expectation's time: the fixed ones, and the pool nodes Ready by
// then and not yet removed or interrupted.
Verdict NodeCount(const ExpectationSpec& spec, const RunRecord& record) {
  const Micros at = spec.at_time.value_or(record.end);
  if (at > record.end) return Fail("not counted (the run ended before " + spec.at + ")");
  std::int64_t nodes = record.fixed_nodes;
  for (const PoolNodeRecord& node : record.pool_nodes)
    if (node.ready && *node.ready <= at && (!node.gone || *node.gone > at)) ++nodes;
  if (nodes == spec.count) return Pass();
  return Fail(std::to_string(nodes) + " nodes");
}

Verdict InvariantsHeld(const ExpectationSpec& spec, const RunRecord& record) {
  std::string violations;
  int count = 0;
  const bool all = spec.invariants.empty();  // an empty list is every invariant, as `all` is
  for (const auto& v : record.invariant_violations) {
    if (!all && std::find(spec.invariants.begin(), spec.invariants.end(), v.name) == spec.invariants.end()) continue;
    if (++count <= 3) violations += (violations.empty() ? "" : "; ") + FormatDuration(v.at) + " " + v.name + ": " + v.detail;
  }
  if (count == 0) return Pass();
  return Fail(std::to_string(count) + " violation(s): " + violations);
}

}  // namespace

ExpectationResult EvaluateExpectation(const ExpectationSpec& spec, std::size_t index, const RunRecord& record) {
  Verdict verdict = Fail("unknown expectation kind");
  switch (spec.kind) {
    case ExpectKind::kConfigMapLines:
    case ExpectKind::kConfigMapLine: verdict = ConfigMapLines(spec, record); break;
    case ExpectKind::kPodCount: verdict = PodCount(spec, index, record); break;
    case ExpectKind::kNodeCount: verdict = NodeCount(spec, record); break;
    case ExpectKind::kInvariants: verdict = InvariantsHeld(spec, record); break;
    default: verdict = JobExpectation(spec, record); break;
  }
  return {.text = spec.text.empty() ? std::string(ToString(spec.kind)) : spec.text,
          .passed = verdict.passed,
          .detail = std::move(verdict.detail)};
}

std::vector<ExpectationResult> EvaluateExpectations(const Scenario& scenario, const RunRecord& record) {
  std::vector<ExpectationResult> results;
  for (std::size_t i = 0; i < scenario.expectations.size(); ++i)
    results.push_back(EvaluateExpectation(scenario.expectations[i], i, record));
  return results;
}

}  // namespace harness
