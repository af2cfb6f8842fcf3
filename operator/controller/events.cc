#include "operator/controller/events.h"

#include "operator/controller/pod_state.h"

#include <cstdint>
#include <cstdio>
#include <string_view>

namespace dgl {
namespace {

using kube::Status;
using json = kube::Json;

std::uint64_t Fnv1a(std::string_view text) {
  std::uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

}  // namespace

Status RecordEvent(kube::Client& client, const kube::Clock& clock, const std::string& component,
                   const json& object, const std::string& type, const std::string& reason,
                   const std::string& message) {
  const std::string& ns = kube::NamespaceOf(object);
  const std::string& uid = kube::UidOf(object);
  char suffix[17];
  std::snprintf(suffix, sizeof suffix, "%016llx",
                static_cast<unsigned long long>(Fnv1a(uid + "\n" + type + "\n" + reason + "\n" + message)));
  const std::string name = kube::NameOf(object) + "." + suffix;
  const std::string now = kube::FormatTime(clock.Now());
  auto existing = client.Get("events", ns, name);
  if (existing.ok()) {
    json event = **existing;
    event["count"] = IntField(event, {"count"}, 1) + 1;
    event["lastTimestamp"] = now;
    auto updated = client.Update("events", std::move(event));
    return updated.status();
  }
  if (!existing.status().IsNotFound()) return existing.status();
  json event = kube::MakeObject(
      "apiVersion", "v1", "count", 1, "firstTimestamp", now, "involvedObject",
      kube::MakeObject("apiVersion", object.value("apiVersion", ""), "kind", object.value("kind", ""), "name",
                       kube::NameOf(object), "namespace", ns, "uid", uid),
      "kind", "Event", "lastTimestamp", now, "message", message, "metadata", kube::MakeObject("name", name, "namespace", ns),
      "reason", reason, "reportingComponent", component, "source", kube::MakeObject("component", component), "type", type);
  auto created = client.Create("events", std::move(event), ns);
  return created.ok() || created.status().IsAlreadyExists() ? Status::Ok() : created.status();
}

}  // namespace dgl
