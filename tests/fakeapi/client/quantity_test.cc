#include "fakeapi/client/quantity.h"

#include <gtest/gtest.h>

namespace kube {
namespace {

TEST(QuantityTest, CpuInMillicores) {
  EXPECT_EQ(ParseQuantityMilli("100m"), 100);
  EXPECT_EQ(ParseQuantityMilli("2"), 2000);
  EXPECT_EQ(ParseQuantityMilli("0.5"), 500);
  EXPECT_EQ(ParseQuantity("100m"), 1);  // whole units round up
}

TEST(QuantityTest, BinaryAndDecimalSuffixes) {
  EXPECT_EQ(ParseQuantity("768Gi"), 768LL * 1024 * 1024 * 1024);
  EXPECT_EQ(ParseQuantity("512Mi"), 512LL * 1024 * 1024);
  EXPECT_EQ(ParseQuantity("2Ti"), 2LL << 40);
  EXPECT_EQ(ParseQuantity("1G"), 1000000000LL);
  EXPECT_EQ(ParseQuantity("1.5Gi"), 1610612736LL);
  EXPECT_EQ(ParseQuantity("8"), 8);
  EXPECT_EQ(ParseQuantity("2e3"), 2000);
  EXPECT_EQ(ParseQuantity("1P"), 1000000000000000LL);
  EXPECT_FALSE(ParseQuantity("1E").has_value());  // beyond what thousandths of a unit hold in 64 bits
}

TEST(QuantityTest, GarbageIsRejected) {
  for (const char* bad : {"", "Gi", "1.2.3", "12Q", "abc", "1e", "--1", ".", "1e999"})
    EXPECT_FALSE(ParseQuantityMilli(bad).has_value()) << bad;
}

TEST(QuantityTest, FormatsBytesInBinaryUnits) {
  EXPECT_EQ(FormatBytes(768LL << 30), "768Gi");
  EXPECT_EQ(FormatBytes(1610612736LL), "1.5Gi");
  EXPECT_EQ(FormatBytes(10), "10");
}

}  // namespace
}  // namespace kube
