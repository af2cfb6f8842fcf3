// Conformance tests of the fake API server: one or more per behaviour controllers depend on, including the
// cases other fakes got wrong (client-go's fake: no resourceVersion, no field selectors, a panic
// after 100 unconsumed watch events, no cascading delete; controller-runtime's fake: no GC).
#include "fakeapi/server/store.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <thread>
#include <vector>

namespace fakeapi {
namespace {

using json = kube::Json;

json Pod(const std::string& name, const std::string& ns = "default", json labels = json::object()) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"namespace", ns}, {"labels", labels}}},
          {"spec", {{"containers", json::array({{{"name", "main"}, {"image", "busybox:1.36"}}})}}}};
}

json ConfigMap(const std::string& name, json data = json::object()) {
  return {{"metadata", {{"name", name}, {"namespace", "default"}}}, {"data", data}};
}

json OwnerRef(const json& owner, bool controller = true, bool block = false) {
  return {{"apiVersion", owner["apiVersion"]}, {"kind", owner["kind"]}, {"name", owner["metadata"]["name"]},
          {"uid", owner["metadata"]["uid"]}, {"controller", controller}, {"blockOwnerDeletion", block}};
}

std::int64_t Rv(const kube::ObjectPtr& obj) { return std::stoll(kube::ResourceVersionOf(*obj)); }

class StoreTest : public ::testing::Test {
 protected:
  kube::ManualClock clock;
  Store store{StoreOptions{.clock = &clock}};

  kube::ObjectPtr MustCreate(const std::string& resource, json obj) {
    auto r = store.Create(resource, std::move(obj));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : nullptr;
  }
  bool Exists(const std::string& resource, const std::string& ns, const std::string& name) {
    return store.Get(resource, ns, name).ok();
  }
  std::vector<kube::WatchEvent> Drain(const kube::WatchPtr& w) {
    std::vector<kube::WatchEvent> out;
    w->Poll(&out);
    return out;
  }
};

// ---- 1. verbs, status subresource, generateName ----------------------------------------------

TEST_F(StoreTest, CreateThenGetReturnsTheStoredObjectWithKindFilledIn) {
  MustCreate("pods", Pod("a"));
  auto got = store.Get("pods", "default", "a");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ((**got)["kind"], "Pod");
  EXPECT_EQ((**got)["apiVersion"], "v1");
  EXPECT_EQ((**got)["status"]["phase"], "Pending");  // the pod defaults of a real API server
  EXPECT_EQ((**got)["spec"]["restartPolicy"], "Always");
}

TEST_F(StoreTest, UidsAreDistinctVersionFourUuidsInLowercaseHex) {
  std::set<std::string> seen;
  for (int i = 0; i < 50; ++i) {
    const std::string uid = kube::UidOf(*MustCreate("pods", Pod("u" + std::to_string(i))));
    ASSERT_EQ(uid.size(), 36u) << uid;
    for (std::size_t at : {8u, 13u, 18u, 23u}) EXPECT_EQ(uid[at], '-') << uid;
    EXPECT_EQ(uid[14], '4') << uid;  // the version
    EXPECT_EQ(uid[19], '8') << uid;  // the variant
    std::string digits = uid;
    std::erase(digits, '-');
    EXPECT_EQ(digits.size(), 32u) << uid;
    EXPECT_EQ(digits.find_first_not_of("0123456789abcdef"), std::string::npos) << uid;
    EXPECT_TRUE(seen.insert(uid).second) << "repeated: " << uid;
  }
}

TEST_F(StoreTest, GetOfAMissingObjectIsNotFoundWithAKubernetesMessage) {
  auto got = store.Get("pods", "default", "nope");
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), 404);
  EXPECT_EQ(got.status().reason(), "NotFound");
  EXPECT_NE(got.status().message().find("\"nope\""), std::string::npos);
}

TEST_F(StoreTest, UnknownResourceIsNotFound) {
  EXPECT_EQ(store.Get("widgets", "default", "x").status().code(), 404);
  EXPECT_EQ(store.List("widgets").status().code(), 404);
}

TEST_F(StoreTest, ListReturnsObjectsInKeyOrderAcrossNamespaces) {
  MustCreate("namespaces", {{"metadata", {{"name", "b"}}}});
  MustCreate("pods", Pod("z"));
  MustCreate("pods", Pod("a", "b"));
  MustCreate("pods", Pod("m"));
  auto list = store.List("pods");
  ASSERT_TRUE(list.ok());
  std::vector<std::string> keys;
  for (const auto& p : list->items) keys.push_back(kube::KeyOf(*p));
  EXPECT_EQ(keys, (std::vector<std::string>{"b/a", "default/m", "default/z"}));
  auto in_default = store.List("pods", {.namespace_ = "default"});
  EXPECT_EQ(in_default->items.size(), 2u);
}

TEST_F(StoreTest, ShortNamesAndQualifiedNamesResolve) {
  MustCreate("po", Pod("a"));
  EXPECT_TRUE(store.Get("pods", "default", "a").ok());
  auto job = store.Create("dgljobs.kubeflow.org", {{"metadata", {{"name", "j"}}}, {"spec", json::object()}});
  ASSERT_TRUE(job.ok()) << job.status().ToString();
  EXPECT_EQ((**job)["apiVersion"], "kubeflow.org/v1alpha1");
  EXPECT_TRUE(store.Get("dgl", "default", "j").ok());
}

TEST_F(StoreTest, UpdateOfTheObjectIgnoresStatus) {
  auto pod = MustCreate("pods", Pod("a"));
  json edit = *pod;
  edit["metadata"]["labels"]["x"] = "1";
  edit["status"]["phase"] = "Running";
  auto updated = store.Update("pods", edit);
  ASSERT_TRUE(updated.ok()) << updated.status().ToString();
  EXPECT_EQ((**updated)["metadata"]["labels"]["x"], "1");
  EXPECT_EQ((**updated)["status"]["phase"], "Pending");
}

TEST_F(StoreTest, UpdateStatusChangesOnlyStatus) {
  auto pod = MustCreate("pods", Pod("a"));
  json edit = *pod;
  edit["metadata"]["labels"]["x"] = "1";
  edit["status"]["phase"] = "Running";
  auto updated = store.UpdateStatus("pods", edit);
  ASSERT_TRUE(updated.ok()) << updated.status().ToString();
  EXPECT_EQ((**updated)["status"]["phase"], "Running");
  EXPECT_FALSE((**updated)["metadata"]["labels"].contains("x"));
}

TEST_F(StoreTest, KindsWithoutStatusSubresourceKeepEverythingOnUpdate) {
  auto cm = MustCreate("configmaps", ConfigMap("c", {{"k", "v"}}));
  json edit = *cm;
  edit["data"]["k"] = "w";
  auto updated = store.Update("configmaps", edit);
  ASSERT_TRUE(updated.ok());
  EXPECT_EQ((**updated)["data"]["k"], "w");
  EXPECT_EQ(store.UpdateStatus("configmaps", edit).status().code(), 404);
}

