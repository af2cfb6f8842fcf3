// Reading nested fields of API objects without exceptions: one member (Member, the lookup every
// reader does, kept cheap), the member at a path of object keys, or nothing when a step is missing
// or is not an object; and the two questions every reader of
// objects asks: is it being deleted, is a pod's phase final. Shared by the simulator's actors, the
// workload models, the harness and `dglsim serve`, which all read pods and jobs this way.
#pragma once

#include "fakeapi/client/json.h"

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

namespace kube {

// The member `key` of `obj`; nullptr when `obj` is not an object or has no such member. The
// lookup every reader of API objects does, kept cheap by the members' own find (json.h: a scan for
// small objects, an inline binary search for larger ones).
inline const kube::Json* Member(const kube::Json& obj, std::string_view key) {
  if (!obj.is_object()) return nullptr;
  const auto& members = obj.get_ref<const kube::Json::object_t&>();
  auto it = members.find(key);
  return it == members.end() ? nullptr : &it->second;
}

// The value at `path` (object keys from the root); nullptr when absent.
inline const kube::Json* JsonAt(const kube::Json& obj, std::initializer_list<std::string_view> path) {
  const kube::Json* at = &obj;
  for (std::string_view key : path) {
    at = Member(*at, key);
    if (at == nullptr) return nullptr;
  }
  return at;
}

// The string at `path`; `fallback` when absent or not a string.
inline std::string JsonString(const kube::Json& obj, std::initializer_list<std::string_view> path,
                              const std::string& fallback = "") {
  const kube::Json* at = JsonAt(obj, path);
  return at && at->is_string() ? at->get<std::string>() : fallback;
}

// The integer at `path`; `fallback` when absent or not an integer.
inline std::int64_t JsonInt(const kube::Json& obj, std::initializer_list<std::string_view> path,
                            std::int64_t fallback = 0) {
  const kube::Json* at = JsonAt(obj, path);
  return at && at->is_number_integer() ? at->get<std::int64_t>() : fallback;
}

// The array at `path`; an empty array when absent or not an array.
inline const kube::Json& JsonArray(const kube::Json& obj, std::initializer_list<std::string_view> path) {
  static const kube::Json kEmpty = kube::Json::array();
  const kube::Json* at = JsonAt(obj, path);
  return at && at->is_array() ? *at : kEmpty;
}

// Whether the object is being deleted (metadata.deletionTimestamp is set).
inline bool IsBeingDeleted(const kube::Json& obj) {
  return !JsonString(obj, {"metadata", "deletionTimestamp"}).empty();
}

// Whether a pod phase is final: Succeeded or Failed.
inline bool IsPodFinished(std::string_view phase) { return phase == "Succeeded" || phase == "Failed"; }

}  // namespace kube
