// DGLJob admission in the fake API server: creates and updates are defaulted, then validated; an
// invalid job is refused with 422 Invalid and one cause per field; status writes pass untouched.
#include "fakeapi/client/json.h"
#include "operator/admission/dgljob_admission.h"
#include "operator/api/dgljob_api.h"

#include "clock/clock.h"
#include "fakeapi/server/store.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

namespace dgl {
namespace {

using json = kube::Json;

json MinimalJob(int workers) {
  json container = {{"name", "main"}, {"image", "dgl:1"}, {"command", {"dglrun", "--num-servers=2"}}};
  return {{"apiVersion", kApiVersion},
          {"kind", kKind},
          {"metadata", {{"name", "job"}, {"namespace", "ns"}}},
          {"spec",
           {{"dglReplicaSpecs",
             {{"Launcher", {{"replicas", 1}, {"template", {{"spec", {{"containers", json::array({container})}}}}}}},
              {"Worker",
               {{"replicas", workers},
                {"template", {{"spec", {{"containers", json::array({{{"name", "w"}, {"image", "dgl:1"}}})}}}}}}}}}}}};
}

class DGLJobAdmission : public ::testing::Test {
 protected:
  DGLJobAdmission() : store_(fakeapi::StoreOptions{.clock = &clock_}) {
    EXPECT_TRUE(store_.Create("namespaces", {{"metadata", {{"name", "ns"}}}}).ok());
  }

  kube::ManualClock clock_;
  fakeapi::Store store_;
};

TEST_F(DGLJobAdmission, InvalidCreateIsRefusedWith422InvalidAndTheCauses) {
  RegisterDGLJobAdmission(store_);
  json job = MinimalJob(0);
  job["spec"]["partitionMode"] = "Fast";
  auto result = store_.Create("dgljobs", job, "ns");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), 422);
  EXPECT_EQ(result.status().reason(), "Invalid");
  const auto& causes = result.status().causes();
  EXPECT_NE(std::find(causes.begin(), causes.end(),
                      kube::StatusCause{"FieldValueInvalid", "spec.dglReplicaSpecs.Worker.replicas",
                                           "Invalid value: 0: must be >= 1"}),
            causes.end())
      << result.status().ToString();
  bool mode_cause = false;
  for (const auto& c : causes) mode_cause |= c.field == "spec.partitionMode" && c.type == "FieldValueNotSupported";
  EXPECT_TRUE(mode_cause) << result.status().ToString();
  EXPECT_TRUE(store_.Get("dgljobs", "ns", "job").status().IsNotFound());
}

TEST_F(DGLJobAdmission, CreatedJobIsStoredDefaulted) {
  RegisterDGLJobAdmission(store_);
  auto result = store_.Create("dgljobs", MinimalJob(2), "ns");
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  const json& spec = (**result)["spec"];
  EXPECT_EQ(spec["partitionMode"], "DGL-API");
  EXPECT_EQ(spec["numServers"], 2);
  EXPECT_EQ(spec["slotsPerWorker"], 1);
  EXPECT_EQ(spec["runPolicy"]["backoffLimit"], 3);
  EXPECT_EQ(spec["dglReplicaSpecs"]["Partitioner"]["replicas"], 1);
  EXPECT_EQ(spec["dglReplicaSpecs"]["Worker"]["restartPolicy"], "OnFailure");
}

TEST_F(DGLJobAdmission, UpdateIsDefaultedAndValidated) {
  RegisterDGLJobAdmission(store_);
  auto created = store_.Create("dgljobs", MinimalJob(2), "ns");
  ASSERT_TRUE(created.ok()) << created.status().ToString();

  json cleared = **created;
  cleared["spec"]["runPolicy"].erase("backoffLimit");
  auto updated = store_.Update("dgljobs", cleared);
  ASSERT_TRUE(updated.ok()) << updated.status().ToString();
  EXPECT_EQ((**updated)["spec"]["runPolicy"]["backoffLimit"], 3);

  json invalid = **updated;
  invalid["spec"]["runPolicy"]["backoffLimit"] = -1;
  auto refused = store_.Update("dgljobs", invalid);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), 422);
  ASSERT_EQ(refused.status().causes().size(), 1u) << refused.status().ToString();
  EXPECT_EQ(refused.status().causes()[0].field, "spec.runPolicy.backoffLimit");
}

