#include "sim/dgl/programs.h"

#include "fakeapi/client/json_path.h"
#include "fakeapi/client/quantity.h"
#include "operator/api/types.h"
#include "operator/api/vocabulary.h"
#include "sim/cluster/cluster.h"
#include "sim/dgl/flags.h"
#include "sim/dgl/models.h"
#include "sim/dgl/tri_workload.h"
#include "sim/dgl/uncertainty.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <sstream>

namespace sim::dglmodels {

using json = kube::Json;

namespace {

constexpr const char* kJobLabel = dgl::kLabelJobName;
constexpr const char* kTypeLabel = dgl::kLabelReplicaType;
constexpr const char* kEpochAnnotation = dgl::kAnnotationRestartEpoch;
constexpr const char* kDatasetAnnotation = "dglsim.io/dataset";
// A kubectl exec round trip of tools/launch.py (revise_hostfile on every worker, in threads):
// *unconfirmed* planning value.
constexpr double kExecSeconds = 0.5;
// How often the partitioner looks again for the launcher named in the leadfile, and how long it
// tries before failing as `kubectl exec` does ("container not found", original issue #22).
constexpr Micros kLeadRetry = 2 * kSecond;
constexpr int kLeadAttempts = 150;
// How often the launcher checks that every worker container still runs.
constexpr Micros kLivenessInterval = 5 * kSecond;

std::string Str(const json& obj, std::initializer_list<std::string_view> path) {
  return kube::JsonString(obj, path);
}

Micros ToMicros(double seconds) {
  if (!(seconds > 0)) return 0;
  if (seconds > 1e12) return kForever;
  return static_cast<Micros>(std::llround(seconds * 1e6));
}

std::string Fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}
std::string GB(double bytes) { return Fixed(bytes / 1e9, 3) + " GB"; }

// A container's limit (else request) of `resource`, in milli-units; 0 when unset.
std::int64_t ContainerMilli(const json& container, const char* resource) {
  for (const char* kind : {"limits", "requests"}) {
    std::string q = Str(container, {"resources", kind, resource});
    if (!q.empty())
      if (auto v = kube::ParseQuantityMilli(q)) return *v;
  }
  return 0;
}

// A container's memory limit in bytes (requests do not OOM-kill); 0 when unset.
double MemoryLimitBytes(const json& container) {
  std::string q = Str(container, {"resources", "limits", "memory"});
  if (q.empty()) return 0;
  auto v = kube::ParseQuantityMilli(q);
  return v ? static_cast<double>(*v) / 1000.0 : 0.0;
}

std::string PodKey(const json& pod) { return Str(pod, {"metadata", "namespace"}) + "/" + Str(pod, {"metadata", "name"}); }

// Field `index` (from 0) of each line with at least index+1 space-separated fields.
std::vector<std::string> Column(const std::string& text, std::size_t index) {
  std::vector<std::string> out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::vector<std::string> fields;
    for (std::string w; words >> w;) fields.push_back(w);
    if (fields.size() > index) out.push_back(fields[index]);
  }
  return out;
}

// The pods the launcher runs DGL in: workers, and a tri-workload job's servers, samplers, trainers.
bool IsDglPodRole(const std::string& role) {
  return role == dgl::kRoleWorker || role == dgl::kRoleServer || role == dgl::kRoleSampler ||
         role == dgl::kRoleTrainer;
}

// ---- the DGL worker: sleep, plus what the launcher runs inside it ------------------------------

class DglWorker : public ContainerProgram {
 public:
  explicit DglWorker(std::shared_ptr<const DglEnvironment> env) : env_(std::move(env)) {}
  ~DglWorker() override { Unregister(); }

  void Start(ProgramContext& ctx) override {
    sleep_ = MakeSleepProgram();
    if (IsDglPodRole(Str(ctx.pod(), {"metadata", "labels", kTypeLabel}))) Register(ctx);
    sleep_->Start(ctx);
  }
  void Stop(ProgramContext& ctx, Micros grace) override { sleep_->Stop(ctx, grace); }
  void OnNodeDown(ProgramContext& ctx) override {
    Unregister();
    sleep_->OnNodeDown(ctx);
  }

  // Registers `ctx`'s container as a worker the launcher can exec into.
  void Register(ProgramContext& ctx) {
    key_ = PodKey(ctx.pod());
    ExecTarget target;
    target.node = ctx.node_name();
    target.cpu_speed = ctx.node_spec() ? ctx.node_spec()->cpu_speed : 1.0;
    if (ctx.node_spec()) target.nic_bytes_per_second = ctx.node_spec()->nic_bytes_per_second;
    target.memory_limit = MemoryLimitBytes(ctx.container());
    target.gpus = static_cast<int>(ContainerMilli(ctx.container(), kResourceGpu) / 1000);
    ProgramContext* c = &ctx;
    target.set_memory = [c](std::int64_t bytes) { c->SetMemoryUsage(bytes); };
    token_ = env_->exec().Register(key_, std::move(target));
  }
  void Unregister() {
    if (token_ != 0) env_->exec().Unregister(key_, token_);
    token_ = 0;
  }

 private:
  std::shared_ptr<const DglEnvironment> env_;
  std::unique_ptr<ContainerProgram> sleep_;
  std::string key_;
  std::uint64_t token_ = 0;
};

// ---- dglrun / dglkerun -------------------------------------------------------------------------

using Model = std::function<double(const Calibration&)>;

class DglRun : public ContainerProgram {
 public:
  explicit DglRun(std::shared_ptr<const DglEnvironment> env) : env_(std::move(env)), cal_(env_->calibration()) {}
  ~DglRun() override { worker_.reset(); }

  void Start(ProgramContext& ctx) override {
    if (ctx.Annotation("dglsim.io/duration")) {
      delegate_ = MakeGenericProgram();
      delegate_->Start(ctx);
      return;
    }
    ctx_ = &ctx;
    const json& pod = ctx.pod();
    ns_ = Str(pod, {"metadata", "namespace"});
    job_ = Str(pod, {"metadata", "labels", kJobLabel});
    epoch_ = Str(pod, {"metadata", "annotations", kEpochAnnotation});
    flags_ = ParseDglFlags(ctx.command(), ctx.args());
    ke_ = flags_.program == "dglkerun";
    auto env_of = [&](const char* name) {
      auto it = ctx.env().find(name);
      return it == ctx.env().end() ? std::string() : it->second;
    };
    phase_env_ = env_of(dgl::kEnvPhase);
    placement_ = env_of(dgl::kEnvPartitionerPlacement);
    mode_ = env_of(dgl::kEnvPartitionMode);
    if (mode_.empty()) mode_ = phase_env_ == dgl::kPhaseEnvLauncherWorkload ? "Skip" : "DGL-API";
    cpu_ = ctx.node_spec() && ctx.node_spec()->cpu_speed > 0 ? ctx.node_spec()->cpu_speed : 1.0;

    if (const std::string role = Str(pod, {"metadata", "labels", kTypeLabel}); IsDglPodRole(role)) {
      // dglrun as a worker's own command: it serves what the launcher execs into it.
      worker_ = std::make_unique<DglWorker>(env_);
      worker_->Register(ctx);
      Log("[" + flags_.program + "] " + role + " " + Str(pod, {"metadata", "name"}) + " waiting for the launcher");
      return;
    }
    // --partition-pipeline picks how MSP partitions across the workers; elsewhere it would do nothing.
    if (!flags_.partition_pipeline.empty() && mode_ != "DistParMETIS")
      flags_.errors.push_back("--partition-pipeline: only partitionMode DistParMETIS partitions across the workers "
                              "(this job's mode is " + mode_ + ")");
    for (const auto& e : flags_.errors) Log(flags_.program + ": error: argument " + e);
    if (!flags_.errors.empty()) {
      ctx.Exit(2);
      return;
    }
    DglEnvironment::Match match = env_->Find(ns_ + "/" + job_, Str(pod, {"metadata", "annotations", kDatasetAnnotation}),
                                             flags_.dataset_url, flags_.graph_name);
    data_ = match.dataset;
    Log("[" + flags_.program + "] dataset " + data_->name + " (" + std::to_string(data_->nodes) + " nodes, " +
        std::to_string(data_->edges) + " edges, feature dim " + std::to_string(data_->feature_dim) + ", " +
        ToString(data_->structure) + " structure)" +
        (data_->is_default ? "; the job names no dataset the scenario knows: running on the small default graph" : ""));
    // Measure the real graph's parts once, for every role of the job.
    if (!data_->edge_list.empty()) {
      if (const MeasuredPartition* m = env_->Measured(*data_, std::max(1, flags_.num_partitions))) {
        measured_ = *data_;
        measured_.measured[std::max(1, flags_.num_partitions)] = *m;
        data_ = &measured_;
      }
    }
    if (phase_env_ == dgl::kPhaseEnvPartitioner) return StartPartitioner();
    if (phase_env_ == dgl::kPhaseEnvDistPartitioner) return StartDistPartitioner();
    if (phase_env_ == dgl::kPhaseEnvLauncherWorkload || mode_ == "Skip") return StartLocal();
    return StartLauncher();
  }

