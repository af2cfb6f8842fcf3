#include "operator/controller/job_status.h"

#include "fakeapi/client/json_path.h"
#include "operator/api/vocabulary.h"
#include "operator/controller/pod_state.h"

#include <string_view>
#include <utility>

namespace dgl {

using json = kube::Json;

namespace {

// The status member of a job; an empty object when it has none or it is not an object.
const json* StatusIn(const kube::ObjectPtr& job) {
  static const json kEmpty = json::object();
  if (job == nullptr || !job->is_object()) return &kEmpty;
  auto it = job->find("status");
  return it != job->end() && it->is_object() ? &*it : &kEmpty;
}

}  // namespace

JobStatus::JobStatus(kube::ObjectPtr job, kube::Micros now)
    : holder_(std::move(job)), stored_(StatusIn(holder_)), status_(*stored_), now_(now) {}

JobStatus::JobStatus(json stored, kube::Micros now)
    : JobStatus(kube::ShareObject(json{{"status", std::move(stored)}}), now) {}

std::string JobStatus::Phase() const { return StringField(status_, {"phase"}); }

void JobStatus::SetCondition(const std::string& type, bool true_status, const std::string& reason,
                             const std::string& message) {
  json& conditions = status_["conditions"];
  if (!conditions.is_array()) conditions = json::array();
  const std::string_view value = true_status ? "True" : "False";
  // Read in place: every pass sets every phase condition (SetPhase), most of them as they were.
  auto is = [](const json& c, std::string_view field, std::string_view want) {
    const json* v = kube::Member(c, field);
    return v != nullptr && v->is_string() && v->get_ref<const std::string&>() == want;
  };
  for (json& c : conditions) {
    if (!is(c, "type", type)) continue;
    if (!is(c, "status", value)) {
      c["status"] = value;
      c["lastTransitionTime"] = kube::FormatTime(now_);
      if (!reason.empty() || true_status) c["reason"] = reason;
      c["message"] = message;
    } else if (true_status) {
      c["reason"] = reason;
      c["message"] = message;
    }
    return;
  }
  if (!true_status) return;  // a condition that never held is not listed
  conditions.push_back(kube::MakeObject("lastTransitionTime", kube::FormatTime(now_), "message", message, "reason",
                                        reason, "status", value, "type", type));
}

void JobStatus::SetPhase(const std::string& phase, const std::string& reason, const std::string& message) {
  const bool changed = Phase() != phase;
  status_["phase"] = phase;
  // A phase condition that ends keeps its reason and says what the job moved on to: a message of
  // the new phase's would go stale while the condition stays False (the new phase's own condition
  // carries it, kept current).
  for (const char* type : kPhaseConditions) {
    if (phase == type) SetCondition(type, true, reason, message);
    else SetCondition(type, false, "", std::string("No longer ") + type + ": the job moved on to " + phase);
  }
  if (IsTerminalPhase(phase) && FindField(status_, {"completionTime"}) == nullptr) {
    status_["completionTime"] = kube::FormatTime(now_);
  }
  if (changed) {
    const bool warning = phase == kPhaseFailed || phase == kPhaseRestarting;
    AddEvent(warning ? "Warning" : "Normal", reason, message);
  }
}

void JobStatus::Fail(const std::string& reason, const std::string& message) { SetPhase(kPhaseFailed, reason, message); }

bool JobStatus::HasCondition(const std::string& type) const {
  const json* conditions = FindField(status_, {"conditions"});
  if (conditions == nullptr || !conditions->is_array()) return false;
  for (const json& c : *conditions) {
    if (StringField(c, {"type"}) == type) return true;
  }
  return false;
}

std::string JobStatus::ConditionReason(const std::string& type) const {
  const json* conditions = FindField(status_, {"conditions"});
  if (conditions == nullptr || !conditions->is_array()) return "";
  for (const json& c : *conditions) {
    if (StringField(c, {"type"}) == type) return StringField(c, {"reason"});
  }
  return "";
}

void JobStatus::AddEvent(const std::string& type, const std::string& reason, const std::string& message) {
  events_.push_back({type, reason, message});
}

std::vector<JobStatus::Event> JobStatus::TakeEvents() { return std::exchange(events_, {}); }

bool JobStatus::Changed() const {
  if (!status_.is_object()) return status_ != *stored_;
  // Both member lists walked in key order side by side, lastReconcileTime skipped on either side:
  // a pass asks this every time, and copying both statuses to erase the member cost two deep copies.
  const auto& a = status_.get_ref<const json::object_t&>();
  const auto& b = stored_->get_ref<const json::object_t&>();
  auto ia = a.begin(), ib = b.begin();
  for (;;) {
    if (ia != a.end() && ia->first == "lastReconcileTime") ++ia;
    if (ib != b.end() && ib->first == "lastReconcileTime") ++ib;
    if (ia == a.end() || ib == b.end()) return ia != a.end() || ib != b.end();
    if (ia->first != ib->first || ia->second != ib->second) return true;
    ++ia, ++ib;
  }
}

json JobStatus::TakeValue() { return std::exchange(status_, json()); }

void JobStatus::Stored(kube::ObjectPtr job) {
  holder_ = std::move(job);
  stored_ = StatusIn(holder_);
  status_ = *stored_;
}

}  // namespace dgl
