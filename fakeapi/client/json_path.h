// Reading nested fields of API objects without exceptions: the member at a path of object keys,
// or nothing when a step is missing or is not an object. Shared by the simulator's actors, the
// workload models, the harness and `dglsim serve`, which all read pods and jobs this way.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <initializer_list>
#include <string>

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

}  // namespace kube