TEST_F(StoreTest, MergePatchChangesOnlyWhatItNamesAndNullDeletes) {
  MustCreate("configmaps", ConfigMap("c", {{"a", "1"}, {"b", "2"}}));
  auto patched = store.Patch("configmaps", "default", "c", {{"data", {{"a", nullptr}, {"c", "3"}}}});
  ASSERT_TRUE(patched.ok()) << patched.status().ToString();
  EXPECT_EQ((**patched)["data"], (json{{"b", "2"}, {"c", "3"}}));
}

TEST_F(StoreTest, MergePatchOfStatusSubresourceChangesOnlyStatus) {
  MustCreate("pods", Pod("a"));
  auto patched = store.Patch("pods", "default", "a",
                             {{"status", {{"phase", "Running"}}}, {"metadata", {{"labels", {{"x", "1"}}}}}},
                             kube::PatchType::kMerge, "status");
  ASSERT_TRUE(patched.ok()) << patched.status().ToString();
  EXPECT_EQ((**patched)["status"]["phase"], "Running");
  EXPECT_FALSE((**patched)["metadata"]["labels"].contains("x"));
  auto main = store.Patch("pods", "default", "a", {{"status", {{"phase", "Failed"}}}});
  ASSERT_TRUE(main.ok());
  EXPECT_EQ((**main)["status"]["phase"], "Running");
}

// The status-patch path commits under the key and version it looked up: its own precondition
// check, its no-op check and a null status that removes the status.
TEST_F(StoreTest, StatusMergePatchChecksItsPreconditionSkipsNoOpsAndNullRemoves) {
  auto created = MustCreate("pods", Pod("a"));
  const std::string first = kube::ResourceVersionOf(*created);
  auto running = store.Patch("pods", "default", "a", {{"status", {{"phase", "Running"}}}}, kube::PatchType::kMerge, "status");
  ASSERT_TRUE(running.ok()) << running.status().ToString();
  auto stale = store.Patch("pods", "default", "a", {{"metadata", {{"resourceVersion", first}}}, {"status", {{"phase", "Failed"}}}},
                           kube::PatchType::kMerge, "status");
  EXPECT_EQ(stale.status().code(), 409);
  EXPECT_EQ((**store.Get("pods", "default", "a"))["status"]["phase"], "Running");
  auto same = store.Patch("pods", "default", "a", {{"status", {{"phase", "Running"}}}}, kube::PatchType::kMerge, "status");
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(kube::ResourceVersionOf(**same), kube::ResourceVersionOf(**running));
  EXPECT_EQ(same->get(), running->get());  // the stored version itself: nothing was written
  auto removed = store.Patch("pods", "default", "a", {{"status", nullptr}}, kube::PatchType::kMerge, "status");
  ASSERT_TRUE(removed.ok());
  EXPECT_FALSE((**removed).contains("status"));
  EXPECT_NE(kube::ResourceVersionOf(**removed), kube::ResourceVersionOf(**running));
  EXPECT_EQ((**removed)["spec"], (**running)["spec"]);
}

TEST_F(StoreTest, PatchWithAStaleResourceVersionIsAConflict) {
  auto cm = MustCreate("configmaps", ConfigMap("c"));
  std::string stale = kube::ResourceVersionOf(*cm);
  store.Patch("configmaps", "default", "c", {{"data", {{"x", "1"}}}});
  auto r = store.Patch("configmaps", "default", "c", {{"metadata", {{"resourceVersion", stale}}}, {"data", {{"y", "1"}}}});
  EXPECT_EQ(r.status().code(), 409);
}

TEST_F(StoreTest, GenerateNameMakesAUniqueNameFromThePrefix) {
  json pod = Pod("");
  pod["metadata"].erase("name");
  pod["metadata"]["generateName"] = "worker-";
  auto a = MustCreate("pods", pod);
  auto b = MustCreate("pods", pod);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(kube::NameOf(*a).rfind("worker-", 0), 0u);
  EXPECT_EQ(kube::NameOf(*a).size(), std::string("worker-").size() + 5);
  EXPECT_NE(kube::NameOf(*a), kube::NameOf(*b));
}

TEST_F(StoreTest, GeneratedNamesAndUidsAreTheSameRunToRun) {
  kube::ManualClock other_clock;
  Store other{StoreOptions{.clock = &other_clock}};
  json pod = Pod("");
  pod["metadata"].erase("name");
  pod["metadata"]["generateName"] = "w-";
  auto a = store.Create("pods", pod);
  auto b = other.Create("pods", pod);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(kube::NameOf(**a), kube::NameOf(**b));
  EXPECT_EQ(kube::UidOf(**a), kube::UidOf(**b));
}

TEST_F(StoreTest, DeleteRemovesAndSecondDeleteIsNotFound) {
  MustCreate("configmaps", ConfigMap("c"));
  ASSERT_TRUE(store.Delete("configmaps", "default", "c").ok());
  EXPECT_FALSE(Exists("configmaps", "default", "c"));
  EXPECT_EQ(store.Delete("configmaps", "default", "c").status().code(), 404);
}

TEST_F(StoreTest, BindingSetsTheNodeOnceAndMarksThePodScheduled) {
  MustCreate("pods", Pod("a"));
  auto bound = store.Create("pods/binding", {{"metadata", {{"name", "a"}}}, {"target", {{"kind", "Node"}, {"name", "n1"}}}},
                            "default");
  ASSERT_TRUE(bound.ok()) << bound.status().ToString();
  EXPECT_EQ((**bound)["spec"]["nodeName"], "n1");
  EXPECT_EQ((**bound)["status"]["conditions"][0]["type"], "PodScheduled");
  auto again = store.Create("pods/binding", {{"metadata", {{"name", "a"}}}, {"target", {{"name", "n2"}}}}, "default");
  EXPECT_EQ(again.status().code(), 409);
}

TEST_F(StoreTest, PodSpecIsImmutableExceptImages) {
  auto pod = MustCreate("pods", Pod("a"));
  json edit = *pod;
  edit["spec"]["containers"][0]["image"] = "busybox:1.37";
  auto ok = store.Update("pods", edit);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  edit = **ok;
  edit["spec"]["nodeName"] = "n1";
  auto refused = store.Update("pods", edit);
  EXPECT_EQ(refused.status().code(), 422);
  ASSERT_FALSE(refused.status().causes().empty());
  EXPECT_EQ(refused.status().causes()[0].field, "spec");
}

// ---- 2. metadata ---------------------------------------------------------------------------------

