// Tests of JSON merge patch: every example of RFC 7386 appendix A, and that CreateMergePatch
// produces patches that turn the old document into the new one.
#include "fakeapi/server/merge_patch.h"

#include <gtest/gtest.h>

namespace fakeapi {
namespace {

using json = kube::Json;

json Patched(json target, const json& patch) {
  ApplyMergePatch(target, patch);
  return target;
}

TEST(MergePatchTest, Rfc7386AppendixAExamples) {
  struct Case {
    const char* target;
    const char* patch;
    const char* result;
  };
  const Case cases[] = {
      {R"({"a":"b"})", R"({"a":"c"})", R"({"a":"c"})"},
      {R"({"a":"b"})", R"({"b":"c"})", R"({"a":"b","b":"c"})"},
      {R"({"a":"b"})", R"({"a":null})", R"({})"},
      {R"({"a":"b","b":"c"})", R"({"a":null})", R"({"b":"c"})"},
      {R"({"a":["b"]})", R"({"a":"c"})", R"({"a":"c"})"},
      {R"({"a":"c"})", R"({"a":["b"]})", R"({"a":["b"]})"},
      {R"({"a":{"b":"c"}})", R"({"a":{"b":"d","c":null}})", R"({"a":{"b":"d"}})"},
      {R"({"a":[{"b":"c"}]})", R"({"a":[1]})", R"({"a":[1]})"},
      {R"(["a","b"])", R"(["c","d"])", R"(["c","d"])"},
      {R"({"a":"b"})", R"(["c"])", R"(["c"])"},
      {R"({"a":"foo"})", R"(null)", R"(null)"},
      {R"({"a":"foo"})", R"("bar")", R"("bar")"},
      {R"({"e":null})", R"({"a":1})", R"({"e":null,"a":1})"},
      {R"([1,2])", R"({"a":"b","c":null})", R"({"a":"b"})"},
      {R"({})", R"({"a":{"bb":{"ccc":null}}})", R"({"a":{"bb":{}}})"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Patched(json::parse(c.target), json::parse(c.patch)), json::parse(c.result))
        << c.target << " + " << c.patch;
  }
}

TEST(MergePatchTest, Rfc7386SectionThreeExample) {
  json target = json::parse(R"({"title":"Goodbye!","author":{"givenName":"John","familyName":"Doe"},
                                "tags":["example","sample"],"content":"This will be unchanged"})");
  json patch = json::parse(R"({"title":"Hello!","phoneNumber":"+01-123-456-7890",
                               "author":{"familyName":null},"tags":["example"]})");
  json want = json::parse(R"({"title":"Hello!","author":{"givenName":"John"},"tags":["example"],
                              "content":"This will be unchanged","phoneNumber":"+01-123-456-7890"})");
  EXPECT_EQ(Patched(target, patch), want);
}

TEST(MergePatchTest, PatchingLabelsLeavesTheRestOfTheObject) {
  json pod = {{"metadata", {{"name", "p"}, {"labels", {{"a", "1"}, {"b", "2"}}}}}, {"spec", {{"nodeName", "n1"}}}};
  ApplyMergePatch(pod, json{{"metadata", {{"labels", {{"a", nullptr}, {"c", "3"}}}}}});
  EXPECT_EQ(pod["metadata"]["labels"], (json{{"b", "2"}, {"c", "3"}}));
  EXPECT_EQ(pod["metadata"]["name"], "p");
  EXPECT_EQ(pod["spec"]["nodeName"], "n1");
}

TEST(MergePatchTest, CreateMergePatchSendsOnlyWhatChanged) {
  json from = {{"metadata", {{"name", "p"}, {"labels", {{"a", "1"}, {"b", "2"}}}}}, {"spec", {{"x", 1}}}};
  json to = from;
  to["metadata"]["labels"].erase("a");
  to["metadata"]["labels"]["c"] = "3";
  json patch = CreateMergePatch(from, to);
  EXPECT_EQ(patch, (json{{"metadata", {{"labels", {{"a", nullptr}, {"c", "3"}}}}}}));
  EXPECT_EQ(Patched(from, patch), to);
}

TEST(MergePatchTest, CreateMergePatchOfEqualObjectsIsEmpty) {
  json obj = {{"a", {{"b", {1, 2}}}}};
  EXPECT_EQ(CreateMergePatch(obj, obj), json::object());
}

TEST(MergePatchTest, CreateMergePatchReplacesArraysAndNonObjectsWhole) {
  EXPECT_EQ(CreateMergePatch(json{{"a", {1, 2}}}, json{{"a", {1, 3}}}), (json{{"a", {1, 3}}}));
  EXPECT_EQ(CreateMergePatch(json{{"a", "x"}}, json{{"a", {{"b", 1}}}}), (json{{"a", {{"b", 1}}}}));
  EXPECT_EQ(CreateMergePatch(json::array({1}), json{{"a", 1}}), (json{{"a", 1}}));
  EXPECT_EQ(CreateMergePatch(json{{"a", 1}}, json("s")), json("s"));
}

TEST(MergePatchTest, CreateThenApplyRoundTripsTheRfcExamples) {
  const char* docs[] = {R"({"a":"b"})", R"({"a":"b","b":"c"})", R"({"a":["b"]})", R"({"a":{"b":"c","d":{"e":1}}})",
                        R"({"a":{"b":"d"}})", R"(["a","b"])", R"({})", R"({"x":{"y":{"z":[1,{"q":2}]}}})"};
  for (const char* f : docs) {
    for (const char* t : docs) {
      json from = json::parse(f), to = json::parse(t);
      EXPECT_EQ(Patched(from, CreateMergePatch(from, to)), to) << f << " -> " << t;
    }
  }
}

}  // namespace
}  // namespace fakeapi

namespace fakeapi {
namespace {

TEST(MergePatchTest, MergePatchedBuildsWhatApplyMergePatchProducesOnEveryRfcExample) {
  const char* cases[][2] = {
      {R"({"a":"b"})", R"({"a":"c"})"},
      {R"({"a":"b"})", R"({"b":"c"})"},
      {R"({"a":"b"})", R"({"a":null})"},
      {R"({"a":"b","b":"c"})", R"({"a":null})"},
      {R"({"a":["b"]})", R"({"a":"c"})"},
      {R"({"a":"c"})", R"({"a":["b"]})"},
      {R"({"a":{"b":"c"}})", R"({"a":{"b":"d","c":null}})"},
      {R"({"a":[{"b":"c"}]})", R"({"a":[1]})"},
      {R"(["a","b"])", R"(["c","d"])"},
      {R"({"a":"b"})", R"(["c"])"},
      {R"({"a":"foo"})", R"(null)"},
      {R"({"a":"foo"})", R"("bar")"},
      {R"({"e":null})", R"({"a":1})"},
      {R"([1,2])", R"({"a":"b","c":null})"},
      {R"({})", R"({"a":{"bb":{"ccc":null}}})"},
      {R"({"status":{"phase":"Pending","conditions":[{"type":"Ready"}],"podIP":"10.0.0.2"}})",
       R"({"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}})"},
  };
  for (const auto& [target, patch] : cases) {
    json t = json::parse(target);
    json p = json::parse(patch);
    json expected = t;
    ApplyMergePatch(expected, p);
    EXPECT_EQ(MergePatched(t, p), expected) << target << " + " << patch;
    EXPECT_EQ(t, json::parse(target)) << "the target is left alone";
  }
}

}  // namespace
}  // namespace fakeapi
