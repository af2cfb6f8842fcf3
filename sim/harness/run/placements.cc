#include "sim/harness/run/placements.h"

#include "fakeapi/client/json_path.h"

#include <map>
#include <memory>
#include <string>
#include <utility>

namespace harness {

namespace {

using json = kube::Json;

// Adds "metadata.name In [node]" to every required node selector term of `pod` (one term when none).
void PinTo(json& pod, const std::string& node) {
  const json field = {{"key", "metadata.name"}, {"operator", "In"}, {"values", json::array({node})}};
  json& spec = pod["spec"];
  if (!spec.is_object()) return;
  json& affinity = spec["affinity"];
  if (!affinity.is_object()) affinity = json::object();
  json& node_affinity = affinity["nodeAffinity"];
  if (!node_affinity.is_object()) node_affinity = json::object();
  json& required = node_affinity["requiredDuringSchedulingIgnoredDuringExecution"];
  if (!required.is_object()) required = json::object();
  json& terms = required["nodeSelectorTerms"];
  if (!terms.is_array() || terms.empty()) terms = json::array({json::object()});
  for (json& term : terms) {
    json& fields = term["matchFields"];
    if (!fields.is_array()) fields = json::array();
    fields.push_back(field);
  }
}

}  // namespace

void InstallPlacements(sim::Simulation& sim, const std::vector<PlacementSpec>& placements) {
  if (placements.empty()) return;
  struct State {
    std::map<std::string, std::vector<std::string>> nodes;  // "ns/name" -> nodes, in creation order
    std::map<std::string, std::size_t> admitted;            // "ns/name" -> pods admitted so far
  };
  auto state = std::make_shared<State>();
  for (const PlacementSpec& p : placements) {
    auto& nodes = state->nodes[p.pod.ToString()];
    nodes.insert(nodes.end(), p.nodes.begin(), p.nodes.end());
  }
  sim.store().AddDefaulter("pods", [state](fakeapi::AdmissionRequest& r) {
    if (r.operation != fakeapi::Operation::kCreate || !r.subresource.empty()) return;
    const std::string key =
        kube::JsonString(*r.object, {"metadata", "namespace"}) + "/" + kube::JsonString(*r.object, {"metadata", "name"});
    auto it = state->nodes.find(key);
    if (it == state->nodes.end()) return;
    const std::size_t i = state->admitted[key]++;
    if (i < it->second.size()) PinTo(*r.object, it->second[i]);
  });
}

}  // namespace harness
