// Helpers shared by every Client implementation and its callers.
#include "fakeapi/client/client.h"

namespace kube {
namespace {

const std::string& StringAt(const nlohmann::json& obj, const char* field) {
  static const std::string empty;
  if (!obj.is_object()) return empty;
  auto meta = obj.find("metadata");
  if (meta == obj.end() || !meta->is_object()) return empty;
  auto value = meta->find(field);
  if (value == meta->end() || !value->is_string()) return empty;
  return value->get_ref<const std::string&>();
}

}  // namespace

const char* WatchEventTypeName(WatchEventType type) {
  switch (type) {
    case WatchEventType::kAdded: return "ADDED";
    case WatchEventType::kModified: return "MODIFIED";
    case WatchEventType::kDeleted: return "DELETED";
    case WatchEventType::kBookmark: return "BOOKMARK";
    case WatchEventType::kError: return "ERROR";
  }
  return "ERROR";
}

const std::string& NameOf(const nlohmann::json& obj) { return StringAt(obj, "name"); }
const std::string& NamespaceOf(const nlohmann::json& obj) { return StringAt(obj, "namespace"); }
const std::string& UidOf(const nlohmann::json& obj) { return StringAt(obj, "uid"); }
const std::string& ResourceVersionOf(const nlohmann::json& obj) { return StringAt(obj, "resourceVersion"); }

const std::string& NodeNameOf(const nlohmann::json& pod) {
  static const std::string empty;
  if (!pod.is_object()) return empty;
  auto spec = pod.find("spec");
  if (spec == pod.end() || !spec->is_object()) return empty;
  auto node = spec->find("nodeName");
  if (node == spec->end() || !node->is_string()) return empty;
  return node->get_ref<const std::string&>();
}

std::string KeyOf(const nlohmann::json& obj) {
  const std::string& ns = NamespaceOf(obj);
  if (ns.empty()) return NameOf(obj);
  return ns + "/" + NameOf(obj);
}

const nlohmann::json* ControllerRefOf(const nlohmann::json& obj) {
  if (!obj.is_object()) return nullptr;
  auto meta = obj.find("metadata");
  if (meta == obj.end() || !meta->is_object()) return nullptr;
  auto refs = meta->find("ownerReferences");
  if (refs == meta->end() || !refs->is_array()) return nullptr;
  for (const auto& ref : *refs) {
    if (!ref.is_object()) continue;
    auto controller = ref.find("controller");
    if (controller != ref.end() && controller->is_boolean() && controller->get<bool>()) return &ref;
  }
  return nullptr;
}

}  // namespace kube
