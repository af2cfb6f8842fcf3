// Every invariant of a run, checked in one place. See invariants.h.
#include "sim/harness/run/invariants.h"

#include "fakeapi/client/client.h"
#include "fakeapi/client/json_path.h"
#include "operator/api/vocabulary.h"
#include "sim/cluster/cluster.h"
#include "sim/harness/config/units.h"

#include <algorithm>

namespace harness {
namespace {

using kube::JsonString;
using json = kube::Json;


std::optional<std::int64_t> ParseVersion(const std::string& rv) {
  if (rv.empty() || rv.size() > 18 || rv.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  return std::stoll(rv);
}

std::string JoinComma(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
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
               .on_update =
                   [this](const kube::ObjectPtr& old, const kube::ObjectPtr& pod) {
                     CheckVersion(*old, *pod);
                     OnPod(*pod);
                   },
               .on_delete = [this](const kube::ObjectPtr& pod) { OnPodGone(*pod); }});
  AddInformer("dgljobs", {},
              {.on_add = [this](const kube::ObjectPtr& job) { OnJob(*job); },
               .on_update =
                   [this](const kube::ObjectPtr& old, const kube::ObjectPtr& job) {
                     CheckVersion(*old, *job);
                     OnJob(*job);
                   },
               .on_delete = [this](const kube::ObjectPtr& job) { jobs_.erase(kube::UidOf(*job)); }});
}

void InvariantChecker::Checked(Invariant invariant) { ++record_.invariant_checks[std::string(InfoOf(invariant).name)]; }

void InvariantChecker::Violation(Invariant invariant, const std::string& detail) {
  const std::string name(InfoOf(invariant).name);
  record_.invariant_violations.push_back({name, Now(), detail});
  Log("invariant " + name + " violated: " + detail);
}

void InvariantChecker::OnNode(const json& node) { node_ready_[kube::NameOf(node)] = sim::NodeReadyStatus(node); }

// ---- pods -----------------------------------------------------------------------------------------

void InvariantChecker::OnPod(const json& pod) {
  const std::string& uid = kube::UidOf(pod);
  const std::string& node = kube::NodeNameOf(pod);
  if (!node.empty() && checked_.insert(uid).second) CheckNodeReady(pod, node);
  if (released_.count(uid)) return;
  const std::string phase = JsonString(pod, {"status", "phase"});
  if (kube::JsonString(pod, {"metadata", "labels", dgl::kLabelReplicaType}) == dgl::kRoleLauncher && phase == "Succeeded") {
    std::string job = JsonString(pod, {"metadata", "labels", dgl::kLabelJobName});
    if (!job.empty()) launcher_succeeded_.insert(JobKey{kube::NamespaceOf(pod), job});
  }
  if (!node.empty() && !bound_.count(uid) && !kube::IsPodFinished(phase)) CheckOvercommit(pod, node);
  if (kube::IsPodFinished(phase)) Release(uid);
}

// A deleted pod sends no more events: what was kept about it goes, so the checker's memory follows
// the pods alive, not every pod the run made.
void InvariantChecker::OnPodGone(const json& pod) {
  const std::string& uid = kube::UidOf(pod);
  Release(uid);
  checked_.erase(uid);
  released_.erase(uid);
}

std::size_t InvariantChecker::PodsTracked() const {
  std::set<std::string> uids(checked_.begin(), checked_.end());
  uids.insert(released_.begin(), released_.end());
  for (const auto& [uid, node] : bound_) uids.insert(uid);
  return uids.size();
}

void InvariantChecker::CheckNodeReady(const json& pod, const std::string& node) {
  Checked(Invariant::kNoPodOnNotReadyNode);
  auto it = node_ready_.find(node);
  if (it == node_ready_.end())
    Violation(Invariant::kNoPodOnNotReadyNode,
              "pod " + kube::KeyOf(pod) + " was bound to node " + node + ", which does not exist");
  else if (it->second != "True")
    Violation(Invariant::kNoPodOnNotReadyNode, "pod " + kube::KeyOf(pod) + " was bound to node " + node +
                                                   " while its Ready condition is " +
                                                   (it->second.empty() ? std::string("missing") : it->second));
}

void InvariantChecker::CheckOvercommit(const json& pod, const std::string& node) {
  const std::string& uid = kube::UidOf(pod);
  bound_[uid] = node;
  NodeUse& use = node_use_[node];
  sim::Resources requests = sim::ComputePodRequests(pod).requests;
  use.pods[uid] = requests;
  use.used.Add(requests);
  Checked(Invariant::kNodeNotOvercommitted);
  auto n = sim().store().Get("nodes", "", node);
  if (!n.ok()) return;
  const sim::Resources alloc = sim::NodeAllocatable(**n);
  std::vector<std::string> over;
  if (use.used.milli_cpu > alloc.milli_cpu) over.push_back("cpu");
  if (use.used.memory > alloc.memory) over.push_back("memory");
  if (alloc.ephemeral_storage > 0 && use.used.ephemeral_storage > alloc.ephemeral_storage)
    over.push_back("ephemeral-storage");
  if (use.used.gpu > alloc.gpu) over.push_back(sim::kResourceGpu);
  if (alloc.pods > 0 && use.used.pods > alloc.pods) over.push_back("pods");
  for (const auto& resource : over)
    Violation(Invariant::kNodeNotOvercommitted,
              "node " + node + " over-committed on " + resource + " when " + kube::KeyOf(pod) + " was bound");
}

void InvariantChecker::Release(const std::string& uid) {
  if (!released_.insert(uid).second) return;
  auto bound = bound_.find(uid);
  if (bound == bound_.end()) return;
  NodeUse& use = node_use_[bound->second];
  if (auto p = use.pods.find(uid); p != use.pods.end()) {
    use.used.Add(p->second, -1);
    use.pods.erase(p);
  }
  bound_.erase(bound);
}

void InvariantChecker::CheckVersion(const json& before, const json& after) {
  Checked(Invariant::kResourceVersionsIncrease);
  auto old_rv = ParseVersion(kube::ResourceVersionOf(before)), new_rv = ParseVersion(kube::ResourceVersionOf(after));
  if (old_rv && new_rv && *new_rv <= *old_rv)
    Violation(Invariant::kResourceVersionsIncrease, kube::KeyOf(after) + " went from resourceVersion " +
                                                        std::to_string(*old_rv) + " to " + std::to_string(*new_rv));
}

// ---- jobs -----------------------------------------------------------------------------------------

void InvariantChecker::OnJob(const json& job) {
  const std::string phase = JsonString(job, {"status", "phase"});
  JobSeen& seen = jobs_[kube::UidOf(job)];
  if (phase.empty() || phase == seen.phase) return;
  const JobKey key{kube::NamespaceOf(job), kube::NameOf(job)};
  Checked(Invariant::kPhasesMoveForward);
  const int before = dgl::PhaseProgress(seen.phase), after = dgl::PhaseProgress(phase);
  if (!seen.phase.empty() && before >= 0 && after >= 0 && after < before)
    Violation(Invariant::kPhasesMoveForward, "job " + key.ToString() + " went from " + seen.phase + " to " + phase);
  if (seen.phase == dgl::kPhaseSucceeded)
    Violation(Invariant::kPhasesMoveForward, "job " + key.ToString() + " left Succeeded for " + phase);
  seen.phase = phase;
  if (phase != dgl::kPhaseSucceeded) return;
  Checked(Invariant::kSucceededOnlyIfLauncherSucceeded);
  if (!launcher_succeeded_.count(key))
    Violation(Invariant::kSucceededOnlyIfLauncherSucceeded,
              "job " + key.ToString() + " Succeeded but no launcher of it was seen exiting 0");
}

// ---- stages ---------------------------------------------------------------------------------------

void InvariantChecker::OnStage(const json& pod, std::string_view stage, Micros begin, Micros end) {
  const std::string job_name = JsonString(pod, {"metadata", "labels", dgl::kLabelJobName});
  if (job_name.empty()) return;
  const JobKey job{kube::NamespaceOf(pod), job_name};
  std::string mode;
  if (auto r = record_.jobs.find(job); r != record_.jobs.end()) mode = r->second.partition_mode;
  if (mode == "Skip") return;
  if (stage == "dispatch" || (stage == "partition" && mode == "DistParMETIS")) {
    deliveries_[job].push_back(end);
    return;
  }
  if (stage != "load" && stage != "training") return;
  Checked(Invariant::kNoTrainingBeforePartition);
  // The pod received its partitions only from a delivery that ended after it was created.
  Micros created = 0;
  if (auto t = kube::ParseTime(JsonString(pod, {"metadata", "creationTimestamp"}))) created = *t - sim().engine().epoch();
  // creationTimestamp has whole seconds: the delivery may end within the second the pod was made.
  created -= created % kube::kSecond;
  const std::vector<Micros>& ends = deliveries_[job];
  bool delivered = std::any_of(ends.begin(), ends.end(), [&](Micros e) { return e >= created && e <= begin; });
  if (delivered) return;
  const std::string role = JsonString(pod, {"metadata", "labels", dgl::kLabelReplicaType});
  Violation(Invariant::kNoTrainingBeforePartition,
            (role.empty() ? std::string("pod ") : role + " ") + kube::KeyOf(pod) + " began " + std::string(stage) +
                " at " + FormatDuration(begin) + " before job " + job.ToString() + "'s partitions reached it" +
                (ends.empty() ? std::string(" (none was delivered)")
                              : " (last delivery ended at " + FormatDuration(ends.back()) + ")"));
}

// ---- at the end -----------------------------------------------------------------------------------

void InvariantChecker::CheckAtEnd() {
  CheckJobsTerminalOrProgressing();
  CheckDeletedJobsLeftNothing();
}

void InvariantChecker::CheckJobsTerminalOrProgressing() {
  Checked(Invariant::kJobsTerminalOrProgressing);
  for (const auto& [key, r] : record_.jobs) {
    if (!r.submitted || r.deleted || dgl::IsTerminalPhase(r.phase) || r.phase == dgl::kPhaseSuspended) continue;
    // Not terminal: fine only when the run was cut by `until` while the job was still moving.
    bool progressing = record_.hit_until && record_.end - r.last_status_change <= 3600 * kube::kSecond;
    if (!progressing)
      Violation(Invariant::kJobsTerminalOrProgressing,
                "job " + key.ToString() + " ended the run in phase " + (r.phase.empty() ? "(none)" : r.phase) +
                    ", last changed at " + FormatDuration(r.last_status_change));
  }
}

void InvariantChecker::CheckDeletedJobsLeftNothing() {
  for (const auto& [key, r] : record_.jobs) {
    if (!r.deleted) continue;
    Checked(Invariant::kNoObjectsAfterDelete);
    std::vector<std::string> left;
    const std::string selector = std::string(dgl::kLabelJobName) + "=" + key.name;
    if (auto pods = sim().store().List("pods", {.namespace_ = key.ns, .label_selector = selector}); pods.ok())
      for (const auto& pod : pods->items)
        if (!kube::IsBeingDeleted(*pod)) left.push_back("pod " + kube::NameOf(*pod));
    const std::string config_map = dgl::ConfigMapName(key.name);
    if (auto cm = sim().store().Get("configmaps", key.ns, config_map); cm.ok() && !kube::IsBeingDeleted(**cm))
      left.push_back("configmap " + config_map);
    if (!left.empty())
      Violation(Invariant::kNoObjectsAfterDelete,
                "job " + key.ToString() + " was deleted but " + JoinComma(left) + " remain");
  }
}

}  // namespace harness
