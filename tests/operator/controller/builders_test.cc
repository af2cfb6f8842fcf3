// The builders are pure: each test builds from a job and checks the object against the contract and
// what the original operator's dglrun images rely on.
#include "operator/controller/builders.h"

#include "tests/operator/controller/reconcile_fixture.h"
#include "tests/shared_examples.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace dgl::testing {
namespace {

json Defaulted(json job) {
  job["metadata"]["uid"] = "uid-1";
  DefaultDGLJob(job);
  return job;
}

const json* FindNamed(const json& list, const std::string& name) {
  for (const json& item : list) {
    if (item.value("name", "") == name) return &item;
  }
  return nullptr;
}

std::string Env(const json& container, const std::string& name) {
  const json env = container.value("env", json::array());
  const json* e = FindNamed(env, name);
  return e != nullptr ? e->value("value", "") : "<unset>";
}

std::vector<std::string> ContainerNames(const json& list) {
  std::vector<std::string> out;
  for (const json& c : list) out.push_back(c["name"]);
  return out;
}

TEST(Builders, HostfileNamesWorkersWithoutAnIpSoTheWatcherKnowsWhomToWaitFor) {
  json job = Defaulted(MakeJob("DGL-API", 3, 1));
  PodAddresses a;
  a.Role("worker").ips[1] = "10.1.0.1";
  a.Role("worker").without_ip = {0, 2};
  auto data = BuildConfigData(job, a);
  // The original's format for a pod without an IP: the IP column is empty, so the name is still
  // the third space-separated field, where watcher-loop reads it.
  EXPECT_EQ(data["hostfile"], " 30050 j-worker-0 slots=8\n10.1.0.1 30050 j-worker-1 slots=8\n 30050 j-worker-2 slots=8\n");
  EXPECT_EQ(data["ipconfig"], "10.1.0.1 30050 1 j-worker-1 8\n");  // only workers with an IP
}

TEST(Builders, ConfigDataIsInNumericWorkerOrderInTheProposalFormat) {
  json job = Defaulted(MakeJob("DGL-API", 12, 2));
  PodAddresses a;
  for (int i = 11; i >= 0; --i) a.Role("worker").ips[i] = "10.1.0." + std::to_string(i);
  a.partitioner = "10.2.0.1";
  auto data = BuildConfigData(job, a);
  std::string expected_ipconfig, expected_hostfile;
  for (int i = 0; i < 12; ++i) {
    expected_ipconfig += "10.1.0." + std::to_string(i) + " 30050 2 j-worker-" + std::to_string(i) + " 8\n";
    expected_hostfile += "10.1.0." + std::to_string(i) + " 30050 j-worker-" + std::to_string(i) + " slots=8\n";
  }
  EXPECT_EQ(data["ipconfig"], expected_ipconfig);
  EXPECT_EQ(data["hostfile"], expected_hostfile);
  EXPECT_EQ(data["partfile"], "10.2.0.1 30050 j-partitioner\n");
  EXPECT_EQ(data["leadfile"], "");  // always present, even when empty
  EXPECT_EQ(data["kubexec.sh"], KubexecScript());
  EXPECT_NE(KubexecScript().find("/opt/kube/kubectl exec ${POD_NAME} -- /bin/sh -c \"$*\""), std::string::npos);
}

TEST(Builders, EveryObjectHasABlockingControllerOwnerReferenceAndJobLabels) {
  json job = Defaulted(MakeJob("DGL-API", 2));
  BuildOptions o;
  for (const json& obj : {BuildConfigMap(job, {}), BuildServiceAccount(job, "launcher"), BuildRole(job, "launcher"),
                          BuildRoleBinding(job, "partitioner"), BuildWorkerService(job), BuildPodGroup(job, 3),
                          BuildLauncherPod(job, o, 0), BuildWorkerPod(job, 1, o, 0), BuildPartitionerPod(job, o, 0)}) {
    SCOPED_TRACE(obj.dump());
    const json& ref = obj["metadata"]["ownerReferences"][0];
    EXPECT_EQ(ref["kind"], "DGLJob");
    EXPECT_EQ(ref["apiVersion"], "kubeflow.org/v1alpha1");
    EXPECT_EQ(ref["uid"], "uid-1");
    EXPECT_EQ(ref["controller"], true);
    EXPECT_EQ(ref["blockOwnerDeletion"], true);
    EXPECT_EQ(obj["metadata"]["labels"][kLabelJobName], "j");
    EXPECT_EQ(obj["metadata"]["namespace"], "ns");
  }
}

TEST(Builders, PodsCarryReplicaLabelsAndRestartPolicyNever) {
  json job = Defaulted(MakeJob("DGL-API", 2));
  BuildOptions o;
  json w = BuildWorkerPod(job, 1, o, 0);
  EXPECT_EQ(w["metadata"]["name"], "j-worker-1");
  EXPECT_EQ(w["metadata"]["labels"][kLabelReplicaType], "worker");
  EXPECT_EQ(w["metadata"]["labels"][kLabelReplicaIndex], "1");
  EXPECT_EQ(w["spec"]["restartPolicy"], "Never");
  EXPECT_EQ(BuildLauncherPod(job, o, 0)["metadata"]["labels"][kLabelReplicaType], "launcher");
  EXPECT_EQ(BuildPartitionerPod(job, o, 0)["metadata"]["labels"][kLabelReplicaType], "partitioner");
  EXPECT_EQ(BuildPartitionerPod(job, o, 2)["metadata"]["annotations"][kAnnotationRestartEpoch], "2");
}

TEST(Builders, DglApiLauncherHasTheOriginalInitContainersEnvAndVolumes) {
  json job = Defaulted(MakeJob("DGL-API", 2));
  json pod = BuildLauncherPod(job, BuildOptions{}, 0);
  const json& spec = pod["spec"];
  EXPECT_EQ(ContainerNames(spec["initContainers"]),
            (std::vector<std::string>{"kubectl-download", "watcher-loop-partitioner", "watcher-loop-worker"}));
  const json& kd = spec["initContainers"][0];
  EXPECT_EQ(kd["image"], "dgloperator/kubectl-download:latest");
  EXPECT_EQ(kd["imagePullPolicy"], "Always");
  const json& wp = spec["initContainers"][1];
  EXPECT_EQ(wp["image"], "dgloperator/watcher-loop:latest");
  EXPECT_EQ(Env(wp, "WATCHERMODE"), "finished");
  EXPECT_EQ(Env(wp, "WATCHERFILE"), "/etc/dgl/partfile");
  EXPECT_EQ(Env(wp, "NAMESPACE"), "ns");
  EXPECT_NE(FindNamed(wp["volumeMounts"], "dataset-volume"), nullptr);
  EXPECT_EQ(wp["resources"]["limits"]["memory"], "512Mi");
  const json& ww = spec["initContainers"][2];
  EXPECT_EQ(Env(ww, "WATCHERMODE"), "ready");
  EXPECT_EQ(Env(ww, "WATCHERFILE"), "/etc/dgl/hostfile");
  const json& main = spec["containers"][0];
  EXPECT_EQ(Env(main, "DGL_OPERATOR_KUBEXEC_PATH"), "/etc/dgl/kubexec.sh");
  EXPECT_EQ(Env(main, "DGL_OPERATOR_HOSTFILE_PATH"), "/etc/dgl/hostfile");
  EXPECT_EQ(Env(main, "DGL_OPERATOR_KUBECTL_PATH"), "/opt/kube/kubectl");
  EXPECT_EQ(Env(main, "DGL_OPERATOR_ENV"), "1");
  EXPECT_EQ(main["resources"]["limits"]["cpu"], "1");
  EXPECT_EQ(main["resources"]["requests"]["memory"], "2Gi");
  EXPECT_EQ(spec["serviceAccountName"], "j-launcher");
  for (const char* v : {"kube-volume", "dataset-volume", "config-volume"}) {
    EXPECT_NE(FindNamed(spec["volumes"], v), nullptr) << v;
    EXPECT_NE(FindNamed(main["volumeMounts"], v), nullptr) << v;
  }
  const json* config = FindNamed(spec["volumes"], "config-volume");
  ASSERT_NE(config, nullptr);
  EXPECT_EQ((*config)["configMap"]["name"], "j-config");
  bool exec_mode = false;
  for (const json& item : (*config)["configMap"]["items"]) exec_mode |= item["key"] == "kubexec.sh" && item["mode"] == 0555;
  EXPECT_TRUE(exec_mode);
}

TEST(Builders, SkipLauncherIsTheTemplateWithThePhaseEnv) {
  json job = Defaulted(MakeJob("Skip", 0));
  json pod = BuildLauncherPod(job, BuildOptions{}, 0);
  EXPECT_FALSE(pod["spec"].contains("initContainers"));
  EXPECT_EQ(Env(pod["spec"]["containers"][0], "DGL_OPERATOR_PHASE_ENV"), "Launcher_Workload");
  EXPECT_EQ(pod["spec"]["containers"][0]["resources"]["limits"]["memory"], "2Gi");
}

TEST(Builders, DistParMetisLauncherPartitionsInADistPartitionerInitContainer) {
  json job = Defaulted(MakeJob("DistParMETIS", 4));
  job["spec"]["dglReplicaSpecs"]["Launcher"]["template"]["spec"]["containers"][0]["terminationMessagePolicy"] =
      "FallbackToLogsOnError";
  json pod = BuildLauncherPod(job, BuildOptions{}, 0);
  EXPECT_EQ(ContainerNames(pod["spec"]["initContainers"]),
            (std::vector<std::string>{"kubectl-download", "watcher-loop-worker", "dist-partitioner"}));
  const json& dist = pod["spec"]["initContainers"][2];
  EXPECT_EQ(dist["image"], "dgl:1");
  EXPECT_EQ(dist["command"][0], "dglrun");
  EXPECT_EQ(Env(dist, "DGL_OPERATOR_PHASE_ENV"), "DistPartitioner");
  EXPECT_EQ(dist["terminationMessagePolicy"], "FallbackToLogsOnError");  // the failure's words reach the status
}

TEST(Builders, WorkerGetsNumServersPortsSleepAndShm) {
  json job = Defaulted(MakeJob("DGL-API", 2, 3));
  json pod = BuildWorkerPod(job, 0, BuildOptions{}, 0);
  const json& main = pod["spec"]["containers"][0];
  ASSERT_EQ(main["ports"].size(), 3u);  // not the original's 20
  EXPECT_EQ(main["ports"][2]["containerPort"], 30052);
  EXPECT_EQ(main["command"], json::array({"sleep"}));
  EXPECT_EQ(main["args"], json::array({"365d"}));
  EXPECT_EQ(Env(main, "DGL_OPERATOR_ENV"), "1");
  const json* shm = FindNamed(pod["spec"]["volumes"], "shm-volume");
  ASSERT_NE(shm, nullptr);
  EXPECT_EQ((*shm)["emptyDir"]["medium"], "Memory");
  EXPECT_EQ((*shm)["emptyDir"]["sizeLimit"], "10Gi");
  EXPECT_EQ(pod["spec"]["subdomain"], "j-worker");
  EXPECT_NE(FindNamed(main["volumeMounts"], "config-volume"), nullptr);
}

TEST(Builders, PartitionerIsTheWorkerTemplateRunningTheLauncherCommand) {
  json job = Defaulted(MakeJob("DGL-API", 2));
  json pod = BuildPartitionerPod(job, BuildOptions{}, 0);
  const json& main = pod["spec"]["containers"][0];
  EXPECT_EQ(main["command"][0], "dglrun");
  EXPECT_FALSE(main.contains("ports"));
  EXPECT_EQ(Env(main, "DGL_OPERATOR_PHASE_ENV"), "Partitioner");
  EXPECT_EQ(main["resources"]["limits"]["memory"], "20Gi");
  EXPECT_EQ(pod["spec"]["serviceAccountName"], "j-partitioner");
  EXPECT_EQ(ContainerNames(pod["spec"]["initContainers"]), std::vector<std::string>{"kubectl-download"});
  EXPECT_NE(FindNamed(pod["spec"]["volumes"], "kube-volume"), nullptr);
}

// A job stored without defaulting (a real cluster has no webhook): the builder still gives the
// partitioner the Launcher's command line instead of the worker shape's `sleep 365d`.
TEST(Builders, PartitionerWithoutCommandRunsTheLauncherCommandEvenUndefaulted) {
  json job = MakeJob("DGL-API", 2);
  job["metadata"]["uid"] = "uid-1";
  job["spec"]["dglReplicaSpecs"]["Partitioner"] = {
      {"replicas", 1},
      {"template",
       {{"spec",
         {{"containers",
           json::array({{{"name", "part"}, {"image", "dgl:1"},
                         {"resources", {{"limits", {{"memory", "200Gi"}}}}}}})}}}}}};
  json pod = BuildPartitionerPod(job, BuildOptions{}, 0);
  const json& main = pod["spec"]["containers"][0];
  EXPECT_EQ(main["command"], json::array({"dglrun", "--num-servers", "1"}));
  EXPECT_FALSE(main.contains("args"));
  EXPECT_EQ(main["resources"]["limits"]["memory"], "200Gi");
  EXPECT_EQ(Env(main, "DGL_OPERATOR_PHASE_ENV"), "Partitioner");
}

TEST(Builders, RbacIsLeastPrivilege) {
  json job = Defaulted(MakeJob("DGL-API", 3));
  json launcher = BuildRole(job, "launcher");
  ASSERT_EQ(launcher["rules"].size(), 2u);
  EXPECT_EQ(launcher["rules"][0]["verbs"], json::array({"get", "list", "watch"}));
  EXPECT_EQ(launcher["rules"][1]["resources"], json::array({"pods/exec"}));
  EXPECT_EQ(launcher["rules"][1]["verbs"], json::array({"create"}));
  EXPECT_EQ(launcher["rules"][1]["resourceNames"], json::array({"j-worker-0", "j-worker-1", "j-worker-2"}));
  EXPECT_EQ(BuildRole(job, "partitioner")["rules"][1]["resourceNames"], json::array({"j-launcher"}));
  json binding = BuildRoleBinding(job, "launcher");
  EXPECT_EQ(binding["roleRef"]["name"], "j-launcher");
  EXPECT_EQ(binding["subjects"][0]["name"], "j-launcher");
  EXPECT_EQ(binding["subjects"][0]["kind"], "ServiceAccount");
}

TEST(Builders, OneHeadlessServiceSelectsTheWorkers) {
  json job = Defaulted(MakeJob("DGL-API", 3, 2));
  json svc = BuildWorkerService(job);
  EXPECT_EQ(svc["metadata"]["name"], "j-worker");
  EXPECT_EQ(svc["spec"]["clusterIP"], "None");
  EXPECT_EQ(svc["spec"]["selector"][kLabelReplicaType], "worker");
  EXPECT_EQ(svc["spec"]["ports"].size(), 2u);
}

TEST(Builders, PodGroupAndGangLabels) {
  json job = Defaulted(MakeJob("DGL-API", 3));
  job["spec"]["runPolicy"]["schedulingPolicy"] = {{"scheduleTimeoutSeconds", 60}, {"priorityClass", "high"}};
  json pg = BuildPodGroup(job, 4);
  EXPECT_EQ(pg["apiVersion"], "scheduling.x-k8s.io/v1alpha1");
  EXPECT_EQ(pg["spec"]["minMember"], 4);
  EXPECT_EQ(pg["spec"]["scheduleTimeoutSeconds"], 60);
  BuildOptions o{.gang_scheduling = true, .gang_scheduler_name = "coscheduler"};
  json pod = BuildWorkerPod(job, 0, o, 0);
  EXPECT_EQ(pod["metadata"]["labels"][kLabelPodGroup], "j");
  EXPECT_EQ(pod["spec"]["schedulerName"], "coscheduler");
  EXPECT_EQ(pod["spec"]["priorityClassName"], "high");
}

TEST(Builders, PartitionsOnAPvcAreDetectedAndMountedOnThePartitioner) {
  json job = MakeJob("DGL-API", 2);
  EXPECT_FALSE(PartitionsOnPersistentVolume(Defaulted(job)));
  json& spec = job["spec"]["dglReplicaSpecs"]["Launcher"]["template"]["spec"];
  spec["containers"][0]["volumeMounts"] = json::array({{{"name", "parts"}, {"mountPath", kDatasetPath}}});
  spec["volumes"] = json::array({{{"name", "parts"}, {"persistentVolumeClaim", {{"claimName", "c"}}}}});
  job = Defaulted(job);
  EXPECT_TRUE(PartitionsOnPersistentVolume(job));
  json launcher = BuildLauncherPod(job, BuildOptions{}, 0);
  EXPECT_EQ(FindNamed(launcher["spec"]["volumes"], "dataset-volume"), nullptr);
  EXPECT_NE(FindNamed(launcher["spec"]["volumes"], "parts"), nullptr);
  json part = BuildPartitionerPod(job, BuildOptions{}, 0);
  EXPECT_NE(FindNamed(part["spec"]["volumes"], "parts"), nullptr);
}

TEST(Builders, ExampleManifestsBuildValidPods) {
  DGLSIM_REQUIRE_SHARED_EXAMPLES();
  for (const char* file : {"DGL-KE.yaml", "GraphSAGE_dist.yaml", "GraphSAGE.yaml"}) {
    SCOPED_TRACE(file);
    json job = Defaulted(LoadExample(file));
    json launcher = BuildLauncherPod(job, BuildOptions{}, 0);
    EXPECT_FALSE(launcher["spec"]["containers"][0].value("image", "").empty());
    if (GetPartitionMode(job) != PartitionMode::kSkip) {
      json worker = BuildWorkerPod(job, 0, BuildOptions{}, 0);
      EXPECT_EQ(worker["spec"]["containers"][0]["ports"].size(), 1u);
      EXPECT_EQ(BuildPartitionerPod(job, BuildOptions{}, 0)["spec"]["containers"][0]["command"][0],
                launcher["spec"]["containers"][0]["command"][0]);
    }
  }
}

}  // namespace
}  // namespace dgl::testing
