#include "sim/harness/sweep/metrics.h"

#include "fakeapi/client/json_path.h"
#include "operator/api/command_line.h"
#include "sim/dgl/flags.h"
#include "sim/harness/config/units.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace harness::sweep {
namespace {

using json = kube::Json;

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

using Intervals = std::vector<std::pair<Micros, Micros>>;

// `intervals` as sorted, disjoint intervals covering the same time.
Intervals Merged(Intervals intervals) {
  std::sort(intervals.begin(), intervals.end());
  Intervals out;
  for (const auto& [begin, end] : intervals) {
    if (end <= begin) continue;
    if (!out.empty() && begin <= out.back().second) out.back().second = std::max(out.back().second, end);
    else out.emplace_back(begin, end);
  }
  return out;
}

// The length of the union of `intervals`.
Micros UnionLength(const Intervals& intervals) {
  Micros total = 0;
  for (const auto& [begin, end] : Merged(intervals)) total += end - begin;
  return total;
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
  Intervals waits;
  for (const PodRecord* pod : pods) {
    if (!pod->created || (restart && *pod->created >= *restart)) continue;
    waits.emplace_back(*pod->created, pod->bound.value_or(pod->deleted ? *pod->deleted : end_of_run));
  }
  return Seconds(UnionLength(waits));
}

// The epochs a job's launcher runs: dglrun's --num-epochs (the training script's default when it is
// not given), one run of dglkerun; 0 for any other launcher (no epochs to speak of).
int EpochsOf(const kube::Json& job, const Scenario& scenario) {
  const json* containers = kube::JsonAt(job, {"spec", "dglReplicaSpecs", "Launcher", "template", "spec", "containers"});
  if (containers == nullptr || !containers->is_array() || containers->empty()) return 0;
  const json& launcher = (*containers)[0];
  if (dgl::CommandRuns(launcher, "dglkerun")) return 1;
  if (!dgl::CommandRuns(launcher, "dglrun")) return 0;
  auto strings = [&](const char* field) {
    std::vector<std::string> out;
    if (const json* list = kube::JsonAt(launcher, {field}); list != nullptr && list->is_array())
      for (const json& item : *list)
        if (item.is_string()) out.push_back(item.get<std::string>());
    return out;
  };
  const sim::dglmodels::DglFlags flags = sim::dglmodels::ParseDglFlags(strings("command"), strings("args"));
  if (flags.num_epochs > 0) return flags.num_epochs;
  return scenario.calibration.value_or(sim::dglmodels::Calibration{}).default_epochs;
}

// Each submitted job's manifest (as the scenario holds it), by key.
std::map<JobKey, const json*> SubmittedJobs(const Scenario& scenario) {
  std::map<JobKey, const json*> out;
  for (const JobEntry& entry : scenario.jobs) {
    if (entry.action != JobAction::kSubmit) continue;
    for (std::size_t i = 0; i < entry.targets.size() && i < entry.objects.size(); ++i) out.emplace(entry.targets[i], &entry.objects[i]);
  }
  return out;
}

// The length of the overlap of [from, to) with sorted, disjoint `intervals`.
Micros Overlap(const Intervals& intervals, Micros from, Micros to) {
  Micros total = 0;
  for (const auto& [begin, end] : intervals) total += std::max<Micros>(0, std::min(end, to) - std::max(begin, from));
  return total;
}

// GPU-seconds the job's pods held while the job trained (its training stage's union).
double TrainingGpuSeconds(const JobRecord& job, const std::vector<const PodRecord*>& pods, Micros end_of_run) {
  auto it = job.stage_intervals.find("training");
  if (it == job.stage_intervals.end()) return 0;
  const Intervals merged = Merged(it->second);
  double seconds = 0;
  for (const PodRecord* pod : pods) {
    if (pod->gpus == 0 || !pod->started) continue;
    seconds += static_cast<double>(pod->gpus) * Seconds(Overlap(merged, *pod->started, pod->released.value_or(end_of_run)));
  }
  return seconds;
}

// What the run costs when a node is paid for only while it holds a pod: each priced node's price
// times the union of its pods' intervals from binding to release. nullopt when no node has a price.
std::optional<double> BusyCost(const Scenario& scenario, const RunRecord& record) {
  std::map<std::string, double> prices = scenario.cluster.PricesPerHour();
  for (const PoolNodeRecord& node : record.pool_nodes)
    if (node.price_per_hour > 0) prices[node.name] = node.price_per_hour;
  if (prices.empty()) return std::nullopt;
  std::map<std::string, Intervals> held;
  for (const PodRecord& pod : record.pods) {
    if (pod.node.empty() || !pod.bound || !prices.contains(pod.node)) continue;
    held[pod.node].emplace_back(*pod.bound, pod.released.value_or(record.end));
  }
  double cost = 0;
  for (const auto& [node, intervals] : held) cost += prices.at(node) * Seconds(UnionLength(intervals)) / 3600;
  return cost;
}

// The cluster's figures over the span, fixed nodes and pool nodes alike.
struct Provided {
  double gpu_seconds = 0;   // GPUs the cluster provides over the span, held or not
  double node_seconds = 0;
  std::optional<double> cost;  // nullopt when nothing is priced
  int peak_nodes = 0;       // Ready at once, fixed ones included
  int interruptions = 0;
};

Provided ProvidedOver(const Scenario& scenario, const RunRecord& record, double span) {
  Provided p;
  const bool pools = !record.pool_nodes.empty();
  const double fixed_price = scenario.cluster.PricePerHour();
  p.gpu_seconds = static_cast<double>(pools ? record.fixed_gpus : record.gpus) * span;
  p.node_seconds = static_cast<double>(pools ? record.fixed_nodes : record.nodes) * span;
  if (fixed_price > 0) p.cost = fixed_price * span / 3600;
  std::vector<std::pair<Micros, int>> steps;
  for (const PoolNodeRecord& node : record.pool_nodes) {
    const double billed = PoolNodeBilledSeconds(node, record);
    p.gpu_seconds += static_cast<double>(node.gpus) * billed;
    p.node_seconds += billed;
    if (node.price_per_hour > 0) p.cost = p.cost.value_or(0) + node.price_per_hour * billed / 3600;
    p.interruptions += node.interrupted ? 1 : 0;
    if (node.ready) {
      steps.emplace_back(*node.ready, 1);
      if (node.gone) steps.emplace_back(*node.gone, -1);
    }
  }
  std::sort(steps.begin(), steps.end());
  int ready = 0, peak = 0;
  for (const auto& [at, delta] : steps) peak = std::max(peak, ready += delta);
  p.peak_nodes = (pools ? record.fixed_nodes : record.nodes) + peak;
  return p;
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
  double lost = 0, training_gpu_seconds = 0;
  std::vector<double> epoch_seconds;
  const std::map<JobKey, const json*> manifests = SubmittedJobs(scenario);
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
    training_gpu_seconds += TrainingGpuSeconds(job, pods, record.end);
    auto manifest = manifests.find(key);
    const int epochs = manifest == manifests.end() ? 0 : EpochsOf(*manifest->second, scenario);
    if (auto training = stages.find("training"); epochs > 0 && training != stages.end() && training->second > 0)
      epoch_seconds.push_back(Seconds(training->second) / epochs);
  }
  const std::size_t jobs = record.job_order.size();
  for (auto& [stage, seconds] : breakdown) seconds = jobs == 0 ? 0 : seconds / static_cast<double>(jobs);
  std::sort(queueing.begin(), queueing.end());
  const double span = RunSpanSeconds(record);
  const Provided provided = ProvidedOver(scenario, record, span);
  row["outcome"] = outcome;
  row["reason"] = reason;
  row["lostTo"] = LostTo(outcome, reason);
  row["partitionMode"] = jobs == 0 ? "" : record.jobs.at(record.job_order.front()).partition_mode;
  row["jobs"] = jobs;
  row["spanSeconds"] = span;
  row["makespanSeconds"] = outcome == "Succeeded" ? json(span) : json(nullptr);
  row["breakdownSeconds"] = breakdown;
  row["gpuHours"] = record.gpu_seconds / 3600;
  row["providedGpuHours"] = provided.gpu_seconds / 3600;
  row["idleGpuHours"] = std::max(0.0, provided.gpu_seconds - record.gpu_seconds) / 3600;
  row["lostGpuHours"] = lost / 3600;
  row["peakMemoryBytes"] = peaks;
  row["restarts"] = restarts;
  row["cost"] = provided.cost ? json(*provided.cost) : json(nullptr);
  const std::optional<double> busy = BusyCost(scenario, record);
  row["busyCost"] = busy ? json(*busy) : json(nullptr);
  json q = json::object();
  for (int p : kQueueingPercentiles) q["p" + std::to_string(p)] = Percentile(queueing, p);
  q["max"] = queueing.empty() ? 0.0 : queueing.back();
  row["queueingSeconds"] = q;
  const double gpu_capacity = provided.gpu_seconds;
  row["gpuUtilization"] = gpu_capacity > 0 ? json(record.gpu_seconds / gpu_capacity) : json(nullptr);
  row["trainingGpuUtilization"] = gpu_capacity > 0 ? json(training_gpu_seconds / gpu_capacity) : json(nullptr);
  double epoch_sum = 0;
  for (double e : epoch_seconds) epoch_sum += e;
  row["epochSeconds"] = epoch_seconds.empty() ? json(nullptr) : json(epoch_sum / static_cast<double>(epoch_seconds.size()));
  row["nodes"] = record.nodes;
  row["nodeHours"] = provided.node_seconds / 3600;
  row["peakNodes"] = provided.peak_nodes;
  row["poolNodes"] = record.pool_nodes.size();
  row["interruptions"] = provided.interruptions;
  row["gpus"] = record.gpus;
  row["simulatedSeconds"] = Seconds(record.end);
  row["traceHash"] = record.trace_hash;
  return row;
}

}  // namespace harness::sweep
