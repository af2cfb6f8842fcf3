// See strategic_merge.h.
#include "fakeapi/server/strategic_merge.h"

#include <algorithm>
#include <string>

namespace fakeapi {
namespace {

using json = kube::Json;

json WithoutDirectives(const json& value) {
  if (value.is_object()) {
    json out = json::object();
    for (const auto& [k, v] : value.items())
      if (k.empty() || k[0] != '$') out[k] = WithoutDirectives(v);
    return out;
  }
  if (value.is_array()) {
    json out = json::array();
    for (const json& v : value) out.push_back(WithoutDirectives(v));
    return out;
  }
  return value;
}

// The "$patch" directive of an object, or "" (absent, or not a string: ignored like the other
// directives this implementation does not take).
std::string Directive(const json& value) {
  if (!value.is_object()) return "";
  auto it = value.find("$patch");
  return it != value.end() && it->is_string() ? it->get<std::string>() : "";
}

// Whether `item` of the target list is the element `patch_item` (which has the key) names. An item
// may have lost its key to an earlier element of the same patch ({"name": null}).
bool SameElement(const json& item, const json& patch_item, const char* merge_key) {
  if (!item.is_object()) return false;
  auto key = item.find(merge_key);
  return key != item.end() && *key == patch_item.at(merge_key);
}

}  // namespace

const char* MergeKeyOf(const json& patch_list, const json& target_list) {
  static constexpr const char* kKeys[] = {"name", "containerPort", "port", "mountPath", "devicePath", "ip", "type"};
  for (const char* key : kKeys) {
    bool all = !patch_list.empty();
    for (const json& e : patch_list) all = all && e.is_object() && e.contains(key);
    for (const json& e : target_list) all = all && e.is_object() && e.contains(key);
    if (all) return key;
  }
  return nullptr;
}

void ApplyStrategicPatch(json& target, const json& patch) {
  if (!patch.is_object()) {
    target = patch;
    return;
  }
  if (Directive(patch) == "replace") {
    target = WithoutDirectives(patch);
    return;
  }
  if (!target.is_object()) target = json::object();
  for (const auto& [key, value] : patch.items()) {
    const std::string kDelete = "$deleteFromPrimitiveList/";
    if (key.rfind(kDelete, 0) == 0) {
      auto list = target.find(key.substr(kDelete.size()));  // absent: nothing to delete from
      if (list != target.end() && list->is_array() && value.is_array()) {
        json kept = json::array();
        for (const json& v : *list)
          if (std::find(value.begin(), value.end(), v) == value.end()) kept.push_back(v);
        *list = std::move(kept);
      }
      continue;
    }
    if (!key.empty() && key[0] == '$') continue;  // $setElementOrder, $retainKeys, $patch
    if (value.is_null()) {
      target.erase(key);
    } else if (value.is_object()) {
      if (Directive(value) == "delete") {
        target.erase(key);
      } else {
        json& slot = target[key];
        if (!slot.is_object()) slot = json::object();
        ApplyStrategicPatch(slot, value);
      }
    } else if (value.is_array()) {
      json& slot = target[key];
      const char* merge_key = slot.is_array() ? MergeKeyOf(value, slot) : nullptr;
      if (!merge_key) {
        json cleaned = json::array();
        for (const json& e : value)
          if (Directive(e) != "delete") cleaned.push_back(WithoutDirectives(e));
        slot = std::move(cleaned);
        continue;
      }
      for (const json& e : value) {
        auto same = std::find_if(slot.begin(), slot.end(), [&](const json& t) { return SameElement(t, e, merge_key); });
        if (Directive(e) == "delete") {
          if (same != slot.end()) slot.erase(same);
        } else if (same != slot.end()) {
          ApplyStrategicPatch(*same, e);
        } else {
          slot.push_back(WithoutDirectives(e));
        }
      }
    } else {
      target[key] = value;
    }
  }
}

bool TakesStrategicMerge(const kube::ResourceType& type) {
  if (type.group.empty()) return true;
  const std::string suffix = ".k8s.io";
  return type.group.size() > suffix.size() &&
         type.group.compare(type.group.size() - suffix.size(), suffix.size(), suffix) == 0 &&
         type.group.find("x-k8s.io") == std::string::npos;
}

}  // namespace fakeapi
