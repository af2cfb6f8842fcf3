// The run's witness and the stage observer. See recorder.h.
#include "sim/harness/run/recorder.h"

#include "fakeapi/client/json_path.h"
#include "fakeapi/client/quantity.h"
#include "operator/api/vocabulary.h"
#include "sim/cluster/cluster.h"
#include "sim/harness/run/faults.h"
#include "sim/harness/run/invariants.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace harness {

using json = kube::Json;

namespace {

using kube::JsonString;

// The pod's record `p`, with its identity filled in from the object when first seen.
PodRecord& Identify(PodRecord& p, const json& pod) {
  if (p.name.empty()) {
    p.ns = kube::NamespaceOf(pod);
    p.name = kube::NameOf(pod);
    std::string job = JsonString(pod, {"metadata", "labels", dgl::kLabelJobName});
    if (!job.empty()) p.job = JobKey{p.ns, job};
    p.role = JsonString(pod, {"metadata", "labels", dgl::kLabelReplicaType});
    p.gpus = GpusOf(pod);
  }
  return p;
}

PodRecord& NotePod(RunRecord& record, const json& pod) { return Identify(record.Pod(kube::UidOf(pod)), pod); }

// The terminated or running state of a container status's `which` ("state", "lastState").
const json* StateOf(const json& container, const char* which, bool* terminated) {
  if (const json* t = kube::JsonAt(container, {which, "terminated"}); t && t->is_object()) {
    *terminated = true;
    return t;
  }
  *terminated = false;
  const json* r = kube::JsonAt(container, {which, "running"});
  return r && r->is_object() ? r : nullptr;
}

// Adds the container runs the pod's status shows (current state and last termination) to `p`.
void NoteContainerRuns(PodRecord& p, const json& pod, Micros epoch) {
  auto time = [epoch](const json& state, const char* field) -> std::optional<Micros> {
    auto t = kube::ParseTime(JsonString(state, {field}));
    if (!t) return std::nullopt;
    return *t - epoch;
  };
  for (const char* list_name : {"initContainerStatuses", "containerStatuses"}) {
    const json* list = kube::JsonAt(pod, {"status", list_name});
    if (!list || !list->is_array()) continue;
    for (const auto& c : *list) {
      for (const char* which : {"lastState", "state"}) {
        bool terminated = false;
        const json* state = StateOf(c, which, &terminated);
        if (!state) continue;
        auto started = time(*state, "startedAt");
        if (!started) continue;
        std::string name = JsonString(c, {"name"});
        auto run = std::find_if(p.containers.begin(), p.containers.end(),
                                [&](const ContainerRun& r) { return r.name == name && r.started == *started; });
        if (run == p.containers.end()) {
          p.containers.push_back({.name = name, .init = list_name[0] == 'i', .started = *started});
          run = std::prev(p.containers.end());
        }
        if (terminated) {
          run->finished = time(*state, "finishedAt");
          run->exit_code = kube::JsonInt(*state, {"exitCode"});
          run->reason = JsonString(*state, {"reason"});
          run->message = JsonString(*state, {"message"});
        }
      }
    }
  }
}

// The cluster's GPUs in use over time, from the pods' [started, released) intervals.
std::vector<GpuStep> GpuTimeline(const std::vector<PodRecord>& pods) {
  std::map<Micros, std::int64_t> delta;
  for (const auto& p : pods) {
    if (p.gpus <= 0 || !p.started || !p.released || *p.released <= *p.started) continue;
    delta[*p.started] += p.gpus;
    delta[*p.released] -= p.gpus;
  }
  std::vector<GpuStep> out{{0, 0}};
  std::int64_t in_use = 0;
  for (const auto& [at, d] : delta) {
    if (d == 0) continue;
    in_use += d;
    if (out.back().at == at) out.back().in_use = in_use;
    else out.push_back({at, in_use});
  }
  return out;
}

std::map<std::string, std::string> ConfigMapData(const json& cm) {
  std::map<std::string, std::string> data;
  if (const json* d = kube::JsonAt(cm, {"data"}); d && d->is_object())
    for (const auto& [k, v] : d->items())
      if (v.is_string()) data[k] = v.get<std::string>();
  return data;
}

}  // namespace

