#include "operator/controller/reconciler.h"

#include "fakeapi/client/clock.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <string_view>
#include <utility>

namespace dgl {
namespace {

using kube::Micros;
using kube::ObjectPtr;
using kube::Result;
using kube::Status;
using nlohmann::json;

const json* Find(const json& obj, std::initializer_list<const char*> path) {
  const json* cur = &obj;
  for (const char* key : path) {
    if (!cur->is_object()) return nullptr;
    auto it = cur->find(key);
    if (it == cur->end() || it->is_null()) return nullptr;
    cur = &*it;
  }
  return cur;
}

std::string Str(const json& obj, std::initializer_list<const char*> path) {
  const json* v = Find(obj, path);
  return v != nullptr && v->is_string() ? v->get<std::string>() : std::string();
}

std::int64_t Int(const json& obj, std::initializer_list<const char*> path, std::int64_t fallback = 0) {
  const json* v = Find(obj, path);
  return v != nullptr && v->is_number_integer() ? v->get<std::int64_t>() : fallback;
}

bool Terminating(const json& obj) { return Find(obj, {"metadata", "deletionTimestamp"}) != nullptr; }

// A pod of the job as the reconciler sees it.
struct PodView {
  ObjectPtr object;
  std::string phase;
  bool terminating = false;
  std::int64_t epoch = 0;

  const json& obj() const { return *object; }
  bool Active() const { return !terminating && (phase == "Pending" || phase == "Running"); }
  bool Running() const { return !terminating && phase == "Running"; }
  bool Succeeded() const { return phase == "Succeeded"; }
  bool Failed() const { return !terminating && phase == "Failed"; }
  bool Ready() const {
    if (!Running()) return false;
    const json* conditions = Find(obj(), {"status", "conditions"});
    if (conditions == nullptr || !conditions->is_array()) return false;
    for (const json& c : *conditions) {
      if (Str(c, {"type"}) == "Ready") return Str(c, {"status"}) == "True";
    }
    return false;
  }
  std::string Ip() const { return Str(obj(), {"status", "podIP"}); }
  std::string Name() const { return kube::NameOf(obj()); }
};

PodView MakeView(ObjectPtr pod) {
  PodView v;
  v.phase = Str(*pod, {"status", "phase"});
  if (v.phase.empty()) v.phase = "Pending";
  v.terminating = Terminating(*pod);
  const std::string epoch = Str(*pod, {"metadata", "annotations", kAnnotationRestartEpoch});
  v.epoch = epoch.empty() ? 0 : std::strtoll(epoch.c_str(), nullptr, 10);
  v.object = std::move(pod);
  return v;
}

// The terminated state of the pod's first container that has one (state, else lastState).
const json* TerminatedState(const json& pod) {
  const json* statuses = Find(pod, {"status", "containerStatuses"});
  if (statuses == nullptr || !statuses->is_array()) return nullptr;
  for (const json& s : *statuses) {
    if (const json* t = Find(s, {"state", "terminated"})) return t;
  }
  for (const json& s : *statuses) {
    if (const json* t = Find(s, {"lastState", "terminated"})) return t;
  }
  return nullptr;
}

bool OomKilled(const json& pod) {
  if (Str(pod, {"status", "reason"}) == "OOMKilled") return true;
  const json* statuses = Find(pod, {"status", "containerStatuses"});
  if (statuses == nullptr || !statuses->is_array()) return false;
  for (const json& s : *statuses) {
    if (Str(s, {"state", "terminated", "reason"}) == "OOMKilled") return true;
  }
  return false;
}

std::string MemoryLimit(const json& pod) {
  const json* containers = Find(pod, {"spec", "containers"});
  if (containers == nullptr || !containers->is_array() || containers->empty()) return "";
  return Str((*containers)[0], {"resources", "limits", "memory"});
}

// Why a pod failed, for messages: "exit code 137 (Error)", "Evicted: ...".
std::string FailureDescription(const json& pod) {
  std::string reason = Str(pod, {"status", "reason"});
  std::string message = Str(pod, {"status", "message"});
  if (const json* t = TerminatedState(pod)) {
    std::string out = "exit code " + std::to_string(Int(*t, {"exitCode"}));
    std::string r = Str(*t, {"reason"});
    if (!r.empty()) out += " (" + r + ")";
    return out;
  }
  if (!reason.empty()) return message.empty() ? reason : reason + ": " + message;
  return "failed";
}

// Whether the replica's restartPolicy allows retrying this failure.
bool Retryable(const json& job, const char* replica_type, const json& pod) {
  const std::string policy = GetRestartPolicy(job, replica_type);
  if (policy == "Never") return false;
  if (policy == "ExitCode") {
    const json* t = TerminatedState(pod);
    if (t == nullptr) return true;  // evicted, node lost: no exit code, retryable
    const std::int64_t code = Int(*t, {"exitCode"});
    return code == 0 || code >= 128;  // 1-127 permanent, 128-255 retryable
  }
  return true;
}

bool NodeReady(const json* node) {
  if (node == nullptr) return false;
  const json* conditions = Find(*node, {"status", "conditions"});
  if (conditions == nullptr || !conditions->is_array()) return false;
  for (const json& c : *conditions) {
    if (Str(c, {"type"}) == "Ready") return Str(c, {"status"}) == "True";
  }
  return false;
}

bool Unschedulable(const json& pod) {
  const json* conditions = Find(pod, {"status", "conditions"});
  if (conditions == nullptr || !conditions->is_array()) return false;
  for (const json& c : *conditions) {
    if (Str(c, {"type"}) == "PodScheduled") return Str(c, {"status"}) == "False" && Str(c, {"reason"}) == "Unschedulable";
  }
  return false;
}

// The state of an init container: "running", "succeeded", "failed" or "".
std::string InitContainerState(const json& pod, const char* name) {
  const json* statuses = Find(pod, {"status", "initContainerStatuses"});
  if (statuses == nullptr || !statuses->is_array()) return "";
  for (const json& s : *statuses) {
    if (Str(s, {"name"}) != name) continue;
    if (Find(s, {"state", "running"}) != nullptr) return "running";
    if (const json* t = Find(s, {"state", "terminated"})) return Int(*t, {"exitCode"}) == 0 ? "succeeded" : "failed";
  }
  return "";
}

std::uint64_t Fnv1a(std::string_view text) {
  std::uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

std::int64_t ParseIntOr(const std::string& text, std::int64_t fallback) {
  if (text.empty()) return fallback;
  char* end = nullptr;
  long long v = std::strtoll(text.c_str(), &end, 10);
  return end != nullptr && *end == '\0' ? v : fallback;
}

}  // namespace

// ---- ClientReader ---------------------------------------------------------------------------------

ObjectPtr ClientReader::Get(const std::string& resource, const std::string& ns, const std::string& name) {
  auto r = client_.Get(resource, ns, name);
  return r.ok() ? r.value() : nullptr;
}

std::vector<ObjectPtr> ClientReader::PodsOfJob(const std::string& ns, const std::string& job_name) {
  kube::ListOptions options;
  options.namespace_ = ns;
  options.label_selector = std::string(kLabelJobName) + "=" + job_name;
  auto r = client_.List("pods", options);
  return r.ok() ? r->items : std::vector<ObjectPtr>{};
}

// ---- Events ---------------------------------------------------------------------------------------

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
    event["count"] = Int(event, {"count"}, 1) + 1;
    event["lastTimestamp"] = now;
    auto updated = client.Update("events", std::move(event));
    return updated.status();
  }
  if (!existing.status().IsNotFound()) return existing.status();
  json event = {{"apiVersion", "v1"},
                {"kind", "Event"},
                {"metadata", {{"name", name}, {"namespace", ns}}},
                {"involvedObject",
                 {{"apiVersion", object.value("apiVersion", "")},
                  {"kind", object.value("kind", "")},
                  {"name", kube::NameOf(object)},
                  {"namespace", ns},
                  {"uid", uid}}},
                {"reason", reason},
                {"message", message},
                {"type", type},
                {"count", 1},
                {"firstTimestamp", now},
                {"lastTimestamp", now},
                {"source", {{"component", component}}},
                {"reportingComponent", component}};
  auto created = client.Create("events", std::move(event), ns);
  return created.ok() || created.status().IsAlreadyExists() ? Status::Ok() : created.status();
}