  void Stop(ProgramContext& ctx, Micros grace) override {
    if (delegate_) return delegate_->Stop(ctx, grace);
    if (worker_) worker_->Unregister();
    ReleaseWorkers();
    ctx.Exit(143);
  }
  void OnNodeDown(ProgramContext& ctx) override {
    if (delegate_) return delegate_->OnNodeDown(ctx);
    if (worker_) worker_->Unregister();
  }

 private:
  // ---- helpers ----------------------------------------------------------------------------------
  void Log(const std::string& line) { ctx_->Log(line); }
  Micros Now() const { return ctx_->Now(); }
  double SecondsSince(Micros begin) const { return static_cast<double>(Now() - begin) / kSecond; }
  void Record(const char* stage, Micros begin) { ctx_->RecordStage(stage, begin, Now()); }
  void Compute(double seconds, std::function<void()> next) { ctx_->After(ToMicros(seconds), std::move(next)); }
  // Starts every flow; `done` runs once all have arrived.
  void Flows(std::vector<FlowSpec> specs, std::function<void()> done) {
    if (specs.empty()) {
      ctx_->After(0, std::move(done));
      return;
    }
    auto left = std::make_shared<std::size_t>(specs.size());
    auto finish = std::make_shared<std::function<void()>>(std::move(done));
    for (FlowSpec& spec : specs) {
      spec.on_done = [left, finish] {
        if (--*left == 0) (*finish)();
      };
      ctx_->Transfer(std::move(spec));
    }
  }
  void Fail(const std::string& why, int code = 1) {
    if (failed_) return;
    failed_ = true;
    Log(why);
    ReleaseWorkers();
    ctx_->Exit(code);
  }
  int Parts() const { return std::max(1, flags_.num_partitions); }
  bool Random() const { return flags_.part_method == "random"; }
  bool Chunked() const { return flags_.partition_pipeline == "chunked"; }
  PartitionOptions Options(int parts) const {
    return {.parts = parts, .balance_train = flags_.balance_train && !ke_, .balance_edges = flags_.balance_edges && !ke_,
            .random = Random()};
  }
  int Epochs() const { return flags_.num_epochs > 0 ? flags_.num_epochs : cal_.default_epochs; }
  WorkerProcesses Processes() const {
    return {.servers = flags_.num_servers, .trainers = flags_.num_trainers, .samplers = flags_.num_samplers};
  }
  PartSizes Sizes(const Calibration& c, int parts) const { return SplitGraph(*data_, c, parts, Random()); }
  double TotalPartBytes(const Calibration& c, int parts) const {
    double total = 0;
    for (const PartFiles& f : PartitionFiles(*data_, c, Sizes(c, parts))) total += f.total();
    return total;
  }
  void SetWorkerMemory(const std::string& worker, double bytes) {
    if (const ExecTarget* t = env_->exec().Find(ns_ + "/" + worker); t && t->set_memory)
      t->set_memory(static_cast<std::int64_t>(bytes));
  }
  void ReleaseWorkers() {
    for (const auto& w : workers_) SetWorkerMemory(w, 0);
    for (const auto& t : trainers_) SetWorkerMemory(t, 0);
    for (const auto& m : samplers_) SetWorkerMemory(m, 0);
  }

  // ---- ranges (sim/dgl/predictions.h) -----------------------------------------------------------
  std::string JobKey() const { return ns_ + "/" + job_; }
  Estimate Est(const Model& model) const { return env_->ends().Evaluate(model); }
  // A stage's compute at the ends of the ranges.
  void SpreadCompute(const char* stage, const Model& seconds) {
    const Estimate e = Est(seconds);
    env_->predictions().AddStage(JobKey(), stage, e.low - e.value, e.high - e.value);
  }
  // A stage's flows, `seconds` long in the run, with bytes at the ends of the ranges.
  void SpreadFlow(const char* stage, double seconds, const Model& bytes) {
    const Estimate e = Est(bytes);
    if (!(e.value > 0)) return;
    env_->predictions().AddStage(JobKey(), stage, seconds * (e.low / e.value - 1), seconds * (e.high / e.value - 1));
  }
  // A role's memory peak at the ends, and a note when the container's limit lies inside the range.
  void SpreadPeak(const std::string& role, const Model& peak, double limit) {
    const Estimate e = Est(peak);
    env_->predictions().AddPeak(JobKey(), role, e.low, e.high);
    if (limit <= 0) return;
    if (e.value <= limit && e.high > limit)
      env_->predictions().Note(JobKey(), "the " + role + " needs " + GB(e.value) + " (" + GB(e.low) + " - " + GB(e.high) +
                                             ") at the ends of the model ranges, above its limit of " + GB(limit) +
                                             " at the high end: it could be OOMKilled");
    if (e.value > limit && e.low <= limit)
      env_->predictions().Note(JobKey(), "the " + role + " needs " + GB(e.value) + " (" + GB(e.low) + " - " + GB(e.high) +
                                             "), above its limit of " + GB(limit) +
                                             "; at the low end of the model ranges it would fit");
  }
  double OwnLimit() const { return MemoryLimitBytes(ctx_->container()); }