std::int64_t GpusOf(const json& pod) {
  std::int64_t total = 0;
  const json* containers = kube::JsonAt(pod, {"spec", "containers"});
  if (!containers || !containers->is_array()) return 0;
  for (const auto& c : *containers) {
    std::string q = JsonString(c, {"resources", "limits", sim::kResourceGpu});
    if (q.empty()) q = JsonString(c, {"resources", "requests", sim::kResourceGpu});
    if (q.empty()) continue;
    if (auto v = kube::ParseQuantity(q)) total += *v;
  }
  return total;
}

// ---- the recorder ------------------------------------------------------------------------------

Recorder::Recorder(sim::Simulation& sim, RunRecord& record, FaultInjector& faults)
    : Actor(sim, "harness-recorder"), record_(record), faults_(faults) {}

void Recorder::Start() {
  AddInformer("dgljobs", {},
              {.on_add = [this](const kube::ObjectPtr& job) { OnJob(*job); },
               .on_update = [this](const kube::ObjectPtr&, const kube::ObjectPtr& job) { OnJob(*job); },
               .on_delete = [this](const kube::ObjectPtr& job) { OnJobDeleted(*job); }});
  AddInformer("pods", {},
              {.on_add = [this](const kube::ObjectPtr& pod) { OnPod(*pod); },
               .on_update = [this](const kube::ObjectPtr&, const kube::ObjectPtr& pod) { OnPod(*pod); },
               .on_delete = [this](const kube::ObjectPtr& pod) { OnPodDeleted(*pod); }});
  AddInformer("configmaps", {},
              {.on_add = [this](const kube::ObjectPtr& cm) { OnConfigMap(*cm); },
               .on_update = [this](const kube::ObjectPtr&, const kube::ObjectPtr& cm) { OnConfigMap(*cm); }});
}

JobRecord& Recorder::Job(const JobKey& key) {
  auto [it, inserted] = record_.jobs.try_emplace(key);
  if (inserted) {
    it->second.key = key;
    record_.job_order.push_back(key);
  }
  return it->second;
}

void Recorder::Finish() {
  // In uid order, as the GPU-seconds have always been summed (floating point: the order shows).
  std::vector<std::pair<const std::string*, PodInfo*>> open;
  open.reserve(pods_.size());
  for (auto& [uid, pod] : pods_) open.emplace_back(&uid, &pod);
  std::sort(open.begin(), open.end(), [](const auto& a, const auto& b) { return *a.first < *b.first; });
  for (auto& [uid, pod] : open) Stop(*pod);
  record_.gpus_in_use = GpuTimeline(record_.pods);
}

void Recorder::SnapshotConfigMaps() {
  if (auto cms = sim().store().List("configmaps"); cms.ok())
    for (const auto& cm : cms->items) OnConfigMap(*cm);
}

void Recorder::OnConfigMap(const json& cm) { record_.config_maps[kube::KeyOf(cm)] = ConfigMapData(cm); }

void Recorder::OnJob(const json& job) {
  JobKey key{kube::NamespaceOf(job), kube::NameOf(job)};
  JobRecord& r = Job(key);
  r.deleted = false;
  if (r.partition_mode.empty()) r.partition_mode = JsonString(job, {"spec", "partitionMode"});
  r.restarts = std::max(r.restarts, kube::JsonInt(job, {"status", "restartCount"}));
  if (const json* c = kube::JsonAt(job, {"status", "conditions"}); c && c->is_array() && *c != r.conditions) {
    r.conditions = *c;
    r.last_status_change = Now();
  }
  std::string phase = JsonString(job, {"status", "phase"});
  if (phase.empty() || phase == r.phase) return;
  r.phases.push_back({phase, Now()});
  r.phase = phase;
  r.last_status_change = Now();
  if (dgl::IsTerminalPhase(phase) && !r.completed) r.completed = Now();
  faults_.OnJobPhase(key, phase);
}

void Recorder::OnJobDeleted(const json& job) {
  JobRecord& r = Job(JobKey{kube::NamespaceOf(job), kube::NameOf(job)});
  r.deleted = true;
  r.deleted_at = Now();
}