TEST_F(StoreTest, CreateSetsUidCreationTimestampFromTheClockAndGenerationOnlyWhereKubeApiserverDoes) {
  clock.Set(kube::ManualClock::kDefaultStart + 90 * kube::kSecond);
  auto pod = MustCreate("pods", Pod("a"));
  EXPECT_FALSE(kube::UidOf(*pod).empty());
  EXPECT_EQ((*pod)["metadata"]["creationTimestamp"], "2026-01-01T00:01:30Z");
  // Pods (before 1.33) and ConfigMaps have no generation; custom resources start at 1.
  EXPECT_FALSE((*pod)["metadata"].contains("generation"));
  json cm = {{"metadata", {{"name", "c"}, {"namespace", "default"}, {"generation", 7}}}, {"data", {{"k", "v"}}}};
  auto stored = MustCreate("configmaps", cm);
  EXPECT_FALSE((*stored)["metadata"].contains("generation"));
  json job = {{"apiVersion", "kubeflow.org/v1alpha1"}, {"kind", "DGLJob"}, {"metadata", {{"name", "j"}, {"namespace", "default"}}},
              {"spec", {{"partitionMode", "Skip"}}}};
  EXPECT_EQ((*MustCreate("dgljobs", job))["metadata"]["generation"], 1);
}

TEST_F(StoreTest, ClientCannotSetServerOwnedMetadata) {
  json pod = Pod("a");
  pod["metadata"]["uid"] = "mine";
  pod["metadata"]["resourceVersion"] = "999";
  pod["metadata"]["creationTimestamp"] = "1999-01-01T00:00:00Z";
  auto created = MustCreate("pods", pod);
  EXPECT_NE(kube::UidOf(*created), "mine");
  EXPECT_NE(kube::ResourceVersionOf(*created), "999");
  json edit = *created;
  edit["metadata"]["uid"] = kube::UidOf(*created);
  edit["metadata"]["creationTimestamp"] = "1999-01-01T00:00:00Z";
  edit["metadata"]["labels"]["x"] = "1";
  auto updated = store.Update("pods", edit);
  ASSERT_TRUE(updated.ok());
  EXPECT_EQ((**updated)["metadata"]["creationTimestamp"], (*created)["metadata"]["creationTimestamp"]);
}

TEST_F(StoreTest, GenerationBumpsOnSpecChangesOnly) {
  auto job = store.Create("dgljobs", {{"metadata", {{"name", "j"}}}, {"spec", {{"x", 1}}}});
  ASSERT_TRUE(job.ok());
  json edit = **job;
  edit["metadata"]["labels"]["a"] = "b";
  auto labelled = store.Update("dgljobs", edit);
  EXPECT_EQ((**labelled)["metadata"]["generation"], 1);
  edit = **labelled;
  edit["status"] = {{"phase", "Training"}};
  auto with_status = store.UpdateStatus("dgljobs", edit);
  EXPECT_EQ((**with_status)["metadata"]["generation"], 1);
  edit = **with_status;
  edit["spec"]["x"] = 2;
  auto changed = store.Update("dgljobs", edit);
  EXPECT_EQ((**changed)["metadata"]["generation"], 2);
}

TEST_F(StoreTest, ResourceVersionIsAStringFromOneGlobalCounterBumpedOnEveryWrite) {
  auto a = MustCreate("pods", Pod("a"));
  auto c = MustCreate("configmaps", ConfigMap("c"));
  ASSERT_TRUE((*a)["metadata"]["resourceVersion"].is_string());
  EXPECT_GT(Rv(c), Rv(a));  // one counter across kinds
  auto patched = store.Patch("configmaps", "default", "c", {{"data", {{"x", "1"}}}});
  EXPECT_GT(Rv(*patched), Rv(c));
  auto status = store.Patch("pods", "default", "a", {{"status", {{"phase", "Running"}}}}, kube::PatchType::kMerge, "status");
  EXPECT_GT(Rv(*status), Rv(*patched));
  EXPECT_EQ(store.CurrentResourceVersion(), Rv(*status));
  auto before_delete = store.CurrentResourceVersion();
  store.Delete("configmaps", "default", "c");
  EXPECT_GT(store.CurrentResourceVersion(), before_delete);
}

TEST_F(StoreTest, AnUpdateThatChangesNothingIsNotAWrite) {
  auto cm = MustCreate("configmaps", ConfigMap("c", {{"k", "v"}}));
  auto same = store.Update("configmaps", *cm);
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(kube::ResourceVersionOf(**same), kube::ResourceVersionOf(*cm));
  EXPECT_EQ(store.CurrentResourceVersion(), Rv(cm));
}

// ---- 3. optimistic concurrency -----------------------------------------------------------------

TEST_F(StoreTest, UpdateWithAStaleResourceVersionIsAConflict) {
  auto cm = MustCreate("configmaps", ConfigMap("c"));
  json first = *cm, second = *cm;
  first["data"]["who"] = "first";
  second["data"]["who"] = "second";
  ASSERT_TRUE(store.Update("configmaps", first).ok());
  auto lost = store.Update("configmaps", second);
  EXPECT_EQ(lost.status().code(), 409);
  EXPECT_EQ(lost.status().reason(), "Conflict");
  EXPECT_EQ((**store.Get("configmaps", "default", "c"))["data"]["who"], "first");
}

TEST_F(StoreTest, StatusUpdateWithAStaleResourceVersionIsAConflict) {
  auto pod = MustCreate("pods", Pod("a"));
  json stale = *pod;
  store.Patch("pods", "default", "a", {{"metadata", {{"labels", {{"x", "1"}}}}}});
  stale["status"]["phase"] = "Running";
  EXPECT_EQ(store.UpdateStatus("pods", stale).status().code(), 409);
}

TEST_F(StoreTest, UpdateWithoutResourceVersionIsUnconditional) {
  auto cm = MustCreate("configmaps", ConfigMap("c"));
  store.Patch("configmaps", "default", "c", {{"data", {{"x", "1"}}}});
  json edit = *cm;
  edit["metadata"].erase("resourceVersion");
  edit["data"] = {{"y", "2"}};
  EXPECT_TRUE(store.Update("configmaps", edit).ok());
}

TEST_F(StoreTest, CreatingAnExistingNameIsAlreadyExists) {
  MustCreate("pods", Pod("a"));
  auto again = store.Create("pods", Pod("a"));
  EXPECT_EQ(again.status().code(), 409);
  EXPECT_EQ(again.status().reason(), "AlreadyExists");
}

TEST_F(StoreTest, UpdateOfAMissingObjectIsNotFound) {
  EXPECT_EQ(store.Update("configmaps", ConfigMap("ghost")).status().code(), 404);
}

// ---- 4. selectors -----------------------------------------------------------------------------

