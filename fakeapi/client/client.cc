// Helpers shared by every Client implementation and its callers.
#include "fakeapi/client/client.h"

#include "fakeapi/client/json_path.h"

namespace kube {
namespace {

const std::string& StringAt(const kube::Json& obj, std::string_view field) {
  static const std::string empty;
  const kube::Json* meta = Member(obj, "metadata");
  const kube::Json* value = meta ? Member(*meta, field) : nullptr;
  return value && value->is_string() ? value->get_ref<const std::string&>() : empty;
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

const std::string& NameOf(const kube::Json& obj) { return StringAt(obj, "name"); }
const std::string& NamespaceOf(const kube::Json& obj) { return StringAt(obj, "namespace"); }
const std::string& UidOf(const kube::Json& obj) { return StringAt(obj, "uid"); }
const std::string& ResourceVersionOf(const kube::Json& obj) { return StringAt(obj, "resourceVersion"); }

const std::string& NodeNameOf(const kube::Json& pod) {
  static const std::string empty;
  const kube::Json* node = JsonAt(pod, {"spec", "nodeName"});
  return node && node->is_string() ? node->get_ref<const std::string&>() : empty;
}

std::string KeyOf(const kube::Json& obj) {
  // One lookup of the metadata, one allocation for the key.
  static const std::string empty;
  const kube::Json* meta = Member(obj, "metadata");
  const kube::Json* ns_value = meta ? Member(*meta, "namespace") : nullptr;
  const kube::Json* name_value = meta ? Member(*meta, "name") : nullptr;
  const std::string& ns = ns_value && ns_value->is_string() ? ns_value->get_ref<const std::string&>() : empty;
  const std::string& name = name_value && name_value->is_string() ? name_value->get_ref<const std::string&>() : empty;
  if (ns.empty()) return name;
  std::string key;
  key.reserve(ns.size() + 1 + name.size());
  key.append(ns).push_back('/');
  key.append(name);
  return key;
}

const kube::Json* ControllerRefOf(const kube::Json& obj) {
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