  // The ConfigMap's `key` (hostfile, leadfile); "" when absent.
  // The ConfigMap is mounted in the pod (/etc/dgl): the kubelet reads it, not the pod's account.
  std::string ConfigData(const std::string& key) {
    auto cm = ctx_->volume_client().Get("configmaps", ns_, dgl::ConfigMapName(job_));
    if (!cm.ok()) return "";
    return Str(**cm, {"data", key.c_str()});
  }
  // The pod's node, replica-type label and uid; node "" when it is absent or not scheduled.
  struct PodPlace {
    std::string node, role, uid;
  };
  PodPlace PlaceOfPod(const std::string& name) {
    auto pod = ctx_->client().Get("pods", ns_, name);
    if (!pod.ok()) return {};
    return {Str(**pod, {"spec", "nodeName"}), Str(**pod, {"metadata", "labels", kTypeLabel}),
            Str(**pod, {"metadata", "uid"})};
  }
  // `forbidden`, when given, gets kubectl's words for a refused GET of the pod.
  std::string NodeOfPod(const std::string& name, std::string* forbidden = nullptr) {
    auto pod = ctx_->client().Get("pods", ns_, name);
    if (!pod.ok()) {
      if (forbidden && pod.status().code() == 403) *forbidden = "Error from server (Forbidden): " + pod.status().message();
      return "";
    }
    return Str(**pod, {"spec", "nodeName"});
  }
  // kubectl exec into `pod` as this container's service account: "" when allowed, else the error
  // kubectl prints (the API refused create pods/exec).
  std::string ExecRefused(const std::string& pod) {
    kube::Status s = ctx_->Exec(pod);
    return s.ok() ? "" : "Error from server (Forbidden): " + s.message();
  }
  // The workers in hostfile order with their nodes; false (after failing) when one is missing.
  bool ResolveWorkers() {
    workers_ = Column(ConfigData(dgl::kConfigHostfile), 2);
    worker_nodes_.clear();
    if (workers_.empty()) {
      Fail("FileNotFoundError: [Errno 2] No such file or directory: '/etc/dgl/hostfile' (no worker in it)");
      return false;
    }
    for (const auto& w : workers_) {
      std::string forbidden;
      std::string node = NodeOfPod(w, &forbidden);
      if (forbidden.empty()) forbidden = ExecRefused(w);
      if (!forbidden.empty()) {
        Fail(forbidden);
        return false;
      }
      if (node.empty()) {
        Fail("error: unable to upgrade connection: pod " + w + " not found or not scheduled");
        return false;
      }
      worker_nodes_.push_back(node);
    }
    return ResolveTriWorkload();
  }
  // The slowest worker's CPU, the smallest NIC and memory limit of the running workers.
  struct WorkerMachines {
    double cpu = 1.0, nic = 12.5e9, limit = 0;
    int gpus = 0;
  };
  WorkerMachines Machines() const {
    WorkerMachines m{.cpu = 1e30, .nic = 1e30, .limit = 1e30};
    for (const auto& w : workers_)
      if (const ExecTarget* t = env_->exec().Find(ns_ + "/" + w)) {
        m.cpu = std::min(m.cpu, t->cpu_speed);
        m.nic = std::min(m.nic, t->nic_bytes_per_second);
        if (t->memory_limit > 0) m.limit = std::min(m.limit, t->memory_limit);
        m.gpus = t->gpus;
      }
    if (m.cpu > 1e29 || m.cpu <= 0) m.cpu = 1.0;
    if (m.nic > 1e29 || m.nic <= 0) m.nic = 12.5e9;
    if (m.limit > 1e29) m.limit = 0;
    return m;
  }
  // The first worker whose container is gone, "" when all run.
  std::string LostWorker() const {
    for (const auto& w : workers_)
      if (!env_->exec().Find(ns_ + "/" + w)) return w;
    return "";
  }

  // Runs steps[i..] in this container: each reaches its peak memory halfway through.
  void RunSteps(std::vector<PartitionStep> steps, std::size_t i, std::function<void()> done) {
    if (i >= steps.size()) return done();
    PartitionStep step = steps[i];
    ctx_->After(ToMicros(step.seconds / 2), [this, step] { ctx_->SetMemoryUsage(static_cast<std::int64_t>(step.peak_bytes)); });
    peak_ = std::max(peak_, step.peak_bytes);
    Compute(step.seconds, [this, steps = std::move(steps), i, step, done = std::move(done)]() mutable {
      Log(step.name + ": " + Fixed(step.seconds, 3) + " seconds, peak memory: " + GB(peak_));
      RunSteps(std::move(steps), i + 1, std::move(done));
    });
  }
  // Runs steps[i..] on every worker at once (the memory is each worker's).
  void RunWorkerSteps(std::vector<PartitionStep> steps, std::size_t i, std::function<void()> done) {
    if (i >= steps.size()) return done();
    if (std::string lost = LostWorker(); !lost.empty())
      return Fail("Task failed: lost worker " + lost + " before " + steps[i].name);
    PartitionStep step = steps[i];
    ctx_->After(ToMicros(step.seconds / 2), [this, step] {
      for (const auto& w : workers_) SetWorkerMemory(w, step.peak_bytes);
    });
    Compute(step.seconds, [this, steps = std::move(steps), i, step, done = std::move(done)]() mutable {
      if (std::string lost = LostWorker(); !lost.empty())
        return Fail("Task failed: worker " + lost + " died during " + step.name);
      Log(step.name + ": " + Fixed(step.seconds, 3) + " seconds, peak memory per machine: " + GB(step.peak_bytes));
      RunWorkerSteps(std::move(steps), i + 1, std::move(done));
    });
  }

  // Downloads bytes(calibration) from the shared storage to each of `to` (one share each).
  void Download(std::vector<Endpoint> to, Model bytes, std::function<void()> next) {
    const Micros begin = Now();
    const double share = 1.0 / std::max<std::size_t>(1, to.size());
    const std::string url = data_->url.empty() ? flags_.dataset_url : data_->url;
    Log("Downloading " + (url.empty() ? data_->name : url) + " (" + GB(bytes(cal_)) + ")");
    std::vector<FlowSpec> flows;
    for (Endpoint& e : to) flows.push_back({.src = Endpoint::Storage(), .dst = std::move(e), .bytes = bytes(cal_) * share});
    Flows(std::move(flows), [this, begin, bytes = std::move(bytes), next = std::move(next)] {
      Record("download", begin);
      SpreadFlow("download", SecondsSince(begin), bytes);
      Log("Downloaded in " + Fixed(SecondsSince(begin), 1) + "s");
      next();
    });
  }
  // Writes what OGB's loader produced (share of it) to the local disk of each of `nodes`.
  std::vector<FlowSpec> SaveProcessed(const std::vector<std::string>& nodes, double share) const {
    std::vector<FlowSpec> out;
    for (const auto& node : nodes)
      out.push_back({.src = Endpoint::Memory(node), .dst = Endpoint::Disk(node), .bytes = ProcessedBytes(*data_, cal_) * share});
    return out;
  }

  // ---- phase 1/5 and 2/5 on the partitioner -------------------------------------------------------
  void StartPartitioner() {
    Log("Phase 1/5: " + std::string(ke_ ? "dglke_partition" : flags_.partition_entry_point.empty() ? "partition_graph"
                                                                                                     : flags_.partition_entry_point) +
        " --graph_name " + flags_.graph_name + " --num_parts " + std::to_string(Parts()) + " (" + mode_ + ")");
    Download({Endpoint::Disk(ctx_->node_name())}, [this](const Calibration& c) { return ArchiveBytes(*data_, c); },
             [this] { PrepareLocal([this] { RunPartitionSteps(); }); });
  }

  // Unpacking and OGB's loader in this container, then the processed files to the local disk.
  void PrepareLocal(std::function<void()> next) {
    const Micros begin = Now();
    RunSteps(PrepareSteps(*data_, cal_, cpu_), 0, [this, begin, next = std::move(next)] {
      const Micros save = Now();
      Flows(SaveProcessed({ctx_->node_name()}, 1.0), [this, begin, save, next] {
        Record("prepare", begin);
        SpreadCompute("prepare", [this](const Calibration& c) { return TotalSeconds(PrepareSteps(*data_, c, cpu_)); });
        SpreadFlow("prepare", SecondsSince(save), [this](const Calibration& c) { return ProcessedBytes(*data_, c); });
        Log("dataset prepared in " + Fixed(SecondsSince(begin), 1) + "s");
        next();
      });
    });
  }

  // pm_dglpart (SMP: one rank per CPU of the container's limit, all on this machine) or
  // partition_graph's steps (SSP).
  int LocalRanks() const {
    return static_cast<int>(std::max<std::int64_t>(1, ContainerMilli(ctx_->container(), "cpu") / 1000));
  }
  bool LocalParmetis() const { return mode_ == "ParMETIS" && !Random(); }
  std::vector<PartitionStep> LocalPartitionSteps(const Calibration& c) const {
    if (!LocalParmetis()) return SspSteps(*data_, c, Options(Parts()), cpu_);
    const double bus = ctx_->node_spec() ? ctx_->node_spec()->disk_bytes_per_second * 5 : 10e9;
    return ParmetisSteps(*data_, c, Options(Parts()),
                         {.ranks = LocalRanks(), .machines = 1, .link_bytes_per_second = bus, .cpu_speed = cpu_});
  }

