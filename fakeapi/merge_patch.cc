// JSON merge patch (RFC 7386), as PATCH with application/merge-patch+json applies it, and the
// patch a client computes to send only what it changed.
#include "fakeapi/merge_patch.h"

namespace fakeapi {

using nlohmann::json;

void ApplyMergePatch(json& target, const json& patch) {
  // nlohmann::json implements the RFC's MergePatch pseudo-code exactly; it does not throw.
  target.merge_patch(patch);
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
