// JobPods (operator/controller/job_pods.h): pods slotted by name into the partitioner, the launcher
// and the indexed replicas, an index counting only in canonical decimal below the wanted count;
// every other pod kept apart, none lost.
#include "operator/controller/job_pods.h"

#include "fakeapi/client/client.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace dgl {
namespace {

using json = kube::Json;

kube::ObjectPtr Pod(const std::string& name) {
  return kube::ShareObject(json{{"metadata", {{"name", name}}}, {"status", {{"phase", "Running"}}}});
}

TEST(JobPods, SlotsAPodByItsIndexOnlyInCanonicalDecimalBelowTheWantedCount) {
  JobPods pods("j", {{"worker", 3}, {"server", 1}});
  const std::vector<std::string> names = {"j-worker-0",  "j-worker-2",  "j-worker-3",   "j-worker-01", "j-worker-+1",
                                          "j-worker--1", "j-worker-",   "j-worker-1x",  "j-worker- 1", "j-server-0",
                                          "j-server-00", "j-launcher",  "j-partitioner", "k-worker-1",
                                          "j-worker-99999999999999999999"};
  for (const std::string& name : names) pods.Put(Pod(name));
  std::vector<std::int64_t> workers;
  for (const auto& [index, view] : pods.Indexed("worker")) {
    workers.push_back(index);
    EXPECT_EQ(view.Name(), "j-worker-" + std::to_string(index));
  }
  EXPECT_EQ(workers, (std::vector<std::int64_t>{0, 2}));
  ASSERT_EQ(pods.Indexed("server").size(), 1u);
  EXPECT_EQ(pods.Indexed("server").begin()->second.Name(), "j-server-0");
  ASSERT_TRUE(pods.launcher());
  ASSERT_TRUE(pods.partitioner());
  // The pods that fit no slot are kept, not dropped.
  std::vector<std::string> all;
  for (const PodView& v : pods.All()) all.push_back(v.Name());
  std::sort(all.begin(), all.end());
  std::vector<std::string> expected = names;
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(all, expected);
}

}  // namespace
}  // namespace dgl
