// events.k8s.io/v1 Events as a view of core v1 Events, converted the way kube-apiserver converts
// them (k8s.io/kubernetes/pkg/apis/events/v1 conversion): regarding <-> involvedObject,
// note <-> message, deprecatedSource <-> source, deprecatedFirstTimestamp / deprecatedLastTimestamp /
// deprecatedCount <-> firstTimestamp / lastTimestamp / count, reportingController <->
// reportingComponent; eventTime, series, action, reason, type, related and reportingInstance keep
// their names. An event written the legacy way has no eventTime in either version (the Python
// client's typed EventsV1Event refuses such events, against a real cluster too).
#pragma once

#include "fakeapi/client/json.h"

#include <string>

namespace fakeapi {

kube::Json CoreEventToEventsV1(const kube::Json& core);
kube::Json EventsV1ToCoreEvent(const kube::Json& event);
// A field selector on events.k8s.io/v1 events as one on core events ("regarding.name=x" ->
// "involvedObject.name=x", "reportingController=c" -> "reportingComponent=c").
std::string EventsV1FieldSelectorToCore(const std::string& selector);

}  // namespace fakeapi