TEST_F(StoreTest, ListFiltersByEveryLabelSelectorOperator) {
  MustCreate("pods", Pod("w0", "default", {{"role", "worker"}, {"job", "a"}}));
  MustCreate("pods", Pod("w1", "default", {{"role", "worker"}, {"job", "b"}}));
  MustCreate("pods", Pod("l", "default", {{"role", "launcher"}, {"job", "a"}}));
  MustCreate("pods", Pod("x", "default", json::object()));
  auto names = [&](const std::string& selector) {
    std::vector<std::string> out;
    auto list = store.List("pods", {.label_selector = selector});
    EXPECT_TRUE(list.ok()) << selector << ": " << list.status().ToString();
    if (list.ok())
      for (const auto& p : list->items) out.push_back(kube::NameOf(*p));
    return out;
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(names("role=worker"), (V{"w0", "w1"}));
  EXPECT_EQ(names("role==worker,job=a"), (V{"w0"}));
  EXPECT_EQ(names("role!=worker"), (V{"l", "x"}));  // != also matches pods without the label
  EXPECT_EQ(names("job in (a, b)"), (V{"l", "w0", "w1"}));
  EXPECT_EQ(names("job notin (a)"), (V{"w1", "x"}));
  EXPECT_EQ(names("job"), (V{"l", "w0", "w1"}));
  EXPECT_EQ(names("!job"), (V{"x"}));
  EXPECT_EQ(store.List("pods", {.label_selector = "role in (a"}).status().code(), 400);
}

TEST_F(StoreTest, ListFiltersByFieldSelectorsIncludingNotEquals) {
  MustCreate("pods", Pod("a"));
  MustCreate("pods", Pod("b"));
  MustCreate("pods", Pod("c"));
  store.Create("pods/binding", {{"metadata", {{"name", "a"}}}, {"target", {{"name", "n1"}}}}, "default");
  store.Create("pods/binding", {{"metadata", {{"name", "b"}}}, {"target", {{"name", "n2"}}}}, "default");
  store.Patch("pods", "default", "b", {{"status", {{"phase", "Running"}}}}, kube::PatchType::kMerge, "status");
  auto names = [&](const std::string& selector) {
    std::vector<std::string> out;
    auto list = store.List("pods", {.field_selector = selector});
    EXPECT_TRUE(list.ok()) << list.status().ToString();
    if (list.ok())
      for (const auto& p : list->items) out.push_back(kube::NameOf(*p));
    return out;
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(names("spec.nodeName=n1"), (V{"a"}));
  EXPECT_EQ(names("spec.nodeName="), (V{"c"}));  // the scheduler's query for unbound pods
  EXPECT_EQ(names("spec.nodeName!=n1"), (V{"b", "c"}));
  EXPECT_EQ(names("status.phase=Running"), (V{"b"}));
  EXPECT_EQ(names("status.phase!=Running,metadata.name!=c"), (V{"a"}));
  EXPECT_EQ(names("metadata.name=b"), (V{"b"}));
  EXPECT_EQ(names("metadata.namespace=default").size(), 3u);
  auto unsupported = store.List("pods", {.field_selector = "spec.hostname=x"});
  EXPECT_EQ(unsupported.status().code(), 400);
}

TEST_F(StoreTest, EventsAreSelectableByInvolvedObject) {
  auto ev = [](const std::string& name, const std::string& uid) {
    return json{{"metadata", {{"name", name}, {"namespace", "default"}}},
                {"involvedObject", {{"kind", "DGLJob"}, {"name", "j"}, {"namespace", "default"}, {"uid", uid}}},
                {"reason", "Created"}};
  };
  MustCreate("events", ev("e1", "u1"));
  MustCreate("events", ev("e2", "u2"));
  auto list = store.List("events", {.field_selector = "involvedObject.uid=u2,involvedObject.kind=DGLJob"});
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  ASSERT_EQ(list->items.size(), 1u);
  EXPECT_EQ(kube::NameOf(*list->items[0]), "e2");
}

// ---- 5. watch --------------------------------------------------------------------------------

TEST_F(StoreTest, WatchFromListVersionSeesEveryLaterChangeInOrder) {
  MustCreate("configmaps", ConfigMap("before"));
  auto list = store.List("configmaps");
  MustCreate("configmaps", ConfigMap("c"));
  store.Patch("configmaps", "default", "c", {{"data", {{"x", "1"}}}});
  store.Delete("configmaps", "default", "c");
  // The watch opens after the changes: it must still catch up from the list's version.
  auto w = store.Watch("configmaps", {.resource_version = list->resource_version});
  ASSERT_TRUE(w.ok());
  auto events = Drain(*w);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].type, kube::WatchEventType::kAdded);
  EXPECT_EQ(events[1].type, kube::WatchEventType::kModified);
  EXPECT_EQ(events[2].type, kube::WatchEventType::kDeleted);
  EXPECT_LT(Rv(events[0].object), Rv(events[1].object));
  EXPECT_LT(Rv(events[1].object), Rv(events[2].object));
  EXPECT_EQ((*events[2].object)["data"]["x"], "1");  // DELETED carries the last state
}

TEST_F(StoreTest, WatchResumesFromTheLastSeenVersionWithoutGapsOrDuplicates) {
  auto w = *store.Watch("configmaps", {.resource_version = std::to_string(store.CurrentResourceVersion())});
  MustCreate("configmaps", ConfigMap("a"));
  auto first = Drain(w);
  ASSERT_EQ(first.size(), 1u);
  w->Stop();
  MustCreate("configmaps", ConfigMap("b"));
  MustCreate("configmaps", ConfigMap("c"));
  auto resumed = *store.Watch("configmaps", {.resource_version = kube::ResourceVersionOf(*first[0].object)});
  auto rest = Drain(resumed);
  ASSERT_EQ(rest.size(), 2u);
  EXPECT_EQ(kube::NameOf(*rest[0].object), "b");
  EXPECT_EQ(kube::NameOf(*rest[1].object), "c");
}

TEST_F(StoreTest, WatchWithoutVersionStartsWithTheCurrentObjects) {
  MustCreate("configmaps", ConfigMap("a"));
  MustCreate("configmaps", ConfigMap("b"));
  auto w = *store.Watch("configmaps");
  auto events = Drain(w);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].type, kube::WatchEventType::kAdded);
  EXPECT_EQ(kube::NameOf(*events[1].object), "b");
}

TEST_F(StoreTest, WatchFromAVersionOlderThanTheHistoryIsExpired) {
  kube::ManualClock c;
  Store small{StoreOptions{.clock = &c, .history_limit = 3}};
  std::string start = std::to_string(small.CurrentResourceVersion());
  for (int i = 0; i < 5; ++i) small.Create("configmaps", ConfigMap("c" + std::to_string(i)));
  auto w = small.Watch("configmaps", {.resource_version = start});
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.status().code(), 410);
  EXPECT_EQ(w.status().reason(), "Expired");
  // The newest versions are still in the history.
  auto recent = small.Watch("configmaps", {.resource_version = std::to_string(small.CurrentResourceVersion() - 2)});
  ASSERT_TRUE(recent.ok());
  EXPECT_EQ(Drain(*recent).size(), 2u);
}

// How many of the newest configmap events a watch can still resume from (writes to configmaps only,
// so their versions are consecutive).
std::size_t ResumableEvents(Store& s) {
  const std::int64_t now = s.CurrentResourceVersion();
  std::size_t kept = 0;
  for (std::int64_t back = 1; back <= now; ++back) {
    auto w = s.Watch("configmaps", {.resource_version = std::to_string(now - back)});
    if (!w.ok()) break;
    kept = static_cast<std::size_t>(back);
    (*w)->Stop();
  }
  return kept;
}