  void RunPartitionSteps() {
    partition_begin_ = Now();
    if (LocalParmetis()) {
      Log("mpirun -np " + std::to_string(LocalRanks()) + " pm_dglpart " + flags_.graph_name + " " +
          std::to_string(std::max(1, Parts() / LocalRanks())));
      ParmetisCheck check = CheckParmetis(*data_, cal_, 1);
      if (check.overflows) overflow_ints_ = check.ints_per_rank;
    }
    SpreadPeak(dgl::kRolePartitioner, [this](const Calibration& c) {
      return std::max(PeakBytes(PrepareSteps(*data_, c, cpu_)), PeakBytes(LocalPartitionSteps(c)));
    }, OwnLimit());
    std::vector<PartitionStep> steps = LocalPartitionSteps(cal_);
    if (overflow_ints_ > 0) {
      // pm_dglpart gets as far as ParMETIS's first all-to-all.
      while (!steps.empty() && steps.back().name != "ParMETIS") steps.pop_back();
      if (!steps.empty()) steps.back().seconds = 1.0;
      return RunSteps(std::move(steps), 0, [this] {
        Record("partition", partition_begin_);
        Fail("Fatal error in PMPI_Alltoallv: Invalid count, error stack: MPI_Alltoallv: a rank holds " +
             Fixed(overflow_ints_ / 1e9, 2) + " G ints of message data, above MPI's 2^31 int count limit\n"
             "pm_dglpart: ParMETIS failed (ParMETIS issue #8: spread the ranks over more machines)");
      });
    }
    RunSteps(std::move(steps), 0, [this] { SavePartitions(); });
  }

  double SavedBytes(const Calibration& c) const { return TotalPartBytes(c, Parts()) + (ke_ ? RawBytes(*data_, c) : 0); }

  void SavePartitions() {
    const double bytes = SavedBytes(cal_);
    const Micros begin = Now();
    FlowSpec spec{.src = Endpoint::Memory(ctx_->node_name()), .dst = Endpoint::Disk(ctx_->node_name()), .bytes = bytes};
    Flows({spec}, [this, begin, bytes] {
      Log("Save partitions: " + Fixed(SecondsSince(begin), 3) + " seconds (" + GB(bytes) + ")");
      Record("partition", partition_begin_);
      SpreadCompute("partition", [this](const Calibration& c) { return TotalSeconds(LocalPartitionSteps(c)); });
      SpreadFlow("partition", SecondsSince(begin), [this](const Calibration& c) { return SavedBytes(c); });
      ctx_->SetMemoryUsage(0);
      partition_bytes_ = bytes;
      lead_attempts_ = 0;
      Deliver();
    });
  }

  // Phase 2/5: copy the partitions into the launcher's watcher-loop-partitioner container.
  void Deliver() {
    if (placement_ == dgl::kPlacementLauncherInit) {
      Log("Phase 2/5: the partitions are on the launcher's own volume (partitionerPlacement LauncherInit): nothing "
          "to deliver");
      ctx_->Exit(0);
      return;
    }
    std::vector<std::string> leads = Column(ConfigData(dgl::kConfigLeadfile), 2);
    std::string forbidden;
    std::string node = leads.empty() ? "" : NodeOfPod(leads[0], &forbidden);
    if (!node.empty()) forbidden = ExecRefused(leads[0]);
    if (!forbidden.empty()) return Fail(forbidden);
    if (node.empty()) {
      if (++lead_attempts_ >= kLeadAttempts)
        return Fail("error: unable to upgrade connection: container not found (\"watcher-loop-partitioner\")");
      ctx_->After(kLeadRetry, [this] { Deliver(); });
      return;
    }
    Log("Phase 2/5: deliver partitions to " + leads[0] + " (copy_batch_container, " + GB(partition_bytes_) + ")");
    const Micros begin = Now();
    FlowSpec spec{.src = Endpoint::Disk(ctx_->node_name()), .dst = Endpoint::Disk(node), .bytes = partition_bytes_};
    Flows({spec}, [this, begin] {
      Record("dispatch", begin);
      SpreadFlow("dispatch", SecondsSince(begin), [this](const Calibration& c) { return SavedBytes(c); });
      Log("Phase 2/5 done in " + Fixed(SecondsSince(begin), 1) + "s");
      ctx_->Exit(0);
    });
  }

  // ---- MSP: partitioning across the workers (the launcher's dist-partitioner init container) -------
  // --partition-pipeline parmetis (default): each worker reads and prepares its slice of the dataset,
  // pm_dglpart runs with one rank per worker, each partition is shuffled to its owner.
  // --partition-pipeline chunked: DGL's pipeline (DGL >= 0.9.1) over the dataset in chunked format:
  // every worker reads its chunks, ParMETIS (or random_partition.py with --part-method random)
  // assigns the nodes, and dispatch_data.py shuffles edges and features to their owners and builds
  // the partitions there, needing 2-3 times the graph data in the cluster's memory.
  void StartDistPartitioner() {
    if (!ResolveWorkers()) return;
    if (std::string lost = LostWorker(); !lost.empty())
      return Fail("error: unable to upgrade connection: container not found (" + lost + ")");
    const int n = static_cast<int>(workers_.size());
    Log(std::string(Chunked() ? "DGL chunked pipeline: " : "DistParMETIS: ") +
        (Random() ? "random assignment" : "pm_dglpart with one rank per worker") + " over " + std::to_string(n) +
        " workers, " + std::to_string(Parts()) + " parts");
    std::vector<Endpoint> disks;
    for (const auto& node : worker_nodes_) disks.push_back(Endpoint::Disk(node));
    if (Chunked()) {
      ChunkedRamRule(n);
      return Download(std::move(disks), [this](const Calibration& c) { return RawBytes(*data_, c); },
                      [this] { DistAssign(); });
    }
    Download(std::move(disks), [this](const Calibration& c) { return ArchiveBytes(*data_, c); },
             [this] { DistPrepare(); });
  }

  // DGL's rule for dispatch_data.py: the cluster's memory holds 2-3 times the graph data.
  void ChunkedRamRule(int n) {
    const double need = cal_.dispatch_memory_factor * GraphDataBytes(*data_, cal_);
    const double limit = Machines().limit;
    Log("dispatch_data.py: the graph data is " + GB(GraphDataBytes(*data_, cal_)) + "; DGL asks the cluster's memory for " +
        Fixed(cal_.dispatch_memory_factor, 1) + "x that (" + GB(need) + ")" +
        (limit > 0 ? ", the " + std::to_string(n) + " workers' limits give " + GB(limit * n) : ""));
    if (limit > 0 && limit * n < need)
      Log("warning: the workers' memory is short of DGL's rule: dispatch_data.py will run out of memory");
  }

  ParmetisRun DistRun() const {
    const WorkerMachines m = Machines();
    const int n = static_cast<int>(workers_.size());
    return {.ranks = n, .machines = n, .link_bytes_per_second = m.nic, .cpu_speed = m.cpu};
  }

  void DistPrepare() {
    const Micros begin = Now();
    const int n = static_cast<int>(workers_.size());
    const double cpu = Machines().cpu;
    RunWorkerSteps(PrepareSteps(*data_, cal_, cpu, 1.0 / n), 0, [this, begin, n, cpu] {
      const Micros save = Now();
      Flows(SaveProcessed(worker_nodes_, 1.0 / n), [this, begin, save, n, cpu] {
        Record("prepare", begin);
        SpreadCompute("prepare", [this, n, cpu](const Calibration& c) { return TotalSeconds(PrepareSteps(*data_, c, cpu, 1.0 / n)); });
        SpreadFlow("prepare", SecondsSince(save), [this](const Calibration& c) { return ProcessedBytes(*data_, c); });
        Log("every worker prepared its 1/" + std::to_string(n) + " of the dataset in " + Fixed(SecondsSince(begin), 1) + "s");
        DistAssign();
      });
    });
  }

