// JobStatus::Changed: whether a pass has anything to write, lastReconcileTime aside, whatever
// members were added, removed or changed on either side; the stored status read in place.
#include "fakeapi/client/json.h"
#include "operator/controller/job_status.h"

#include <gtest/gtest.h>

namespace dgl {
namespace {

using json = kube::Json;

const json kStored = {{"phase", "Running"},
                      {"lastReconcileTime", "2026-01-01T00:00:00Z"},
                      {"replicaStatuses", {{"Worker", {{"active", 2}}}}},
                      {"startTime", "2026-01-01T00:00:00Z"}};

TEST(JobStatusChanged, OnlyTheReconcileTimeMovedIsNoChange) {
  JobStatus status(kStored, 0);
  EXPECT_FALSE(status.Changed());
  status.value()["lastReconcileTime"] = "2026-01-01T00:05:00Z";
  EXPECT_FALSE(status.Changed());
  status.value().erase("lastReconcileTime");
  EXPECT_FALSE(status.Changed());
}

TEST(JobStatusChanged, ReconcileTimeAddedToAStatusThatHadNoneIsNoChange) {
  json stored = kStored;
  stored.erase("lastReconcileTime");
  JobStatus status(stored, 0);
  status.value()["lastReconcileTime"] = "2026-01-01T00:05:00Z";
  EXPECT_FALSE(status.Changed());
}

TEST(JobStatusChanged, AValueChangedDeepInsideIsAChange) {
  JobStatus status(kStored, 0);
  status.value()["replicaStatuses"]["Worker"]["active"] = 1;
  EXPECT_TRUE(status.Changed());
}

TEST(JobStatusChanged, AMemberAddedOrRemovedIsAChangeWhereverItSortsAroundTheReconcileTime) {
  for (const char* key : {"completionTime", "aaa", "zzz", "lastReconcileTimf"}) {
    JobStatus added(kStored, 0);
    added.value()[key] = "x";
    EXPECT_TRUE(added.Changed()) << key;
  }
  for (const char* key : {"phase", "replicaStatuses", "startTime"}) {
    JobStatus removed(kStored, 0);
    removed.value().erase(key);
    EXPECT_TRUE(removed.Changed()) << key;
  }
}

TEST(JobStatusChanged, ComparedWithWhatWasLastStored) {
  JobStatus status(kStored, 0);
  status.value()["phase"] = "Succeeded";
  EXPECT_TRUE(status.Changed());
  status.Stored(kube::ShareObject(json{{"status", status.TakeValue()}}));
  EXPECT_FALSE(status.Changed());
  EXPECT_EQ(status.Phase(), "Succeeded");  // the value to edit is the stored one
  status.value()["phase"] = "Running";  // what was stored before is no longer the reference
  EXPECT_TRUE(status.Changed());
}

TEST(JobStatusChanged, ReadsTheJobsStatusInPlaceAndAJobWithoutOneAsEmpty) {
  const kube::ObjectPtr job = kube::ShareObject(json{{"metadata", {{"name", "j"}}}, {"status", kStored}});
  JobStatus status(job, 0);
  EXPECT_FALSE(status.Changed());
  EXPECT_EQ(status.Phase(), "Running");
  status.value()["phase"] = "Failed";
  EXPECT_TRUE(status.Changed());
  EXPECT_EQ((*job)["status"]["phase"], "Running");  // the stored job is never edited
  for (const json& bare : {json{{"metadata", {{"name", "j"}}}}, json{{"status", "odd"}}}) {
    JobStatus none(kube::ShareObject(json(bare)), 0);
    EXPECT_FALSE(none.Changed());
    EXPECT_TRUE(none.value().is_object() && none.value().empty());
    none.value()["phase"] = "Created";
    EXPECT_TRUE(none.Changed());
  }
}

}  // namespace
}  // namespace dgl
