// Informer: list + watch + local cache. Catch-up between list and watch, resume after a dropped
// watch without relist or duplicate handler calls, relist after 410 with OnDelete for objects that
// vanished meanwhile, thousands of unconsumed events, indexes, filters and the non-fatal error path.
#include "fakeapi/client/informer.h"

#include "fakeapi/client/faulty_client.h"
#include "fakeapi/client/selector.h"
#include "fakeapi/server/store.h"

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace kube {

using fakeapi::Store;
using fakeapi::StoreOptions;
namespace {

using json = kube::Json;

json InformedConfigMap(const std::string& name, std::map<std::string, std::string> labels = {},
               const std::string& ns = "default") {
  json cm = {{"apiVersion", "v1"},
             {"kind", "ConfigMap"},
             {"metadata", {{"name", name}, {"namespace", ns}}},
             {"data", {{"k", "v"}}}};
  if (!labels.empty()) cm["metadata"]["labels"] = labels;
  return cm;
}

void MustCreate(Client& client, const json& object) {
  auto created = client.Create("configmaps", object);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
}

void MustSetData(Client& client, const std::string& name, const std::string& value,
                 const std::string& ns = "default") {
  auto patched = client.Patch("configmaps", ns, name, json{{"data", {{"k", value}}}});
  ASSERT_TRUE(patched.ok()) << patched.status().ToString();
}

void MustDelete(Client& client, const std::string& name, const std::string& ns = "default") {
  auto deleted = client.Delete("configmaps", ns, name);
  ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();
}

void MustCreateNamespace(Client& client, const std::string& name) {
  auto created = client.Create("namespaces", json{{"apiVersion", "v1"}, {"kind", "Namespace"},
                                                  {"metadata", {{"name", name}}}});
  ASSERT_TRUE(created.ok()) << created.status().ToString();
}

// Records handler calls as "add default/a", "update default/a", "delete default/a".
struct HandlerLog {
  std::vector<std::string> calls;
  InformerHandlers Handlers() {
    return InformerHandlers{
        .on_add = [this](const ObjectPtr& o) { calls.push_back("add " + KeyOf(*o)); },
        .on_update =
            [this](const ObjectPtr& old_object, const ObjectPtr& new_object) {
              EXPECT_EQ(KeyOf(*old_object), KeyOf(*new_object));
              calls.push_back("update " + KeyOf(*new_object));
            },
        .on_delete = [this](const ObjectPtr& o) { calls.push_back("delete " + KeyOf(*o)); },
    };
  }
  std::vector<std::string> Take() { return std::exchange(calls, {}); }
};

// Forwards to a Store and runs a hook right after a List returns: the window in which a real
// informer's list and watch are apart.
class ListHookClient : public Client {
 public:
  explicit ListHookClient(Store& store) : store_(store) {}
  std::function<void()> after_list;

  Result<ObjectPtr> Create(const std::string& r, json o, const std::string& ns) override {
    return store_.Create(r, std::move(o), ns);
  }
  Result<ObjectPtr> Get(const std::string& r, const std::string& ns, const std::string& n) override {
    return store_.Get(r, ns, n);
  }
  Result<ListResult> List(const std::string& r, const ListOptions& options) override {
    auto listed = store_.List(r, options);
    if (after_list) std::exchange(after_list, nullptr)();
    return listed;
  }
  Result<ObjectPtr> Update(const std::string& r, json o) override { return store_.Update(r, std::move(o)); }
  Result<ObjectPtr> UpdateStatus(const std::string& r, json o) override {
    return store_.UpdateStatus(r, std::move(o));
  }
  Result<ObjectPtr> Patch(const std::string& r, const std::string& ns, const std::string& n, const json& p,
                          PatchType t, const std::string& sub) override {
    return store_.Patch(r, ns, n, p, t, sub);
  }
  Result<ObjectPtr> Delete(const std::string& r, const std::string& ns, const std::string& n,
                           const DeleteOptions& o) override {
    return store_.Delete(r, ns, n, o);
  }
  Result<WatchPtr> Watch(const std::string& r, const WatchOptions& o) override { return store_.Watch(r, o); }

 private:
  Store& store_;
};

class InformerTest : public ::testing::Test {
 protected:
  ManualClock clock_;
  Store store_{StoreOptions{.clock = &clock_}};
  HandlerLog log_;
};

TEST_F(InformerTest, StartListsExistingObjectsAndReportsThemAsAddsInKeyOrder) {
  MustCreate(store_, InformedConfigMap("b"));
  MustCreate(store_, InformedConfigMap("a"));
  Informer informer(store_, "configmaps");
  informer.AddEventHandler(log_.Handlers());

  ASSERT_TRUE(informer.Start().ok());

  EXPECT_TRUE(informer.HasSynced());
  EXPECT_FALSE(informer.NeedsResync());
  EXPECT_EQ(log_.Take(), (std::vector<std::string>{"add default/a", "add default/b"}));
  EXPECT_EQ(informer.Keys(), (std::vector<std::string>{"default/a", "default/b"}));
  EXPECT_EQ(informer.LastSyncResourceVersion(), std::to_string(store_.CurrentResourceVersion()));
  EXPECT_EQ(informer.stats().lists, 1);
  EXPECT_EQ(informer.stats().relists, 0);
}

TEST_F(InformerTest, EventsWrittenBetweenListAndWatchAreNotLost) {
  MustCreate(store_, InformedConfigMap("a"));
  ListHookClient client(store_);
  client.after_list = [&] {
    MustCreate(store_, InformedConfigMap("late"));
    MustSetData(store_, "a", "changed");
  };
  Informer informer(client, "configmaps");
  informer.AddEventHandler(log_.Handlers());

  ASSERT_TRUE(informer.Start().ok());
  informer.Pump();

  EXPECT_EQ(log_.Take(), (std::vector<std::string>{"add default/a", "add default/late", "update default/a"}));
  ASSERT_NE(informer.Get("default", "a"), nullptr);
  EXPECT_EQ((*informer.Get("default", "a"))["data"]["k"], "changed");
  EXPECT_NE(informer.Get("default", "late"), nullptr);
}

TEST_F(InformerTest, PumpAppliesAddUpdateDeleteToCacheBeforeCallingHandlers) {
  Informer informer(store_, "configmaps");
  ASSERT_TRUE(informer.Start().ok());
  std::vector<std::string> seen_in_cache;
  informer.AddEventHandler(InformerHandlers{
      .on_add = [&](const ObjectPtr& o) { seen_in_cache.push_back(informer.GetByKey(KeyOf(*o)) == o ? "y" : "n"); },
      .on_update = [&](const ObjectPtr&, const ObjectPtr& o) {
        seen_in_cache.push_back(informer.GetByKey(KeyOf(*o)) == o ? "y" : "n");
      },
      .on_delete = [&](const ObjectPtr& o) {
        seen_in_cache.push_back(informer.GetByKey(KeyOf(*o)) == nullptr ? "y" : "n");
      },
  });
  informer.AddEventHandler(log_.Handlers());

  MustCreate(store_, InformedConfigMap("a"));
  MustSetData(store_, "a", "2");
  MustCreate(store_, InformedConfigMap("b"));
  MustDelete(store_, "a");

  EXPECT_EQ(informer.Pump(), 4u);
  EXPECT_EQ(log_.Take(),
            (std::vector<std::string>{"add default/a", "update default/a", "add default/b", "delete default/a"}));
  EXPECT_EQ(seen_in_cache, (std::vector<std::string>{"y", "y", "y", "y"}));
  EXPECT_EQ(informer.Keys(), (std::vector<std::string>{"default/b"}));
  EXPECT_EQ(informer.Pump(), 0u);
  EXPECT_EQ(informer.stats().events, 4);
}

// Changes() moves with every add, replacement and removal in the cache, and not without one: a
// reader that kept what it derived from Get while it read the same keeps nothing stale.
TEST_F(InformerTest, ChangesCountsEveryChangeToTheCache) {
  Informer informer(store_, "configmaps");
  MustCreate(store_, InformedConfigMap("a"));
  ASSERT_TRUE(informer.Start().ok());
  const std::uint64_t listed = informer.Changes();
  EXPECT_EQ(listed, 1u);
  EXPECT_EQ(informer.Pump(), 0u);
  EXPECT_EQ(informer.Changes(), listed);
  MustSetData(store_, "a", "2");
  EXPECT_EQ(informer.Pump(), 1u);
  EXPECT_EQ(informer.Changes(), listed + 1);
  MustCreate(store_, InformedConfigMap("b"));
  MustDelete(store_, "a");
  EXPECT_EQ(informer.Pump(), 2u);
  EXPECT_EQ(informer.Changes(), listed + 3);
  EXPECT_EQ(informer.Pump(), 0u);
  EXPECT_EQ(informer.Changes(), listed + 3);
}

TEST_F(InformerTest, UpdateHandlerGetsThePreviousObjectAndCacheSharesTheStoresObjects) {
  MustCreate(store_, InformedConfigMap("a"));
  Informer informer(store_, "configmaps");
  ASSERT_TRUE(informer.Start().ok());
  ObjectPtr before = informer.Get("default", "a");
  ObjectPtr seen_old;
  informer.AddEventHandler({.on_update = [&](const ObjectPtr& o, const ObjectPtr&) { seen_old = o; }});

  MustSetData(store_, "a", "2");
  informer.Pump();

  EXPECT_EQ(seen_old, before);  // the same shared object, not a copy
  auto fresh = store_.Get("configmaps", "default", "a");
  ASSERT_TRUE(fresh.ok());
  EXPECT_EQ(informer.Get("default", "a"), fresh.value());
}

TEST_F(InformerTest, ResumesAfterDroppedWatchWithoutRelistOrDuplicateHandlerCalls) {
  MustCreate(store_, InformedConfigMap("a"));
  Informer informer(store_, "configmaps");
  informer.AddEventHandler(log_.Handlers());
  ASSERT_TRUE(informer.Start().ok());
  MustCreate(store_, InformedConfigMap("b"));
  informer.Pump();
  log_.Take();

  store_.DropWatches();
  MustCreate(store_, InformedConfigMap("c"));
  MustSetData(store_, "a", "2");
  MustDelete(store_, "b");

  EXPECT_EQ(informer.Pump(), 3u);

  EXPECT_EQ(log_.Take(), (std::vector<std::string>{"add default/c", "update default/a", "delete default/b"}));
  EXPECT_EQ(informer.stats().relists, 0);
  EXPECT_EQ(informer.stats().lists, 1);
  EXPECT_EQ(informer.stats().rewatches, 1);
  EXPECT_FALSE(informer.NeedsResync());
  EXPECT_EQ(informer.Keys(), (std::vector<std::string>{"default/a", "default/c"}));

  // The resumed watch goes on delivering, once.
  MustCreate(store_, InformedConfigMap("d"));
  EXPECT_EQ(informer.Pump(), 1u);
  EXPECT_EQ(log_.Take(), (std::vector<std::string>{"add default/d"}));
}

TEST_F(InformerTest, DroppedWatchWithNothingNewResumesQuietly) {
  MustCreate(store_, InformedConfigMap("a"));
  Informer informer(store_, "configmaps");
  informer.AddEventHandler(log_.Handlers());
  ASSERT_TRUE(informer.Start().ok());
  log_.Take();

  store_.DropWatches();

  EXPECT_EQ(informer.Pump(), 0u);
  EXPECT_TRUE(log_.Take().empty());
  EXPECT_EQ(informer.stats().rewatches, 1);
  EXPECT_EQ(informer.stats().relists, 0);
}

TEST_F(InformerTest, RelistsAfterExpiredHistoryAndReportsDifferencesInKeyOrder) {
  Store store(StoreOptions{.clock = &clock_, .history_limit = 5});
  for (const char* name : {"a", "b", "c", "z"}) MustCreate(store, InformedConfigMap(name));
  Informer informer(store, "configmaps");
  informer.AddEventHandler(log_.Handlers());
  ASSERT_TRUE(informer.Start().ok());
  log_.Take();

  store.DropWatches();
  MustDelete(store, "b");
  MustSetData(store, "c", "2");
  MustDelete(store, "z");
  for (const char* name : {"d", "e", "f", "g", "h"}) MustCreate(store, InformedConfigMap(name));  // 8 changes > 5

  EXPECT_EQ(informer.Pump(), 8u);

  EXPECT_EQ(log_.Take(), (std::vector<std::string>{"delete default/b", "update default/c", "add default/d",
                                                   "add default/e", "add default/f", "add default/g",
                                                   "add default/h", "delete default/z"}));
  EXPECT_EQ(informer.stats().relists, 1);
  EXPECT_EQ(informer.stats().rewatches, 0);
  EXPECT_FALSE(informer.NeedsResync());
  EXPECT_EQ(informer.Keys(), (std::vector<std::string>{"default/a", "default/c", "default/d", "default/e",
                                                       "default/f", "default/g", "default/h"}));
  EXPECT_EQ((*informer.Get("default", "c"))["data"]["k"], "2");
  EXPECT_EQ(informer.LastSyncResourceVersion(), std::to_string(store.CurrentResourceVersion()));

  // The watch opened after the relist delivers later changes.
  MustDelete(store, "a");
  EXPECT_EQ(informer.Pump(), 1u);
  EXPECT_EQ(log_.Take(), (std::vector<std::string>{"delete default/a"}));
}

TEST_F(InformerTest, RelistOfAnUnchangedWorldCallsNoHandlers) {
  Store store(StoreOptions{.clock = &clock_, .history_limit = 2});
  MustCreate(store, InformedConfigMap("a"));
  MustCreate(store, InformedConfigMap("b"));
  Informer informer(store, "configmaps");
  informer.AddEventHandler(log_.Handlers());
  ASSERT_TRUE(informer.Start().ok());
  log_.Take();

  store.DropWatches();
  // Changes elsewhere (another namespace's objects are still configmaps) that end where they began.
  MustCreateNamespace(store, "other");
  for (int i = 0; i < 3; ++i) MustCreate(store, InformedConfigMap("x" + std::to_string(i), {}, "other"));
  for (int i = 0; i < 3; ++i) MustDelete(store, "x" + std::to_string(i), "other");
  informer.Pump();

  EXPECT_EQ(informer.stats().relists, 1);
  EXPECT_TRUE(log_.Take().empty());
}

TEST_F(InformerTest, ReaderCutOffByTheServerForFallingBehindConvergesOnNextPump) {
  Store store(StoreOptions{.clock = &clock_, .history_limit = 50, .watch_queue_limit = 10});
  Informer informer(store, "configmaps");
  ASSERT_TRUE(informer.Start().ok());

  for (int i = 0; i < 200; ++i) MustCreate(store, InformedConfigMap("cm" + std::to_string(1000 + i)));
  informer.Pump();

  EXPECT_EQ(informer.Size(), 200u);
  EXPECT_FALSE(informer.NeedsResync());
  EXPECT_EQ(informer.stats().relists, 1);  // history of 50 no longer reaches back
}

TEST_F(InformerTest, ThousandsOfUnconsumedEventsAreAllAppliedByOnePump) {
  Informer informer(store_, "configmaps");
  int adds = 0, updates = 0;
  informer.AddEventHandler({.on_add = [&](const ObjectPtr&) { ++adds; },
                            .on_update = [&](const ObjectPtr&, const ObjectPtr&) { ++updates; }});
  ASSERT_TRUE(informer.Start().ok());

  constexpr int kObjects = 5000;
  for (int i = 0; i < kObjects; ++i) MustCreate(store_, InformedConfigMap("cm-" + std::to_string(i)));
  for (int i = 0; i < kObjects; i += 2) MustSetData(store_, "cm-" + std::to_string(i), "2");

  EXPECT_EQ(informer.Pump(), static_cast<std::size_t>(kObjects + kObjects / 2));
  EXPECT_EQ(adds, kObjects);
  EXPECT_EQ(updates, kObjects / 2);
  EXPECT_EQ(informer.Size(), static_cast<std::size_t>(kObjects));
  EXPECT_EQ(informer.stats().relists, 0);
  EXPECT_EQ(informer.LastSyncResourceVersion(), std::to_string(store_.CurrentResourceVersion()));
}

TEST_F(InformerTest, IndexesFollowAddsLabelChangesAndDeletes) {
  Informer informer(store_, "configmaps");
  ASSERT_TRUE(informer.AddIndex("app", IndexByLabel("app")).ok());
  ASSERT_TRUE(informer.Start().ok());

  MustCreate(store_, InformedConfigMap("web-1", {{"app", "web"}}));
  MustCreate(store_, InformedConfigMap("web-2", {{"app", "web"}}));
  MustCreate(store_, InformedConfigMap("db-1", {{"app", "db"}}));
  MustCreate(store_, InformedConfigMap("plain"));
  informer.Pump();

  auto keys = [](const std::vector<ObjectPtr>& objects) {
    std::vector<std::string> out;
    for (const auto& o : objects) out.push_back(NameOf(*o));
    return out;
  };
  EXPECT_EQ(keys(informer.ByIndex("app", "web")), (std::vector<std::string>{"web-1", "web-2"}));
  EXPECT_EQ(keys(informer.ByIndex("app", "db")), (std::vector<std::string>{"db-1"}));

  ASSERT_TRUE(store_.Patch("configmaps", "default", "web-2", json{{"metadata", {{"labels", {{"app", "db"}}}}}}).ok());
  MustDelete(store_, "web-1");
  informer.Pump();

  EXPECT_TRUE(informer.ByIndex("app", "web").empty());
  EXPECT_EQ(keys(informer.ByIndex("app", "db")), (std::vector<std::string>{"db-1", "web-2"}));
  EXPECT_TRUE(informer.ByIndex("no-such-index", "db").empty());
}

// An update that leaves the indexed value alone (the common case: data or status) keeps the object
// in its bucket and serves the new version from it.
TEST_F(InformerTest, IndexServesTheNewVersionAfterAnUpdateKeepingTheIndexedValue) {
  Informer informer(store_, "configmaps");
  ASSERT_TRUE(informer.AddIndex("app", IndexByLabel("app")).ok());
  ASSERT_TRUE(informer.Start().ok());
  MustCreate(store_, InformedConfigMap("web-1", {{"app", "web"}}));
  informer.Pump();
  ASSERT_TRUE(store_.Patch("configmaps", "default", "web-1", json{{"data", {{"k", "v2"}}}}).ok());
  informer.Pump();

  auto web = informer.ByIndex("app", "web");
  ASSERT_EQ(web.size(), 1u);
  EXPECT_EQ((*web[0])["data"]["k"], "v2");
  EXPECT_EQ(web[0], informer.Get("default", "web-1"));
  EXPECT_TRUE(informer.ByIndex("app", "db").empty());
}

// An index holds cache entries by address: a relist that adds, relabels, updates and removes
// objects leaves it serving exactly the objects the cache holds, the same shared versions, and
// nothing of what the relist removed (whose entries are gone from the cache).
TEST_F(InformerTest, IndexFollowsARelistServingTheCachedVersions) {
  Store store(StoreOptions{.clock = &clock_, .history_limit = 3});
  MustCreate(store, InformedConfigMap("a", {{"app", "web"}}));
  MustCreate(store, InformedConfigMap("b", {{"app", "web"}}));
  MustCreate(store, InformedConfigMap("c", {{"app", "db"}}));
  Informer informer(store, "configmaps");
  ASSERT_TRUE(informer.AddIndex("app", IndexByLabel("app")).ok());
  ASSERT_TRUE(informer.Start().ok());

  store.DropWatches();
  MustDelete(store, "a");
  ASSERT_TRUE(store.Patch("configmaps", "default", "b", json{{"metadata", {{"labels", {{"app", "db"}}}}}}).ok());
  MustSetData(store, "c", "2");
  MustCreate(store, InformedConfigMap("d", {{"app", "web"}}));
  MustCreate(store, InformedConfigMap("e", {{"app", "db"}}));
  EXPECT_EQ(informer.Pump(), 5u);
  ASSERT_EQ(informer.stats().relists, 1);

  auto names = [](const std::vector<ObjectPtr>& objects) {
    std::vector<std::string> out;
    for (const auto& o : objects) out.push_back(NameOf(*o));
    return out;
  };
  EXPECT_EQ(names(informer.ByIndex("app", "web")), (std::vector<std::string>{"d"}));
  EXPECT_EQ(names(informer.ByIndex("app", "db")), (std::vector<std::string>{"b", "c", "e"}));
  for (const auto& o : informer.ByIndex("app", "db")) EXPECT_EQ(o, informer.Get("default", NameOf(*o)));
  EXPECT_EQ((*informer.ByIndex("app", "db")[1])["data"]["k"], "2");

  // The watch opened after the relist keeps the index in step with the entries it made.
  MustDelete(store, "d");
  MustSetData(store, "e", "3");
  EXPECT_EQ(informer.Pump(), 2u);
  EXPECT_TRUE(informer.ByIndex("app", "web").empty());
  EXPECT_EQ((*informer.ByIndex("app", "db")[2])["data"]["k"], "3");
}

TEST_F(InformerTest, IndexAddedLaterCoversCachedObjectsAndNamesAreUnique) {
  MustCreate(store_, InformedConfigMap("a", {{"tier", "x"}}));
  Informer informer(store_, "configmaps");
  ASSERT_TRUE(informer.Start().ok());

  ASSERT_TRUE(informer.AddIndex("tier", IndexByLabel("tier")).ok());
  EXPECT_EQ(informer.ByIndex("tier", "x").size(), 1u);
  EXPECT_FALSE(informer.AddIndex("tier", IndexByLabel("tier")).ok());
}

TEST_F(InformerTest, ControllerUidIndexFindsTheDependentsOfAnOwner) {
  auto owner = store_.Create("configmaps", InformedConfigMap("owner"));
  ASSERT_TRUE(owner.ok()) << owner.status().ToString();
  const std::string owner_uid = UidOf(*owner.value());
  json owned = InformedConfigMap("owned");
  owned["metadata"]["ownerReferences"] = json::array(
      {{{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"name", "owner"}, {"uid", owner_uid}, {"controller", true}}});
  json referencing = InformedConfigMap("referencing");  // an owner, but not the controller
  referencing["metadata"]["ownerReferences"] = json::array(
      {{{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"name", "owner"}, {"uid", owner_uid}}});
  MustCreate(store_, owned);
  MustCreate(store_, referencing);
  Informer informer(store_, "configmaps");
  ASSERT_TRUE(informer.AddIndex("owner", IndexByControllerUid()).ok());
  ASSERT_TRUE(informer.Start().ok());

  auto dependents = informer.ByIndex("owner", owner_uid);
  ASSERT_EQ(dependents.size(), 1u);
  EXPECT_EQ(NameOf(*dependents[0]), "owned");

  MustDelete(store_, "owned");
  informer.Pump();
  EXPECT_TRUE(informer.ByIndex("owner", owner_uid).empty());
}

TEST_F(InformerTest, NodeNameIndexFindsThePodsBoundToANode) {
  auto pod = [](const std::string& name, const std::string& node) {
    json p = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", name}, {"namespace", "default"}}},
              {"spec", {{"containers", json::array({{{"name", "c"}, {"image", "busybox"}}})}}}};
    if (!node.empty()) p["spec"]["nodeName"] = node;
    return p;
  };
  for (auto [name, node] : std::vector<std::pair<std::string, std::string>>{
           {"p1", "n1"}, {"p2", "n2"}, {"p3", "n1"}, {"pending", ""}}) {
    auto created = store_.Create("pods", pod(name, node));
    ASSERT_TRUE(created.ok()) << created.status().ToString();
  }
  Informer informer(store_, "pods");
  ASSERT_TRUE(informer.AddIndex("node", IndexByNodeName()).ok());
  ASSERT_TRUE(informer.Start().ok());

  std::vector<std::string> on_n1;
  for (const auto& p : informer.ByIndex("node", "n1")) on_n1.push_back(NameOf(*p));
  EXPECT_EQ(on_n1, (std::vector<std::string>{"p1", "p3"}));
  EXPECT_EQ(informer.ByIndex("node", "n2").size(), 1u);
  EXPECT_TRUE(informer.ByIndex("node", "").empty());
}

TEST(InformerIndexFuncTest, NodeNameIndexIgnoresUnboundPods) {
  auto by_node = IndexByNodeName();
  EXPECT_EQ(by_node(json{{"spec", {{"nodeName", "n1"}}}}), (std::vector<std::string>{"n1"}));
  EXPECT_TRUE(by_node(json{{"spec", {{"nodeName", ""}}}}).empty());
  EXPECT_TRUE(by_node(json{{"spec", json::object()}}).empty());
  EXPECT_TRUE(by_node(json{{"metadata", json::object()}}).empty());
}

TEST_F(InformerTest, ListByNamespaceDoesNotLeakIntoNamespacesSharingAPrefix) {
  MustCreateNamespace(store_, "team");
  MustCreateNamespace(store_, "team-b");
  MustCreate(store_, InformedConfigMap("one", {}, "team"));
  MustCreate(store_, InformedConfigMap("two", {}, "team-b"));
  MustCreate(store_, InformedConfigMap("three", {}, "team-b"));
  Informer informer(store_, "configmaps");
  ASSERT_TRUE(informer.Start().ok());

  ASSERT_EQ(informer.List("team").size(), 1u);
  EXPECT_EQ(NameOf(*informer.List("team")[0]), "one");
  EXPECT_EQ(informer.List("team-b").size(), 2u);
  EXPECT_EQ(informer.List().size(), 3u);
  EXPECT_TRUE(informer.List("nope").empty());
  EXPECT_EQ(informer.Get("team-b", "two"), informer.GetByKey("team-b/two"));
  EXPECT_EQ(informer.Get("team", "two"), nullptr);
}

TEST_F(InformerTest, ListBySelectorFiltersTheCacheByLabels) {
  MustCreate(store_, InformedConfigMap("a", {{"app", "web"}, {"tier", "front"}}));
  MustCreate(store_, InformedConfigMap("b", {{"app", "web"}}));
  MustCreate(store_, InformedConfigMap("c"));
  Informer informer(store_, "configmaps");
  ASSERT_TRUE(informer.Start().ok());

  auto web_not_front = LabelSelector::Parse("app=web,tier!=front");
  ASSERT_TRUE(web_not_front.ok());
  auto found = informer.ListBySelector(*web_not_front);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(NameOf(*found[0]), "b");
  auto no_app = LabelSelector::Parse("!app");
  ASSERT_TRUE(no_app.ok());
  ASSERT_EQ(informer.ListBySelector(*no_app).size(), 1u);
  EXPECT_TRUE(informer.ListBySelector(*no_app, "other").empty());
}

TEST_F(InformerTest, FilteredInformerCachesOnlyMatchingObjectsAndSeesThemLeave) {
  MustCreate(store_, InformedConfigMap("a", {{"app", "web"}}));
  MustCreate(store_, InformedConfigMap("b", {{"app", "db"}}));
  Informer informer(store_, "configmaps", ListOptions{.label_selector = "app=web"});
  informer.AddEventHandler(log_.Handlers());
  ASSERT_TRUE(informer.Start().ok());
  EXPECT_EQ(informer.Keys(), (std::vector<std::string>{"default/a"}));

  MustCreate(store_, InformedConfigMap("c", {{"app", "web"}}));
  MustCreate(store_, InformedConfigMap("d", {{"app", "db"}}));
  ASSERT_TRUE(store_.Patch("configmaps", "default", "a", json{{"metadata", {{"labels", {{"app", "db"}}}}}}).ok());
  informer.Pump();

  EXPECT_EQ(informer.Keys(), (std::vector<std::string>{"default/c"}));
  EXPECT_EQ(log_.Take(), (std::vector<std::string>{"add default/a", "add default/c", "delete default/a"}));
}

TEST_F(InformerTest, NotifierFollowsTheInformerAcrossRewatches) {
  Informer informer(store_, "configmaps");
  int notified = 0;
  informer.SetNotifier([&] { ++notified; });
  ASSERT_TRUE(informer.Start().ok());

  MustCreate(store_, InformedConfigMap("a"));
  EXPECT_GE(notified, 1);
  informer.Pump();

  store_.DropWatches();
  EXPECT_GE(notified, 2);  // the end of the stream is news too
  informer.Pump();
  ASSERT_EQ(informer.stats().rewatches, 1);

  const int before = notified;
  MustCreate(store_, InformedConfigMap("b"));
  EXPECT_GT(notified, before);
  EXPECT_EQ(informer.Pump(), 1u);
}

TEST_F(InformerTest, FailedResumeKeepsTheCacheReportsTheErrorAndRetriesOnNextPump) {
  MustCreate(store_, InformedConfigMap("a"));
  FaultyClient faulty(store_, /*seed=*/7);
  Informer informer(faulty, "configmaps");
  informer.AddEventHandler(log_.Handlers());
  ASSERT_TRUE(informer.Start().ok());
  log_.Take();

  faulty.SetPlan(FaultPlan{.read_error_rate = 1.0});
  faulty.DropWatches();
  MustCreate(store_, InformedConfigMap("b"));

  EXPECT_EQ(informer.Pump(), 0u);
  EXPECT_TRUE(informer.NeedsResync());
  EXPECT_EQ(informer.last_error().code(), 500);
  EXPECT_EQ(informer.Keys(), (std::vector<std::string>{"default/a"}));
  EXPECT_GE(informer.stats().resync_failures, 1);

  faulty.SetPlan(FaultPlan{});
  EXPECT_EQ(informer.Pump(), 1u);
  EXPECT_FALSE(informer.NeedsResync());
  EXPECT_TRUE(informer.last_error().ok());
  EXPECT_EQ(log_.Take(), (std::vector<std::string>{"add default/b"}));
  EXPECT_EQ(informer.stats().relists, 0);
}

TEST_F(InformerTest, FailedInitialListIsRetriedByPump) {
  MustCreate(store_, InformedConfigMap("a"));
  FaultyClient faulty(store_, /*seed=*/7, FaultPlan{.read_error_rate = 1.0});
  Informer informer(faulty, "configmaps");
  informer.AddEventHandler(log_.Handlers());

  EXPECT_EQ(informer.Start().code(), 500);
  EXPECT_FALSE(informer.HasSynced());
  EXPECT_TRUE(informer.NeedsResync());

  faulty.SetPlan(FaultPlan{});
  EXPECT_EQ(informer.Pump(), 1u);
  EXPECT_TRUE(informer.HasSynced());
  EXPECT_EQ(log_.Take(), (std::vector<std::string>{"add default/a"}));
}

TEST_F(InformerTest, WatchThatKeepsDroppingDoesNotSpinOnePump) {
  FaultyClient faulty(store_, /*seed=*/1);
  Informer flaky(faulty, "configmaps");
  ASSERT_TRUE(flaky.Start().ok());
  faulty.SetPlan(FaultPlan{.watch_drop_rate = 1.0});

  flaky.Pump();  // returns although every new stream is dropped at once

  EXPECT_TRUE(flaky.NeedsResync());
  EXPECT_GE(faulty.counts().watch_drops, 1);
  faulty.SetPlan(FaultPlan{});
  MustCreate(store_, InformedConfigMap("a"));
  flaky.Pump();
  EXPECT_FALSE(flaky.NeedsResync());
  EXPECT_NE(flaky.Get("default", "a"), nullptr);
}

TEST_F(InformerTest, LateHandlerIsReplayedTheCachedObjects) {
  MustCreate(store_, InformedConfigMap("b"));
  MustCreate(store_, InformedConfigMap("a"));
  Informer informer(store_, "configmaps");
  ASSERT_TRUE(informer.Start().ok());

  informer.AddEventHandler(log_.Handlers());

  EXPECT_EQ(log_.Take(), (std::vector<std::string>{"add default/a", "add default/b"}));
}

TEST_F(InformerTest, StoppedInformerKeepsItsCacheAndIgnoresLaterEvents) {
  MustCreate(store_, InformedConfigMap("a"));
  Informer informer(store_, "configmaps");
  ASSERT_TRUE(informer.Start().ok());

  informer.Stop();
  MustCreate(store_, InformedConfigMap("b"));

  EXPECT_EQ(informer.Pump(), 0u);
  EXPECT_EQ(informer.Keys(), (std::vector<std::string>{"default/a"}));
  EXPECT_FALSE(informer.NeedsResync());
}

TEST_F(InformerTest, ClusterScopedObjectsAreKeyedByName) {
  MustCreateNamespace(store_, "team");
  Informer informer(store_, "namespaces");
  ASSERT_TRUE(informer.Start().ok());

  EXPECT_NE(informer.Get("", "team"), nullptr);
  EXPECT_NE(informer.Get("", "default"), nullptr);
  EXPECT_EQ(informer.List().size(), informer.Size());
}

}  // namespace
}  // namespace kube