TEST_F(StoreTest, ASizedHistoryDoublesWhileItsOldestEventIsFresh) {
  kube::ManualClock c;
  Store sized{StoreOptions{.clock = &c, .history_limit = 64, .history_fresh = 10 * kube::kSecond, .history_min = 4}};
  const std::string before = std::to_string(sized.CurrentResourceVersion());
  for (int i = 0; i < 40; ++i) sized.Create("configmaps", ConfigMap("c" + std::to_string(i)));
  auto all = sized.Watch("configmaps", {.resource_version = before});  // 4 -> 8 -> 16 -> 32 -> 64
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_EQ(Drain(*all).size(), 40u);
  for (int i = 40; i < 100; ++i) sized.Create("configmaps", ConfigMap("c" + std::to_string(i)));
  EXPECT_EQ(ResumableEvents(sized), 64u);  // never past history_limit
}

TEST_F(StoreTest, ASizedHistoryStaysSmallWhenItsEventsAreStale) {
  kube::ManualClock c;
  Store sized{StoreOptions{.clock = &c, .history_limit = 64, .history_fresh = 10 * kube::kSecond, .history_min = 4}};
  for (int i = 0; i < 40; ++i) {
    c.Advance(20 * kube::kSecond);
    sized.Create("configmaps", ConfigMap("c" + std::to_string(i)));
  }
  EXPECT_EQ(ResumableEvents(sized), 4u);
}

TEST_F(StoreTest, ASizedHistoryHalvesOnceTheEventAQuarterBackIsStale) {
  kube::ManualClock c;
  Store sized{StoreOptions{.clock = &c, .history_limit = 64, .history_fresh = 10 * kube::kSecond, .history_min = 4}};
  for (int i = 0; i < 64; ++i) sized.Create("configmaps", ConfigMap("b" + std::to_string(i)));  // at 0 s
  c.Advance(5 * kube::kSecond);
  for (int i = 0; i < 16; ++i) sized.Create("configmaps", ConfigMap("q" + std::to_string(i)));  // at 5 s
  EXPECT_EQ(ResumableEvents(sized), 64u);  // full, and at history_limit
  c.Advance(9 * kube::kSecond);
  sized.Create("configmaps", ConfigMap("at-14s"));
  EXPECT_EQ(ResumableEvents(sized), 64u);  // the oldest is stale, but 16 back is 9 s old: kept
  c.Advance(2 * kube::kSecond);
  sized.Create("configmaps", ConfigMap("at-16s"));
  EXPECT_EQ(ResumableEvents(sized), 32u);  // 16 back is 11 s old: halved
  for (int i = 0; i < 10; ++i) {
    c.Advance(20 * kube::kSecond);
    sized.Create("configmaps", ConfigMap("s" + std::to_string(i)));
  }
  EXPECT_EQ(ResumableEvents(sized), 4u);  // down to history_min, not below
}

TEST_F(StoreTest, WatchIsFilteredByNamespaceAndSelectorsWithTransitions) {
  MustCreate("namespaces", {{"metadata", {{"name", "other"}}}});
  auto w = *store.Watch("pods", {.namespace_ = "default", .label_selector = "role=worker"});
  Drain(w);
  MustCreate("pods", Pod("in", "default", {{"role", "worker"}}));
  MustCreate("pods", Pod("out", "default", {{"role", "launcher"}}));
  MustCreate("pods", Pod("elsewhere", "other", {{"role", "worker"}}));
  // A label change moves a pod into and out of the selection: ADDED, then DELETED.
  store.Patch("pods", "default", "out", {{"metadata", {{"labels", {{"role", "worker"}}}}}});
  store.Patch("pods", "default", "in", {{"metadata", {{"labels", {{"role", "gone"}}}}}});
  auto events = Drain(w);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(kube::NameOf(*events[0].object), "in");
  EXPECT_EQ(events[0].type, kube::WatchEventType::kAdded);
  EXPECT_EQ(kube::NameOf(*events[1].object), "out");
  EXPECT_EQ(events[1].type, kube::WatchEventType::kAdded);
  EXPECT_EQ(kube::NameOf(*events[2].object), "in");
  EXPECT_EQ(events[2].type, kube::WatchEventType::kDeleted);
  // The DELETED of an object leaving the selection carries the state the watcher last matched, at
  // the new version (kube-apiserver's watch cache: the previous object, its version updated).
  auto now = store.Get("pods", "default", "in");
  ASSERT_TRUE(now.ok());
  EXPECT_EQ((*events[2].object)["metadata"]["labels"]["role"], "worker");
  EXPECT_EQ((*events[2].object)["metadata"]["resourceVersion"], (**now)["metadata"]["resourceVersion"]);
}

TEST_F(StoreTest, WatchByNodeNameSeesPodsBoundToItsNodeOnly) {
  auto kubelet = *store.Watch("pods", {.field_selector = "spec.nodeName=n1"});
  auto scheduler = *store.Watch("pods", {.field_selector = "spec.nodeName="});
  Drain(kubelet);
  Drain(scheduler);
  MustCreate("pods", Pod("a"));
  MustCreate("pods", Pod("b"));
  store.Create("pods/binding", {{"metadata", {{"name", "a"}}}, {"target", {{"name", "n1"}}}}, "default");
  store.Create("pods/binding", {{"metadata", {{"name", "b"}}}, {"target", {{"name", "n2"}}}}, "default");
  auto k = Drain(kubelet);
  ASSERT_EQ(k.size(), 1u);
  EXPECT_EQ(kube::NameOf(*k[0].object), "a");
  EXPECT_EQ(k[0].type, kube::WatchEventType::kAdded);
  auto s = Drain(scheduler);
  ASSERT_EQ(s.size(), 4u);  // two ADDED while unbound, then each leaves the selection
  EXPECT_EQ(s[2].type, kube::WatchEventType::kDeleted);
  EXPECT_EQ(s[3].type, kube::WatchEventType::kDeleted);
}

TEST_F(StoreTest, ThousandsOfUnconsumedWatchEventsNeitherBlockNorLoseAnything) {
  auto w = *store.Watch("configmaps", {.resource_version = std::to_string(store.CurrentResourceVersion())});
  for (int i = 0; i < 5000; ++i) MustCreate("configmaps", ConfigMap("c" + std::to_string(i)));
  auto events = Drain(w);
  ASSERT_EQ(events.size(), 5000u);
  EXPECT_EQ(kube::NameOf(*events.back().object), "c4999");
  EXPECT_FALSE(w->Ended());
}

