// RFC 6902 JSON patch with kube-apiserver's bounds, and the nesting and memory measures the HTTP
// facade guards client input with.
#include "fakeapi/server/json_bounds.h"
#include "fakeapi/server/json_patch.h"

#include <gtest/gtest.h>

#include <string>

namespace fakeapi {
namespace {

using json = kube::Json;

TEST(JsonPatchTest, AppliesEveryOperationOfRfc6902) {
  json doc = {{"a", {{"b", 1}}}, {"list", {1, 2, 3}}};
  json patch = json::parse(R"([
    {"op": "add", "path": "/a/c", "value": 2},
    {"op": "add", "path": "/list/1", "value": 9},
    {"op": "add", "path": "/list/-", "value": 4},
    {"op": "remove", "path": "/list/0"},
    {"op": "replace", "path": "/a/b", "value": "x"},
    {"op": "move", "from": "/a/c", "path": "/moved"},
    {"op": "copy", "from": "/a", "path": "/copied"},
    {"op": "test", "path": "/moved", "value": 2}
  ])");
  ASSERT_TRUE(ApplyJsonPatch(doc, patch).ok());
  EXPECT_EQ(doc, json::parse(R"({"a":{"b":"x"},"copied":{"b":"x"},"list":[9,2,3,4],"moved":2})"));
}

TEST(JsonPatchTest, AnOperationThatCannotApplyIs422) {
  for (const char* patch : {R"([{"op":"remove","path":"/missing"}])", R"([{"op":"replace","path":"/x/y","value":1}])",
                            R"([{"op":"test","path":"/a","value":2}])", R"([{"op":"add","path":"/list/9","value":1}])",
                            R"([{"op":"explode","path":"/a"}])", R"([{"op":"add","path":"no-slash","value":1}])",
                            R"([{"op":"move","from":"/a","path":"/a/inside"}])", R"([42])"}) {
    json doc = {{"a", 1}, {"list", json::array()}};
    kube::Status s = ApplyJsonPatch(doc, json::parse(patch));
    EXPECT_EQ(s.code(), 422) << patch << " " << s.ToString();
  }
}

TEST(JsonPatchTest, ReplaceOfAMissingMemberAddsIt) {
  json doc = {{"labels", {{"a", "1"}}}};
  ASSERT_TRUE(ApplyJsonPatch(doc, json::parse(R"([{"op":"replace","path":"/labels/b","value":"2"}])")).ok());
  EXPECT_EQ(doc, json::parse(R"({"labels":{"a":"1","b":"2"}})"));
  json list = {{"list", {1}}};
  EXPECT_EQ(ApplyJsonPatch(list, json::parse(R"([{"op":"replace","path":"/list/1","value":2}])")).code(), 422);
}

TEST(JsonPatchTest, MoreThanTenThousandOperationsIs413) {
  json patch = json::array();
  for (int i = 0; i < 10'001; ++i) patch.push_back({{"op", "test"}, {"path", "/a"}, {"value", 1}});
  json doc = {{"a", 1}};
  kube::Status s = ApplyJsonPatch(doc, patch);
  EXPECT_EQ(s.code(), 413);
  EXPECT_EQ(s.message(), "The allowed maximum operations in a JSON patch is 10000, got 10001");
}

TEST(JsonPatchTest, CopiesThatDoubleTheDocumentStopAtTheCopyLimit) {
  // 40 copies of the document into itself would make 2^40 of it.
  json doc = {{"data", {{"k", std::string(1000, 'x')}}}};
  json patch = json::array();
  for (int i = 0; i < 40; ++i) patch.push_back({{"op", "copy"}, {"from", "/data"}, {"path", "/data/c" + std::to_string(i)}});
  kube::Status s = ApplyJsonPatch(doc, patch, JsonPatchLimits{.max_copy_bytes = 1024 * 1024});
  EXPECT_EQ(s.code(), 422);
  EXPECT_NE(s.message().find("accumulated size increase of copy operations exceeds the limit"), std::string::npos);
  EXPECT_LT(doc.dump().size(), 4u * 1024 * 1024);
}

TEST(JsonPatchTest, CopiesThatNestTooDeepAreRefused) {
  json doc = {{"a", json::object()}};
  json patch = json::array();
  // Each copy puts the whole of /a inside itself, one level deeper than it was.
  for (int i = 0; i < 20; ++i) patch.push_back({{"op", "copy"}, {"from", "/a"}, {"path", "/a/n"}});
  kube::Status s = ApplyJsonPatch(doc, patch, JsonPatchLimits{.max_depth = 10});
  EXPECT_EQ(s.code(), 422);
  EXPECT_NE(s.message().find("nest deeper than 10 levels"), std::string::npos);
  EXPECT_LE(NestingDepth(doc, 1000), 10u);
}

// Found by timing tests/fuzz/fuzz_patches on long paths: the depth check took parent pointers one
// by one, and printed pointers, both in the square of the path's length (20,000 tokens took 44 s of
// CPU; the million a 3 MB body holds, days), all of it inside the server's executor. A path deeper
// than any document may be is refused at once, on its text.
TEST(JsonPatchTest, APathDeeperThanTheDepthLimitIsRefusedInOnePass) {
  std::string path;
  for (int i = 0; i < 200'000; ++i) path += "/a";
  json doc = json::object();
  kube::Status s = ApplyJsonPatch(doc, json::array({{{"op", "add"}, {"path", path}, {"value", 1}}}));
  EXPECT_EQ(s.code(), 422);
  EXPECT_NE(s.message().find("deeper than 1000 levels"), std::string::npos) << s.message().substr(0, 200);
  EXPECT_EQ(doc, json::object());
  // At the limit a path is still followed (and fails only where the document ends).
  std::string deep;
  for (int i = 0; i < 999; ++i) deep += "/a";
  EXPECT_EQ(ApplyJsonPatch(doc, json::array({{{"op", "add"}, {"path", deep}, {"value", 1}}})).code(), 422);
}

// Found reading the move operation for the fuzzer's properties: moving the whole document onto
// itself removed it and added back nothing, leaving null.
TEST(JsonPatchTest, MovingAValueOntoItselfLeavesTheDocumentAsItWas) {
  const json original = {{"a", {{"b", 1}}}, {"list", {1, 2}}};
  for (const char* at : {"", "/a", "/a/b", "/list/1"}) {
    json doc = original;
    kube::Status s = ApplyJsonPatch(doc, json::array({{{"op", "move"}, {"from", at}, {"path", at}}}));
    EXPECT_TRUE(s.ok()) << at << ": " << s.ToString();
    EXPECT_EQ(doc, original) << at;
  }
  json doc = original;
  EXPECT_EQ(ApplyJsonPatch(doc, json::array({{{"op", "move"}, {"from", "/nope"}, {"path", "/nope"}}})).code(), 422);
}

TEST(JsonBoundsTest, NestingDepthOfTextSkipsStringsAndStopsPastTheLimit) {
  EXPECT_EQ(TextNestingDepth(R"({"a":[1,{"b":"[[[["}]})"), 3u);
  EXPECT_EQ(TextNestingDepth("\"[[[\\\"[[\""), 0u);
  const std::string deep = std::string(100'000, '[') + std::string(100'000, ']');
  EXPECT_GT(TextNestingDepth(deep, 1000), 1000u);
  EXPECT_LE(TextNestingDepth(deep, 1000), 1001u);
}

TEST(JsonBoundsTest, NestingDepthOfAValueNeedsNoRecursion) {
  json v = json::array();
  for (int i = 0; i < 5000; ++i) v = json::array({std::move(v)});
  EXPECT_EQ(NestingDepth(json(1)), 0u);
  EXPECT_EQ(NestingDepth(json::object()), 1u);
  EXPECT_GT(NestingDepth(v, 1000), 1000u);
}

TEST(JsonBoundsTest, ApproximateMemoryGrowsWithTheContent) {
  const std::size_t small = ApproximateMemory(json{{"k", "v"}});
  const std::size_t big = ApproximateMemory(json{{"k", std::string(1'000'000, 'x')}});
  EXPECT_GT(small, 32u);
  EXPECT_GT(big, 1'000'000u);
  EXPECT_LT(big, 1'100'000u);
}

}  // namespace
}  // namespace fakeapi
