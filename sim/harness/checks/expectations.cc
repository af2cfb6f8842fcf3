#include "sim/harness/checks/expectations.h"

#include "sim/harness/config/units.h"

#include <algorithm>
#include <cstdio>
#include <regex>

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

const std::vector<std::string>& CheckedInvariants() {
  static const std::vector<std::string> names = {"nodeNotOvercommitted",      "noPodOnNotReadyNode",
                                                 "succeededOnlyIfLauncherSucceeded", "noTrainingBeforePartition",
                                                 "phasesMoveForward",         "noObjectsAfterDelete",
                                                 "resourceVersionsIncrease",  "jobsTerminalOrProgressing"};
  return names;
}

ExpectationResult EvaluateExpectation(const ExpectationSpec& spec, std::size_t index, const RunRecord& record) {
  ExpectationResult result;
  result.text = spec.text.empty() ? std::string(ToString(spec.kind)) : spec.text;
  auto fail = [&](std::string detail) {
    result.passed = false;
    result.detail = std::move(detail);
    return result;
  };
  auto pass = [&](std::string detail = "") {
    result.passed = true;
    result.detail = std::move(detail);
    return result;
  };

  const JobRecord* job = nullptr;
  if (spec.job) {
    auto it = record.jobs.find(*spec.job);
    if (it != record.jobs.end()) job = &it->second;
  }
  switch (spec.kind) {
    case ExpectKind::kPhase:
    case ExpectKind::kPhases:
    case ExpectKind::kCondition:
    case ExpectKind::kWithin:
    case ExpectKind::kRestarts:
    case ExpectKind::kBreakdown:
    case ExpectKind::kPeakMemory:
      if (!job || !job->submitted)
        return fail("job " + (spec.job ? spec.job->ToString() : std::string("?")) + " was never submitted");
      break;
    default:
      break;
  }

  switch (spec.kind) {
    case ExpectKind::kPhase:
      if (job->phase == spec.phase) return pass();
      return fail("phase is " + (job->phase.empty() ? std::string("(none)") : job->phase) + "; timeline " + Timeline(*job));
    case ExpectKind::kPhases: {
      std::size_t next = 0;
      for (const auto& change : job->phases)
        if (next < spec.phases.size() && change.phase == spec.phases[next]) ++next;
      if (next == spec.phases.size()) return pass();
      return fail("never reached " + spec.phases[next] + " in order; timeline " + Timeline(*job));
    }
    case ExpectKind::kCondition: {
      std::string seen;
      for (const auto& c : job->conditions) {
        if (!c.is_object() || c.value("type", "") != spec.condition) continue;
        std::string status = c.value("status", ""), reason = c.value("reason", "");
        if (status == spec.status && (spec.reason.empty() || reason == spec.reason)) return pass();
        seen = "status " + status + " reason " + reason;
      }
      return fail(seen.empty() ? "no condition " + spec.condition : "condition " + spec.condition + " has " + seen);
    }
    case ExpectKind::kWithin: {
      auto makespan = job->Makespan();
      if (!makespan) return fail("not terminal at the end (phase " + job->phase + ")");
      if (*makespan <= spec.within) return pass("took " + FormatDuration(*makespan));
      return fail("took " + FormatDuration(*makespan));
    }
    case ExpectKind::kRestarts:
      if (job->restarts == spec.restarts) return pass();
      return fail("restarts " + std::to_string(job->restarts));
    case ExpectKind::kConfigMapLines:
    case ExpectKind::kConfigMapLine: {
      std::string where = spec.config_map ? spec.config_map->ToString() : "?";
      auto cm = record.config_maps.find(where);
      if (cm == record.config_maps.end()) return fail("no ConfigMap " + where + " was ever seen");
      auto value = cm->second.find(spec.key);
      if (value == cm->second.end()) return fail("ConfigMap " + where + " has no key " + spec.key);
      std::vector<std::string> lines = SplitLines(value->second);
      if (spec.kind == ExpectKind::kConfigMapLines) {
        if (static_cast<std::int64_t>(lines.size()) == spec.lines) return pass();
        return fail(std::to_string(lines.size()) + " lines");
      }
      if (spec.line < 0 || spec.line >= static_cast<std::int64_t>(lines.size()))
        return fail("no line " + std::to_string(spec.line) + " (" + std::to_string(lines.size()) + " lines)");
      const std::string& line = lines[static_cast<std::size_t>(spec.line)];
      try {
        std::regex re(spec.matches, std::regex::ECMAScript);
        if (std::regex_search(line, re)) return pass();
      } catch (const std::regex_error&) {
        return fail("invalid regex");
      }
      return fail("line " + std::to_string(spec.line) + " is \"" + line + "\"");
    }
    case ExpectKind::kBreakdown: {
      auto breakdown = job->Breakdown();
      auto it = breakdown.find(spec.stage);
      if (it == breakdown.end()) return fail("no " + spec.stage + " stage was recorded for the job");
      std::string took = spec.stage + " took " + Seconds(it->second);
      if (it->second >= spec.time_between.first && it->second <= spec.time_between.second) return pass(took);
      return fail(took);
    }
    case ExpectKind::kPeakMemory: {
      auto it = job->peak_memory.find(spec.memory_role);
      if (it == job->peak_memory.end()) return fail("no memory use of a " + spec.memory_role + " was recorded");
      std::string peak = spec.memory_role + " peaked at " + Gigabytes(it->second);
      if (it->second >= spec.bytes_between.first && it->second <= spec.bytes_between.second) return pass(peak);
      return fail(peak);
    }
    case ExpectKind::kPodCount: {
      auto it = record.pod_counts.find(index);
      if (it == record.pod_counts.end()) return fail("not counted (the run ended before " + spec.at + ")");
      if (it->second == spec.count) return pass();
      return fail(std::to_string(it->second) + " pods");
    }
    case ExpectKind::kInvariants: {
      std::vector<std::string> names = spec.invariants;
      bool all = names.empty() || names.size() == std::size(kInvariantNames);
      if (all)
        for (const auto& n : CheckedInvariants())
          if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
      std::string violations, unchecked;
      int count = 0;
      for (const auto& name : names) {
        bool checked = std::find(CheckedInvariants().begin(), CheckedInvariants().end(), name) != CheckedInvariants().end();
        if (!checked) {
          unchecked += (unchecked.empty() ? "" : ", ") + name;
          continue;
        }
        for (const auto& v : record.invariant_violations) {
          if (v.name != name) continue;
          if (++count <= 3) violations += (violations.empty() ? "" : "; ") + FormatDuration(v.at) + " " + v.name + ": " + v.detail;
        }
      }
      std::string note = unchecked.empty() ? "" : "not implemented yet: " + unchecked;
      if (count == 0) return pass(note);
      return fail(std::to_string(count) + " violation(s): " + violations + (note.empty() ? "" : "; " + note));
    }
  }
  return fail("unknown expectation kind");
}

std::vector<ExpectationResult> EvaluateExpectations(const Scenario& scenario, const RunRecord& record) {
  std::vector<ExpectationResult> results;
  for (std::size_t i = 0; i < scenario.expectations.size(); ++i)
    results.push_back(EvaluateExpectation(scenario.expectations[i], i, record));
  return results;
}

}  // namespace harness
