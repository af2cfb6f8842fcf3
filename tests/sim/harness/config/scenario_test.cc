#include "sim/harness/config/scenario.h"
#include "tests/shared_examples.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

namespace harness {
namespace {

using kube::kMillisecond;
using kube::kSecond;

const std::string kDataDir = std::string(DGLSIM_SOURCE_DIR) + "/tests/sim/data";

// A small valid scenario; tests append to it or replace a piece of it. Line 24 is the first line
// after it.
const std::string kBase = R"(apiVersion: dglsim/v1
kind: Scenario
metadata: {name: t}
cluster:
  nodes:
    - {name: gpu, count: 4, capacity: {cpu: "96", nvidia.com/gpu: "8"}}
jobs:
  - at: 0s
    inline:
      apiVersion: kubeflow.org/v1alpha1
      kind: DGLJob
      metadata: {name: big}
      spec:
        dglReplicaSpecs:
          Launcher:
            template:
              spec:
                containers: [{name: l, image: i, command: [dglrun]}]
          Worker:
            replicas: 2
            template:
              spec:
                containers: [{name: w, image: i}]
)";

std::string ReplaceText(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

std::vector<std::string> Problems(const std::string& text) {
  return LoadScenarioString(text, "s.yaml", kDataDir).problems;
}

void ExpectOneProblem(const std::string& text, const std::string& expected) {
  ScenarioLoad load = LoadScenarioString(text, "s.yaml", kDataDir);
  EXPECT_FALSE(load.ok());
  EXPECT_FALSE(load.scenario.has_value());
  ASSERT_EQ(load.problems.size(), 1u) << ::testing::PrintToString(load.problems);
  EXPECT_EQ(load.problems[0], expected);
}

std::string WriteTemp(const std::string& name, const std::string& text) {
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "scenario_test";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / name).string();
  std::ofstream(path) << text;
  return path;
}

TEST(ScenarioTest, LoadsTheFullExampleOfTheFormat) {
  DGLSIM_REQUIRE_SHARED_EXAMPLES();  // its first job is the original GraphSAGE_dist.yaml
  ScenarioLoad load = LoadScenario(kDataDir + "/full-example.yaml");
  ASSERT_TRUE(load.ok()) << ::testing::PrintToString(load.problems);
  const Scenario& s = *load.scenario;
  EXPECT_EQ(s.name, "ssp-products-2-workers");
  EXPECT_EQ(s.description, "GraphSAGE on ogbn-products, DGL-API partitioning, 2 workers");
  EXPECT_EQ(s.seed, 42u);
  EXPECT_EQ(s.until, 48 * 3600 * kSecond);

  ASSERT_EQ(s.cluster.nodes.size(), 2u);
  const NodeTemplateSpec& gpu = *s.cluster.nodes[0].node_template;
  EXPECT_EQ(gpu.name, "gpu");
  EXPECT_EQ(gpu.count, 4);
  EXPECT_EQ(gpu.capacity.at("cpu").text, "96");
  EXPECT_EQ(gpu.capacity.at("cpu").milli, 96000);
  EXPECT_EQ(gpu.capacity.at("memory").units, 768LL << 30);
  EXPECT_EQ(gpu.capacity.at("nvidia.com/gpu").units, 8);
  EXPECT_EQ(gpu.capacity.at("ephemeral-storage").units, 2LL << 40);
  EXPECT_EQ(gpu.labels.at("node.kubernetes.io/instance-type"), "p4d.24xlarge");
  EXPECT_TRUE(gpu.taints.empty());
  EXPECT_DOUBLE_EQ(gpu.network_bytes_per_second, 12.5e9);
  EXPECT_DOUBLE_EQ(gpu.disk_bytes_per_second, 2e9);
  EXPECT_DOUBLE_EQ(gpu.cpu_speed, 1.0);
  const NodeManifestSpec& manifest = *s.cluster.nodes[1].manifest;
  ASSERT_EQ(manifest.nodes.size(), 2u);
  EXPECT_EQ(manifest.nodes[1]["metadata"]["name"], "cpu-big-1");
  EXPECT_EQ(s.cluster.NodeNames(),
            (std::vector<std::string>{"gpu-0", "gpu-1", "gpu-2", "gpu-3", "cpu-big-0", "cpu-big-1"}));
  EXPECT_DOUBLE_EQ(s.cluster.storage_bytes_per_second, 1e9);
  EXPECT_EQ(s.cluster.scheduler.scoring, Scoring::kLeastAllocated);
  EXPECT_FALSE(s.cluster.scheduler.gang);
  EXPECT_DOUBLE_EQ(s.cluster.images.pull_bytes_per_second, 200e6);
  EXPECT_EQ(s.cluster.images.default_size, 5LL << 30);
  EXPECT_EQ(s.cluster.images.sizes.at("dgloperator/examples:graphsage-dist"), 9LL << 30);
  EXPECT_EQ(s.cluster.timings.node_monitor_grace_period, 50 * kSecond);
  EXPECT_EQ(s.api.watch_latency, 2 * kMillisecond);
  EXPECT_EQ(s.operator_settings.reconcile_latency, 1 * kMillisecond);

  ASSERT_EQ(s.datasets.size(), 3u);
  EXPECT_EQ(s.datasets[0].nodes, 2'449'029);
  EXPECT_EQ(s.datasets[1].edges, 90'000'000);
  EXPECT_EQ(s.datasets[1].url, "s3://data/my-graph.zip");
  EXPECT_EQ(s.datasets[2].edge_list, kDataDir + "/graphs/karate.txt");

  ASSERT_EQ(s.jobs.size(), 3u);
  EXPECT_EQ(s.jobs[0].action, JobAction::kSubmit);
  ASSERT_EQ(s.jobs[0].objects.size(), 1u);
  EXPECT_EQ(s.jobs[0].objects[0]["apiVersion"], "kubeflow.org/v1alpha1");  // converted from qihoo.net
  EXPECT_EQ(s.jobs[0].objects[0]["spec"]["runPolicy"]["cleanPodPolicy"], "Running");
  EXPECT_EQ(s.jobs[1].at, 600 * kSecond);
  EXPECT_EQ(s.jobs[1].dataset, "my-graph");
  EXPECT_EQ(s.jobs[1].targets, (std::vector<JobKey>{{"default", "big"}}));
  EXPECT_EQ(s.jobs[2].action, JobAction::kDelete);
  EXPECT_EQ(s.jobs[2].targets, (std::vector<JobKey>{{"default", "big"}}));
  EXPECT_EQ(s.namespaces, (std::vector<std::string>{"default", "dgl-operator"}));
  EXPECT_EQ(s.job_keys, (std::vector<JobKey>{{"dgl-operator", "dgl-graphsage"}, {"default", "big"}}));
  ASSERT_EQ(load.warnings.size(), 2u);
  EXPECT_NE(load.warnings[0].find("GraphSAGE_dist.yaml:1:13: warning: "), std::string::npos) << load.warnings[0];

  ASSERT_EQ(s.faults.size(), 8u);
  EXPECT_EQ(s.faults[0].kind, FaultKind::kNodeDown);
  EXPECT_EQ(s.faults[0].node, "gpu-1");
  EXPECT_EQ(*s.faults[0].duration, 1200 * kSecond);
  EXPECT_EQ(s.faults[1].trigger.job, (JobKey{"default", "big"}));
  EXPECT_EQ(s.faults[1].trigger.phase, "Training");
  EXPECT_EQ(s.faults[1].trigger.after, 60 * kSecond);
  EXPECT_EQ(s.faults[1].node_of, (JobKey{"default", "big-worker-0"}));
  EXPECT_EQ(s.faults[2].pod, (JobKey{"default", "big-worker-1"}));
  EXPECT_EQ(s.faults[2].exit_code, 137);
  EXPECT_DOUBLE_EQ(s.faults[3].conflict_rate, 0.05);
  EXPECT_EQ(s.faults[4].kind, FaultKind::kOperatorRestart);
  EXPECT_EQ(s.faults[5].kind, FaultKind::kWatchDrop);
  EXPECT_EQ(s.faults[6].image, "dgloperator/*");
  EXPECT_DOUBLE_EQ(s.faults[7].factor, 0.1);

  ASSERT_EQ(s.expectations.size(), 12u);
  const std::vector<ExpectKind> kinds = {ExpectKind::kPhase,      ExpectKind::kPhases,         ExpectKind::kCondition,
                                         ExpectKind::kWithin,     ExpectKind::kRestarts,       ExpectKind::kConfigMapLines,
                                         ExpectKind::kConfigMapLine, ExpectKind::kBreakdown,   ExpectKind::kPeakMemory,
                                         ExpectKind::kCondition,  ExpectKind::kPodCount,       ExpectKind::kInvariants};
  for (std::size_t i = 0; i < kinds.size(); ++i) EXPECT_EQ(s.expectations[i].kind, kinds[i]) << i;
  EXPECT_EQ(s.expectations[0].text, "job dgl-graphsage phase Succeeded");
  EXPECT_EQ(s.expectations[0].job, (JobKey{"dgl-operator", "dgl-graphsage"}));
  EXPECT_EQ(s.expectations[1].phases.size(), 5u);
  EXPECT_EQ(s.expectations[2].reason, "JobSucceeded");
  EXPECT_EQ(s.expectations[3].within, 7200 * kSecond);
  EXPECT_EQ(s.expectations[6].line, 3);
  EXPECT_EQ(s.expectations[6].matches, "^\\S+ 30050 1 big-worker-3 8$");
  EXPECT_EQ(s.expectations[7].time_between, std::make_pair(3600 * kSecond, 7200 * kSecond));
  EXPECT_EQ(s.expectations[8].bytes_between, std::make_pair(std::int64_t{500} << 30, std::int64_t{700} << 30));
  EXPECT_EQ(s.expectations[10].pods_selector, "training.kubeflow.org/job-name=big");
  EXPECT_EQ(s.expectations[10].at, "end");
  EXPECT_EQ(s.expectations[11].invariants.size(), Invariants().size());  // `all`: the whole registry
}

TEST(ScenarioTest, EveryDefaultWhenLeftOut) {
  ScenarioLoad load = LoadScenarioString(ReplaceText(kBase, "metadata: {name: t}\n", ""), "dir/my-run.yaml", kDataDir);
  ASSERT_TRUE(load.ok()) << ::testing::PrintToString(load.problems);
  const Scenario& s = *load.scenario;
  EXPECT_EQ(s.name, "my-run");
  EXPECT_EQ(s.description, "");
  EXPECT_EQ(s.seed, 1u);
  EXPECT_EQ(s.until, 7 * 86400 * kSecond);
  const NodeTemplateSpec& t = *s.cluster.nodes[0].node_template;
  EXPECT_DOUBLE_EQ(t.network_bytes_per_second, 12.5e9);
  EXPECT_DOUBLE_EQ(t.disk_bytes_per_second, 2e9);
  EXPECT_DOUBLE_EQ(t.cpu_speed, 1.0);
  EXPECT_DOUBLE_EQ(s.cluster.storage_bytes_per_second, 0.55e9);
  EXPECT_EQ(s.cluster.scheduler.scoring, Scoring::kLeastAllocated);
  EXPECT_FALSE(s.cluster.scheduler.gang);
  EXPECT_DOUBLE_EQ(s.cluster.images.pull_bytes_per_second, 200e6);
  EXPECT_EQ(s.cluster.images.default_size, 10'000'000'000LL);
  EXPECT_EQ(s.cluster.timings.pod_startup, 1 * kSecond);
  EXPECT_EQ(s.cluster.timings.node_monitor_grace_period, 50 * kSecond);
  EXPECT_EQ(s.cluster.timings.toleration_seconds, 300 * kSecond);
  EXPECT_EQ(s.cluster.timings.pod_restart_backoff, 10 * kSecond);
  EXPECT_EQ(s.cluster.timings.pod_restart_backoff_max, 300 * kSecond);  // Kubernetes' CrashLoopBackOff cap
  EXPECT_EQ(s.api.watch_latency, 1 * kMillisecond);
  EXPECT_EQ(s.api.request_latency, 0);
  EXPECT_TRUE(s.operator_settings.enabled);
  EXPECT_EQ(s.operator_settings.reconcile_latency, 1 * kMillisecond);
  EXPECT_FALSE(s.operator_settings.gang_scheduling);
  EXPECT_EQ(s.jobs[0].objects[0]["metadata"]["namespace"], "default");
  EXPECT_EQ(s.namespaces, std::vector<std::string>{"default"});
  EXPECT_TRUE(load.warnings.empty());
  // Each default is the simulator's own: one definition, here only referred to.
  EXPECT_EQ(s.cluster.images.default_size, sim::KubeletConfig{}.default_image_size);
  EXPECT_EQ(s.cluster.timings.pod_restart_backoff_max, sim::KubeletConfig{}.backoff_max);
  EXPECT_EQ(s.api.watch_latency, sim::SimulationOptions{}.watch_latency);
  EXPECT_EQ(s.cluster.timings.node_monitor_grace_period, sim::NodeLifecycleOptions{}.node_monitor_grace_period);
  EXPECT_EQ(s.operator_settings.reconcile_latency, sim::OperatorActorOptions{}.reconcile_latency);
  EXPECT_DOUBLE_EQ(s.cluster.storage_bytes_per_second, sim::NetworkConfig{}.storage_bps);

  ScenarioLoad count = LoadScenarioString(ReplaceText(kBase, "count: 4, ", ""), "s.yaml", kDataDir);
  ASSERT_TRUE(count.ok());
  EXPECT_EQ(count.scenario->cluster.NodeNames(), std::vector<std::string>{"gpu-0"});

  ScenarioLoad kill = LoadScenarioString(kBase + "faults:\n  - {when: {job: big, phase: Training}, kind: PodKill, pod: big-launcher}\n",
                                         "s.yaml", kDataDir);
  ASSERT_TRUE(kill.ok()) << ::testing::PrintToString(kill.problems);
  EXPECT_EQ(kill.scenario->faults[0].exit_code, 137);
  EXPECT_EQ(kill.scenario->faults[0].trigger.after, 0);
  EXPECT_FALSE(kill.scenario->faults[0].duration.has_value());
}

TEST(ScenarioTest, BadDurationNamesFileLineColumnAndPath) {
  ExpectOneProblem(ReplaceText(kBase, "  - at: 0s", "  - at: 5 minutes"), "s.yaml:8:9: jobs[0].at: invalid duration \"5 minutes\"");
  ExpectOneProblem(kBase + "until: -1h\n", "s.yaml:24:8: until: invalid duration \"-1h\": must not be negative");
}

TEST(ScenarioTest, BadSizesAndBandwidths) {
  const std::vector<std::string> problems =
      Problems(ReplaceText(kBase, "cluster:\n", "cluster:\n  images: {defaultSize: 5 gigs, pullBandwidth: 200MBs}\n"));
  EXPECT_EQ(problems, (std::vector<std::string>{
                          "s.yaml:5:48: cluster.images.pullBandwidth: invalid bandwidth \"200MBs\" (expected a number and "
                          "a unit such as 200MBps, 2GiBps or 100Gbps)",
                          "s.yaml:5:25: cluster.images.defaultSize: invalid size \"5 gigs\" (expected a quantity such as "
                          "512Mi, 5Gi or 5G)"}));
  ExpectOneProblem(ReplaceText(kBase, "count: 4,", "count: 4, network: 100 Gbit,"),
                   "s.yaml:6:38: cluster.nodes[0].network: invalid bandwidth \"100 Gbit\" (expected a number and a unit "
                   "such as 200MBps, 2GiBps or 100Gbps)");
}

TEST(ScenarioTest, UnknownFieldsSuggestTheClosestName) {
  ExpectOneProblem(ReplaceText(kBase, "count: 4,", "cuont: 4,"),
                   "s.yaml:6:26: cluster.nodes[0].cuont: unknown field \"cuont\" (did you mean \"count\"?)");
  ExpectOneProblem(kBase + "fault: []\n", "s.yaml:24:1: fault: unknown field \"fault\" (did you mean \"faults\"?)");
  ExpectOneProblem(kBase + "colour: red\n", "s.yaml:24:9: colour: unknown field \"colour\"");
  EXPECT_EQ(SuggestName("Seed", {"seed", "until"}), "seed");
  EXPECT_EQ(SuggestName("zzzzzz", {"seed", "until"}), "");
}

TEST(ScenarioTest, WrongTypes) {
  ExpectOneProblem(kBase + "seed: abc\n", "s.yaml:24:7: seed: must be an integer, got a string");
  ExpectOneProblem("just a string\n", "s.yaml:1:1: must be a mapping (apiVersion, kind, metadata, cluster, jobs, ...), got a string");
  ExpectOneProblem(kBase + "operator: {enabled: yes}\n", "s.yaml:24:21: operator.enabled: must be true or false, got \"yes\"");
}

TEST(ScenarioTest, PercentageOfNodesToScoreIsAShareFrom0To100) {
  auto with = [](const std::string& value) {
    return ReplaceText(kBase, "jobs:\n", "  scheduler: {percentageOfNodesToScore: " + value + "}\njobs:\n");
  };
  ScenarioLoad loaded = LoadScenarioString(with("30"), "s.yaml", kDataDir);
  ASSERT_TRUE(loaded.ok()) << ::testing::PrintToString(loaded.problems);
  EXPECT_EQ(loaded.scenario->cluster.scheduler.percentage_of_nodes_to_score, 30);
  ScenarioLoad defaulted = LoadScenarioString(kBase, "s.yaml", kDataDir);
  ASSERT_TRUE(defaulted.ok());
  EXPECT_EQ(defaulted.scenario->cluster.scheduler.percentage_of_nodes_to_score, 100);
  ExpectOneProblem(with("101"), "s.yaml:7:41: cluster.scheduler.percentageOfNodesToScore: must be at most 100, got 101");
  ExpectOneProblem(with("-1"), "s.yaml:7:41: cluster.scheduler.percentageOfNodesToScore: must be at least 0, got -1");
}

TEST(ScenarioTest, WrongApiVersionKindAndEmptyFiles) {
  ExpectOneProblem(ReplaceText(kBase, "dglsim/v1", "dglsim/v2"), "s.yaml:1:13: apiVersion: unsupported value \"dglsim/v2\": must be \"dglsim/v1\"");
  ExpectOneProblem(ReplaceText(kBase, "kind: Scenario\n", ""), "s.yaml:1:1: kind: required field is missing");
  ExpectOneProblem("", "s.yaml:1:1: the file holds no scenario (expected apiVersion: dglsim/v1, kind: Scenario)");
  ExpectOneProblem(ReplaceText(kBase, "  nodes:\n    - {name: gpu, count: 4, capacity: {cpu: \"96\", nvidia.com/gpu: \"8\"}}\n", "  nodes: []\n"),
                   "s.yaml:5:3: cluster.nodes: at least one node (a template or a manifest) or one of cluster.nodePools is required");
}

TEST(ScenarioTest, YamlSyntaxErrorIsOneLine) {
  ExpectOneProblem(kBase + "faults: [a, b\n", "s.yaml:25:1: end of sequence flow not found");
}

TEST(ScenarioTest, UnknownFaultKindSuggestsTheKind) {
  ExpectOneProblem(kBase + "faults:\n  - {at: 1m, kind: NodeDwn, node: gpu-1}\n",
                   "s.yaml:25:20: faults[0].kind: unsupported value \"NodeDwn\": one of NodeDown, NodeUp, PodKill, OOM, "
                   "ImagePullError, NetworkSlow, ApiFaults, WatchDrop, OperatorRestart, RbacRuleRemoved, NodeDeleted (did you mean \"NodeDown\"?)");
}

TEST(ScenarioTest, FaultOnANodeTheTemplatesDoNotMake) {
  ExpectOneProblem(kBase + "faults:\n  - {at: 1m, kind: NodeDown, node: gpu-7}\n",
                   "s.yaml:25:36: faults[0].node: no node \"gpu-7\" in the cluster (nodes: gpu-0, gpu-1, gpu-2, gpu-3)");
}

TEST(ScenarioTest, FaultOnAPodNoJobCreates) {
  ExpectOneProblem(kBase + "faults:\n  - {at: 1m, kind: PodKill, pod: big-worker-2}\n",
                   "s.yaml:25:34: faults[0].pod: no job of the scenario creates a pod \"big-worker-2\" (job default/big "
                   "creates big-partitioner, big-launcher, big-worker-0 .. big-worker-1)");
}

TEST(ScenarioTest, FieldOfAnotherFaultKind) {
  ExpectOneProblem(kBase + "faults:\n  - {at: 1m, kind: NodeDown, node: gpu-1, factor: 0.5}\n",
                   "s.yaml:25:51: faults[0].factor: field \"factor\" is not used by a NodeDown fault (it belongs to NetworkSlow)");
}

TEST(ScenarioTest, FaultTriggersAndRates) {
  ExpectOneProblem(kBase + "faults:\n  - {kind: WatchDrop}\n", "s.yaml:25:5: faults[0]: a fault needs at (a time) or when ({job, phase})");
  ExpectOneProblem(kBase + "faults:\n  - {at: 0s, kind: ApiFaults, errorRate: 1.5}\n",
                   "s.yaml:25:42: faults[0].errorRate: must be at most 1.0, got 1.5");
  ExpectOneProblem(kBase + "faults:\n  - {when: {job: big, phase: Trainin}, kind: WatchDrop}\n",
                   "s.yaml:25:30: faults[0].when.phase: unsupported value \"Trainin\": one of Pending, Partitioning, "
                   "Partitioned, Training, Restarting, Suspended, Succeeded, Failed (did you mean \"Training\"?)");
}

TEST(ScenarioTest, JobInAnExpectationThatNoJobDefines) {
  ExpectOneProblem(kBase + "expect:\n  - {job: bgi, phase: Succeeded}\n",
                   "s.yaml:25:11: expect[0].job: no job named \"bgi\" in the scenario's jobs (did you mean \"big\"?)");
  ExpectOneProblem(kBase + "expect:\n  - {configMap: default/other-config, key: ipconfig, lines: 2}\n",
                   "s.yaml:25:17: expect[0].configMap: no job of the scenario creates ConfigMap \"default/other-config\" "
                   "(a job J makes J-config)");
}

TEST(ScenarioTest, ExpectationShapes) {
  ExpectOneProblem(kBase + "expect:\n  - {job: big, phase: Succeeded, within: 1h}\n",
                   "s.yaml:25:5: expect[0]: an expectation checks one thing: found both phase and within; split it in two");
  ExpectOneProblem(kBase + "expect:\n  - {job: big}\n",
                   "s.yaml:25:5: expect[0]: unknown expectation: it needs one of phase, phases, condition, within, "
                   "restarts, configMap, breakdown, peakMemory, pods, nodes, invariants");
  ExpectOneProblem(kBase + "expect:\n  - {job: big, phase: Suceeded}\n",
                   "s.yaml:25:23: expect[0].phase: unsupported value \"Suceeded\": one of Pending, Partitioning, "
                   "Partitioned, Training, Restarting, Suspended, Succeeded, Failed (did you mean \"Succeeded\"?)");
  ExpectOneProblem(kBase + "expect:\n  - {job: big, breakdown: partition, between: [2h, 1h]}\n",
                   "s.yaml:25:38: expect[0].between: low 2h is above high 1h");
  ExpectOneProblem(kBase + "expect:\n  - {invariants: [phasesMoveFoward]}\n",
                   "s.yaml:25:19: expect[0].invariants[0]: unknown invariant \"phasesMoveFoward\": one of "
                   "nodeNotOvercommitted, noPodOnNotReadyNode, succeededOnlyIfLauncherSucceeded, "
                   "noTrainingBeforePartition, phasesMoveForward, noObjectsAfterDelete, resourceVersionsIncrease, "
                   "jobsTerminalOrProgressing (did you mean \"phasesMoveForward\"?)");
}

TEST(ScenarioTest, RegexesAreBoundedInLengthAndInWhatTheyCompileTo) {
  // 30,000 nested parentheses overflowed std::regex's recursive compiler (SIGSEGV in validate).
  const std::string deep = std::string(30000, '(') + "a" + std::string(30000, ')');
  ExpectOneProblem(kBase + "expect:\n  - {configMap: big-config, key: ipconfig, line: 0, matches: '" + deep + "'}\n",
                   "s.yaml:25:62: expect[0].matches: invalid regular expression \"" + std::string(60, '(') +
                       "...\": longer than 1000 bytes (60001)");
  ExpectOneProblem(kBase + "expect:\n  - {configMap: big-config, key: ipconfig, line: 0, matches: '((a{100}){100}){100}'}\n",
                   "s.yaml:25:62: expect[0].matches: invalid regular expression \"((a{100}){100}){100}\": invalid repetition "
                   "size: {100}");
  ExpectOneProblem(kBase + "expect:\n  - {configMap: big-config, key: ipconfig, line: 0, matches: '(a)\\1'}\n",
                   "s.yaml:25:62: expect[0].matches: invalid regular expression \"(a)\\\\1\": invalid escape sequence: \\1");
}

TEST(ScenarioTest, RegexMustCompileAndSelectorMustParse) {
  ExpectOneProblem(kBase + "expect:\n  - {configMap: big-config, key: ipconfig, line: 0, matches: \"(unclosed\"}\n",
                   "s.yaml:25:62: expect[0].matches: invalid regular expression \"(unclosed\": missing ): (unclosed");
  const std::vector<std::string> problems = Problems(kBase + "expect:\n  - {pods: {selector: \"a in (b\"}, count: 0}\n");
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_TRUE(problems[0].starts_with("s.yaml:25:23: expect[0].pods.selector: invalid label selector \"a in (b\": "))
      << problems[0];
}

TEST(ScenarioTest, JobActionsNameSubmittedJobsAfterTheirSubmission) {
  ExpectOneProblem(kBase + "  - {at: 0s, delete: {name: nosuch}}\n",
                   "s.yaml:24:29: jobs[1].delete.name: no job named \"nosuch\" in the scenario's jobs");
  ExpectOneProblem(ReplaceText(kBase, "  - at: 0s", "  - at: 1h") + "  - {at: 0s, suspend: big}\n",
                   "s.yaml:24:10: jobs[1].at: suspend of default/big at 0s comes before the job is submitted (at 1h)");
  const std::string again =
      "  - at: 1h\n    inline: {apiVersion: kubeflow.org/v1alpha1, kind: DGLJob, metadata: {name: big}, spec: "
      "{partitionMode: Skip, dglReplicaSpecs: {Launcher: {template: {spec: {containers: [{name: l, image: i}]}}}}}}\n";
  ExpectOneProblem(kBase + again,
                   "s.yaml:25:80: jobs[1]: job default/big is submitted again while it exists (first submitted at "
                   "s.yaml:12:24); delete it in between");
  ScenarioLoad deleted = LoadScenarioString(kBase + "  - {at: 30m, delete: big}\n" + again, "s.yaml", kDataDir);
  EXPECT_TRUE(deleted.ok()) << ::testing::PrintToString(deleted.problems);
}

TEST(ScenarioTest, DatasetsMustBeKnown) {
  ExpectOneProblem(ReplaceText(kBase, "    inline:", "    dataset: products\n    inline:") +
                       "datasets:\n  - {name: ogbn-products, preset: ogbn-products}\n",
                   "s.yaml:9:14: jobs[0].dataset: no dataset named \"products\" in datasets");
  ExpectOneProblem(kBase + "datasets:\n  - {name: x, preset: ogbn-product}\n",
                   "s.yaml:25:23: datasets[0].preset: unsupported value \"ogbn-product\": one of ogbn-products, "
                   "ogbn-papers100M, ogbn-arxiv, ogbn-proteins (did you mean \"ogbn-products\"?)");
}

TEST(ScenarioTest, InlineDGLJobValidationPointsIntoTheScenario) {
  ExpectOneProblem(ReplaceText(kBase, "replicas: 2", "replicas: 0"),
                   "s.yaml:20:23: jobs[0].inline.spec.dglReplicaSpecs.Worker.replicas: Invalid value: 0: must be >= 1");
}

TEST(ScenarioTest, ManifestDGLJobValidationPointsIntoTheManifestFile) {
  const std::string manifest = WriteTemp("bad-job.yaml", R"(apiVersion: kubeflow.org/v1alpha1
kind: DGLJob
metadata: {name: other, namespace: team-a}
spec:
  dglReplicaSpecs:
    Launcher:
      template: {spec: {containers: [{name: l, image: i}]}}
    Worker:
      replicas: -3
      template: {spec: {containers: [{name: w, image: i}]}}
)");
  ExpectOneProblem(kBase + "  - {at: 1m, manifest: " + manifest + "}\n",
                   manifest + ":9:17: spec.dglReplicaSpecs.Worker.replicas: Invalid value: -3: must be >= 1");
  ExpectOneProblem(kBase + "  - {at: 1m, manifest: missing.yaml}\n",
                   "s.yaml:24:24: jobs[1].manifest: cannot load \"" + kDataDir +
                       "/missing.yaml\": cannot open: No such file or directory");
}

TEST(ScenarioTest, MultiDocumentManifestSubmitsEveryJobAndListsTheirNamespaces) {
  const std::string job = R"(apiVersion: kubeflow.org/v1alpha1
kind: DGLJob
metadata: {name: NAME, namespace: NS}
spec:
  partitionMode: Skip
  dglReplicaSpecs:
    Launcher:
      template: {spec: {containers: [{name: l, image: i}]}}
)";
  const std::string manifest =
      WriteTemp("two-jobs.yaml", ReplaceText(ReplaceText(job, "NAME", "one"), "NS", "team-b") + "---\n" +
                                     ReplaceText(ReplaceText(job, "NAME", "two"), "NS", "team-a"));
  ScenarioLoad load = LoadScenarioString(kBase + "  - {at: 1m, manifest: " + manifest + "}\n", "s.yaml", kDataDir);
  ASSERT_TRUE(load.ok()) << ::testing::PrintToString(load.problems);
  EXPECT_EQ(load.scenario->jobs[1].objects.size(), 2u);
  EXPECT_EQ(load.scenario->jobs[1].manifest_path, manifest);
  EXPECT_EQ(load.scenario->namespaces, (std::vector<std::string>{"default", "team-a", "team-b"}));
}

TEST(ScenarioTest, AmbiguousJobNamesNeedTheirNamespace) {
  const std::string other =
      "  - inline: {apiVersion: kubeflow.org/v1alpha1, kind: DGLJob, metadata: {name: big, namespace: b}, spec: "
      "{partitionMode: Skip, dglReplicaSpecs: {Launcher: {template: {spec: {containers: [{name: l, image: i}]}}}}}}\n";
  ExpectOneProblem(kBase + other + "expect:\n  - {job: big, phase: Succeeded}\n",
                   "s.yaml:26:11: expect[0].job: ambiguous: default/big and b/big; write namespace/name");
  EXPECT_TRUE(LoadScenarioString(kBase + other + "expect:\n  - {job: b/big, phase: Succeeded}\n", "s.yaml", kDataDir).ok());
}

TEST(ScenarioTest, LegacyManifestIsConvertedWithAWarning) {
  DGLSIM_REQUIRE_SHARED_EXAMPLES();
  const std::string path = ::testing_shared::SharedDir() + "/reference/dgl-operator-examples/GraphSAGE.yaml";
  ScenarioLoad load = LoadScenarioString(kBase + "  - {at: 1m, manifest: " + path + "}\n", "s.yaml", kDataDir);
  ASSERT_TRUE(load.ok()) << ::testing::PrintToString(load.problems);
  ASSERT_FALSE(load.warnings.empty());
  const std::string normal = std::filesystem::path(path).lexically_normal().string();
  EXPECT_TRUE(load.warnings[0].starts_with(normal + ":1:13: warning: ")) << load.warnings[0];
  EXPECT_EQ(load.scenario->jobs[1].objects[0]["apiVersion"], "kubeflow.org/v1alpha1");
}

TEST(ScenarioTest, EveryOriginalExampleLoadsAsAJob) {
  DGLSIM_REQUIRE_SHARED_EXAMPLES();
  for (const char* name : {"DGL-KE", "GraphSAGE", "GraphSAGE_dist", "graph_classification", "link_predict", "node_classification"}) {
    const std::string path = ::testing_shared::ExamplesDir() + name + ".yaml";
    ScenarioLoad load = LoadScenarioString(kBase + "  - {at: 1m, manifest: " + path + "}\n", "s.yaml", kDataDir);
    EXPECT_TRUE(load.ok()) << name << ": " << ::testing::PrintToString(load.problems);
  }
}

TEST(ScenarioTest, TheScenariosOfTheRepositoryValidate) {
  for (const char* name : {"ssp-products-2-workers", "skip-mode", "partitioner-oom"}) {
    ManifestReport report = ValidateScenarioFile(std::string(DGLSIM_SOURCE_DIR) + "/scenarios/" + name + ".yaml");
    EXPECT_TRUE(report.ok()) << name << ": " << ::testing::PrintToString(report.problems);
    EXPECT_EQ(report.notes.size(), 1u);
  }
  ManifestReport missing = ValidateScenarioFile("/nonexistent/scenario.yaml");
  EXPECT_FALSE(missing.ok());
}

// Deterministic mutations of the full example: byte flips, deletions, duplicated and swapped
// lines, and YAML punctuation dropped in. Every load ends with a scenario or with problem lines
// that each name the file; none throws or crashes.
TEST(ScenarioTest, GarbageNeverCrashes) {
  std::ifstream in(kDataDir + "/full-example.yaml");
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string original = buffer.str();
  ASSERT_FALSE(original.empty());
  std::mt19937 rng(20260101);
  const std::string punctuation = ":-[]{},&*!|>'\"%@`#\n\t 0123456789";
  int rejected = 0;
  for (int round = 0; round < 400; ++round) {
    std::string text = original;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits && !text.empty(); ++e) {
      const std::size_t at = rng() % text.size();
      switch (rng() % 5) {
        case 0: text[at] = static_cast<char>(rng() % 256); break;
        case 1: text.erase(at, 1 + rng() % 12); break;
        case 2: text.insert(at, 1, punctuation[rng() % punctuation.size()]); break;
        case 3: {  // duplicate a line
          const std::size_t start = text.rfind('\n', at);
          const std::size_t end = text.find('\n', at);
          const std::size_t from = start == std::string::npos ? 0 : start + 1;
          const std::string line = text.substr(from, (end == std::string::npos ? text.size() : end) - from);
          text.insert(from, line + "\n");
          break;
        }
        default: text.insert(at, text.substr(rng() % text.size(), 1 + rng() % 20)); break;
      }
    }
    ScenarioLoad load;
    ASSERT_NO_THROW(load = LoadScenarioString(text, "fuzz.yaml", kDataDir)) << text;
    EXPECT_EQ(load.ok(), load.problems.empty());
    if (!load.ok()) ++rejected;
    for (const std::string& problem : load.problems) {
      EXPECT_FALSE(problem.empty());
      EXPECT_EQ(problem.find('\n'), std::string::npos) << problem;
      const bool names_a_file = problem.starts_with("fuzz.yaml") || problem.find(".yaml:") != std::string::npos ||
                                problem.find(".yaml: ") != std::string::npos;
      EXPECT_TRUE(names_a_file) << problem;
    }
  }
  EXPECT_GT(rejected, 100);
}

}  // namespace
}  // namespace harness