// ---- One pass ---------------------------------------------------------------------------------------

struct Reconciler::Pass {
  Reconciler& r;
  json job;
  std::string ns;
  std::string name;
  Micros now;
  PartitionMode mode;
  std::int64_t workers;
  bool pvc;

  json old_status;
  json status;
  std::string prev_phase;
  std::int64_t restart_count = 0;

  std::optional<PodView> partitioner;
  std::optional<PodView> launcher;
  std::map<std::int64_t, PodView> worker_pods;
  std::vector<PodView> other_pods;  // owned pods that fit no slot (e.g. beyond Worker.replicas)

  std::optional<Micros> requeue;
  struct PendingEvent {
    std::string type, reason, message;
  };
  std::vector<PendingEvent> events;

  Pass(Reconciler& rec, ObjectPtr job_ptr)
      : r(rec), job(*job_ptr), ns(kube::NamespaceOf(job)), name(kube::NameOf(job)), now(rec.clock_.Now()) {
    mode = GetPartitionMode(job);
    workers = mode == PartitionMode::kSkip ? 0 : GetReplicas(job, kReplicaWorker);
    pvc = PartitionsOnPersistentVolume(job);
    old_status = job.contains("status") && job["status"].is_object() ? job["status"] : json::object();
    status = old_status;
    prev_phase = Str(status, {"phase"});
    restart_count = Int(status, {"restartCount"});
  }

  void Requeue(Micros delay) {
    delay = std::max<Micros>(delay, kube::kMillisecond);
    if (!requeue || delay < *requeue) requeue = delay;
  }

  void Event(const std::string& type, const std::string& reason, const std::string& message) {
    events.push_back({type, reason, message});
  }

  // ---- pods -------------------------------------------------------------------------------------

