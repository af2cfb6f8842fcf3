// The reconciler against a real fake API server and a ManualClock; the tests play kubelet by writing
// pod status. One or more tests per rule of shared/design/dgljob-api.md, and one per defect of the
// original operator, each of which fails on the original behaviour.
#include "tests/operator/controller/reconcile_fixture.h"
#include "tests/shared_examples.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace dgl::testing {
namespace {

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

class ReconcilerTest : public ReconcileFixture {};

// ---- stages per partition mode ------------------------------------------------------------------

TEST_F(ReconcilerTest, DglApiFirstPassCreatesPartitionerLauncherAndSupportObjectsButNoWorkers) {
  CreateJob(MakeJob("DGL-API", 2));
  Reconcile();
  auto pods = Names("pods");
  EXPECT_EQ(pods, (std::vector<std::string>{"j-launcher", "j-partitioner"}));
  EXPECT_TRUE(Exists("configmaps", "j-config"));
  EXPECT_TRUE(Exists("serviceaccounts", "j-launcher"));
  EXPECT_TRUE(Exists("serviceaccounts", "j-partitioner"));
  EXPECT_TRUE(Exists("roles", "j-launcher"));
  EXPECT_TRUE(Exists("rolebindings", "j-partitioner"));
  EXPECT_EQ(Names("services"), std::vector<std::string>{"j-worker"});
  EXPECT_EQ(Phase(), "Pending");
  EXPECT_EQ(Condition("Created").value("status", ""), "True");
  EXPECT_EQ(Status()["restartCount"], 0);
}

TEST_F(ReconcilerTest, PhaseFollowsCurrentPodsInTheSameReconcile) {  // the original lagged a reconcile
  CreateJob(MakeJob("DGL-API", 2));
  Reconcile();
  SetPod("j-partitioner", "Running", "10.0.0.2");
  Reconcile();
  EXPECT_EQ(Phase(), "Partitioning");
  EXPECT_EQ(Status()["replicaStatuses"]["Partitioner"]["active"], 1);
  SetPod("j-partitioner", "Succeeded", "10.0.0.2");
  Reconcile();
  EXPECT_EQ(Phase(), "Partitioned");
  // Workers are created in the same pass that saw the partitioner succeed.
  EXPECT_TRUE(Exists("pods", "j-worker-0"));
  EXPECT_TRUE(Exists("pods", "j-worker-1"));
}

// The workers one pass creates are copies of one pod built once: the stored pods share what the
// builders made alike (here the DGL server port they add), instead of holding a copy each.
TEST_F(ReconcilerTest, WorkersCreatedInOnePassShareWhatTheyHaveAlike) {
  CreateJob(MakeJob("DGL-API", 3));
  Reconcile();
  SetPod("j-partitioner", "Succeeded", "10.0.0.2");
  Reconcile();
  json w0 = Get("pods", "j-worker-0");
  json w2 = Get("pods", "j-worker-2");
  ASSERT_FALSE(w0.is_null());
  ASSERT_FALSE(w2.is_null());
  EXPECT_EQ(w0["spec"]["containers"][0]["ports"], w2["spec"]["containers"][0]["ports"]);
  EXPECT_EQ(w2["spec"]["hostname"], "j-worker-2");
  w0 = json();  // (copies of a stored object share its members too)
  w2 = json();
  auto stored = store_.Get("pods", "ns", "j-worker-1");
  ASSERT_TRUE(stored.ok());
  const json& port = (**stored)["spec"]["containers"][0]["ports"][0];
  EXPECT_FALSE(port.get_ref<const json::object_t&>().Alone()) << "each worker holds its own copy";
}

TEST_F(ReconcilerTest, WorkersAreCreatedOnlyAfterThePartitionerSucceeded) {
  CreateJob(MakeJob("DGL-API", 3));
  Reconcile();
  SetPod("j-partitioner", "Running", "10.0.0.2");
  Reconcile();
  Reconcile();
  EXPECT_FALSE(Exists("pods", "j-worker-0"));
}

TEST_F(ReconcilerTest, PartitionedDoesNotBounceWhileWorkersComeUp) {  // the original lagged a reconcile
  CreateJob(MakeJob("DGL-API", 2));
  Reconcile();
  SetPod("j-partitioner", "Succeeded", "10.0.0.2");
  Reconcile();
  SetPod("j-worker-0", "Running", "10.0.1.0");
  Reconcile();
  EXPECT_EQ(Phase(), "Partitioned");
  SetPod("j-worker-1", "Running", "10.0.1.1");
  SetPod("j-launcher", "Running", "10.0.0.3");
  Reconcile();
  EXPECT_EQ(Phase(), "Training");
  // A worker briefly not Running does not take the job back to Partitioned.
  SetPod("j-worker-1", "Pending");
  Reconcile();
  EXPECT_EQ(Phase(), "Training");
}

TEST_F(ReconcilerTest, SuccessSetsCompletionTimeAndStartTimeIsSaved) {  // the original never set completionTime
  CreateJob(MakeJob("DGL-API", 2));
  Reconcile();
  const std::string start = Status().value("startTime", "");
  EXPECT_EQ(start, kube::FormatTime(clock_.Now()));
  DriveToTraining(2);
  EXPECT_EQ(Phase(), "Training");
  clock_.Advance(100 * kube::kSecond);
  SetPod("j-launcher", "Succeeded", "10.0.0.3");
  Reconcile();
  EXPECT_EQ(Phase(), "Succeeded");
  EXPECT_EQ(Status().value("completionTime", ""), kube::FormatTime(clock_.Now()));
  EXPECT_EQ(Status().value("startTime", ""), start);
  EXPECT_EQ(Condition("Succeeded").value("status", ""), "True");
  EXPECT_EQ(Condition("Training").value("status", ""), "False");
  EXPECT_EQ(Condition("Succeeded").value("reason", ""), "LauncherSucceeded");
  EXPECT_EQ(Status()["replicaStatuses"]["Launcher"]["succeeded"], 1);
}

TEST_F(ReconcilerTest, SkipModeRunsTheLauncherAloneAndLeavesPending) {  // the original stayed Pending
  CreateJob(MakeJob("Skip", 0));
  Reconcile();
  EXPECT_EQ(Names("pods"), std::vector<std::string>{"j-launcher"});
  EXPECT_TRUE(Names("services").empty());
  EXPECT_TRUE(Names("roles").empty());
  json launcher = Get("pods", "j-launcher");
  EXPECT_FALSE(launcher["spec"].contains("initContainers"));
  SetPod("j-launcher", "Running", "10.0.0.3");
  Reconcile();
  EXPECT_EQ(Phase(), "Training");
  SetPod("j-launcher", "Succeeded", "10.0.0.3");
  Reconcile();
  EXPECT_EQ(Phase(), "Succeeded");
  EXPECT_TRUE(Status().contains("completionTime"));
}

TEST_F(ReconcilerTest, ParMetisRunsAPartitionerAndProgresses) {  // the original stayed Pending
  CreateJob(MakeJob("ParMETIS", 2));
  Reconcile();
  json part = Get("pods", "j-partitioner");
  ASSERT_FALSE(part.is_null());
  bool mode_env = false;
  for (const json& e : part["spec"]["containers"][0]["env"]) {
    mode_env |= e["name"] == "DGL_OPERATOR_PARTITION_MODE" && e["value"] == "ParMETIS";
  }
  EXPECT_TRUE(mode_env);
  SetPod("j-partitioner", "Running", "10.0.0.2");
  Reconcile();
  EXPECT_EQ(Phase(), "Partitioning");
  EXPECT_NE(Condition("Partitioning").value("message", "").find("ParMETIS"), std::string::npos);
  DriveToTraining(2);
  EXPECT_EQ(Phase(), "Training");
}

TEST_F(ReconcilerTest, DistParMetisCreatesWorkersAndLauncherTogetherWithDistPartitioner) {
  CreateJob(MakeJob("DistParMETIS", 3));
  Reconcile();
  EXPECT_EQ(Names("pods"), (std::vector<std::string>{"j-launcher", "j-worker-0", "j-worker-1", "j-worker-2"}));
  EXPECT_TRUE(Names("rolebindings") == std::vector<std::string>{"j-launcher"});
  json launcher = Get("pods", "j-launcher");
  std::vector<std::string> init;
  for (const json& c : launcher["spec"]["initContainers"]) init.push_back(c["name"]);
  EXPECT_EQ(init, (std::vector<std::string>{"kubectl-download", "watcher-loop-worker", "dist-partitioner"}));
  // Phases from the launcher's init containers.
  for (int i = 0; i < 3; ++i) SetPod("j-worker-" + std::to_string(i), "Running", "10.0.1." + std::to_string(i));
  json pod = Get("pods", "j-launcher");
  pod["status"]["initContainerStatuses"] =
      json::array({{{"name", "kubectl-download"}, {"state", {{"terminated", {{"exitCode", 0}}}}}},
                   {{"name", "watcher-loop-worker"}, {"state", {{"terminated", {{"exitCode", 0}}}}}},
                   {{"name", "dist-partitioner"}, {"state", {{"running", json::object()}}}}});
  ASSERT_TRUE(store_.UpdateStatus("pods", pod).ok());
  Reconcile();
  EXPECT_EQ(Phase(), "Partitioning");
  pod = Get("pods", "j-launcher");
  pod["status"]["initContainerStatuses"][2]["state"] = {{"terminated", {{"exitCode", 0}}}};
  ASSERT_TRUE(store_.UpdateStatus("pods", pod).ok());
  Reconcile();
  EXPECT_EQ(Phase(), "Partitioned");
  SetPod("j-launcher", "Running", "10.0.0.3");
  Reconcile();
  EXPECT_EQ(Phase(), "Training");
  SetPod("j-launcher", "Succeeded", "10.0.0.3");
  Reconcile();
  EXPECT_EQ(Phase(), "Succeeded");
}

// ---- ConfigMap, Service ------------------------------------------------------------------------

TEST_F(ReconcilerTest, WorkerTenGetsItsOwnIpWithTwelveWorkers) {  // the original ordered IPs as strings
  CreateJob(MakeJob("DGL-API", 12));
  DriveToTraining(12);
  json data = Get("configmaps", "j-config")["data"];
  auto ipconfig = Lines(data["ipconfig"]);
  auto hostfile = Lines(data["hostfile"]);
  ASSERT_EQ(ipconfig.size(), 12u);
  ASSERT_EQ(hostfile.size(), 12u);
  for (int i = 0; i < 12; ++i) {
    const std::string ip = "10.0.1." + std::to_string(i);
    const std::string pod = "j-worker-" + std::to_string(i);
    EXPECT_EQ(ipconfig[i], ip + " 30050 1 " + pod + " 8");
    EXPECT_EQ(hostfile[i], ip + " 30050 " + pod + " slots=8");
  }
  EXPECT_EQ(data["partfile"], "10.0.0.2 30050 j-partitioner\n");
  EXPECT_EQ(data["leadfile"], "10.0.0.3 30050 j-launcher\n");
}

TEST_F(ReconcilerTest, IpconfigListsOnlyWorkersWithAnIp) {
  CreateJob(MakeJob("DistParMETIS", 3));
  Reconcile();
  SetPod("j-worker-2", "Running", "10.0.1.2");
  Reconcile();
  EXPECT_EQ(Get("configmaps", "j-config")["data"]["ipconfig"], "10.0.1.2 30050 1 j-worker-2 8\n");
}

TEST_F(ReconcilerTest, ExactlyOneServiceWithNumServersPorts) {  // the original made one Service per port
  CreateJob(MakeJob("DGL-API", 4, /*num_servers=*/3));
  DriveToTraining(4);
  auto services = Names("services");
  ASSERT_EQ(services, std::vector<std::string>{"j-worker"});
  json svc = Get("services", "j-worker");
  EXPECT_EQ(svc["spec"]["clusterIP"], "None");
  ASSERT_EQ(svc["spec"]["ports"].size(), 3u);
  EXPECT_EQ(svc["spec"]["ports"][0]["port"], 30050);
  EXPECT_EQ(svc["spec"]["ports"][2]["port"], 30052);
}

// ---- idempotency and conditions ------------------------------------------------------------------

TEST_F(ReconcilerTest, SecondReconcileMakesNoWritesAtEveryStage) {
  CreateJob(MakeJob("DGL-API", 2));
  Reconcile();
  EXPECT_EQ(WritesOfReconcile(), 0);
  SetPod("j-partitioner", "Running", "10.0.0.2");
  Reconcile();
  EXPECT_EQ(WritesOfReconcile(), 0);
  SetPod("j-partitioner", "Succeeded", "10.0.0.2");
  Reconcile();
  EXPECT_EQ(WritesOfReconcile(), 0);
  SetPod("j-worker-0", "Running", "10.0.1.0");
  SetPod("j-worker-1", "Running", "10.0.1.1");
  SetPod("j-launcher", "Running", "10.0.0.3");
  Reconcile();
  clock_.Advance(3 * kube::kSecond);
  EXPECT_EQ(WritesOfReconcile(), 0);
  SetPod("j-launcher", "Succeeded", "10.0.0.3");
  Reconcile();
  clock_.Advance(3 * kube::kSecond);
  const int writes = WritesOfReconcile();
  EXPECT_EQ(writes, 0);
  if (writes != 0) {
    for (const auto& w : write_log_) ADD_FAILURE() << w;
  }
}

TEST_F(ReconcilerTest, LastTransitionTimeChangesOnlyWhenStatusChanges) {
  CreateJob(MakeJob("DGL-API", 2));
  Reconcile();
  SetPod("j-partitioner", "Running", "10.0.0.2");
  Reconcile();
  const std::string t1 = Condition("Partitioning").value("lastTransitionTime", "");
  clock_.Advance(10 * kube::kSecond);
  Reconcile();
  EXPECT_EQ(Condition("Partitioning").value("lastTransitionTime", ""), t1);
  SetPod("j-partitioner", "Succeeded", "10.0.0.2");
  Reconcile();
  EXPECT_EQ(Condition("Partitioning").value("status", ""), "False");
  EXPECT_EQ(Condition("Partitioning").value("lastTransitionTime", ""), kube::FormatTime(clock_.Now()));
  EXPECT_EQ(Condition("Partitioned").value("status", ""), "True");
  // One condition per type.
  std::set<std::string> types;
  json status = Status();
  for (const json& c : status["conditions"]) EXPECT_TRUE(types.insert(c["type"]).second) << c.dump();
}

TEST_F(ReconcilerTest, EveryPhaseChangeRecordsAnEventAboutTheJob) {
  json job = CreateJob(MakeJob("DGL-API", 1));
  Reconcile();
  SetPod("j-partitioner", "Running", "10.0.0.2");
  Reconcile();
  ASSERT_TRUE(HasEvent("PartitionerRunning"));
  for (const json& e : Events()) {
    EXPECT_EQ(e["involvedObject"]["uid"], job["metadata"]["uid"]);
    EXPECT_EQ(e["involvedObject"]["kind"], "DGLJob");
    EXPECT_EQ(e["involvedObject"]["name"], "j");
    EXPECT_EQ(e["source"]["component"], "dgl-operator");
    EXPECT_EQ(e["count"], 1);
    EXPECT_FALSE(e.value("firstTimestamp", "").empty());
  }
}

// A pass that finds the support objects as they should be remembers their resourceVersions and
// skips them while nothing changed; whatever changes an object, or the inputs, brings the check back.
TEST_F(ReconcilerTest, SupportObjectsChangedOrDeletedByHandAreRestoredAfterQuietPasses) {
  CreateJob(MakeJob("DGL-API", 2));
  Reconcile();
  EXPECT_EQ(WritesOfReconcile(), 0);  // everything in place: remembered
  const json data = Get("configmaps", "j-config")["data"];
  const json rules = Get("roles", "j-launcher")["rules"];
  json cm = Get("configmaps", "j-config");
  cm["data"]["hostfile"] = "tampered\n";
  ASSERT_TRUE(store_.Update("configmaps", cm).ok());
  Reconcile();
  EXPECT_EQ(Get("configmaps", "j-config")["data"], data);
  json role = Get("roles", "j-launcher");
  role["rules"] = json::array();
  ASSERT_TRUE(store_.Update("roles", role).ok());
  EXPECT_EQ(WritesOfReconcile(), 1);
  EXPECT_EQ(Get("roles", "j-launcher")["rules"], rules);
  ASSERT_TRUE(store_.Delete("services", "ns", "j-worker").ok());
  Reconcile();
  EXPECT_TRUE(Exists("services", "j-worker"));
  EXPECT_EQ(WritesOfReconcile(), 0);
}

// A support object the pass wrote is remembered only when the server returned it as asked: one a
// mutating admission changed on the way is checked again by the next pass, which finds it drifted.
TEST_F(ReconcilerTest, ASupportObjectWrittenButStoredOtherwiseIsCheckedAgain) {
  CreateJob(MakeJob("DGL-API", 2));
  Reconcile();
  EXPECT_EQ(WritesOfReconcile(), 0);
  int rewrites = 0;  // each rewrite differs, so that no update is a no-op the server skips
  store_.AddDefaulter("configmaps", [&rewrites](fakeapi::AdmissionRequest& request) {
    if (request.operation == fakeapi::Operation::kUpdate) {
      (*request.object)["data"]["hostfile"] = "rewritten " + std::to_string(++rewrites) + "\n";
    }
  });
  json cm = Get("configmaps", "j-config");
  cm["data"]["hostfile"] = "tampered\n";
  ASSERT_TRUE(store_.Update("configmaps", cm).ok());
  auto configmap_updates = [&] {
    const std::size_t before = write_log_.size();
    Reconcile();
    return std::count(write_log_.begin() + static_cast<std::ptrdiff_t>(before), write_log_.end(),
                      "update configmaps ns/j-config");
  };
  EXPECT_EQ(configmap_updates(), 1);
  ASSERT_EQ(Get("configmaps", "j-config")["data"]["hostfile"], "rewritten 2\n");
  EXPECT_EQ(configmap_updates(), 1);  // not remembered: checked, found drifted, written again
}

// Pods getting their IPs move the addresses, which only the ConfigMap is built from: the pass
// rewrites the ConfigMap and nothing else while the rest is as it was left, and an object among the
// rest changed meanwhile is still put back.
TEST_F(ReconcilerTest, AddressesMovingRewriteTheConfigMapAndStillRestoreAnotherObjectChanged) {
  CreateJob(MakeJob("DGL-API", 2));
  Reconcile();
  EXPECT_EQ(WritesOfReconcile(), 0);  // everything in place: remembered
  const auto support_writes_of_reconcile = [&] {  // the pods' and the job's own writes aside
    const std::size_t before = write_log_.size();
    Reconcile();
    std::vector<std::string> out;
    for (std::size_t i = before; i < write_log_.size(); ++i) {
      for (const char* kind : {" configmaps ", " roles ", " rolebindings ", " serviceaccounts ", " services "}) {
        if (write_log_[i].find(kind) != std::string::npos) out.push_back(write_log_[i]);
      }
    }
    return out;
  };
  auto partfile = [&] { return Get("configmaps", "j-config")["data"][kConfigPartfile].get<std::string>(); };
  SetPod("j-partitioner", "Running", "10.0.0.7");
  EXPECT_EQ(support_writes_of_reconcile(), std::vector<std::string>{"update configmaps ns/j-config"});
  EXPECT_NE(partfile().find("10.0.0.7"), std::string::npos);
  EXPECT_EQ(support_writes_of_reconcile(), std::vector<std::string>{});

  const json rules = Get("roles", "j-launcher")["rules"];
  json role = Get("roles", "j-launcher");
  role["rules"] = json::array();
  ASSERT_TRUE(store_.Update("roles", role).ok());
  SetPod("j-partitioner", "Running", "10.0.0.8");
  EXPECT_EQ(support_writes_of_reconcile(),
            (std::vector<std::string>{"update configmaps ns/j-config", "update roles ns/j-launcher"}));
  EXPECT_EQ(Get("roles", "j-launcher")["rules"], rules);
  EXPECT_NE(partfile().find("10.0.0.8"), std::string::npos);
  EXPECT_EQ(support_writes_of_reconcile(), std::vector<std::string>{});
}

TEST_F(ReconcilerTest, ANewSpecReachesTheSupportObjectsAfterQuietPasses) {
  CreateJob(MakeJob("DGL-API", 2));
  Reconcile();
  Reconcile();
  auto exec_targets = [&] { return Get("roles", "j-launcher")["rules"][1]["resourceNames"]; };
  const json before = exec_targets();
  ASSERT_EQ(std::count(before.begin(), before.end(), "j-worker-2"), 0) << before.dump();
  PatchSpec({{"dglReplicaSpecs", {{"Worker", {{"replicas", 3}}}}}});
  Reconcile();
  const json targets = exec_targets();
  EXPECT_EQ(std::count(targets.begin(), targets.end(), "j-worker-2"), 1) << targets.dump();
}

TEST_F(ReconcilerTest, ObservedGenerationFollowsTheSpec) {
  CreateJob(MakeJob("DGL-API", 2));
  Reconcile();
  EXPECT_EQ(Status()["observedGeneration"], Job()["metadata"]["generation"]);
  PatchSpec({{"runPolicy", {{"backoffLimit", 5}}}});
  Reconcile();
  EXPECT_EQ(Status()["observedGeneration"], Job()["metadata"]["generation"]);
}

// ---- failure policy -------------------------------------------------------------------------------

TEST_F(ReconcilerTest, PartitionerFailureIsRetriedThenFailsNeverHangs) {  // the original hung on a failed partitioner
  json job = MakeJob("DGL-API", 2);
  job["spec"]["runPolicy"] = {{"backoffLimit", 1}};
  CreateJob(job);
  Reconcile();
  FailPod("j-partitioner", 1);
  Reconcile();
  EXPECT_EQ(Phase(), "Restarting");
  EXPECT_EQ(Status()["restartCount"], 1);
  EXPECT_TRUE(HasEvent("PartitionerFailed"));
  // The failed partitioner is gone; the first pass after the restart's back-off recreates it.
  Reconcile();
  EXPECT_FALSE(Exists("pods", "j-partitioner"));
  PassRestartBackoff();
  Reconcile();
  json part = Get("pods", "j-partitioner");
  ASSERT_FALSE(part.is_null());
  EXPECT_EQ(part["status"]["phase"], "Pending");
  EXPECT_EQ(Phase(), "Pending");
  FailPod("j-partitioner", 1);
  Reconcile();
  EXPECT_EQ(Phase(), "Failed");
  EXPECT_EQ(Condition("Failed").value("reason", ""), "PartitionerFailed");
  EXPECT_TRUE(Status().contains("completionTime"));
  // cleanPodPolicy Running: the launcher waiting in its init containers is deleted, not left waiting.
  EXPECT_FALSE(Exists("pods", "j-launcher"));
}

TEST_F(ReconcilerTest, OomKilledPartitionerFailsAtOnceNamingTheMemoryLimit) {
  CreateJob(MakeJob("DGL-API", 2));
  Reconcile();
  FailPod("j-partitioner", 137, "OOMKilled");
  Reconcile();
  EXPECT_EQ(Phase(), "Failed");
  EXPECT_EQ(Condition("Failed").value("reason", ""), "PartitionerOOMKilled");
  EXPECT_NE(Condition("Failed").value("message", "").find("20Gi"), std::string::npos);
  EXPECT_EQ(Status()["restartCount"], 0);
}

TEST_F(ReconcilerTest, WorkerFailureRestartsTheStageAndRepartitionsFromEmptyDir) {
  CreateJob(MakeJob("DGL-API", 2));
  DriveToTraining(2);
  ASSERT_EQ(Phase(), "Training");
  FailPod("j-worker-1", 1);
  Reconcile();
  EXPECT_EQ(Phase(), "Restarting");
  EXPECT_EQ(Status()["restartCount"], 1);
  EXPECT_EQ(Condition("Restarting").value("reason", ""), "WorkerFailed");
  // Launcher, workers (the healthy one too: the relaunched run starts on pods of its own) and
  // (emptyDir) the partitioner are replaced.
  EXPECT_FALSE(Exists("pods", "j-worker-0"));
  EXPECT_FALSE(Exists("pods", "j-worker-1"));
  PassRestartBackoff();
  Reconcile();
  EXPECT_EQ(Get("pods", "j-partitioner")["status"]["phase"], "Pending");
  EXPECT_EQ(Get("pods", "j-launcher")["metadata"]["annotations"][kAnnotationRestartEpoch], "1");
  EXPECT_EQ(Phase(), "Pending");
  EXPECT_EQ(Status()["restartCount"], 1);
  EXPECT_EQ(WritesOfReconcile(), 0);
}

TEST_F(ReconcilerTest, WorkerFailureWithPartitionsOnAPvcRestartsTrainingWithoutPartitioning) {
  json job = MakeJob("DGL-API", 2);
  json& launcher_spec = job["spec"]["dglReplicaSpecs"]["Launcher"]["template"]["spec"];
  launcher_spec["containers"][0]["volumeMounts"] = json::array({{{"name", "parts"}, {"mountPath", kDatasetPath}}});
  launcher_spec["volumes"] = json::array({{{"name", "parts"}, {"persistentVolumeClaim", {{"claimName", "parts"}}}}});
  CreateJob(job);
  DriveToTraining(2);
  FailPod("j-launcher", 1);
  Reconcile();
  EXPECT_EQ(Phase(), "Restarting");
  EXPECT_EQ(Get("pods", "j-partitioner")["status"]["phase"], "Succeeded");
  PassRestartBackoff();
  Reconcile();
  EXPECT_EQ(Phase(), "Partitioned");
  EXPECT_EQ(Get("pods", "j-launcher")["status"]["phase"], "Pending");
  SetPod("j-launcher", "Running", "10.0.0.9");
  SetPod("j-worker-0", "Running", "10.0.1.0");
  SetPod("j-worker-1", "Running", "10.0.1.1");
  Reconcile();
  EXPECT_EQ(Phase(), "Training");
}

TEST_F(ReconcilerTest, BackoffLimitExhaustedFailsTheJob) {
  json job = MakeJob("Skip", 0);
  job["spec"]["runPolicy"] = {{"backoffLimit", 0}};
  CreateJob(job);
  Reconcile();
  FailPod("j-launcher", 1);
  Reconcile();
  EXPECT_EQ(Phase(), "Failed");
  EXPECT_EQ(Condition("Failed").value("reason", ""), "LauncherFailed");
}

TEST_F(ReconcilerTest, RestartPolicyNeverAndPermanentExitCodesAreNotRetried) {
  json job = MakeJob("DistParMETIS", 2);
  job["spec"]["dglReplicaSpecs"]["Worker"]["restartPolicy"] = "ExitCode";
  CreateJob(job);
  Reconcile();
  FailPod("j-worker-0", 137);  // retryable under ExitCode
  Reconcile();
  EXPECT_EQ(Phase(), "Restarting");
  PassRestartBackoff();
  Reconcile();
  FailPod("j-worker-0", 2);  // permanent
  Reconcile();
  EXPECT_EQ(Phase(), "Failed");
  EXPECT_EQ(Condition("Failed").value("reason", ""), "WorkerFailed");
}

TEST_F(ReconcilerTest, RestartingStaysUntilReplacedPodsAreGoneThenRecreates) {
  CreateJob(MakeJob("DistParMETIS", 2));
  Reconcile();
  // Bind the launcher so its deletion is graceful (it stays Terminating until a kubelet confirms).
  ASSERT_TRUE(store_.Create("pods/binding", {{"metadata", {{"name", "j-launcher"}}}, {"target", {{"name", "n1"}}}}, "ns").ok());
  SetPod("j-launcher", "Running", "10.0.0.3");
  SetPod("j-worker-0", "Running", "10.0.1.0");
  SetPod("j-worker-1", "Running", "10.0.1.1");
  Reconcile();
  ASSERT_EQ(Phase(), "Training");
  FailPod("j-worker-1", 1);
  Reconcile();
  EXPECT_EQ(Phase(), "Restarting");
  EXPECT_TRUE(Get("pods", "j-launcher")["metadata"].contains("deletionTimestamp"));
  Reconcile();
  EXPECT_EQ(Phase(), "Restarting");
  EXPECT_EQ(Status()["restartCount"], 1);
  // The kubelet confirms.
  kube::DeleteOptions now;
  now.grace_period_seconds = 0;
  ASSERT_TRUE(store_.Delete("pods", "ns", "j-launcher", now).ok());
  Reconcile();
  EXPECT_FALSE(Exists("pods", "j-launcher"));  // the restart's back-off has not passed
  EXPECT_EQ(Phase(), "Restarting");
  PassRestartBackoff();
  Reconcile();
  EXPECT_EQ(Get("pods", "j-launcher")["status"]["phase"], "Pending");
  EXPECT_EQ(Phase(), "Pending");
}

TEST_F(ReconcilerTest, PodStuckTerminatingOnANotReadyNodeIsForceDeleted) {
  ASSERT_TRUE(store_.Create("nodes", {{"metadata", {{"name", "n1"}}},
                                      {"status", {{"conditions", json::array({{{"type", "Ready"}, {"status", "True"}}})}}}})
                  .ok());
  CreateJob(MakeJob("Skip", 0));
  Reconcile();
  ASSERT_TRUE(store_.Create("pods/binding", {{"metadata", {{"name", "j-launcher"}}}, {"target", {{"name", "n1"}}}}, "ns").ok());
  SetPod("j-launcher", "Running", "10.0.0.3");
  Reconcile();
  ASSERT_EQ(Phase(), "Training");
  // The node dies; the taint manager evicts the launcher (30 s grace) before the operator looked.
  json node = **store_.Get("nodes", "", "n1");
  node["status"]["conditions"] = json::array({{{"type", "Ready"}, {"status", "Unknown"}}});
  ASSERT_TRUE(store_.UpdateStatus("nodes", node).ok());
  ASSERT_TRUE(store_.Delete("pods", "ns", "j-launcher").ok());
  Reconcile();  // the launcher is lost under a running job: a restart
  EXPECT_EQ(Phase(), "Restarting");
  auto r = Reconcile();
  EXPECT_EQ(Phase(), "Restarting");
  ASSERT_TRUE(r.requeue_after.has_value());
  EXPECT_EQ(*r.requeue_after, RestartBackoff(1));  // before the launcher's grace ends (30 s)
  clock_.Advance(RestartBackoff(1));
  r = Reconcile();
  ASSERT_TRUE(r.requeue_after.has_value());
  EXPECT_EQ(*r.requeue_after, 30 * kube::kSecond - RestartBackoff(1));
  EXPECT_TRUE(Exists("pods", "j-launcher"));
  clock_.Advance(*r.requeue_after);
  Reconcile();
  EXPECT_TRUE(HasEvent("ForceDeletedPod"));
  // Gone, and replaced by the restart the lost launcher caused.
  Reconcile();
  EXPECT_EQ(Get("pods", "j-launcher")["status"]["phase"], "Pending");
  EXPECT_EQ(Status()["restartCount"], 1);
}

TEST_F(ReconcilerTest, ActiveDeadlineFailsWithDeadlineExceededAndDeletesPods) {
  json job = MakeJob("DGL-API", 2);
  job["spec"]["runPolicy"] = {{"activeDeadlineSeconds", 60}};
  CreateJob(job);
  auto r = Reconcile();
  ASSERT_TRUE(r.requeue_after.has_value());
  EXPECT_EQ(*r.requeue_after, 60 * kube::kSecond);
  SetPod("j-partitioner", "Running", "10.0.0.2");
  clock_.Advance(60 * kube::kSecond);
  Reconcile();
  EXPECT_EQ(Phase(), "Failed");
  EXPECT_EQ(Condition("Failed").value("reason", ""), "DeadlineExceeded");
  EXPECT_TRUE(Names("pods").empty());
  EXPECT_TRUE(Status().contains("completionTime"));
}

TEST_F(ReconcilerTest, UnschedulablePastTheTimeoutFailsTheJob) {
  json job = MakeJob("Skip", 0);
  job["spec"]["runPolicy"] = {{"schedulingPolicy", {{"scheduleTimeoutSeconds", 120}}}};
  CreateJob(job);
  Reconcile();
  json pod = Get("pods", "j-launcher");
  pod["status"]["conditions"] = json::array(
      {{{"type", "PodScheduled"}, {"status", "False"}, {"reason", "Unschedulable"}, {"message", "0/3 nodes"}}});
  ASSERT_TRUE(store_.UpdateStatus("pods", pod).ok());
  auto r = Reconcile();
  EXPECT_EQ(Phase(), "Pending");
  ASSERT_TRUE(r.requeue_after.has_value());
  EXPECT_EQ(*r.requeue_after, 120 * kube::kSecond);
  clock_.Advance(120 * kube::kSecond);
  Reconcile();
  EXPECT_EQ(Phase(), "Failed");
  EXPECT_EQ(Condition("Failed").value("reason", ""), "Unschedulable");
  EXPECT_TRUE(Names("pods").empty());
}

TEST_F(ReconcilerTest, SuspendDeletesPodsAndResumeRestartsTheStage) {
  CreateJob(MakeJob("DGL-API", 2));
  Reconcile();
  SetPod("j-partitioner", "Running", "10.0.0.2");
  Reconcile();
  PatchSpec({{"runPolicy", {{"suspend", true}}}});
  Reconcile();
  EXPECT_EQ(Phase(), "Suspended");
  EXPECT_TRUE(Names("pods").empty());
  EXPECT_EQ(Condition("Suspended").value("status", ""), "True");
  EXPECT_EQ(WritesOfReconcile(), 0);
  PatchSpec({{"runPolicy", {{"suspend", false}}}});
  Reconcile();
  EXPECT_EQ(Names("pods"), (std::vector<std::string>{"j-launcher", "j-partitioner"}));
  EXPECT_EQ(Phase(), "Pending");
  EXPECT_EQ(Condition("Suspended").value("status", ""), "False");
}

TEST_F(ReconcilerTest, CleanPodPolicyRunningDeletesOnlyActivePods) {
  CreateJob(MakeJob("DGL-API", 2));
  DriveToTraining(2);
  SetPod("j-launcher", "Succeeded", "10.0.0.3");
  Reconcile();
  auto pods = Names("pods");
  EXPECT_EQ(pods, (std::vector<std::string>{"j-launcher", "j-partitioner"}));
}

TEST_F(ReconcilerTest, CleanPodPolicyAllDeletesEveryPod) {
  json job = MakeJob("DGL-API", 2);
  job["spec"]["runPolicy"] = {{"cleanPodPolicy", "All"}};
  CreateJob(job);
  DriveToTraining(2);
  SetPod("j-launcher", "Succeeded", "10.0.0.3");
  Reconcile();
  EXPECT_TRUE(Names("pods").empty());
  EXPECT_EQ(Phase(), "Succeeded");
}

TEST_F(ReconcilerTest, CleanPodPolicyNoneKeepsEveryPod) {
  json job = MakeJob("DGL-API", 2);
  job["spec"]["runPolicy"] = {{"cleanPodPolicy", "None"}};
  CreateJob(job);
  DriveToTraining(2);
  SetPod("j-launcher", "Succeeded", "10.0.0.3");
  Reconcile();
  EXPECT_EQ(Names("pods").size(), 4u);
}

TEST_F(ReconcilerTest, TtlAfterFinishedDeletesTheJob) {
  json job = MakeJob("Skip", 0);
  job["spec"]["runPolicy"] = {{"ttlSecondsAfterFinished", 300}};
  CreateJob(job);
  Reconcile();
  SetPod("j-launcher", "Succeeded", "10.0.0.3");
  auto r = Reconcile();
  ASSERT_TRUE(r.requeue_after.has_value());
  EXPECT_EQ(*r.requeue_after, 300 * kube::kSecond);
  clock_.Advance(300 * kube::kSecond);
  Reconcile();
  EXPECT_TRUE(Job().is_null());
  EXPECT_FALSE(Exists("configmaps", "j-config"));  // garbage-collected with its owner
}

TEST_F(ReconcilerTest, DeletingTheJobCollectsEveryObjectItOwned) {  // the original left its Service behind
  CreateJob(MakeJob("DGL-API", 2));
  DriveToTraining(2);
  ASSERT_TRUE(store_.Delete("dgljobs", "ns", "j").ok());
  Reconcile();  // a job that is gone is a no-op
  for (const char* resource : {"pods", "services", "configmaps", "serviceaccounts", "roles", "rolebindings"}) {
    EXPECT_TRUE(Names(resource).empty()) << resource;
  }
}

// Reads from the API, except that the job's pods can be held at an earlier list: an informer
// cache that lags the garbage collector.
class LaggingPodsReader : public ObjectReader {
 public:
  explicit LaggingPodsReader(kube::Client& client) : api_(client) {}
  kube::ObjectPtr Get(const std::string& resource, const std::string& ns, const std::string& name) override {
    return api_.Get(resource, ns, name);
  }
  std::vector<kube::ObjectPtr> PodsOfJob(const std::string& ns, const std::string& job_name) override {
    return held_ ? *held_ : api_.PodsOfJob(ns, job_name);
  }
  void Hold(std::vector<kube::ObjectPtr> pods) { held_ = std::move(pods); }

