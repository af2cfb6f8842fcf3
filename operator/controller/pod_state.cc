#include "operator/controller/pod_state.h"

#include "fakeapi/client/json_path.h"
#include "operator/api/vocabulary.h"

#include <cstdlib>
#include <utility>

namespace dgl {

using json = kube::Json;

const json* FindField(const json& obj, std::initializer_list<std::string_view> path) {
  const json* cur = &obj;
  for (std::string_view key : path) {
    cur = kube::Member(*cur, key);
    if (cur == nullptr || cur->is_null()) return nullptr;
  }
  return cur;
}

std::string StringField(const json& obj, std::initializer_list<std::string_view> path) {
  const json* v = FindField(obj, path);
  return v != nullptr && v->is_string() ? v->get<std::string>() : std::string();
}

std::int64_t IntField(const json& obj, std::initializer_list<std::string_view> path, std::int64_t fallback) {
  const json* v = FindField(obj, path);
  return v != nullptr && v->is_number_integer() ? v->get<std::int64_t>() : fallback;
}

bool Terminating(const json& obj) { return FindField(obj, {"metadata", "deletionTimestamp"}) != nullptr; }

namespace {

// The status of condition `type` ("True", "False", ...); "" when absent.
std::string ConditionStatus(const json& obj, const char* type, std::string* reason = nullptr) {
  const json* conditions = FindField(obj, {"status", "conditions"});
  if (conditions == nullptr || !conditions->is_array()) return "";
  for (const json& c : *conditions) {
    if (StringField(c, {"type"}) != type) continue;
    if (reason != nullptr) *reason = StringField(c, {"reason"});
    return StringField(c, {"status"});
  }
  return "";
}

bool AnyOomKilled(const json* statuses) {
  if (statuses == nullptr || !statuses->is_array()) return false;
  for (const json& s : *statuses) {
    if (StringField(s, {"state", "terminated", "reason"}) == "OOMKilled") return true;
  }
  return false;
}

// The string at `path` in `obj`; PodView::kNone when absent or not a string.
const std::string* StringIn(const json& obj, std::initializer_list<std::string_view> path) {
  const json* v = FindField(obj, path);
  return v != nullptr && v->is_string() ? &v->get_ref<const std::string&>() : &PodView::kNone;
}

}  // namespace

const std::string PodView::kNone;

PodView MakePodView(kube::ObjectPtr pod, bool node_lost) {
  PodView v;
  v.node_lost = node_lost;
  v.name = &kube::NameOf(*pod);
  v.phase = *StringIn(*pod, {"status", "phase"});
  if (v.phase.empty()) v.phase = "Pending";
  v.terminating = Terminating(*pod);
  const std::string epoch = StringField(*pod, {"metadata", "annotations", kAnnotationRestartEpoch});
  v.epoch = epoch.empty() ? 0 : std::strtoll(epoch.c_str(), nullptr, 10);
  v.node_name = StringIn(*pod, {"spec", "nodeName"});
  v.ip = StringIn(*pod, {"status", "podIP"});
  v.ready_condition = ConditionStatus(*pod, "Ready") == "True";
  v.object = std::move(pod);
  return v;
}

const json* TerminatedState(const json& pod) {
  const json* statuses = FindField(pod, {"status", "containerStatuses"});
  if (statuses == nullptr || !statuses->is_array()) return nullptr;
  for (const json& s : *statuses) {
    if (const json* t = FindField(s, {"state", "terminated"})) return t;
  }
  for (const json& s : *statuses) {
    if (const json* t = FindField(s, {"lastState", "terminated"})) return t;
  }
  return nullptr;
}

bool OomKilled(const json& pod) {
  if (StringField(pod, {"status", "reason"}) == "OOMKilled") return true;
  return AnyOomKilled(FindField(pod, {"status", "containerStatuses"}));
}

std::string MemoryLimit(const json& pod) {
  const json* containers = FindField(pod, {"spec", "containers"});
  if (containers == nullptr || !containers->is_array() || containers->empty()) return "";
  return StringField((*containers)[0], {"resources", "limits", "memory"});
}

std::string FailureDescription(const json& pod) {
  std::string reason = StringField(pod, {"status", "reason"});
  std::string message = StringField(pod, {"status", "message"});
  if (const json* t = TerminatedState(pod)) {
    std::string out = "exit code " + std::to_string(IntField(*t, {"exitCode"}));
    std::string r = StringField(*t, {"reason"});
    if (!r.empty()) out += " (" + r + ")";
    return out;
  }
  if (!reason.empty()) return message.empty() ? reason : reason + ": " + message;
  return "failed";
}

std::string FailureDescription(const PodView& pod) {
  if (pod.Lost()) return "lost with its node " + pod.NodeName() + " (not Ready)";
  return FailureDescription(pod.obj());
}

bool NodeReady(const json* node) { return node != nullptr && ConditionStatus(*node, "Ready") == "True"; }

bool NodeNotReady(const json* node) {
  if (node == nullptr) return false;
  const std::string ready = ConditionStatus(*node, "Ready");
  return ready == "False" || ready == "Unknown";
}

bool Unschedulable(const json& pod) {
  std::string reason;
  return ConditionStatus(pod, "PodScheduled", &reason) == "False" && reason == "Unschedulable";
}

std::string InitContainerState(const json& pod, const char* name) {
  const json* statuses = FindField(pod, {"status", "initContainerStatuses"});
  if (statuses == nullptr || !statuses->is_array()) return "";
  for (const json& s : *statuses) {
    if (StringField(s, {"name"}) != name) continue;
    if (FindField(s, {"state", "running"}) != nullptr) return "running";
    if (const json* t = FindField(s, {"state", "terminated"})) {
      return IntField(*t, {"exitCode"}) == 0 ? "succeeded" : "failed";
    }
  }
  return "";
}

const json* InitContainerTerminated(const json& pod, const char* name) {
  const json* statuses = FindField(pod, {"status", "initContainerStatuses"});
  if (statuses == nullptr || !statuses->is_array()) return nullptr;
  for (const json& s : *statuses) {
    if (StringField(s, {"name"}) != name) continue;
    if (const json* t = FindField(s, {"state", "terminated"})) return t;
    return FindField(s, {"lastState", "terminated"});
  }
  return nullptr;
}

const json* InitContainerSpec(const json& pod, const char* name) {
  const json* containers = FindField(pod, {"spec", "initContainers"});
  if (containers == nullptr || !containers->is_array()) return nullptr;
  for (const json& c : *containers) {
    if (StringField(c, {"name"}) == name) return &c;
  }
  return nullptr;
}

std::int64_t ParseIntOr(const std::string& text, std::int64_t fallback) {
  if (text.empty()) return fallback;
  char* end = nullptr;
  long long v = std::strtoll(text.c_str(), &end, 10);
  return end != nullptr && *end == '\0' ? v : fallback;
}

}  // namespace dgl
