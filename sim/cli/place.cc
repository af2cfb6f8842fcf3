// `dglsim place INPUT.json [--out FILE]`: the simulated scheduler alone on a given cluster, for the
// placement comparison with kube-scheduler (scripts/scheduler-conformance.sh,
// docs/scheduler-conformance.md). The input is one JSON object:
//
//   nodes        Node objects (labels, taints, status.allocatable, a Ready condition), created as given
//   services     Service objects: their selectors are what topology spreading counts
//   preplaced    Pod objects with spec.nodeName: already running, they use their nodes' resources
//   pods         Pod objects without spec.nodeName: placed one at a time, in this order
//   percentageOfNodesToScore   0 (kube-scheduler's adaptive default, the default here) to 100
//   follow       optional {"namespace/name": "node" or null}: after each decision the pod is put
//                where this says (another scheduler's placement; null: not placed), so every
//                decision starts from the same state as that scheduler's
//
// Each pod is created, the simulation runs one simulated second (the scheduler binds it or marks it
// Unschedulable), and an unschedulable pod is deleted before the next, as the real run does. Output,
// one JSON object: "placements", one per pod in order: {"pod", "node" (null when unschedulable),
// "message" (the PodScheduled message when unschedulable), "scores": {node: {plugin: weighted
// score, ..., "total"}} for every node that passes the filters, "rejected": {node: the first failing
// filter's reason}},
// the scores being Scheduler::Explain's just before the decision. Deterministic: no wall clock,
// seed 1. Exit 0; 2 on unreadable or malformed input (file and field named).
#include "sim/cli/commands.h"
#include "sim/cluster/scheduler.h"
#include "sim/cluster/simulation.h"

#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>

