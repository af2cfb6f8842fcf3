// How responses look: JSON or YAML bodies, objects presented as the resource serves them (the
// events.k8s.io view converts), lists, Tables and PartialObjectMetadata, Status bodies with the
// qualified resource names kube-apiserver uses, and reads that wait for a resourceVersion.
#include "fakeapi/client/json_path.h"
#include "fakeapi/server/event_conversion.h"
#include "fakeapi/server/http_server_impl.h"
#include "fakeapi/server/strategic_merge.h"
#include "fakeapi/server/table.h"
#include "fakeapi/server/wire.h"

#include <chrono>
#include <thread>

namespace fakeapi {

using json = kube::Json;

void HttpServer::Impl::Run(const std::function<void()>& work) {
  if (options.executor) {
    options.executor(work);
  } else {
    std::lock_guard<std::mutex> lock(own_mutex);
    work();
  }
}

kube::Status HttpServer::Impl::RunFresh(const std::function<kube::Status()>& work) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::microseconds(options.resource_version_wait);
  while (true) {
    kube::Status s;
    Run([&] { s = work(); });
    const bool too_new = s.IsTimeout() && s.HasCause("ResourceVersionTooLarge");
    if (!too_new || stopping || std::chrono::steady_clock::now() >= deadline) return s;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // the store has no wait for a version
  }
}

FieldWrite HttpServer::Impl::FieldWriteFor(const Target& t, const std::string& manager) const {
  return FieldWrite{t.type, manager, t.subresource, kube::FormatTime(Now() / kube::kSecond * kube::kSecond)};
}

void HttpServer::Impl::SendJson(httplib::Response& res, int code, const json& body, const char* content_type) {
  res.status = code;
  res.set_content(wire::Dump(body), content_type);
}

void HttpServer::Impl::SendStatus(httplib::Response& res, const kube::Status& status) {
  SendJson(res, status.code(), status.ToJson());
}

// The store names core and custom kinds alike by plural; kube-apiserver qualifies custom ones
// ("dgljobs.kubeflow.org \"x\" not found"), and kubectl prints the message as is.
kube::Status HttpServer::Impl::Qualify(const kube::Status& status, const Target& t) {
  const std::string& group = t.resource->group;
  const std::string& plural = t.resource->plural;
  if (group.empty() || (!status.IsNotFound() && !status.IsAlreadyExists() && !status.IsConflict())) return status;
  json j = status.ToJson();
  std::string message = j.value("message", "");
  const std::string needle = plural + " \"";
  auto at = message.find(needle);
  if (at != std::string::npos && (at == 0 || (at >= 3 && message.compare(at - 3, 3, "on ") == 0)))
    message.replace(at, plural.size(), t.resource->QualifiedName());
  j["message"] = message;
  if (j.contains("details") && j["details"].is_object()) j["details"]["group"] = group;
  return kube::Status::FromJson(j);
}

namespace {

// The members Go writes out for an Event even when they hold nothing (fields without omitempty):
// null times, empty strings, empty structs.
void AddZeroes(json& event, std::initializer_list<std::pair<const char*, json>> zeroes) {
  if (!event.is_object()) return;
  for (const auto& [member, zero] : zeroes)
    if (!event.contains(member)) event[member] = zero;
}

// A pod as kube-apiserver's v1 serialization writes it: the deprecated spec.serviceAccount mirrors
// serviceAccountName, and a condition's times are null when unset.
json PresentPod(const json& stored) {
  const json* account = kube::JsonAt(stored, {"spec", "serviceAccountName"});
  const json* conditions = kube::JsonAt(stored, {"status", "conditions"});
  bool bare = false;
  if (conditions && conditions->is_array())
    for (const json& c : *conditions) bare = bare || (c.is_object() && (!c.contains("lastProbeTime") || !c.contains("lastTransitionTime")));
  if (!bare && (!account || kube::JsonAt(stored, {"spec", "serviceAccount"}))) return stored;
  json pod = stored;
  if (account && !pod["spec"].contains("serviceAccount")) pod["spec"]["serviceAccount"] = *account;
  if (bare)
    for (json& c : pod["status"]["conditions"])
      if (c.is_object()) AddZeroes(c, {{"lastProbeTime", nullptr}, {"lastTransitionTime", nullptr}});
  return pod;
}

}  // namespace

json HttpServer::Impl::Present(const Target& t, const json& stored) {
  if (t.resource->serving == Serving::kEventsView) {
    json event = CoreEventToEventsV1(stored);
    AddZeroes(event, {{"eventTime", nullptr}, {"deprecatedFirstTimestamp", nullptr},
                           {"deprecatedLastTimestamp", nullptr}, {"deprecatedSource", json::object()}});
    return event;
  }
  if (t.type && t.type->group.empty() && t.type->plural == "events") {
    json event = stored;
    AddZeroes(event, {{"eventTime", nullptr}, {"firstTimestamp", nullptr}, {"lastTimestamp", nullptr},
                           {"involvedObject", json::object()}, {"source", json::object()},
                           {"reportingComponent", ""}, {"reportingInstance", ""}});
    return event;
  }
  if (t.type && t.type->group.empty() && t.type->plural == "pods") return PresentPod(stored);
  return stored;
}

json HttpServer::Impl::Absorb(const Target& t, json served) {
  return t.resource->serving == Serving::kEventsView ? EventsV1ToCoreEvent(served) : served;
}

const TableConverter& HttpServer::Impl::ConverterFor(const kube::ResourceType& type) {
  auto it = converters.find(type.QualifiedName());
  if (it == converters.end()) it = converters.emplace(type.QualifiedName(), DefaultTableConverter(type.plural)).first;
  return it->second;
}

json HttpServer::Impl::Represent(const Target& t, const Representation& r, const json& object) {
  if (r.form == Representation::Form::kPartialMetadata) {
    json partial = PartialObjectMetadata(object);
    partial["apiVersion"] = "meta.k8s.io/" + r.version;
    return partial;
  }
  return Present(t, object);
}

// A list item as kube-apiserver writes it: a built-in kind's items carry no apiVersion and kind
// (the list says them; Go's typed lists hold structs without TypeMeta), a custom resource's do.
json ListItem(const Target& t, json item) {
  if (TakesStrategicMerge(*t.type) && item.is_object() && item.value("kind", "") == t.resource->kind) {
    item.erase("apiVersion");
    item.erase("kind");
  }
  return item;
}

json HttpServer::Impl::RepresentList(const Target& t, const Representation& r, const kube::ListResult& listed,
                                     const std::string& include) {
  json meta = {{"resourceVersion", listed.resource_version}};
  if (!listed.continue_.empty()) meta["continue"] = listed.continue_;
  if (listed.remaining_item_count) meta["remainingItemCount"] = *listed.remaining_item_count;
  if (r.form == Representation::Form::kTable) {
    json table = BuildTable(ConverterFor(*t.type), listed.items, listed.resource_version, r.version, include, Now());
    table["metadata"] = meta;
    return table;
  }
  json items = json::array();
  for (const auto& obj : listed.items) items.push_back(ListItem(t, Represent(t, r, *obj)));
  if (r.form == Representation::Form::kPartialMetadata)
    return {{"kind", "PartialObjectMetadataList"}, {"apiVersion", "meta.k8s.io/" + r.version}, {"metadata", meta},
            {"items", std::move(items)}};
  return {{"kind", t.resource->kind + "List"}, {"apiVersion", t.resource->ApiVersion()}, {"metadata", meta},
          {"items", std::move(items)}};
}

}  // namespace fakeapi
