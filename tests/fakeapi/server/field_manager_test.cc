// Field ownership as kube-apiserver keeps it in managedFields: who owns what after creates,
// updates and applies, conflicts between managers, force, and fields removed when their only
// applier stops applying them.
#include "fakeapi/server/field_manager.h"

#include <gtest/gtest.h>

#include <string>

namespace fakeapi {
namespace {

using json = kube::Json;

class FieldManagerTest : public ::testing::Test {
 protected:
  kube::Registry registry = kube::Registry::WithBuiltins();
  FieldWrite Write(const std::string& resource, const std::string& manager, const std::string& sub = "") {
    return FieldWrite{registry.Find(resource), manager, sub, "2026-01-01T00:00:00Z"};
  }
  static const json* Entry(const json& obj, const std::string& manager, const std::string& operation) {
    for (const json& e : obj["metadata"]["managedFields"])
      if (e["manager"] == manager && e["operation"] == operation) return &e;
    return nullptr;
  }
  static json ConfigMap(json data, json labels = json::object()) {
    return {{"apiVersion", "v1"}, {"kind", "ConfigMap"},
            {"metadata", {{"name", "c"}, {"namespace", "default"}, {"labels", labels}}}, {"data", data}};
  }
};

TEST_F(FieldManagerTest, ACreateMakesTheCreatorOwnerOfWhatItWrote) {
  json obj = ConfigMap({{"a", "1"}}, {{"team", "x"}});
  RecordUpdate(nullptr, obj, Write("configmaps", "kubectl-create"));
  const json* e = Entry(obj, "kubectl-create", "Update");
  ASSERT_NE(e, nullptr) << obj.dump();
  EXPECT_EQ((*e)["apiVersion"], "v1");
  EXPECT_EQ((*e)["fieldsType"], "FieldsV1");
  // The maps it added are owned in themselves too ("."), as kube-apiserver 1.34 records a create.
  EXPECT_EQ((*e)["fieldsV1"],
            json::parse(R"({"f:data":{".":{},"f:a":{}},"f:metadata":{"f:labels":{".":{},"f:team":{}}}})"));
}

TEST_F(FieldManagerTest, AddedMapsAreOwnedInThemselvesButNotTheStructsEveryObjectHas) {
  // A pod's spec and status are Go structs, there in every pod: no "." (kube-apiserver 1.34).
  json pod = {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", {{"name", "p"}, {"namespace", "default"}}},
              {"spec", {{"containers", json::array({{{"name", "c"}, {"image", "i"}}})}, {"nodeSelector", {{"a", "b"}}}}}};
  RecordUpdate(nullptr, pod, Write("pods", "creator"));
  EXPECT_EQ((*Entry(pod, "creator", "Update"))["fieldsV1"],
            json::parse(R"({"f:spec":{"f:containers":{"k:{\"name\":\"c\"}":{".":{},"f:image":{},"f:name":{}}},)"
                        R"("f:nodeSelector":{".":{},"f:a":{}}}})"));
  // A custom resource's objects are maps, each added one owned in itself.
  json job = {{"apiVersion", "kubeflow.org/v1alpha1"}, {"kind", "DGLJob"}, {"metadata", {{"name", "j"}, {"namespace", "default"}}},
              {"spec", {{"runPolicy", {{"backoffLimit", 3}}}}}};
  RecordUpdate(nullptr, job, Write("dgljobs", "creator"));
  EXPECT_EQ((*Entry(job, "creator", "Update"))["fieldsV1"],
            json::parse(R"({"f:spec":{".":{},"f:runPolicy":{".":{},"f:backoffLimit":{}}}})"));
  // An update that adds a map to an existing object: the writer owns the map and its members.
  json before = ConfigMap({{"a", "1"}});
  RecordUpdate(nullptr, before, Write("configmaps", "creator"));
  json after = before;
  after["metadata"]["annotations"] = {{"note", "x"}};
  RecordUpdate(&before, after, Write("configmaps", "annotator"));
  EXPECT_EQ((*Entry(after, "annotator", "Update"))["fieldsV1"],
            json::parse(R"({"f:metadata":{"f:annotations":{".":{},"f:note":{}}}})"));
  // Added lists of items (a set, a keyed list) too; generateName is the creator's.
  json held = ConfigMap({{"a", "1"}});
  held["metadata"].erase("labels");
  held["metadata"]["generateName"] = "c-";
  held["metadata"]["finalizers"] = {"example.com/hold"};
  RecordUpdate(nullptr, held, Write("configmaps", "creator"));
  held["metadata"]["ownerReferences"] = {{{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"name", "o"}, {"uid", "u1"}}};
  RecordUpdate(nullptr, held, Write("configmaps", "creator"));
  EXPECT_EQ((*Entry(held, "creator", "Update"))["fieldsV1"]["f:metadata"]["f:ownerReferences"],
            json::parse(R"({".":{},"k:{\"uid\":\"u1\"}":{}})"));  // an owner reference is atomic
  held["metadata"].erase("ownerReferences");
  RecordUpdate(nullptr, held, Write("configmaps", "creator"));
  EXPECT_EQ((*Entry(held, "creator", "Update"))["fieldsV1"],
            json::parse(R"({"f:data":{".":{},"f:a":{}},"f:metadata":{"f:finalizers":{".":{},"v:\"example.com/hold\"":{}},)"
                        R"("f:generateName":{}}})"));
}