  void LoadPods() {
    const std::string& uid = kube::UidOf(job);
    for (const ObjectPtr& pod : r.reader_.PodsOfJob(ns, name)) {
      const json* owner = kube::ControllerRefOf(*pod);
      if (owner == nullptr || Str(*owner, {"uid"}) != uid) continue;  // a previous job's pod
      Put(pod);
    }
  }

  // Slots a pod into partitioner / launcher / worker i.
  void Put(const ObjectPtr& pod) {
    PodView v = MakeView(pod);
    const std::string pod_name = v.Name();
    if (pod_name == PartitionerName(name)) {
      partitioner = std::move(v);
    } else if (pod_name == LauncherName(name)) {
      launcher = std::move(v);
    } else {
      const std::string prefix = name + "-worker-";
      if (pod_name.rfind(prefix, 0) == 0) {
        std::int64_t index = ParseIntOr(pod_name.substr(prefix.size()), -1);
        if (index >= 0 && index < workers && WorkerName(name, index) == pod_name) {
          worker_pods[index] = std::move(v);
          return;
        }
      }
      other_pods.push_back(std::move(v));
    }
  }

  void Forget(const std::string& pod_name) {
    if (partitioner && partitioner->Name() == pod_name) partitioner.reset();
    if (launcher && launcher->Name() == pod_name) launcher.reset();
    for (auto it = worker_pods.begin(); it != worker_pods.end(); ++it) {
      if (it->second.Name() == pod_name) {
        worker_pods.erase(it);
        break;
      }
    }
    std::erase_if(other_pods, [&](const PodView& v) { return v.Name() == pod_name; });
  }

  // A snapshot (copies): deleting pods while iterating must not invalidate the iteration.
  std::vector<PodView> AllPods() const {
    std::vector<PodView> out;
    if (partitioner) out.push_back(*partitioner);
    if (launcher) out.push_back(*launcher);
    for (const auto& [i, w] : worker_pods) out.push_back(w);
    for (const auto& p : other_pods) out.push_back(p);
    return out;
  }
  bool IsLauncher(const PodView& p) const { return p.Name() == LauncherName(name); }
  bool IsPartitioner(const PodView& p) const { return p.Name() == PartitionerName(name); }

  Status DeletePod(const PodView& pod, std::optional<std::int64_t> grace = std::nullopt) {
    kube::DeleteOptions options;
    options.grace_period_seconds = grace;
    options.precondition_uid = kube::UidOf(pod.obj());
    const std::string pod_name = pod.Name();
    auto result = r.client_.Delete("pods", ns, pod_name, options);
    if (!result.ok()) {
      if (result.status().IsNotFound()) {
        Forget(pod_name);
        return Status::Ok();
      }
      // A precondition failure means the pod was replaced meanwhile: not ours to delete any more.
      if (result.status().IsConflict() && Terminating(pod.obj())) return Status::Ok();
      return result.status();
    }
    if (Terminating(**result)) {
      Put(*result);
    } else {
      Forget(pod_name);
    }
    return Status::Ok();
  }

  Status CreatePod(json pod) {
    const std::string pod_name = kube::NameOf(pod);
    auto result = r.client_.Create("pods", std::move(pod), ns);
    if (result.ok()) {
      Put(*result);
      return Status::Ok();
    }
    // The cache had not seen it yet: it exists, which is what we wanted.
    if (result.status().IsAlreadyExists()) return Status::Ok();
    return result.status();
  }

  // ---- status -----------------------------------------------------------------------------------

  void SetCondition(const std::string& type, bool true_status, const std::string& reason, const std::string& message) {
    json& conditions = status["conditions"];
    if (!conditions.is_array()) conditions = json::array();
    const std::string value = true_status ? "True" : "False";
    for (json& c : conditions) {
      if (Str(c, {"type"}) != type) continue;
      if (Str(c, {"status"}) != value) {
        c["status"] = value;
        c["lastTransitionTime"] = kube::FormatTime(now);
        c["reason"] = reason;
        c["message"] = message;
      } else if (true_status) {
        c["reason"] = reason;
        c["message"] = message;
      }
      return;
    }
    if (!true_status) return;  // a condition that never held is not listed
    conditions.push_back({{"type", type},
                          {"status", value},
                          {"reason", reason},
                          {"message", message},
                          {"lastTransitionTime", kube::FormatTime(now)}});
  }

  std::string Phase() const { return Str(status, {"phase"}); }

  // Moves to `phase`: its condition True, the other phase conditions False, an Event on change.
  void SetPhase(const std::string& phase, const std::string& reason, const std::string& message) {
    const bool changed = Phase() != phase;
    status["phase"] = phase;
    for (const char* type : kPhaseConditions) {
      if (phase == type) {
        SetCondition(type, true, reason, message);
      } else {
        SetCondition(type, false, reason, message);
      }
    }
    if (IsTerminalPhase(phase) && Find(status, {"completionTime"}) == nullptr) {
      status["completionTime"] = kube::FormatTime(now);
    }
    if (changed) {
      const bool warning = phase == kPhaseFailed || phase == kPhaseRestarting;
      Event(warning ? "Warning" : "Normal", reason, message);
    }
  }

