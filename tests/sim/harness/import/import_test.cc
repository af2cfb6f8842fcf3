// `dglsim import`'s reading of evidence and the scenario it builds (sim/harness/import/).
#include "sim/harness/config/scenario.h"
#include "sim/harness/import/evidence.h"
#include "sim/harness/import/importer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace harness {
namespace {

namespace fs = std::filesystem;

std::string ImportTestFile(const std::string& name, const std::string& text) {
  const fs::path dir = fs::temp_directory_path() / ("dglsim-import-test-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path path = dir / name;
  std::ofstream(path) << text;
  return path.string();
}

std::string ImportJoined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

// Three alike GPU nodes, gpu-2 NotReady since 00:05:00; one DGLJob created at 00:00:00 that ended
// Restarting after one restart, its launcher pulling from a preset's URL.
constexpr const char* kImportDump = R"(apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: gpu-0, labels: {kubernetes.io/hostname: gpu-0, pool: gpu}}
  status:
    allocatable: {cpu: "48", memory: 384Gi, nvidia.com/gpu: "4"}
    conditions: [{type: Ready, status: "True", lastTransitionTime: "2026-03-01T00:00:00Z"}]
- apiVersion: v1
  kind: Node
  metadata: {name: gpu-1, labels: {kubernetes.io/hostname: gpu-1, pool: gpu}}
  status:
    allocatable: {cpu: "48", memory: 384Gi, nvidia.com/gpu: "4"}
    conditions: [{type: Ready, status: "True", lastTransitionTime: "2026-03-01T00:00:00Z"}]
- apiVersion: v1
  kind: Node
  metadata: {name: gpu-2, labels: {kubernetes.io/hostname: gpu-2, pool: gpu}}
  spec:
    taints: [{key: node.kubernetes.io/unreachable, effect: NoSchedule}]
  status:
    allocatable: {cpu: "48", memory: 384Gi, nvidia.com/gpu: "4"}
    conditions: [{type: Ready, status: Unknown, lastTransitionTime: "2026-03-01T00:05:00Z"}]
- apiVersion: kubeflow.org/v1alpha1
  kind: DGLJob
  metadata: {name: sage, namespace: default, creationTimestamp: "2026-03-01T00:00:00Z", uid: abc, resourceVersion: "77"}
  spec:
    partitionMode: DGL-API
    dglReplicaSpecs:
      Launcher:
        replicas: 1
        template:
          spec:
            containers:
            - name: l
              image: img
              command: [dglrun]
              args: [--dataset-url=http://snap.stanford.edu/ogb/data/nodeproppred/products.zip]
      Worker:
        replicas: 3
        template:
          spec:
            containers: [{name: w, image: img, resources: {limits: {nvidia.com/gpu: "4"}}}]
  status:
    phase: Restarting
    restartCount: 1
    conditions:
    - {type: Restarting, status: "True", reason: WorkerLost, lastTransitionTime: "2026-03-01T00:05:00Z"}
- apiVersion: v1
  kind: Pod
  metadata:
    name: sage-worker-1
    namespace: default
    labels: {training.kubeflow.org/job-name: sage, training.kubeflow.org/replica-type: worker}
  spec: {nodeName: gpu-1}
  status:
    phase: Running
    containerStatuses:
    - name: w
      state: {running: {startedAt: "2026-03-01T00:06:00Z"}}
      lastState: {terminated: {exitCode: 137, reason: OOMKilled, finishedAt: "2026-03-01T00:03:00Z"}}
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: sage-config, namespace: default}
)";

TEST(ImportEvidence, NotAListIsLocated) {
  const std::string file = ImportTestFile("pod.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n");
  evidence::Evidence ev = evidence::LoadEvidence({file}, {});
  ASSERT_EQ(ev.problems.size(), 1u) << ImportJoined(ev.problems);
  EXPECT_NE(ev.problems[0].find(file + ":2:7: kind: not a List (kind \"Pod\")"), std::string::npos) << ev.problems[0];
}

TEST(ImportEvidence, UnknownKindIsLocatedAtItsField) {
  const std::string file =
      ImportTestFile("widget.yaml", "apiVersion: v1\nkind: List\nitems:\n- apiVersion: x/v1\n  kind: Widget\n  metadata: {name: w}\n");
  evidence::Evidence ev = evidence::LoadEvidence({file}, {});
  ASSERT_EQ(ev.problems.size(), 1u) << ImportJoined(ev.problems);
  EXPECT_NE(ev.problems[0].find(file + ":5:9: items[0].kind: unknown kind \"Widget\""), std::string::npos) << ev.problems[0];
}

TEST(ImportEvidence, TruncatedJsonAndPagedListsAreRefused) {
  const std::string cut = ImportTestFile("cut.json", "{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": [{\"kind\": \"Pod\"");
  const std::string page = ImportTestFile(
      "page.yaml", "apiVersion: v1\nkind: PodList\nmetadata: {continue: abc}\nitems: []\n");
  evidence::Evidence ev = evidence::LoadEvidence({cut, page}, {});
  ASSERT_EQ(ev.problems.size(), 2u) << ImportJoined(ev.problems);
  EXPECT_NE(ev.problems[0].find(cut + ":1:"), std::string::npos) << ev.problems[0];
  EXPECT_NE(ev.problems[0].find("truncated"), std::string::npos) << ev.problems[0];
  EXPECT_NE(ev.problems[1].find(page + ":3:22: metadata.continue: one page of a longer list"), std::string::npos)
      << ev.problems[1];
}

TEST(ImportEvidence, TypedListItemsTakeTheListsKind) {
  const std::string file = ImportTestFile("nodes.json", R"({"kind": "NodeList", "apiVersion": "v1", "items": [{"metadata": {"name": "n-0"}}]})");
  evidence::Evidence ev = evidence::LoadEvidence({file}, {});
  ASSERT_TRUE(ev.ok()) << ImportJoined(ev.problems);
  ASSERT_EQ(ev.items.size(), 1u);
  EXPECT_EQ(ev.items[0].kind, "Node");
}

TEST(ImportEvidence, AuditLinesAreCheckedAndOrdered) {
  evidence::Evidence ev;
  evidence::ReadAuditLog(
      R"({"kind":"Event","apiVersion":"audit.k8s.io/v1","stage":"ResponseComplete","verb":"delete","requestReceivedTimestamp":"2026-03-01T00:02:00.000000Z"}
{"kind":"Event","apiVersion":"audit.k8s.io/v1","stage":"RequestReceived","verb":"delete","requestReceivedTimestamp":"2026-03-01T00:01:00.000000Z"}
{"kind":"Event","apiVersion":"audit.k8s.io/v1","stage":"ResponseComplete","verb":"get","requestReceivedTimestamp":"2026-03-01T00:01:00.000000Z"}
{"kind":"Event","apiVersion":"audit.k8s.io/v1","stage":"Respo)",
      "audit.log", ev);
  ASSERT_EQ(ev.problems.size(), 1u) << ImportJoined(ev.problems);
  EXPECT_EQ(ev.problems[0].rfind("audit.log:4: not one JSON object (a truncated last line?)", 0), 0u) << ev.problems[0];
  ASSERT_EQ(ev.audit.size(), 2u);  // the RequestReceived stage is not used
  EXPECT_EQ(ev.audit[0].where, "audit.log:1");
}

TEST(ImportScenario, ReplaysNodesJobsFaultsAndOutcome) {
  const std::string file = ImportTestFile("dump.yaml", kImportDump);
  evidence::Evidence ev = evidence::LoadEvidence({file}, {});
  ASSERT_TRUE(ev.ok()) << ImportJoined(ev.problems);
  importer::ImportOptions options;
  options.name = "imported-test";
  options.sources = {file};
  importer::ImportResult result = importer::BuildScenario(ev, options);
  ASSERT_TRUE(result.ok()) << ImportJoined(result.problems);
  const std::string& yaml = result.yaml;
  // One template for the three alike nodes: names kept, hostname label and lifecycle taint left out.
  EXPECT_NE(yaml.find("count: 3\n      labels: {pool: gpu}\n      name: gpu\n"), std::string::npos) << yaml;
  EXPECT_EQ(yaml.find("kubernetes.io/hostname"), std::string::npos) << yaml;
  EXPECT_EQ(yaml.find("node.kubernetes.io/unreachable"), std::string::npos) << yaml;
  // gpu-2 NotReady at 5m: it stopped the grace period (50 s) before, for good.
  EXPECT_NE(yaml.find("- {at: 4m10s, kind: NodeDown, node: gpu-2}"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("kind: OOM, pod: default/sage-worker-1"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("dataset: ogbn-products"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("- {job: default/sage, phase: Restarting}"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("- {job: default/sage, restarts: 1}"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("reason: WorkerLost"), std::string::npos) << yaml;
  // Server-set metadata and status are not submitted.
  EXPECT_EQ(yaml.find("uid: abc"), std::string::npos) << yaml;
  EXPECT_EQ(yaml.find("restartCount: 1"), std::string::npos) << yaml;
  // The ConfigMap is listed as unused, with its reason, in the header and in `unused`.
  EXPECT_NE(ImportJoined(result.unused).find("1 ConfigMap: the operator writes its ConfigMaps itself"), std::string::npos)
      << ImportJoined(result.unused);
  EXPECT_NE(yaml.find("# Evidence not used:"), std::string::npos);
  // What it wrote loads as a scenario.
  ScenarioLoad load = LoadScenarioString(yaml, "imported.yaml", ".");
  EXPECT_TRUE(load.ok()) << ImportJoined(load.problems) << yaml;
}

TEST(ImportScenario, RenamesNodesThatAreNoTemplatesNames) {
  const std::string file = ImportTestFile("odd.yaml", R"(apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: ip-10-0-0-7.ec2.internal}, status: {allocatable: {cpu: "8"}}}
- apiVersion: v1
  kind: Node
  metadata: {name: ip-10-0-0-9.ec2.internal}
  status:
    allocatable: {cpu: "8"}
    conditions: [{type: Ready, status: "False", lastTransitionTime: "2026-03-01T00:10:00Z"}]
- apiVersion: kubeflow.org/v1alpha1
  kind: DGLJob
  metadata: {name: j, namespace: default, creationTimestamp: "2026-03-01T00:00:00Z"}
  spec: {dglReplicaSpecs: {Launcher: {replicas: 1, template: {spec: {containers: [{name: l, image: i}]}}}}}
)");
  evidence::Evidence ev = evidence::LoadEvidence({file}, {});
  ASSERT_TRUE(ev.ok()) << ImportJoined(ev.problems);
  importer::ImportResult result = importer::BuildScenario(ev, {});
  ASSERT_TRUE(result.ok()) << ImportJoined(result.problems);
  EXPECT_NE(result.yaml.find("renamed: ip-10-0-0-7.ec2.internal is group-0-0, ip-10-0-0-9.ec2.internal is group-0-1"),
            std::string::npos)
      << result.yaml;
  EXPECT_NE(result.yaml.find("- {at: 9m10s, kind: NodeDown, node: group-0-1}"), std::string::npos) << result.yaml;
}

TEST(ImportScenario, EvidenceWithoutJobsOrNodesIsBad) {
  const std::string file = ImportTestFile("empty.yaml", "apiVersion: v1\nkind: List\nitems: []\n");
  evidence::Evidence ev = evidence::LoadEvidence({file}, {});
  ASSERT_TRUE(ev.ok()) << ImportJoined(ev.problems);
  importer::ImportResult result = importer::BuildScenario(ev, {});
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.problems[0].find("no DGLJob in the evidence"), std::string::npos) << result.problems[0];
}

}  // namespace
}  // namespace harness