  // The partitioning steps across the workers for calibration `c`.
  // (`run`: DistRun(), read once by a caller that evaluates this at the ends of the ranges.)
  std::vector<PartitionStep> DistSteps(const Calibration& c, const ParmetisRun& run) const {
    const int n = static_cast<int>(workers_.size());
    if (Chunked()) return ChunkedAssignmentSteps(*data_, c, Options(n), run);
    return ParmetisSteps(*data_, c, Options(n), run);
  }
  // Every step a worker runs for the partitioning, preparation and dispatch included, on workers
  // of speed `cpu` (Machines().cpu, read once by the caller: the range evaluates this many times).
  double DistPeak(const Calibration& c, const ParmetisRun& run, double cpu) const {
    const int n = static_cast<int>(workers_.size());
    double peak = PeakBytes(DistSteps(c, run));
    if (Chunked()) peak = std::max(peak, PeakBytes(DispatchDataSteps(*data_, c, n, cpu)));
    else peak = std::max(peak, PeakBytes(PrepareSteps(*data_, c, cpu, 1.0 / n)));
    return peak;
  }

  void DistAssign() {
    partition_begin_ = Now();
    const int n = static_cast<int>(workers_.size());
    const WorkerMachines machines = Machines();
    SpreadPeak(dgl::kRoleWorker,
               [this, run = DistRun(), cpu = machines.cpu](const Calibration& c) { return DistPeak(c, run, cpu); },
               machines.limit);
    std::vector<PartitionStep> steps = DistSteps(cal_, DistRun());
    if (!Random()) {
      ParmetisCheck check = CheckParmetis(*data_, cal_, n);
      if (check.overflows) {
        while (!steps.empty() && steps.back().name != "ParMETIS") steps.pop_back();
        if (!steps.empty()) steps.back().seconds = 1.0;
        return RunWorkerSteps(std::move(steps), 0, [this, check] {
          Record("partition", partition_begin_);
          Fail("Fatal error in PMPI_Alltoallv: Invalid count: a rank holds " + Fixed(check.ints_per_rank / 1e9, 2) +
               " G ints of message data, above MPI's 2^31 int count limit");
        });
      }
    }
    RunWorkerSteps(std::move(steps), 0, [this] {
      Record("partition", partition_begin_);
      SpreadCompute("partition", [this, run = DistRun()](const Calibration& c) { return TotalSeconds(DistSteps(c, run)); });
      if (Chunked()) return DispatchData();
      Shuffle();
    });
  }

  // The operator's DistParMETIS: each rank's slice of every part goes to that part's owner.
  void Shuffle() {
    const int n = static_cast<int>(workers_.size());
    const double total = TotalPartBytes(cal_, n);
    const Micros begin = Now();
    std::vector<FlowSpec> flows;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        if (i != j)
          flows.push_back({.src = Endpoint::Memory(worker_nodes_[i]), .dst = Endpoint::Disk(worker_nodes_[j]),
                           .bytes = total / n / n});
    Flows(std::move(flows), [this, begin, total, n] {
      Record("dispatch", begin);
      SpreadFlow("dispatch", SecondsSince(begin), [this, n](const Calibration& c) { return TotalPartBytes(c, n); });
      Log("Shuffled " + GB(total) + " of partitions to their owners in " + Fixed(SecondsSince(begin), 1) + "s");
      ReleaseWorkers();
      ctx_->Exit(0);
    });
  }

  // dispatch_data.py: load the chunks, shuffle edges and features to their owners (all to all),
  // build the partitions, save them on each worker.
  void DispatchData() {
    const int n = static_cast<int>(workers_.size());
    const Micros begin = Now();
    std::vector<PartitionStep> steps = DispatchDataSteps(*data_, cal_, n, Machines().cpu);
    std::vector<PartitionStep> build(steps.begin() + 1, steps.end());
    steps.resize(1);
    RunWorkerSteps(std::move(steps), 0, [this, n, begin, build = std::move(build)]() mutable {
      const Micros shuffle = Now();
      std::vector<FlowSpec> flows;
      const double per_peer = DispatchShuffleBytesPerMachine(*data_, cal_, n) / std::max(1, n - 1);
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
          if (i != j)
            flows.push_back({.src = Endpoint::Memory(worker_nodes_[i]), .dst = Endpoint::Memory(worker_nodes_[j]),
                             .bytes = per_peer});
      Flows(std::move(flows), [this, n, begin, shuffle, build = std::move(build)]() mutable {
        const double shuffled = SecondsSince(shuffle);
        RunWorkerSteps(std::move(build), 0, [this, n, begin, shuffled] {
          const Micros save = Now();
          std::vector<FlowSpec> writes;
          for (const auto& node : worker_nodes_)
            writes.push_back({.src = Endpoint::Memory(node), .dst = Endpoint::Disk(node), .bytes = TotalPartBytes(cal_, n) / n});
          Flows(std::move(writes), [this, n, begin, shuffled, save] {
            Record("dispatch", begin);
            const double cpu = Machines().cpu;
            SpreadCompute("dispatch", [this, n, cpu](const Calibration& c) { return TotalSeconds(DispatchDataSteps(*data_, c, n, cpu)); });
            SpreadFlow("dispatch", shuffled, [this, n](const Calibration& c) { return DispatchShuffleBytesPerMachine(*data_, c, n); });
            SpreadFlow("dispatch", SecondsSince(save), [this, n](const Calibration& c) { return TotalPartBytes(c, n); });
            Log("dispatch_data.py: partitions built on their owners in " + Fixed(SecondsSince(begin), 1) + "s");
            ReleaseWorkers();
            ctx_->Exit(0);
          });
        });
      });
    });
  }

  // ---- the launcher: phases 3/5 .. 5/5 --------------------------------------------------------------
  // Part i's files for calibration `c` (DGL-KE: the whole dataset on every worker).
  std::vector<PartFiles> FilesFor(const Calibration& c) const { return FilesFor(c, Sizes(c, parts_)); }
  std::vector<PartFiles> FilesFor(const Calibration& c, const PartSizes& sizes) const {
    const int n = static_cast<int>(workers_.size());
    std::vector<PartFiles> files = PartitionFiles(*data_, c, sizes);
    if (ke_) {
      const double features = c.feature_bytes_per_value * static_cast<double>(data_->feature_dim) *
                              static_cast<double>(data_->nodes);
      for (auto& f : files) f = PartFiles{.graph_bytes = std::max(0.0, RawBytes(*data_, c) - features), .feature_bytes = features};
    }
    files.resize(n, files.empty() ? PartFiles{} : files.back());
    return files;
  }
  double LargestPart(const Calibration& c) const {
    double most = 0;
    for (const PartFiles& f : FilesFor(c)) most = std::max(most, f.total());
    return most;
  }

  void StartLauncher() {
    if (!ResolveWorkers()) return;
    const int n = static_cast<int>(workers_.size());
    if (flags_.num_partitions_given && flags_.num_partitions != n && !ke_)
      return Fail("AssertionError: the number of partitions (" + std::to_string(flags_.num_partitions) +
                  ") must equal the number of machines in the hostfile (" + std::to_string(n) + ")");
    parts_ = ke_ ? Parts() : n;
    WatchWorkers();
    files_ = FilesFor(cal_);
    if (mode_ == "DistParMETIS") {
      Log("Phase 3/5: partitions are in place on the workers (DistParMETIS)");
      return Revise();
    }
    Log("Phase 3/5: dispatch partitions to " + std::to_string(n) + " workers");
    const Micros begin = Now();
    std::vector<FlowSpec> flows;
    for (int i = 0; i < n; ++i)
      flows.push_back({.src = Endpoint::Disk(ctx_->node_name()), .dst = Endpoint::Disk(worker_nodes_[i]),
                       .bytes = files_[i].total()});
    Flows(std::move(flows), [this, begin] {
      Record("dispatch", begin);
      SpreadFlow("dispatch", SecondsSince(begin), [this](const Calibration& c) { return LargestPart(c); });
      Log("Phase 3/5 done in " + Fixed(SecondsSince(begin), 1) + "s");
      Revise();
    });
  }

