// Reading nested fields of API objects without exceptions: the member at a path of object keys,
// or nothing when a step is missing or is not an object; and the two questions every reader of
// objects asks: is it being deleted, is a pod's phase final. Shared by the simulator's actors, the
// workload models, the harness and `dglsim serve`, which all read pods and jobs this way.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

namespace kube {

// The value at `path` (object keys from the root); nullptr when absent.
inline const nlohmann::json* JsonAt(const nlohmann::json& obj, std::initializer_list<const char*> path) {
  const nlohmann::json* at = &obj;
  for (const char* key : path) {
    if (!at->is_object()) return nullptr;
    auto it = at->find(key);
    if (it == at->end()) return nullptr;
    at = &*it;
  }
  return at;
}

// The string at `path`; `fallback` when absent or not a string.
inline std::string JsonString(const nlohmann::json& obj, std::initializer_list<const char*> path,
                              const std::string& fallback = "") {
  const nlohmann::json* at = JsonAt(obj, path);
  return at && at->is_string() ? at->get<std::string>() : fallback;
}

// The integer at `path`; `fallback` when absent or not an integer.
inline std::int64_t JsonInt(const nlohmann::json& obj, std::initializer_list<const char*> path,
                            std::int64_t fallback = 0) {
  const nlohmann::json* at = JsonAt(obj, path);
  return at && at->is_number_integer() ? at->get<std::int64_t>() : fallback;
}

// The array at `path`; an empty array when absent or not an array.
inline const nlohmann::json& JsonArray(const nlohmann::json& obj, std::initializer_list<const char*> path) {
  static const nlohmann::json kEmpty = nlohmann::json::array();
  const nlohmann::json* at = JsonAt(obj, path);
  return at && at->is_array() ? *at : kEmpty;
}

// Whether the object is being deleted (metadata.deletionTimestamp is set).
inline bool IsBeingDeleted(const nlohmann::json& obj) {
  return !JsonString(obj, {"metadata", "deletionTimestamp"}).empty();
}

// Whether a pod phase is final: Succeeded or Failed.
inline bool IsPodFinished(std::string_view phase) { return phase == "Succeeded" || phase == "Failed"; }

}  // namespace kube
