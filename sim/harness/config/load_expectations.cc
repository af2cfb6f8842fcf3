// The scenario loader's expectations, one function per kind. See loader.h; the kinds and the
// fields each takes are the schema's (expect[<kind>].*).
#include "sim/harness/config/loader.h"

#include "fakeapi/client/quantity.h"
#include "fakeapi/client/selector.h"

#include <algorithm>
#include <exception>

namespace harness::loading {

void Loader::LoadExpectation(const json& item, const std::string& path, Scenario& s) {
  if (!ExpectObject(item, path, "an expectation such as {job: NAME, phase: Succeeded}")) return;
  const std::string kind = ExpectationKind(item, path);
  if (kind.empty()) return;
  const std::vector<std::string> fields = SchemaChildren("expect[" + kind + "]");
  ExpectationSpec e;
  e.field_path = path;
  std::string job_text;
  if (Contains(fields, "job")) {
    if (const json* job = Get(item, "job")) {
      e.job = ResolveJob(*job, Child(path, "job"));
      if (job->is_string()) job_text = job->get<std::string>();
    } else {
      Problem(Child(path, "job"), "required field is missing");
    }
  }
  const std::string subject = "job " + job_text;
  if (kind == "phase") {
    LoadPhaseExpectation(item, path, subject, e);
  } else if (kind == "phases") {
    LoadPhasesExpectation(item, path, subject, e);
  } else if (kind == "condition") {
    LoadConditionExpectation(item, path, subject, e);
  } else if (kind == "within") {
    e.kind = ExpectKind::kWithin;
    if (auto d = Duration(item, "within", path, true, true)) e.within = *d;
    e.text = subject + " terminal within " + FormatDuration(e.within);
  } else if (kind == "restarts") {
    e.kind = ExpectKind::kRestarts;
    if (auto r = Integer(item, "restarts", path, 0, 1'000'000, true)) e.restarts = *r;
    e.text = subject + " restarts " + std::to_string(e.restarts);
  } else if (kind == "configMap") {
    LoadConfigMapExpectation(item, path, e);
  } else if (kind == "breakdown" || kind == "peakMemory") {
    LoadBetweenExpectation(item, path, kind == "breakdown", subject, e);
  } else if (kind == "pods") {
    LoadPodsExpectation(item, path, e);
  } else if (kind == "nodes") {
    e.kind = ExpectKind::kNodeCount;
    if (auto count = Integer(item, "nodes", path, 0, kMaxNodes, true)) e.count = *count;
    LoadAt(item, path, e);
    e.text = "nodes " + std::to_string(e.count) + " at " + e.at;
  } else if (kind == "invariants") {
    LoadInvariantsExpectation(item, path, e);
  }
  s.expectations.push_back(std::move(e));
}

std::string Loader::ExpectationKind(const json& item, const std::string& path) {
  const std::vector<std::string> kinds = SchemaKinds("expect");
  std::vector<std::string> every;
  for (const std::string& kind : kinds)
    for (const std::string& f : SchemaChildren("expect[" + kind + "]"))
      if (!Contains(every, f)) every.push_back(f);
  const std::size_t before = out_->problems.size();
  CheckFields(item, path, every);
  std::vector<std::string> present;
  for (const std::string& kind : kinds)
    if (item.contains(kind)) present.push_back(kind);
  if (present.size() > 1) {
    Problem(path, "an expectation checks one thing: found both " + present[0] + " and " + present[1] + "; split it in two");
    return "";
  }
  if (present.empty()) {
    if (out_->problems.size() == before) Problem(path, "unknown expectation: it needs one of " + Join(kinds));
    return "";
  }
  const std::vector<std::string> fields = SchemaChildren("expect[" + present[0] + "]");
  for (const auto& [key, value] : item.items())
    if (!Contains(fields, key) && Contains(every, key))
      Problem(Child(path, key), "field " + Quoted(key) + " does not go with a " + present[0] + " expectation");
  return present[0];
}

void Loader::LoadPhaseExpectation(const json& item, const std::string& path, const std::string& subject,
                                  ExpectationSpec& e) {
  e.kind = ExpectKind::kPhase;
  if (auto p = Enum(item, "phase", path, Names(kJobPhases), true)) e.phase = *p;
  e.text = subject + " phase " + e.phase;
}

void Loader::LoadPhasesExpectation(const json& item, const std::string& path, const std::string& subject,
                                   ExpectationSpec& e) {
  e.kind = ExpectKind::kPhases;
  const json& phases = item["phases"];
  const std::vector<std::string> known = Names(kJobPhases);
  if (!phases.is_array() || phases.empty()) {
    Problem(Child(path, "phases"), "must be a non-empty sequence of phases, got " + TypeName(phases));
  } else {
    for (std::size_t i = 0; i < phases.size(); ++i) {
      const std::string p_path = Index(Child(path, "phases"), i);
      if (!phases[i].is_string()) {
        Problem(p_path, "must be a phase, got " + TypeName(phases[i]));
      } else if (!Contains(known, phases[i].get<std::string>())) {
        Problem(p_path, WithSuggestion("unsupported value " + Quoted(phases[i].get<std::string>()) + ": one of " + Join(known),
                                       phases[i].get<std::string>(), known));
      } else {
        e.phases.push_back(phases[i].get<std::string>());
      }
    }
  }
  e.text = subject + " phases " + Join(e.phases, " -> ");
}

void Loader::LoadConditionExpectation(const json& item, const std::string& path, const std::string& subject,
                                      ExpectationSpec& e) {
  e.kind = ExpectKind::kCondition;
  if (auto c = Enum(item, "condition", path, Names(dgl::kConditionTypes), true)) e.condition = *c;
  if (auto r = String(item, "reason", path)) e.reason = *r;
  if (auto st = Enum(item, "status", path, {"True", "False", "Unknown"})) e.status = *st;
  e.text = subject + " condition " + e.condition + (e.reason.empty() ? "" : " reason " + e.reason);
}

// breakdown (a stage's time) and peakMemory (a role's bytes): `between: [low, high]`.
void Loader::LoadBetweenExpectation(const json& item, const std::string& path, bool breakdown, const std::string& subject,
                                    ExpectationSpec& e) {
  e.kind = breakdown ? ExpectKind::kBreakdown : ExpectKind::kPeakMemory;
  if (breakdown) {
    if (auto st = Enum(item, "breakdown", path, Names(kBreakdownStages), true)) e.stage = *st;
  } else {
    if (auto role = Enum(item, "peakMemory", path, Names(kMemoryRoles), true)) e.memory_role = *role;
  }
  const std::string b_path = Child(path, "between");
  const json* between = Get(item, "between");
  if (between == nullptr) {
    Problem(b_path, "required field is missing: [low, high]");
  } else if (!between->is_array() || between->size() != 2) {
    Problem(b_path, "must be [low, high], got " + (between->is_array() ? std::to_string(between->size()) + " items" : TypeName(*between)));
  } else if (breakdown) {
    Parsed<Micros> lo = ParseDurationValue((*between)[0]);
    Parsed<Micros> hi = ParseDurationValue((*between)[1]);
    if (!lo.ok()) Problem(Index(b_path, 0), lo.error);
    if (!hi.ok()) Problem(Index(b_path, 1), hi.error);
    if (lo.ok() && hi.ok()) {
      if (*lo.value > *hi.value) Problem(b_path, "low " + FormatDuration(*lo.value) + " is above high " + FormatDuration(*hi.value));
      e.time_between = {*lo.value, *hi.value};
    }
  } else {
    auto lo = Size((*between)[0], Index(b_path, 0));
    auto hi = Size((*between)[1], Index(b_path, 1));
    if (lo && hi) {
      if (*lo > *hi) Problem(b_path, "low " + kube::FormatBytes(*lo) + " is above high " + kube::FormatBytes(*hi));
      e.bytes_between = {*lo, *hi};
    }
  }
  if (breakdown)
    e.text = subject + " " + e.stage + " between " + FormatDuration(e.time_between.first) + " and " +
             FormatDuration(e.time_between.second);
  else
    e.text = subject + " peak memory of " + e.memory_role + " between " + kube::FormatBytes(e.bytes_between.first) +
             " and " + kube::FormatBytes(e.bytes_between.second);
}

void Loader::LoadPodsExpectation(const json& item, const std::string& path, ExpectationSpec& e) {
  e.kind = ExpectKind::kPodCount;
  const std::string p_path = Child(path, "pods");
  const json& pods = item["pods"];
  if (ExpectObject(pods, p_path, "{namespace, selector}")) {
    CheckSchemaFields(pods, p_path, "expect[pods].pods");
    if (auto ns = String(pods, "namespace", p_path)) e.pods_namespace = *ns;
    if (auto selector = String(pods, "selector", p_path)) {
      auto parsed = kube::LabelSelector::Parse(*selector);
      if (!parsed.ok()) {
        Problem(Child(p_path, "selector"), "invalid label selector " + Quoted(*selector) + ": " + parsed.status().message());
      } else {
        e.pods_selector = *selector;
      }
    }
  }
  if (auto count = Integer(item, "count", path, 0, 10'000'000, true)) e.count = *count;
  LoadAt(item, path, e);
  e.text = "pods " + (e.pods_namespace.empty() ? std::string() : e.pods_namespace + " ") + e.pods_selector + " count " +
           std::to_string(e.count) + " at " + e.at;
}

void Loader::LoadAt(const json& item, const std::string& path, ExpectationSpec& e) {
  const json* at = Get(item, "at");
  if (at == nullptr) return;
  if (at->is_string() && at->get<std::string>() == "end") {
    e.at = "end";
  } else if (Parsed<Micros> d = ParseDurationValue(*at); !d.ok()) {
    Problem(Child(path, "at"), d.error + " (at is \"end\" or a time)");
  } else {
    e.at = FormatDuration(*d.value);
    e.at_time = d.value;
  }
}

void Loader::LoadInvariantsExpectation(const json& item, const std::string& path, ExpectationSpec& e) {
  e.kind = ExpectKind::kInvariants;
  const json& inv = item["invariants"];
  std::vector<std::string> names;
  for (const InvariantInfo& i : Invariants()) names.emplace_back(i.name);
  if (inv.is_string() && inv.get<std::string>() == "all") {
    e.invariants = names;
  } else if (inv.is_array()) {
    for (std::size_t i = 0; i < inv.size(); ++i) {
      if (!inv[i].is_string() || !Contains(names, inv[i].get<std::string>())) {
        const std::string name = inv[i].is_string() ? inv[i].get<std::string>() : inv[i].dump();
        Problem(Index(Child(path, "invariants"), i),
                WithSuggestion("unknown invariant " + Quoted(name) + ": one of " + Join(names), name, names));
      } else {
        e.invariants.push_back(inv[i].get<std::string>());
      }
    }
  } else {
    Problem(Child(path, "invariants"), "must be \"all\" or a list of invariant names, got " +
                                           (inv.is_string() ? Quoted(inv.get<std::string>()) : TypeName(inv)));
  }
  e.text = "invariants " + (e.invariants.size() == names.size() ? std::string("all") : Join(e.invariants));
}

void Loader::LoadConfigMapExpectation(const json& item, const std::string& path, ExpectationSpec& e) {
  const std::string cm_path = Child(path, "configMap");
  if (auto text = String(item, "configMap", path, true)) {
    std::string ns = "default";
    std::string name = *text;
    if (const std::size_t slash = text->find('/'); slash != std::string::npos) {
      ns = text->substr(0, slash);
      name = text->substr(slash + 1);
    }
    std::vector<std::string> known;
    bool found = false;
    for (const JobKey& k : job_keys_) {
      known.push_back(k.ns + "/" + dgl::ConfigMapName(k.name));
      found = found || (k.ns == ns && dgl::ConfigMapName(k.name) == name);
    }
    if (!found) {
      Problem(cm_path, WithSuggestion("no job of the scenario creates ConfigMap " + Quoted(ns + "/" + name) +
                                          " (a job J makes J-config)", ns + "/" + name, known));
    } else {
      e.config_map = JobKey{ns, name};
    }
  }
  const std::vector<std::string> keys(std::begin(dgl::kConfigMapKeys), std::end(dgl::kConfigMapKeys));
  if (auto key = Enum(item, "key", path, keys, true)) e.key = *key;
  const bool has_lines = Get(item, "lines") != nullptr;
  const bool has_line = Get(item, "line") != nullptr || Get(item, "matches") != nullptr;
  if (has_lines == has_line) {
    Problem(path, "a configMap expectation gives lines (a count) or line and matches");
    return;
  }
  const std::string where = (e.config_map ? e.config_map->ToString() : std::string("?")) + " key " + e.key;
  if (has_lines) {
    e.kind = ExpectKind::kConfigMapLines;
    if (auto n = Integer(item, "lines", path, 0, 10'000'000, true)) e.lines = *n;
    e.text = "configMap " + where + " lines " + std::to_string(e.lines);
    return;
  }
  e.kind = ExpectKind::kConfigMapLine;
  if (auto n = Integer(item, "line", path, 0, 10'000'000, true)) e.line = *n;
  if (auto pattern = String(item, "matches", path, true)) {
    std::string why;
    e.matcher = LineRegex::Compile(*pattern, &why);
    if (e.matcher.ok()) e.matches = *pattern;
    else Problem(Child(path, "matches"), "invalid regular expression " + Quoted(*pattern) + ": " + why);
  }
  e.text = "configMap " + where + " line " + std::to_string(e.line) + " matches " + e.matches;
}

}  // namespace harness::loading