TEST_F(StoreTest, AReaderTooFarBehindIsCutOffWithoutSlowingTheWriter) {
  kube::ManualClock c;
  Store limited{StoreOptions{.clock = &c, .watch_queue_limit = 10}};
  auto w = *limited.Watch("configmaps", {.resource_version = "1"});
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(limited.Create("configmaps", ConfigMap("c" + std::to_string(i))).ok());
  std::vector<kube::WatchEvent> out;
  EXPECT_FALSE(w->Poll(&out));
  EXPECT_TRUE(w->Ended());
  EXPECT_FALSE(w->status().ok());
  EXPECT_FALSE(w->status().IsExpired());  // it resumes from its last version, no relist needed
}

TEST_F(StoreTest, AnyNumberOfWatchersEachGetEveryEvent) {
  std::vector<kube::WatchPtr> watchers;
  for (int i = 0; i < 50; ++i) watchers.push_back(*store.Watch("configmaps", {.resource_version = "1"}));
  MustCreate("configmaps", ConfigMap("c"));
  for (auto& w : watchers) EXPECT_EQ(Drain(w).size(), 1u);
}

TEST_F(StoreTest, NotifierFiresOnceWhenEventsBecomeAvailable) {
  auto w = *store.Watch("configmaps", {.resource_version = std::to_string(store.CurrentResourceVersion())});
  int calls = 0;
  w->SetNotifier([&] { ++calls; });
  MustCreate("configmaps", ConfigMap("a"));
  MustCreate("configmaps", ConfigMap("b"));
  EXPECT_EQ(calls, 1);  // one wake-up for a batch, not one per event
  EXPECT_EQ(Drain(w).size(), 2u);
  MustCreate("configmaps", ConfigMap("c"));
  EXPECT_EQ(calls, 2);
}

TEST_F(StoreTest, DropWatchesEndsEveryStreamWithANonExpiredStatus) {
  auto w = *store.Watch("pods");
  store.DropWatches();
  std::vector<kube::WatchEvent> out;
  EXPECT_FALSE(w->Poll(&out));
  EXPECT_FALSE(w->status().ok());
  EXPECT_FALSE(w->status().IsExpired());
}

TEST_F(StoreTest, ASlowWatcherNeverBlocksWritersAcrossThreads) {
  auto w = *store.Watch("configmaps", {.resource_version = std::to_string(store.CurrentResourceVersion())});
  std::thread writer([&] {
    for (int i = 0; i < 200; ++i) store.Create("configmaps", ConfigMap("c" + std::to_string(i)));
  });
  std::size_t seen = 0;
  while (seen < 200) {
    std::vector<kube::WatchEvent> out;
    w->Wait(100 * kube::kMillisecond);
    w->Poll(&out);
    seen += out.size();
  }
  writer.join();
  EXPECT_EQ(seen, 200u);
}

// ---- 6. namespaces ---------------------------------------------------------------------------

TEST_F(StoreTest, NamespacedObjectsNeedAnExistingNamespace) {
  auto r = store.Create("pods", Pod("a", "missing"));
  EXPECT_EQ(r.status().code(), 404);
  EXPECT_NE(r.status().message().find("missing"), std::string::npos);
  EXPECT_TRUE(store.Create("pods", Pod("a", "default")).ok());
}

TEST_F(StoreTest, DeletingANamespaceDeletesWhatIsInIt) {
  MustCreate("namespaces", {{"metadata", {{"name", "team"}}}});
  MustCreate("pods", Pod("a", "team"));
  json cm = ConfigMap("c");
  cm["metadata"]["namespace"] = "team";
  MustCreate("configmaps", cm);
  MustCreate("pods", Pod("keep", "default"));
  ASSERT_TRUE(store.Delete("namespaces", "", "team").ok());
  EXPECT_FALSE(Exists("pods", "team", "a"));
  EXPECT_FALSE(Exists("configmaps", "team", "c"));
  EXPECT_FALSE(Exists("namespaces", "", "team"));
  EXPECT_TRUE(Exists("pods", "default", "keep"));
}

TEST_F(StoreTest, ATerminatingNamespaceRefusesNewContentAndWaitsForItsObjects) {
  MustCreate("namespaces", {{"metadata", {{"name", "team"}}}});
  json held = ConfigMap("held");
  held["metadata"]["namespace"] = "team";
  held["metadata"]["finalizers"] = json::array({"example.com/hold"});
  MustCreate("configmaps", held);
  store.Delete("namespaces", "", "team");
  auto ns = store.Get("namespaces", "", "team");
  ASSERT_TRUE(ns.ok());
  EXPECT_EQ((**ns)["status"]["phase"], "Terminating");
  EXPECT_EQ(store.Create("pods", Pod("late", "team")).status().code(), 403);
  store.Patch("configmaps", "team", "held", {{"metadata", {{"finalizers", nullptr}}}});
  EXPECT_FALSE(Exists("configmaps", "team", "held"));
  EXPECT_FALSE(Exists("namespaces", "", "team"));
}

// ---- 7. deletion, finalizers, propagation, garbage collection --------------------------------

TEST_F(StoreTest, FinalizersHoldAnObjectWithADeletionTimestampUntilRemoved) {
  json cm = ConfigMap("c");
  cm["metadata"]["finalizers"] = json::array({"example.com/a", "example.com/b"});
  MustCreate("configmaps", cm);
  clock.Advance(5 * kube::kSecond);
  auto marked = store.Delete("configmaps", "default", "c");
  ASSERT_TRUE(marked.ok());
  EXPECT_TRUE((**marked)["metadata"].contains("deletionTimestamp"));
  EXPECT_TRUE(Exists("configmaps", "default", "c"));
  store.Patch("configmaps", "default", "c", {{"metadata", {{"finalizers", {"example.com/b"}}}}});
  EXPECT_TRUE(Exists("configmaps", "default", "c"));
  auto w = *store.Watch("configmaps", {.resource_version = std::to_string(store.CurrentResourceVersion())});
  store.Patch("configmaps", "default", "c", {{"metadata", {{"finalizers", json::array()}}}});
  EXPECT_FALSE(Exists("configmaps", "default", "c"));
  auto events = Drain(w);
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.back().type, kube::WatchEventType::kDeleted);
}

TEST_F(StoreTest, NoNewFinalizersOnceDeletionStarted) {
  json cm = ConfigMap("c");
  cm["metadata"]["finalizers"] = json::array({"example.com/a"});
  MustCreate("configmaps", cm);
  store.Delete("configmaps", "default", "c");
  auto r = store.Patch("configmaps", "default", "c", {{"metadata", {{"finalizers", {"example.com/a", "example.com/b"}}}}});
  EXPECT_EQ(r.status().code(), 422);
}

