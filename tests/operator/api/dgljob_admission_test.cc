// DGLJob admission in the fake API server: creates and updates are defaulted, then validated; an
// invalid job is refused with 422 Invalid and one cause per field; status writes pass untouched.
#include "operator/admission/dgljob_admission.h"
#include "operator/api/dgljob_api.h"

#include "fakeapi/client/clock.h"
#include "fakeapi/server/store.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>

namespace dgl {
namespace {

using nlohmann::json;

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

}  // namespace
}  // namespace dgl
