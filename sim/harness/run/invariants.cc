#include "sim/harness/run/invariants.h"

#include "fakeapi/client/client.h"
#include "operator/api/dgljob_api.h"
#include "sim/cluster/cluster.h"
#include "sim/harness/config/units.h"

#include <algorithm>

namespace harness {
namespace {

using nlohmann::json;

std::string Label(const json& obj, const char* key) {
  auto meta = obj.find("metadata");
  if (meta == obj.end() || !meta->is_object()) return "";
  auto labels = meta->find("labels");
  if (labels == meta->end() || !labels->is_object()) return "";
  auto value = labels->find(key);
  return value != labels->end() && value->is_string() ? value->get<std::string>() : "";
}

std::string NodeNameOf(const json& pod) {
  auto spec = pod.find("spec");
  if (spec == pod.end() || !spec->is_object()) return "";
  auto node = spec->find("nodeName");
  return node != spec->end() && node->is_string() ? node->get<std::string>() : "";
}

}  // namespace

InvariantChecker::InvariantChecker(sim::Simulation& sim, RunRecord& record)
    : Actor(sim, "harness-invariants"), record_(record) {}

void InvariantChecker::Start() {
  AddInformer("nodes", {},
              {.on_add = [this](const kube::ObjectPtr& node) { OnNode(*node); },
               .on_update = [this](const kube::ObjectPtr&, const kube::ObjectPtr& node) { OnNode(*node); },
               .on_delete = [this](const kube::ObjectPtr& node) { node_ready_.erase(kube::NameOf(*node)); }});
  AddInformer("pods", {},
              {.on_add = [this](const kube::ObjectPtr& pod) { OnPod(*pod); },
               .on_update = [this](const kube::ObjectPtr&, const kube::ObjectPtr& pod) { OnPod(*pod); }});
}

void InvariantChecker::Violation(const std::string& name, const std::string& detail) {
  record_.invariant_violations.push_back({name, Now(), detail});
  Log("invariant " + name + " violated: " + detail);
}

void InvariantChecker::OnNode(const json& node) { node_ready_[kube::NameOf(node)] = sim::NodeReadyStatus(node); }

void InvariantChecker::OnPod(const json& pod) {
  std::string node = NodeNameOf(pod);
  if (node.empty() || !bound_.insert(kube::UidOf(pod)).second) return;
  ++record_.invariant_checks["noPodOnNotReadyNode"];
  auto it = node_ready_.find(node);
  if (it == node_ready_.end())
    Violation("noPodOnNotReadyNode", "pod " + kube::KeyOf(pod) + " was bound to node " + node + ", which does not exist");
  else if (it->second != "True")
    Violation("noPodOnNotReadyNode", "pod " + kube::KeyOf(pod) + " was bound to node " + node + " while its Ready condition is " +
                                         (it->second.empty() ? std::string("missing") : it->second));
}

void InvariantChecker::OnStage(const json& pod, std::string_view stage, Micros begin, Micros end) {
  std::string job_name = Label(pod, dgl::kLabelJobName);
  if (job_name.empty()) return;
  JobKey job{kube::NamespaceOf(pod), job_name};
  std::string mode;
  if (auto r = record_.jobs.find(job); r != record_.jobs.end()) mode = r->second.partition_mode;
  if (mode == "Skip") return;
  if (stage == "dispatch" || (stage == "partition" && mode == "DistParMETIS")) {
    deliveries_[job].push_back(end);
    return;
  }
  if (stage != "load" && stage != "training") return;
  ++record_.invariant_checks["noTrainingBeforePartition"];
  // The pod received its partitions only from a delivery that ended after it was created.
  Micros created = 0;
  if (auto meta = pod.find("metadata"); meta != pod.end() && meta->is_object())
    if (auto t = kube::ParseTime(meta->value("creationTimestamp", "")); t) created = *t - sim().engine().epoch();
  // creationTimestamp has whole seconds: the delivery may end within the second the pod was made.
  created -= created % kube::kSecond;
  const std::vector<Micros>& ends = deliveries_[job];
  bool delivered = std::any_of(ends.begin(), ends.end(), [&](Micros e) { return e >= created && e <= begin; });
  if (!delivered) {
    std::string role = Label(pod, dgl::kLabelReplicaType);
    Violation("noTrainingBeforePartition",
              (role.empty() ? std::string("pod ") : role + " ") + kube::KeyOf(pod) + " began " + std::string(stage) + " at " +
                  FormatDuration(begin) + " before job " + job.ToString() + "'s partitions reached it" +
                  (ends.empty() ? std::string(" (none was delivered)")
                                : " (last delivery ended at " + FormatDuration(ends.back()) + ")"));
  }
}

}  // namespace harness
