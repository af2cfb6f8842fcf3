// Kubernetes Events about a DGLJob, so that `kubectl describe dgljob J` tells its story.
#pragma once

#include "fakeapi/client/client.h"
#include "clock/clock.h"
#include "fakeapi/client/json.h"
#include "fakeapi/client/status.h"

#include <string>

namespace dgl {

// Records a core v1 Event about `object` (involvedObject with uid, kind, name, namespace), or bumps
// the count and lastTimestamp of the same Event (same object, type, reason, message) if it exists.
// The Event's name is derived from those four, so a retried pass finds the Event it wrote.
kube::Status RecordEvent(kube::Client& client, const kube::Clock& clock, const std::string& component,
                         const kube::Json& object, const std::string& type, const std::string& reason,
                         const std::string& message);

}  // namespace dgl
