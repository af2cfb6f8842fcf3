// The simulation's parts, built in order and owned in order. See world.h.
#include "sim/harness/run/world.h"

#include "fakeapi/server/rbac_bootstrap.h"
#include "operator/admission/dgljob_admission.h"
#include "operator/api/vocabulary.h"
#include "sim/cluster/autoscaler.h"
#include "sim/cluster/cluster.h"
#include "sim/cluster/kubelet.h"
#include "sim/cluster/node_lifecycle.h"
#include "sim/cluster/pod_gc.h"
#include "sim/harness/run/placements.h"
#include "sim/cluster/operator_actor.h"
#include "sim/cluster/scheduler.h"
#include "sim/dgl/programs.h"
#include "sim/harness/config/units.h"
#include "sim/harness/run/faults.h"
#include "sim/harness/run/invariants.h"
#include "sim/harness/run/job_driver.h"
#include "sim/harness/run/pod_counts.h"
#include "sim/harness/run/recorder.h"
#include "sim/harness/run/unfinished_jobs.h"

#include <utility>

namespace harness {
namespace {

// Watch events the API keeps per resource for resuming watches, sized as kube-apiserver sizes its
// watch cache (k8s.io/apiserver cacher/watch_cache.go): 100 events at first, doubled while the
// oldest is younger than 75 s, halved once a quarter of them is older, at most 100 * 1024. Every
// superseded version the history holds stays in memory: a fixed 10,000 events a resource made most
// of the fleet week's 455 MB (102 MB now). The trade is CPU on runs of a day or a week, which then
// free versions as they go instead of never (reports/performance.md). An informer that
// falls further behind relists on 410 Expired, as against kube-apiserver.
constexpr std::size_t kWatchHistoryMax = 100 * 1024;
constexpr std::size_t kWatchHistoryMin = 100;
constexpr Micros kWatchHistoryFresh = 75 * kube::kSecond;

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

std::shared_ptr<const sim::dglmodels::DglEnvironment> MakeDglEnvironment(const Scenario& scenario) {
  std::vector<sim::dglmodels::DatasetInfo> datasets;
  for (const DatasetSpec& spec : scenario.datasets) {
    sim::dglmodels::DatasetInfo d;
    d.name = spec.name;
    d.nodes = spec.nodes;
    d.edges = spec.edges;
    d.feature_dim = spec.feature_dim;
    d.directed = spec.directed;
    d.url = spec.url;
    d.edge_list = spec.edge_list;
    d.graph = spec.graph;
    d.structure = spec.structure == "random" ? sim::dglmodels::Structure::kRandom : sim::dglmodels::Structure::kReal;
    d.train_nodes = sim::dglmodels::TrainNodesFor(spec.preset.empty() ? spec.name : spec.preset, spec.nodes);
    datasets.push_back(std::move(d));
  }
  std::map<std::string, std::string> job_datasets;
  for (const JobEntry& entry : scenario.jobs)
    if (entry.action == JobAction::kSubmit && !entry.dataset.empty())
      for (const JobKey& key : entry.targets) job_datasets.emplace(key.ToString(), entry.dataset);
  return std::make_shared<const sim::dglmodels::DglEnvironment>(
      scenario.calibration.value_or(sim::dglmodels::Calibration{}), std::move(datasets), std::move(job_datasets));
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

sim::ClusterOptions ClusterOptionsFor(const Scenario& scenario) {
  sim::ClusterOptions options;
  options.default_toleration_seconds = scenario.cluster.timings.toleration_seconds / kube::kSecond;
  options.parse_bandwidth = [](std::string_view text) -> std::optional<double> { return ParseBandwidth(text).value; };
  return options;
}

sim::KubeletConfig KubeletConfigFor(const Scenario& scenario, const std::string& node, const sim::NodeSimSpec& spec) {
  sim::KubeletConfig config;
  config.node_name = node;
  config.node_spec = &spec;
  config.pod_cidr = spec.pod_cidr;
  config.host_ip = spec.internal_ip;
  config.image_pull_bytes_per_second = scenario.cluster.images.pull_bytes_per_second;
  config.image_sizes = scenario.cluster.images.sizes;
  config.default_image_size = scenario.cluster.images.default_size;
  config.pod_startup = scenario.cluster.timings.pod_startup;
  config.backoff_initial = scenario.cluster.timings.pod_restart_backoff;
  config.backoff_max = scenario.cluster.timings.pod_restart_backoff_max;
  return config;
}

}  // namespace

World::World(const Scenario& scenario, RunRecord& record, std::uint64_t seed, std::optional<Micros> epoch,
             fakeapi::AuditLog* audit)
    : scenario_(scenario),
      record_(record),
      sim_(sim::SimulationOptions{.seed = seed,
                                  .watch_latency = scenario.api.watch_latency,
                                  .history_limit = kWatchHistoryMax,
                                  .history_fresh = kWatchHistoryFresh,
                                  .history_min = kWatchHistoryMin,
                                  .trace = {.keep_records = false},
                                  .epoch = epoch.value_or(kube::ManualClock::kDefaultStart),
                                  .audit = audit}) {
  BuildApi();
  BuildCluster();
  checker_ = std::make_unique<InvariantChecker>(sim_, record_);
  observer_ = std::make_unique<StageObserver>(record_, *checker_);
  BuildKubelets();
  BuildControllers();
  BuildHarness();
}

World::~World() = default;

void World::BuildApi() {
  dgl::RegisterDGLJobAdmission(sim_.store());
  // Every actor acts as its identity: the cluster's components under kube-apiserver's default
  // policy, the operator under its RBAC file. The harness's own actors are system:masters.
  fakeapi::rbac::Policy policy = fakeapi::rbac::BootstrapPolicy();
  for (const kube::Json& object : scenario_.operator_settings.rbac) (void)policy.Add(object);  // checked when loaded
  sim_.EnableAuthorization(std::move(policy));
  for (const auto& ns : scenario_.namespaces)
    if (!sim_.store().Get("namespaces", "", ns).ok())
      sim_.store().Create("namespaces", {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}});
}

void World::BuildCluster() {
  cluster_ = std::make_unique<sim::Cluster>(sim_, ClusterOptionsFor(scenario_));
  for (const auto& group : scenario_.cluster.nodes) {
    kube::Status status;
    if (group.node_template) status = cluster_->AddNodes(ToNodeTemplate(*group.node_template));
    if (group.manifest)
      for (const auto& node : group.manifest->nodes) {
        status = cluster_->AddNodesFromManifest(node);
        if (!status.ok()) break;
      }
    if (!status.ok()) record_.notes.push_back(group.field_path + ": nodes not created: " + status.message());
  }
  if (!scenario_.cluster.pools.empty()) BuildAutoscaler();
  // The flow network: every node's NIC and disk, and the shared storage.
  sim::Network& network = sim_.EnableNetwork({.storage_bps = scenario_.cluster.storage_bytes_per_second,
                                                  .rerate_window = scenario_.cluster.network_rerate_window});
  for (const auto& [node, spec] : cluster_->specs())
    network.AddNode(node, spec.nic_bytes_per_second, spec.disk_bytes_per_second);
}

void World::BuildKubelets() {
  programs_ = std::make_shared<sim::ProgramRegistry>();
  // The DGL workload models (sim/dgl): the calibration, the scenario's datasets, each job's dataset.
  dgl_ = MakeDglEnvironment(scenario_);
  sim::dglmodels::RegisterDglPrograms(*programs_, dgl_);
  for (const auto& [node, spec] : cluster_->specs()) AddKubelet(node, spec);
  kubelets_built_ = true;
  cluster_->AddLivenessObserver([this](const std::string& node, bool up, Micros) { OnLiveness(node, up); });
}

void World::AddKubelet(const std::string& node, const sim::NodeSimSpec& spec) {
  sim::KubeletConfig config = KubeletConfigFor(scenario_, node, spec);
  config.network = sim_.network();
  config.observer = observer_.get();
  config.programs = programs_;
  kubelets_.push_back(std::make_unique<sim::Kubelet>(sim_, std::move(config)));
  kubelet_of_node_[node] = kubelets_.back().get();
}

void World::BuildAutoscaler() {
  sim::AutoscalerOptions options;
  for (const NodePoolSpec& spec : scenario_.cluster.pools) {
    sim::NodePool pool;
    pool.name = spec.machine.name;
    pool.machine = ToNodeTemplate(spec.machine);
    pool.min = spec.min;
    pool.max = spec.max;
    pool.scale_up_delay = spec.scale_up_delay;
    pool.priority = spec.priority;
    pool.mean_time_to_interruption = spec.mean_time_to_interruption;
    pool.interruption_notice = spec.interruption_notice;
    options.pools.push_back(std::move(pool));
  }
  const AutoscalerSettings& settings = scenario_.cluster.autoscaler;
  options.expander = settings.expander;
  options.scan_interval = settings.scan_interval;
  options.scale_down_unneeded_time = settings.scale_down_unneeded_time;
  options.scale_down_delay_after_add = settings.scale_down_delay_after_add;
  autoscaler_ = std::make_unique<sim::Autoscaler>(sim_, *cluster_, std::move(options),
                                                  [this](const sim::PoolNodeEvent& event) { OnPoolNode(event); });
  if (auto status = autoscaler_->AddMinimumNodes(); !status.ok())
    record_.notes.push_back("cluster.nodePools: minimum nodes not created: " + status.message());
}

void World::OnPoolNode(const sim::PoolNodeEvent& event) {
  using Kind = sim::PoolNodeEvent::Kind;
  if (event.kind == Kind::kRequested) {
    PoolNodeRecord r;
    r.name = event.node;
    r.pool = event.pool->name;
    for (const NodePoolSpec& spec : scenario_.cluster.pools) {
      if (spec.machine.name != r.pool) continue;
      r.price_per_hour = spec.machine.price_per_hour;
      if (auto gpu = spec.machine.capacity.find(sim::kResourceGpu); gpu != spec.machine.capacity.end()) r.gpus = gpu->second.units;
    }
    r.spot = event.pool->spot();
    r.requested = sim_.Now();
    pool_node_index_[event.node] = record_.pool_nodes.size();
    record_.pool_nodes.push_back(std::move(r));
    return;
  }
  PoolNodeRecord& r = record_.pool_nodes[pool_node_index_.at(event.node)];
  switch (event.kind) {
    case Kind::kReady:
      r.ready = sim_.Now();
      if (kubelets_built_) {
        const sim::NodeSimSpec* spec = cluster_->Spec(event.node);
        sim_.network()->AddNode(event.node, spec->nic_bytes_per_second, spec->disk_bytes_per_second);
        AddKubelet(event.node, *spec);
        kubelets_.back()->Start();
      }
      break;
    case Kind::kNotice: r.notice = sim_.Now(); break;
    case Kind::kInterrupted:
      r.interrupted = true;
      r.gone = sim_.Now();
      break;
    case Kind::kRemoved:
      if (!r.gone) r.gone = sim_.Now();
      if (auto it = kubelet_of_node_.find(event.node); it != kubelet_of_node_.end()) it->second->SetNodeUp(false);
      break;
    case Kind::kRequested: break;
  }
}

// A node stops or resumes: its kubelet with it, and the outage goes into the record.
void World::OnLiveness(const std::string& node, bool up) {
  if (auto it = kubelet_of_node_.find(node); it != kubelet_of_node_.end()) it->second->SetNodeUp(up);
  if (!up) {
    record_.node_outages.push_back({node, sim_.Now(), std::nullopt});
    return;
  }
  for (auto it = record_.node_outages.rbegin(); it != record_.node_outages.rend(); ++it)
    if (it->node == node && !it->up) {
      it->up = sim_.Now();
      break;
    }
}

void World::BuildControllers() {
  const ClusterSpec& cluster = scenario_.cluster;
  node_lifecycle_ = std::make_unique<sim::NodeLifecycleController>(
      sim_, *cluster_, sim::NodeLifecycleOptions{.node_monitor_grace_period = cluster.timings.node_monitor_grace_period});
  pod_gc_ = std::make_unique<sim::PodGarbageCollector>(sim_);
  sim::SchedulerConfig scheduler;
  scheduler.scoring = cluster.scheduler.scoring == Scoring::kMostAllocated ? sim::ScoringPolicy::kMostAllocated
                                                                          : sim::ScoringPolicy::kLeastAllocated;
  scheduler.gang = cluster.scheduler.gang;
  scheduler.percentage_of_nodes_to_score = cluster.scheduler.percentage_of_nodes_to_score;
  scheduler_ = std::make_unique<sim::Scheduler>(sim_, scheduler);
  InstallPlacements(sim_, cluster.scheduler.placements);
  if (scenario_.operator_settings.enabled) {
    sim::OperatorActorOptions op;
    op.reconcile_latency = scenario_.operator_settings.reconcile_latency;
    op.controller.reconciler.build.gang_scheduling = scenario_.operator_settings.gang_scheduling;
    operator_ = std::make_unique<sim::OperatorActor>(sim_, op);
  } else {
    record_.notes.push_back("the operator is disabled (operator.enabled: false)");
  }
}

void World::BuildHarness() {
  // The API's base latency applies to the cluster's actors, not to the harness's own watches.
  kube::FaultPlan base_plan;
  if (scenario_.api.request_latency > 0) {
    base_plan.latency_min = base_plan.latency_max = scenario_.api.request_latency;
    sim_.SetApiFaults(base_plan);
  }
  faults_ = std::make_unique<FaultInjector>(sim_, *cluster_, kubelet_of_node_, operator_.get(), base_plan);
  recorder_ = std::make_unique<Recorder>(sim_, record_, *faults_);
  jobs_ = std::make_unique<JobDriver>(sim_, record_, *recorder_, *dgl_);
  pod_counts_ = std::make_unique<PodCountProbes>(sim_, record_, scenario_.expectations);
  jobs_->Schedule(scenario_.jobs);
  faults_->Schedule(scenario_.faults);
  pod_counts_->Schedule();
}

bool World::JobsDone() const {
  if (!jobs_->AllApplied()) return false;
  for (const auto& [key, r] : record_.jobs)
    if (r.submitted && !r.deleted && !dgl::IsTerminalPhase(r.phase)) return false;
  return true;
}

bool World::ScenarioDone() const { return JobsDone() && !sim_.AnyActorHasPendingWork(); }

void World::Finish(Micros until) {
  record_.end = sim_.Now();
  record_.hit_until = record_.end >= until && !ScenarioDone();
  recorder_->Finish();
  pod_counts_->CountAtEnd();
  recorder_->SnapshotConfigMaps();
  checker_->CheckAtEnd();
  for (std::string& note : ExplainUnfinishedJobs(sim_.store(), record_, sim_.engine().epoch()))
    record_.notes.push_back(std::move(note));
  CopyPredictions(dgl_->predictions(), record_);
  record_.fault_log = faults_->log();
  if (operator_) record_.operator_metrics = operator_->metrics().Expose();
  // Refused requests are the run's news: a missing RBAC rule shows here first.
  if (sim_.refusal_count() > 0) {
    record_.notes.push_back(std::to_string(sim_.refusal_count()) + " API request(s) refused (403 Forbidden); first: " +
                            sim_.refusals().front());
    record_.forbidden = sim_.refusals();
  }
  RecordFigures();
}

void World::RecordFigures() {
  if (auto nodes = sim_.store().List("nodes"); nodes.ok()) {
    record_.nodes = static_cast<int>(nodes->items.size());
    for (const auto& node : nodes->items) {
      const std::int64_t gpus = sim::NodeAllocatable(*node).gpu;
      record_.gpus += gpus;
      record_.node_list.push_back({kube::NameOf(*node), gpus});
      if (pool_node_index_.contains(kube::NameOf(*node))) continue;
      ++record_.fixed_nodes;
      record_.fixed_gpus += gpus;
    }
  }
  record_.price_per_hour = scenario_.cluster.PricePerHour();
  record_.events = sim_.engine().events_executed();
  record_.api_writes = sim_.store().Stats().writes;
  record_.watch_events = sim_.store().Stats().watch_events_queued;
  record_.trace_records = sim_.trace().count();
  record_.trace_hash = sim_.trace().HashHex();
}

}  // namespace harness
