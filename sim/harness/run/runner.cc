#include "sim/harness/run/runner.h"

#include "fakeapi/client/json_path.h"
#include "fakeapi/client/quantity.h"
#include "operator/admission/dgljob_admission.h"
#include "operator/api/dgljob_api.h"
#include "operator/api/vocabulary.h"
#include "sim/cluster/cluster.h"
#include "sim/cluster/kubelet.h"
#include "sim/cluster/node_lifecycle.h"
#include "sim/cluster/operator_actor.h"
#include "sim/cluster/scheduler.h"
#include "sim/cluster/simulation.h"
#include "sim/dgl/programs.h"
#include "sim/harness/config/units.h"
#include "sim/harness/run/faults.h"
#include "sim/harness/run/invariants.h"

#include <algorithm>
#include <memory>
#include <set>
#include <utility>

namespace harness {

using nlohmann::json;

namespace {

using dgl::kLabelJobName;
using dgl::kLabelReplicaType;

// A pod in a phase it never leaves.
bool PodFinished(const std::string& phase) { return phase == "Succeeded" || phase == "Failed"; }

std::string Str(const json& obj, std::initializer_list<const char*> path) {
  return kube::JsonString(obj, path);
}

std::int64_t Int(const json& obj, std::initializer_list<const char*> path) {
  const json* at = &obj;
  for (const char* key : path) {
    if (!at->is_object()) return 0;
    auto it = at->find(key);
    if (it == at->end()) return 0;
    at = &*it;
  }
  return at->is_number_integer() ? at->get<std::int64_t>() : 0;
}

// Sum of the containers' nvidia.com/gpu limits (a request stands in for a missing limit).
std::int64_t GpusOf(const json& pod) {
  std::int64_t total = 0;
  auto spec = pod.find("spec");
  if (spec == pod.end() || !spec->is_object()) return 0;
  auto containers = spec->find("containers");
  if (containers == spec->end() || !containers->is_array()) return 0;
  for (const auto& c : *containers) {
    std::string q = Str(c, {"resources", "limits", sim::kResourceGpu});
    if (q.empty()) q = Str(c, {"resources", "requests", sim::kResourceGpu});
    if (q.empty()) continue;
    if (auto v = kube::ParseQuantity(q)) total += *v;
  }
  return total;
}

// A node's allocatable as scheduler Resources.
sim::Resources AllocatableOf(const json& node) {
  sim::Resources r;
  const json* alloc = nullptr;
  if (auto s = node.find("status"); s != node.end() && s->is_object())
    if (auto a = s->find("allocatable"); a != s->end() && a->is_object()) alloc = &*a;
  if (!alloc) return r;
  for (const auto& [name, value] : alloc->items()) {
    if (!value.is_string()) continue;
    const std::string& text = value.get_ref<const std::string&>();
    if (name == "cpu") r.milli_cpu = kube::ParseQuantityMilli(text).value_or(0);
    else if (name == "memory") r.memory = kube::ParseQuantity(text).value_or(0);
    else if (name == "ephemeral-storage") r.ephemeral_storage = kube::ParseQuantity(text).value_or(0);
    else if (name == sim::kResourceGpu) r.gpu = kube::ParseQuantity(text).value_or(0);
    else if (name == "pods") r.pods = kube::ParseQuantity(text).value_or(0);
  }
  return r;
}

// The pod's record, with its identity filled in from the object when first seen.
PodRecord& NotePod(RunRecord& record, const json& pod) {
  PodRecord& p = record.Pod(Str(pod, {"metadata", "uid"}));
  if (p.name.empty()) {
    p.ns = kube::NamespaceOf(pod);
    p.name = kube::NameOf(pod);
    std::string job = Str(pod, {"metadata", "labels", kLabelJobName});
    if (!job.empty()) p.job = JobKey{p.ns, job};
    p.role = Str(pod, {"metadata", "labels", kLabelReplicaType});
    p.gpus = GpusOf(pod);
  }
  return p;
}

// Adds the container runs the pod's status shows (current state and last termination) to `p`.
void NoteContainerRuns(PodRecord& p, const json& pod, Micros epoch) {
  auto status = pod.find("status");
  if (status == pod.end() || !status->is_object()) return;
  auto time = [epoch](const json& state, const char* field) -> std::optional<Micros> {
    auto t = kube::ParseTime(Str(state, {field}));
    if (!t) return std::nullopt;
    return *t - epoch;
  };
  for (const char* list_name : {"initContainerStatuses", "containerStatuses"}) {
    auto list = status->find(list_name);
    if (list == status->end() || !list->is_array()) continue;
    for (const auto& c : *list) {
      for (const char* which : {"lastState", "state"}) {
        auto st = c.find(which);
        if (st == c.end() || !st->is_object()) continue;
        const json* state = nullptr;
        bool terminated = false;
        if (auto t = st->find("terminated"); t != st->end() && t->is_object()) {
          state = &*t;
          terminated = true;
        } else if (auto r = st->find("running"); r != st->end() && r->is_object()) {
          state = &*r;
        }
        if (!state) continue;
        auto started = time(*state, "startedAt");
        if (!started) continue;
        std::string name = Str(c, {"name"});
        auto run = std::find_if(p.containers.begin(), p.containers.end(), [&](const ContainerRun& r) {
          return r.name == name && r.started == *started;
        });
        if (run == p.containers.end()) {
          p.containers.push_back({.name = name, .init = list_name[0] == 'i', .started = *started});
          run = std::prev(p.containers.end());
        }
        if (terminated) {
          run->finished = time(*state, "finishedAt");
          run->exit_code = Int(*state, {"exitCode"});
          run->reason = Str(*state, {"reason"});
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

// Watches dgljobs, pods and configmaps: the job timelines, pod accounting, ConfigMap snapshots and
// the invariants checked while the run goes.
class Recorder : public sim::Actor {
 public:
  Recorder(sim::Simulation& sim, RunRecord& record, FaultInjector& faults)
      : Actor(sim, "harness-recorder"), record_(record), faults_(faults) {}

  void Start() override {
    AddInformer("dgljobs", {},
                {.on_add = [this](const kube::ObjectPtr& job) { OnJob(*job); },
                 .on_update = [this](const kube::ObjectPtr& old, const kube::ObjectPtr& job) {
                   CheckVersion(*old, *job);
                   OnJob(*job);
                 },
                 .on_delete = [this](const kube::ObjectPtr& job) { OnJobDeleted(*job); }});
    AddInformer("pods", {},
                {.on_add = [this](const kube::ObjectPtr& pod) { OnPod(*pod); },
                 .on_update = [this](const kube::ObjectPtr& old, const kube::ObjectPtr& pod) {
                   CheckVersion(*old, *pod);
                   OnPod(*pod);
                 },
                 .on_delete = [this](const kube::ObjectPtr& pod) { OnPodDeleted(*pod); }});
    auto on_cm = [this](const kube::ObjectPtr& cm) {
      std::map<std::string, std::string> data;
      if (auto d = cm->find("data"); d != cm->end() && d->is_object())
        for (const auto& [k, v] : d->items())
          if (v.is_string()) data[k] = v.get<std::string>();
      record_.config_maps[kube::KeyOf(*cm)] = std::move(data);
    };
    AddInformer("configmaps", {},
                {.on_add = on_cm, .on_update = [on_cm](const kube::ObjectPtr&, const kube::ObjectPtr& cm) { on_cm(cm); }});
  }

  JobRecord& Job(const JobKey& key) {
    auto [it, inserted] = record_.jobs.try_emplace(key);
    if (inserted) {
      it->second.key = key;
      record_.job_order.push_back(key);
    }
    return it->second;
  }

  // Closes every open running interval at the end of the run.
  void Finish() {
    for (auto& [uid, pod] : pods_) Stop(pod);
    record_.gpus_in_use = GpuTimeline(record_.pods);
  }

  void Violation(const std::string& name, const std::string& detail) {
    record_.invariant_violations.push_back({name, Now(), detail});
    Log("invariant " + name + " violated: " + detail);
  }

 private:
  struct PodInfo {
    std::string uid;
    std::optional<JobKey> job;
    std::int64_t gpus = 0;
    std::optional<Micros> running_since;
    std::string node;     // counted on this node for the over-commit check
    bool ended = false;
  };

  // An object's resourceVersion only grows (one global counter, etcd's revision).
  void CheckVersion(const json& old_object, const json& object) {
    ++record_.invariant_checks["resourceVersionsIncrease"];
    auto parse = [](const std::string& rv) -> std::optional<std::int64_t> {
      if (rv.empty() || rv.size() > 18 || rv.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
      return std::stoll(rv);
    };
    auto before = parse(kube::ResourceVersionOf(old_object)), after = parse(kube::ResourceVersionOf(object));
    if (before && after && *after <= *before)
      Violation("resourceVersionsIncrease", kube::KeyOf(object) + " went from resourceVersion " +
                                                std::to_string(*before) + " to " + std::to_string(*after));
  }

  void OnJob(const json& job) {
    JobKey key{kube::NamespaceOf(job), kube::NameOf(job)};
    JobRecord& r = Job(key);
    r.deleted = false;
    if (r.partition_mode.empty()) r.partition_mode = Str(job, {"spec", "partitionMode"});
    r.restarts = std::max(r.restarts, Int(job, {"status", "restartCount"}));
    if (auto s = job.find("status"); s != job.end() && s->is_object())
      if (auto c = s->find("conditions"); c != s->end() && c->is_array() && *c != r.conditions) {
        r.conditions = *c;
        r.last_status_change = Now();
      }
    std::string phase = Str(job, {"status", "phase"});
    if (phase.empty() || phase == r.phase) return;
    ++record_.invariant_checks["phasesMoveForward"];
    int before = dgl::PhaseProgress(r.phase), after = dgl::PhaseProgress(phase);
    if (!r.phase.empty() && before >= 0 && after >= 0 && after < before)
      Violation("phasesMoveForward", "job " + key.ToString() + " went from " + r.phase + " to " + phase);
    if (r.phase == dgl::kPhaseSucceeded)
      Violation("phasesMoveForward", "job " + key.ToString() + " left Succeeded for " + phase);
    r.phases.push_back({phase, Now()});
    r.phase = phase;
    r.last_status_change = Now();
    if (dgl::IsTerminalPhase(phase) && !r.completed) r.completed = Now();
    if (phase == dgl::kPhaseSucceeded) {
      ++record_.invariant_checks["succeededOnlyIfLauncherSucceeded"];
      if (!launcher_succeeded_.count(key))
        Violation("succeededOnlyIfLauncherSucceeded",
                  "job " + key.ToString() + " Succeeded but no launcher of it was seen exiting 0");
    }
    faults_.OnJobPhase(key, phase);
  }

  void OnJobDeleted(const json& job) {
    JobKey key{kube::NamespaceOf(job), kube::NameOf(job)};
    Job(key).deleted = true;
    Job(key).deleted_at = Now();
  }

  void OnPod(const json& pod) {
    std::string uid = Str(pod, {"metadata", "uid"});
    auto [it, inserted] = pods_.try_emplace(uid);
    PodInfo& info = it->second;
    if (inserted) {
      info.uid = uid;
      info.gpus = GpusOf(pod);
      std::string job = Str(pod, {"metadata", "labels", kLabelJobName});
      if (!job.empty()) {
        info.job = JobKey{kube::NamespaceOf(pod), job};
        ++Job(*info.job).pods_created;
      }
    }
    RecordPod(pod);
    if (info.ended) return;
    std::string phase = Str(pod, {"status", "phase"});
    if (info.job && phase == "Succeeded" && Str(pod, {"metadata", "labels", kLabelReplicaType}) == dgl::kRoleLauncher)
      launcher_succeeded_.insert(*info.job);
    std::string node = Str(pod, {"spec", "nodeName"});
    if (!node.empty() && info.node.empty() && !PodFinished(phase)) Bind(uid, info, pod, node);
    // Queueing: from the job's submission until its first pod is bound.
    if (!node.empty() && info.job)
      if (JobRecord& j = Job(*info.job); j.submitted && !j.stage_intervals.count("queueing"))
        j.stage_intervals["queueing"].emplace_back(*j.submitted, Now());
    if (phase == "Running" && !info.running_since) info.running_since = StatusTime(pod, "running", false).value_or(Now());
    if (PodFinished(phase)) {
      // A pod seen only once it had finished still ran: from its containers' start to their end.
      if (!info.running_since) info.running_since = StatusTime(pod, "terminated", false);
      Stop(info, StatusTime(pod, "terminated", true));
    }
  }

  void OnPodDeleted(const json& pod) {
    auto it = pods_.find(Str(pod, {"metadata", "uid"}));
    if (it != pods_.end()) Stop(it->second);
    NotePod(record_, pod).deleted = Now();
  }

  // The pod's record for the reports: when it was first seen and bound, its phase, its containers.
  void RecordPod(const json& pod) {
    PodRecord& p = NotePod(record_, pod);
    if (!p.created) p.created = Now();
    std::string node = Str(pod, {"spec", "nodeName"});
    if (!node.empty() && p.node.empty()) {
      p.node = node;
      p.bound = Now();
    }
    if (std::string phase = Str(pod, {"status", "phase"}); !phase.empty()) p.phase = phase;
    NoteContainerRuns(p, pod, sim().engine().epoch());
  }

  void Bind(const std::string& uid, PodInfo& info, const json& pod, const std::string& node) {
    info.node = node;
    NodeUse& use = nodes_[node];
    sim::PodRequests req = sim::ComputePodRequests(pod);
    use.pods[uid] = req.requests;
    use.used.Add(req.requests);
    ++record_.invariant_checks["nodeNotOvercommitted"];
    auto n = sim().store().Get("nodes", "", node);
    if (!n.ok()) return;
    sim::Resources alloc = AllocatableOf(**n);
    std::vector<std::string> over;
    if (use.used.milli_cpu > alloc.milli_cpu) over.push_back("cpu");
    if (use.used.memory > alloc.memory) over.push_back("memory");
    if (alloc.ephemeral_storage > 0 && use.used.ephemeral_storage > alloc.ephemeral_storage)
      over.push_back("ephemeral-storage");
    if (use.used.gpu > alloc.gpu) over.push_back(sim::kResourceGpu);
    if (alloc.pods > 0 && use.used.pods > alloc.pods) over.push_back("pods");
    for (const auto& resource : over)
      Violation("nodeNotOvercommitted", "node " + node + " over-committed on " + resource + " when " +
                                            kube::KeyOf(pod) + " was bound");
  }

  // The earliest startedAt (or, with `finished`, the latest finishedAt) of the app containers in
  // `state` ("running", "terminated"), in simulated time; nullopt when none is written.
  std::optional<Micros> StatusTime(const json& pod, const char* state, bool finished) {
    std::optional<Micros> out;
    auto status = pod.find("status");
    if (status == pod.end() || !status->is_object()) return out;
    auto list = status->find("containerStatuses");
    if (list == status->end() || !list->is_array()) return out;
    for (const auto& c : *list) {
      auto t = kube::ParseTime(Str(c, {"state", state, finished ? "finishedAt" : "startedAt"}));
      if (!t) continue;
      Micros sim_time = *t - sim().engine().epoch();
      if (!out || (finished ? sim_time > *out : sim_time < *out)) out = sim_time;
    }
    if (out && *out > Now()) out = Now();
    return out;
  }

  // The pod stopped holding its GPUs at `end` (default now).
  void Stop(PodInfo& info, std::optional<Micros> end = std::nullopt) {
    if (info.ended) return;
    info.ended = true;
    PodRecord& p = record_.Pod(info.uid);
    p.started = info.running_since;
    p.released = info.running_since ? std::max(end.value_or(Now()), *info.running_since) : end.value_or(Now());
    if (end) p.finished = end;
    if (info.running_since) {
      Micros until = std::max(end.value_or(Now()), *info.running_since);
      double seconds = static_cast<double>(until - *info.running_since) / static_cast<double>(kube::kSecond);
      double gpu_seconds = seconds * static_cast<double>(info.gpus);
      record_.gpu_seconds += gpu_seconds;
      if (info.job) Job(*info.job).gpu_seconds += gpu_seconds;
    }
    if (!info.node.empty()) {
      NodeUse& use = nodes_[info.node];
      if (auto p = use.pods.find(info.uid); p != use.pods.end()) {
        use.used.Add(p->second, -1);
        use.pods.erase(p);
      }
    }
  }

  struct NodeUse {
    sim::Resources used;
    std::map<std::string, sim::Resources> pods;  // uid -> requests
  };
  RunRecord& record_;
  FaultInjector& faults_;
  std::map<std::string, PodInfo> pods_;  // by uid
  std::map<std::string, NodeUse> nodes_;
  std::set<JobKey> launcher_succeeded_;  // jobs with a launcher pod seen Succeeded (every container exited 0)
};

// Collects the stages and memory peaks kubelets and programs report into the job records.
class StageObserver : public sim::WorkloadObserver {
 public:
  explicit StageObserver(RunRecord& record) : record_(record) {}
  InvariantChecker* checker = nullptr;  // noTrainingBeforePartition sees every stage
  void OnStage(const json& pod, std::string_view stage, Micros begin, Micros end) override {
    if (checker) checker->OnStage(pod, stage, begin, end);
    if (JobRecord* job = JobOf(pod); job && end >= begin) job->stage_intervals[std::string(stage)].emplace_back(begin, end);
    if (end >= begin) NotePod(record_, pod).stages.push_back({std::string(stage), begin, end});
  }
  void OnMemory(const json& pod, std::string_view, std::int64_t bytes) override {
    JobRecord* job = JobOf(pod);
    if (!job) return;
    std::string role = Str(pod, {"metadata", "labels", dgl::kLabelReplicaType});
    if (role.empty()) role = "pod";
    std::int64_t& peak = job->peak_memory[role];
    peak = std::max(peak, bytes);
  }

 private:
  JobRecord* JobOf(const json& pod) {
    std::string name = Str(pod, {"metadata", "labels", dgl::kLabelJobName});
    if (name.empty()) return nullptr;
    auto it = record_.jobs.find(JobKey{Str(pod, {"metadata", "namespace"}), name});
    return it == record_.jobs.end() ? nullptr : &it->second;
  }
  RunRecord& record_;
};

sim::NodeTemplate ToNodeTemplate(const NodeTemplateSpec& spec) {
  sim::NodeTemplate t;
  t.name = spec.name;
  t.count = spec.count;
  for (const auto& [name, q] : spec.capacity) t.capacity[name] = q.text;
  t.labels = spec.labels;
  for (const auto& taint : spec.taints) t.taints.push_back({taint.key, taint.value, taint.effect, std::nullopt});
  t.nic_bytes_per_second = spec.network_bytes_per_second;
  t.disk_bytes_per_second = spec.disk_bytes_per_second;
  t.cpu_speed = spec.cpu_speed;
  return t;
}

std::int64_t CountPods(fakeapi::Store& store, const std::string& ns, const std::string& selector) {
  auto list = store.List("pods", {.namespace_ = ns, .label_selector = selector});
  return list.ok() ? static_cast<std::int64_t>(list->items.size()) : -1;
}

std::shared_ptr<const sim::dglmodels::DglEnvironment> MakeDglEnvironment(const Scenario& scenario) {
  std::vector<sim::dglmodels::DatasetInfo> datasets;
  for (const DatasetSpec& spec : scenario.datasets) {
    sim::dglmodels::DatasetInfo d;
    d.name = spec.name;
    d.nodes = spec.nodes;
    d.edges = spec.edges;
    d.feature_dim = spec.feature_dim;
    d.url = spec.url;
    d.edge_list = spec.edge_list;
    d.structure = spec.structure == "random" ? sim::dglmodels::Structure::kRandom : sim::dglmodels::Structure::kReal;
    d.train_nodes = sim::dglmodels::TrainNodesFor(spec.preset.empty() ? spec.name : spec.preset, spec.nodes);
    datasets.push_back(std::move(d));
  }
  std::map<std::string, std::string> job_datasets;
  for (const JobEntry& entry : scenario.jobs)
    if (entry.action == JobAction::kSubmit && !entry.dataset.empty())
      for (const JobKey& key : entry.targets) job_datasets.emplace(key.ToString(), entry.dataset);
  return std::make_shared<const sim::dglmodels::DglEnvironment>(scenario.calibration.value_or(sim::dglmodels::Calibration{}),
                                                          std::move(datasets), std::move(job_datasets));
}

// The ranges the DGL programs computed for their stages and memory peaks, into the job records.
void CopyPredictions(const sim::dglmodels::PredictionLog& log, RunRecord& record) {
  for (const auto& [job, predicted] : log.jobs()) {
    const auto slash = job.find('/');
    auto it = record.jobs.find(JobKey{job.substr(0, slash), slash == std::string::npos ? "" : job.substr(slash + 1)});
    if (it == record.jobs.end()) continue;
    for (const auto& [stage, spread] : predicted.stages) it->second.stage_spread[stage] = {spread.low, spread.high};
    for (const auto& [role, range] : predicted.peaks) it->second.peak_memory_range[role] = {range.low, range.high};
    for (const auto& note : predicted.notes) record.notes.push_back("job " + job + ": " + note);
  }
}

}  // namespace

PodRecord& RunRecord::Pod(const std::string& uid) {
  auto [it, inserted] = pod_index.try_emplace(uid, pods.size());
  if (inserted) pods.emplace_back().uid = uid;
  return pods[it->second];
}

std::map<std::string, Micros> JobRecord::Breakdown() const {
  std::map<std::string, Micros> out;
  for (const auto& [stage, intervals] : stage_intervals) {
    auto sorted = intervals;
    std::sort(sorted.begin(), sorted.end());
    Micros total = 0, begin = 0, end = -1;
    for (const auto& [b, e] : sorted) {
      if (b > end) {
        if (end > begin) total += end - begin;
        begin = b;
        end = e;
      } else {
        end = std::max(end, e);
      }
    }
    if (end > begin) total += end - begin;
    out[stage] = total;
  }
  return out;
}

std::array<double, 3> JobRecord::StageRange(const std::string& stage) const {
  auto stages = Breakdown();
  auto it = stages.find(stage);
  const double value = it == stages.end() ? 0.0 : static_cast<double>(it->second) / kube::kSecond;
  auto spread = stage_spread.find(stage);
  if (spread == stage_spread.end()) return {value, value, value};
  return {value, std::max(0.0, value + spread->second.first), std::max(value, value + spread->second.second)};
}

std::optional<std::array<double, 3>> JobRecord::MakespanRange() const {
  auto makespan = Makespan();
  if (!makespan) return std::nullopt;
  const double value = static_cast<double>(*makespan) / kube::kSecond;
  double low = value, high = value;
  for (const auto& [stage, spread] : stage_spread) {
    low += spread.first;
    high += spread.second;
  }
  return std::array<double, 3>{value, std::max(0.0, std::min(low, value)), std::max(high, value)};
}

std::optional<std::array<double, 3>> JobRecord::PeakRange(const std::string& role) const {
  auto peak = peak_memory.find(role);
  if (peak == peak_memory.end()) return std::nullopt;
  const double value = static_cast<double>(peak->second);
  auto range = peak_memory_range.find(role);
  if (range == peak_memory_range.end()) return std::array<double, 3>{value, value, value};
  return std::array<double, 3>{value, std::min(value, range->second.first), std::max(value, range->second.second)};
}

RunRecord RunScenario(const Scenario& scenario, const RunOptions& options) {
  RunRecord record;
  record.scenario = scenario.name;
  record.description = scenario.description;
  record.seed = options.seed.value_or(scenario.seed);

  auto simulation = std::make_unique<sim::Simulation>(
      sim::SimulationOptions{.seed = record.seed, .watch_latency = scenario.api.watch_latency});
  sim::Simulation& sim = *simulation;
  dgl::RegisterDGLJobAdmission(sim.store());
  for (const auto& ns : scenario.namespaces) {
    auto existing = sim.store().Get("namespaces", "", ns);
    if (!existing.ok()) sim.store().Create("namespaces", {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}});
  }

  // The cluster.
  sim::ClusterOptions cluster_options;
  cluster_options.default_toleration_seconds = scenario.cluster.timings.toleration_seconds / kube::kSecond;
  cluster_options.parse_bandwidth = [](std::string_view text) -> std::optional<double> {
    auto parsed = ParseBandwidth(text);
    return parsed.value;
  };
  auto cluster = std::make_unique<sim::Cluster>(sim, cluster_options);
  for (const auto& group : scenario.cluster.nodes) {
    kube::Status status;
    if (group.node_template) status = cluster->AddNodes(ToNodeTemplate(*group.node_template));
    if (group.manifest)
      for (const auto& node : group.manifest->nodes) {
        status = cluster->AddNodesFromManifest(node);
        if (!status.ok()) break;
      }
    if (!status.ok()) record.notes.push_back(group.field_path + ": nodes not created: " + status.message());
  }

  // The flow network: every node's NIC and disk, and the shared storage.
  sim::Network* network = &sim.EnableNetwork({.storage_bps = scenario.cluster.storage_bytes_per_second});
  for (const auto& [node, spec] : cluster->specs())
    network->AddNode(node, spec.nic_bytes_per_second, spec.disk_bytes_per_second);
  auto observer = std::make_unique<StageObserver>(record);
  observer->checker = &sim.AddActor<InvariantChecker>(record);

  // One kubelet per node.
  std::map<std::string, sim::Kubelet*> kubelets;
  auto programs = std::make_shared<sim::ProgramRegistry>();
  // The DGL workload models (sim/dgl): the calibration, the scenario's datasets, each job's dataset.
  auto dgl_env = MakeDglEnvironment(scenario);
  sim::dglmodels::RegisterDglPrograms(*programs, dgl_env);
  for (const auto& [node, spec] : cluster->specs()) {
    sim::KubeletConfig config;
    config.node_name = node;
    config.network = network;
    config.node_spec = &spec;
    config.observer = observer.get();
    config.pod_cidr = spec.pod_cidr;
    config.host_ip = spec.internal_ip;
    config.image_pull_bytes_per_second = scenario.cluster.images.pull_bytes_per_second;
    config.image_sizes = scenario.cluster.images.sizes;
    config.default_image_size = scenario.cluster.images.default_size;
    config.pod_startup = scenario.cluster.timings.pod_startup;
    config.backoff_initial = scenario.cluster.timings.pod_restart_backoff;
    config.backoff_max = scenario.cluster.timings.pod_restart_backoff_max;
    config.programs = programs;
    kubelets[node] = &sim.AddActor<sim::Kubelet>(std::move(config));
  }
  cluster->AddLivenessObserver([kubelets](const std::string& node, bool up, Micros) {
    if (auto it = kubelets.find(node); it != kubelets.end()) it->second->SetNodeUp(up);
  });
  cluster->AddLivenessObserver([&record, &sim](const std::string& node, bool up, Micros) {
    if (!up) {
      record.node_outages.push_back({node, sim.Now(), std::nullopt});
      return;
    }
    for (auto it = record.node_outages.rbegin(); it != record.node_outages.rend(); ++it)
      if (it->node == node && !it->up) {
        it->up = sim.Now();
        break;
      }
  });
  sim.AddActor<sim::NodeLifecycleController>(
      *cluster, sim::NodeLifecycleOptions{.node_monitor_grace_period = scenario.cluster.timings.node_monitor_grace_period});
  sim::SchedulerConfig scheduler_config;
  scheduler_config.scoring = scenario.cluster.scheduler.scoring == Scoring::kMostAllocated
                                 ? sim::ScoringPolicy::kMostAllocated
                                 : sim::ScoringPolicy::kLeastAllocated;
  scheduler_config.gang = scenario.cluster.scheduler.gang;
  sim.AddActor<sim::Scheduler>(scheduler_config);

  sim::OperatorActor* op = nullptr;
  if (scenario.operator_settings.enabled) {
    sim::OperatorActorOptions op_options;
    op_options.reconcile_latency = scenario.operator_settings.reconcile_latency;
    op_options.controller.reconciler.build.gang_scheduling = scenario.operator_settings.gang_scheduling;
    op = &sim.AddActor<sim::OperatorActor>(op_options);
  } else {
    record.notes.push_back("the operator is disabled (operator.enabled: false)");
  }

  kube::FaultPlan base_plan;
  if (scenario.api.request_latency > 0) {
    base_plan.latency_min = base_plan.latency_max = scenario.api.request_latency;
    sim.SetApiFaults(base_plan);
  }
  auto faults = std::make_unique<FaultInjector>(sim, *cluster, kubelets, op, base_plan);
  Recorder& recorder = sim.AddActor<Recorder>(record, *faults);

  // Jobs and actions, stably ordered by time.
  std::vector<const JobEntry*> entries;
  for (const auto& e : scenario.jobs) entries.push_back(&e);
  std::stable_sort(entries.begin(), entries.end(), [](const JobEntry* a, const JobEntry* b) { return a->at < b->at; });
  std::size_t applied = 0;
  for (const JobEntry* entry : entries) {
    for (const auto& key : entry->targets) {
      JobRecord& r = recorder.Job(key);
      if (entry->action == JobAction::kSubmit && r.dataset.empty()) r.dataset = entry->dataset;
    }
    for (std::size_t i = 0; entry->action == JobAction::kSubmit && i < entry->objects.size() && i < entry->targets.size(); ++i) {
      JobRecord& r = recorder.Job(entry->targets[i]);
      if (!r.dataset.empty()) continue;
      sim::dglmodels::DglEnvironment::Match match = dgl_env->MatchJob(entry->objects[i]);
      if (!match.dataset->is_default) r.dataset = match.dataset->name;
    }
    sim.engine().ScheduleAt(entry->at, [entry, &sim, &recorder, &applied, &record] {
      ++applied;
      std::string what = std::string(ToString(entry->action));
      switch (entry->action) {
        case JobAction::kSubmit:
          for (std::size_t i = 0; i < entry->objects.size(); ++i) {
            const json& obj = entry->objects[i];
            JobKey key{kube::NamespaceOf(obj), kube::NameOf(obj)};
            JobRecord& r = recorder.Job(key);
            auto created = sim.store().Create("dgljobs", obj, key.ns);
            if (created.ok()) {
              if (!r.submitted) r.submitted = sim.Now();
              r.deleted = false;
            } else {
              r.submit_error = created.status().message();
              record.notes.push_back(entry->field_path + ": " + key.ToString() + " was not created: " + r.submit_error);
            }
            sim.trace().Record(sim.Now(), "harness", "submit " + key.ToString() + (created.ok() ? "" : " failed"));
          }
          break;
        case JobAction::kDelete:
          for (const auto& key : entry->targets) {
            auto deleted = sim.store().Delete("dgljobs", key.ns, key.name);
            sim.trace().Record(sim.Now(), "harness", "delete " + key.ToString() + (deleted.ok() ? "" : " failed"));
          }
          break;
        case JobAction::kSuspend:
        case JobAction::kResume:
          for (const auto& key : entry->targets) {
            json patch = {{"spec", {{"runPolicy", {{"suspend", entry->action == JobAction::kSuspend}}}}}};
            auto patched = sim.store().Patch("dgljobs", key.ns, key.name, patch);
            sim.trace().Record(sim.Now(), "harness", what + " " + key.ToString() + (patched.ok() ? "" : " failed"));
          }
          break;
      }
    });
  }
  faults->Schedule(scenario.faults);

  // Pod counts at a given time.
  for (std::size_t i = 0; i < scenario.expectations.size(); ++i) {
    const ExpectationSpec& e = scenario.expectations[i];
    if (e.kind != ExpectKind::kPodCount || !e.at_time) continue;
    sim.engine().ScheduleAt(*e.at_time, [&record, &sim, i, &e] {
      record.pod_counts[i] = CountPods(sim.store(), e.pods_namespace, e.pods_selector);
    });
  }

  if (options.before_start) options.before_start(sim);
  sim.Start();
  const Micros until = scenario.until;
  Micros step = std::max<Micros>(options.check_interval, kube::kMillisecond);
  auto all_done = [&] {
    if (applied < entries.size()) return false;
    for (const auto& [key, r] : record.jobs) {
      if (!r.submitted) continue;
      if (!r.deleted && !dgl::IsTerminalPhase(r.phase)) return false;
    }
    return true;
  };
  if (options.drive) options.drive(sim, all_done);  // `dglsim serve` steps the run itself
  while (!options.drive && sim.Now() < until) {
    sim.RunUntil(std::min(until, sim.Now() + step));
    if (all_done()) {
      sim.RunUntil(std::min(until, sim.Now() + kSettle));
      break;
    }
    if (sim.engine().idle()) break;
  }
  record.end = sim.Now();
  record.hit_until = record.end >= until && !all_done();
  recorder.Finish();

  // The end state.
  for (std::size_t i = 0; i < scenario.expectations.size(); ++i) {
    const ExpectationSpec& e = scenario.expectations[i];
    if (e.kind == ExpectKind::kPodCount && !e.at_time)
      record.pod_counts[i] = CountPods(sim.store(), e.pods_namespace, e.pods_selector);
  }
  if (auto cms = sim.store().List("configmaps"); cms.ok())
    for (const auto& cm : cms->items) {
      std::map<std::string, std::string> data;
      if (auto d = cm->find("data"); d != cm->end() && d->is_object())
        for (const auto& [k, v] : d->items())
          if (v.is_string()) data[k] = v.get<std::string>();
      record.config_maps[kube::KeyOf(*cm)] = std::move(data);
    }
  ++record.invariant_checks["jobsTerminalOrProgressing"];
  for (const auto& [key, r] : record.jobs) {
    if (!r.submitted || r.deleted || dgl::IsTerminalPhase(r.phase) || r.phase == dgl::kPhaseSuspended) continue;
    // Not terminal: fine only when the run was cut by `until` while the job was still moving.
    bool progressing = record.hit_until && record.end - r.last_status_change <= 3600 * kube::kSecond;
    if (!progressing)
      recorder.Violation("jobsTerminalOrProgressing",
                         "job " + key.ToString() + " ended the run in phase " + (r.phase.empty() ? "(none)" : r.phase) +
                             ", last changed at " + FormatDuration(r.last_status_change));
  }
  // Nothing of a deleted job is left once the collector ran (objects being deleted, e.g. pods on a
  // dead node waiting for a kubelet that never confirms, do not count).
  for (const auto& [key, r] : record.jobs) {
    if (!r.deleted) continue;
    ++record.invariant_checks["noObjectsAfterDelete"];
    std::vector<std::string> left;
    if (auto pods = sim.store().List("pods", {.namespace_ = key.ns, .label_selector = std::string(kLabelJobName) + "=" + key.name});
        pods.ok())
      for (const auto& pod : pods->items)
        if (Str(*pod, {"metadata", "deletionTimestamp"}).empty()) left.push_back("pod " + kube::NameOf(*pod));
    if (auto cm = sim.store().Get("configmaps", key.ns, dgl::ConfigMapName(key.name)); cm.ok())
      if (Str(**cm, {"metadata", "deletionTimestamp"}).empty()) left.push_back("configmap " + dgl::ConfigMapName(key.name));
    if (!left.empty()) {
      std::string list;
      for (const auto& l : left) list += (list.empty() ? "" : ", ") + l;
      recorder.Violation("noObjectsAfterDelete", "job " + key.ToString() + " was deleted but " + list + " remain");
    }
  }
  // A run cut by `until`: say where every job's pods stood, to show what the jobs waited for.
  if (record.hit_until)
    if (auto pods = sim.store().List("pods"); pods.ok())
      for (const auto& pod : pods->items) {
        std::string line = "at the end pod " + kube::KeyOf(*pod) + " " + Str(*pod, {"status", "phase"});
        std::string node = Str(*pod, {"spec", "nodeName"});
        line += node.empty() ? " unbound" : " on " + node;
        for (const char* list : {"initContainerStatuses", "containerStatuses"}) {
          auto status = pod->find("status");
          if (status == pod->end() || !status->is_object()) continue;
          auto cs = status->find(list);
          if (cs == status->end() || !cs->is_array()) continue;
          for (const auto& c : *cs) {
            std::string state = "?";
            if (auto st = c.find("state"); st != c.end() && st->is_object() && !st->empty()) {
              state = st->begin().key();
              std::string reason = Str(*st, {state.c_str(), "reason"});
              if (!reason.empty()) state += "(" + reason + ")";
            }
            line += ", " + Str(c, {"name"}) + " " + state;
          }
        }
        if (auto conds = pod->find("status"); conds != pod->end() && conds->is_object())
          if (auto list = conds->find("conditions"); list != conds->end() && list->is_array())
            for (const auto& c : *list)
              if (Str(c, {"type"}) == "PodScheduled" && Str(c, {"status"}) == "False")
                line += ", unschedulable: " + Str(c, {"message"});
        record.notes.push_back(line);
      }
  if (auto nodes = sim.store().List("nodes"); nodes.ok()) {
    record.nodes = static_cast<int>(nodes->items.size());
    for (const auto& node : nodes->items) {
      record.gpus += AllocatableOf(*node).gpu;
      record.node_list.push_back({kube::NameOf(*node), AllocatableOf(*node).gpu});
    }
  }
  CopyPredictions(dgl_env->predictions(), record);
  record.fault_log = faults->log();
  record.events = sim.engine().events_executed();
  record.api_writes = sim.store().Stats().writes;
  record.trace_records = sim.trace().count();
  record.trace_hash = sim.trace().HashHex();
  simulation.reset();  // the actors go first: they hold references to the cluster and the injector
  return record;
}

}  // namespace harness
