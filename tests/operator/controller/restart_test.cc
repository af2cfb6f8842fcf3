// How restarts are paced and what they replace (failure_policy.h, reconcile_pass.h): the back-off
// between a restart and the pods it recreates, one count per restart, a stage restart that starts
// the DGL run on pods of its own, pods judged lost as soon as their node is NotReady, and partitions
// that are not made again when they are kept (on a claim, or already in the launcher). Each test
// fails on the operator of the failure-cost finding (reports/capacity-planning.md), which relaunched
// at once onto the pods of the broken run.
#include "operator/controller/failure_policy.h"
#include "tests/operator/controller/reconcile_fixture.h"

#include <gtest/gtest.h>

#include <string>

namespace dgl::testing {
namespace {

// MakeJob's DGL-API job whose launcher keeps the partitions in a PersistentVolumeClaim.
json JobWithPartitionsOnAClaim(int workers) {
  json job = MakeJob("DGL-API", workers);
  json& launcher_spec = job["spec"]["dglReplicaSpecs"]["Launcher"]["template"]["spec"];
  launcher_spec["containers"][0]["volumeMounts"] = json::array({{{"name", "parts"}, {"mountPath", kDatasetPath}}});
  launcher_spec["volumes"] = json::array({{{"name", "parts"}, {"persistentVolumeClaim", {{"claimName", "parts"}}}}});
  return job;
}

bool HasInitContainer(const json& pod, const std::string& name) {
  for (const json& c : pod["spec"].value("initContainers", json::array())) {
    if (c.value("name", "") == name) return true;
  }
  return false;
}

class RestartTest : public ReconcileFixture {
 protected:
  // A node with its Ready condition at `ready` ("True", "False", "Unknown").
  void AddNode(const std::string& name, const std::string& ready = "True") {
    auto r = store_.Create("nodes", {{"metadata", {{"name", name}}},
                                     {"status", {{"conditions", json::array({{{"type", "Ready"}, {"status", ready}}})}}}});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  // The node lifecycle controller's mark: the node's Ready condition becomes `ready`.
  void SetNodeReady(const std::string& name, const std::string& ready) {
    auto node = store_.Get("nodes", "", name);
    ASSERT_TRUE(node.ok());
    json obj = **node;
    obj["status"]["conditions"] = json::array({{{"type", "Ready"}, {"status", ready}}});
    ASSERT_TRUE(store_.UpdateStatus("nodes", obj).ok());
  }
  // The scheduler's binding: from then on, deleting the pod waits for a kubelet to confirm.
  void Bind(const std::string& pod, const std::string& node) {
    auto r = store_.Create("pods/binding", {{"metadata", {{"name", pod}}}, {"target", {{"name", node}}}}, Ns());
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  // The kubelet of a live node confirms a deletion.
  void Confirm(const std::string& pod) {
    kube::DeleteOptions now;
    now.grace_period_seconds = 0;
    ASSERT_TRUE(store_.Delete("pods", Ns(), pod, now).ok());
  }
  // The pod's restart-epoch annotation; "(no pod)" when it does not exist.
  std::string Epoch(const std::string& pod) {
    const json obj = Get("pods", pod);
    if (obj.is_null()) return "(no pod)";
    return obj["metadata"]["annotations"].value(kAnnotationRestartEpoch, "");
  }
  std::int64_t RestartCount() { return Status().value("restartCount", std::int64_t{-1}); }

  // A DGL-API job with two workers in Training, each pod bound to a Ready node of its own (n-part,
  // n-launch, n0, n1) and a spare node n2.
  void TrainOnNodes(json job) {
    for (const char* n : {"n-part", "n-launch", "n0", "n1", "n2"}) ASSERT_NO_FATAL_FAILURE(AddNode(n));
    CreateJob(std::move(job));
    Reconcile();
    Bind("j-partitioner", "n-part");
    Bind("j-launcher", "n-launch");
    SetPod("j-partitioner", "Running", "10.0.0.2");
    Reconcile();
    SetPod("j-partitioner", "Succeeded", "10.0.0.2");
    Reconcile();
    Bind("j-worker-0", "n0");
    Bind("j-worker-1", "n1");
    SetPod("j-worker-0", "Running", "10.0.1.0");
    SetPod("j-worker-1", "Running", "10.0.1.1");
    SetPod("j-launcher", "Running", "10.0.0.3");
    Reconcile();
    ASSERT_EQ(Phase(), "Training");
  }
};

TEST(RestartBackoff, TenSecondsDoublingPerRestartCappedAtSixMinutes) {
  EXPECT_EQ(RestartBackoff(1), 10 * kube::kSecond);
  EXPECT_EQ(RestartBackoff(2), 20 * kube::kSecond);
  EXPECT_EQ(RestartBackoff(3), 40 * kube::kSecond);
  EXPECT_EQ(RestartBackoff(6), 320 * kube::kSecond);
  EXPECT_EQ(RestartBackoff(7), 360 * kube::kSecond);
  EXPECT_EQ(RestartBackoff(1'000'000), 360 * kube::kSecond);
}

// A restart recreates nothing before its back-off has passed, and says when to look again.
TEST_F(RestartTest, ARestartRecreatesItsPodsOnlyAfterItsBackoff) {
  CreateJob(MakeJob("DistParMETIS", 2));
  Reconcile();
  SetPod("j-launcher", "Running", "10.0.0.3");
  SetPod("j-worker-0", "Running", "10.0.1.0");
  SetPod("j-worker-1", "Running", "10.0.1.1");
  Reconcile();
  ASSERT_EQ(Phase(), "Training");
  FailPod("j-worker-1", 1);
  Reconcile();
  ASSERT_EQ(Phase(), "Restarting");
  EXPECT_EQ(Status().value("lastRestartTime", ""), kube::FormatTime(clock_.Now()));
  auto r = Reconcile();
  EXPECT_FALSE(Exists("pods", "j-launcher"));
  EXPECT_FALSE(Exists("pods", "j-worker-1"));
  ASSERT_TRUE(r.requeue_after.has_value());
  EXPECT_EQ(*r.requeue_after, 10 * kube::kSecond);
  clock_.Advance(10 * kube::kSecond - kube::kMillisecond);
  Reconcile();
  EXPECT_FALSE(Exists("pods", "j-launcher"));
  EXPECT_EQ(Phase(), "Restarting");
  clock_.Advance(kube::kMillisecond);
  Reconcile();
  EXPECT_EQ(Epoch("j-launcher"), "1");
  EXPECT_EQ(Epoch("j-worker-1"), "1");
  EXPECT_EQ(Phase(), "Pending");

  // The second restart waits twice as long.
  SetPod("j-launcher", "Running", "10.0.0.3");
  SetPod("j-worker-0", "Running", "10.0.1.0");
  SetPod("j-worker-1", "Running", "10.0.1.1");
  Reconcile();
  ASSERT_EQ(Phase(), "Training");
  FailPod("j-launcher", 1);
  Reconcile();
  ASSERT_EQ(RestartCount(), 2);
  r = Reconcile();
  ASSERT_TRUE(r.requeue_after.has_value());
  EXPECT_EQ(*r.requeue_after, 20 * kube::kSecond);
  clock_.Advance(20 * kube::kSecond);
  Reconcile();
  EXPECT_EQ(Epoch("j-launcher"), "2");
}

// The relaunched DGL run starts on pods of its own: the healthy worker of the broken run is
// replaced too, in the restart's epoch.
TEST_F(RestartTest, AStageRestartReplacesEveryPodOfTheBrokenRun) {
  CreateJob(MakeJob("DGL-API", 2));
  DriveToTraining(2);
  ASSERT_EQ(Phase(), "Training");
  FailPod("j-worker-1", 1);
  Reconcile();
  ASSERT_EQ(Phase(), "Restarting");
  EXPECT_FALSE(Exists("pods", "j-worker-0"));
  EXPECT_FALSE(Exists("pods", "j-worker-1"));
  clock_.Advance(RestartBackoff(1));
  Reconcile();
  // emptyDir: partitioning again first; the workers come after it, all of the new epoch.
  EXPECT_EQ(Epoch("j-partitioner"), "1");
  SetPod("j-partitioner", "Succeeded", "10.0.0.2");
  Reconcile();
  EXPECT_EQ(Epoch("j-worker-0"), "1");
  EXPECT_EQ(Epoch("j-worker-1"), "1");
  EXPECT_EQ(RestartCount(), 1);
}

// A worker whose node the node lifecycle controller marked NotReady is lost at once: its status
// still says Running and the taint manager would evict it only 300 s later.
TEST_F(RestartTest, AWorkerOnANotReadyNodeIsLostAtOnce) {
  TrainOnNodes(MakeJob("DGL-API", 2));
  SetNodeReady("n1", "Unknown");
  Reconcile();
  EXPECT_EQ(Phase(), "Restarting");
  EXPECT_EQ(RestartCount(), 1);
  EXPECT_EQ(Condition("Restarting").value("reason", ""), "WorkerLost");
  const std::string message = Condition("Restarting").value("message", "");
  EXPECT_NE(message.find("j-worker-1 was lost with its node n1"), std::string::npos) << message;
  // Nobody will confirm its deletion: force-deleted once its grace period has passed.
  EXPECT_TRUE(Get("pods", "j-worker-1")["metadata"].contains("deletionTimestamp"));
  clock_.Advance(30 * kube::kSecond);
  Reconcile();
  EXPECT_TRUE(HasEvent("ForceDeletedPod"));
  EXPECT_FALSE(Exists("pods", "j-worker-1"));
  EXPECT_EQ(RestartCount(), 1);
}

// The finding's case: the launcher fails first, while the worker's node still looks Ready. The
// restart does not relaunch onto that worker: it replaces it, and waits for the replacement, which
// can only come once the node is marked NotReady and the pod force-deleted. One loss, one restart.
TEST_F(RestartTest, ALostWorkerCostsOneRestartWhenTheLauncherFailsBeforeItsNodeIsMarked) {
  TrainOnNodes(JobWithPartitionsOnAClaim(2));
  // n1 died; the launcher lost its connection to j-worker-1 and failed; n1 still reads Ready.
  FailPod("j-launcher", 1);
  Reconcile();
  ASSERT_EQ(Phase(), "Restarting");
  ASSERT_EQ(RestartCount(), 1);
  EXPECT_FALSE(Exists("pods", "j-launcher"));  // it had failed: removed at once
  Confirm("j-worker-0");  // n0's kubelet stops the healthy worker; n1's never answers
  clock_.Advance(RestartBackoff(1));
  Reconcile();
  // Nothing is relaunched while a pod of the broken run is still going: j-worker-1 still reads
  // Running, and a new launcher would take it for one of the new run's.
  EXPECT_FALSE(Exists("pods", "j-launcher"));
  EXPECT_FALSE(Exists("pods", "j-worker-0"));
  EXPECT_EQ(Epoch("j-worker-1"), "0");
  EXPECT_EQ(Phase(), "Restarting");
  // n1 is marked NotReady 50 s after it died; j-worker-1, past its grace, is force-deleted.
  clock_.Advance(40 * kube::kSecond);
  SetNodeReady("n1", "Unknown");
  Reconcile();
  EXPECT_TRUE(HasEvent("ForceDeletedPod"));
  Reconcile();
  EXPECT_EQ(Epoch("j-launcher"), "1");
  EXPECT_EQ(Epoch("j-worker-0"), "1");
  EXPECT_EQ(Epoch("j-worker-1"), "1");
  SetPod("j-worker-0", "Running", "10.0.1.0");
  SetPod("j-worker-1", "Running", "10.0.1.2");
  SetPod("j-launcher", "Running", "10.0.0.3");
  Reconcile();
  EXPECT_EQ(Phase(), "Training");
  EXPECT_EQ(RestartCount(), 1);
}

// Only a node marked NotReady makes its pods lost: a node the reader does not hold (its cache not
// synced yet, or the Node deleted, whose pods the pod garbage collector removes) is no evidence.
TEST_F(RestartTest, APodBoundToANodeTheReaderDoesNotHoldIsNotLost) {
  TrainOnNodes(MakeJob("DGL-API", 2));
  ASSERT_TRUE(store_.Delete("nodes", "", "n1").ok());
  Reconcile();
  EXPECT_EQ(Phase(), "Training");
  EXPECT_EQ(RestartCount(), 0);
  EXPECT_TRUE(Exists("pods", "j-worker-1"));
}

// A running partitioner on a node marked NotReady is lost like any other pod: partitioning is
// retried at once, not 300 s later when the taint manager evicts it.
TEST_F(RestartTest, ARunningPartitionerOnANotReadyNodeIsRetried) {
  for (const char* n : {"n-part", "n-launch"}) ASSERT_NO_FATAL_FAILURE(AddNode(n));
  CreateJob(MakeJob("DGL-API", 2));
  Reconcile();
  Bind("j-partitioner", "n-part");
  Bind("j-launcher", "n-launch");
  SetPod("j-partitioner", "Running", "10.0.0.2");
  Reconcile();
  ASSERT_EQ(Phase(), "Partitioning");
  SetNodeReady("n-part", "False");
  Reconcile();
  EXPECT_EQ(Phase(), "Restarting");
  EXPECT_EQ(RestartCount(), 1);
  EXPECT_EQ(Condition("Restarting").value("reason", ""), "PartitionerFailed");
  const std::string message = Condition("Restarting").value("message", "");
  EXPECT_NE(message.find("lost with its node n-part (not Ready)"), std::string::npos) << message;
}

// A reader that tells when its nodes may have changed, as the controller's informer cache does
// (ObjectReader::Changes), and counts its node reads.
class NodesCountingReader : public ClientReader {
 public:
  using ClientReader::ClientReader;
  kube::ObjectPtr Get(const std::string& resource, const std::string& ns, const std::string& name) override {
    if (resource == "nodes") ++node_reads;
    return ClientReader::Get(resource, ns, name);
  }
  std::optional<std::uint64_t> Changes(const std::string& resource) override {
    return resource == "nodes" ? std::optional<std::uint64_t>(nodes_changes) : std::nullopt;
  }
  std::uint64_t nodes_changes = 0;
  int node_reads = 0;
};

class NodeReadinessCacheTest : public RestartTest {
 protected:
  NodeReadinessCacheTest() { reconciler_ = std::make_unique<Reconciler>(store_, clock_, reader_with_changes_, ReconcilerOptions{}); }
  ~NodeReadinessCacheTest() override { reconciler_.reset(); }  // before the reader it holds goes
  NodesCountingReader reader_with_changes_{store_};
};

// A pass reads a node again only when the reader's nodes changed since it last did: with the
// count unchanged no node is read, and once it moves a node marked NotReady meanwhile is seen.
TEST_F(NodeReadinessCacheTest, ANodeIsReadAgainOnlyAfterTheReadersNodesChanged) {
  TrainOnNodes(MakeJob("DGL-API", 2));
  const int reads = reader_with_changes_.node_reads;
  ASSERT_GT(reads, 0);
  Reconcile();
  EXPECT_EQ(reader_with_changes_.node_reads, reads);
  EXPECT_EQ(Phase(), "Training");
  SetNodeReady("n1", "Unknown");
  ++reader_with_changes_.nodes_changes;
  Reconcile();
  EXPECT_GT(reader_with_changes_.node_reads, reads);
  EXPECT_EQ(Phase(), "Restarting");
  const std::string message = Condition("Restarting").value("message", "");
  EXPECT_NE(message.find("j-worker-1 was lost with its node n1"), std::string::npos) << message;
}

// A restart begun by an operator that did not write status.lastRestartTime (an upgrade in the
// middle of a restart) has no back-off to wait for: its pods are recreated at once.
TEST_F(RestartTest, ARestartWithoutLastRestartTimeRecreatesAtOnce) {
  CreateJob(MakeJob("DistParMETIS", 2));
  Reconcile();
  SetPod("j-launcher", "Running", "10.0.0.3");
  SetPod("j-worker-0", "Running", "10.0.1.0");
  SetPod("j-worker-1", "Running", "10.0.1.1");
  Reconcile();
  FailPod("j-worker-1", 1);
  Reconcile();
  ASSERT_EQ(Phase(), "Restarting");
  json job = Job();
  job["status"].erase("lastRestartTime");
  ASSERT_TRUE(store_.UpdateStatus("dgljobs", job).ok());
  Reconcile();
  EXPECT_EQ(Epoch("j-launcher"), "1");
  EXPECT_EQ(Epoch("j-worker-1"), "1");
  EXPECT_EQ(Phase(), "Pending");
}

// A pod the restart adopted that goes down with its node while the restart waits is a new loss,
// counted; a pod of the broken run lost meanwhile is only replaced (tri_workload_test.cc covers the
// failed case).
TEST_F(RestartTest, WhileRestartingOnlyTheRestartsOwnLostPodsCount) {
  for (const char* n : {"n-part", "n-launch", "n-server", "n-trainer"}) ASSERT_NO_FATAL_FAILURE(AddNode(n));
  json job = MakeJob("DGL-API", 0);
  json& replicas = job["spec"]["dglReplicaSpecs"];
  replicas.erase("Worker");
  json pod_spec = {{"containers", json::array({{{"name", "main"}, {"image", "dgl:1"}}})}};
  replicas["Server"] = {{"replicas", 1}, {"template", {{"spec", pod_spec}}}};
  replicas["Trainer"] = {{"replicas", 2}, {"template", {{"spec", pod_spec}}}};
  CreateJob(job);
  Reconcile();
  Bind("j-partitioner", "n-part");
  Bind("j-launcher", "n-launch");
  SetPod("j-partitioner", "Succeeded", "10.0.0.2");
  Reconcile();
  Bind("j-server-0", "n-server");
  Bind("j-trainer-0", "n-trainer");
  for (const char* p : {"j-server-0", "j-trainer-0", "j-trainer-1", "j-launcher"}) SetPod(p, "Running", "10.0.1.1");
  Reconcile();
  ASSERT_EQ(Phase(), "Training");
  FailPod("j-trainer-1", 137);
  Reconcile();
  ASSERT_EQ(Phase(), "Restarting");
  ASSERT_EQ(RestartCount(), 1);
  // The server, of the broken run's epoch, goes down with its node: replaced, not counted.
  SetNodeReady("n-server", "Unknown");
  Reconcile();
  EXPECT_EQ(RestartCount(), 1);
  EXPECT_TRUE(Get("pods", "j-server-0")["metadata"].contains("deletionTimestamp"));
  // The launcher, adopted into the restart's epoch, goes down with its node: a new loss.
  SetNodeReady("n-launch", "Unknown");
  Reconcile();
  EXPECT_EQ(RestartCount(), 2);
  EXPECT_EQ(Condition("Restarting").value("reason", ""), "LauncherLost");
}

// With the partitions on a claim, a partitioner that succeeded and was then evicted with its node
// is not run again, before or after a restart, and no new launcher waits for it.
TEST_F(RestartTest, AnEvictedSucceededPartitionerIsNotRunAgainWhenThePartitionsAreOnAClaim) {
  TrainOnNodes(JobWithPartitionsOnAClaim(2));
  // The taint manager evicts every pod of a dead node, finished ones too (removed at once).
  SetNodeReady("n-part", "Unknown");
  ASSERT_TRUE(store_.Delete("pods", Ns(), "j-partitioner").ok());
  Reconcile();
  EXPECT_FALSE(Exists("pods", "j-partitioner"));
  EXPECT_EQ(Phase(), "Training");
  FailPod("j-launcher", 1);
  Reconcile();
  ASSERT_EQ(Phase(), "Restarting");
  Confirm("j-worker-0");
  Confirm("j-worker-1");
  clock_.Advance(RestartBackoff(1));
  Reconcile();
  EXPECT_FALSE(Exists("pods", "j-partitioner"));
  const json launcher = Get("pods", "j-launcher");
  EXPECT_EQ(Epoch("j-launcher"), "1");
  EXPECT_FALSE(HasInitContainer(launcher, kWatcherPartitioner));
  EXPECT_TRUE(Exists("pods", "j-worker-0"));
  EXPECT_EQ(Phase(), "Partitioned");
}

// With an emptyDir the partitions are in the launcher once its watcher-loop-partitioner ended: a
// partitioner evicted after that is not run again while that launcher lives.
TEST_F(RestartTest, AnEvictedSucceededPartitionerIsNotRunAgainWhileItsLauncherHoldsThePartitions) {
  TrainOnNodes(MakeJob("DGL-API", 2));
  json launcher = Get("pods", "j-launcher");
  launcher["status"]["initContainerStatuses"] =
      json::array({{{"name", "kubectl-download"}, {"state", {{"terminated", {{"exitCode", 0}}}}}},
                   {{"name", kWatcherPartitioner}, {"state", {{"terminated", {{"exitCode", 0}}}}}},
                   {{"name", "watcher-loop-worker"}, {"state", {{"terminated", {{"exitCode", 0}}}}}}});
  ASSERT_TRUE(store_.UpdateStatus("pods", launcher).ok());
  SetNodeReady("n-part", "Unknown");
  ASSERT_TRUE(store_.Delete("pods", Ns(), "j-partitioner").ok());
  Reconcile();
  EXPECT_FALSE(Exists("pods", "j-partitioner"));
  EXPECT_EQ(Phase(), "Training");
  // A restart replaces the launcher and its emptyDir with it: then partitioning runs again.
  FailPod("j-launcher", 1);
  Reconcile();
  Confirm("j-worker-0");
  Confirm("j-worker-1");
  clock_.Advance(RestartBackoff(1));
  Reconcile();
  EXPECT_EQ(Epoch("j-partitioner"), "1");
  EXPECT_EQ(Phase(), "Pending");
}

}  // namespace
}  // namespace dgl::testing