  // tools/launch.py watches its remote processes: a worker pod that fails or goes away ends the run.
  void WatchWorkers() {
    // A tri-workload launcher watches every pod of the job (servers as workers, samplers and
    // trainers to wait for their replacements).
    kube::ListOptions filter{.namespace_ = ns_,
                             .label_selector = std::string(kJobLabel) + "=" + job_ +
                                               (tri_ ? std::string() : std::string(",") + kTypeLabel + "=" + dgl::kRoleWorker)};
    auto check = [this](const kube::ObjectPtr& pod, bool deleted) {
      if (tri_ && WatchTrainingPod(*pod, deleted)) return;
      if (Str(*pod, {"metadata", "annotations", kEpochAnnotation}) != epoch_) return;
      const std::string name = Str(*pod, {"metadata", "name"});
      if (std::find(workers_.begin(), workers_.end(), name) == workers_.end()) return;
      if (deleted || Str(*pod, {"status", "phase"}) == "Failed" || !Str(*pod, {"metadata", "deletionTimestamp"}).empty())
        Fail("Task failed: " + ServingRole(name) + " " + name + (deleted ? " was deleted" : " failed") + " during the run");
    };
    watch_ = ctx_->Watch("pods", filter,
                         {.on_update = [check](const kube::ObjectPtr&, const kube::ObjectPtr& pod) { check(pod, false); },
                          .on_delete = [check](const kube::ObjectPtr& pod) { check(pod, true); }});
    ScheduleLiveness();
  }
  void ScheduleLiveness() {
    ctx_->After(kLivenessInterval, [this] {
      if (failed_) return;
      for (const auto& w : workers_)
        if (!env_->exec().Find(ns_ + "/" + w)) return Fail("Task failed: lost the connection to " + ServingRole(w) + " " + w);
      for (const auto* pods : {&trainers_, &samplers_})
        for (const auto& p : *pods)
          if (!env_->exec().Find(ns_ + "/" + p)) LoseTrainingPod(p);
      ScheduleLiveness();
    });
  }

  void Revise() {
    Log("Phase 4/5: revise hostfile on every worker (" + std::to_string(workers_.size()) + " machines)");
    Compute(kExecSeconds, [this] {
      Log("Phase 5/5: launch " + std::string(ke_ ? "dglke_dist_train" : flags_.train_entry_point.empty() ? "training"
                                                                                                          : flags_.train_entry_point) +
          ": " + std::to_string(flags_.num_servers) + " server(s) and " + std::to_string(flags_.num_trainers) +
          " trainer(s) per machine");
      const Micros begin = Now();
      Compute(cal_.process_start_seconds, [this, begin] { Load(begin); });
    });
  }

  // The worker's memory while loading and serving part i, the larger of the two, with the graph's
  // split and the partitions' files under `c` given (WorkersPeak splits once for all the workers).
  double WorkerPeak(const Calibration& c, std::size_t i, const PartSizes& sizes,
                    const std::vector<PartFiles>& files) const {
    if (ke_ || i >= sizes.nodes.size()) {
      const PartFiles f = i < files.size() ? files[i] : PartFiles{};
      return f.total() * c.load_graph_copies + Processes().count() * ProcessBytes(c, static_cast<double>(data_->nodes));
    }
    return std::max(WorkerLoadPeakBytes(*data_, c, sizes, i, files[i], Processes()),
                    WorkerServingBytes(*data_, c, sizes, i, Processes()));
  }
  double WorkersPeak(const Calibration& c) const {
    const PartSizes sizes = Sizes(c, parts_);
    const std::vector<PartFiles> files = FilesFor(c, sizes);
    double peak = 0;
    for (std::size_t i = 0; i < workers_.size(); ++i) peak = std::max(peak, WorkerPeak(c, i, sizes, files));
    return peak;
  }

  // The DGL servers load their partition from the worker's disk into shared memory (`begin`: when
  // the processes started).
  void Load(Micros begin) {
    const int n = static_cast<int>(workers_.size());
    SpreadPeak(dgl::kRoleWorker, [this](const Calibration& c) { return WorkersPeak(c); }, Machines().limit);
    auto left = std::make_shared<int>(n);
    for (int i = 0; i < n; ++i) {
      const ExecTarget* t = env_->exec().Find(ns_ + "/" + workers_[i]);
      if (!t) return Fail("Task failed: container not found in " + workers_[i]);
      LoadOne(i, t->cpu_speed, [this, left, begin] {
        if (--*left > 0) return;
        Record("load", begin);
        const double cpu = Machines().cpu;
        SpreadCompute("load", [this, cpu](const Calibration& c) {
          double slowest = 0;
          for (const PartFiles& f : FilesFor(c)) slowest = std::max(slowest, ServerLoad(f, c, 0, cpu).total());
          return c.process_start_seconds + slowest;
        });
        Log("servers loaded their partitions in " + Fixed(SecondsSince(begin), 1) + "s");
        if (tri_) return StartTriTraining();
        training_begin_ = Now();
        Train(0);
      });
    }
  }
  void LoadOne(int i, double cpu, std::function<void()> done) {
    const PartFiles f = files_[i];
    const std::string& node = worker_nodes_[i];
    const LoadSteps steps = ServerLoad(f, cal_, 0, cpu);
    const PartSizes sizes = Sizes(cal_, parts_);
    const double load_peak = WorkerPeak(cal_, i, sizes, files_);
    const double serving = tri_ && serving_roles_[i] == dgl::kRoleServer ? ServerPodBytes(f)
                           : ke_ || static_cast<std::size_t>(i) >= sizes.nodes.size()
                               ? load_peak
                               : WorkerServingBytes(*data_, cal_, sizes, i, Processes());
    SetWorkerMemory(workers_[i], f.graph_bytes);
    FlowSpec graph{.src = Endpoint::Disk(node), .dst = Endpoint::Memory(node), .bytes = f.graph_bytes,
                   .rate_cap = cal_.load_graph_bytes_per_second * cpu};
    Flows({graph}, [this, i, f, steps, node, cpu, load_peak, serving, done = std::move(done)]() mutable {
      Compute(steps.format + steps.graph_to_shm, [this, i, f, steps, node, cpu, load_peak, serving,
                                                  done = std::move(done)]() mutable {
        SetWorkerMemory(workers_[i], f.graph_bytes + f.feature_bytes);
        FlowSpec feats{.src = Endpoint::Disk(node), .dst = Endpoint::Memory(node), .bytes = f.feature_bytes,
                       .rate_cap = cal_.load_feats_bytes_per_second * cpu};
        Flows({feats}, [this, i, steps, load_peak, serving, done = std::move(done)]() mutable {
          SetWorkerMemory(workers_[i], load_peak);
          Compute(steps.feats_to_shm, [this, i, serving, done = std::move(done)] {
            SetWorkerMemory(workers_[i], serving);
            done();
          });
        });
      });
    });
  }

  EpochConfig TrainingConfig(int machines) const {
    const WorkerMachines m = Machines();
    return {.machines = machines, .trainers = flags_.num_trainers, .samplers = flags_.num_samplers, .gpus = m.gpus,
            .batch = flags_.batch_size, .cpu_speed = m.cpu};
  }
  double KeSeconds(const Calibration& c, double cpu) const {
    return static_cast<double>(c.ke_max_step * c.ke_batch_size) * c.ke_seconds_per_triple / cpu;
  }

