// Fuzz target: label and field selectors as they arrive in a query string or a manifest
// (kube::LabelSelector::Parse and FromJson, kube::FieldSelector::Parse). Any text is answered with
// a selector or a BadRequest, never a crash; a parsed label selector prints (ToString) as text
// that parses back to the same requirements, which is how the HTTP client sends a selector built
// from a manifest's matchLabels and matchExpressions; a selector matches the labels it pins.
#include "fakeapi/client/json.h"
#include "fakeapi/client/selector.h"
#include "fakeapi/server/json_bounds.h"
#include "tests/fuzz/fuzz_check.h"

#include <string>

using dglsim_fuzz::Require;
using json = kube::Json;

namespace {

bool SameRequirements(const kube::LabelSelector& a, const kube::LabelSelector& b) {
  const auto& x = a.requirements();
  const auto& y = b.requirements();
  if (x.size() != y.size()) return false;
  for (std::size_t i = 0; i < x.size(); ++i)
    if (x[i].key != y[i].key || x[i].op != y[i].op || x[i].values != y[i].values) return false;
  return true;
}

// The labels an equality-only selector asks for.
json PinnedLabels(const kube::LabelSelector& s) {
  json labels = json::object();
  for (const auto& r : s.requirements()) {
    if (r.op != kube::LabelSelector::Op::kEquals && r.op != kube::LabelSelector::Op::kIn) return nullptr;
    if (labels.contains(r.key)) return nullptr;  // two requirements on one key may contradict
    labels[r.key] = *r.values.begin();
  }
  return labels;
}

void CheckLabelSelector(const kube::LabelSelector& s, const std::string& source) {
  const std::string printed = s.ToString();
  auto again = kube::LabelSelector::Parse(printed);
  Require(again.ok(), "a label selector's ToString parses", source + " -> " + printed + " -> " +
                                                                (again.ok() ? "" : again.status().message()));
  Require(SameRequirements(s, *again), "a label selector's ToString parses to the same requirements",
          source + " -> " + printed + " -> " + again->ToString());
  json labels = PinnedLabels(s);
  if (labels.is_object()) Require(s.Matches(labels), "a selector matches the labels it pins", source + " vs " + labels.dump());
  s.Matches(nullptr);
  s.Matches(json{{"app", "x"}, {"a", 1}});
}

void CheckFieldSelectors(std::string_view text) {
  static const json kPod = {{"metadata", {{"name", "p"}, {"namespace", "default"}}},
                            {"spec", {{"nodeName", "n"}, {"unschedulable", true}}},
                            {"status", {{"phase", "Running"}}}};
  for (const char* plural : {"pods", "events", "nodes", "namespaces", "configmaps"}) {
    auto s = kube::FieldSelector::Parse(text, plural);
    if (!s.ok()) {
      Require(s.status().code() == 400, "a bad field selector is a BadRequest", s.status().ToString());
      continue;
    }
    for (const auto& r : s->requirements())
      Require(kube::FieldSelector::Supported(plural, r.field), "only supported fields are selected", r.field);
    s->Matches(kPod);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = dglsim_fuzz::Text(data, size);
  auto parsed = kube::LabelSelector::Parse(text);
  if (parsed.ok()) {
    CheckLabelSelector(*parsed, std::string(text));
  } else {
    Require(parsed.status().code() == 400, "a bad label selector is a BadRequest", parsed.status().ToString());
  }
  CheckFieldSelectors(text);
  if (fakeapi::TextNestingDepth(text) > fakeapi::kMaxJsonDepth) return 0;  // refused before parsing, as the server does
  json object = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (object.is_discarded()) return 0;
  auto from_json = kube::LabelSelector::FromJson(object);
  if (from_json.ok()) CheckLabelSelector(*from_json, object.dump(-1, ' ', false, json::error_handler_t::replace));
  return 0;
}
