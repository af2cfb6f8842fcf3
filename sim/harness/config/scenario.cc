// Scenario files: the public face of the loader (loader.h holds its insides), and the names of
// the format's enumerations. See scenario.h.
#include "sim/harness/config/scenario.h"

#include "sim/cluster/scheduler.h"
#include "sim/harness/config/loader.h"

#include <algorithm>
#include <exception>
#include <filesystem>
#include <limits>

namespace harness {
namespace {

using json = kube::Json;

// Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps.
std::size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

ScenarioLoad LoadFrom(const YamlLoad& load, const std::string& file, const std::string& base_dir,
                      std::optional<std::uint64_t> seed = std::nullopt) {
  ScenarioLoad out;
  try {
    loading::Loader(file, base_dir, &out, seed).Load(load);
  } catch (const std::exception& e) {
    // Every check of the loader is written not to throw; should one ever do, it is a problem line, not a crash.
    out.problems.push_back(file + ": internal error while loading the scenario: " + e.what());
  }
  if (!out.problems.empty()) out.scenario.reset();
  return out;
}

}  // namespace

const char* ToString(Scoring scoring) { return scoring == Scoring::kMostAllocated ? "MostAllocated" : "LeastAllocated"; }

const char* ToString(JobAction action) {
  switch (action) {
    case JobAction::kSubmit: return "submit";
    case JobAction::kDelete: return "delete";
    case JobAction::kSuspend: return "suspend";
    case JobAction::kResume: return "resume";
  }
  return "?";
}

const char* ToString(FaultKind kind) {
  switch (kind) {
    case FaultKind::kNodeDown: return "NodeDown";
    case FaultKind::kNodeUp: return "NodeUp";
    case FaultKind::kPodKill: return "PodKill";
    case FaultKind::kOOM: return "OOM";
    case FaultKind::kImagePullError: return "ImagePullError";
    case FaultKind::kNetworkSlow: return "NetworkSlow";
    case FaultKind::kApiFaults: return "ApiFaults";
    case FaultKind::kWatchDrop: return "WatchDrop";
    case FaultKind::kOperatorRestart: return "OperatorRestart";
    case FaultKind::kRbacRuleRemoved: return "RbacRuleRemoved";
    case FaultKind::kNodeDeleted: return "NodeDeleted";
  }
  return "?";
}

const char* ToString(ExpectKind kind) {
  switch (kind) {
    case ExpectKind::kPhase: return "phase";
    case ExpectKind::kPhases: return "phases";
    case ExpectKind::kCondition: return "condition";
    case ExpectKind::kWithin: return "within";
    case ExpectKind::kRestarts: return "restarts";
    case ExpectKind::kConfigMapLines: return "configMap lines";
    case ExpectKind::kConfigMapLine: return "configMap line";
    case ExpectKind::kBreakdown: return "breakdown";
    case ExpectKind::kPeakMemory: return "peakMemory";
    case ExpectKind::kPodCount: return "pods";
    case ExpectKind::kNodeCount: return "nodes";
    case ExpectKind::kInvariants: return "invariants";
  }
  return "?";
}

const std::vector<DatasetPreset>& DatasetPresets() {
  // Node and edge counts as OGB publishes them (docs/models.md, "Datasets"); edges as stored, not
  // symmetrised; directed as OGB's master.csv says (add_inverse_edge false: papers100M, arxiv).
  static const std::vector<DatasetPreset> kPresets = {
      {"ogbn-products", 2'449'029, 61'859'140, 100, "http://snap.stanford.edu/ogb/data/nodeproppred/products.zip", false},
      {"ogbn-papers100M", 111'059'956, 1'615'685'872, 128,
       "http://snap.stanford.edu/ogb/data/nodeproppred/papers100M-bin.zip", true},
      {"ogbn-arxiv", 169'343, 1'166'243, 128, "http://snap.stanford.edu/ogb/data/nodeproppred/arxiv.zip", true},
      {"ogbn-proteins", 132'534, 39'561'252, 8, "http://snap.stanford.edu/ogb/data/nodeproppred/proteins.zip", false},
  };
  return kPresets;
}

std::vector<std::string> ClusterSpec::NodeNames() const {
  std::vector<std::string> names;
  for (const NodeGroup& group : nodes) {
    if (group.node_template) {
      for (int i = 0; i < group.node_template->count; ++i) names.push_back(group.node_template->name + "-" + std::to_string(i));
    }
    if (group.manifest) {
      for (const json& node : group.manifest->nodes) names.push_back(node["metadata"]["name"].get<std::string>());
    }
  }
  return names;
}

double ClusterSpec::PricePerHour() const {
  double price = 0;
  for (const NodeGroup& group : nodes) {
    if (group.node_template) price += group.node_template->price_per_hour * group.node_template->count;
    if (group.manifest) price += group.manifest->price_per_hour_total;
  }
  return price;
}

std::map<std::string, double> ClusterSpec::PricesPerHour() const {
  std::map<std::string, double> prices;
  for (const NodeGroup& group : nodes) {
    if (const auto& t = group.node_template; t && t->price_per_hour > 0) {
      for (int i = 0; i < t->count; ++i) prices[t->name + "-" + std::to_string(i)] = t->price_per_hour;
    }
    if (group.manifest) prices.insert(group.manifest->prices.begin(), group.manifest->prices.end());
  }
  return prices;
}

std::int64_t ClusterSpec::PodCapacity() const {
  std::int64_t pods = 0;
  for (const NodeGroup& group : nodes) {
    if (const auto& t = group.node_template) {
      auto it = t->capacity.find("pods");
      pods += (it != t->capacity.end() ? it->second.units : sim::kDefaultMaxPods) * t->count;
    }
    if (group.manifest)
      for (const kube::Json& node : group.manifest->nodes) pods += sim::NodeAllocatable(node).pods;
  }
  for (const NodePoolSpec& pool : pools) {
    auto it = pool.machine.capacity.find("pods");
    pods += (it != pool.machine.capacity.end() ? it->second.units : sim::kDefaultMaxPods) * pool.max;
  }
  return pods;
}

std::string SuggestName(std::string_view word, const std::vector<std::string>& candidates) {
  if (word.empty() || word.size() > 200) return "";
  const std::string lower = Lower(word);
  std::string best;
  std::size_t best_distance = std::numeric_limits<std::size_t>::max();
  for (const std::string& candidate : candidates) {
    if (candidate == word || candidate.size() > 200) continue;
    const std::size_t d = Lower(candidate) == lower ? 0 : EditDistance(word, candidate);
    const std::size_t limit = std::min(word.size(), candidate.size()) <= 3 ? 1 : 2;
    if (d <= limit && d < best_distance) {
      best = candidate;
      best_distance = d;
    }
  }
  return best;
}

ScenarioLoad LoadScenario(const std::string& path, std::optional<std::uint64_t> seed) {
  const std::string base = std::filesystem::path(path).parent_path().string();
  return LoadFrom(LoadYamlFile(path), path, base, seed);
}

ScenarioLoad LoadScenarioString(std::string_view text, std::string_view file, std::string_view base_dir) {
  return LoadFrom(LoadYamlString(text, file), std::string(file), std::string(base_dir));
}

ManifestReport ValidateScenarioFile(const std::string& path) {
  ScenarioLoad load = LoadScenario(path);
  ManifestReport report;
  report.file = path;
  report.documents = load.scenario ? 1 : 0;
  report.problems = std::move(load.problems);
  report.warnings = std::move(load.warnings);
  if (load.scenario) {
    const Scenario& s = *load.scenario;
    std::size_t nodes = s.cluster.NodeNames().size();
    report.notes.push_back(path + ": note: scenario " + s.name + ": " + std::to_string(nodes) + " nodes, " +
                           std::to_string(s.job_keys.size()) + " jobs, " + std::to_string(s.faults.size()) + " faults, " +
                           std::to_string(s.expectations.size()) + " expectations, until " + FormatDuration(s.until));
  }
  return report;
}

}  // namespace harness
