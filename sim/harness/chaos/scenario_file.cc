#include "sim/harness/chaos/scenario_file.h"

#include "sim/harness/config/units.h"
#include "sim/harness/config/yaml_json.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <sstream>

namespace harness::chaos {

using json = kube::Json;

Scenario SeedScenario(const Scenario& base, std::uint64_t seed, const std::vector<FaultSpec>& drawn,
                      bool keep_expectations) {
  Scenario s = base;
  s.seed = seed;
  s.name = base.name + "-seed-" + std::to_string(seed);
  s.description = "dglsim chaos: " + base.name + " with seed " + std::to_string(seed) + " and its fault schedule";
  s.faults.insert(s.faults.end(), drawn.begin(), drawn.end());
  if (!keep_expectations) s.expectations.clear();
  return s;
}

std::string ExactDuration(Micros d) {
  if (d % kube::kMillisecond == 0) return FormatDuration(d);
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.6fs", static_cast<double>(d) / kube::kSecond);
  return buf;
}

json FaultToJson(const FaultSpec& f) {
  json out = json::object();
  if (f.trigger.at) {
    out["at"] = ExactDuration(*f.trigger.at);
  } else if (f.trigger.job) {
    out["when"] = {{"job", f.trigger.job->ToString()}, {"phase", f.trigger.phase}};
    if (f.trigger.after != 0) out["after"] = ExactDuration(f.trigger.after);
  }
  out["kind"] = ToString(f.kind);
  switch (f.kind) {
    case FaultKind::kNodeDown:
    case FaultKind::kNodeDeleted:
      if (f.node_of) {
        out["nodeOf"] = f.node_of->ToString();
      } else {
        out["node"] = f.node;
      }
      break;
    case FaultKind::kNodeUp: out["node"] = f.node; break;
    case FaultKind::kPodKill:
    case FaultKind::kOOM:
      out["pod"] = f.pod ? f.pod->ToString() : std::string();
      if (!f.container.empty()) out["container"] = f.container;
      if (f.kind == FaultKind::kPodKill) out["exitCode"] = f.exit_code;
      break;
    case FaultKind::kImagePullError:
      out["image"] = f.image;
      if (!f.node.empty()) out["node"] = f.node;
      break;
    case FaultKind::kNetworkSlow:
      if (!f.node.empty()) out["node"] = f.node;
      out["factor"] = f.factor;
      break;
    case FaultKind::kApiFaults:
      out["conflictRate"] = f.conflict_rate;
      out["errorRate"] = f.error_rate;
      out["timeoutRate"] = f.timeout_rate;
      if (f.latency > 0) out["latency"] = ExactDuration(f.latency);
      break;
    case FaultKind::kWatchDrop:
    case FaultKind::kOperatorRestart: break;
    case FaultKind::kRbacRuleRemoved:
      out["role"] = f.role;
      out["rule"] = f.rule;
      break;
  }
  if (f.duration) out["for"] = ExactDuration(*f.duration);
  return out;
}

namespace {

// `path` (relative to the scenario's folder) relative to `out_dir`; absolute paths stay.
void Rebase(json& holder, const char* key, const std::string& base_dir, const std::string& out_dir) {
  namespace fs = std::filesystem;
  if (!holder.is_object() || !holder.contains(key) || !holder[key].is_string()) return;
  const fs::path p = holder[key].get<std::string>();
  if (p.is_absolute()) return;
  std::error_code ec;
  const fs::path from = fs::weakly_canonical(fs::absolute(fs::path(base_dir.empty() ? "." : base_dir) / p, ec), ec);
  const fs::path dir = fs::weakly_canonical(fs::absolute(out_dir.empty() ? "." : out_dir, ec), ec);
  const fs::path rel = from.lexically_relative(dir);
  holder[key] = rel.empty() ? from.string() : rel.string();
}

void RebasePaths(json& doc, const std::string& base_dir, const std::string& out_dir) {
  Rebase(doc, "calibration", base_dir, out_dir);
  auto each = [&](json* list, const char* key) {
    if (list == nullptr || !list->is_array()) return;
    for (json& item : *list) Rebase(item, key, base_dir, out_dir);
  };
  each(doc.contains("jobs") ? &doc["jobs"] : nullptr, "manifest");
  each(doc.contains("datasets") ? &doc["datasets"] : nullptr, "edgeList");
  if (doc.contains("cluster") && doc["cluster"].is_object() && doc["cluster"].contains("nodes"))
    each(&doc["cluster"]["nodes"], "manifest");
}

}  // namespace

ScenarioFileText SeedScenarioFile(const Scenario& base, const Scenario& scenario, bool keep_expectations,
                                  const std::string& out_dir, const std::string& comment) {
  YamlLoad load = LoadYamlFile(base.file);
  const json* original = nullptr;
  for (const YamlDocument& d : load.documents)
    if (!d.value.is_null() && original == nullptr) original = &d.value;
  if (!load.ok() || original == nullptr || !original->is_object())
    return {.error = base.file + ": cannot read the scenario again" + (load.ok() ? "" : ": " + load.error->ToString())};
  json doc = *original;
  RebasePaths(doc, base.base_dir, out_dir);
  doc["seed"] = scenario.seed;
  if (!doc.contains("metadata") || !doc["metadata"].is_object()) doc["metadata"] = json::object();
  doc["metadata"]["name"] = scenario.name;
  doc["metadata"]["description"] = scenario.description;
  json faults = json::array();
  for (const FaultSpec& f : scenario.faults) faults.push_back(FaultToJson(f));
  doc["faults"] = faults;
  json expect = keep_expectations && doc.contains("expect") && doc["expect"].is_array() ? doc["expect"] : json::array();
  const json all_invariants = {{"invariants", "all"}};
  if (std::find(expect.begin(), expect.end(), all_invariants) == expect.end()) expect.push_back(all_invariants);
  doc["expect"] = expect;
  std::ostringstream out;
  std::istringstream lines(comment);
  for (std::string line; std::getline(lines, line);) out << "# " << line << "\n";
  out << JsonToYaml(doc, {"apiVersion", "kind", "metadata", "seed", "until", "cluster", "api", "operator", "datasets",
                          "calibration", "jobs", "faults", "expect"});
  return {.text = out.str()};
}

}  // namespace harness::chaos
