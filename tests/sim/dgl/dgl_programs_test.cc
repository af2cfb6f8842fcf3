// The dglrun programs inside simulated containers, on kubelets with the flow network and without
// the operator: the test creates the pods, the ConfigMap and the bindings itself, as the operator
// and the scheduler would, then reads stages, memory, logs and container exits.
#include "sim/cluster/cluster.h"
#include "sim/cluster/kubelet.h"
#include "sim/dgl/models.h"
#include "sim/dgl/programs.h"

#include <gtest/gtest.h>

namespace sim::dglmodels {
namespace {

using json = kube::Json;

class Observer : public WorkloadObserver {
 public:
  void OnStage(const json& pod, std::string_view stage, Micros begin, Micros end) override {
    stages[kube::NameOf(pod) + "/" + std::string(stage)].push_back({begin, end});
  }
  void OnMemory(const json& pod, std::string_view, std::int64_t bytes) override {
    std::int64_t& peak = peaks[kube::NameOf(pod)];
    peak = std::max(peak, bytes);
  }
  // Length of the first interval of `stage` reported by `pod`; -1 when none.
  double Seconds(const std::string& pod, const std::string& stage) const {
    auto it = stages.find(pod + "/" + stage);
    if (it == stages.end() || it->second.empty()) return -1;
    return static_cast<double>(it->second[0].second - it->second[0].first) / kSecond;
  }
  std::map<std::string, std::vector<std::pair<Micros, Micros>>> stages;
  std::map<std::string, std::int64_t> peaks;
};

DatasetInfo Sized(std::string name, std::int64_t nodes, std::int64_t edges, std::int64_t dim) {
  DatasetInfo d;
  d.name = std::move(name);
  d.nodes = nodes;
  d.edges = edges;
  d.feature_dim = dim;
  d.url = "s3://data/" + d.name + ".zip";
  d.train_nodes = TrainNodesFor(d.name, nodes);
  return d;
}

DatasetInfo PapersDataset() {
  DatasetInfo d = Sized("ogbn-papers100M", 111'059'956, 1'615'685'872, 128);
  d.train_nodes = TrainNodesFor("ogbn-papers100M", d.nodes);
  return d;
}

class DglProgramsTest : public ::testing::Test {
 protected:
  // `nodes` machines n-0 .. with `nic` bytes/s each way and 10 GB/s disks, 4 TB of memory each.
  void Build(int nodes, std::vector<DatasetInfo> datasets, double nic = 12.5e9) {
    // A second Build() tears the first down as the World does: the kubelets (they hold references to
    // the cluster), then the cluster (its actors unregister from the simulation), then the simulation.
    kubelets_.clear();
    cluster_.reset();
    sim_.reset();
    observer_ = Observer{};
    sim_ = std::make_unique<Simulation>(SimulationOptions{.seed = 1});
    cluster_ = std::make_unique<Cluster>(*sim_);
    NodeTemplate t;
    t.name = "n";
    t.count = nodes;
    t.capacity = {{"cpu", "128"}, {"memory", "4Ti"}};
    t.nic_bytes_per_second = nic;
    t.disk_bytes_per_second = 10e9;
    ASSERT_TRUE(cluster_->AddNodes(t).ok());
    network_ = &sim_->EnableNetwork();
    env_ = std::make_shared<const DglEnvironment>(Calibration{}, std::move(datasets));
    auto programs = std::make_shared<ProgramRegistry>();
    RegisterDglPrograms(*programs, env_);
    for (const auto& [node, spec] : cluster_->specs()) {
      network_->AddNode(node, spec.nic_bytes_per_second, spec.disk_bytes_per_second);
      KubeletConfig config;
      config.node_name = node;
      config.pod_cidr = spec.pod_cidr;
      config.host_ip = spec.internal_ip;
      config.network = network_;
      config.node_spec = &spec;
      config.observer = &observer_;
      config.programs = programs;
      config.preloaded_images = {"dgl:v1"};
      config.pod_startup = 0;
      config.container_start = 0;
      kubelets_[node] = &sim_->AddActor<Kubelet>(config);
    }
    sim_->Start();
  }

  json Pod(const std::string& name, const std::string& role, std::vector<std::string> command,
           std::map<std::string, std::string> env, const std::string& memory = "") {
    json envs = json::array();
    for (const auto& [k, v] : env) envs.push_back({{"name", k}, {"value", v}});
    json container = {{"name", "main"}, {"image", "dgl:v1"}, {"command", command}, {"env", envs}};
    if (!memory.empty()) container["resources"] = {{"limits", {{"memory", memory}, {"cpu", "16"}}}};
    return {{"apiVersion", "v1"},
            {"kind", "Pod"},
            {"metadata",
             {{"name", name},
              {"namespace", "default"},
              {"labels", {{"training.kubeflow.org/job-name", "j"}, {"training.kubeflow.org/replica-type", role}}},
              {"annotations", {{"training.kubeflow.org/restart-count", "0"}}}}},
            {"spec", {{"restartPolicy", "Never"}, {"containers", json::array({container})}}}};
  }
  void Place(const json& pod, const std::string& node) {
    ASSERT_TRUE(sim_->store().Create("pods", pod).ok());
    json binding = {{"metadata", {{"name", pod["metadata"]["name"]}, {"namespace", "default"}}},
                    {"target", {{"kind", "Node"}, {"name", node}}}};
    ASSERT_TRUE(sim_->store().Create("pods/binding", binding).ok());
  }
  // The ConfigMap the operator writes: hostfile with `workers` workers, the leadfile.
  void Config(int workers) {
    std::string hostfile;
    for (int i = 0; i < workers; ++i) hostfile += "10.0.0." + std::to_string(i + 2) + " 30050 j-worker-" + std::to_string(i) + " slots=1\n";
    json cm = {{"apiVersion", "v1"},
               {"kind", "ConfigMap"},
               {"metadata", {{"name", "j-config"}, {"namespace", "default"}}},
               {"data", {{"hostfile", hostfile}, {"leadfile", "10.0.0.1 30050 j-launcher\n"}}}};
    ASSERT_TRUE(sim_->store().Create("configmaps", cm).ok());
  }
  // Workers 0..n-1 on nodes n-1 .. n-n; the launcher on n-0.
  void Workers(int n) {
    for (int i = 0; i < n; ++i)
      Place(Pod("j-worker-" + std::to_string(i), "worker", {"sleep", "365d"}, {{"DGL_OPERATOR_ENV", "1"}}),
            "n-" + std::to_string(i + 1));
  }
  // The launcher's dglrun (no phase env) for `workers` workers.
  void Launcher(int workers, const std::string& url, int epochs, const std::string& mode = "DGL-API") {
    Place(Pod("j-launcher", "launcher",
              {"dglrun", "--graph-name", "g", "--num-partitions", std::to_string(workers), "--dataset-url", url,
               "--num-epochs", std::to_string(epochs)},
              {{"DGL_OPERATOR_PARTITION_MODE", mode}}),
          "n-0");
  }
  json Status(const std::string& pod) {
    auto p = sim_->store().Get("pods", "default", pod);
    return p.ok() ? (**p)["status"] : json();
  }
  int ExitCode(const std::string& pod) {
    json s = Status(pod);
    if (!s.contains("containerStatuses")) return -1;
    return s["containerStatuses"][0]["state"].value("terminated", json::object()).value("exitCode", -1);
  }
  std::string Reason(const std::string& pod) {
    json s = Status(pod);
    if (!s.contains("containerStatuses")) return "";
    return s["containerStatuses"][0]["state"].value("terminated", json::object()).value("reason", "");
  }
  std::string Logs(const std::string& pod, const std::string& node) {
    const auto* lines = kubelets_[node]->Logs("default", pod, "main");
    std::string out;
    if (lines)
      for (const auto& l : *lines) out += l + "\n";
    return out;
  }

  std::unique_ptr<Simulation> sim_;
  std::unique_ptr<Cluster> cluster_;
  Network* network_ = nullptr;
  std::shared_ptr<const DglEnvironment> env_;
  std::map<std::string, Kubelet*> kubelets_;
  Observer observer_;
};

TEST_F(DglProgramsTest, SspPartitionerOnPapers100MTakesTheFittedTimeAndMemoryOnTheReferenceMachine) {
  Build(2, {PapersDataset()});
  Config(0);
  Place(Pod("j-partitioner", "partitioner",
            {"dglrun", "--graph-name", "papers100M", "--num-partitions", "64", "--balance-train", "--balance-edges",
             "--dataset-url", "s3://data/ogbn-papers100M.zip"},
            {{"DGL_OPERATOR_PHASE_ENV", "Partitioner"}, {"DGL_OPERATOR_PARTITION_MODE", "DGL-API"}}, "3Ti"),
        "n-1");
  Place(Pod("j-launcher", "launcher", {"sleep", "365d"}, {}), "n-0");
  sim_->RunUntil(4 * 3600 * kSecond);
  EXPECT_EQ(ExitCode("j-partitioner"), 0) << Logs("j-partitioner", "n-1");
  // Partition: every partition_graph step (about 5,685 s) plus saving the files.
  const double partition = observer_.Seconds("j-partitioner", "partition");
  RecordProperty("partition_seconds", std::to_string(partition));
  EXPECT_NEAR(partition, 6.9 + 152.9 + 40.5 + 4845.8 + 210.7 + 428.7, 0.1 * 5685);
  EXPECT_NEAR(static_cast<double>(observer_.peaks["j-partitioner"]), 599.2e9, 6e9);
  // The download: the 57 GB archive over the 0.55 GB/s store; then unpacking and OGB's loader.
  EXPECT_NEAR(observer_.Seconds("j-partitioner", "download"), ArchiveBytes(PapersDataset(), Calibration{}) / 0.55e9, 1.0);
  EXPECT_NEAR(observer_.Seconds("j-partitioner", "prepare"), TotalSeconds(PrepareSteps(PapersDataset(), Calibration{}, 1.0)),
              0.1 * TotalSeconds(PrepareSteps(PapersDataset(), Calibration{}, 1.0)));
  // Delivered to the launcher's node.
  EXPECT_GT(observer_.Seconds("j-partitioner", "dispatch"), 0);
  EXPECT_GT(network_->Link("n-0/nic-ingress").bytes_carried, 1e9);
  EXPECT_NE(Logs("j-partitioner", "n-1").find("METIS: 48"), std::string::npos) << Logs("j-partitioner", "n-1");
}

TEST_F(DglProgramsTest, SspOverTheMemoryLimitIsOOMKilled) {
  Build(2, {PapersDataset()});
  Config(0);
  Place(Pod("j-partitioner", "partitioner",
            {"dglrun", "--num-partitions", "64", "--balance-train", "--dataset-url", "s3://data/ogbn-papers100M.zip"},
            {{"DGL_OPERATOR_PHASE_ENV", "Partitioner"}, {"DGL_OPERATOR_PARTITION_MODE", "DGL-API"}}, "64Gi"),
        "n-1");
  sim_->RunUntil(3600 * kSecond);
  EXPECT_EQ(ExitCode("j-partitioner"), 137);
  EXPECT_EQ(Reason("j-partitioner"), "OOMKilled");
  EXPECT_GT(observer_.peaks["j-partitioner"], 64LL * 1024 * 1024 * 1024);
}

TEST_F(DglProgramsTest, SmpFailsPastTheParmetisPerRankLimitAndSucceedsBelowIt) {
  DatasetInfo products = Sized("ogbn-products", 2'449'029, 61'859'140, 100);
  Build(3, {PapersDataset(), products});
  Config(0);
  Place(Pod("j-launcher", "launcher", {"sleep", "365d"}, {}), "n-0");
  Place(Pod("j-partitioner", "partitioner", {"dglrun", "--num-partitions", "16", "--dataset-url", "s3://data/ogbn-papers100M.zip"},
            {{"DGL_OPERATOR_PHASE_ENV", "Partitioner"}, {"DGL_OPERATOR_PARTITION_MODE", "ParMETIS"}}, "3Ti"),
        "n-1");
  sim_->RunUntil(3600 * kSecond);
  EXPECT_EQ(ExitCode("j-partitioner"), 1);
  EXPECT_NE(Logs("j-partitioner", "n-1").find("2^31"), std::string::npos) << Logs("j-partitioner", "n-1");
  EXPECT_NE(Logs("j-partitioner", "n-1").find("mpirun -np 16"), std::string::npos);

  Build(3, {PapersDataset(), products});
  Config(0);
  Place(Pod("j-launcher", "launcher", {"sleep", "365d"}, {}), "n-0");
  Place(Pod("j-partitioner", "partitioner", {"dglrun", "--num-partitions", "16", "--dataset-url", "s3://data/ogbn-products.zip"},
            {{"DGL_OPERATOR_PHASE_ENV", "Partitioner"}, {"DGL_OPERATOR_PARTITION_MODE", "ParMETIS"}}, "64Gi"),
        "n-1");
  sim_->RunUntil(3600 * kSecond);
  EXPECT_EQ(ExitCode("j-partitioner"), 0) << Logs("j-partitioner", "n-1");
}

TEST_F(DglProgramsTest, MspRanksOnTheWorkersHoldTheirShareOfTheGraph) {
  for (int workers : {4, 8}) {
    Build(workers + 1, {PapersDataset()});
    Config(workers);
    Workers(workers);
    Place(Pod("j-launcher", "launcher",
              {"dglrun", "--num-partitions", std::to_string(workers), "--dataset-url", "s3://data/ogbn-papers100M.zip"},
              {{"DGL_OPERATOR_PHASE_ENV", "DistPartitioner"}, {"DGL_OPERATOR_PARTITION_MODE", "DistParMETIS"}}),
          "n-0");
    sim_->RunUntil(4 * 3600 * kSecond);
    ASSERT_EQ(ExitCode("j-launcher"), 0) << Logs("j-launcher", "n-0");
    auto steps = ParmetisSteps(PapersDataset(), Calibration{}, {.parts = workers}, {.ranks = workers, .machines = workers});
    auto prepare = PrepareSteps(PapersDataset(), Calibration{}, 1.0, 1.0 / workers);
    EXPECT_NEAR(static_cast<double>(observer_.peaks["j-worker-0"]), std::max(PeakBytes(steps), PeakBytes(prepare)), 1e6)
        << workers;
    EXPECT_NEAR(observer_.Seconds("j-launcher", "partition"), TotalSeconds(steps), 1.0) << workers;
    EXPECT_NEAR(observer_.Seconds("j-launcher", "prepare"), TotalSeconds(prepare), 0.2 * TotalSeconds(prepare)) << workers;
    EXPECT_GT(observer_.Seconds("j-launcher", "dispatch"), 0) << workers;  // the shuffle
  }
}

// DGL's chunked pipeline (--partition-pipeline chunked): every worker reads its chunks, ParMETIS
// assigns the nodes, dispatch_data.py shuffles and builds the partitions on their owners.
TEST_F(DglProgramsTest, TheChunkedPipelineBuildsThePartitionsOnTheWorkers) {
  const int workers = 8;
  Build(workers + 1, {PapersDataset()});
  Config(workers);
  Workers(workers);
  Place(Pod("j-launcher", "launcher",
            {"dglrun", "--num-partitions", std::to_string(workers), "--partition-pipeline", "chunked", "--dataset-url",
             "s3://data/ogbn-papers100M.zip"},
            {{"DGL_OPERATOR_PHASE_ENV", "DistPartitioner"}, {"DGL_OPERATOR_PARTITION_MODE", "DistParMETIS"}}),
        "n-0");
  sim_->RunUntil(4 * 3600 * kSecond);
  ASSERT_EQ(ExitCode("j-launcher"), 0) << Logs("j-launcher", "n-0");
  const std::string logs = Logs("j-launcher", "n-0");
  EXPECT_NE(logs.find("DGL chunked pipeline"), std::string::npos) << logs;
  EXPECT_NE(logs.find("parmetis_preprocess"), std::string::npos) << logs;
  EXPECT_NE(logs.find("dispatch_data.py: shuffle and build partitions"), std::string::npos) << logs;
  EXPECT_NE(logs.find("DGL asks the cluster's memory for 2.5x"), std::string::npos) << logs;
  // No OGB loader: the chunks are read as they are.
  EXPECT_EQ(observer_.Seconds("j-launcher", "prepare"), -1);
  EXPECT_NEAR(observer_.Seconds("j-launcher", "download"), RawBytes(PapersDataset(), Calibration{}) / 0.55e9, 1.0);
  // A worker peaks at ParMETIS's workspace or dispatch_data.py's 2.5x its share of the graph data.
  const Calibration c;
  const double dispatch = PeakBytes(DispatchDataSteps(PapersDataset(), c, workers, 1.0));
  EXPECT_NEAR(dispatch * workers, 2.5 * GraphDataBytes(PapersDataset(), c), 1e6);
  const double assignment =
      PeakBytes(ChunkedAssignmentSteps(PapersDataset(), c, {.parts = workers}, {.ranks = workers, .machines = workers}));
  EXPECT_NEAR(static_cast<double>(observer_.peaks["j-worker-0"]), std::max(dispatch, assignment), 1e6);
  EXPECT_GT(observer_.Seconds("j-launcher", "dispatch"), 0);
}

TEST_F(DglProgramsTest, TheChunkedPipelineRunsOutOfMemoryBelowDglsRule) {
  // 4 workers of 32 Gi each: 137 GB in all, short of 2.5 x the 82.7 GB of graph data.
  const int workers = 4;
  Build(workers + 1, {PapersDataset()});
  Config(workers);
  for (int i = 0; i < workers; ++i)
    Place(Pod("j-worker-" + std::to_string(i), "worker", {"sleep", "365d"}, {{"DGL_OPERATOR_ENV", "1"}}, "32Gi"),
          "n-" + std::to_string(i + 1));
  Place(Pod("j-launcher", "launcher",
            {"dglrun", "--num-partitions", "4", "--partition-pipeline", "chunked", "--part-method", "random",
             "--dataset-url", "s3://data/ogbn-papers100M.zip"},
            {{"DGL_OPERATOR_PHASE_ENV", "DistPartitioner"}, {"DGL_OPERATOR_PARTITION_MODE", "DistParMETIS"}}),
        "n-0");
  sim_->RunUntil(4 * 3600 * kSecond);
  EXPECT_EQ(ExitCode("j-launcher"), 1);
  const std::string logs = Logs("j-launcher", "n-0");
  EXPECT_NE(logs.find("short of DGL's rule"), std::string::npos) << logs;
  EXPECT_NE(logs.find("Task failed"), std::string::npos) << logs;
  EXPECT_EQ(Reason("j-worker-0"), "OOMKilled");
  EXPECT_NE(logs.find("random_partition.py"), std::string::npos) << logs;
}

TEST_F(DglProgramsTest, ThePartitionPipelineFlagIsRefusedWhereItWouldDoNothing) {
  Build(2, {PapersDataset()});
  Config(0);
  Place(Pod("j-partitioner", "partitioner",
            {"dglrun", "--num-partitions", "2", "--partition-pipeline", "chunked", "--dataset-url", "s3://data/ogbn-papers100M.zip"},
            {{"DGL_OPERATOR_PHASE_ENV", "Partitioner"}, {"DGL_OPERATOR_PARTITION_MODE", "DGL-API"}}),
        "n-1");
  Place(Pod("bad-value", "launcher", {"dglrun", "--partition-pipeline", "hadoop"}, {{"DGL_OPERATOR_PARTITION_MODE", "DistParMETIS"}}),
        "n-0");
  sim_->RunUntil(60 * kSecond);
  EXPECT_EQ(ExitCode("j-partitioner"), 2);
  EXPECT_NE(Logs("j-partitioner", "n-1").find("only partitionMode DistParMETIS"), std::string::npos)
      << Logs("j-partitioner", "n-1");
  EXPECT_EQ(ExitCode("bad-value"), 2);
  EXPECT_NE(Logs("bad-value", "n-0").find("invalid choice: 'hadoop'"), std::string::npos) << Logs("bad-value", "n-0");
}

TEST_F(DglProgramsTest, EveryStageReportsItsRangeAndALimitInsideAMemoryRangeIsNoted) {
  Build(2, {PapersDataset()});
  Config(0);
  // 620 GiB: above the 599 GB the models expect, inside the range of what METIS may need.
  Place(Pod("j-partitioner", "partitioner",
            {"dglrun", "--graph-name", "papers100M", "--num-partitions", "16", "--balance-train", "--balance-edges",
             "--dataset-url", "s3://data/ogbn-papers100M.zip"},
            {{"DGL_OPERATOR_PHASE_ENV", "Partitioner"}, {"DGL_OPERATOR_PARTITION_MODE", "DGL-API"}}, "3Ti"),
        "n-1");
  Place(Pod("j-launcher", "launcher", {"sleep", "365d"}, {}), "n-0");
  sim_->RunUntil(4 * 3600 * kSecond);
  ASSERT_EQ(ExitCode("j-partitioner"), 0) << Logs("j-partitioner", "n-1");
  const auto& jobs = env_->predictions().jobs();
  ASSERT_EQ(jobs.count("default/j"), 1u);
  const auto& job = jobs.at("default/j");
  for (const char* stage : {"download", "prepare", "partition", "dispatch"}) {
    ASSERT_EQ(job.stages.count(stage), 1u) << stage;
    EXPECT_LE(job.stages.at(stage).low, 0) << stage;
    EXPECT_GE(job.stages.at(stage).high, 0) << stage;
    EXPECT_LT(job.stages.at(stage).low, job.stages.at(stage).high) << stage;
  }
  ASSERT_EQ(job.peaks.count("partitioner"), 1u);
  EXPECT_LE(job.peaks.at("partitioner").low, static_cast<double>(observer_.peaks["j-partitioner"]) + 1e6);
  EXPECT_GE(job.peaks.at("partitioner").high, static_cast<double>(observer_.peaks["j-partitioner"]) - 1e6);
  EXPECT_TRUE(job.notes.empty());  // no memory limit inside the range
}

// The MSP sweep: ogbn-papers100M through MSP on 4 .. 64 workers. Partitioning and the epoch
// get faster with more workers, but never twice as fast per doubling, and less so each time.
TEST_F(DglProgramsTest, MspOnPapers100MNoLongerHalvesPerDoublingOfTheWorkers) {
  std::map<int, double> partition, epoch;
  for (int workers = 4; workers <= 64; workers *= 2) {
    Build(workers + 1, {PapersDataset()});
    Config(workers);
    Workers(workers);
    Place(Pod("j-dist", "launcher",
              {"dglrun", "--num-partitions", std::to_string(workers), "--balance-train", "--balance-edges",
               "--dataset-url", "s3://data/ogbn-papers100M.zip"},
              {{"DGL_OPERATOR_PHASE_ENV", "DistPartitioner"}, {"DGL_OPERATOR_PARTITION_MODE", "DistParMETIS"}}),
          "n-0");
    sim_->RunUntil(4 * 3600 * kSecond);
    ASSERT_EQ(ExitCode("j-dist"), 0) << Logs("j-dist", "n-0");
    Launcher(workers, "s3://data/ogbn-papers100M.zip", 2, "DistParMETIS");
    sim_->RunUntil(8 * 3600 * kSecond);
    ASSERT_EQ(ExitCode("j-launcher"), 0) << Logs("j-launcher", "n-0");
    partition[workers] = observer_.Seconds("j-dist", "partition");
    epoch[workers] = observer_.Seconds("j-launcher", "training") / 2;
    RecordProperty("partition_" + std::to_string(workers), std::to_string(partition[workers]));
    RecordProperty("epoch_" + std::to_string(workers), std::to_string(epoch[workers]));
  }
  double last_partition = 0, last_epoch = 0;
  for (int workers = 4; workers < 64; workers *= 2) {
    const double p = partition[2 * workers] / partition[workers];
    const double e = epoch[2 * workers] / epoch[workers];
    EXPECT_GT(p, 0.5) << workers;
    EXPECT_LT(p, 1.0) << workers;
    EXPECT_GT(e, 0.5) << workers;
    EXPECT_LT(e, 1.0) << workers;
    EXPECT_GT(p, last_partition) << workers;
    EXPECT_GT(e, last_epoch - 0.01) << workers;
    last_partition = p;
    last_epoch = e;
  }
}

TEST_F(DglProgramsTest, DispatchFlowsShareTheLaunchersNic) {
  // Part files of partition_bytes_per_loaded_edge (26.4 B) per edge as loaded: 100 M undirected
  // edges, loaded in both directions -> 5.28 GB in all; a 1 GB/s NIC.
  DatasetInfo g = Sized("g", 10'000'000, 100'000'000, 0);
  const double seconds = Calibration{}.partition_bytes_per_loaded_edge * g.LoadedEdges() / 1e9;
  EXPECT_NEAR(seconds, 5.28, 0.01);
  std::map<int, double> dispatch;
  for (int workers : {1, 2}) {
    Build(workers + 1, {g}, 1e9);
    Config(workers);
    Workers(workers);
    Launcher(workers, g.url, 1);
    sim_->RunUntil(3600 * kSecond);
    ASSERT_EQ(ExitCode("j-launcher"), 0) << Logs("j-launcher", "n-0");
    dispatch[workers] = observer_.Seconds("j-launcher", "dispatch");
  }
  // One flow of 5.28 GB alone, or two flows of 2.64 GB that share the launcher's egress: each of
  // the two takes twice as long as it would alone, so both cases take 5.28 s.
  EXPECT_NEAR(dispatch[1], seconds, 0.01);
  EXPECT_NEAR(dispatch[2], seconds, 0.01);
}

TEST_F(DglProgramsTest, DistDglEpochOnPapers100MSizedGraphOnSixteenMachinesTakes13Seconds) {
  DatasetInfo d = PapersDataset();
  d.feature_dim = 0;  // keep the test's load short; the epoch's compute does not depend on it
  Build(17, {d});
  Config(16);
  Workers(16);
  Launcher(16, d.url, 2);
  sim_->RunUntil(3600 * kSecond);
  ASSERT_EQ(ExitCode("j-launcher"), 0) << Logs("j-launcher", "n-0");
  const double training = observer_.Seconds("j-launcher", "training");
  RecordProperty("epoch_seconds", std::to_string(training / 2));
  EXPECT_NEAR(training / 2, 13, 1.3);
  EXPECT_NE(Logs("j-launcher", "n-0").find("Epoch 1 | Epoch Time(s) 13."), std::string::npos) << Logs("j-launcher", "n-0");
  // The servers hold their partitions while serving and let go at the end.
  EXPECT_GT(observer_.peaks["j-worker-3"], 0);
  EXPECT_GT(observer_.Seconds("j-launcher", "load"), 0);
}

TEST_F(DglProgramsTest, TheLauncherFailsWhenAWorkerDiesMidTraining) {
  DatasetInfo g = Sized("g", 1'000'000, 10'000'000, 16);
  Build(3, {g});
  Config(2);
  Workers(2);
  Launcher(2, g.url, 1000);
  // Run until training has begun, then kill worker 1.
  while (sim_->Now() < 3600 * kSecond && !observer_.stages.count("j-launcher/load")) sim_->RunUntil(sim_->Now() + kSecond);
  ASSERT_TRUE(observer_.stages.count("j-launcher/load"));
  sim_->RunUntil(sim_->Now() + 10 * kSecond);
  ASSERT_TRUE(kubelets_["n-2"]->KillContainer("default", "j-worker-1", "", 137, ""));
  sim_->RunUntil(sim_->Now() + 60 * kSecond);
  EXPECT_EQ(ExitCode("j-launcher"), 1);
  EXPECT_NE(Logs("j-launcher", "n-0").find("Task failed"), std::string::npos) << Logs("j-launcher", "n-0");
  EXPECT_FALSE(observer_.stages.count("j-launcher/training"));
}

TEST_F(DglProgramsTest, ALauncherWhosePartitionCountDiffersFromTheHostfileFailsAsDispatchAsserts) {
  DatasetInfo g = Sized("g", 1'000'000, 10'000'000, 16);
  Build(3, {g});
  Config(2);
  Workers(2);
  Launcher(3, g.url, 1);
  sim_->RunUntil(600 * kSecond);
  EXPECT_EQ(ExitCode("j-launcher"), 1);
  EXPECT_NE(Logs("j-launcher", "n-0").find("AssertionError"), std::string::npos);
}

TEST_F(DglProgramsTest, ABadFlagExitsTwoAndAJobWithoutDatasetRunsOnTheDefaultGraph) {
  Build(1, {});
  Place(Pod("bad", "launcher", {"dglrun", "--num-epochs", "many"}, {{"DGL_OPERATOR_PHASE_ENV", "Launcher_Workload"}}), "n-0");
  Place(Pod("local", "launcher", {"dglrun", "--num-epochs", "3"}, {{"DGL_OPERATOR_PHASE_ENV", "Launcher_Workload"}}), "n-0");
  sim_->RunUntil(600 * kSecond);
  EXPECT_EQ(ExitCode("bad"), 2);
  EXPECT_NE(Logs("bad", "n-0").find("invalid int value: 'many'"), std::string::npos);
  EXPECT_EQ(ExitCode("local"), 0) << Logs("local", "n-0");
  EXPECT_NE(Logs("local", "n-0").find("small default graph"), std::string::npos);
  EXPECT_NE(Logs("local", "n-0").find("Epoch 2"), std::string::npos);
}

}  // namespace
}  // namespace sim::dglmodels
