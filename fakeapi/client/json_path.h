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

namespace detail {
// A key looked up in a large object's members (a sorted flat map with the transparent std::less<>):
// compared byte by byte inline. Keys of API objects are short and mostly differ in their first
// bytes, so this beats std::string's compare, which calls memcmp (and, for a const char*, strlen)
// at every step of the binary search.
struct MemberKey {
  std::string_view text;
};
inline int CompareKeys(std::string_view a, std::string_view b) {
  const std::size_t n = a.size() < b.size() ? a.size() : b.size();
  for (std::size_t i = 0; i < n; ++i)
    if (a[i] != b[i]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[i]) ? -1 : 1;
  return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
}
inline bool operator<(const std::string& a, MemberKey b) { return CompareKeys(a, b.text) < 0; }
inline bool operator<(MemberKey a, const std::string& b) { return CompareKeys(a.text, b) < 0; }

// Objects of at most this many members are searched front to back for an equal key instead of by
// binary search. Most objects of the API are that small (a pod has 5 members at the top, 8 to 12
// in metadata, a container 6 to 10), and their keys mostly differ in length or first byte, so a
// miss costs two compares, where each step of a binary search is a full lexicographic compare.
inline constexpr std::size_t kLinearMembers = 24;
inline bool SameKey(const std::string& a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < b.size(); ++i)
    if (a[i] != b[i]) return false;
  return true;
}
}  // namespace detail

// The member `key` of `obj`; nullptr when `obj` is not an object or has no such member. The
// lookup every reader of API objects does, so it is kept cheap: a scan for small objects
// (detail::kLinearMembers), a binary search with inline compares for larger ones (detail::MemberKey).
inline const kube::Json* Member(const kube::Json& obj, std::string_view key) {
  if (!obj.is_object()) return nullptr;
  const auto& members = obj.get_ref<const kube::Json::object_t&>();
  if (members.size() <= detail::kLinearMembers) {
    for (const auto& member : members)
      if (detail::SameKey(member.first, key)) return &member.second;
    return nullptr;
  }
  auto it = members.find(detail::MemberKey{key});
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
