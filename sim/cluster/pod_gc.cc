// The pod garbage collector's orphan collection. See pod_gc.h.
#include "sim/cluster/pod_gc.h"

#include "fakeapi/client/json_path.h"
#include "fakeapi/server/rbac_bootstrap.h"

#include <utility>

namespace sim {

using kube::ObjectPtr;
using json = kube::Json;

PodGarbageCollector::PodGarbageCollector(Simulation& sim, std::string name) : Actor(sim, std::move(name)) {
  SetIdentity(fakeapi::rbac::PodGcUser());
}

void PodGarbageCollector::Start() {
  AddInformer("nodes", {}, {.on_delete = [this](const ObjectPtr& n) { OnNodeDeleted(kube::NameOf(*n)); }});
}

Micros PodGarbageCollector::NextPass(Micros t) {
  return (t + kPodGcCheckPeriod - 1) / kPodGcCheckPeriod * kPodGcCheckPeriod;
}

void PodGarbageCollector::OnNodeDeleted(const std::string& node) {
  if (checks_.count(node)) return;
  // The pass that sees the node missing quarantines it; the pass 40 s later looks again.
  checks_[node] = At(NextPass(Now()) + kPodGcQuarantine, [this, node] {
    checks_.erase(node);
    CheckNode(node);
  });
}

void PodGarbageCollector::CheckNode(const std::string& node) {
  auto got = client().Get("nodes", "", node);
  if (got.ok()) return;  // it came back
  if (!got.status().IsNotFound()) {
    Log("node " + node + ": " + got.status().ToString() + "; looking again at the next pass");
    checks_[node] = At(NextPass(Now() + 1), [this, node] {
      checks_.erase(node);
      CheckNode(node);
    });
    return;
  }
  auto pods = client().List("pods", {.field_selector = "spec.nodeName=" + node});
  if (!pods.ok()) {
    Log("pods of node " + node + ": " + pods.status().ToString() + "; looking again at the next pass");
    checks_[node] = At(NextPass(Now() + 1), [this, node] {
      checks_.erase(node);
      CheckNode(node);
    });
    return;
  }
  Micros at = Now();
  for (const ObjectPtr& pod : pods->items) {
    ++in_flight_;
    At(at, [this, pod, node] {
      --in_flight_;
      DeleteOrphan(pod, node);
    });
    at += kPodGcNextPod;
  }
}

// markFailedAndDeletePodWithCondition: Failed with DisruptionTarget unless it already ended, then a
// deletion with grace period 0.
void PodGarbageCollector::DeleteOrphan(const ObjectPtr& pod, const std::string& node) {
  const std::string ns = kube::NamespaceOf(*pod), name = kube::NameOf(*pod);
  Log("found orphaned pod " + ns + "/" + name + " assigned to deleted node " + node + ": deleting");
  const std::string phase = kube::JsonString(*pod, {"status", "phase"});
  if (phase != "Succeeded" && phase != "Failed") {
    json condition = {{"type", "DisruptionTarget"},
                      {"status", "True"},
                      {"lastTransitionTime", kube::FormatTime(sim().engine().clock().Now())},
                      {"reason", "DeletionByPodGC"},
                      {"message", "PodGC: node no longer exists"}};
    json conditions = json::array();
    if (const json* old = kube::JsonAt(*pod, {"status", "conditions"}); old && old->is_array())
      for (const json& c : *old)
        if (kube::JsonString(c, {"type"}) != "DisruptionTarget") conditions.push_back(c);
    conditions.push_back(std::move(condition));
    auto r = client().Patch("pods", ns, name, {{"status", {{"phase", "Failed"}, {"conditions", conditions}}}},
                            kube::PatchType::kMerge, "status");
    if (!r.ok()) {
      Log("status of pod " + ns + "/" + name + ": " + r.status().ToString());
      // As podgc: a later pass finds the pod again and, after another quarantine, tries again.
      if (!r.status().IsNotFound()) OnNodeDeleted(node);
      return;
    }
  }
  ++in_flight_;
  After(kPodGcDeleteAfterPatch, [this, ns, name] {
    --in_flight_;
    Delete(ns, name);
  });
}

void PodGarbageCollector::Delete(const std::string& ns, const std::string& name) {
  kube::DeleteOptions options;
  options.grace_period_seconds = 0;
  auto r = client().Delete("pods", ns, name, options);
  if (r.ok()) {
    ++stats_.orphans_deleted;
  } else if (!r.status().IsNotFound()) {
    Log("deleting pod " + ns + "/" + name + ": " + r.status().ToString());
  }
}

}  // namespace sim