  void Fail(const std::string& reason, const std::string& message) { SetPhase(kPhaseFailed, reason, message); }

  void ComputeReplicaStatuses() {
    json statuses = json::object();
    auto add = [&](const char* type, std::int64_t replicas, const std::vector<const PodView*>& pods) {
      std::int64_t active = 0, succeeded = 0, failed = 0, ready = 0;
      for (const PodView* p : pods) {
        if (p->Active()) ++active;
        if (p->Succeeded()) ++succeeded;
        if (p->phase == "Failed") ++failed;
        if (p->Ready()) ++ready;
      }
      statuses[type] = {{"active", active},
                        {"succeeded", succeeded},
                        {"failed", failed},
                        {"ready", std::to_string(ready) + "/" + std::to_string(replicas)}};
    };
    add(kReplicaLauncher, 1, launcher ? std::vector<const PodView*>{&*launcher} : std::vector<const PodView*>{});
    if (mode != PartitionMode::kSkip) {
      std::vector<const PodView*> ws;
      for (const auto& [i, w] : worker_pods) ws.push_back(&w);
      add(kReplicaWorker, workers, ws);
    }
    if (RunsPartitionerPod(mode)) {
      add(kReplicaPartitioner, 1,
          partitioner ? std::vector<const PodView*>{&*partitioner} : std::vector<const PodView*>{});
    }
    status["replicaStatuses"] = std::move(statuses);
  }

  // Writes status if it changed (lastReconcileTime aside), then records the pending Events.
  Status WriteStatus() {
    json a = status;
    json b = old_status;
    a.erase("lastReconcileTime");
    b.erase("lastReconcileTime");
    if (a != b) {
      status["lastReconcileTime"] = kube::FormatTime(now);
      json object = job;
      object["status"] = status;
      auto result = r.client_.UpdateStatus("dgljobs", std::move(object));
      if (!result.ok()) return result.status();
      r.written_jobs_[ns + "/" + name] = *result;
      job = **result;
      old_status = status;
    }
    // Events only after the status they describe is stored, so a retried pass does not repeat them.
    for (const auto& e : events) {
      // Best effort: a lost Event must not block the job.
      (void)RecordEvent(r.client_, r.clock_, r.options_.component, job, e.type, e.reason, e.message);
    }
    events.clear();
    return Status::Ok();
  }

  // ---- owned objects ------------------------------------------------------------------------------

  Status EnsureObject(const std::string& resource, json desired, const std::vector<const char*>& owned_fields) {
    const std::string obj_name = kube::NameOf(desired);
    ObjectPtr current = r.reader_.Get(resource, ns, obj_name);
    if (current == nullptr) {
      auto created = r.client_.Create(resource, std::move(desired), ns);
      if (created.ok() || created.status().IsAlreadyExists()) return Status::Ok();
      return created.status();
    }
    if (Terminating(*current)) return Status::Ok();
    const json* owner = kube::ControllerRefOf(*current);
    if (owner == nullptr || Str(*owner, {"uid"}) != kube::UidOf(job)) return Status::Ok();  // not ours
    json next = *current;
    bool changed = false;
    for (const char* field : owned_fields) {
      // "spec.x" paths one level deep are enough for what we own.
      std::string_view f(field);
      auto dot = f.find('.');
      if (dot == std::string_view::npos) {
        if (next[field] != desired[field]) {
          next[field] = desired[field];
          changed = true;
        }
      } else {
        std::string top(f.substr(0, dot));
        std::string sub(f.substr(dot + 1));
        if (next[top][sub] != desired[top][sub]) {
          next[top][sub] = desired[top][sub];
          changed = true;
        }
      }
    }
    if (!changed) return Status::Ok();
    auto updated = r.client_.Update(resource, std::move(next));
    return updated.status();
  }

  // `workers_stage`: the workers are wanted now, so the hostfile names every one of them, with an
  // empty IP column until it has one (the launcher's watcher-loop reads the file once and must
  // know whom to wait for). Depending only on the stage and the IPs keeps a second reconcile from
  // rewriting the ConfigMap just because this one created the pods.
  PodAddresses Addresses(bool workers_stage) const {
    PodAddresses a;
    auto ip_of = [](const std::optional<PodView>& p) -> std::optional<std::string> {
      if (!p || p->terminating || p->Ip().empty()) return std::nullopt;
      return p->Ip();
    };
    a.partitioner = ip_of(partitioner);
    a.launcher = ip_of(launcher);
    for (const auto& [i, w] : worker_pods) {
      if (!w.terminating && !w.Ip().empty() && w.phase != "Failed") a.workers[i] = w.Ip();
    }
    if (workers_stage)
      for (std::int64_t i = 0; i < workers; ++i)
        if (!a.workers.count(i)) a.workers_without_ip.insert(i);
    return a;
  }

  std::int64_t StageSize(bool workers_stage) const {
    if (auto min = GetSchedulingInt(job, "minAvailable")) return *min;
    if (mode == PartitionMode::kSkip) return 1;
    if (mode == PartitionMode::kDistParMetis || workers_stage) return workers + 1;
    return 2;  // partitioner + launcher
  }