TEST_F(FieldManagerTest, AnUpdateTakesTheFieldsItChangesFromTheirOwners) {
  json before = ConfigMap({{"a", "1"}, {"b", "2"}});
  RecordUpdate(nullptr, before, Write("configmaps", "creator"));
  json after = before;
  after["data"]["a"] = "changed";
  RecordUpdate(&before, after, Write("configmaps", "editor"));
  EXPECT_EQ((*Entry(after, "editor", "Update"))["fieldsV1"], json::parse(R"({"f:data":{"f:a":{}}})"));
  EXPECT_EQ((*Entry(after, "creator", "Update"))["fieldsV1"], json::parse(R"({"f:data":{".":{},"f:b":{}}})"));
  // A write that changes nothing leaves ownership (and its times) alone.
  json same = after;
  RecordUpdate(&after, same, Write("configmaps", "third"));
  EXPECT_EQ(Entry(same, "third", "Update"), nullptr);
}

TEST_F(FieldManagerTest, ApplyingAnotherValueToAFieldSomeoneElseOwnsIsAConflictNamingBoth) {
  json obj = ConfigMap({{"a", "1"}, {"b", "2"}});
  RecordUpdate(nullptr, obj, Write("configmaps", "dgl-operator"));
  auto refused = Apply(&obj, ConfigMap({{"a", "mine"}, {"b", "2"}}), false, Write("configmaps", "kubectl"));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), 409);
  EXPECT_EQ(refused.status().reason(), "Conflict");
  EXPECT_EQ(refused.status().message(), "Apply failed with 1 conflict: conflict with \"dgl-operator\" using v1 at 2026-01-01T00:00:00Z: .data.a");
  ASSERT_EQ(refused.status().causes().size(), 1u);
  EXPECT_EQ(refused.status().causes()[0].type, "FieldManagerConflict");
  EXPECT_EQ(refused.status().causes()[0].field, ".data.a");
  // The same value is no conflict: ownership is shared.
  auto shared = Apply(&obj, ConfigMap({{"b", "2"}}), false, Write("configmaps", "kubectl"));
  ASSERT_TRUE(shared.ok()) << shared.status().ToString();
  EXPECT_EQ((*Entry(*shared, "kubectl", "Apply"))["fieldsV1"], json::parse(R"({"f:data":{"f:b":{}}})"));
  EXPECT_NE(Entry(*shared, "dgl-operator", "Update"), nullptr);
}