void Recorder::OnPod(const json& pod) {
  const std::string& uid = kube::UidOf(pod);
  auto [it, inserted] = pods_.try_emplace(uid);
  PodInfo& info = it->second;
  if (inserted) {
    info.record = record_.PodIndex(uid);
    info.gpus = GpusOf(pod);
    std::string job = JsonString(pod, {"metadata", "labels", dgl::kLabelJobName});
    if (!job.empty()) {
      info.job = JobKey{kube::NamespaceOf(pod), job};
      ++Job(*info.job).pods_created;
    }
  }
  RecordPod(record_.pods[info.record], pod);
  if (info.ended) return;
  std::string phase = JsonString(pod, {"status", "phase"});
  // Queueing: from the job's submission until its first pod is bound.
  if (!kube::NodeNameOf(pod).empty() && info.job)
    if (JobRecord& j = Job(*info.job); j.submitted && !j.stage_intervals.count("queueing"))
      j.stage_intervals["queueing"].emplace_back(*j.submitted, Now());
  if (phase == "Running" && !info.running_since) info.running_since = StatusTime(pod, "running", false).value_or(Now());
  if (kube::IsPodFinished(phase)) {
    // A pod seen only once it had finished still ran: from its containers' start to their end.
    if (!info.running_since) info.running_since = StatusTime(pod, "terminated", false);
    Stop(info, StatusTime(pod, "terminated", true));
  }
}

// A deleted pod sends no more events: its PodInfo goes (its record stays, for the reports).
void Recorder::OnPodDeleted(const json& pod) {
  auto it = pods_.find(kube::UidOf(pod));
  if (it == pods_.end()) {
    NotePod(record_, pod).deleted = Now();
    return;
  }
  Stop(it->second);
  Identify(record_.pods[it->second.record], pod).deleted = Now();
  pods_.erase(it);
}

void Recorder::RecordPod(PodRecord& p, const json& pod) {
  Identify(p, pod);
  if (!p.created) p.created = Now();
  const std::string node = kube::NodeNameOf(pod);
  if (!node.empty() && p.node.empty()) {
    p.node = node;
    p.bound = Now();
  }
  if (std::string phase = JsonString(pod, {"status", "phase"}); !phase.empty()) p.phase = phase;
  NoteContainerRuns(p, pod, sim().engine().epoch());
}

std::optional<Micros> Recorder::StatusTime(const json& pod, const char* state, bool finished) {
  std::optional<Micros> out;
  const json* list = kube::JsonAt(pod, {"status", "containerStatuses"});
  if (!list || !list->is_array()) return out;
  for (const auto& c : *list) {
    auto t = kube::ParseTime(JsonString(c, {"state", state, finished ? "finishedAt" : "startedAt"}));
    if (!t) continue;
    Micros sim_time = *t - sim().engine().epoch();
    if (!out || (finished ? sim_time > *out : sim_time < *out)) out = sim_time;
  }
  if (out && *out > Now()) out = Now();
  return out;
}

void Recorder::Stop(PodInfo& info, std::optional<Micros> end) {
  if (info.ended) return;
  info.ended = true;
  PodRecord& p = record_.pods[info.record];
  p.started = info.running_since;
  p.released = info.running_since ? std::max(end.value_or(Now()), *info.running_since) : end.value_or(Now());
  if (end) p.finished = end;
  if (!info.running_since) return;
  Micros until = std::max(end.value_or(Now()), *info.running_since);
  double seconds = static_cast<double>(until - *info.running_since) / static_cast<double>(kube::kSecond);
  double gpu_seconds = seconds * static_cast<double>(info.gpus);
  record_.gpu_seconds += gpu_seconds;
  if (info.job) Job(*info.job).gpu_seconds += gpu_seconds;
}

// ---- the stage observer -------------------------------------------------------------------------

void StageObserver::OnStage(const json& pod, std::string_view stage, Micros begin, Micros end) {
  checker_.OnStage(pod, stage, begin, end);
  if (JobRecord* job = JobOf(pod); job && end >= begin) job->stage_intervals[std::string(stage)].emplace_back(begin, end);
  if (end >= begin) NotePod(record_, pod).stages.push_back({std::string(stage), begin, end});
}

void StageObserver::OnMemory(const json& pod, std::string_view, std::int64_t bytes) {
  JobRecord* job = JobOf(pod);
  if (!job) return;
  std::string role = JsonString(pod, {"metadata", "labels", dgl::kLabelReplicaType});
  if (role.empty()) role = "pod";
  std::int64_t& peak = job->peak_memory[role];
  peak = std::max(peak, bytes);
}

JobRecord* StageObserver::JobOf(const json& pod) {
  std::string name = JsonString(pod, {"metadata", "labels", dgl::kLabelJobName});
  if (name.empty()) return nullptr;
  auto it = record_.jobs.find(JobKey{kube::NamespaceOf(pod), name});
  return it == record_.jobs.end() ? nullptr : &it->second;
}

}  // namespace harness