namespace dglsim_cli {
namespace {

using json = kube::Json;

struct PlaceArgs {
  std::string input;
  std::string out;
};

json ScoresJson(const sim::ScoreBreakdown& s) {
  json out = {{"NodeResourcesFit", s.fit}, {"TaintToleration", s.taint}};
  if (s.balanced_scored) out["NodeResourcesBalancedAllocation"] = s.balanced;
  if (s.affinity_scored) out["NodeAffinity"] = s.affinity;
  if (s.spread_scored) out["PodTopologySpread"] = s.spread;
  out["total"] = s.Total();
  return out;
}

std::string KeyOf(const json& pod) {
  return pod["metadata"].value("namespace", "default") + "/" + pod["metadata"].value("name", "");
}

// Reads and checks the input: every listed field an array of objects with a metadata.name.
std::optional<json> ReadInput(const std::string& file) {
  std::ifstream in(file);
  if (!in) {
    std::cerr << file << ": cannot read\n";
    return std::nullopt;
  }
  std::stringstream text;
  text << in.rdbuf();
  json input = json::parse(text.str(), nullptr, false);
  if (input.is_discarded() || !input.is_object()) {
    std::cerr << file << ": not a JSON object\n";
    return std::nullopt;
  }
  for (const char* field : {"nodes", "services", "preplaced", "pods"}) {
    if (!input.contains(field)) input[field] = json::array();
    if (!input[field].is_array()) {
      std::cerr << file << ": " << field << ": not an array\n";
      return std::nullopt;
    }
    for (std::size_t i = 0; i < input[field].size(); ++i) {
      const json& o = input[field][i];
      if (!o.is_object() || !o.contains("metadata") || !o["metadata"].is_object() ||
          !o["metadata"].contains("name") || !o["metadata"]["name"].is_string()) {
        std::cerr << file << ": " << field << "[" << i << "].metadata.name: missing\n";
        return std::nullopt;
      }
    }
  }
  const json& p = input.contains("percentageOfNodesToScore") ? input["percentageOfNodesToScore"] : json(0);
  if (!p.is_number_integer() || p.get<int>() < 0 || p.get<int>() > 100) {
    std::cerr << file << ": percentageOfNodesToScore: a whole number from 0 to 100\n";
    return std::nullopt;
  }
  if (input.contains("follow") && !input["follow"].is_object()) {
    std::cerr << file << ": follow: not an object\n";
    return std::nullopt;
  }
  return input;
}

// The decision's record: the explanation taken before it, then where the pod went.
json Decide(sim::Simulation& simulation, const sim::Scheduler& scheduler, const json& pod) {
  json record = {{"pod", KeyOf(pod)}, {"node", nullptr}, {"scores", json::object()}, {"rejected", json::object()}};
  for (const auto& v : scheduler.Explain(pod)) {
    if (v.fits)
      record["scores"][v.node] = ScoresJson(v.scores);
    else
      record["rejected"][v.node] = v.reason;
  }
  const std::string ns = pod["metadata"].value("namespace", "default");
  const std::string name = pod["metadata"]["name"];
  auto created = simulation.store().Create("pods", pod, ns);
  if (!created.ok()) {
    record["message"] = "create refused: " + created.status().ToString();
    return record;
  }
  simulation.RunUntil(simulation.Now() + sim::kSecond);
  auto got = simulation.store().Get("pods", ns, name);
  if (!got.ok()) return record;
  const json& now = **got;
  if (const std::string node = now["spec"].value("nodeName", ""); !node.empty()) {
    record["node"] = node;
    return record;
  }
  for (const auto& c : now["status"].value("conditions", json::array()))
    if (c.value("type", "") == "PodScheduled") record["message"] = c.value("message", "");
  return record;
}

// Puts the pod where `follow` says, when that is not where it went.
void Follow(sim::Simulation& simulation, const json& pod, const json& record, const json& target) {
  if (record["node"] == target) return;
  const std::string ns = pod["metadata"].value("namespace", "default");
  const std::string name = pod["metadata"]["name"];
  (void)simulation.store().Delete("pods", ns, name, {.grace_period_seconds = 0});
  simulation.RunUntil(simulation.Now() + sim::kSecond);
  if (!target.is_string()) return;
  json bound = pod;
  bound["spec"]["nodeName"] = target;
  (void)simulation.store().Create("pods", bound, ns);
  simulation.RunUntil(simulation.Now() + sim::kSecond);
}

int Place(const PlaceArgs& args) {
  std::optional<json> input = ReadInput(args.input);
  if (!input) return kExitBadInput;
  sim::Simulation simulation({.seed = 1});
  std::set<std::string> namespaces;
  for (const char* field : {"services", "preplaced", "pods"})
    for (const auto& o : (*input)[field]) namespaces.insert(o["metadata"].value("namespace", "default"));
  for (const auto& ns : namespaces)  // "default" is there already
    (void)simulation.store().Create("namespaces", {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}});
  for (const auto& node : (*input)["nodes"])
    if (auto r = simulation.store().Create("nodes", node); !r.ok()) {
      std::cerr << args.input << ": nodes: " << node["metadata"]["name"] << ": " << r.status().ToString() << "\n";
      return kExitBadInput;
    }
  for (const char* field : {"services", "preplaced"})
    for (const auto& o : (*input)[field])
      if (auto r = simulation.store().Create(field == std::string("services") ? "services" : "pods", o,
                                             o["metadata"].value("namespace", "default"));
          !r.ok()) {
        std::cerr << args.input << ": " << field << ": " << o["metadata"]["name"] << ": " << r.status().ToString() << "\n";
        return kExitBadInput;
      }
  auto& scheduler = simulation.AddActor<sim::Scheduler>(sim::SchedulerConfig{
      .latency_jitter = 0, .percentage_of_nodes_to_score = input->value("percentageOfNodesToScore", 0)});
  simulation.Start();
  simulation.RunUntil(sim::kSecond);
  json placements = json::array();
  const json follow = input->value("follow", json());
  for (const auto& pod : (*input)["pods"]) {
    json record = Decide(simulation, scheduler, pod);
    const std::string ns = pod["metadata"].value("namespace", "default");
    if (follow.is_object()) {
      Follow(simulation, pod, record, follow.value(KeyOf(pod), json()));
    } else if (record["node"].is_null()) {
      (void)simulation.store().Delete("pods", ns, pod["metadata"]["name"], {.grace_period_seconds = 0});
      simulation.RunUntil(simulation.Now() + sim::kSecond);
    }
    placements.push_back(std::move(record));
  }
  const std::string text = json{{"placements", placements}}.dump(1) + "\n";
  if (args.out.empty() || args.out == "-") {
    std::cout << text;
    return kExitOk;
  }
  std::ofstream out(args.out);
  out << text;
  out.close();
  if (!out) {
    std::cerr << args.out << ": cannot write\n";
    return kExitBadInput;
  }
  return kExitOk;
}

}  // namespace

Subcommand AddPlaceCommand(CLI::App& app) {
  auto args = std::make_shared<PlaceArgs>();
  CLI::App* place = app.add_subcommand(
      "place", "Place pods one at a time with the simulated scheduler alone (the comparison with kube-scheduler)");
  place->add_option("INPUT", args->input, "JSON: nodes, services, preplaced, pods[, follow, percentageOfNodesToScore]")
      ->required();
  place->add_option("--out", args->out, "Write the placements here (default: standard output)");
  return Subcommand{place, [args] { return Place(*args); }};
}

}  // namespace dglsim_cli
