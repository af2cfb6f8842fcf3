// The store's reads at a resourceVersion and in pages, dry runs, the storage quota, bookmarks and
// WatchList, and the metadata kube-apiserver keeps per kind: each as kube-apiserver behaves.
#include "fakeapi/server/json_bounds.h"
#include "fakeapi/server/store.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace fakeapi {
namespace {

using json = kube::Json;

json VersionedConfigMap(const std::string& name, json data = json::object()) {
  return {{"metadata", {{"name", name}, {"namespace", "default"}}}, {"data", data}};
}

std::vector<std::string> Names(const kube::ListResult& list) {
  std::vector<std::string> out;
  for (const auto& obj : list.items) out.push_back(kube::NameOf(*obj));
  return out;
}

class StoreVersionsTest : public ::testing::Test {
 protected:
  kube::ManualClock clock;
  Store store{StoreOptions{.clock = &clock}};

  std::string Create(const std::string& name, json data = {{"k", "v"}}) {
    auto r = store.Create("configmaps", VersionedConfigMap(name, std::move(data)));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? kube::ResourceVersionOf(**r) : "";
  }
  std::vector<kube::WatchEvent> Drain(const kube::WatchPtr& w) {
    std::vector<kube::WatchEvent> out;
    w->Poll(&out);
    return out;
  }
};

TEST_F(StoreVersionsTest, AnExactListAtAnOldVersionIsTheStateThenAnd410OnceCompacted) {
  Create("a");
  const std::string then = Create("b", {{"k", "old"}});
  ASSERT_TRUE(store.Patch("configmaps", "default", "b", {{"data", {{"k", "new"}}}}).ok());
  ASSERT_TRUE(store.Delete("configmaps", "default", "a").ok());
  Create("c");
  auto past = store.List("configmaps", {.resource_version = then, .resource_version_match = "Exact"});
  ASSERT_TRUE(past.ok()) << past.status().ToString();
  EXPECT_EQ(Names(*past), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ((*past->items[1])["data"]["k"], "old");
  EXPECT_EQ(past->resource_version, then);
  // NotOlderThan (and no match at all) is satisfied by the latest state.
  auto latest = store.List("configmaps", {.resource_version = then});
  EXPECT_EQ(Names(*latest), (std::vector<std::string>{"b", "c"}));
  store.SetHistoryLimit(1);
  auto gone = store.List("configmaps", {.resource_version = then, .resource_version_match = "Exact"});
  EXPECT_EQ(gone.status().code(), 410);
  EXPECT_EQ(gone.status().message(), "The resourceVersion for the provided list is too old.");
}

TEST_F(StoreVersionsTest, AFutureResourceVersionIs504TooLargeAndAWordIsRefused) {
  Create("a");
  const std::string future = std::to_string(store.CurrentResourceVersion() + 10);
  for (const auto& status : {store.List("configmaps", {.resource_version = future}).status(),
                             store.Watch("configmaps", {.resource_version = future}).status()}) {
    EXPECT_EQ(status.code(), 504);
    EXPECT_EQ(status.reason(), "Timeout");
    EXPECT_TRUE(status.HasCause("ResourceVersionTooLarge")) << status.ToJson().dump();
    EXPECT_NE(status.message().find("Too large resource version: " + future), std::string::npos);
  }
  // A list's unparsable version is a bad request in kube-apiserver 1.34; a watch's is still 500
  // without a reason (StatusReasonUnknown).
  auto word = store.List("configmaps", {.resource_version = "latest"});
  EXPECT_EQ(word.status().code(), 400);
  EXPECT_EQ(word.status().reason(), "BadRequest");
  auto watch_word = store.Watch("configmaps", {.resource_version = "latest"});
  EXPECT_EQ(watch_word.status().code(), 500);
  EXPECT_FALSE(watch_word.status().ToJson().contains("reason"));
}

TEST_F(StoreVersionsTest, ListOptionsAreValidatedAsKubeApiserverDoes) {
  auto no_rv = store.List("configmaps", {.resource_version_match = "Exact"});
  EXPECT_EQ(no_rv.status().code(), 422);
  EXPECT_EQ(no_rv.status().message(),
            "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden "
            "unless resourceVersion is provided");
  EXPECT_EQ(store.List("configmaps", {.resource_version = "1", .resource_version_match = "Newest"}).status().code(), 422);
  EXPECT_EQ(store.List("configmaps", {.resource_version = "0", .resource_version_match = "Exact"}).status().code(), 422);
  EXPECT_EQ(store.Watch("configmaps", {.send_initial_events = true}).status().code(), 422);
}

TEST_F(StoreVersionsTest, PagesWalkOneSnapshotWhateverIsWrittenBetweenThem) {
  for (const char* name : {"a", "b", "c", "d", "e"}) Create(name);
  auto first = store.List("configmaps", {.limit = 2});
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(Names(*first), (std::vector<std::string>{"a", "b"}));
  ASSERT_FALSE(first->continue_.empty());
  EXPECT_EQ(first->remaining_item_count, 3);
  // Between pages: c changes, d goes, f arrives. The next pages still show the first page's state.
  ASSERT_TRUE(store.Patch("configmaps", "default", "c", {{"data", {{"k", "changed"}}}}).ok());
  ASSERT_TRUE(store.Delete("configmaps", "default", "d").ok());
  Create("f");
  auto second = store.List("configmaps", {.limit = 2, .continue_ = first->continue_});
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(Names(*second), (std::vector<std::string>{"c", "d"}));
  EXPECT_EQ((*second->items[0])["data"]["k"], "v");
  EXPECT_EQ(second->resource_version, first->resource_version);
  auto third = store.List("configmaps", {.limit = 2, .continue_ = second->continue_});
  ASSERT_TRUE(third.ok());
  EXPECT_EQ(Names(*third), (std::vector<std::string>{"e"}));
  EXPECT_TRUE(third->continue_.empty());
  EXPECT_EQ(store.List("configmaps", {.resource_version = "5", .continue_ = first->continue_}).status().code(), 400);
  EXPECT_EQ(store.List("configmaps", {.continue_ = "not-a-token"}).status().code(), 400);
}

TEST_F(StoreVersionsTest, AContinueTokenWhoseSnapshotIsCompactedIs410WithATokenForTheRest) {
  for (const char* name : {"a", "b", "c"}) Create(name);
  auto first = store.List("configmaps", {.limit = 1});
  ASSERT_TRUE(first.ok());
  Create("d");
  store.SetHistoryLimit(1);
  Create("e");  // the history now starts after the first page's snapshot
  auto expired = store.List("configmaps", {.limit = 1, .continue_ = first->continue_});
  ASSERT_EQ(expired.status().code(), 410);
  EXPECT_NE(expired.status().message().find("The provided continue parameter is too old"), std::string::npos);
  // The Status carries a token that continues from the same key at the latest state.
  const json status = expired.status().ToJson();
  ASSERT_TRUE(status["metadata"].contains("continue")) << status.dump();
  auto rest = store.List("configmaps", {.continue_ = status["metadata"]["continue"]});
  ASSERT_TRUE(rest.ok());
  EXPECT_EQ(Names(*rest), (std::vector<std::string>{"b", "c", "d", "e"}));
}

TEST_F(StoreVersionsTest, DryRunsCheckEverythingAndChangeNothing) {
  Create("a");
  const std::int64_t rv = store.CurrentResourceVersion();
  auto watch = *store.Watch("configmaps", {.resource_version = std::to_string(rv)});
  const WriteOptions dry{.dry_run = true};
  auto created = store.Create("configmaps", VersionedConfigMap("b"), "", dry);
  ASSERT_TRUE(created.ok());
  EXPECT_EQ(kube::NameOf(**created), "b");
  json edit = *store.Get("configmaps", "default", "a").value();
  edit["data"]["k"] = "w";
  auto updated = store.Update("configmaps", edit, dry);
  ASSERT_TRUE(updated.ok());
  EXPECT_EQ((**updated)["data"]["k"], "w");
  EXPECT_TRUE(store.Patch("configmaps", "default", "a", {{"data", {{"x", "y"}}}}, "", dry).ok());
  EXPECT_TRUE(store.Delete("configmaps", "default", "a", {}, dry).ok());
  EXPECT_EQ(store.CurrentResourceVersion(), rv);
  EXPECT_FALSE(store.Get("configmaps", "default", "b").ok());
  EXPECT_EQ((*store.Get("configmaps", "default", "a").value())["data"]["k"], "v");
  EXPECT_TRUE(Drain(watch).empty());
  // Admission still runs: a dry run of an invalid object is refused as the real write would be.
  json big = VersionedConfigMap("big", {{"k", std::string(1100000, 'x')}});
  EXPECT_EQ(store.Create("configmaps", big, "", dry).status().code(), 422);
}

TEST_F(StoreVersionsTest, TheStorageQuotaRefusesWritesPastItAndTrimsTheHistory) {
  Create("small");
  const std::size_t quota = 3'500'000;
  store.SetStorageQuota(quota);
  const std::string mib(1000 * 1000, 'x');
  int created = 0;
  kube::Status refused;
  for (int i = 0; i < 10 && refused.ok(); ++i) {
    auto r = store.Create("configmaps", VersionedConfigMap("big" + std::to_string(i), {{"k", mib}}));
    if (r.ok()) ++created;
    else refused = r.status();
  }
  EXPECT_EQ(created, 3);  // 1 MB each, and the quota is 3.5 MB
  EXPECT_EQ(refused.code(), 500);
  EXPECT_EQ(refused.message(), "etcdserver: mvcc: database space exceeded");
  // Rewrites of a big object keep old versions in the watch history: it is compacted to fit.
  for (int i = 0; i < 10; ++i)
    ASSERT_TRUE(store.Patch("configmaps", "default", "big0", {{"data", {{"k", mib + std::to_string(i)}}}}).ok());
  const StoreStats stats = store.Stats();
  EXPECT_LE(stats.stored_bytes, static_cast<std::int64_t>(quota));
  EXPECT_LE(stats.history_bytes, static_cast<std::int64_t>(quota));
  EXPECT_GT(stats.stored_bytes, 3 * 1000 * 1000);
}

TEST_F(StoreVersionsTest, BookmarksCarryTheCurrentVersionOnlyToWatchesThatAskedForThem) {
  Create("a");
  auto with = *store.Watch("configmaps", {.resource_version = std::to_string(store.CurrentResourceVersion()),
                                          .allow_bookmarks = true});
  auto without = *store.Watch("configmaps", {.resource_version = std::to_string(store.CurrentResourceVersion())});
  Create("b");
  store.Bookmark(with);
  store.Bookmark(without);
  auto events = Drain(with);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[1].type, kube::WatchEventType::kBookmark);
  EXPECT_EQ((*events[1].object)["metadata"]["resourceVersion"], std::to_string(store.CurrentResourceVersion()));
  EXPECT_EQ((*events[1].object)["kind"], "ConfigMap");
  EXPECT_EQ(Drain(without).size(), 1u);
}

TEST_F(StoreVersionsTest, SendInitialEventsEndsTheCurrentStateWithTheInitialEventsEndBookmark) {
  Create("a");
  Create("b");
  auto watch = store.Watch("configmaps", {.allow_bookmarks = true, .send_initial_events = true,
                                          .resource_version_match = "NotOlderThan"});
  ASSERT_TRUE(watch.ok()) << watch.status().ToString();
  auto events = Drain(*watch);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].type, kube::WatchEventType::kAdded);
  EXPECT_EQ(events[1].type, kube::WatchEventType::kAdded);
  EXPECT_EQ(events[2].type, kube::WatchEventType::kBookmark);
  EXPECT_EQ((*events[2].object)["metadata"]["annotations"]["k8s.io/initial-events-end"], "true");
  EXPECT_EQ((*events[2].object)["metadata"]["resourceVersion"], std::to_string(store.CurrentResourceVersion()));
  Create("c");
  EXPECT_EQ(Drain(*watch).size(), 1u);
}

