// dglrun's command line as the DGL programs read it: every flag, both spellings, shell strings,
// and bad values that must never crash.
#include "sim/dgl/flags.h"

#include <gtest/gtest.h>

namespace sim::dglmodels {
namespace {

TEST(DglFlagsTest, TheGraphSageDistExampleParses) {
  DglFlags f = ParseDglFlags({"dglrun"}, {"--graph-name", "graphsage", "--partition-entry-point",
                                          "code/load_and_partition_graph.py", "--num-partitions", "2", "--balance-train",
                                          "--balance-edges", "--dataset-url",
                                          "http://snap.stanford.edu/ogb/data/nodeproppred/products.zip",
                                          "--train-entry-point", "code/train_dist.py", "--num-epochs", "1",
                                          "--batch-size", "1000", "--num-trainers", "1", "--num-samplers", "4",
                                          "--num-servers", "1"});
  EXPECT_TRUE(f.errors.empty());
  EXPECT_EQ(f.program, "dglrun");
  EXPECT_EQ(f.graph_name, "graphsage");
  EXPECT_EQ(f.partition_entry_point, "code/load_and_partition_graph.py");
  EXPECT_EQ(f.num_partitions, 2);
  EXPECT_TRUE(f.num_partitions_given);
  EXPECT_TRUE(f.balance_train);
  EXPECT_TRUE(f.balance_edges);
  EXPECT_EQ(f.dataset_url, "http://snap.stanford.edu/ogb/data/nodeproppred/products.zip");
  EXPECT_EQ(f.train_entry_point, "code/train_dist.py");
  EXPECT_EQ(f.num_epochs, 1);
  EXPECT_EQ(f.batch_size, 1000);
  EXPECT_EQ(f.num_trainers, 1);
  EXPECT_EQ(f.num_samplers, 4);
  EXPECT_EQ(f.num_servers, 1);
}

TEST(DglFlagsTest, EqualsFormShellStringsPathsAndTheLastOccurrenceWin) {
  DglFlags f = ParseDglFlags({"sh", "-c"}, {"/bin/dglkerun --num-partitions=4 --model ComplEx --num-servers 2 --num-servers=3"});
  EXPECT_TRUE(f.errors.empty());
  EXPECT_EQ(f.program, "dglkerun");
  EXPECT_EQ(f.num_partitions, 4);
  EXPECT_EQ(f.model, "ComplEx");
  EXPECT_EQ(f.num_servers, 3);
  DglFlags g = ParseDglFlags({"dglrun"}, {"--part-method", "random", "--worksapce", "/ws", "--frobnicate", "7"});
  EXPECT_EQ(g.part_method, "random");
  EXPECT_EQ(g.workspace, "/ws");
  ASSERT_EQ(g.unknown.size(), 1u);
  EXPECT_EQ(g.unknown[0], "--frobnicate");
  EXPECT_TRUE(g.errors.empty());
}

TEST(DglFlagsTest, DefaultsWhenAbsent) {
  DglFlags f = ParseDglFlags({"dglrun"}, {});
  EXPECT_EQ(f.num_partitions, 1);
  EXPECT_FALSE(f.num_partitions_given);
  EXPECT_EQ(f.num_epochs, 0);
  EXPECT_EQ(f.num_trainers, 1);
  EXPECT_EQ(f.num_samplers, 0);
  EXPECT_EQ(f.part_method, "metis");
  EXPECT_FALSE(f.balance_train);
}

TEST(DglFlagsTest, BadValuesAreReportedAndKeepTheDefaults) {
  DglFlags f = ParseDglFlags({"dglrun"}, {"--num-partitions", "two", "--num-epochs", "-1", "--batch-size", "0",
                                          "--num-trainers", "99999999999999999999", "--num-samplers", "1.5",
                                          "--part-method", "spectral", "--num-servers"});
  EXPECT_EQ(f.num_partitions, 1);
  EXPECT_FALSE(f.num_partitions_given);
  EXPECT_EQ(f.num_epochs, 0);
  EXPECT_EQ(f.batch_size, 1000);
  EXPECT_EQ(f.num_trainers, 1);
  EXPECT_EQ(f.num_samplers, 0);
  EXPECT_EQ(f.part_method, "metis");
  EXPECT_EQ(f.num_servers, 1);
  EXPECT_EQ(f.errors.size(), 7u);
  // Garbage never crashes.
  for (const char* junk : {"", "--", "---", "--=", "--num-epochs=", "=", "--graph-name"})
    EXPECT_NO_THROW(ParseDglFlags({"dglrun"}, {junk, junk}));
  EXPECT_NO_THROW(ParseDglFlags({}, {}));
}

}  // namespace
}  // namespace sim::dglmodels