TEST_F(FieldManagerTest, ForceTakesConflictingFieldsOver) {
  json obj = ConfigMap({{"a", "1"}});
  RecordUpdate(nullptr, obj, Write("configmaps", "dgl-operator"));
  auto forced = Apply(&obj, ConfigMap({{"a", "mine"}}), true, Write("configmaps", "kubectl"));
  ASSERT_TRUE(forced.ok());
  EXPECT_EQ((*forced)["data"]["a"], "mine");
  // It keeps only the map it added (data itself), written as a plain field, as kube-apiserver
  // leaves such an entry.
  ASSERT_NE(Entry(*forced, "dgl-operator", "Update"), nullptr);
  EXPECT_EQ((*Entry(*forced, "dgl-operator", "Update"))["fieldsV1"], json::parse(R"({"f:data":{}})"));
  EXPECT_EQ((*Entry(*forced, "kubectl", "Apply"))["fieldsV1"], json::parse(R"({"f:data":{"f:a":{}}})"));
}

TEST_F(FieldManagerTest, FieldsAnApplierLeavesOutGoWhenNoOneElseOwnsThem) {
  auto first = Apply(nullptr, ConfigMap({{"a", "1"}, {"b", "2"}}, {{"keep", "x"}}), false, Write("configmaps", "kubectl"));
  ASSERT_TRUE(first.ok());
  json obj = *first;
  // Another manager writes b too (same value: it shares b).
  json edited = obj;
  edited["data"]["c"] = "3";
  RecordUpdate(&obj, edited, Write("configmaps", "editor"));
  auto shared_b = Apply(&edited, ConfigMap({{"b", "2"}}), false, Write("configmaps", "other"));
  ASSERT_TRUE(shared_b.ok());
  auto second = Apply(&*shared_b, ConfigMap(json::object()), false, Write("configmaps", "kubectl"));
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  const json& data = (*second)["data"];
  EXPECT_FALSE(data.contains("a"));  // only kubectl owned it
  EXPECT_EQ(data["b"], "2");         // "other" applies it too
  EXPECT_EQ(data["c"], "3");         // never kubectl's
  EXPECT_FALSE((*second)["metadata"].contains("labels") && (*second)["metadata"]["labels"].contains("keep"));
}

TEST_F(FieldManagerTest, AnObjectNoOneAppliedToIsOwnedBeforeFirstApply) {
  json obj = ConfigMap({{"a", "1"}});  // written without managedFields (inside the simulation)
  auto refused = Apply(&obj, ConfigMap({{"a", "2"}}), false, Write("configmaps", "kubectl"));
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("conflict with \"before-first-apply\""), std::string::npos);
}

TEST_F(FieldManagerTest, ContainersAreKeyedByNameInBuiltInKinds) {
  json pod = {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", {{"name", "p"}, {"namespace", "default"}}},
              {"spec", {{"containers", json::array({{{"name", "c"}, {"image", "a:1"}}})}}}};
  RecordUpdate(nullptr, pod, Write("pods", "creator"));
  json fields = (*Entry(pod, "creator", "Update"))["fieldsV1"];
  EXPECT_TRUE(fields["f:spec"]["f:containers"].contains("k:{\"name\":\"c\"}")) << fields.dump();
  json applied = pod;
  applied.erase("status");
  applied["metadata"].erase("managedFields");
  applied["spec"]["containers"][0]["image"] = "a:2";
  auto refused = Apply(&pod, applied, false, Write("pods", "kubectl"));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().causes()[0].field, ".spec.containers[name=\"c\"].image");
}

TEST_F(FieldManagerTest, WritesOfTheStatusSubresourceOwnOnlyTheStatus) {
  json before = {{"apiVersion", "kubeflow.org/v1alpha1"}, {"kind", "DGLJob"},
                 {"metadata", {{"name", "j"}, {"namespace", "default"}}}, {"spec", {{"x", 1}}}};
  json after = before;
  after["status"] = {{"phase", "Training"}};
  RecordUpdate(&before, after, Write("dgljobs", "dgl-operator", "status"));
  const json* e = Entry(after, "dgl-operator", "Update");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ((*e)["subresource"], "status");
  // A custom resource's status map is added by this write: owned in itself too.
  EXPECT_EQ((*e)["fieldsV1"], json::parse(R"({"f:status":{".":{},"f:phase":{}}})"));
}

}  // namespace
}  // namespace fakeapi