  Status EnsureSupportObjects(bool workers_stage) {
    if (Status s = EnsureObject("configmaps", BuildConfigMap(job, Addresses(workers_stage)), {"data"}); !s.ok()) return s;
    if (mode != PartitionMode::kSkip) {
      for (const char* role : {kRoleLauncher, kRolePartitioner}) {
        if (std::string_view(role) == kRolePartitioner && !RunsPartitionerPod(mode)) continue;
        if (Status s = EnsureObject("serviceaccounts", BuildServiceAccount(job, role), {}); !s.ok()) return s;
        if (Status s = EnsureObject("roles", BuildRole(job, role), {"rules"}); !s.ok()) return s;
        if (Status s = EnsureObject("rolebindings", BuildRoleBinding(job, role), {}); !s.ok()) return s;
      }
      if (Status s = EnsureObject("services", BuildWorkerService(job), {"spec.ports", "spec.selector"}); !s.ok()) {
        return s;
      }
    }
    if (r.options_.build.gang_scheduling) {
      if (Status s = EnsureObject("podgroups", BuildPodGroup(job, StageSize(workers_stage)), {"spec.minMember"});
          !s.ok()) {
        return s;
      }
    }
    return Status::Ok();
  }

  // ---- the steps ----------------------------------------------------------------------------------

  // Pods past their deletion grace on a NotReady node have no kubelet to confirm: force-delete.
  Status ForceDeleteStuckPods() {
    for (const PodView& pod : AllPods()) {
      const PodView* p = &pod;
      if (!p->terminating) continue;
      const std::string node = Str(p->obj(), {"spec", "nodeName"});
      if (node.empty()) continue;
      ObjectPtr node_obj = r.reader_.Get("nodes", "", node);
      if (NodeReady(node_obj.get())) continue;
      auto deadline = kube::ParseTime(Str(p->obj(), {"metadata", "deletionTimestamp"}));
      if (!deadline) continue;
      if (*deadline > now) {
        Requeue(*deadline - now);
        continue;
      }
      const std::string pod_name = p->Name();
      if (Status s = DeletePod(pod, 0); !s.ok()) return s;
      Event("Warning", "ForceDeletedPod",
            "Force-deleted pod " + pod_name + " stuck terminating on NotReady node " + node);
    }
    return Status::Ok();
  }

  // Deletes pods per the terminal cleanup rules.
  Status CleanUpTerminal() {
    const std::string policy = GetCleanPodPolicy(job);
    const std::string failed_reason = Str(status, {"phase"}) == kPhaseFailed ? FailedReason() : "";
    const bool delete_active = policy != "None" || failed_reason == "DeadlineExceeded" || failed_reason == "Unschedulable";
    for (const PodView& pod : AllPods()) {
      const PodView* p = &pod;
      if (p->terminating) continue;
      const bool doomed = policy == "All" || (delete_active && p->Active());
      if (!doomed) continue;
      if (Status s = DeletePod(pod); !s.ok()) return s;
    }
    return Status::Ok();
  }

  std::string FailedReason() const {
    const json* conditions = Find(status, {"conditions"});
    if (conditions == nullptr || !conditions->is_array()) return "";
    for (const json& c : *conditions) {
      if (Str(c, {"type"}) == kPhaseFailed) return Str(c, {"reason"});
    }
    return "";
  }

  Result<ReconcileResult> Finish() {
    ReconcileResult result;
    result.requeue_after = requeue;
    return result;
  }

  Result<ReconcileResult> Terminal() {
    if (Status s = WriteStatus(); !s.ok()) return s;  // the verdict first, then the cleanup
    if (Status s = CleanUpTerminal(); !s.ok()) return s;
    ComputeReplicaStatuses();
    if (Status s = WriteStatus(); !s.ok()) return s;
    if (auto ttl = GetTtlSecondsAfterFinished(job)) {
      auto completed = kube::ParseTime(Str(status, {"completionTime"}));
      Micros at = (completed ? *completed : now) + *ttl * kube::kSecond;
      if (now >= at) {
        kube::DeleteOptions options;
        options.propagation = kube::PropagationPolicy::kBackground;
        options.precondition_uid = kube::UidOf(job);
        auto deleted = r.client_.Delete("dgljobs", ns, name, options);
        if (!deleted.ok() && !deleted.status().IsNotFound()) return deleted.status();
        r.written_jobs_.erase(ns + "/" + name);
      } else {
        Requeue(at - now);
      }
    }
    return Finish();
  }

  // Starts a restart: epoch + 1 in status first (so a failed delete cannot count twice).
  Status BeginRestart(const std::string& reason, const std::string& message) {
    ++restart_count;
    status["restartCount"] = restart_count;
    SetPhase(kPhaseRestarting, reason, message);
    return WriteStatus();
  }

