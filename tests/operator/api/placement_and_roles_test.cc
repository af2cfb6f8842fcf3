// Defaulting and validation of spec.partitionerPlacement and of the tri-workload replica types
// (Server, Sampler, Trainer), one test per rule of docs/dgljob-api.md: what is defaulted, and every
// combination that cannot run, refused with its field path.
#include "fakeapi/client/json.h"
#include "operator/api/dgljob_api.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace dgl {
namespace {

using json = kube::Json;
using kube::StatusCause;

json Template(const std::string& name, json resources = json::object()) {
  json container = {{"name", name}, {"image", "dgl:1"}};
  if (!resources.empty()) container["resources"] = {{"limits", resources}};
  return {{"spec", {{"containers", json::array({container})}}}};
}

// A job with a Launcher running dglrun --num-partitions `parts` and the given indexed replicas
// (0: absent).
json Job(int workers, int servers, int samplers, int trainers, int parts = -1, const std::string& mode = "DGL-API") {
  if (parts < 0) parts = workers + servers;
  json launcher = {{"name", "main"},
                   {"image", "dgl:1"},
                   {"command", {"dglrun"}},
                   {"args", {"--num-partitions", std::to_string(parts), "--num-servers", "1"}}};
  json replicas = {{"Launcher", {{"replicas", 1}, {"template", {{"spec", {{"containers", json::array({launcher})}}}}}}}};
  auto add = [&](const char* type, int n, json resources) {
    if (n > 0) replicas[type] = {{"replicas", n}, {"template", Template("main", std::move(resources))}};
  };
  add("Worker", workers, {{"cpu", "8"}});
  add("Server", servers, {{"memory", "300Gi"}});
  add("Sampler", samplers, {{"cpu", "16"}});
  add("Trainer", trainers, {{"nvidia.com/gpu", "1"}});
  return {{"apiVersion", kApiVersion},
          {"kind", kKind},
          {"metadata", {{"name", "job"}, {"namespace", "ns"}}},
          {"spec", {{"partitionMode", mode}, {"dglReplicaSpecs", replicas}}}};
}

std::vector<StatusCause> Validate(json job) {
  DefaultDGLJob(job);
  return ValidateDGLJob(job);
}

std::string DescribeRoles(const std::vector<StatusCause>& causes) {
  std::string out;
  for (const auto& c : causes) out += "\n  " + c.type + " " + c.field + ": " + c.message;
  return out.empty() ? "(no causes)" : out;
}

// Exactly one cause, at `field`, of `type`; returns its message.
std::string OnlyRoleCause(const std::vector<StatusCause>& causes, const std::string& type, const std::string& field) {
  EXPECT_EQ(causes.size(), 1u) << DescribeRoles(causes);
  for (const auto& c : causes) {
    if (c.field != field) continue;
    EXPECT_EQ(c.type, type) << DescribeRoles(causes);
    return c.message;
  }
  ADD_FAILURE() << "no cause at " << field << ":" << DescribeRoles(causes);
  return "";
}

// ---- partitionerPlacement --------------------------------------------------------------------

TEST(PartitionerPlacement, DefaultsToPodAndLauncherInitKeepsTheDefaultedPartitioner) {
  json job = Job(2, 0, 0, 0);
  DefaultDGLJob(job);
  EXPECT_EQ(job["spec"]["partitionerPlacement"], "Pod");
  EXPECT_EQ(GetPartitionerPlacement(job), PartitionerPlacement::kPod);
  EXPECT_TRUE(RunsPartitionerPod(job));
  EXPECT_FALSE(RunsPartitionerInLauncher(job));

  json init = Job(2, 0, 0, 0);
  init["spec"]["partitionerPlacement"] = "LauncherInit";
  DefaultDGLJob(init);
  EXPECT_EQ(init["spec"]["partitionerPlacement"], "LauncherInit");
  // The partitioner's template (the Worker's, running the Launcher's command) is what the launcher's
  // init container runs.
  ASSERT_TRUE(init["spec"]["dglReplicaSpecs"].contains("Partitioner"));
  EXPECT_EQ(init["spec"]["dglReplicaSpecs"]["Partitioner"]["template"]["spec"]["containers"][0]["command"],
            json::array({"dglrun"}));
  EXPECT_FALSE(RunsPartitionerPod(init));
  EXPECT_TRUE(RunsPartitionerInLauncher(init));
  EXPECT_TRUE(Validate(init).empty()) << DescribeRoles(Validate(init));
  EXPECT_EQ(JobPodNames(init), (std::vector<std::string>{"job-launcher", "job-worker-0", "job-worker-1"}));
}

// The defaulted partitioner of a LauncherInit job is copied from a Worker template that may place
// and label its pods: only the container and the volumes are kept, so the job the user wrote is
// admitted instead of being refused for fields of a template it never wrote.
TEST(PartitionerPlacement, LauncherInitDefaultsThePartitionerToTheInitContainerShape) {
  json job = Job(2, 0, 0, 0);
  job["spec"]["partitionerPlacement"] = "LauncherInit";
  json& worker = job["spec"]["dglReplicaSpecs"]["Worker"]["template"];
  worker["metadata"] = {{"labels", {{"team", "graph"}}}};
  worker["spec"]["nodeSelector"] = {{"pool", "gpu"}};
  worker["spec"]["volumes"] = json::array({{{"name", "scratch"}, {"emptyDir", json::object()}}});
  worker["spec"]["containers"].push_back({{"name", "sidecar"}, {"image", "x:1"}});
  EXPECT_TRUE(Validate(job).empty()) << DescribeRoles(Validate(job));
  DefaultDGLJob(job);
  const json& tmpl = job["spec"]["dglReplicaSpecs"]["Partitioner"]["template"];
  EXPECT_FALSE(tmpl.contains("metadata"));
  EXPECT_FALSE(tmpl["spec"].contains("nodeSelector"));
  ASSERT_EQ(tmpl["spec"]["containers"].size(), 1u);
  EXPECT_EQ(tmpl["spec"]["containers"][0]["command"], json::array({"dglrun"}));
  EXPECT_EQ(tmpl["spec"]["volumes"][0]["name"], "scratch");

  // With placement Pod the partitioner pod keeps the Worker template whole, as the original did.
  job = Job(2, 0, 0, 0);
  job["spec"]["dglReplicaSpecs"]["Worker"]["template"]["spec"]["nodeSelector"] = {{"pool", "gpu"}};
  DefaultDGLJob(job);
  EXPECT_EQ(job["spec"]["dglReplicaSpecs"]["Partitioner"]["template"]["spec"]["nodeSelector"]["pool"], "gpu");
}

TEST(PartitionerPlacement, UnknownValueIsRefused) {
  json job = Job(2, 0, 0, 0);
  job["spec"]["partitionerPlacement"] = "Node";
  EXPECT_EQ(OnlyRoleCause(Validate(job), "FieldValueNotSupported", "spec.partitionerPlacement"),
            "Unsupported value: \"Node\": supported values: \"Pod\", \"LauncherInit\"");
}

TEST(PartitionerPlacement, LauncherInitNeedsAModeWithAPartitioner) {
  for (const char* mode : {"DistParMETIS", "Skip"}) {
    json job = Job(std::string(mode) == "Skip" ? 0 : 2, 0, 0, 0, -1, mode);
    job["spec"]["partitionerPlacement"] = "LauncherInit";
    EXPECT_NE(OnlyRoleCause(Validate(job), "FieldValueInvalid", "spec.partitionerPlacement").find("needs a partitioner"),
              std::string::npos)
        << mode;
    // The accessor never reports a placement the mode cannot have.
    EXPECT_EQ(GetPartitionerPlacement(job), PartitionerPlacement::kPod) << mode;
  }
  json parmetis = Job(2, 0, 0, 0, -1, "ParMETIS");
  parmetis["spec"]["partitionerPlacement"] = "LauncherInit";
  EXPECT_TRUE(Validate(parmetis).empty()) << DescribeRoles(Validate(parmetis));
}

TEST(PartitionerPlacement, LauncherInitPartitionerMustBeOne) {
  json job = Job(2, 0, 0, 0);
  job["spec"]["partitionerPlacement"] = "LauncherInit";
  job["spec"]["dglReplicaSpecs"]["Partitioner"] = {{"replicas", 0}, {"template", Template("part")}};
  EXPECT_EQ(OnlyRoleCause(Validate(job), "FieldValueInvalid", "spec.dglReplicaSpecs.Partitioner.replicas"),
            "Invalid value: 0: must be 1 with partitionerPlacement LauncherInit");
}

// Fields of the Partitioner template that a launcher's init container cannot honour are refused,
// not silently dropped.
TEST(PartitionerPlacement, LauncherInitRefusesPodLevelPartitionerFields) {
  json job = Job(2, 0, 0, 0);
  job["spec"]["partitionerPlacement"] = "LauncherInit";
  json tmpl = Template("part", {{"memory", "200Gi"}});
  tmpl["spec"]["nodeSelector"] = {{"pool", "big"}};
  job["spec"]["dglReplicaSpecs"]["Partitioner"] = {{"template", tmpl}};
  EXPECT_NE(OnlyRoleCause(Validate(job), "FieldValueForbidden", "spec.dglReplicaSpecs.Partitioner.template.spec.nodeSelector")
                .find("set it on the Launcher template"),
            std::string::npos);

  tmpl = Template("part");
  tmpl["metadata"] = {{"annotations", {{"a", "b"}}}};
  job["spec"]["dglReplicaSpecs"]["Partitioner"] = {{"template", tmpl}};
  OnlyRoleCause(Validate(job), "FieldValueForbidden", "spec.dglReplicaSpecs.Partitioner.template.metadata.annotations");

  tmpl = Template("part");
  tmpl["spec"]["containers"].push_back({{"name", "sidecar"}, {"image", "x:1"}});
  job["spec"]["dglReplicaSpecs"]["Partitioner"] = {{"template", tmpl}};
  OnlyRoleCause(Validate(job), "FieldValueInvalid", "spec.dglReplicaSpecs.Partitioner.template.spec.containers");

  // Its volumes are used (mounted by its container in the launcher's pod); with placement Pod the
  // same template is fine.
  tmpl = Template("part");
  tmpl["spec"]["volumes"] = json::array({{{"name", "scratch"}, {"emptyDir", json::object()}}});
  job["spec"]["dglReplicaSpecs"]["Partitioner"] = {{"template", tmpl}};
  EXPECT_TRUE(Validate(job).empty()) << DescribeRoles(Validate(job));
  tmpl["spec"]["nodeSelector"] = {{"pool", "big"}};
  job["spec"]["dglReplicaSpecs"]["Partitioner"] = {{"template", tmpl}};
  job["spec"]["partitionerPlacement"] = "Pod";
  EXPECT_TRUE(Validate(job).empty()) << DescribeRoles(Validate(job));
}

// ---- tri-workload replica types --------------------------------------------------------------

TEST(TriWorkload, ServersSamplersAndTrainersWithoutWorkersAreValid) {
  json job = Job(0, 2, 2, 4);
  DefaultDGLJob(job);
  EXPECT_TRUE(ValidateDGLJob(job).empty()) << DescribeRoles(ValidateDGLJob(job));
  EXPECT_TRUE(IsTriWorkload(job));
  EXPECT_EQ(GetServingPods(job), 2);
  for (const char* type : {"Server", "Sampler", "Trainer"}) {
    EXPECT_EQ(job["spec"]["dglReplicaSpecs"][type]["restartPolicy"], "OnFailure") << type;
  }
  // Without a Worker, the partitioner is built from the Server template (the memory-rich one).
  EXPECT_EQ(job["spec"]["dglReplicaSpecs"]["Partitioner"]["template"]["spec"]["containers"][0]["resources"]["limits"]
               ["memory"],
            "300Gi");
  EXPECT_EQ(JobPodNames(job), (std::vector<std::string>{"job-partitioner", "job-launcher", "job-server-0",
                                                        "job-server-1", "job-sampler-0", "job-sampler-1",
                                                        "job-trainer-0", "job-trainer-1", "job-trainer-2",
                                                        "job-trainer-3"}));
}

TEST(TriWorkload, RolesBesideWorkersAreValid) {
  EXPECT_TRUE(Validate(Job(2, 0, 0, 2)).empty()) << DescribeRoles(Validate(Job(2, 0, 0, 2)));
  EXPECT_TRUE(Validate(Job(2, 0, 2, 0)).empty()) << DescribeRoles(Validate(Job(2, 0, 2, 0)));
  EXPECT_TRUE(Validate(Job(2, 2, 0, 0)).empty()) << DescribeRoles(Validate(Job(2, 2, 0, 0)));
  json mixed = Job(2, 2, 0, 0);
  DefaultDGLJob(mixed);
  EXPECT_EQ(GetServingPods(mixed), 4);
}

TEST(TriWorkload, ReplicaCountsAreRequiredAndAtLeastOne) {
  for (const char* type : {"Server", "Sampler", "Trainer"}) {
    json job = Job(2, 0, 0, 0);
    job["spec"]["dglReplicaSpecs"][type] = {{"template", Template("main")}};
    OnlyRoleCause(Validate(job), "FieldValueRequired", std::string("spec.dglReplicaSpecs.") + type + ".replicas");
    job["spec"]["dglReplicaSpecs"][type]["replicas"] = 0;
    EXPECT_EQ(OnlyRoleCause(Validate(job), "FieldValueInvalid", std::string("spec.dglReplicaSpecs.") + type + ".replicas"),
              "Invalid value: 0: must be >= 1");
  }
}

TEST(TriWorkload, TrainersWithoutServersAreRefused) {
  EXPECT_NE(OnlyRoleCause(Validate(Job(0, 0, 0, 2, 2)), "FieldValueRequired", "spec.dglReplicaSpecs.Server")
                .find("Trainer pods need Server pods"),
            std::string::npos);
  OnlyRoleCause(Validate(Job(0, 0, 2, 2, 2)), "FieldValueRequired", "spec.dglReplicaSpecs.Server");
}

TEST(TriWorkload, ServersWithoutTrainersAreRefused) {
  EXPECT_NE(OnlyRoleCause(Validate(Job(0, 2, 0, 0)), "FieldValueRequired", "spec.dglReplicaSpecs.Trainer")
                .find("Server pods need Trainer pods"),
            std::string::npos);
  OnlyRoleCause(Validate(Job(0, 2, 2, 0)), "FieldValueRequired", "spec.dglReplicaSpecs.Trainer");
}

TEST(TriWorkload, SamplersAloneNeedWorkers) {
  OnlyRoleCause(Validate(Job(0, 0, 2, 0, 2)), "FieldValueRequired", "spec.dglReplicaSpecs.Worker");
}

TEST(TriWorkload, SkipModeRefusesEveryRole) {
  json job = Job(0, 1, 1, 1, -1, "Skip");
  auto causes = Validate(job);
  ASSERT_EQ(causes.size(), 3u) << DescribeRoles(causes);
  for (const char* type : {"Server", "Sampler", "Trainer"}) {
    bool found = false;
    for (const auto& c : causes) {
      found |= c.field == std::string("spec.dglReplicaSpecs.") + type && c.type == "FieldValueForbidden";
    }
    EXPECT_TRUE(found) << type << DescribeRoles(causes);
  }
}

TEST(TriWorkload, MorePartitionsThanServerPodsAreRefused) {
  EXPECT_NE(OnlyRoleCause(Validate(Job(0, 2, 0, 2, 4)), "FieldValueInvalid", "spec.dglReplicaSpecs.Server.replicas")
                .find("more partitions than server pods: 2 partitions would have no server"),
            std::string::npos);
  // Workers hold partitions too: 2 workers + 2 servers serve 4 partitions.
  EXPECT_TRUE(Validate(Job(2, 2, 0, 0, 4)).empty());
}

TEST(TriWorkload, FewerPartitionsThanServerPodsAreRefused) {
  EXPECT_NE(OnlyRoleCause(Validate(Job(0, 4, 0, 2, 2)), "FieldValueInvalid", "spec.dglReplicaSpecs.Server.replicas")
                .find("fewer partitions than server pods: 2 server pods would have no partition"),
            std::string::npos);
}

// The launcher's dispatch sends part i to worker i: a worker job is held to the same count.
TEST(TriWorkload, WorkerJobsNeedOnePartitionPerWorker) {
  OnlyRoleCause(Validate(Job(3, 0, 0, 0, 2)), "FieldValueInvalid", "spec.dglReplicaSpecs.Worker.replicas");
  // dglkerun copies the whole dataset to every worker: its --num-partitions is not per worker.
  json ke = Job(3, 0, 0, 0, 2);
  ke["spec"]["dglReplicaSpecs"]["Launcher"]["template"]["spec"]["containers"][0]["command"] = {"dglkerun"};
  EXPECT_TRUE(Validate(ke).empty()) << DescribeRoles(Validate(ke));
  // A launcher that does not run dglrun is not held to dglrun's flags.
  json other = Job(3, 0, 0, 0, 2);
  other["spec"]["dglReplicaSpecs"]["Launcher"]["template"]["spec"]["containers"][0]["command"] = {"python"};
  EXPECT_TRUE(Validate(other).empty()) << DescribeRoles(Validate(other));
}

TEST(TriWorkload, NameBudgetCountsTheLongestRolePodName) {
  json job = Job(0, 1, 10, 1, 1);
  job["spec"]["partitionerPlacement"] = "LauncherInit";  // no "-partitioner" pod
  // "-sampler-9" is 10 characters: 53 left for the job name.
  job["metadata"]["name"] = std::string(54, 'a');
  EXPECT_NE(OnlyRoleCause(Validate(job), "FieldValueInvalid", "metadata.name").find("-sampler-9"), std::string::npos);
  job["metadata"]["name"] = std::string(53, 'a');
  EXPECT_TRUE(Validate(job).empty()) << DescribeRoles(Validate(job));
}

TEST(TriWorkload, MinAvailableCountsEveryRolePod) {
  json job = Job(0, 2, 2, 2);
  // partitioner + launcher + 6 role pods = 8.
  job["spec"]["runPolicy"] = {{"schedulingPolicy", {{"minAvailable", 9}}}};
  EXPECT_NE(OnlyRoleCause(Validate(job), "FieldValueInvalid", "spec.runPolicy.schedulingPolicy.minAvailable").find("<= 8"),
            std::string::npos);
  job["spec"]["runPolicy"] = {{"schedulingPolicy", {{"minAvailable", 8}}}};
  EXPECT_TRUE(Validate(job).empty());
}

}  // namespace
}  // namespace dgl
