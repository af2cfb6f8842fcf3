#include "sim/kernel/trace.h"

#include <string>

#include <gtest/gtest.h>

namespace sim {
namespace {

void RecordSample(Trace& t) {
  t.Record(0, "api", "create pods default/job-worker-0");
  t.Record(10, "sched", {{"pod", "default/job-worker-0"}, {"node", "gpu-1"}});
  t.Record(250, "kubelet", "pull image dgl:latest");
}

TEST(TraceTest, EmptyTraceHasFnvOffsetBasis) {
  Trace t;
  EXPECT_EQ(t.hash(), 0xcbf29ce484222325ULL);
  EXPECT_EQ(t.HashHex(), "cbf29ce484222325");
  EXPECT_EQ(t.count(), 0u);
}

TEST(TraceTest, EqualInputsGiveEqualHash) {
  Trace a, b;
  RecordSample(a);
  RecordSample(b);
  EXPECT_EQ(a.hash(), b.hash());
  EXPECT_EQ(a.HashHex(), b.HashHex());
  EXPECT_EQ(a.count(), 3u);
}

TEST(TraceTest, DifferentOrderGivesDifferentHash) {
  Trace a, b;
  a.Record(5, "x", "first");
  a.Record(5, "x", "second");
  b.Record(5, "x", "second");
  b.Record(5, "x", "first");
  EXPECT_NE(a.hash(), b.hash());
}

TEST(TraceTest, EveryPartOfARecordCounts) {
  Trace base, time, category, text;
  base.Record(1, "api", "update");
  time.Record(2, "api", "update");
  category.Record(1, "sched", "update");
  text.Record(1, "api", "delete");
  EXPECT_NE(base.hash(), time.hash());
  EXPECT_NE(base.hash(), category.hash());
  EXPECT_NE(base.hash(), text.hash());
}

TEST(TraceTest, FieldBoundariesCannotCollide) {
  Trace split_category, split_text;
  split_category.Record(1, "ab", "c");
  split_text.Record(1, "a", "bc");
  EXPECT_NE(split_category.hash(), split_text.hash());

  Trace f1, f2, text_form;
  f1.Record(1, "e", {{"a", "b c=d"}});
  f2.Record(1, "e", {{"a", "b"}, {"c", "d"}});
  text_form.Record(1, "e", "a=b c=d");
  EXPECT_NE(f1.hash(), f2.hash());
  EXPECT_NE(f2.hash(), text_form.hash());
  // All render the same text; only the hash tells them apart.
  EXPECT_EQ(f1.records().back().text, "a=b c=d");
  EXPECT_EQ(f2.records().back().text, "a=b c=d");
}

// Regression value for cross-platform stability: computed once from this encoding.
TEST(TraceTest, HashOfKnownRecordsIsStable) {
  Trace t;
  RecordSample(t);
  EXPECT_EQ(t.HashHex(), "461cbc90db22cfc5");
}

TEST(TraceTest, HashDoesNotDependOnKeepingRecords) {
  Trace kept;
  Trace::Options off;
  off.keep_records = false;
  Trace not_kept(off);
  RecordSample(kept);
  RecordSample(not_kept);
  EXPECT_EQ(kept.hash(), not_kept.hash());
  EXPECT_EQ(kept.records().size(), 3u);
  EXPECT_TRUE(not_kept.records().empty());
  EXPECT_EQ(not_kept.dropped(), 3u);
}

TEST(TraceTest, KeepsRecordsInOrderWithFields) {
  Trace t;
  RecordSample(t);
  ASSERT_EQ(t.records().size(), 3u);
  EXPECT_EQ(t.records()[0].time, 0);
  EXPECT_EQ(t.records()[0].category, "api");
  EXPECT_EQ(t.records()[1].text, "pod=default/job-worker-0 node=gpu-1");
  EXPECT_EQ(t.records()[2].time, 250);
}

TEST(TraceTest, BoundedKeepingDropsOldestFirst) {
  Trace::Options bounded;
  bounded.max_records = 2;
  Trace t(bounded);
  Trace unbounded;
  for (int i = 0; i < 5; ++i) {
    t.Record(i, "tick", std::to_string(i));
    unbounded.Record(i, "tick", std::to_string(i));
  }
  ASSERT_EQ(t.records().size(), 2u);
  EXPECT_EQ(t.records()[0].text, "3");
  EXPECT_EQ(t.records()[1].text, "4");
  EXPECT_EQ(t.count(), 5u);
  EXPECT_EQ(t.dropped(), 3u);
  EXPECT_EQ(t.hash(), unbounded.hash());
}

TEST(TraceTest, Hex64PadsToSixteenDigits) {
  EXPECT_EQ(Hex64(0), "0000000000000000");
  EXPECT_EQ(Hex64(0xabcULL), "0000000000000abc");
  EXPECT_EQ(Hex64(~0ULL), "ffffffffffffffff");
}

}  // namespace
}  // namespace sim
