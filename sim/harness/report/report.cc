#include "sim/harness/report/report.h"

#include "sim/harness/config/invariants.h"
#include "sim/harness/config/units.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace harness {
namespace {

using json = kube::Json;

// " queueing 0.0s, imagePull 45.0s, partition 1.60 h (1.20 - 2.10 h), ..." over the stages
// recorded, in report order, with the models' ranges; " -" when none.
std::string BreakdownText(const JobRecord& job) {
  auto stages = job.Breakdown();
  std::string out;
  for (const char* stage : kBreakdownStages) {
    if (stages.find(stage) == stages.end()) continue;
    const auto [value, low, high] = job.StageRange(stage);
    out += (out.empty() ? " " : ", ") + std::string(stage) + " " + FormatSpan(value, low, high);
  }
  return out.empty() ? " -" : out;
}

// "    memory: partitioner 599.7 GB (571.2 - 640.8 GB), worker ..." when any role reported a peak.
std::string MemoryText(const JobRecord& job) {
  std::string out;
  for (const char* role : kMemoryRoles) {
    auto range = job.PeakRange(role);
    if (!range) continue;
    out += (out.empty() ? "    memory: " : ", ") + std::string(role) + " " + FormatBytesRange((*range)[0], (*range)[1], (*range)[2]);
  }
  return out.empty() ? "" : out + "\n";
}

// GPU-seconds follow the makespan: scaled by its range.
std::array<double, 3> GpuSecondsRange(const JobRecord& job) {
  auto makespan = job.MakespanRange();
  if (!makespan || !((*makespan)[0] > 0)) return {job.gpu_seconds, job.gpu_seconds, job.gpu_seconds};
  return {job.gpu_seconds, job.gpu_seconds * (*makespan)[1] / (*makespan)[0], job.gpu_seconds * (*makespan)[2] / (*makespan)[0]};
}

json RangeJson(double low, double high) { return json{{"low", low}, {"high", high}}; }

}  // namespace

double RunSpanSeconds(const RunRecord& record) {
  std::optional<Micros> first, last;
  bool all_completed = true;
  for (const auto& key : record.job_order) {
    const JobRecord& job = record.jobs.at(key);
    if (job.submitted) first = std::min(first.value_or(*job.submitted), *job.submitted);
    if (job.completed) last = std::max(last.value_or(*job.completed), *job.completed);
    all_completed = all_completed && job.completed.has_value();
  }
  if (record.job_order.empty()) return 0;
  return MicrosToSeconds((all_completed && last ? *last : record.end) - first.value_or(0));
}

Micros RunSpanStart(const RunRecord& record) {
  std::optional<Micros> first;
  for (const auto& key : record.job_order)
    if (const JobRecord& job = record.jobs.at(key); job.submitted) first = std::min(first.value_or(*job.submitted), *job.submitted);
  return first.value_or(0);
}

double PoolNodeBilledSeconds(const PoolNodeRecord& node, const RunRecord& record) {
  const Micros start = RunSpanStart(record);
  const Micros span_end = start + static_cast<Micros>(std::llround(RunSpanSeconds(record) * 1e6));
  const Micros from = std::max(node.requested, start);
  return std::max(0.0, MicrosToSeconds(node.gone.value_or(span_end) - from));
}

namespace {

// cluster.pools of the JSON report: every pool node's times, in seconds.
json PoolsJson(const RunRecord& record) {
  json nodes = json::array();
  int interruptions = 0;
  auto at = [](const std::optional<Micros>& t) { return t ? json(MicrosToSeconds(*t)) : json(nullptr); };
  for (const PoolNodeRecord& n : record.pool_nodes) {
    interruptions += n.interrupted ? 1 : 0;
    nodes.push_back({{"name", n.name}, {"pool", n.pool}, {"spot", n.spot}, {"requested", MicrosToSeconds(n.requested)},
                     {"ready", at(n.ready)}, {"notice", at(n.notice)}, {"gone", at(n.gone)}, {"interrupted", n.interrupted}});
  }
  return {{"poolNodes", record.pool_nodes.size()}, {"interruptions", interruptions}, {"nodes", nodes}};
}

}  // namespace

std::optional<double> RunCost(const RunRecord& record) {
  std::optional<double> cost;
  if (record.price_per_hour > 0) cost = record.price_per_hour * RunSpanSeconds(record) / 3600;
  for (const PoolNodeRecord& node : record.pool_nodes)
    if (node.price_per_hour > 0) cost = cost.value_or(0) + node.price_per_hour * PoolNodeBilledSeconds(node, record) / 3600;
  return cost;
}

