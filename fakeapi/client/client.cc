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
  const std::string& ns = NamespaceOf(obj);
  if (ns.empty()) return NameOf(obj);
  return ns + "/" + NameOf(obj);
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