  void Train(int epoch) {
    if (failed_) return;
    if (tri_) return TrainTri(epoch);
    const int n = static_cast<int>(workers_.size());
    const int epochs = ke_ ? 1 : Epochs();
    const EpochConfig config = TrainingConfig(n);
    if (epoch == 0) {
      // Every epoch is alike: its range once, times the epochs.
      const Estimate one = ke_ ? Est([this, config](const Calibration& c) { return KeSeconds(c, config.cpu_speed); })
                               : Est([this, config](const Calibration& c) {
                                   return TrainingEpoch(*data_, c, Sizes(c, parts_), config).total;
                                 });
      epoch_spread_ = {epochs * (one.low - one.value), epochs * (one.high - one.value)};
    }
    if (epoch >= epochs) {
      Record("training", training_begin_);
      env_->predictions().AddStage(JobKey(), "training", epoch_spread_.first, epoch_spread_.second);
      Log(ke_ ? "dglke_dist_train finished" : "Phase 5/5 done: training finished");
      ReleaseWorkers();
      ctx_->Exit(0);
      return;
    }
    const Micros begin = Now();
    std::vector<FlowSpec> flows;
    double compute = 0;
    if (ke_) {
      compute = KeSeconds(cal_, config.cpu_speed);
    } else {
      EpochTime cost = TrainingEpoch(*data_, cal_, Sizes(cal_, parts_), config);
      compute = cost.total;
      // Remote features: each machine pulls from its neighbour in a ring (NICs contend as all-to-all
      // would on a non-blocking switch).
      if (n > 1 && cost.remote_bytes_per_machine > 0)
        for (int i = 0; i < n; ++i)
          flows.push_back({.src = Endpoint::Memory(worker_nodes_[(i + 1) % n]), .dst = Endpoint::Memory(worker_nodes_[i]),
                           .bytes = cost.remote_bytes_per_machine});
    }
    auto left = std::make_shared<int>(2);
    auto next = [this, left, epoch, begin] {
      if (--*left > 0) return;
      Log(ke_ ? "dglke_dist_train: " + std::to_string(cal_.ke_max_step) + " steps in " + Fixed(SecondsSince(begin), 3) + "s"
              : "Epoch " + std::to_string(epoch) + " | Epoch Time(s) " + Fixed(SecondsSince(begin), 4));
      Train(epoch + 1);
    };
    Compute(compute, next);
    Flows(std::move(flows), next);
  }

  // ---- tri-workload jobs: servers, samplers and trainers in pods of their own ----------------------
  // The hostfile lists the pods that hold a partition (workers, then servers); trainerfile and
  // samplerfile the trainer and sampler pods. A lost server breaks the run as a lost worker does; a
  // lost sampler or trainer stops the training, which starts again (train_dist.py keeps no
  // checkpoint) once its replacement runs, while the servers keep their loaded partitions.
  // "server" for a tri-workload job's server pods, else "worker".
  std::string ServingRole(const std::string& pod) const {
    for (std::size_t i = 0; i < workers_.size() && i < serving_roles_.size(); ++i)
      if (workers_[i] == pod && serving_roles_[i] == dgl::kRoleServer) return dgl::kRoleServer;
    return dgl::kRoleWorker;
  }

  bool ResolveTriWorkload() {
    serving_roles_.clear();
    for (const auto& w : workers_) serving_roles_.push_back(PlaceOfPod(w).role);
    trainers_ = Column(ConfigData(dgl::kConfigTrainerfile), 2);
    samplers_ = Column(ConfigData(dgl::kConfigSamplerfile), 2);
    tri_ = !trainers_.empty() || !samplers_.empty() ||
           std::count(serving_roles_.begin(), serving_roles_.end(), dgl::kRoleServer) > 0;
    for (auto [pods, nodes] : {std::pair{&trainers_, &trainer_nodes_}, std::pair{&samplers_, &sampler_nodes_}}) {
      nodes->clear();
      for (const auto& p : *pods) {
        PodPlace place = PlaceOfPod(p);
        if (place.node.empty() || !env_->exec().Find(ns_ + "/" + p)) {
          Fail("error: unable to upgrade connection: pod " + p + " not found or not running");
          return false;
        }
        nodes->push_back(place.node);
        training_pod_uids_[p] = place.uid;
      }
    }
    return true;
  }

  // A watched pod event for a sampler or trainer: true when it was one (handled here).
  bool WatchTrainingPod(const json& pod, bool deleted) {
    const std::string name = Str(pod, {"metadata", "name"});
    if (std::find(trainers_.begin(), trainers_.end(), name) == trainers_.end() &&
        std::find(samplers_.begin(), samplers_.end(), name) == samplers_.end()) {
      return false;
    }
    const std::string phase = Str(pod, {"status", "phase"});
    const bool gone = deleted || phase == "Failed" || !Str(pod, {"metadata", "deletionTimestamp"}).empty();
    if (gone && Str(pod, {"metadata", "uid"}) == training_pod_uids_[name]) LoseTrainingPod(name);
    if (!gone && phase == "Running") TrainingPodBack(name, Str(pod, {"metadata", "uid"}));
    return true;
  }

  void LoseTrainingPod(const std::string& name) {
    if (failed_ || lost_.count(name)) return;
    lost_.insert(name);
    Log("Lost " + name + ": the training stops until its replacement runs; the servers keep their partitions");
    if (training_) Record("training", training_begin_);
    training_ = false;
    ++generation_;
  }

  void TrainingPodBack(const std::string& name, const std::string& uid) {
    if (!lost_.count(name) || !env_->exec().Find(ns_ + "/" + name)) return;
    lost_.erase(name);
    training_pod_uids_[name] = uid;
    const std::string node = PlaceOfPod(name).node;
    for (auto [pods, nodes] : {std::pair{&trainers_, &trainer_nodes_}, std::pair{&samplers_, &sampler_nodes_}})
      for (std::size_t i = 0; i < pods->size(); ++i)
        if ((*pods)[i] == name) (*nodes)[i] = node;
    Log(name + " runs again" + (lost_.empty() ? "" : "; waiting for " + std::to_string(lost_.size()) + " more"));
    if (lost_.empty() && loaded_) StartTriTraining();
  }

  // Starts (or starts again) the trainers and samplers, once every one of them runs.
  void StartTriTraining() {
    loaded_ = true;
    if (!lost_.empty() || failed_) return;
    for (const auto& t : trainers_) SetWorkerMemory(t, TrainerPodBytes(cal_, *data_, flags_.num_trainers));
    for (const auto& m : samplers_) SetWorkerMemory(m, SamplerPodBytes(cal_, flags_.num_samplers));
    Log("launching " + std::to_string(trainers_.size()) + " trainer pod(s) and " + std::to_string(samplers_.size()) +
        " sampler pod(s) against " + std::to_string(workers_.size()) + " pod(s) holding partitions");
    const int generation = generation_;
    Compute(cal_.process_start_seconds, [this, generation] {
      if (generation != generation_) return;
      training_ = true;
      training_begin_ = Now();
      TrainTri(0);
    });
  }

  TriConfig TriConfigNow() const {
    TriConfig config{.trainers_per_pod = flags_.num_trainers, .samplers = flags_.num_samplers};
    config.trainer_pods = static_cast<int>(trainers_.size());
    config.sampler_pods = static_cast<int>(samplers_.size());
    for (const auto& role : serving_roles_) (role == dgl::kRoleServer ? config.server_pods : config.worker_pods)++;
    double cpu = 1e30;
    int gpus = -1;
    auto consider = [&](const std::string& pod) {
      if (const ExecTarget* t = env_->exec().Find(ns_ + "/" + pod)) {
        cpu = std::min(cpu, t->cpu_speed);
        gpus = gpus < 0 ? t->gpus : std::min(gpus, t->gpus);
      }
    };
    for (std::size_t i = 0; i < workers_.size(); ++i)
      if (serving_roles_[i] != dgl::kRoleServer) consider(workers_[i]);
    for (const auto& t : trainers_) consider(t);
    config.cpu_speed = cpu > 1e29 ? 1.0 : cpu;
    config.gpus = std::max(0, gpus);
    return config;
  }

