// Status factories and the metav1.Status wire form. Messages and details follow
// k8s.io/apimachinery/pkg/api/errors so that clients written against a real API server (and
// people reading logs) see exactly what they would see there.
#include "fakeapi/client/status.h"

#include <map>

namespace kube {

namespace {

// Splits "dgljobs.kubeflow.org" into {"dgljobs", "kubeflow.org"}; core names have no group.
std::pair<std::string, std::string> SplitQualified(const std::string& name) {
  size_t dot = name.find('.');
  if (dot == std::string::npos) return {name, ""};
  return {name.substr(0, dot), name.substr(dot + 1)};
}

json Details(const std::string& qualified, const std::string& name) {
  auto [kind, group] = SplitQualified(qualified);
  json d = json::object();
  if (!name.empty()) d["name"] = name;
  if (!group.empty()) d["group"] = group;
  if (!kind.empty()) d["kind"] = kind;
  return d;
}

// The code a reason implies, for Status objects that omit it.
int CodeForReason(const std::string& reason) {
  static const std::map<std::string, int> kCodes = {
      {"NotFound", 404},          {"AlreadyExists", 409},         {"Conflict", 409},
      {"Invalid", 422},           {"Expired", 410},               {"Gone", 410},
      {"BadRequest", 400},        {"Forbidden", 403},             {"Unauthorized", 401},
      {"MethodNotAllowed", 405},  {"Timeout", 504},               {"ServerTimeout", 500},
      {"InternalError", 500},     {"RequestEntityTooLarge", 413}, {"UnsupportedMediaType", 415},
      {"TooManyRequests", 429},   {"ServiceUnavailable", 503},    {"NotAcceptable", 406},
  };
  auto it = kCodes.find(reason);
  return it == kCodes.end() ? 500 : it->second;
}

std::string StringOr(const json& j, const char* key, const std::string& fallback = "") {
  if (!j.is_object()) return fallback;
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return fallback;
  return it->get<std::string>();
}

}  // namespace

Status Status::NotFound(const std::string& resource, const std::string& name) {
  Status s(404, "NotFound", resource + " \"" + name + "\" not found");
  s.details_ = Details(resource, name);
  return s;
}

Status Status::AlreadyExists(const std::string& resource, const std::string& name) {
  Status s(409, "AlreadyExists", resource + " \"" + name + "\" already exists");
  s.details_ = Details(resource, name);
  return s;
}

Status Status::Conflict(const std::string& resource, const std::string& name, const std::string& why) {
  Status s(409, "Conflict", "Operation cannot be fulfilled on " + resource + " \"" + name + "\": " + why);
  s.details_ = Details(resource, name);
  return s;
}

Status Status::Invalid(const std::string& kind, const std::string& name, std::vector<StatusCause> causes) {
  // Each cause reads "field: message"; like utilerrors.Aggregate, several are bracketed.
  std::vector<std::string> parts;
  for (const StatusCause& c : causes) {
    parts.push_back(c.field.empty() ? c.message : c.field + ": " + c.message);
  }
  std::string joined;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) joined += ", ";
    joined += parts[i];
  }
  if (parts.size() > 1) joined = "[" + joined + "]";
  Status s(422, "Invalid", kind + " \"" + name + "\" is invalid: " + joined);
  s.details_ = Details(kind, name);
  s.causes_ = std::move(causes);
  return s;
}

