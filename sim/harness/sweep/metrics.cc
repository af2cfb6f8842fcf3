#include "sim/harness/sweep/metrics.h"

#include "sim/harness/config/units.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace harness::sweep {
namespace {

using nlohmann::json;

double Seconds(Micros t) { return static_cast<double>(t) / kube::kSecond; }

// Nearest-rank percentile of sorted values.
double Percentile(const std::vector<double>& sorted, int p) {
  if (sorted.empty()) return 0;
  const std::size_t rank = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(sorted.size())));
  return sorted[std::min(sorted.size(), std::max<std::size_t>(rank, 1)) - 1];
}

using PodsOf = std::map<JobKey, std::vector<const PodRecord*>>;

// The last `lines` non-empty lines of `text`, joined by spaces.
std::string LastLines(const std::string& text, std::size_t lines) {
  std::vector<std::string> all;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) all.push_back(line);
  std::string out;
  for (std::size_t i = all.size() > lines ? all.size() - lines : 0; i < all.size(); ++i) out += (out.empty() ? "" : " ") + all[i];
  return out;
}

// What a failed container said: a reason of its own (OOMKilled, StartError), else the last two
// lines of its termination message (the log's tail: the program's last words); "" when it said
// no more than "Error".
std::string ContainerSaid(const ContainerRun& run) {
  if (!run.reason.empty() && run.reason != "Error") return run.reason;
  return LastLines(run.message, 2);
}

// The Failed condition's "reason: message", and what the job's failed containers said.
std::string FailureReason(const JobRecord& job, const std::vector<const PodRecord*>& pods) {
  if (!job.submit_error.empty()) return "Refused: " + job.submit_error;
  std::string out;
  for (const json& c : job.conditions) {
    if (c.value("type", "") == "Failed" && c.value("status", "") == "True") {
      out = c.value("reason", "Failed");
      if (!c.value("message", "").empty()) out += ": " + c.value("message", "");
    }
  }
  if (out.empty()) out = "Failed";
  for (const PodRecord* pod : pods) {
    for (const ContainerRun& run : pod->containers) {
      if (!run.finished || run.exit_code == 0) continue;
      const std::string said = ContainerSaid(run);
      if (!said.empty() && out.find(said) == std::string::npos) return out + " (" + pod->name + ": " + said + ")";
    }
  }
  return out;
}

// GPU-seconds the job's pods held before its last restart.
double LostGpuSeconds(const JobRecord& job, const std::vector<const PodRecord*>& pods, Micros end_of_run) {
  std::optional<Micros> restart;
  for (const PhaseChange& change : job.phases)
    if (change.phase == "Restarting") restart = change.at;
  if (!restart) return 0;
  double lost = 0;
  for (const PodRecord* pod : pods) {
    if (pod->gpus == 0 || !pod->started) continue;
    const Micros end = std::min(pod->released.value_or(end_of_run), *restart);
    if (end > *pod->started) lost += static_cast<double>(pod->gpus) * Seconds(end - *pod->started);
  }
  return lost;
}

// How long the job waited for the cluster: the time during which some pod of its first attempt
// (created before any restart) was created and not yet bound to a node (the union of those
// intervals), so an SMP job's partitioner wait and its workers' later wait both count, and the
// partitioning between them does not.
double QueueingSeconds(const JobRecord& job, const std::vector<const PodRecord*>& pods, Micros end_of_run) {
  if (!job.submitted) return 0;
  std::optional<Micros> restart;
  for (const PhaseChange& change : job.phases)
    if (change.phase == "Restarting" && !restart) restart = change.at;
  std::vector<std::pair<Micros, Micros>> waits;
  for (const PodRecord* pod : pods) {
    if (!pod->created || (restart && *pod->created >= *restart)) continue;
    waits.emplace_back(*pod->created, pod->bound.value_or(pod->deleted ? *pod->deleted : end_of_run));
  }
  std::sort(waits.begin(), waits.end());
  Micros total = 0, covered = 0;
  for (const auto& [from, to] : waits) {
    const Micros begin = std::max(from, covered);
    if (to > begin) total += to - begin;
    covered = std::max(covered, to);
  }
  return Seconds(total);
}

}  // namespace