bool AllPassed(const std::vector<ExpectationResult>& results) {
  for (const auto& r : results)
    if (!r.passed) return false;
  return true;
}

std::string FormatSummary(const RunRecord& record, const std::vector<ExpectationResult>& results) {
  std::ostringstream out;
  out << "scenario " << record.scenario << "  seed " << record.seed << "  ended at " << FormatDuration(record.end)
      << (record.hit_until ? " (until reached)" : "") << "  " << record.events << " events, " << record.api_writes
      << " API writes";
  if (const auto cost = RunCost(record)) out << "  cost " << FormatFixed(*cost, 2);
  out << "\n";
  if (!record.pool_nodes.empty()) {
    int ready = 0, interrupted = 0;
    double node_hours = 0;
    for (const PoolNodeRecord& n : record.pool_nodes) {
      ready += n.ready ? 1 : 0;
      interrupted += n.interrupted ? 1 : 0;
      node_hours += PoolNodeBilledSeconds(n, record) / 3600;
    }
    out << "  node pools: " << record.pool_nodes.size() << " node(s) requested, " << ready << " Ready, " << interrupted
        << " interrupted, " << FormatFixed(node_hours, 2) << " node-hours paid; " << record.fixed_nodes << " fixed node(s)\n";
  }
  for (const auto& key : record.job_order) {
    const JobRecord& job = record.jobs.at(key);
    out << "  job " << key.ToString() << "  " << (job.phase.empty() ? "(no phase)" : job.phase);
    if (auto m = job.Makespan()) {
      out << "  makespan " << FormatDuration(*m);
      if (auto r = job.MakespanRange()) {
        const std::string span = FormatSpan((*r)[0], (*r)[1], (*r)[2]);
        if (auto open = span.find('('); open != std::string::npos) out << " " << span.substr(open);
      }
    } else {
      out << "  makespan -";
    }
    const auto gpu = GpuSecondsRange(job);
    out << "  GPU-hours " << FormatFixed(gpu[0] / 3600.0, 2);
    if (gpu[1] != gpu[0] || gpu[2] != gpu[0]) out << " (" << FormatFixed(gpu[1] / 3600.0, 2) << " - " << FormatFixed(gpu[2] / 3600.0, 2) << ")";
    out << "  restarts " << job.restarts << "  pods "
        << job.pods_created << "  " << (job.dataset.empty() ? "dataset: default graph (names none the scenario knows)"
                                                             : "dataset: " + job.dataset)
        << "  breakdown:" << BreakdownText(job);
    if (job.deleted) out << "  (deleted)";
    if (!job.submit_error.empty()) out << "  (not created: " << job.submit_error << ")";
    out << "\n" << MemoryText(job);
  }
  for (const auto& f : record.fault_log) out << "  fault " << f << "\n";
  for (const auto& n : record.notes) out << "  note: " << n << "\n";
  out << "  workloads: dglrun / dglkerun run the DGL workload models (sim/dgl); containers annotated with "
         "dglsim.io/duration run the generic program\n";
  int passed = 0;
  for (const auto& r : results) {
    passed += r.passed ? 1 : 0;
    out << "  " << (r.passed ? "PASS " : "FAIL ") << r.text << (r.detail.empty() ? "" : "  -- " + r.detail) << "\n";
  }
  out << "expectations " << passed << "/" << results.size() << " passed";
  if (!record.invariant_violations.empty()) out << ", " << record.invariant_violations.size() << " invariant violation(s)";
  out << "\ntrace hash " << record.trace_hash << "\n";
  return out.str();
}

