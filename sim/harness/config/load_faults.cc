// The scenario loader's faults. See loader.h; the fields each kind takes are the schema's
// (faults[<Kind>].*), the fields every fault takes faults[].*.
#include "sim/harness/config/loader.h"

#include <algorithm>

namespace harness::loading {

namespace {
std::vector<std::string> AnyFaultFields();
}  // namespace

void Loader::LoadFault(const json& item, const std::string& path, Scenario& s) {
  if (!ExpectObject(item, path, "a fault {at | when, kind, ...}")) return;
  const std::vector<std::string> kinds = SchemaKinds("faults");
  CheckFields(item, path, AnyFaultFields());
  FaultSpec f;
  f.field_path = path;
  auto kind = Enum(item, "kind", path, kinds, true);
  if (!kind) return;
  CheckFaultFields(item, path, *kind);
  // FaultKind's enumerators are in the schema's order of kinds.
  f.kind = static_cast<FaultKind>(std::find(kinds.begin(), kinds.end(), *kind) - kinds.begin());
  LoadTrigger(item, path, s, f);
  if (Contains(SchemaChildren("faults[" + *kind + "]"), "for")) f.duration = Duration(item, "for", path, true);
  LoadFaultTarget(item, path, f);
  if (f.kind == FaultKind::kRbacRuleRemoved) CheckRbacFault(path, s, f);
  s.faults.push_back(std::move(f));
}

namespace {

// The fields of any fault: the common ones, then each kind's.
std::vector<std::string> AnyFaultFields() {
  std::vector<std::string> every = SchemaChildren("faults[]");
  for (const std::string& k : SchemaKinds("faults"))
    for (const std::string& field : SchemaChildren("faults[" + k + "]"))
      if (!Contains(every, field)) every.push_back(field);
  return every;
}

}  // namespace

// Fields of another kind of fault.
void Loader::CheckFaultFields(const json& item, const std::string& path, const std::string& kind) {
  const std::vector<std::string> common = SchemaChildren("faults[]");
  const std::vector<std::string> every = AnyFaultFields();
  const std::vector<std::string> fields = SchemaChildren("faults[" + kind + "]");
  for (const auto& [key, value] : item.items()) {
    if (Contains(common, key) || Contains(fields, key) || !Contains(every, key)) continue;
    std::string owners;
    for (const std::string& other : SchemaKinds("faults"))
      if (Contains(SchemaChildren("faults[" + other + "]"), key)) owners += owners.empty() ? other : ", " + other;
    Problem(Child(path, key), "field " + Quoted(key) + " is not used by a " + kind + " fault (it belongs to " + owners + ")");
  }
}

// When: `at` a time, or `when` {job, phase} plus `after`.
void Loader::LoadTrigger(const json& item, const std::string& path, const Scenario& s, FaultSpec& f) {
  const bool has_at = Get(item, "at") != nullptr;
  const json* when = Get(item, "when");
  if (has_at && when != nullptr) {
    Problem(path, "give at or when, not both");
  } else if (!has_at && when == nullptr) {
    Problem(path, "a fault needs at (a time) or when ({job, phase})");
  }
  if (has_at) {
    f.trigger.at = Duration(item, "at", path);
    if (Get(item, "after") != nullptr) Problem(Child(path, "after"), "after goes with when; with at, add the delay to at");
    if (f.trigger.at && *f.trigger.at > s.until) {
      Warning(Child(path, "at"), "at " + FormatDuration(*f.trigger.at) + " is after until (" + FormatDuration(s.until) +
                                     "): it never happens");
    }
  }
  if (when == nullptr) return;
  const std::string when_path = Child(path, "when");
  if (ExpectObject(*when, when_path, "a trigger {job, phase}")) {
    CheckSchemaFields(*when, when_path, "faults[].when");
    if (const json* job = Get(*when, "job")) {
      f.trigger.job = ResolveJob(*job, Child(when_path, "job"));
    } else {
      Problem(Child(when_path, "job"), "required field is missing");
    }
    if (auto phase = Enum(*when, "phase", when_path, Names(kJobPhases), true)) f.trigger.phase = *phase;
  }
  if (auto after = Duration(item, "after", path)) f.trigger.after = *after;
}

// What the fault acts on and how hard, by kind.
void Loader::LoadFaultTarget(const json& item, const std::string& path, FaultSpec& f) {
  switch (f.kind) {
    case FaultKind::kNodeDown:
    case FaultKind::kNodeDeleted: {
      const json* of = Get(item, "nodeOf");
      if ((Get(item, "node") != nullptr) == (of != nullptr)) {
        Problem(path, std::string("a ") + ToString(f.kind) + " fault names node or nodeOf (a pod), exactly one");
      } else if (of != nullptr) {
        f.node_of = ResolvePod(*of, Child(path, "nodeOf"));
      } else {
        LoadFaultNode(item, path, true, f);
      }
      return;
    }
    case FaultKind::kNodeUp: return LoadFaultNode(item, path, true, f);
    case FaultKind::kPodKill:
    case FaultKind::kOOM:
      if (const json* pod = Get(item, "pod")) {
        f.pod = ResolvePod(*pod, Child(path, "pod"));
      } else {
        Problem(Child(path, "pod"), "required field is missing");
      }
      if (auto c = String(item, "container", path)) f.container = *c;
      if (f.kind == FaultKind::kPodKill)
        if (auto code = Integer(item, "exitCode", path, 0, 255)) f.exit_code = static_cast<int>(*code);
      return;
    case FaultKind::kImagePullError:
      if (auto image = String(item, "image", path, true)) f.image = *image;
      return LoadFaultNode(item, path, false, f);
    case FaultKind::kNetworkSlow:
      LoadFaultNode(item, path, false, f);
      if (auto factor = Number(item, "factor", path, 0, 1, true, true)) f.factor = *factor;
      return;
    case FaultKind::kApiFaults: {
      if (auto r = Number(item, "conflictRate", path, 0, 1)) f.conflict_rate = *r;
      if (auto r = Number(item, "errorRate", path, 0, 1)) f.error_rate = *r;
      if (auto r = Number(item, "timeoutRate", path, 0, 1)) f.timeout_rate = *r;
      if (auto d = Duration(item, "latency", path)) f.latency = *d;
      bool any = false;
      for (const char* key : {"conflictRate", "errorRate", "timeoutRate", "latency"}) any = any || Get(item, key) != nullptr;
      if (!any) Warning(path, "this ApiFaults fault sets no conflictRate, errorRate, timeoutRate or latency: it does nothing");
      return;
    }
    case FaultKind::kWatchDrop:
    case FaultKind::kOperatorRestart: return;
    case FaultKind::kRbacRuleRemoved: return LoadRbacFault(item, path, f);
  }
}

// `node:` of a fault: a node of the cluster.
void Loader::LoadFaultNode(const json& item, const std::string& path, bool required, FaultSpec& f) {
  auto name = String(item, "node", path, required);
  if (!name) return;
  if (node_names_.count(*name) == 0) {
    std::string message = "no node " + Quoted(*name) + " in the cluster";
    if (!node_order_.empty()) {
      message += " (nodes: " +
                 (node_order_.size() <= 8 ? Join(node_order_) : node_order_.front() + ", ... " + node_order_.back()) + ")";
    }
    Problem(Child(path, "node"), message);
    return;
  }
  f.node = *name;
}

}  // namespace harness::loading