std::string LostTo(const std::string& outcome, const std::string& reason) {
  if (outcome == "Succeeded") return "";
  if (outcome == "Unfinished") return "unfinished";
  if (reason.find("OOMKilled") != std::string::npos) return "OOMKilled";
  if (reason.find("MPI") != std::string::npos) return "MPI limit";
  if (reason.find("DeadlineExceeded") != std::string::npos) return "DeadlineExceeded";
  if (reason.starts_with("Refused")) return "refused";
  return "failed";
}

json RowOf(const Scenario& scenario, const RunRecord& record) {
  json row = json::object();
  std::string outcome = "Succeeded", reason;
  std::map<std::string, double> breakdown;
  std::map<std::string, std::int64_t> peaks;
  std::vector<double> queueing;
  std::int64_t restarts = 0;
  double lost = 0;
  PodsOf pods_of;
  for (const PodRecord& pod : record.pods)
    if (pod.job) pods_of[*pod.job].push_back(&pod);
  for (const JobKey& key : record.job_order) {
    const std::vector<const PodRecord*>& pods = pods_of[key];
    const JobRecord& job = record.jobs.at(key);
    if (outcome == "Succeeded" && job.phase != "Succeeded") {
      const bool failed = job.phase == "Failed" || !job.submit_error.empty();
      outcome = failed ? "Failed" : "Unfinished";
      reason = failed ? FailureReason(job, pods)
                      : "job " + key.ToString() + " was " + (job.phase.empty() ? "not created" : job.phase) +
                            " when the run stopped at " + FormatDuration(record.end);
    }
    const std::map<std::string, Micros> stages = job.Breakdown();
    for (const char* stage : kBreakdownStages) {
      auto it = stages.find(stage);
      breakdown[stage] += it == stages.end() ? 0 : Seconds(it->second);
    }
    queueing.push_back(QueueingSeconds(job, pods, record.end));
    for (const auto& [role, bytes] : job.peak_memory) peaks[role] = std::max(peaks[role], bytes);
    restarts += job.restarts;
    lost += LostGpuSeconds(job, pods, record.end);
  }
  const std::size_t jobs = record.job_order.size();
  for (auto& [stage, seconds] : breakdown) seconds = jobs == 0 ? 0 : seconds / static_cast<double>(jobs);
  std::sort(queueing.begin(), queueing.end());
  const double span = RunSpanSeconds(record);
  const double price = scenario.cluster.PricePerHour();
  row["outcome"] = outcome;
  row["reason"] = reason;
  row["lostTo"] = LostTo(outcome, reason);
  row["partitionMode"] = jobs == 0 ? "" : record.jobs.at(record.job_order.front()).partition_mode;
  row["jobs"] = jobs;
  row["spanSeconds"] = span;
  row["makespanSeconds"] = outcome == "Succeeded" ? json(span) : json(nullptr);
  row["breakdownSeconds"] = breakdown;
  row["gpuHours"] = record.gpu_seconds / 3600;
  row["idleGpuHours"] = std::max(0.0, static_cast<double>(record.gpus) * span - record.gpu_seconds) / 3600;
  row["lostGpuHours"] = lost / 3600;
  row["peakMemoryBytes"] = peaks;
  row["restarts"] = restarts;
  row["cost"] = price > 0 ? json(price * span / 3600) : json(nullptr);
  json q = json::object();
  for (int p : kQueueingPercentiles) q["p" + std::to_string(p)] = Percentile(queueing, p);
  q["max"] = queueing.empty() ? 0.0 : queueing.back();
  row["queueingSeconds"] = q;
  row["gpuUtilization"] = record.gpus > 0 && span > 0 ? json(record.gpu_seconds / (static_cast<double>(record.gpus) * span)) : json(nullptr);
  row["nodes"] = record.nodes;
  row["gpus"] = record.gpus;
  row["simulatedSeconds"] = Seconds(record.end);
  row["traceHash"] = record.trace_hash;
  return row;
}

}  // namespace harness::sweep