  // The pods a restart replaces: Failed pods, the launcher of an older epoch, and the partitioner of
  // an older epoch when the partitions it made lived on the (deleted) launcher's emptyDir.
  Status DeleteReplacedPods() {
    for (const PodView& pod : AllPods()) {
      const PodView* p = &pod;
      if (p->terminating) continue;
      bool replace = p->Failed();
      if (IsLauncher(pod) && p->epoch < restart_count) replace = true;
      if (IsPartitioner(pod) && p->epoch < restart_count && !pvc) replace = true;
      if (!replace) continue;
      if (Status s = DeletePod(pod); !s.ok()) return s;
    }
    return Status::Ok();
  }

  // A new failure decides: restart (Restarting), fail (terminal), or nothing to do.
  // Returns true when the job became terminal.
  Result<bool> HandleFailures() {
    if (prev_phase == kPhaseRestarting) return false;  // remnants of the counted restart
    const std::int64_t backoff = GetBackoffLimit(job);
    auto exhausted = [&](const std::string& what) {
      return what + ": backoffLimit " + std::to_string(backoff) + " reached after " + std::to_string(restart_count) +
             " restarts";
    };

    if (partitioner && partitioner->Failed()) {
      const json& pod = partitioner->obj();
      const std::string pod_name = partitioner->Name();
      Event("Warning", "PodFailed", "Pod " + pod_name + " failed: " + FailureDescription(pod));
      if (OomKilled(pod)) {
        std::string limit = MemoryLimit(pod);
        Fail("PartitionerOOMKilled", "Partitioner " + pod_name + " was OOMKilled at its memory limit " +
                                         (limit.empty() ? std::string("(none set)") : limit) +
                                         "; a retry would fail the same way: raise the Partitioner memory limit");
        return true;
      }
      const std::string what = "Partitioner " + pod_name + " failed (" + FailureDescription(pod) + ")";
      if (!Retryable(job, kReplicaPartitioner, pod)) {
        Fail("PartitionerFailed", what + "; restartPolicy " + GetRestartPolicy(job, kReplicaPartitioner) +
                                      " does not retry it");
        return true;
      }
      if (restart_count >= backoff) {
        Fail("PartitionerFailed", exhausted(what));
        return true;
      }
      if (Status s = BeginRestart("PartitionerFailed", what + "; restarting partitioning"); !s.ok()) return s;
      return false;
    }

    // A failed or lost launcher or worker breaks the DGL run: restart the stage.
    std::string reason, what;
    bool retryable = true;
    if (launcher && launcher->Failed()) {
      reason = "LauncherFailed";
      what = "Launcher " + launcher->Name() + " failed (" + FailureDescription(launcher->obj()) + ")";
      retryable = Retryable(job, kReplicaLauncher, launcher->obj());
      Event("Warning", "PodFailed", "Pod " + launcher->Name() + " failed: " + FailureDescription(launcher->obj()));
    }
    for (auto& [i, w] : worker_pods) {
      if (!w.Failed()) continue;
      Event("Warning", "PodFailed", "Pod " + w.Name() + " failed: " + FailureDescription(w.obj()));
      if (reason.empty()) {
        reason = "WorkerFailed";
        what = "Worker " + w.Name() + " failed (" + FailureDescription(w.obj()) + ")";
      }
      retryable = retryable && Retryable(job, kReplicaWorker, w.obj());
    }
    if (reason.empty() && prev_phase == kPhaseTraining) {
      // Deleted or evicted under a running DGL job: the servers on it are gone.
      for (std::int64_t i = 0; i < workers && reason.empty(); ++i) {
        auto it = worker_pods.find(i);
        if (it == worker_pods.end() || it->second.terminating) {
          reason = "WorkerLost";
          what = "Worker " + WorkerName(name, i) + " disappeared during training";
          retryable = GetRestartPolicy(job, kReplicaWorker) != "Never";
        }
      }
      if (reason.empty() && (!launcher || launcher->terminating)) {
        reason = "LauncherLost";
        what = "Launcher " + LauncherName(name) + " disappeared during training";
        retryable = GetRestartPolicy(job, kReplicaLauncher) != "Never";
      }
    }
    if (reason.empty()) return false;
    if (!retryable) {
      Fail(reason, what + "; its restartPolicy does not retry it");
      return true;
    }
    if (restart_count >= backoff) {
      Fail(reason, exhausted(what));
      return true;
    }
    std::string how = pvc || !RunsPartitionerPod(mode) ? "; restarting training"
                                                        : "; partitions lived on the launcher's emptyDir: partitioning again";
    if (Status s = BeginRestart(reason, what + how); !s.ok()) return s;
    return false;
  }

  // The pods of the current stage: true when `pod` should exist.
  bool WorkersStage() const {
    if (mode == PartitionMode::kSkip) return false;
    if (mode == PartitionMode::kDistParMetis) return true;
    return partitioner && !partitioner->terminating && partitioner->Succeeded();
  }