 private:
  ClientReader api_;
  std::optional<std::vector<kube::ObjectPtr>> held_;
};

// The reconciler remembers what it read from each pod version (its controller among it), not
// whether that was the job's: a job made again under the same name that meets, in a lagging cache,
// the very versions its predecessor owned takes them for a previous job's pods and makes its own.
TEST_F(ReconcilerTest, PodVersionsOfAnEarlierJobOfTheSameNameAreNotTheNewJobs) {
  LaggingPodsReader reader(store_);
  Reconciler reconciler(store_, clock_, reader);
  CreateJob(MakeJob("DistParMETIS", 1));
  ASSERT_TRUE(reconciler.Reconcile(key_).ok());
  ASSERT_TRUE(reconciler.Reconcile(key_).ok());  // this pass reads the pods the first one made
  std::vector<kube::ObjectPtr> old_pods = reader.PodsOfJob(Ns(), Name());
  ASSERT_EQ(old_pods.size(), 2u);  // launcher and worker
  ASSERT_TRUE(store_.Delete("dgljobs", Ns(), Name()).ok());  // the collector takes the pods at once
  ASSERT_TRUE(Names("pods").empty());
  reader.Hold(old_pods);
  const json job = CreateJob(MakeJob("DistParMETIS", 1));
  ASSERT_NE(kube::UidOf(job), kube::ControllerRefOf(*old_pods.front())->value("uid", ""));
  ASSERT_TRUE(reconciler.Reconcile(key_).ok());
  for (const char* pod : {"j-launcher", "j-worker-0"}) {
    const json made = Get("pods", pod);
    ASSERT_FALSE(made.is_null()) << pod << " was not made for the new job";
    const json* owner = kube::ControllerRefOf(made);
    ASSERT_NE(owner, nullptr) << pod;
    EXPECT_EQ(owner->value("uid", ""), kube::UidOf(job)) << pod;
  }
}

TEST_F(ReconcilerTest, GangSchedulingCreatesAPodGroupSizedToTheStage) {
  ReconcilerOptions options;
  options.build.gang_scheduling = true;
  options.build.gang_scheduler_name = "scheduler-plugins-scheduler";
  MakeReconciler(options);
  CreateJob(MakeJob("DGL-API", 4));
  Reconcile();
  json pg = Get("podgroups", "j");
  ASSERT_FALSE(pg.is_null());
  EXPECT_EQ(pg["spec"]["minMember"], 2);
  EXPECT_EQ(Get("pods", "j-launcher")["metadata"]["labels"][kLabelPodGroup], "j");
  EXPECT_EQ(Get("pods", "j-launcher")["spec"]["schedulerName"], "scheduler-plugins-scheduler");
  SetPod("j-partitioner", "Succeeded", "10.0.0.2");
  Reconcile();
  EXPECT_EQ(Get("podgroups", "j")["spec"]["minMember"], 5);
}

TEST_F(ReconcilerTest, ReplicaStatusesReportReadyAsACountOverReplicas) {
  CreateJob(MakeJob("Skip", 0));
  Reconcile();
  SetPod("j-launcher", "Running", "10.0.0.3");
  Reconcile();
  ASSERT_EQ(Phase(), "Training");
  EXPECT_EQ(Status()["replicaStatuses"]["Launcher"]["ready"], "1/1");
  EXPECT_EQ(Status()["replicaStatuses"]["Launcher"]["active"], 1);
  EXPECT_FALSE(Status()["replicaStatuses"].contains("Worker"));
}

// ---- the six example manifests ------------------------------------------------------------------

struct ExampleCase {
  const char* file;
  std::vector<std::string> first_pods;
  bool workers_stage_later;
};

class ExampleManifests : public ReconcileFixture, public ::testing::WithParamInterface<ExampleCase> {};

TEST_P(ExampleManifests, ReconcileToTheExpectedObjects) {
  DGLSIM_REQUIRE_SHARED_EXAMPLES();
  const ExampleCase& c = GetParam();
  json job = CreateJob(LoadExample(c.file));
  const std::string name = kube::NameOf(job);
  Reconcile();
  EXPECT_EQ(Names("pods"), c.first_pods);
  EXPECT_TRUE(Exists("configmaps", name + "-config"));
  for (const std::string& pod : c.first_pods) {
    json p = Get("pods", pod);
    EXPECT_EQ(p["spec"]["restartPolicy"], "Never");
    EXPECT_EQ(p["metadata"]["labels"][kLabelJobName], name);
    EXPECT_EQ(p["metadata"]["ownerReferences"][0]["uid"], job["metadata"]["uid"]);
  }
  if (c.workers_stage_later) {
    SetPod(name + "-partitioner", "Succeeded", "10.0.0.2");
    Reconcile();
    EXPECT_TRUE(Exists("pods", name + "-worker-0"));
    EXPECT_TRUE(Exists("pods", name + "-worker-1"));
    EXPECT_FALSE(Exists("pods", name + "-worker-2"));
    EXPECT_EQ(Names("services"), std::vector<std::string>{name + "-worker"});
    EXPECT_EQ(Phase(), "Partitioned");
  } else {
    SetPod(name + "-launcher", "Running", "10.0.0.3");
    Reconcile();
    EXPECT_EQ(Phase(), "Training");
  }
  EXPECT_EQ(WritesOfReconcile(), 0);
}

INSTANTIATE_TEST_SUITE_P(
    OriginalOperator, ExampleManifests,
    ::testing::Values(ExampleCase{"DGL-KE.yaml", {"dgl-complex-launcher", "dgl-complex-partitioner"}, true},
                      ExampleCase{"GraphSAGE_dist.yaml", {"dgl-graphsage-launcher", "dgl-graphsage-partitioner"}, true},
                      ExampleCase{"GraphSAGE.yaml", {"dgl-graphsage-launcher"}, false},
                      ExampleCase{"graph_classification.yaml", {"dgl-graph-classification-launcher"}, false},
                      ExampleCase{"link_predict.yaml", {"dgl-link-predict-launcher"}, false},
                      ExampleCase{"node_classification.yaml", {"dgl-node-classification-launcher"}, false}),
    [](const ::testing::TestParamInfo<ExampleCase>& info) {
      std::string n = info.param.file;
      n = n.substr(0, n.find('.'));
      std::replace(n.begin(), n.end(), '-', '_');
      return n;
    });

// A store that keeps the body of every DGLJob status update it is sent.
class StatusBodyStore : public fakeapi::Store {
 public:
  using fakeapi::Store::Store;
  using fakeapi::Store::UpdateStatus;
  kube::Result<kube::ObjectPtr> UpdateStatus(const std::string& resource, json object) override {
    if (resource == "dgljobs") bodies.push_back(object);
    return fakeapi::Store::UpdateStatus(resource, std::move(object));
  }
  std::vector<json> bodies;
};

// A status update takes the status alone (kube-apiserver copies the rest from the stored object),
// so the operator sends the status with the job's identity and version, not a copy of its spec.
TEST(ReconcilerStatusWrite, SendsTheStatusWithTheJobsIdentityAndVersionOnly) {
  kube::ManualClock clock;
  StatusBodyStore store(fakeapi::StoreOptions{.clock = &clock});
  RegisterDGLJobAdmission(store);
  ASSERT_TRUE(store.Create("namespaces", {{"metadata", {{"name", "ns"}}}}).ok());
  auto job = store.Create("dgljobs", MakeJob("DGL-API", 2));
  ASSERT_TRUE(job.ok()) << job.status().ToString();
  ClientReader reader(store);
  Reconciler reconciler(store, clock, reader);
  ASSERT_TRUE(reconciler.Reconcile(kube::KeyOf(**job)).ok());
  ASSERT_FALSE(store.bodies.empty());
  const json& body = store.bodies.front();
  EXPECT_FALSE(body.contains("spec")) << body.dump();
  EXPECT_EQ(body["metadata"]["uid"], (**job)["metadata"]["uid"]);
  EXPECT_EQ(body["metadata"]["resourceVersion"], (**job)["metadata"]["resourceVersion"]);
  EXPECT_EQ(body["metadata"].size(), 4u) << body.dump();
  EXPECT_EQ(body["kind"], (**job)["kind"]);
  ASSERT_TRUE(body.contains("status"));
  // The stored job keeps its spec and takes the status.
  auto stored = store.Get("dgljobs", "ns", "j");
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ((**stored)["spec"], (**job)["spec"]);
  EXPECT_EQ((**stored)["status"]["phase"], body["status"]["phase"]);
}

}  // namespace
}  // namespace dgl::testing
