// ShareObject and ReleaseTree: the shared object is the value it was given, and releasing a tree
// empties it from the leaves up without recursing past kReleaseDepth levels.
#include "fakeapi/client/client.h"

#include <gtest/gtest.h>

#include <memory>

namespace kube {
namespace {

using json = kube::Json;

json ShareTestPod() {
  return json::parse(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"a":"b"}},
    "spec":{"containers":[{"name":"main","env":[{"name":"X","value":"1"}],"args":["--a","--b"]}]},
    "status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}})");
}

TEST(ShareObjectTest, HoldsTheValueItWasGiven) {
  ObjectPtr shared = ShareObject(ShareTestPod());
  EXPECT_EQ(*shared, ShareTestPod());
  ObjectPtr second = shared;
  shared.reset();
  EXPECT_EQ(*second, ShareTestPod());  // the last holder still sees the whole object
  EXPECT_EQ(second.use_count(), 1);
}

TEST(ShareObjectTest, ReleaseTreeEmptiesEveryContainerAndKeepsItsType) {
  json pod = ShareTestPod();
  ReleaseTree(pod["spec"]);
  EXPECT_TRUE(pod["spec"].is_object());
  EXPECT_TRUE(pod["spec"].empty());
  EXPECT_EQ(pod["status"], ShareTestPod()["status"]);  // a sibling is left as it was
  json nested = json::array({json::array({1, 2}), json::object({{"k", "v"}})});
  ReleaseTree(nested);
  EXPECT_TRUE(nested.is_array());
  EXPECT_TRUE(nested.empty());
  json scalar = "text";
  ReleaseTree(scalar);
  EXPECT_EQ(scalar, "text");
}

TEST(ShareObjectTest, StopsDescendingAtItsDepthAndLeavesTheRestToTheDestructor) {
  // 300,000 nested arrays (nlohmann's destructor frees them without recursing; a release
  // that followed them all the way down would exhaust the stack: 14 MB at 48 bytes a frame against
  // the 8 MB main thread). Copies and comparisons recurse, so the test only walks the chain.
  auto chain = [](int levels) {
    json root = json::array();
    json* at = &root;
    for (int level = 0; level < levels; ++level) {
      at->push_back(json::array());
      at = &at->back();
    }
    return root;
  };
  json root = chain(300'000);
  json* limit = &root;
  for (int level = 0; level < kReleaseDepth; ++level) limit = &(*limit)[0];
  ReleaseTree(*limit, kReleaseDepth);
  EXPECT_EQ(limit->size(), 1u);  // untouched at the limit
  ReleaseTree(root);
  EXPECT_TRUE(root.empty());
  std::weak_ptr<const json> watch;
  {
    ObjectPtr shared = ShareObject(chain(300'000));
    watch = shared;
    EXPECT_EQ(shared->size(), 1u);
  }
  EXPECT_TRUE(watch.expired());  // freed through the same path as a stored version
}

}  // namespace
}  // namespace kube