  // Creates missing stage pods. Returns whether every stage pod now exists and is not terminating.
  Result<bool> EnsurePods(bool workers_stage) {
    bool complete = true;
    auto ensure = [&](const std::optional<PodView>& current, auto build) -> Status {
      if (current) {
        if (current->terminating) complete = false;  // the name frees when the old pod is gone
        return Status::Ok();
      }
      return CreatePod(build());
    };
    if (RunsPartitionerPod(mode)) {
      if (Status s = ensure(partitioner, [&] { return BuildPartitionerPod(job, r.options_.build, restart_count); });
          !s.ok()) {
        return s;
      }
    }
    if (Status s = ensure(launcher, [&] { return BuildLauncherPod(job, r.options_.build, restart_count); }); !s.ok()) {
      return s;
    }
    if (workers_stage) {
      for (std::int64_t i = 0; i < workers; ++i) {
        auto it = worker_pods.find(i);
        std::optional<PodView> current = it == worker_pods.end() ? std::nullopt : std::optional<PodView>(it->second);
        if (Status s = ensure(current, [&] { return BuildWorkerPod(job, i, r.options_.build, restart_count); });
            !s.ok()) {
          return s;
        }
      }
    }
    return complete;
  }

  // The phase the current pods show, with its condition reason and message.
  std::tuple<std::string, std::string, std::string> ObservedPhase() const {
    auto all_workers_running = [&] {
      if (static_cast<std::int64_t>(worker_pods.size()) < workers) return false;
      for (const auto& [i, w] : worker_pods) {
        if (!w.Running()) return false;
      }
      return true;
    };
    const bool launcher_running = launcher && launcher->Running();
    switch (mode) {
      case PartitionMode::kSkip:
        if (launcher_running) return {kPhaseTraining, "LauncherRunning", "The launcher trains on one machine"};
        return {kPhasePending, "PodsPending", "Waiting for the launcher to start"};
      case PartitionMode::kDistParMetis: {
        if (launcher_running) return {kPhaseTraining, "TrainingRunning", "The launcher is training on the workers"};
        const std::string dist = launcher && !launcher->terminating ? InitContainerState(launcher->obj(), kDistPartitioner) : "";
        if (dist == "running") {
          return {kPhasePartitioning, "DistPartitionerRunning",
                  "ParMETIS is partitioning the graph with one rank per worker"};
        }
        if (dist == "succeeded") return {kPhasePartitioned, "PartitionsReady", "Every worker holds its partition"};
        return {kPhasePending, "PodsPending", "Waiting for the workers and the launcher to start"};
      }
      case PartitionMode::kDglApi:
      case PartitionMode::kParMetis:
        break;
    }
    if (partitioner && !partitioner->terminating && partitioner->Succeeded()) {
      if (launcher_running && all_workers_running()) {
        return {kPhaseTraining, "TrainingRunning", "The launcher dispatched the partitions and is training"};
      }
      return {kPhasePartitioned, "PartitionerSucceeded", "Partitions are ready; waiting for the workers"};
    }
    if (partitioner && partitioner->Running()) {
      return {kPhasePartitioning, "PartitionerRunning",
              std::string(mode == PartitionMode::kParMetis ? "ParMETIS (pm_dglpart)" : "The DGL API") +
                  " is partitioning the graph in " + partitioner->Name()};
    }
    return {kPhasePending, "PodsPending", "Waiting for the partitioner to start"};
  }

  // Unschedulable past schedulingPolicy.scheduleTimeoutSeconds: returns true when it failed the job.
  bool CheckUnschedulable() {
    auto timeout = GetSchedulingInt(job, "scheduleTimeoutSeconds");
    if (!timeout) return false;
    for (const PodView& pod : AllPods()) {
      const PodView* p = &pod;
      if (p->terminating || p->phase != "Pending" || !Unschedulable(p->obj())) continue;
      auto since = kube::ParseTime(Str(p->obj(), {"metadata", "creationTimestamp"}));
      if (!since) continue;
      const Micros at = *since + *timeout * kube::kSecond;
      if (now >= at) {
        Fail("Unschedulable", "Pod " + p->Name() + " could not be scheduled within scheduleTimeoutSeconds " +
                                  std::to_string(*timeout));
        return true;
      }
      Requeue(at - now);
    }
    return false;
  }