json ReportJson(const RunRecord& record, const std::vector<ExpectationResult>& results, double wall_seconds) {
  json report;
  report["scenario"] = record.scenario;
  report["description"] = record.description;
  report["labels"] = record.labels;
  report["annotations"] = record.annotations;
  report["seed"] = record.seed;
  report["passed"] = AllPassed(results);
  report["simulatedSeconds"] = MicrosToSeconds(record.end);
  if (wall_seconds >= 0) report["wallSeconds"] = wall_seconds;
  report["events"] = record.events;
  report["apiWrites"] = record.api_writes;
  report["watchEvents"] = record.watch_events;
  report["traceHash"] = record.trace_hash;
  report["traceRecords"] = record.trace_records;
  report["endedBy"] = record.hit_until ? "until" : "jobs";
  json jobs = json::array();
  for (const auto& key : record.job_order) {
    const JobRecord& job = record.jobs.at(key);
    json j;
    j["namespace"] = key.ns;
    j["name"] = key.name;
    j["partitionMode"] = job.partition_mode;
    j["dataset"] = job.dataset.empty() ? json(nullptr) : json(job.dataset);
    j["phase"] = job.phase;
    j["submitted"] = job.submitted ? json(MicrosToSeconds(*job.submitted)) : json(nullptr);
    j["completed"] = job.completed ? json(MicrosToSeconds(*job.completed)) : json(nullptr);
    j["makespan"] = job.Makespan() ? json(MicrosToSeconds(*job.Makespan())) : json(nullptr);
    json phases = json::array();
    for (const auto& p : job.phases) phases.push_back({{"phase", p.phase}, {"at", MicrosToSeconds(p.at)}});
    j["phases"] = phases;
    json breakdown = json::object();
    auto stages = job.Breakdown();
    for (const char* stage : kBreakdownStages) {
      auto it = stages.find(stage);
      breakdown[stage] = it == stages.end() ? 0.0 : MicrosToSeconds(it->second);
    }
    j["breakdown"] = breakdown;
    // The workload models' ranges (added fields): stage seconds, makespan, GPU-seconds and peaks at
    // the ends of the uncertain parameters' ranges.
    json breakdown_range = json::object();
    for (const char* stage : kBreakdownStages) {
      if (stages.find(stage) == stages.end()) continue;
      const auto [value, low, high] = job.StageRange(stage);
      breakdown_range[stage] = RangeJson(low, high);
    }
    j["breakdownRange"] = breakdown_range;
    json peaks = json::object();
    json peak_ranges = json::object();
    for (const auto& [role, bytes] : job.peak_memory) {
      peaks[role] = bytes;
      if (auto r = job.PeakRange(role)) peak_ranges[role] = RangeJson((*r)[1], (*r)[2]);
    }
    j["peakMemoryBytes"] = peaks;
    j["peakMemoryBytesRange"] = peak_ranges;
    auto makespan_range = job.MakespanRange();
    j["makespanRange"] = makespan_range ? RangeJson((*makespan_range)[1], (*makespan_range)[2]) : json(nullptr);
    const auto gpu_range = GpuSecondsRange(job);
    j["gpuSecondsRange"] = RangeJson(gpu_range[1], gpu_range[2]);
    j["restarts"] = job.restarts;
    j["gpuSeconds"] = job.gpu_seconds;
    j["idleGpuSeconds"] = nullptr;   // not modelled yet
    j["podsCreated"] = job.pods_created;
    j["deleted"] = job.deleted;
    jobs.push_back(std::move(j));
  }
  report["jobs"] = jobs;
  json cluster = {{"nodes", record.nodes}, {"gpus", record.gpus}, {"gpuSeconds", record.gpu_seconds}};
  cluster["gpuUtilization"] = nullptr;
  if (record.gpus > 0 && record.end > 0)
    cluster["gpuUtilization"] = record.gpu_seconds / (static_cast<double>(record.gpus) * MicrosToSeconds(record.end));
  cluster["pricePerHour"] = record.price_per_hour > 0 ? json(record.price_per_hour) : json(nullptr);
  const auto cost = RunCost(record);
  cluster["cost"] = cost ? json(*cost) : json(nullptr);
  if (!record.pool_nodes.empty()) cluster["pools"] = PoolsJson(record);
  report["cluster"] = cluster;
  json expectations = json::array();
  for (const auto& r : results) expectations.push_back({{"expect", r.text}, {"passed", r.passed}, {"detail", r.detail}});
  report["expectations"] = expectations;
  json violations = json::array();
  for (const auto& v : record.invariant_violations)
    violations.push_back({{"invariant", v.name}, {"at", MicrosToSeconds(v.at)}, {"detail", v.detail}});
  report["invariantViolations"] = violations;
  json invariants = json::array();
  for (const InvariantInfo& info : Invariants()) {
    const std::string name(info.name);
    auto checks = record.invariant_checks.find(name);
    std::int64_t violated = 0;
    for (const auto& v : record.invariant_violations) violated += v.name == name;
    invariants.push_back({{"name", name},
                          {"description", std::string(info.description)},
                          {"checked", std::string(info.checked)},
                          {"checks", checks == record.invariant_checks.end() ? 0 : checks->second},
                          {"violations", violated}});
  }
  report["invariants"] = invariants;
  report["faults"] = record.fault_log;
  report["notes"] = record.notes;
  return report;
}

}  // namespace harness