TEST_F(StoreTest, ABoundPodIsDeletedGracefullyUntilTheKubeletConfirms) {
  MustCreate("pods", Pod("a"));
  store.Create("pods/binding", {{"metadata", {{"name", "a"}}}, {"target", {{"name", "n1"}}}}, "default");
  auto marked = store.Delete("pods", "default", "a");
  ASSERT_TRUE(marked.ok());
  EXPECT_EQ((**marked)["metadata"]["deletionGracePeriodSeconds"], 30);
  EXPECT_EQ((**marked)["metadata"]["deletionTimestamp"], "2026-01-01T00:00:30Z");
  EXPECT_TRUE(Exists("pods", "default", "a"));
  ASSERT_TRUE(store.Delete("pods", "default", "a", {.grace_period_seconds = 0}).ok());
  EXPECT_FALSE(Exists("pods", "default", "a"));
}

TEST_F(StoreTest, AnUnscheduledPodIsDeletedAtOnce) {
  MustCreate("pods", Pod("a"));
  store.Delete("pods", "default", "a");
  EXPECT_FALSE(Exists("pods", "default", "a"));
}

TEST_F(StoreTest, DeletePreconditionsAreChecked) {
  auto cm = MustCreate("configmaps", ConfigMap("c"));
  EXPECT_EQ(store.Delete("configmaps", "default", "c", {.precondition_uid = std::string("other")}).status().code(), 409);
  EXPECT_EQ(store.Delete("configmaps", "default", "c", {.precondition_resource_version = std::string("1")}).status().code(), 409);
  EXPECT_TRUE(store.Delete("configmaps", "default", "c", {.precondition_uid = kube::UidOf(*cm)}).ok());
}

TEST_F(StoreTest, BackgroundDeletionCollectsDependentsAfterTheOwnerIsGone) {
  auto job = *store.Create("dgljobs", {{"metadata", {{"name", "j"}}}, {"spec", json::object()}});
  json cm = ConfigMap("j-config");
  cm["metadata"]["ownerReferences"] = json::array({OwnerRef(*job)});
  MustCreate("configmaps", cm);
  json pod = Pod("j-worker-0");
  pod["metadata"]["ownerReferences"] = json::array({OwnerRef(*job)});
  MustCreate("pods", pod);
  ASSERT_TRUE(store.Delete("dgljobs", "default", "j").ok());
  EXPECT_FALSE(Exists("dgljobs", "default", "j"));
  EXPECT_FALSE(Exists("configmaps", "default", "j-config"));
  EXPECT_FALSE(Exists("pods", "default", "j-worker-0"));
  EXPECT_EQ(store.Stats().gc_deletes, 2);
}

TEST_F(StoreTest, DependentsAreCollectedInGroupKindAndNameOrderNotMemoryOrder) {
  auto job = *store.Create("dgljobs", {{"metadata", {{"name", "j"}}}, {"spec", json::object()}});
  auto owned = [&](json obj) {
    obj["metadata"]["ownerReferences"] = json::array({OwnerRef(*job)});
    return obj;
  };
  // Created in an order unlike the one expected.
  store.Create("roles", owned({{"metadata", {{"name", "j-b"}, {"namespace", "default"}}}}));
  MustCreate("pods", owned(Pod("j-b")));
  MustCreate("configmaps", owned(ConfigMap("j-a")));
  MustCreate("pods", owned(Pod("j-a")));
  std::vector<std::string> collected;
  store.SetWriteObserver([&](const WriteRecord& w) {
    if (std::string_view(w.verb) == "gc") collected.push_back(w.type->plural + " " + *w.key);
  });
  ASSERT_TRUE(store.Delete("dgljobs", "default", "j").ok());
  // Core kinds (group "") first, then rbac.authorization.k8s.io; within a kind, by name.
  EXPECT_EQ(collected, (std::vector<std::string>{"configmaps default/j-a", "pods default/j-a", "pods default/j-b",
                                                 "roles default/j-b"}));
}

TEST_F(StoreTest, ForegroundDeletionRemovesTheOwnerOnlyAfterBlockingDependents) {
  auto job = *store.Create("dgljobs", {{"metadata", {{"name", "j"}}}, {"spec", json::object()}});
  json pod = Pod("j-worker-0");
  pod["metadata"]["ownerReferences"] = json::array({OwnerRef(*job, true, true)});
  MustCreate("pods", pod);
  store.Create("pods/binding", {{"metadata", {{"name", "j-worker-0"}}}, {"target", {{"name", "n1"}}}}, "default");
  auto r = store.Delete("dgljobs", "default", "j", {.propagation = kube::PropagationPolicy::kForeground});
  ASSERT_TRUE(r.ok());
  // The pod is terminating gracefully and blocks its owner.
  auto owner = store.Get("dgljobs", "default", "j");
  ASSERT_TRUE(owner.ok());
  EXPECT_TRUE((**owner)["metadata"].contains("deletionTimestamp"));
  EXPECT_EQ((**owner)["metadata"]["finalizers"], json::array({"foregroundDeletion"}));
  auto p = store.Get("pods", "default", "j-worker-0");
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE((**p)["metadata"].contains("deletionTimestamp"));
  // The kubelet confirms: the pod goes, then the owner.
  store.Delete("pods", "default", "j-worker-0", {.grace_period_seconds = 0});
  EXPECT_FALSE(Exists("pods", "default", "j-worker-0"));
  EXPECT_FALSE(Exists("dgljobs", "default", "j"));
}

TEST_F(StoreTest, OrphanDeletionKeepsDependentsAndDropsTheirOwnerReference) {
  auto job = *store.Create("dgljobs", {{"metadata", {{"name", "j"}}}, {"spec", json::object()}});
  json cm = ConfigMap("j-config");
  cm["metadata"]["ownerReferences"] = json::array({OwnerRef(*job)});
  MustCreate("configmaps", cm);
  ASSERT_TRUE(store.Delete("dgljobs", "default", "j", {.propagation = kube::PropagationPolicy::kOrphan}).ok());
  EXPECT_FALSE(Exists("dgljobs", "default", "j"));
  auto kept = store.Get("configmaps", "default", "j-config");
  ASSERT_TRUE(kept.ok());
  EXPECT_FALSE((**kept)["metadata"].contains("ownerReferences"));
}

TEST_F(StoreTest, ADependentKeepsLivingWhileAnyOwnerLives) {
  auto a = *store.Create("configmaps", ConfigMap("owner-a"));
  auto b = *store.Create("configmaps", ConfigMap("owner-b"));
  json cm = ConfigMap("shared");
  cm["metadata"]["ownerReferences"] = json::array({OwnerRef(*a), OwnerRef(*b, false)});
  MustCreate("configmaps", cm);
  store.Delete("configmaps", "default", "owner-a");
  auto shared = store.Get("configmaps", "default", "shared");
  ASSERT_TRUE(shared.ok());
  ASSERT_EQ((**shared)["metadata"]["ownerReferences"].size(), 1u);
  EXPECT_EQ((**shared)["metadata"]["ownerReferences"][0]["uid"], kube::UidOf(*b));
  store.Delete("configmaps", "default", "owner-b");
  EXPECT_FALSE(Exists("configmaps", "default", "shared"));
}

