// Tri-workload jobs: Server, Sampler and Trainer pods beside or instead of workers. The builders
// list the server pods in ipconfig and hostfile, the trainer and sampler pods in trainerfile and
// samplerfile, and make the launcher wait for and reach all of them; the reconciler creates them in
// the workers' stage, reports a replica status per role, restarts what a lost role needs, and fails
// the job when that role's restartPolicy does not retry it.
#include "tests/operator/controller/reconcile_fixture.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <string>
#include <vector>

namespace dgl::testing {
namespace {

json Replica(int replicas, json limits = json::object()) {
  json container = {{"name", "main"}, {"image", "dgl:1"}};
  if (!limits.empty()) container["resources"] = {{"limits", limits}};
  return {{"replicas", replicas}, {"template", {{"spec", {{"containers", json::array({container})}}}}}};
}

// Servers, samplers and trainers (0: absent) beside `workers` workers, DGL-API.
json TriJob(int workers, int servers, int samplers, int trainers) {
  json job = MakeJob("DGL-API", workers > 0 ? workers : 1);
  json& replicas = job["spec"]["dglReplicaSpecs"];
  if (workers == 0) replicas.erase("Worker");
  if (servers > 0) replicas["Server"] = Replica(servers, {{"memory", "300Gi"}});
  if (samplers > 0) replicas["Sampler"] = Replica(samplers, {{"cpu", "16"}});
  if (trainers > 0) replicas["Trainer"] = Replica(trainers, {{"nvidia.com/gpu", "2"}});
  return job;
}

json DefaultedRoles(json job) {
  job["metadata"]["uid"] = "uid-1";
  DefaultDGLJob(job);
  return job;
}

std::vector<std::string> RoleContainerNames(const json& list) {
  std::vector<std::string> out;
  for (const json& c : list) out.push_back(c["name"]);
  return out;
}

TEST(TriWorkloadBuilders, IpconfigListsWorkersThenServersWithTheirServerCounts) {
  json job = DefaultedRoles(TriJob(1, 2, 1, 2));
  PodAddresses a;
  a.Role("worker").ips[0] = "10.0.1.0";
  a.Role("server").ips[1] = "10.0.2.1";
  a.Role("server").ips[0] = "10.0.2.0";
  a.Role("trainer").ips[0] = "10.0.3.0";
  a.Role("trainer").without_ip = {1};
  a.Role("sampler").ips[0] = "10.0.4.0";
  auto data = BuildConfigData(job, a);
  EXPECT_EQ(data["ipconfig"],
            "10.0.1.0 30050 1 j-worker-0 8\n"
            "10.0.2.0 30050 1 j-server-0 0\n"
            "10.0.2.1 30050 1 j-server-1 0\n");
  EXPECT_EQ(data["hostfile"],
            "10.0.1.0 30050 j-worker-0 slots=8\n"
            "10.0.2.0 30050 j-server-0 slots=0\n"
            "10.0.2.1 30050 j-server-1 slots=0\n");
  EXPECT_EQ(data["trainerfile"], "10.0.3.0 30050 j-trainer-0 slots=2\n 30050 j-trainer-1 slots=2\n");
  EXPECT_EQ(data["samplerfile"], "10.0.4.0 30050 j-sampler-0 slots=1\n");
}

TEST(TriWorkloadBuilders, WorkerJobsKeepTheirFiveKeys) {
  auto data = BuildConfigData(DefaultedRoles(MakeJob("DGL-API", 2)), PodAddresses{});
  EXPECT_EQ(data.size(), 5u);
  EXPECT_FALSE(data.count("trainerfile"));
}

TEST(TriWorkloadBuilders, TheLauncherWaitsForAndReachesEveryRolePod) {
  json job = DefaultedRoles(TriJob(0, 2, 1, 2));
  json pod = BuildLauncherPod(job, BuildOptions{}, 0);
  EXPECT_EQ(RoleContainerNames(pod["spec"]["initContainers"]),
            (std::vector<std::string>{"kubectl-download", "watcher-loop-partitioner", "watcher-loop-worker",
                                      "watcher-loop-trainer", "watcher-loop-sampler"}));
  json items;
  for (const json& v : pod["spec"]["volumes"]) {
    if (v.value("name", "") == "config-volume") items = v["configMap"]["items"];
  }
  EXPECT_EQ(items.size(), 6u) << items.dump();
  json role = BuildRole(job, "launcher");
  EXPECT_EQ(role["rules"][1]["resourceNames"],
            json::array({"j-server-0", "j-server-1", "j-sampler-0", "j-trainer-0", "j-trainer-1"}));
}

TEST(TriWorkloadBuilders, ServerPodsServeDglAndTrainerPodsDoNot) {
  json job = DefaultedRoles(TriJob(0, 2, 1, 2));
  json server = BuildReplicaPod(job, "Server", 1, BuildOptions{}, 0);
  EXPECT_EQ(server["metadata"]["name"], "j-server-1");
  EXPECT_EQ(server["metadata"]["labels"][kLabelReplicaType], "server");
  EXPECT_EQ(server["spec"]["subdomain"], "j-server");
  EXPECT_EQ(server["spec"]["containers"][0]["ports"].size(), 1u);
  EXPECT_EQ(server["spec"]["containers"][0]["command"], json::array({"sleep"}));
  json trainer = BuildReplicaPod(job, "Trainer", 0, BuildOptions{}, 0);
  EXPECT_EQ(trainer["metadata"]["labels"][kLabelReplicaType], "trainer");
  EXPECT_FALSE(trainer["spec"]["containers"][0].contains("ports"));
  EXPECT_FALSE(trainer["spec"].contains("subdomain"));
  EXPECT_EQ(trainer["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"], "2");
  json service = BuildRoleService(job, "server");
  EXPECT_EQ(service["metadata"]["name"], "j-server");
  EXPECT_EQ(service["spec"]["selector"][kLabelReplicaType], "server");
}

// What lets a pass build the pods of a replica type once (ReplicaPodBase) and copy the result for
// each index (SetReplicaIndex): nothing but the name, the replica-index label and (servers and
// workers, which have DNS names) the hostname depends on the index.
TEST(TriWorkloadBuilders, IndexedPodsDifferOnlyInTheirNameIndexLabelAndHostname) {
  json job = DefaultedRoles(TriJob(3, 2, 1, 2));
  for (const char* type : {"Worker", "Server", "Trainer"}) {
    SCOPED_TRACE(type);
    const std::string role = ReplicaRole(type);
    json first = BuildReplicaPod(job, type, 0, BuildOptions{}, 2);
    json second = BuildReplicaPod(job, type, 1, BuildOptions{}, 2);
    EXPECT_EQ(second["metadata"]["name"], "j-" + role + "-1");
    EXPECT_EQ(second["metadata"]["labels"][kLabelReplicaIndex], "1");
    const bool dns = role == kRoleWorker || role == kRoleServer;
    EXPECT_EQ(second["spec"].contains("hostname"), dns);
    if (dns) {
      EXPECT_EQ(second["spec"]["hostname"], "j-" + role + "-1");
    }
    for (json* pod : {&first, &second}) {
      (*pod)["metadata"].erase("name");
      (*pod)["metadata"]["labels"].erase(kLabelReplicaIndex);
      (*pod)["spec"].erase("hostname");
    }
    EXPECT_EQ(first, second);
    // Built from a sealed base, a pod is the one built on its own.
    json base = ReplicaPodBase(job, type, BuildOptions{}, 2);
    kube::SealTree(base);
    json copy = base;
    SetReplicaIndex(copy, job, type, 1);
    EXPECT_EQ(copy, BuildReplicaPod(job, type, 1, BuildOptions{}, 2));
    EXPECT_EQ(base["metadata"]["name"], "j-" + role + "-0");  // the copy's writes left the base alone
  }
}

class TriWorkloadTest : public ReconcileFixture {
 protected:
  // Partitioner done, every role pod and the launcher running: Training.
  void DriveToTraining() {
    Reconcile();
    SetPod("j-partitioner", "Succeeded", "10.0.0.2");
    Reconcile();
    int host = 0;
    for (const char* pod : {"j-server-0", "j-server-1", "j-sampler-0", "j-trainer-0", "j-trainer-1"}) {
      SetPod(pod, "Running", "10.0.9." + std::to_string(++host));
    }
    SetPod("j-launcher", "Running", "10.0.0.3");
    Reconcile();
  }
};

TEST_F(TriWorkloadTest, RolePodsComeInTheWorkersStageWithAStatusEach) {
  CreateJob(TriJob(0, 2, 1, 2));
  Reconcile();
  EXPECT_EQ(Names("pods"), (std::vector<std::string>{"j-launcher", "j-partitioner"}));
  SetPod("j-partitioner", "Succeeded", "10.0.0.2");
  Reconcile();
  EXPECT_EQ(Names("pods"), (std::vector<std::string>{"j-launcher", "j-partitioner", "j-sampler-0", "j-server-0",
                                                     "j-server-1", "j-trainer-0", "j-trainer-1"}));
  EXPECT_EQ(Names("services"), std::vector<std::string>{"j-server"});
  const json statuses = Status()["replicaStatuses"];
  EXPECT_EQ(statuses["Server"]["ready"], "0/2");
  EXPECT_EQ(statuses["Sampler"]["active"], 1);
  EXPECT_EQ(statuses["Trainer"]["ready"], "0/2");
  EXPECT_FALSE(statuses.contains("Worker"));
  EXPECT_EQ(Phase(), "Partitioned");
}

TEST_F(TriWorkloadTest, TrainingNeedsEveryRolePodRunning) {
  CreateJob(TriJob(0, 2, 1, 2));
  Reconcile();
  SetPod("j-partitioner", "Succeeded", "10.0.0.2");
  Reconcile();
  for (const char* pod : {"j-server-0", "j-server-1", "j-sampler-0", "j-trainer-0"}) SetPod(pod, "Running", "10.0.9.1");
  SetPod("j-launcher", "Running", "10.0.0.3");
  Reconcile();
  EXPECT_EQ(Phase(), "Partitioned");  // j-trainer-1 is not running yet
  SetPod("j-trainer-1", "Running", "10.0.9.2");
  Reconcile();
  EXPECT_EQ(Phase(), "Training");
  EXPECT_EQ(Status()["replicaStatuses"]["Trainer"]["ready"], "2/2");
  const std::string trainerfile = Get("configmaps", "j-config")["data"]["trainerfile"];
  EXPECT_NE(trainerfile.find("10.0.9.2 30050 j-trainer-1 slots=2"), std::string::npos) << trainerfile;
}

// A DGL server cannot be replaced alone: the stage restarts, the launcher with it, on pods of its
// own (the healthy servers and the trainers are replaced too).
TEST_F(TriWorkloadTest, AFailedServerRestartsTheStage) {
  CreateJob(TriJob(0, 2, 1, 2));
  DriveToTraining();
  ASSERT_EQ(Phase(), "Training");
  FailPod("j-server-1", 137);
  Reconcile();
  EXPECT_EQ(Phase(), "Restarting");
  EXPECT_EQ(Condition("Restarting").value("reason", ""), "ServerFailed");
  EXPECT_NE(Condition("Restarting").value("message", "").find("partitioning again"), std::string::npos);
  EXPECT_TRUE(HasEvent("ServerFailed"));
  EXPECT_TRUE(HasEvent("PodFailed"));
  EXPECT_FALSE(Exists("pods", "j-launcher"));
  EXPECT_FALSE(Exists("pods", "j-server-1"));
  EXPECT_FALSE(Exists("pods", "j-partitioner"));
  EXPECT_FALSE(Exists("pods", "j-server-0"));
  EXPECT_FALSE(Exists("pods", "j-trainer-0"));
}

// A trainer holds no partition: only it is replaced, the launcher is adopted into the new epoch.
TEST_F(TriWorkloadTest, AFailedTrainerReplacesOnlyItself) {
  CreateJob(TriJob(0, 2, 1, 2));
  DriveToTraining();
  const std::string launcher_uid = kube::UidOf(Get("pods", "j-launcher"));
  FailPod("j-trainer-1", 137);
  Reconcile();
  EXPECT_EQ(Phase(), "Restarting");
  EXPECT_EQ(Condition("Restarting").value("reason", ""), "TrainerFailed");
  EXPECT_NE(Condition("Restarting").value("message", "").find("the servers keep their partitions"), std::string::npos);
  EXPECT_TRUE(HasEvent("TrainerFailed"));
  EXPECT_EQ(Status()["restartCount"], 1);
  const json launcher = Get("pods", "j-launcher");
  EXPECT_EQ(kube::UidOf(launcher), launcher_uid);
  EXPECT_EQ(launcher["metadata"]["annotations"][kAnnotationRestartEpoch], "1");
  EXPECT_EQ(Get("pods", "j-partitioner")["metadata"]["annotations"][kAnnotationRestartEpoch], "1");
  EXPECT_FALSE(Exists("pods", "j-trainer-1"));
  EXPECT_TRUE(Exists("pods", "j-trainer-0"));
  EXPECT_TRUE(Exists("pods", "j-server-0"));
  PassRestartBackoff();
  Reconcile();
  EXPECT_EQ(Get("pods", "j-trainer-1")["metadata"]["annotations"][kAnnotationRestartEpoch], "1");
  SetPod("j-trainer-1", "Running", "10.0.9.7");
  Reconcile();
  EXPECT_EQ(Phase(), "Training");
  EXPECT_EQ(kube::UidOf(Get("pods", "j-launcher")), launcher_uid);
}

// While a trainer restart waits its back-off, the launcher it adopted belongs to the restart: its
// failure is a new one, judged by the failure policy (it breaks the run: a stage restart, counted),
// not a remnant replaced without a word.
TEST_F(TriWorkloadTest, TheAdoptedLauncherFailingWhileTheRestartWaitsIsANewFailure) {
  CreateJob(TriJob(0, 2, 1, 2));
  DriveToTraining();
  FailPod("j-trainer-1", 137);
  Reconcile();
  ASSERT_EQ(Phase(), "Restarting");
  ASSERT_EQ(Status()["restartCount"], 1);
  FailPod("j-launcher", 1);
  Reconcile();
  EXPECT_EQ(Phase(), "Restarting");
  EXPECT_EQ(Status()["restartCount"], 2);
  EXPECT_EQ(Condition("Restarting").value("reason", ""), "LauncherFailed");
}

// A retryable failure of the restart's own pods counts against backoffLimit like any other.
TEST_F(TriWorkloadTest, TheAdoptedLauncherFailingWhileTheRestartWaitsCountsAgainstBackoffLimit) {
  json job = TriJob(0, 2, 1, 2);
  job["spec"]["runPolicy"] = {{"backoffLimit", 1}};
  CreateJob(job);
  DriveToTraining();
  FailPod("j-trainer-1", 137);
  Reconcile();
  ASSERT_EQ(Phase(), "Restarting");
  FailPod("j-launcher", 1);
  Reconcile();
  ASSERT_EQ(Phase(), "Failed");
  EXPECT_EQ(Condition("Failed").value("reason", ""), "LauncherFailed");
  EXPECT_NE(Condition("Failed").value("message", "").find("backoffLimit 1 reached"), std::string::npos);
  const auto events = Events();
  EXPECT_TRUE(std::any_of(events.begin(), events.end(), [](const json& e) {
    return e.value("reason", "") == "PodFailed" && e.value("message", "").find("j-launcher") != std::string::npos;
  }));
}

TEST_F(TriWorkloadTest, ALostSamplerDuringTrainingIsASamplerRestart) {
  CreateJob(TriJob(0, 2, 1, 2));
  DriveToTraining();
  auto deleted = store_.Delete("pods", "ns", "j-sampler-0", kube::DeleteOptions{});
  ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();
  Reconcile();
  EXPECT_EQ(Phase(), "Restarting");
  EXPECT_EQ(Condition("Restarting").value("reason", ""), "SamplerLost");
  EXPECT_TRUE(HasEvent("SamplerLost"));
  EXPECT_TRUE(Exists("pods", "j-launcher"));
}

// A server pod deleted under a running job (its node drained, say) takes its partition with it:
// the stage restarts as for a failed server.
TEST_F(TriWorkloadTest, ALostServerDuringTrainingRestartsTheStage) {
  CreateJob(TriJob(0, 2, 1, 2));
  DriveToTraining();
  ASSERT_EQ(Phase(), "Training");
  auto deleted = store_.Delete("pods", "ns", "j-server-0", kube::DeleteOptions{});
  ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();
  Reconcile();
  EXPECT_EQ(Phase(), "Restarting");
  EXPECT_EQ(Condition("Restarting").value("reason", ""), "ServerLost");
  const std::string message = Condition("Restarting").value("message", "");
  EXPECT_NE(message.find("Server j-server-0 disappeared during training"), std::string::npos) << message;
  EXPECT_NE(message.find("partitioning again"), std::string::npos) << message;
  EXPECT_TRUE(HasEvent("ServerLost"));
  EXPECT_EQ(Status()["restartCount"], 1);
  EXPECT_FALSE(Exists("pods", "j-launcher"));
}

// A trainer and a server failing together: the server's stage restart covers both (stage-scope
// roles are judged first), not the trainers-only restart.
TEST_F(TriWorkloadTest, AServerFailingWithATrainerRestartsTheStage) {
  CreateJob(TriJob(0, 2, 1, 2));
  DriveToTraining();
  FailPod("j-trainer-0", 137);
  FailPod("j-server-1", 137);
  Reconcile();
  EXPECT_EQ(Phase(), "Restarting");
  EXPECT_EQ(Condition("Restarting").value("reason", ""), "ServerFailed");
  EXPECT_NE(Condition("Restarting").value("message", "").find("partitioning again"), std::string::npos);
  EXPECT_FALSE(Exists("pods", "j-launcher"));
  EXPECT_EQ(Status()["restartCount"], 1);
}

// Each role's restartPolicy is its own: a trainer that must not be retried fails the job, however
// cheap its restart would be (under the default OnFailure it restarts the trainers only, above).
TEST_F(TriWorkloadTest, ATrainerExitingPermanentlyUnderExitCodeFailsTheJob) {
  json job = TriJob(0, 2, 1, 2);
  job["spec"]["dglReplicaSpecs"]["Trainer"]["restartPolicy"] = "ExitCode";
  CreateJob(job);
  DriveToTraining();
  FailPod("j-trainer-1", 1);  // ExitCode: 1-127 is permanent
  Reconcile();
  EXPECT_EQ(Phase(), "Failed");
  EXPECT_EQ(Condition("Failed").value("reason", ""), "TrainerFailed");
  EXPECT_NE(Condition("Failed").value("message", "").find("its restartPolicy does not retry it"), std::string::npos);
  EXPECT_EQ(Status()["restartCount"], 0);
}

TEST_F(TriWorkloadTest, ASamplerWithRestartPolicyNeverFailsTheJob) {
  json job = TriJob(0, 2, 1, 2);
  job["spec"]["dglReplicaSpecs"]["Sampler"]["restartPolicy"] = "Never";
  CreateJob(job);
  DriveToTraining();
  FailPod("j-sampler-0", 137);
  Reconcile();
  EXPECT_EQ(Phase(), "Failed");
  EXPECT_EQ(Condition("Failed").value("reason", ""), "SamplerFailed");
}

TEST_F(TriWorkloadTest, TrainersBesideWorkersShareTheWorkersStage) {
  CreateJob(TriJob(2, 0, 0, 2));
  Reconcile();
  SetPod("j-partitioner", "Succeeded", "10.0.0.2");
  Reconcile();
  EXPECT_EQ(Names("pods"), (std::vector<std::string>{"j-launcher", "j-partitioner", "j-trainer-0", "j-trainer-1",
                                                     "j-worker-0", "j-worker-1"}));
  EXPECT_EQ(Names("services"), std::vector<std::string>{"j-worker"});
  FailPod("j-worker-0", 1);
  Reconcile();
  EXPECT_EQ(Condition("Restarting").value("reason", ""), "WorkerFailed");
}

}  // namespace
}  // namespace dgl::testing