  Result<ReconcileResult> Run() {
    LoadPods();
    status["observedGeneration"] = Int(job, {"metadata", "generation"}, 1);
    if (Find(status, {"startTime"}) == nullptr) status["startTime"] = kube::FormatTime(now);
    if (Find(status, {"restartCount"}) == nullptr) status["restartCount"] = 0;
    bool created_condition = false;
    if (const json* conditions = Find(status, {"conditions"}); conditions != nullptr && conditions->is_array()) {
      for (const json& c : *conditions) created_condition |= Str(c, {"type"}) == kConditionCreated;
    }
    if (!created_condition) {
      SetCondition(kConditionCreated, true, "DGLJobCreated", "DGLJob " + ns + "/" + name + " is created");
      Event("Normal", "DGLJobCreated", "DGLJob " + ns + "/" + name + " is created in " + ToString(mode) + " mode");
    }

    if (IsTerminalPhase(prev_phase)) {
      ComputeReplicaStatuses();
      return Terminal();
    }
    if (Status s = ForceDeleteStuckPods(); !s.ok()) return s;

    // Suspend: pods go (a Succeeded partitioner whose partitions sit on a PVC stays), phase Suspended.
    if (GetSuspend(job)) {
      for (const PodView& pod : AllPods()) {
      const PodView* p = &pod;
        if (p->terminating) continue;
        if (IsPartitioner(pod) && p->Succeeded() && pvc) continue;
        if (Status s = DeletePod(pod); !s.ok()) return s;
      }
      SetPhase(kPhaseSuspended, "JobSuspended", "runPolicy.suspend is true: pods deleted");
      ComputeReplicaStatuses();
      if (Status s = WriteStatus(); !s.ok()) return s;
      return Finish();
    }
    if (prev_phase == kPhaseSuspended) {
      // Resumed: the deadline counts from now, as for a Kubernetes Job.
      status["startTime"] = kube::FormatTime(now);
      SetCondition(kPhaseSuspended, false, "JobResumed", "runPolicy.suspend is false: the current stage restarts");
    }

    // Active deadline.
    if (auto deadline_s = GetActiveDeadlineSeconds(job)) {
      auto start = kube::ParseTime(Str(status, {"startTime"}));
      const Micros at = (start ? *start : now) + *deadline_s * kube::kSecond;
      if (now >= at) {
        Fail("DeadlineExceeded", "The job ran longer than activeDeadlineSeconds " + std::to_string(*deadline_s));
        ComputeReplicaStatuses();
        return Terminal();
      }
      Requeue(at - now);
    }

    if (CheckUnschedulable()) {
      ComputeReplicaStatuses();
      return Terminal();
    }

    // Success: the launcher exited 0.
    if (launcher && launcher->Succeeded()) {
      SetPhase(kPhaseSucceeded, "LauncherSucceeded", "The launcher " + launcher->Name() + " completed training");
      ComputeReplicaStatuses();
      return Terminal();
    }

    auto failed = HandleFailures();
    if (!failed.ok()) return failed.status();
    if (*failed) {
      ComputeReplicaStatuses();
      return Terminal();
    }
    const bool restarting = Phase() == kPhaseRestarting;
    if (Status s = DeleteReplacedPods(); !s.ok()) return s;
    if (restarting && prev_phase != kPhaseRestarting) {
      // The restart's own pass only clears the way; the next one recreates, so that Restarting is
      // observable (status, Event) even when the replaced pods vanish at once.
      ComputeReplicaStatuses();
      if (Status s = WriteStatus(); !s.ok()) return s;
      Requeue(kube::kMillisecond);
      return Finish();
    }

    const bool workers_stage = WorkersStage();
    if (Status s = EnsureSupportObjects(workers_stage); !s.ok()) return s;
    auto complete = EnsurePods(workers_stage);
    if (!complete.ok()) return complete.status();

    if (restarting && !*complete) {
      // Waiting for replaced pods to go: the phase stays Restarting.
    } else {
      auto [phase, reason, message] = ObservedPhase();
      // Phases only move forward within one run; going back takes a restart or a resume (the
      // original bounced Partitioned -> Starting while workers came up).
      const int from = PhaseProgress(prev_phase), to = PhaseProgress(phase);
      const bool regression = !restarting && from >= 0 && to >= 0 && from > to;
      if (!regression) SetPhase(phase, reason, message);
    }
    ComputeReplicaStatuses();
    if (Status s = WriteStatus(); !s.ok()) return s;
    return Finish();
  }
};

// ---- Reconciler -------------------------------------------------------------------------------------

Reconciler::Reconciler(kube::Client& client, const kube::Clock& clock, ObjectReader& reader,
                       ReconcilerOptions options)
    : client_(client), clock_(clock), reader_(reader), options_(std::move(options)) {}

ObjectPtr Reconciler::ReadJob(const std::string& ns, const std::string& name, const std::string& key) {
  ObjectPtr cached = reader_.Get("dgljobs", ns, name);
  auto it = written_jobs_.find(key);
  if (it == written_jobs_.end()) return cached;
  if (cached == nullptr) {
    written_jobs_.erase(it);
    return nullptr;
  }
  // resourceVersions come from one counter (etcd's revision): the larger one is the newer object.
  const std::int64_t cached_rv = ParseIntOr(kube::ResourceVersionOf(*cached), -1);
  const std::int64_t written_rv = ParseIntOr(kube::ResourceVersionOf(*it->second), -1);
  if (kube::UidOf(*cached) != kube::UidOf(*it->second) || cached_rv >= written_rv) {
    written_jobs_.erase(it);
    return cached;
  }
  return it->second;
}

Result<ReconcileResult> Reconciler::Reconcile(const std::string& key) {
  auto slash = key.find('/');
  if (slash == std::string::npos) return Status::BadRequest("job key must be namespace/name: " + key);
  const std::string ns = key.substr(0, slash);
  const std::string name = key.substr(slash + 1);
  ObjectPtr job = ReadJob(ns, name, key);
  if (job == nullptr || Terminating(*job)) {
    // Gone or going: garbage collection removes what it owned.
    written_jobs_.erase(key);
    return ReconcileResult{};
  }
  Pass pass(*this, job);
  return pass.Run();
}

}  // namespace dgl
