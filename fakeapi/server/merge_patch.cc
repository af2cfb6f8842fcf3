// JSON merge patch (RFC 7386), as PATCH with application/merge-patch+json applies it, and the
// patch a client computes to send only what it changed.
#include "fakeapi/server/merge_patch.h"

namespace fakeapi {

using json = kube::Json;

void ApplyMergePatch(json& target, const json& patch) {
  // nlohmann::json implements the RFC's MergePatch pseudo-code exactly; it does not throw.
  target.merge_patch(patch);
}

json MergePatched(const json& target, const json& patch) {
  // RFC 7386 MergePatch, building the result instead of editing a copy of the target.
  if (!patch.is_object()) return patch;
  json out = json::object();
  json::object_t& members = out.get_ref<json::object_t&>();
  const bool merge = target.is_object();
  // Most patches change members the target has: its size is the result's, one allocation.
  members.reserve(merge ? target.size() : patch.size());
  if (merge) {
    for (auto it = target.begin(); it != target.end(); ++it) {
      auto change = patch.find(it.key());
      if (change == patch.end()) {
        members.emplace_hint(members.end(), it.key(), *it);
      } else if (!change->is_null()) {
        members.emplace_hint(members.end(), it.key(), MergePatched(*it, *change));
      }
    }
  }
  static const json kAbsent;
  for (auto it = patch.begin(); it != patch.end(); ++it) {
    if (it->is_null() || (merge && target.contains(it.key()))) continue;
    members.emplace(it.key(), MergePatched(kAbsent, *it));
  }
  return out;
}

json CreateMergePatch(const json& from, const json& to) {
  // Only objects merge; anything else (arrays included) is replaced whole.
  if (!from.is_object() || !to.is_object()) return to;
  json patch = json::object();
  for (const auto& [key, value] : from.items()) {
    if (!to.contains(key)) patch[key] = nullptr;  // null deletes the member
  }
  for (const auto& [key, value] : to.items()) {
    auto old = from.find(key);
    if (old == from.end()) {
      // A member whose new value is null cannot be expressed (null means delete); it was absent
      // before, so deleting leaves the same result for readers that treat null as absent.
      patch[key] = value;
    } else if (*old != value) {
      patch[key] = old->is_object() && value.is_object() ? CreateMergePatch(*old, value) : value;
    }
  }
  return patch;
}

}  // namespace fakeapi