  // The epoch's flows: features to the training pods, sampled structure to the samplers (or the
  // trainer pods) from the serving pods, and the samplers' blocks to the training pods.
  std::vector<FlowSpec> TriFlows(const TriEpochCost& cost) const {
    std::vector<FlowSpec> flows;
    auto add = [&](const std::string& from, const std::string& to, double bytes) {
      if (bytes > 0) flows.push_back({.src = Endpoint::Memory(from), .dst = Endpoint::Memory(to), .bytes = bytes});
    };
    const std::size_t serving = worker_nodes_.size();
    std::vector<std::string> training;
    for (std::size_t i = 0; i < serving; ++i) {
      if (serving_roles_[i] == dgl::kRoleServer) continue;
      training.push_back(worker_nodes_[i]);
      for (std::size_t j = 0; j < serving; ++j)
        if (j != i) add(worker_nodes_[j], worker_nodes_[i], cost.worker_remote_bytes / static_cast<double>(serving - 1));
    }
    for (const auto& node : trainer_nodes_) {
      training.push_back(node);
      for (const auto& server : worker_nodes_)
        add(server, node, (cost.trainer_feature_bytes + cost.trainer_structure_bytes) / static_cast<double>(serving));
    }
    for (const auto& node : sampler_nodes_) {
      for (const auto& server : worker_nodes_) add(server, node, cost.sampler_structure_bytes / static_cast<double>(serving));
      for (const auto& to : training) add(node, to, cost.sampler_block_bytes / static_cast<double>(training.size()));
    }
    return flows;
  }

  void TrainTri(int epoch) {
    if (failed_ || !training_) return;
    if (epoch >= Epochs()) {
      Record("training", training_begin_);
      training_ = false;
      Log("Phase 5/5 done: training finished");
      ReleaseWorkers();
      ctx_->Exit(0);
      return;
    }
    const TriEpochCost cost = TriEpoch(*data_, cal_, Sizes(cal_, parts_), TriConfigNow());
    const Micros begin = Now();
    const int generation = generation_;
    auto left = std::make_shared<int>(2);
    auto next = [this, left, epoch, begin, generation, compute = cost.compute_seconds] {
      if (generation != generation_ || --*left > 0) return;
      Log("Epoch " + std::to_string(epoch) + " | Epoch Time(s) " + Fixed(static_cast<double>(Now() - begin) / kSecond, 4) +
          " | compute " + Fixed(compute, 4));
      TrainTri(epoch + 1);
    };
    Compute(cost.compute_seconds, next);
    Flows(TriFlows(cost), next);
  }

  // ---- Skip: the launcher downloads, prepares, loads and trains alone ---------------------------------
  // One Python process holding the processed dataset (no DGL servers, no sampler processes).
  double LocalPeak(const Calibration& c) const {
    return std::max(PeakBytes(PrepareSteps(*data_, c, cpu_)),
                    ProcessedBytes(*data_, c) + ProcessBytes(c, static_cast<double>(data_->nodes)));
  }

  void StartLocal() {
    Log("[" + flags_.program + "] launcher workload: python " + flags_.train_entry_point);
    SpreadPeak(dgl::kRoleLauncher, [this](const Calibration& c) { return LocalPeak(c); }, OwnLimit());
    Download({Endpoint::Disk(ctx_->node_name())}, [this](const Calibration& c) { return ArchiveBytes(*data_, c); },
             [this] { PrepareLocal([this] { LoadLocal(); }); });
  }
  void LoadLocal() {
    const Micros begin = Now();
    const double bytes = ProcessedBytes(*data_, cal_);
    FlowSpec read{.src = Endpoint::Disk(ctx_->node_name()), .dst = Endpoint::Memory(ctx_->node_name()), .bytes = bytes,
                  .rate_cap = cal_.load_graph_bytes_per_second * cpu_};
    Compute(cal_.process_start_seconds, [this, read, begin, bytes]() mutable {
      const Micros reading = Now();
      Flows({read}, [this, begin, bytes, reading] {
        const double read_seconds = SecondsSince(reading);
        Compute(bytes * cal_.format_seconds_per_byte / cpu_, [this, begin, read_seconds] {
          ctx_->SetMemoryUsage(static_cast<std::int64_t>(LocalPeak(cal_)));
          Record("load", begin);
          SpreadCompute("load", [this](const Calibration& c) {
            return c.process_start_seconds + ProcessedBytes(*data_, c) * c.format_seconds_per_byte / cpu_;
          });
          SpreadFlow("load", read_seconds, [this](const Calibration& c) { return ProcessedBytes(*data_, c); });
          training_begin_ = Now();
          TrainLocal(0);
        });
      });
    });
  }
  void TrainLocal(int epoch) {
    const EpochConfig config{.machines = 1, .trainers = flags_.num_trainers, .samplers = flags_.num_samplers,
                             .gpus = static_cast<int>(ContainerMilli(ctx_->container(), kResourceGpu) / 1000),
                             .batch = flags_.batch_size, .cpu_speed = cpu_};
    if (epoch >= Epochs()) {
      Record("training", training_begin_);
      const Estimate one = Est([this, config](const Calibration& c) { return TrainingEpoch(*data_, c, Sizes(c, 1), config).total; });
      env_->predictions().AddStage(JobKey(), "training", Epochs() * (one.low - one.value), Epochs() * (one.high - one.value));
      Log("training finished");
      ctx_->Exit(0);
      return;
    }
    const EpochTime cost = TrainingEpoch(*data_, cal_, Sizes(cal_, 1), config);
    Compute(cost.total, [this, epoch, cost] {
      Log("Epoch " + std::to_string(epoch) + " | Epoch Time(s) " + Fixed(cost.total, 4));
      TrainLocal(epoch + 1);
    });
  }

  std::shared_ptr<const DglEnvironment> env_;
  const Calibration& cal_;
  std::unique_ptr<ContainerProgram> delegate_;
  std::unique_ptr<DglWorker> worker_;
  ProgramContext* ctx_ = nullptr;
  DglFlags flags_;
  bool ke_ = false;
  std::string ns_, job_, epoch_, phase_env_, placement_, mode_;
  double cpu_ = 1.0;
  const DatasetInfo* data_ = nullptr;
  DatasetInfo measured_;
  Micros partition_begin_ = 0, training_begin_ = 0;
  double peak_ = 0;
  double overflow_ints_ = 0;
  double partition_bytes_ = 0;
  int lead_attempts_ = 0;
  int parts_ = 1;
  std::pair<double, double> epoch_spread_;
  std::vector<std::string> workers_, worker_nodes_;
  // Tri-workload jobs: the serving pods' roles (worker or server, hostfile order), the trainer and
  // sampler pods with their nodes and uids, those lost and awaited, and the training's generation
  // (bumped when it stops, so that the callbacks of the interrupted epoch do nothing).
  bool tri_ = false;
  std::vector<std::string> serving_roles_;
  std::vector<std::string> trainers_, trainer_nodes_, samplers_, sampler_nodes_;
  std::map<std::string, std::string> training_pod_uids_;
  std::set<std::string> lost_;
  bool loaded_ = false, training_ = false;
  int generation_ = 0;
  std::vector<PartFiles> files_;
  std::unique_ptr<ProgramWatch> watch_;
  bool failed_ = false;
};

}  // namespace

std::unique_ptr<ContainerProgram> MakeDglRunProgram(std::shared_ptr<const DglEnvironment> env) {
  return std::make_unique<DglRun>(std::move(env));
}

std::unique_ptr<ContainerProgram> MakeDglWorkerProgram(std::shared_ptr<const DglEnvironment> env) {
  return std::make_unique<DglWorker>(std::move(env));
}

void RegisterDglPrograms(ProgramRegistry& registry, std::shared_ptr<const DglEnvironment> env) {
  registry.Register(kDglRunProgram, [env] { return MakeDglRunProgram(env); });
  registry.Register(kDglWorkerProgram, [env] { return MakeDglWorkerProgram(env); });
  for (const char* program : {"dglrun", "dglkerun"}) {
    const std::string p = program;
    for (const std::string& glob : {p, p + " *", "*/" + p, "*/" + p + " *", "* " + p, "* " + p + " *"})
      registry.MatchCommand(glob, kDglRunProgram);
  }
  for (const char* glob : {"sleep", "sleep *", "*/sleep", "*/sleep *"}) registry.MatchCommand(glob, kDglWorkerProgram);
}

}  // namespace sim::dglmodels