TEST_F(StoreVersionsTest, NamespacesCarryTheirNameLabelAndConfigMapsHoldAtMostOneMebibyte) {
  auto ns = store.Create("namespaces", {{"metadata", {{"name", "team"}}}});
  ASSERT_TRUE(ns.ok());
  EXPECT_EQ((**ns)["metadata"]["labels"]["kubernetes.io/metadata.name"], "team");
  json edit = **ns;
  edit["metadata"]["labels"] = {{"other", "x"}};
  auto updated = store.Update("namespaces", edit);
  ASSERT_TRUE(updated.ok());
  EXPECT_EQ((**updated)["metadata"]["labels"]["kubernetes.io/metadata.name"], "team");
  auto big = store.Create("configmaps", VersionedConfigMap("big", {{"k", std::string(1024 * 1024, 'x')}}));
  EXPECT_EQ(big.status().code(), 422);
  EXPECT_EQ(big.status().message(), "ConfigMap \"big\" is invalid: []: Too long: must have at most 1048576 bytes");
}

TEST_F(StoreVersionsTest, AWriteNamingAMissingOwnerTellsTheCollectorAtOnce) {
  Store lazy{StoreOptions{.clock = &clock, .synchronous_gc = false}};
  std::vector<bool> orphaned;
  lazy.SetWriteObserver([&](const WriteRecord& w) { orphaned.push_back(w.orphaned); });
  json owned = VersionedConfigMap("owned");
  owned["metadata"]["ownerReferences"] = json::array({{{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"name", "gone"},
                                                       {"uid", "no-such-uid"}}});
  ASSERT_TRUE(lazy.Create("configmaps", owned).ok());
  ASSERT_TRUE(lazy.Create("configmaps", VersionedConfigMap("plain")).ok());
  EXPECT_EQ(orphaned, (std::vector<bool>{true, false}));
  EXPECT_TRUE(lazy.HasPendingGarbage());
  lazy.CollectGarbage();
  EXPECT_FALSE(lazy.Get("configmaps", "default", "owned").ok());
  EXPECT_TRUE(lazy.Get("configmaps", "default", "plain").ok());
}

}  // namespace
}  // namespace fakeapi