Status Status::Expired(const std::string& message) { return Status(410, "Expired", message); }
Status Status::BadRequest(const std::string& message) { return Status(400, "BadRequest", message); }
Status Status::Forbidden(const std::string& message) { return Status(403, "Forbidden", message); }
Status Status::MethodNotAllowed(const std::string& message) { return WithEmptyDetails(Status(405, "MethodNotAllowed", message)); }
Status Status::Timeout(const std::string& message) { return Status(504, "Timeout", message); }
Status Status::Internal(const std::string& message) {
  return Status(500, "InternalError", "Internal error occurred: " + message);
}
Status Status::TooLarge(const std::string& message) { return Status(413, "RequestEntityTooLarge", message); }
Status Status::UnsupportedMediaType(const std::string& message) {
  return WithEmptyDetails(Status(415, "UnsupportedMediaType", message));
}
Status Status::NotAcceptable(const std::string& message) { return WithEmptyDetails(Status(406, "NotAcceptable", message)); }
Status Status::WithEmptyDetails(Status s) {
  if (!s.details_.is_object()) s.details_ = json::object();
  return s;
}
Status Status::TooManyRequests(const std::string& message, int retry_after_seconds) {
  Status s(429, "TooManyRequests", message);
  s.details_ = {{"retryAfterSeconds", retry_after_seconds}};
  return s;
}
Status Status::TooLargeResourceVersion(std::int64_t wanted, std::int64_t current) {
  Status s(504, "Timeout",
           "Timeout: Too large resource version: " + std::to_string(wanted) + ", current: " + std::to_string(current));
  s.details_ = {{"retryAfterSeconds", 1}};
  s.causes_.push_back(StatusCause{"ResourceVersionTooLarge", "", "Too large resource version"});
  return s;
}

bool Status::HasCause(const std::string& type) const {
  for (const StatusCause& c : causes_)
    if (c.type == type) return true;
  return false;
}

Status Status::WithDetail(const std::string& key, json value) const {
  Status s = *this;
  if (!s.details_.is_object()) s.details_ = json::object();
  s.details_[key] = std::move(value);
  return s;
}

Status Status::WithListMeta(const std::string& key, json value) const {
  Status s = *this;
  if (!s.list_meta_.is_object()) s.list_meta_ = json::object();
  s.list_meta_[key] = std::move(value);
  return s;
}

json Status::ToJson() const {
  json j = {{"kind", "Status"}, {"apiVersion", "v1"},
            {"metadata", list_meta_.is_object() ? list_meta_ : json::object()}};
  if (ok()) {
    j["status"] = "Success";
    j["code"] = code_;
    return j;
  }
  j["status"] = "Failure";
  j["message"] = message_;
  if (reason_ != "Unknown") j["reason"] = reason_;
  json details = details_.is_object() ? details_ : json::object();
  if (!causes_.empty()) {
    json causes = json::array();
    for (const StatusCause& c : causes_) {
      json cj = json::object();
      if (!c.type.empty()) cj["reason"] = c.type;  // metav1.StatusCause serialises Type as "reason"
      if (!c.message.empty()) cj["message"] = c.message;
      if (!c.field.empty()) cj["field"] = c.field;
      causes.push_back(std::move(cj));
    }
    details["causes"] = std::move(causes);
  }
  if (!details.empty() || details_.is_object()) j["details"] = std::move(details);
  j["code"] = code_;
  return j;
}

Status Status::FromJson(const json& j) {
  if (!j.is_object()) return Internal("response is not a Status object: " + j.dump());
  std::string status = StringOr(j, "status");
  int code = 0;
  auto code_it = j.find("code");
  if (code_it != j.end() && code_it->is_number_integer()) code = code_it->get<int>();
  if (status == "Success" || (status.empty() && code >= 200 && code < 300)) return Ok();

  std::string reason = StringOr(j, "reason");
  if (code == 0) code = CodeForReason(reason);
  // A failure must never read as OK, whatever the server wrote in "code".
  if (code >= 200 && code < 300) code = 500;
  if (reason.empty()) reason = "Unknown";
  Status s(code, reason, StringOr(j, "message"));
  auto details_it = j.find("details");
  if (details_it != j.end() && details_it->is_object()) {
    json details = *details_it;
    auto causes_it = details.find("causes");
    if (causes_it != details.end() && causes_it->is_array()) {
      for (const json& c : *causes_it) {
        s.causes_.push_back(StatusCause{StringOr(c, "reason"), StringOr(c, "field"), StringOr(c, "message")});
      }
    }
    details.erase("causes");
    s.details_ = std::move(details);
  }
  auto meta_it = j.find("metadata");
  if (meta_it != j.end() && meta_it->is_object() && !meta_it->empty()) s.list_meta_ = *meta_it;
  return s;
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  return std::to_string(code_) + " " + reason_ + ": " + message_;
}

}  // namespace kube
