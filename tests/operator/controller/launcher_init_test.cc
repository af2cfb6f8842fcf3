// partitionerPlacement LauncherInit: the partitioner runs as the launcher's init container. The
// builders put it in place of watcher-loop-partitioner; the reconciler runs no partitioner pod,
// reads the phase from the init container, creates the workers once it succeeded, and treats its
// failure as a partitioner failure (OOMKilled: PartitionerOOMKilled at once).
#include "tests/operator/controller/reconcile_fixture.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace dgl::testing {
namespace {

json FindNamedCopy(const json& list, const std::string& name) {
  for (const json& item : list) {
    if (item.value("name", "") == name) return item;
  }
  return json();
}

std::string EnvOf(const json& container, const std::string& name) {
  const json e = FindNamedCopy(container.value("env", json::array()), name);
  return e.is_null() ? "<unset>" : e.value("value", "");
}

std::vector<std::string> ContainerNamesOf(const json& list) {
  std::vector<std::string> out;
  for (const json& c : list) out.push_back(c["name"]);
  return out;
}

// MakeJob's DGL-API job with the partitioner in the launcher, its template setting only resources.
json LauncherInitJob(int workers = 2) {
  json job = MakeJob("DGL-API", workers);
  job["spec"]["partitionerPlacement"] = "LauncherInit";
  job["spec"]["dglReplicaSpecs"]["Partitioner"] = {
      {"template",
       {{"spec",
         {{"containers", json::array({{{"name", "main"},
                                        {"image", "dgl:1"},
                                        {"resources", {{"limits", {{"cpu", "16"}, {"memory", "200Gi"}}}}}}})}}}}}};
  return job;
}

json DefaultedJob(json job) {
  job["metadata"]["uid"] = "uid-1";
  DefaultDGLJob(job);
  return job;
}

// The launcher's pod with its init containers' states as the kubelet writes them.
class LauncherInitTest : public ReconcileFixture {
 protected:
  void SetInit(const std::string& state, int exit_code = 0, const std::string& reason = "") {
    json pod = Get("pods", "j-launcher");
    ASSERT_FALSE(pod.is_null());
    json init_state = state == "running" ? json{{"running", {{"startedAt", "2026-01-01T00:00:00Z"}}}}
                                         : json{{"terminated", {{"exitCode", exit_code}, {"reason", reason}}}};
    pod["status"]["phase"] = state == "failed" ? "Failed" : "Pending";
    pod["status"]["podIP"] = "10.0.0.3";
    pod["status"]["initContainerStatuses"] = json::array(
        {{{"name", "kubectl-download"}, {"state", {{"terminated", {{"exitCode", 0}}}}}},
         {{"name", "partitioner"}, {"state", init_state}}});
    auto r = store_.UpdateStatus("pods", pod);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
};

TEST(LauncherInitBuilders, ThePartitionerIsTheLauncherInitContainerInPlaceOfTheWatcher) {
  json job = DefaultedJob(LauncherInitJob());
  json pod = BuildLauncherPod(job, BuildOptions{}, 0);
  const json& init = pod["spec"]["initContainers"];
  EXPECT_EQ(ContainerNamesOf(init), (std::vector<std::string>{"kubectl-download", "partitioner", "watcher-loop-worker"}));
  const json part = FindNamedCopy(init, "partitioner");
  // The Partitioner's resources (the launcher's pod asks for them: the larger of init and app
  // containers), the Launcher's command line, and dglrun's role.
  EXPECT_EQ(part["resources"]["limits"]["memory"], "200Gi");
  EXPECT_EQ(part["command"], json::array({"dglrun", "--num-servers", "1"}));
  EXPECT_EQ(EnvOf(part, "DGL_OPERATOR_PHASE_ENV"), "Partitioner");
  EXPECT_EQ(EnvOf(part, "DGL_OPERATOR_PARTITIONER_PLACEMENT"), "LauncherInit");
  EXPECT_EQ(EnvOf(part, "DGL_OPERATOR_PARTITION_MODE"), "DGL-API");
  // It writes the partitions onto the launcher's dataset volume.
  EXPECT_EQ(FindNamedCopy(part["volumeMounts"], "dataset-volume")["mountPath"], "/dgl_workspace/dataset");
  EXPECT_EQ(FindNamedCopy(pod["spec"]["containers"][0]["volumeMounts"], "dataset-volume")["mountPath"],
            "/dgl_workspace/dataset");
}

TEST(LauncherInitBuilders, PartitionsOnAClaimFromAnEarlierRunNeedNoPartitioner) {
  json job = DefaultedJob(LauncherInitJob());
  json pod = BuildLauncherPod(job, BuildOptions{}, 1, /*partitions_ready=*/true);
  EXPECT_EQ(ContainerNamesOf(pod["spec"]["initContainers"]),
            (std::vector<std::string>{"kubectl-download", "watcher-loop-worker"}));
}

TEST(LauncherInitBuilders, ThePartitionerBringsTheVolumesItMounts) {
  json job = LauncherInitJob();
  json& tmpl = job["spec"]["dglReplicaSpecs"]["Partitioner"]["template"]["spec"];
  tmpl["containers"][0]["volumeMounts"] = json::array({{{"name", "scratch"}, {"mountPath", "/scratch"}}});
  tmpl["volumes"] = json::array({{{"name", "scratch"}, {"emptyDir", {{"medium", "Memory"}}}},
                                 {{"name", "unused"}, {"emptyDir", json::object()}}});
  json pod = BuildLauncherPod(DefaultedJob(job), BuildOptions{}, 0);
  EXPECT_EQ(FindNamedCopy(pod["spec"]["volumes"], "scratch")["emptyDir"]["medium"], "Memory");
  EXPECT_TRUE(FindNamedCopy(pod["spec"]["volumes"], "unused").is_null());
}

TEST_F(LauncherInitTest, NoPartitionerPodOnlyTheLauncher) {
  CreateJob(LauncherInitJob());
  Reconcile();
  EXPECT_EQ(Names("pods"), std::vector<std::string>{"j-launcher"});
  EXPECT_FALSE(Exists("serviceaccounts", "j-partitioner"));
  EXPECT_FALSE(Exists("roles", "j-partitioner"));
  EXPECT_EQ(Get("configmaps", "j-config")["data"]["partfile"], "");
  EXPECT_EQ(Phase(), "Pending");
}

TEST_F(LauncherInitTest, PhaseFollowsTheInitContainerAndWorkersComeAfterIt) {
  CreateJob(LauncherInitJob());
  Reconcile();
  SetInit("running");
  Reconcile();
  EXPECT_EQ(Phase(), "Partitioning");
  EXPECT_NE(Condition("Partitioning").value("message", "").find("init container partitioner of j-launcher"),
            std::string::npos);
  EXPECT_EQ(Status()["replicaStatuses"]["Partitioner"]["active"], 1);
  EXPECT_TRUE(HasEvent("PartitionerRunning"));
  EXPECT_FALSE(Exists("pods", "j-worker-0"));

  SetInit("succeeded");
  Reconcile();
  EXPECT_EQ(Phase(), "Partitioned");
  EXPECT_EQ(Status()["replicaStatuses"]["Partitioner"]["succeeded"], 1);
  EXPECT_TRUE(Exists("pods", "j-worker-0"));
  EXPECT_TRUE(Exists("pods", "j-worker-1"));

  SetPod("j-worker-0", "Running", "10.0.1.0");
  SetPod("j-worker-1", "Running", "10.0.1.1");
  SetPod("j-launcher", "Running", "10.0.0.3");
  Reconcile();
  EXPECT_EQ(Phase(), "Training");
  SetPod("j-launcher", "Succeeded", "10.0.0.3");
  Reconcile();
  EXPECT_EQ(Phase(), "Succeeded");
}

TEST_F(LauncherInitTest, OomKilledPartitionerInitContainerFailsTheJobAtOnce) {
  CreateJob(LauncherInitJob());
  Reconcile();
  SetInit("running");
  Reconcile();
  SetInit("failed", 137, "OOMKilled");
  Reconcile();
  EXPECT_EQ(Phase(), "Failed");
  EXPECT_EQ(Condition("Failed").value("reason", ""), "PartitionerOOMKilled");
  const std::string message = Condition("Failed").value("message", "");
  EXPECT_NE(message.find("init container partitioner of j-launcher"), std::string::npos) << message;
  EXPECT_NE(message.find("200Gi"), std::string::npos) << message;
  EXPECT_EQ(Status()["restartCount"], 0);
  EXPECT_EQ(Status()["replicaStatuses"]["Partitioner"]["failed"], 1);
  EXPECT_FALSE(Exists("pods", "j-worker-0"));
  EXPECT_TRUE(HasEvent("PodFailed"));
}

TEST_F(LauncherInitTest, FailedPartitionerInitContainerIsRetriedWithTheLauncher) {
  CreateJob(LauncherInitJob());
  Reconcile();
  SetInit("failed", 1, "Error");
  Reconcile();
  EXPECT_EQ(Phase(), "Restarting");
  EXPECT_EQ(Condition("Restarting").value("reason", ""), "PartitionerFailed");
  EXPECT_TRUE(HasEvent("PartitionerFailed"));
  EXPECT_EQ(Status()["restartCount"], 1);
  // The failed launcher goes; the next pass creates it again, in the new epoch.
  EXPECT_FALSE(Exists("pods", "j-launcher"));
  PassRestartBackoff();
  Reconcile();
  EXPECT_EQ(Get("pods", "j-launcher")["metadata"]["annotations"][kAnnotationRestartEpoch], "1");
  EXPECT_FALSE(Exists("pods", "j-partitioner"));
}

// Each retry of the init container is a restart of the job, counted against backoffLimit: the
// second failure with backoffLimit 1 fails the job, naming the init container.
TEST_F(LauncherInitTest, RetriesOfThePartitionerInitContainerCountAgainstBackoffLimit) {
  json job = LauncherInitJob();
  job["spec"]["runPolicy"] = {{"backoffLimit", 1}};
  CreateJob(job);
  Reconcile();
  SetInit("failed", 1, "Error");
  Reconcile();
  ASSERT_EQ(Phase(), "Restarting");
  PassRestartBackoff();
  Reconcile();
  SetInit("failed", 1, "Error");
  Reconcile();
  EXPECT_EQ(Phase(), "Failed");
  EXPECT_EQ(Condition("Failed").value("reason", ""), "PartitionerFailed");
  const std::string message = Condition("Failed").value("message", "");
  EXPECT_NE(message.find("init container partitioner of j-launcher"), std::string::npos) << message;
  EXPECT_NE(message.find("backoffLimit 1"), std::string::npos) << message;
  EXPECT_EQ(Status()["restartCount"], 1);
}

TEST_F(LauncherInitTest, PartitionerRestartPolicyNeverFailsTheJob) {
  json job = LauncherInitJob();
  job["spec"]["dglReplicaSpecs"]["Partitioner"]["restartPolicy"] = "Never";
  CreateJob(job);
  Reconcile();
  SetInit("failed", 1, "Error");
  Reconcile();
  EXPECT_EQ(Phase(), "Failed");
  EXPECT_EQ(Condition("Failed").value("reason", ""), "PartitionerFailed");
  EXPECT_NE(Condition("Failed").value("message", "").find("restartPolicy Never"), std::string::npos);
}

TEST_F(LauncherInitTest, PartitionsOnAClaimAreNotMadeAgainAfterATrainingRestart) {
  json job = LauncherInitJob();
  json& launcher = job["spec"]["dglReplicaSpecs"]["Launcher"]["template"]["spec"];
  launcher["containers"][0]["volumeMounts"] = json::array({{{"name", "parts"}, {"mountPath", "/dgl_workspace/dataset"}}});
  launcher["volumes"] = json::array({{{"name", "parts"}, {"persistentVolumeClaim", {{"claimName", "parts"}}}}});
  CreateJob(job);
  Reconcile();
  SetInit("succeeded");
  Reconcile();
  ASSERT_EQ(Phase(), "Partitioned");
  SetPod("j-worker-0", "Running", "10.0.1.0");
  SetPod("j-worker-1", "Running", "10.0.1.1");
  SetPod("j-launcher", "Running", "10.0.0.3");
  Reconcile();
  ASSERT_EQ(Phase(), "Training");
  FailPod("j-worker-1", 137);
  Reconcile();
  ASSERT_EQ(Phase(), "Restarting");
  EXPECT_NE(Condition("Restarting").value("message", "").find("restarting training"), std::string::npos);
  PassRestartBackoff();
  Reconcile();
  const json init = Get("pods", "j-launcher")["spec"]["initContainers"];
  EXPECT_EQ(ContainerNamesOf(init), (std::vector<std::string>{"kubectl-download", "watcher-loop-worker"}));
  // No partitioner to wait for: the workers' stage is on at once.
  EXPECT_TRUE(Exists("pods", "j-worker-1"));
}

TEST_F(ReconcileFixture, PartfileNamesThePartitionerBeforeItHasAnIp) {
  // The launcher's watcher-loop reads the file once: with an empty partfile a launcher starting
  // while the partitioner is still unscheduled would not wait for it.
  CreateJob(MakeJob("DGL-API", 2));
  Reconcile();
  Reconcile();
  EXPECT_EQ(Get("configmaps", "j-config")["data"]["partfile"], " 30050 j-partitioner\n");
  SetPod("j-partitioner", "Running", "10.0.0.2");
  Reconcile();
  EXPECT_EQ(Get("configmaps", "j-config")["data"]["partfile"], "10.0.0.2 30050 j-partitioner\n");
}

}  // namespace
}  // namespace dgl::testing