TEST_F(StoreTest, ADependentCreatedForAMissingOwnerIsCollected) {
  json cm = ConfigMap("orphan");
  cm["metadata"]["ownerReferences"] = json::array(
      {{{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"name", "gone"}, {"uid", "no-such-uid"}, {"controller", true}}});
  MustCreate("configmaps", cm);
  EXPECT_FALSE(Exists("configmaps", "default", "orphan"));
}

TEST_F(StoreTest, CascadeFollowsChainsOfOwners) {
  auto job = *store.Create("dgljobs", {{"metadata", {{"name", "j"}}}, {"spec", json::object()}});
  json mid = ConfigMap("mid");
  mid["metadata"]["ownerReferences"] = json::array({OwnerRef(*job)});
  auto m = MustCreate("configmaps", mid);
  json leaf = ConfigMap("leaf");
  leaf["metadata"]["ownerReferences"] = json::array({OwnerRef(*m)});
  MustCreate("configmaps", leaf);
  store.Delete("dgljobs", "default", "j");
  EXPECT_FALSE(Exists("configmaps", "default", "mid"));
  EXPECT_FALSE(Exists("configmaps", "default", "leaf"));
}

TEST_F(StoreTest, DeferredGarbageCollectionRunsOnlyWhenAsked) {
  kube::ManualClock c;
  Store deferred{StoreOptions{.clock = &c, .synchronous_gc = false}};
  auto job = *deferred.Create("dgljobs", {{"metadata", {{"name", "j"}}}, {"spec", json::object()}});
  json cm = ConfigMap("j-config");
  cm["metadata"]["ownerReferences"] = json::array({OwnerRef(*job)});
  deferred.Create("configmaps", cm);
  deferred.Delete("dgljobs", "default", "j");
  EXPECT_TRUE(deferred.Get("configmaps", "default", "j-config").ok());
  EXPECT_TRUE(deferred.HasPendingGarbage());
  EXPECT_GE(deferred.CollectGarbage(), 1u);
  EXPECT_FALSE(deferred.Get("configmaps", "default", "j-config").ok());
  EXPECT_FALSE(deferred.HasPendingGarbage());
}

// ---- 8. admission ----------------------------------------------------------------------------

TEST_F(StoreTest, DefaultersRunBeforeValidatorsAndInvalidObjectsGet422WithFieldPaths) {
  store.AddDefaulter("dgljobs", [](AdmissionRequest& r) {
    if (!(*r.object)["spec"].contains("mode")) (*r.object)["spec"]["mode"] = "DGL-API";
  });
  store.AddValidator("dgljobs", [](const AdmissionRequest& r) {
    std::vector<kube::StatusCause> causes;
    if ((*r.object)["spec"]["mode"] != "DGL-API")
      causes.push_back({"FieldValueNotSupported", "spec.mode", "Unsupported value"});
    if ((*r.object)["spec"].value("workers", 1) < 1)
      causes.push_back({"FieldValueInvalid", "spec.workers", "Invalid value: 0: must be >= 1"});
    return causes;
  });
  auto ok = store.Create("dgljobs", {{"metadata", {{"name", "ok"}}}, {"spec", json::object()}});
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ((**ok)["spec"]["mode"], "DGL-API");
  auto bad = store.Create("dgljobs", {{"metadata", {{"name", "bad"}}}, {"spec", {{"mode", "X"}, {"workers", 0}}}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), 422);
  EXPECT_EQ(bad.status().reason(), "Invalid");
  ASSERT_EQ(bad.status().causes().size(), 2u);
  EXPECT_EQ(bad.status().causes()[0].field, "spec.mode");
  EXPECT_EQ(bad.status().causes()[1].field, "spec.workers");
  EXPECT_FALSE(Exists("dgljobs", "default", "bad"));
  json j = bad.status().ToJson();
  EXPECT_EQ(j["kind"], "Status");
  EXPECT_EQ(j["details"]["causes"][1]["field"], "spec.workers");
}

TEST_F(StoreTest, AdmissionAlsoGuardsUpdates) {
  store.AddValidator("configmaps", [](const AdmissionRequest& r) {
    std::vector<kube::StatusCause> causes;
    if (r.operation == Operation::kUpdate && !r.old) causes.push_back({"Internal", "", "no old object"});
    if ((*r.object)["data"].contains("forbidden")) causes.push_back({"FieldValueForbidden", "data.forbidden", "Forbidden"});
    return causes;
  });
  MustCreate("configmaps", ConfigMap("c"));
  auto r = store.Patch("configmaps", "default", "c", {{"data", {{"forbidden", "1"}}}});
  EXPECT_EQ(r.status().code(), 422);
  EXPECT_TRUE(store.Patch("configmaps", "default", "c", {{"data", {{"fine", "1"}}}}).ok());
}

TEST_F(StoreTest, InvalidNamesAreRefusedWithTheFieldPath) {
  auto r = store.Create("configmaps", ConfigMap("Not_Valid"));
  ASSERT_EQ(r.status().code(), 422);
  EXPECT_EQ(r.status().causes()[0].field, "metadata.name");
  json nameless = ConfigMap("");
  EXPECT_EQ(store.Create("configmaps", nameless).status().code(), 422);
}

TEST_F(StoreTest, PodsWithoutContainersAreInvalid) {
  auto r = store.Create("pods", {{"metadata", {{"name", "p"}}}, {"spec", json::object()}});
  ASSERT_EQ(r.status().code(), 422);
  EXPECT_EQ(r.status().causes()[0].field, "spec.containers");
}

TEST_F(StoreTest, MalformedInputGetsAStatusNeverACrash) {
  for (json bad : {json(nullptr), json(42), json("text"), json::array({1, 2}),
                   json{{"metadata", "not an object"}}, json{{"metadata", {{"name", 5}}}},
                   json{{"kind", "Service"}, {"metadata", {{"name", "x"}}}}}) {
    auto r = store.Create("configmaps", bad);
    EXPECT_FALSE(r.ok()) << bad.dump();
    EXPECT_GE(r.status().code(), 400);
  }
  EXPECT_EQ(store.Patch("configmaps", "default", "x", json::array()).status().code(), 400);
  // As kube-apiserver answers (kubernetes/kubernetes#101350): the parser's error as a 500.
  EXPECT_EQ(store.Watch("pods", {.resource_version = "abc"}).status().code(), 500);
}

// ---- observation -------------------------------------------------------------------------------

TEST_F(StoreTest, TheWriteObserverSeesEveryWriteWithItsVersion) {
  std::vector<std::string> seen;
  store.SetWriteObserver([&](const WriteRecord& w) {
    seen.push_back(std::string(w.verb) + " " + w.type->plural + " " + *w.key + " " + std::to_string(w.resource_version));
  });
  MustCreate("configmaps", ConfigMap("c"));
  store.Delete("configmaps", "default", "c");
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].rfind("create configmaps default/c ", 0), 0u);
  EXPECT_EQ(seen[1].rfind("delete configmaps default/c ", 0), 0u);
}

}  // namespace
}  // namespace fakeapi
