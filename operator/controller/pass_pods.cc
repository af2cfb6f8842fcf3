// The pod steps of a reconcile pass: reading the job's pods, creating the current stage's, and
// deleting what a restart replaces, what is stuck on a dead node, and what a finished job leaves.
#include "operator/controller/reconcile_pass.h"

#include "operator/controller/builders.h"
#include "operator/controller/events.h"
#include "operator/controller/failure_policy.h"

#include <optional>
#include <string_view>
#include <utility>

namespace dgl {

using kube::Micros;
using kube::ObjectPtr;
using kube::Result;
using kube::Status;
using json = kube::Json;

bool ReconcilePass::NodeNotReady(const std::string& node, std::optional<std::uint64_t> nodes_changes) {
  auto [it, inserted] = r_.node_not_ready_.try_emplace(node);
  Reconciler::NodeReadiness& known = it->second;
  if (!inserted && nodes_changes && known.checked_at == nodes_changes) return known.not_ready;
  ObjectPtr current = r_.reader_.Get("nodes", "", node);
  if (inserted || known.node != current) {
    known.not_ready = dgl::NodeNotReady(current.get());
    known.node = std::move(current);
  }
  known.checked_at = nodes_changes;
  return known.not_ready;
}

// A pod version met in the job's last pass is not read again (Reconciler::seen_pods_).
void ReconcilePass::LoadPods() {
  const std::string& uid = kube::UidOf(*job_);
  auto& seen = r_.seen_pods_[ns_ + "/" + name_];
  const std::uint64_t pass = ++r_.passes_;
  const std::optional<std::uint64_t> nodes_changes = r_.reader_.Changes("nodes");
  for (const ObjectPtr& pod : r_.reader_.PodsOfJob(ns_, name_)) {
    auto [entry, fresh] = seen.try_emplace(pod.get());
    Reconciler::SeenPod& s = entry->second;
    if (fresh) {
      const json* owner = kube::ControllerRefOf(*pod);
      s.owned = owner != nullptr;
      if (s.owned) s.owner_uid = StringField(*owner, {"uid"});
      s.view = MakePodView(pod);
    }
    s.pass = pass;
    if (!s.owned || s.owner_uid != uid) continue;  // a previous job's pod
    bool lost = false;
    const std::string& node = s.view.NodeName();
    if (!node.empty()) lost = NodeNotReady(node, nodes_changes);
    PodView view = s.view;
    view.node_lost = lost;
    pods_.Put(std::move(view));
  }
  std::erase_if(seen, [pass](const auto& e) { return e.second.pass != pass; });
}

Status ReconcilePass::CreatePod(json pod) {
  auto result = r_.client_.Create("pods", std::move(pod), ns_);
  if (result.ok()) {
    pods_.Put(*result);
    return Status::Ok();
  }
  // The cache had not seen it yet: it exists, which is what we wanted.
  if (result.status().IsAlreadyExists()) return Status::Ok();
  return result.status();
}

Status ReconcilePass::DeletePod(const PodView& pod, std::optional<std::int64_t> grace) {
  kube::DeleteOptions options;
  options.grace_period_seconds = grace;
  options.precondition_uid = kube::UidOf(pod.obj());
  const std::string pod_name = pod.Name();
  auto result = r_.client_.Delete("pods", ns_, pod_name, options);
  if (!result.ok()) {
    if (result.status().IsNotFound()) {
      pods_.Forget(pod_name);
      return Status::Ok();
    }
    // A precondition failure means the pod was replaced meanwhile: not ours to delete any more.
    if (result.status().IsConflict() && Terminating(pod.obj())) return Status::Ok();
    return result.status();
  }
  if (Terminating(**result)) {
    pods_.Put(*result);
  } else {
    pods_.Forget(pod_name);
  }
  return Status::Ok();
}

bool ReconcilePass::WorkersStage() const {
  if (mode_ == PartitionMode::kSkip) return false;
  if (mode_ == PartitionMode::kDistParMetis) return true;
  if (PartitionsKept()) return true;
  if (placement_ == PartitionerPlacement::kLauncherInit) {
    const auto& launcher = pods_.launcher();
    if (!launcher || launcher->terminating) return false;
    if (InitContainerSpec(launcher->obj(), kLauncherPartitioner) == nullptr) return true;  // partitions on the PVC
    return launcher->Running() || InitContainerState(launcher->obj(), kLauncherPartitioner) == "succeeded";
  }
  const auto& partitioner = pods_.partitioner();
  return partitioner && !partitioner->terminating && partitioner->Succeeded();
}

// Partitioning finished in an earlier run of this job (it reached Partitioned or Training), and the
// partitions were written to a PersistentVolumeClaim that outlives the launcher.
bool ReconcilePass::PartitionsOnClaim() const {
  if (!pvc_ || !RunsPartitioner(mode_)) return false;
  return status_.HasCondition(kPhasePartitioned) || status_.HasCondition(kPhaseTraining);
}

bool ReconcilePass::PartitionsDelivered() const {
  if (!PartitionerPod()) return false;
  const auto& launcher = pods_.launcher();
  return launcher && !launcher->terminating && !launcher->Down() &&
         InitContainerState(launcher->obj(), kWatcherPartitioner) == "succeeded";
}

Result<bool> ReconcilePass::EnsurePods(bool workers_stage) {
  bool complete = true;
  const BuildOptions& build = r_.options_.build;
  auto ensure = [&](const std::optional<PodView>& current, auto make) -> Status {
    if (current) {
      if (current->terminating) complete = false;  // the name frees when the old pod is gone
      return Status::Ok();
    }
    return CreatePod(make());
  };
  // Kept partitions need no partitioner: one that succeeded and is gone since is not run again.
  if (PartitionerPod() && !PartitionsKept()) {
    if (Status s = ensure(pods_.partitioner(), [&] { return BuildPartitionerPod(*job_, build, restart_count_); });
        !s.ok()) {
      return s;
    }
  }
  const bool partitions_ready = PartitionsOnClaim();
  if (Status s = ensure(pods_.launcher(),
                        [&] { return BuildLauncherPod(*job_, build, restart_count_, partitions_ready); });
      !s.ok()) {
    return s;
  }
  if (!workers_stage) return complete;
  for (const IndexedReplica& r : kIndexedReplicas) {
    const auto& pods = pods_.Indexed(r.role);
    // Built at the first missing pod of the type and shared by the rest (sealed: each pod's copy
    // shares its containers and volumes, and makes its own only of what SetReplicaIndex and the
    // API server's defaulting write).
    std::optional<json> base;
    auto make = [&](std::int64_t i) {
      if (!base) {
        base = ReplicaPodBase(*job_, r.type, build, restart_count_);
        kube::SealTree(*base);
      }
      json pod = *base;
      SetReplicaIndex(pod, *job_, r.type, i);
      return pod;
    };
    for (std::int64_t i = 0; i < pods_.Wanted(r.role); ++i) {
      auto it = pods.find(i);
      std::optional<PodView> current = it == pods.end() ? std::nullopt : std::optional<PodView>(it->second);
      if (Status s = ensure(current, [&] { return make(i); }); !s.ok()) {
        return s;
      }
    }
  }
  return complete;
}

// The pods a restart replaces, and pods that are down at any time: Failed pods and pods lost with
// their node; while a stage restart is in progress, every launcher and indexed pod of an older
// epoch (a kept worker may sit on a node that died seconds ago and still looks Running until the
// node is marked NotReady, or still hold the broken run's DGL server processes, their port and
// shared memory; the relaunched run must not wait on it or connect to it); the launcher of an older
// epoch; and the partitioner of an older epoch when the partitions it made lived on the (deleted)
// launcher's emptyDir. A sampler or trainer restart replaces only the failed or lost pods and
// adopts the launcher and partitioner.
Status ReconcilePass::DeleteReplacedPods() {
  const bool restarting = status_.Phase() == kPhaseRestarting;
  const bool adopt = restarting && ScopeOfRestart(status_.ConditionReason(kPhaseRestarting)) == RestartScope::kTrainers;
  // Only a pod that is down or from an earlier epoch is adopted or replaced below.
  if (!pods_.AnyOf([this](const PodView& p) { return !p.terminating && (p.Down() || p.epoch < restart_count_); }))
    return Status::Ok();
  for (const PodView& pod : pods_.All()) {
    if (pod.terminating) continue;
    const bool partitioner = pods_.IsPartitioner(pod);
    const bool older = pod.epoch < restart_count_;
    if (older && adopt && (pods_.IsLauncher(pod) || partitioner) && !pod.Down()) {
      if (Status s = AdoptIntoEpoch(pod); !s.ok()) return s;
      continue;
    }
    bool replace = pod.Down();
    if (older && pods_.IsLauncher(pod)) replace = true;
    if (older && restarting && !adopt && !partitioner) replace = true;  // the broken run's pods
    if (older && partitioner && !pvc_) replace = true;
    if (!replace) continue;
    if (Status s = DeletePod(pod); !s.ok()) return s;
  }
  return Status::Ok();
}

Status ReconcilePass::AdoptIntoEpoch(const PodView& pod) {
  json next = pod.obj();
  next["metadata"]["annotations"][kAnnotationRestartEpoch] = std::to_string(restart_count_);
  auto result = r_.client_.Update("pods", std::move(next));
  if (!result.ok()) return result.status();
  pods_.Put(*result);
  return Status::Ok();
}

// Pods past their deletion grace on a NotReady node have no kubelet to confirm: force-delete.
Status ReconcilePass::ForceDeleteStuckPods() {
  if (!pods_.AnyOf([](const PodView& p) { return p.terminating && !p.NodeName().empty(); })) return Status::Ok();
  for (const PodView& pod : pods_.All()) {
    if (!pod.terminating) continue;
    const std::string node = StringField(pod.obj(), {"spec", "nodeName"});
    if (node.empty()) continue;
    ObjectPtr node_obj = r_.reader_.Get("nodes", "", node);
    if (NodeReady(node_obj.get())) continue;
    auto deadline = kube::ParseTime(StringField(pod.obj(), {"metadata", "deletionTimestamp"}));
    if (!deadline) continue;
    if (*deadline > now_) {
      Requeue(*deadline - now_);
      continue;
    }
    const std::string pod_name = pod.Name();
    if (Status s = DeletePod(pod, 0); !s.ok()) return s;
    status_.AddEvent("Warning", kEventForceDeletedPod,
                     "Force-deleted pod " + pod_name + " stuck terminating on NotReady node " + node);
  }
  return Status::Ok();
}

// Deletes pods per the terminal cleanup rules: cleanPodPolicy, and every active pod of a job that
// failed on its deadline or its unschedulable timeout.
Status ReconcilePass::CleanUpTerminal() {
  const std::string policy = GetCleanPodPolicy(*job_);
  const std::string failed_reason = status_.Phase() == kPhaseFailed ? status_.ConditionReason(kPhaseFailed) : "";
  const bool delete_active =
      policy != kCleanPodNone || failed_reason == kReasonDeadlineExceeded || failed_reason == kReasonUnschedulable;
  for (const PodView& pod : pods_.All()) {
    if (pod.terminating) continue;
    const bool doomed = policy == kCleanPodAll || (delete_active && pod.Active());
    if (!doomed) continue;
    if (Status s = DeletePod(pod); !s.ok()) return s;
  }
  return Status::Ok();
}

}  // namespace dgl