TEST_F(DGLJobAdmission, StatusWritesAreNeitherDefaultedNorValidated) {
  // Stored before admission existed (as after a rule got stricter): the job's status must still
  // be writable, and its spec must not change behind the operator's back.
  auto created = store_.Create("dgljobs", MinimalJob(0), "ns");
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  RegisterDGLJobAdmission(store_);

  json with_status = **created;
  with_status["status"] = {{"phase", "Pending"}};
  auto written = store_.UpdateStatus("dgljobs", with_status);
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  EXPECT_EQ((**written)["status"]["phase"], "Pending");
  EXPECT_FALSE((**written)["spec"].contains("partitionMode"));

  auto spec_update = store_.Update("dgljobs", **written);
  EXPECT_EQ(spec_update.status().code(), 422) << spec_update.status().ToString();
}

// Every combination the tri-workload and placement rules refuse, through the API server: HTTP 422
// Invalid, with the cause at the field that has to change, and nothing stored.
struct RefusedCombination {
  const char* name;
  std::function<void(json&)> change;
  const char* field;
};

json Replica(int replicas) {
  return {{"replicas", replicas},
          {"template", {{"spec", {{"containers", json::array({{{"name", "m"}, {"image", "dgl:1"}}})}}}}}};
}

TEST_F(DGLJobAdmission, EveryCombinationThatCannotRunIsRefused) {
  RegisterDGLJobAdmission(store_);
  const std::vector<RefusedCombination> cases = {
      {"trainers without servers",
       [](json& j) {
         j["spec"]["dglReplicaSpecs"].erase("Worker");
         j["spec"]["dglReplicaSpecs"]["Trainer"] = Replica(2);
       },
       "spec.dglReplicaSpecs.Server"},
      {"samplers and trainers without servers",
       [](json& j) {
         j["spec"]["dglReplicaSpecs"].erase("Worker");
         j["spec"]["dglReplicaSpecs"]["Sampler"] = Replica(2);
         j["spec"]["dglReplicaSpecs"]["Trainer"] = Replica(2);
       },
       "spec.dglReplicaSpecs.Server"},
      {"servers without trainers",
       [](json& j) {
         j["spec"]["dglReplicaSpecs"].erase("Worker");
         j["spec"]["dglReplicaSpecs"]["Server"] = Replica(2);
       },
       "spec.dglReplicaSpecs.Trainer"},
      {"samplers alone",
       [](json& j) {
         j["spec"]["dglReplicaSpecs"].erase("Worker");
         j["spec"]["dglReplicaSpecs"]["Sampler"] = Replica(2);
       },
       "spec.dglReplicaSpecs.Worker"},
      {"more partitions than server pods",
       [](json& j) {
         j["spec"]["dglReplicaSpecs"].erase("Worker");
         j["spec"]["dglReplicaSpecs"]["Server"] = Replica(1);
         j["spec"]["dglReplicaSpecs"]["Trainer"] = Replica(2);
         j["spec"]["dglReplicaSpecs"]["Launcher"]["template"]["spec"]["containers"][0]["command"] =
             json::array({"dglrun", "--num-partitions", "2"});
       },
       "spec.dglReplicaSpecs.Server.replicas"},
      {"fewer partitions than server pods",
       [](json& j) {
         j["spec"]["dglReplicaSpecs"]["Server"] = Replica(2);
         j["spec"]["dglReplicaSpecs"]["Launcher"]["template"]["spec"]["containers"][0]["command"] =
             json::array({"dglrun", "--num-partitions", "2"});
       },
       "spec.dglReplicaSpecs.Server.replicas"},
      {"roles in Skip mode",
       [](json& j) {
         j["spec"]["partitionMode"] = "Skip";
         j["spec"]["dglReplicaSpecs"]["Trainer"] = Replica(1);
       },
       "spec.dglReplicaSpecs.Trainer"},
      {"a role with no pods",
       [](json& j) { j["spec"]["dglReplicaSpecs"]["Sampler"] = Replica(0); },
       "spec.dglReplicaSpecs.Sampler.replicas"},
      {"LauncherInit without a partitioner",
       [](json& j) {
         j["spec"]["partitionMode"] = "DistParMETIS";
         j["spec"]["partitionerPlacement"] = "LauncherInit";
       },
       "spec.partitionerPlacement"},
      {"an unknown placement", [](json& j) { j["spec"]["partitionerPlacement"] = "Node"; },
       "spec.partitionerPlacement"},
      {"a LauncherInit partitioner with a nodeSelector",
       [](json& j) {
         j["spec"]["partitionerPlacement"] = "LauncherInit";
         j["spec"]["dglReplicaSpecs"]["Partitioner"] = Replica(1);
         j["spec"]["dglReplicaSpecs"]["Partitioner"]["template"]["spec"]["nodeSelector"] = {{"pool", "big"}};
       },
       "spec.dglReplicaSpecs.Partitioner.template.spec.nodeSelector"},
      {"a LauncherInit partitioner with no replica",
       [](json& j) {
         j["spec"]["partitionerPlacement"] = "LauncherInit";
         j["spec"]["dglReplicaSpecs"]["Partitioner"] = Replica(0);
       },
       "spec.dglReplicaSpecs.Partitioner.replicas"},
      {"a LauncherInit partitioner with two replicas",
       [](json& j) {
         j["spec"]["partitionerPlacement"] = "LauncherInit";
         j["spec"]["dglReplicaSpecs"]["Partitioner"] = Replica(2);
       },
       "spec.dglReplicaSpecs.Partitioner.replicas"},
      {"LauncherInit in Skip mode",
       [](json& j) {
         j["spec"]["partitionMode"] = "Skip";
         j["spec"]["dglReplicaSpecs"].erase("Worker");
         j["spec"]["partitionerPlacement"] = "LauncherInit";
       },
       "spec.partitionerPlacement"},
      {"a LauncherInit partitioner with two containers",
       [](json& j) {
         j["spec"]["partitionerPlacement"] = "LauncherInit";
         j["spec"]["dglReplicaSpecs"]["Partitioner"] = Replica(1);
         j["spec"]["dglReplicaSpecs"]["Partitioner"]["template"]["spec"]["containers"].push_back(
             {{"name", "sidecar"}, {"image", "x:1"}});
       },
       "spec.dglReplicaSpecs.Partitioner.template.spec.containers"},
      {"a LauncherInit partitioner with labels of its own",
       [](json& j) {
         j["spec"]["partitionerPlacement"] = "LauncherInit";
         j["spec"]["dglReplicaSpecs"]["Partitioner"] = Replica(1);
         j["spec"]["dglReplicaSpecs"]["Partitioner"]["template"]["metadata"] = {{"labels", {{"pool", "big"}}}};
       },
       "spec.dglReplicaSpecs.Partitioner.template.metadata.labels"},
      {"more partitions than worker pods",
       [](json& j) {
         j["spec"]["dglReplicaSpecs"]["Launcher"]["template"]["spec"]["containers"][0]["command"] =
             json::array({"dglrun", "--num-partitions", "3"});
       },
       "spec.dglReplicaSpecs.Worker.replicas"},
  };
  for (const auto& c : cases) {
    json job = MinimalJob(2);
    c.change(job);
    auto result = store_.Create("dgljobs", job, "ns");
    ASSERT_FALSE(result.ok()) << c.name;
    EXPECT_EQ(result.status().code(), 422) << c.name;
    bool found = false;
    for (const auto& cause : result.status().causes()) found |= cause.field == c.field;
    EXPECT_TRUE(found) << c.name << ": " << result.status().ToString();
    EXPECT_TRUE(store_.Get("dgljobs", "ns", "job").status().IsNotFound()) << c.name;
  }
}

TEST_F(DGLJobAdmission, TriWorkloadAndLauncherInitJobsAreAdmittedDefaulted) {
  RegisterDGLJobAdmission(store_);
  json job = MinimalJob(2);
  job["spec"]["dglReplicaSpecs"].erase("Worker");
  job["spec"]["dglReplicaSpecs"]["Server"] = Replica(2);
  job["spec"]["dglReplicaSpecs"]["Trainer"] = Replica(4);
  job["spec"]["partitionerPlacement"] = "LauncherInit";
  auto result = store_.Create("dgljobs", job, "ns");
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  const json& spec = (**result)["spec"];
  EXPECT_EQ(spec["partitionerPlacement"], "LauncherInit");
  EXPECT_EQ(spec["dglReplicaSpecs"]["Trainer"]["restartPolicy"], "OnFailure");
  EXPECT_EQ(spec["dglReplicaSpecs"]["Partitioner"]["replicas"], 1);
}

}  // namespace
}  // namespace dgl
