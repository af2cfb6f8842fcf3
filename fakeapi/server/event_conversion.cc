// See event_conversion.h.
#include "fakeapi/server/event_conversion.h"

#include "fakeapi/server/wire.h"

#include <utility>
#include <vector>

namespace fakeapi {
namespace {

using json = kube::Json;

// Core name, events.k8s.io/v1 name.
const std::vector<std::pair<const char*, const char*>>& Renamed() {
  static const std::vector<std::pair<const char*, const char*>> kRenamed = {
      {"involvedObject", "regarding"},
      {"message", "note"},
      {"source", "deprecatedSource"},
      {"firstTimestamp", "deprecatedFirstTimestamp"},
      {"lastTimestamp", "deprecatedLastTimestamp"},
      {"count", "deprecatedCount"},
      {"reportingComponent", "reportingController"},
  };
  return kRenamed;
}

json Renamed(const json& in, bool to_v1, const char* api_version) {
  json out = in.is_object() ? in : json::object();
  for (const auto& [core, v1] : Renamed()) {
    const char* from = to_v1 ? core : v1;
    const char* to = to_v1 ? v1 : core;
    auto it = out.find(from);
    if (it == out.end()) continue;
    json value = std::move(*it);
    out.erase(from);
    out[to] = std::move(value);
  }
  out["apiVersion"] = api_version;
  out["kind"] = "Event";
  return out;
}

}  // namespace

json CoreEventToEventsV1(const json& core) { return Renamed(core, true, "events.k8s.io/v1"); }

json EventsV1ToCoreEvent(const json& event) { return Renamed(event, false, "v1"); }

std::string EventsV1FieldSelectorToCore(const std::string& selector) {
  std::string out;
  for (const std::string& term : wire::Split(selector, ',')) {
    std::string t = term;
    for (const auto& [core, v1] : Renamed()) {
      const std::string prefix = v1;
      if (t.rfind(prefix, 0) == 0 && t.size() > prefix.size() &&
          (t[prefix.size()] == '.' || t[prefix.size()] == '=' || t[prefix.size()] == '!')) {
        t = std::string(core) + t.substr(prefix.size());
        break;
      }
    }
    out += (out.empty() ? "" : ",") + t;
  }
  return out;
}

}  // namespace fakeapi
