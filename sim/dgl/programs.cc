#include "sim/dgl/programs.h"

#include "fakeapi/client/json_path.h"
#include "fakeapi/client/quantity.h"
#include "operator/api/types.h"
#include "operator/api/vocabulary.h"
#include "sim/cluster/cluster.h"
#include "sim/dgl/flags.h"
#include "sim/dgl/models.h"
#include "sim/dgl/tri_workload.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <sstream>

namespace sim::dglmodels {

using nlohmann::json;

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

std::string Str(const json& obj, std::initializer_list<const char*> path) {
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
    for (const auto& e : flags_.errors) Log(flags_.program + ": error: argument " + e);
    if (!flags_.errors.empty()) {
      ctx.Exit(2);
      return;
    }
    DglEnvironment::Match match = env_->Find(ns_ + "/" + job_, Str(pod, {"metadata", "annotations", kDatasetAnnotation}),
                                             flags_.dataset_url, flags_.graph_name);
    data_ = match.dataset;
    Log("[" + flags_.program + "] dataset " + data_->name + " (" + std::to_string(data_->nodes) + " nodes, " +
        std::to_string(data_->edges) + " edges, feature dim " + std::to_string(data_->feature_dim) + ")" +
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
  bool Balance() const { return flags_.balance_train || flags_.balance_edges; }
  int Epochs() const { return flags_.num_epochs > 0 ? flags_.num_epochs : cal_.default_epochs; }
  PartSizes Sizes(int parts) const { return SplitGraph(*data_, cal_, parts, Random()); }
  double TotalPartBytes(int parts) const {
    double total = 0;
    for (const PartFiles& f : PartitionFiles(*data_, cal_, Sizes(parts))) total += f.total();
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

  // The ConfigMap's `key` (hostfile, leadfile); "" when absent.
  std::string ConfigData(const std::string& key) {
    auto cm = ctx_->client().Get("configmaps", ns_, dgl::ConfigMapName(job_));
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
  std::string NodeOfPod(const std::string& name) {
    auto pod = ctx_->client().Get("pods", ns_, name);
    if (!pod.ok()) return "";
    return Str(**pod, {"spec", "nodeName"});
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
      std::string node = NodeOfPod(w);
      if (node.empty()) {
        Fail("error: unable to upgrade connection: pod " + w + " not found or not scheduled");
        return false;
      }
      worker_nodes_.push_back(node);
    }
    return ResolveTriWorkload();
  }

  // ---- phase 1/5 and 2/5 on the partitioner -------------------------------------------------------
  void StartPartitioner() {
    Log("Phase 1/5: " + std::string(ke_ ? "dglke_partition" : flags_.partition_entry_point.empty() ? "partition_graph"
                                                                                                     : flags_.partition_entry_point) +
        " --graph_name " + flags_.graph_name + " --num_parts " + std::to_string(Parts()) + " (" + mode_ + ")");
    Download(Endpoint::Disk(ctx_->node_name()), data_->RawBytes(cal_), [this] { RunPartitionSteps(); });
  }

  void Download(Endpoint to, double bytes, std::function<void()> next) {
    const Micros begin = Now();
    std::string url = data_->url.empty() ? flags_.dataset_url : data_->url;
    Log("Downloading " + (url.empty() ? data_->name : url) + " (" + GB(bytes) + ")");
    FlowSpec spec{.src = Endpoint::Storage(), .dst = std::move(to), .bytes = bytes};
    Flows({spec}, [this, begin, next = std::move(next)] {
      Record("download", begin);
      Log("Downloaded in " + Fixed(static_cast<double>(Now() - begin) / kSecond, 1) + "s");
      next();
    });
  }

  void RunPartitionSteps() {
    partition_begin_ = Now();
    std::vector<PartitionStep> steps;
    if (mode_ == "ParMETIS" && !Random()) {
      // pm_dglpart: one rank per CPU of the container's limit, all on this machine.
      int ranks = static_cast<int>(std::max<std::int64_t>(1, ContainerMilli(ctx_->container(), "cpu") / 1000));
      Log("mpirun -np " + std::to_string(ranks) + " pm_dglpart " + flags_.graph_name + " " +
          std::to_string(std::max(1, Parts() / ranks)));
      steps = ParmetisSteps(*data_, cal_, ranks, 1, cpu_);
      ParmetisCheck check = CheckParmetis(*data_, cal_, 1);
      if (check.overflows) overflow_ints_ = check.ints_per_rank;
    } else {
      steps = SspSteps(*data_, cal_, Parts(), Balance() && !ke_, Random(), cpu_);
    }
    RunSteps(std::move(steps), 0, [this] { SavePartitions(); });
  }

  // Runs steps[i..]: each reaches its peak memory halfway through.
  void RunSteps(std::vector<PartitionStep> steps, std::size_t i, std::function<void()> done) {
    if (i >= steps.size()) return done();
    PartitionStep step = steps[i];
    if (step.name == "ParMETIS" && overflow_ints_ > 0) {
      Compute(1.0, [this] {
        Record("partition", partition_begin_);
        Fail("Fatal error in PMPI_Alltoallv: Invalid count, error stack: MPI_Alltoallv: a rank holds " +
             Fixed(overflow_ints_ / 1e9, 2) + " G ints of message data, above MPI's 2^31 int count limit\n"
             "pm_dglpart: ParMETIS failed (ParMETIS issue #8: spread the ranks over more machines)");
      });
      return;
    }
    ctx_->After(ToMicros(step.seconds / 2), [this, step] { ctx_->SetMemoryUsage(static_cast<std::int64_t>(step.peak_bytes)); });
    peak_ = std::max(peak_, step.peak_bytes);
    Compute(step.seconds, [this, steps = std::move(steps), i, step, done = std::move(done)]() mutable {
      Log(step.name + ": " + Fixed(step.seconds, 3) + " seconds, peak memory: " + GB(peak_));
      RunSteps(std::move(steps), i + 1, std::move(done));
    });
  }

  void SavePartitions() {
    const double bytes = TotalPartBytes(Parts()) + (ke_ ? data_->RawBytes(cal_) : 0);
    const Micros begin = Now();
    FlowSpec spec{.src = Endpoint::Memory(ctx_->node_name()), .dst = Endpoint::Disk(ctx_->node_name()), .bytes = bytes};
    Flows({spec}, [this, begin, bytes] {
      Log("Save partitions: " + Fixed(static_cast<double>(Now() - begin) / kSecond, 3) + " seconds (" + GB(bytes) + ")");
      Record("partition", partition_begin_);
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
    std::string node = leads.empty() ? "" : NodeOfPod(leads[0]);
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
      Log("Phase 2/5 done in " + Fixed(static_cast<double>(Now() - begin) / kSecond, 1) + "s");
      ctx_->Exit(0);
    });
  }

  // ---- MSP: ParMETIS across the workers (the launcher's dist-partitioner init container) -----------
  void StartDistPartitioner() {
    if (!ResolveWorkers()) return;
    const int n = static_cast<int>(workers_.size());
    for (const auto& w : workers_)
      if (!env_->exec().Find(ns_ + "/" + w)) return Fail("error: unable to upgrade connection: container not found (" + w + ")");
    Log("DistParMETIS: pm_dglpart over " + std::to_string(n) + " workers, one rank each, " + std::to_string(Parts()) +
        " parts");
    const Micros begin = Now();
    std::vector<FlowSpec> reads;
    for (const auto& node : worker_nodes_)
      reads.push_back({.src = Endpoint::Storage(), .dst = Endpoint::Disk(node), .bytes = data_->RawBytes(cal_) / n});
    Flows(std::move(reads), [this, begin, n] {
      Record("download", begin);
      Log("Every rank read its 1/" + std::to_string(n) + " of the dataset in " +
          Fixed(static_cast<double>(Now() - begin) / kSecond, 1) + "s");
      partition_begin_ = Now();
      double cpu = 1e30;
      for (const auto& w : workers_)
        if (const ExecTarget* t = env_->exec().Find(ns_ + "/" + w)) cpu = std::min(cpu, t->cpu_speed);
      if (cpu > 1e29 || cpu <= 0) cpu = 1.0;
      ParmetisCheck check = CheckParmetis(*data_, cal_, n);
      if (check.overflows) overflow_ints_ = check.ints_per_rank;
      RunDistSteps(ParmetisSteps(*data_, cal_, n, n, cpu), 0);
    });
  }

  void RunDistSteps(std::vector<PartitionStep> steps, std::size_t i) {
    if (i >= steps.size()) return Shuffle();
    PartitionStep step = steps[i];
    if (step.name == "ParMETIS" && overflow_ints_ > 0) {
      Compute(1.0, [this] {
        Record("partition", partition_begin_);
        Fail("Fatal error in PMPI_Alltoallv: Invalid count: a rank holds " + Fixed(overflow_ints_ / 1e9, 2) +
             " G ints of message data, above MPI's 2^31 int count limit");
      });
      return;
    }
    ctx_->After(ToMicros(step.seconds / 2), [this, step] {
      for (const auto& w : workers_) SetWorkerMemory(w, step.peak_bytes);
    });
    Compute(step.seconds, [this, steps = std::move(steps), i, step]() mutable {
      Log(step.name + ": " + Fixed(step.seconds, 3) + " seconds, peak memory per rank: " + GB(step.peak_bytes));
      RunDistSteps(std::move(steps), i + 1);
    });
  }

  // Each rank's slice of every part goes to that part's owner.
  void Shuffle() {
    Record("partition", partition_begin_);
    const int n = static_cast<int>(workers_.size());
    const double total = TotalPartBytes(n);
    const Micros begin = Now();
    std::vector<FlowSpec> flows;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        if (i != j)
          flows.push_back({.src = Endpoint::Memory(worker_nodes_[i]), .dst = Endpoint::Disk(worker_nodes_[j]),
                           .bytes = total / n / n});
    Flows(std::move(flows), [this, begin, total] {
      Record("dispatch", begin);
      Log("Shuffled " + GB(total) + " of partitions to their owners in " +
          Fixed(static_cast<double>(Now() - begin) / kSecond, 1) + "s");
      ReleaseWorkers();
      ctx_->Exit(0);
    });
  }

  // ---- the launcher: phases 3/5 .. 5/5 --------------------------------------------------------------
  void StartLauncher() {
    if (!ResolveWorkers()) return;
    const int n = static_cast<int>(workers_.size());
    if (flags_.num_partitions_given && flags_.num_partitions != n && !ke_)
      return Fail("AssertionError: the number of partitions (" + std::to_string(flags_.num_partitions) +
                  ") must equal the number of machines in the hostfile (" + std::to_string(n) + ")");
    parts_ = ke_ ? Parts() : n;
    WatchWorkers();
    files_ = PartitionFiles(*data_, cal_, Sizes(parts_));
    if (ke_) {
      // dglkerun's copy_batch: the whole dataset to every worker.
      for (auto& f : files_) f = PartFiles{.graph_bytes = data_->RawBytes(cal_) - data_->FeatureBytes(cal_),
                                           .feature_bytes = data_->FeatureBytes(cal_)};
    }
    files_.resize(n, files_.empty() ? PartFiles{} : files_.back());
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
      Log("Phase 3/5 done in " + Fixed(static_cast<double>(Now() - begin) / kSecond, 1) + "s");
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
      Compute(cal_.process_start_seconds, [this] { Load(); });
    });
  }

  // The DGL servers load their partition from the worker's disk into shared memory.
  void Load() {
    const Micros begin = Now();
    const int n = static_cast<int>(workers_.size());
    auto left = std::make_shared<int>(n);
    for (int i = 0; i < n; ++i) {
      const ExecTarget* t = env_->exec().Find(ns_ + "/" + workers_[i]);
      if (!t) return Fail("Task failed: container not found in " + workers_[i]);
      LoadOne(i, t->cpu_speed, [this, left, begin] {
        if (--*left > 0) return;
        Record("load", begin);
        Log("servers loaded their partitions in " + Fixed(static_cast<double>(Now() - begin) / kSecond, 1) + "s");
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
    SetWorkerMemory(workers_[i], f.graph_bytes);
    FlowSpec graph{.src = Endpoint::Disk(node), .dst = Endpoint::Memory(node), .bytes = f.graph_bytes,
                   .rate_cap = cal_.load_graph_bytes_per_second * cpu};
    Flows({graph}, [this, i, f, steps, node, cpu, done = std::move(done)]() mutable {
      Compute(steps.format + steps.graph_to_shm, [this, i, f, steps, node, cpu, done = std::move(done)]() mutable {
        SetWorkerMemory(workers_[i], f.graph_bytes + f.feature_bytes);
        FlowSpec feats{.src = Endpoint::Disk(node), .dst = Endpoint::Memory(node), .bytes = f.feature_bytes,
                       .rate_cap = cal_.load_feats_bytes_per_second * cpu};
        Flows({feats}, [this, i, f, steps, done = std::move(done)]() mutable {
          SetWorkerMemory(workers_[i], WorkerLoadPeakBytes(f));
          Compute(steps.feats_to_shm, [this, i, f, done = std::move(done)] {
            SetWorkerMemory(workers_[i], tri_ && serving_roles_[i] == dgl::kRoleServer
                                             ? ServerPodBytes(f)
                                             : WorkerServingBytes(f, cal_, flags_.num_trainers));
            done();
          });
        });
      });
    });
  }

  void Train(int epoch) {
    if (failed_) return;
    if (tri_) return TrainTri(epoch);
    const int n = static_cast<int>(workers_.size());
    if (epoch >= (ke_ ? 1 : Epochs())) {
      Record("training", training_begin_);
      Log(ke_ ? "dglke_dist_train finished" : "Phase 5/5 done: training finished");
      ReleaseWorkers();
      ctx_->Exit(0);
      return;
    }
    TrainConfig config{.machines = n, .trainers = flags_.num_trainers, .samplers = flags_.num_samplers};
    double cpu = 1e30;
    int gpus = 0;
    for (const auto& w : workers_)
      if (const ExecTarget* t = env_->exec().Find(ns_ + "/" + w)) {
        cpu = std::min(cpu, t->cpu_speed);
        gpus = t->gpus;
      }
    config.cpu_speed = cpu > 1e29 ? 1.0 : cpu;
    config.gpus = gpus;
    const Micros begin = Now();
    std::vector<FlowSpec> flows;
    double compute = 0;
    if (ke_) {
      compute = static_cast<double>(cal_.ke_max_step * cal_.ke_batch_size) * cal_.ke_seconds_per_triple / config.cpu_speed;
    } else {
      EpochCost cost = Epoch(*data_, cal_, Sizes(parts_), config);
      compute = cost.compute_seconds;
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
      Log(ke_ ? "dglke_dist_train: " + std::to_string(cal_.ke_max_step) + " steps in " +
                    Fixed(static_cast<double>(Now() - begin) / kSecond, 3) + "s"
              : "Epoch " + std::to_string(epoch) + " | Epoch Time(s) " +
                    Fixed(static_cast<double>(Now() - begin) / kSecond, 4));
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
    for (const auto& t : trainers_) SetWorkerMemory(t, TrainerPodBytes(cal_, flags_.num_trainers));
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
    const TriEpochCost cost = TriEpoch(*data_, cal_, Sizes(parts_), TriConfigNow());
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

  // ---- Skip: the launcher trains alone ---------------------------------------------------------------
  void StartLocal() {
    Log("[" + flags_.program + "] launcher workload: python " + flags_.train_entry_point);
    Download(Endpoint::Disk(ctx_->node_name()), data_->RawBytes(cal_), [this] {
      const Micros begin = Now();
      const double graph = data_->RawBytes(cal_) - data_->FeatureBytes(cal_);
      const double feats = data_->FeatureBytes(cal_);
      const LoadSteps steps = ServerLoad(PartFiles{graph, feats}, cal_, 0, cpu_);
      FlowSpec read{.src = Endpoint::Disk(ctx_->node_name()), .dst = Endpoint::Memory(ctx_->node_name()), .bytes = graph + feats,
                    .rate_cap = cal_.load_graph_bytes_per_second * cpu_};
      Compute(cal_.process_start_seconds, [this, read, begin, steps, graph, feats]() mutable {
        Flows({read}, [this, begin, steps, graph, feats] {
          Compute(steps.format, [this, begin, graph, feats] {
            ctx_->SetMemoryUsage(static_cast<std::int64_t>(graph + feats + cal_.trainer_bytes));
            Record("load", begin);
            training_begin_ = Now();
            TrainLocal(0);
          });
        });
      });
    });
  }
  void TrainLocal(int epoch) {
    if (epoch >= Epochs()) {
      Record("training", training_begin_);
      Log("training finished");
      ctx_->Exit(0);
      return;
    }
    TrainConfig config{.machines = 1, .trainers = flags_.num_trainers, .samplers = flags_.num_samplers,
                       .gpus = static_cast<int>(ContainerMilli(ctx_->container(), kResourceGpu) / 1000),
                       .cpu_speed = cpu_};
    EpochCost cost = Epoch(*data_, cal_, Sizes(1), config);
    Compute(cost.compute_seconds, [this, epoch, cost] {
      Log("Epoch " + std::to_string(epoch) + " | Epoch Time(s) " + Fixed(cost.compute_seconds, 4));
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
