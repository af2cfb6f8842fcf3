#include "operator/api/cause_list.h"

#include <utility>

namespace dgl {

using json = kube::Json;
using fields::Member;
using fields::Show;

void CauseList::Required(const std::string& path, const std::string& detail) {
  Add("FieldValueRequired", path, detail.empty() ? "Required value" : "Required value: " + detail);
}

void CauseList::Invalid(const std::string& path, const json& value, const std::string& detail) {
  Add("FieldValueInvalid", path, "Invalid value: " + Show(value) + ": " + detail);
}

void CauseList::TypeInvalid(const std::string& path, const json& value, const std::string& type) {
  Add("FieldValueTypeInvalid", path, "Invalid value: " + Show(value) + ": must be of type " + type);
}

void CauseList::NotSupported(const std::string& path, const json& value, const std::string& supported) {
  Add("FieldValueNotSupported", path, "Unsupported value: " + Show(value) + ": supported values: " + supported);
}

void CauseList::Forbidden(const std::string& path, const std::string& detail) {
  Add("FieldValueForbidden", path, "Forbidden: " + detail);
}

const json* CauseList::Object(const json& parent, const std::string& key, const std::string& path, bool required) {
  const json* v = Member(parent, key);
  if (v == nullptr) {
    if (required) Required(path);
    return nullptr;
  }
  if (!v->is_object()) {
    TypeInvalid(path, *v, "object");
    return nullptr;
  }
  return v;
}

const json* CauseList::Array(const json& parent, const std::string& key, const std::string& path, bool required) {
  const json* v = Member(parent, key);
  if (v == nullptr) {
    if (required) Required(path);
    return nullptr;
  }
  if (!v->is_array()) {
    TypeInvalid(path, *v, "array");
    return nullptr;
  }
  return v;
}

const std::string* CauseList::String(const json& parent, const std::string& key, const std::string& path,
                                     bool required) {
  const json* v = Member(parent, key);
  if (v == nullptr) {
    if (required) Required(path);
    return nullptr;
  }
  if (!v->is_string()) {
    TypeInvalid(path, *v, "string");
    return nullptr;
  }
  if (required && v->get_ref<const std::string&>().empty()) {
    Required(path);
    return nullptr;
  }
  return v->get_ptr<const std::string*>();
}

std::optional<std::int64_t> CauseList::Int(const json& parent, const std::string& key, const std::string& path,
                                           bool required) {
  const json* v = Member(parent, key);
  if (v == nullptr) {
    if (required) Required(path);
    return std::nullopt;
  }
  auto n = fields::AsInt(*v);
  if (!n) TypeInvalid(path, *v, "integer");
  return n;
}

std::optional<std::int64_t> CauseList::IntAtLeast(const json& parent, const std::string& key, const std::string& path,
                                                  std::int64_t minimum, bool required) {
  auto n = Int(parent, key, path, required);
  if (n && *n < minimum) {
    Invalid(path, *Member(parent, key), "must be >= " + std::to_string(minimum));
    return std::nullopt;
  }
  return n;
}

void CauseList::Add(const char* type, const std::string& path, std::string message) {
  causes_.push_back(kube::StatusCause{type, path, std::move(message)});
}

}  // namespace dgl
