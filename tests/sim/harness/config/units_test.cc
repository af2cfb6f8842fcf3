#include "sim/harness/config/units.h"

#include <gtest/gtest.h>

namespace harness {
namespace {

using kube::kMillisecond;
using kube::kSecond;

TEST(UnitsTest, DurationsInEveryUnitAndCombination) {
  EXPECT_EQ(*ParseDuration("250ms").value, 250 * kMillisecond);
  EXPECT_EQ(*ParseDuration("30s").value, 30 * kSecond);
  EXPECT_EQ(*ParseDuration("5m").value, 300 * kSecond);
  EXPECT_EQ(*ParseDuration("2h").value, 7200 * kSecond);
  EXPECT_EQ(*ParseDuration("7d").value, 7 * 86400 * kSecond);
  EXPECT_EQ(*ParseDuration("1h30m").value, 5400 * kSecond);
  EXPECT_EQ(*ParseDuration("2d12h").value, 60 * 3600 * kSecond);
  EXPECT_EQ(*ParseDuration("1m30s500ms").value, 90 * kSecond + 500 * kMillisecond);
  EXPECT_EQ(*ParseDuration("1.5h").value, 5400 * kSecond);
  EXPECT_EQ(*ParseDuration("0s").value, 0);
}

TEST(UnitsTest, PlainNumbersAreSeconds) {
  EXPECT_EQ(*ParseDuration("30").value, 30 * kSecond);
  EXPECT_EQ(*ParseDuration("0.25").value, 250 * kMillisecond);
  EXPECT_EQ(*ParseDurationValue(kube::Json(45)).value, 45 * kSecond);
  EXPECT_EQ(*ParseDurationValue(kube::Json(1.5)).value, 1500 * kMillisecond);
}

TEST(UnitsTest, BadDurationsSayWhatWasWritten) {
  EXPECT_EQ(ParseDuration("5 minutes").error, "invalid duration \"5 minutes\"");
  EXPECT_EQ(ParseDuration("").error, "invalid duration \"\"");
  EXPECT_EQ(ParseDuration("1h30").error, "invalid duration \"1h30\"");
  EXPECT_EQ(ParseDuration("h").error, "invalid duration \"h\"");
  EXPECT_EQ(ParseDuration("10us").error, "invalid duration \"10us\"");
  EXPECT_EQ(ParseDuration("-5s").error, "invalid duration \"-5s\": must not be negative");
  EXPECT_EQ(ParseDuration("99999999999999d").error, "invalid duration \"99999999999999d\": too long");
  EXPECT_EQ(ParseDurationValue(kube::Json(true)).error,
            "invalid duration: expected a string such as \"30s\" or \"1h30m\", or a number of seconds, got a boolean");
  EXPECT_EQ(ParseDurationValue(kube::Json(-3)).error, "invalid duration -3: must not be negative");
}

TEST(UnitsTest, SizesAreKubernetesQuantitiesInBytes) {
  EXPECT_EQ(*ParseSize("5Gi").value, 5LL << 30);
  EXPECT_EQ(*ParseSize("512Mi").value, 512LL << 20);
  EXPECT_EQ(*ParseSize("5G").value, 5'000'000'000LL);
  EXPECT_EQ(*ParseSize("1500M").value, 1'500'000'000LL);
  EXPECT_EQ(*ParseSize("1024").value, 1024);
  EXPECT_EQ(*ParseSizeValue(kube::Json(4096)).value, 4096);
  EXPECT_EQ(ParseSize("5 gigs").error, "invalid size \"5 gigs\" (expected a quantity such as 512Mi, 5Gi or 5G)");
  EXPECT_EQ(ParseSize("-1Gi").error, "invalid size \"-1Gi\": must not be negative");
  EXPECT_EQ(ParseSizeValue(kube::Json::array()).error,
            "invalid size: expected a quantity such as \"5Gi\" or a number of bytes, got a sequence");
}

TEST(UnitsTest, BandwidthsInBytesAndBits) {
  EXPECT_DOUBLE_EQ(*ParseBandwidth("200MBps").value, 200e6);
  EXPECT_DOUBLE_EQ(*ParseBandwidth("2GBps").value, 2e9);
  EXPECT_DOUBLE_EQ(*ParseBandwidth("500KBps").value, 500e3);
  EXPECT_DOUBLE_EQ(*ParseBandwidth("100Gbps").value, 12.5e9);
  EXPECT_DOUBLE_EQ(*ParseBandwidth("800Mbps").value, 100e6);
  EXPECT_DOUBLE_EQ(*ParseBandwidth("500MiBps").value, 500.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(*ParseBandwidth("1GiBps").value, 1024.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(*ParseBandwidth("1.5GBps").value, 1.5e9);
  EXPECT_DOUBLE_EQ(*ParseBandwidth("12500000000").value, 12.5e9);
  EXPECT_DOUBLE_EQ(*ParseBandwidthValue(kube::Json(1000)).value, 1000);
}

TEST(UnitsTest, BadBandwidthsSayWhatWasWritten) {
  const std::string hint = " (expected a number and a unit such as 200MBps, 2GiBps or 100Gbps)";
  EXPECT_EQ(ParseBandwidth("100 Gbit").error, "invalid bandwidth \"100 Gbit\"" + hint);
  EXPECT_EQ(ParseBandwidth("fast").error, "invalid bandwidth \"fast\"" + hint);
  EXPECT_EQ(ParseBandwidth("100gbps").error, "invalid bandwidth \"100gbps\"" + hint);  // units are case-sensitive
  EXPECT_EQ(ParseBandwidth("0MBps").error, "invalid bandwidth \"0MBps\": must be greater than zero");
  EXPECT_EQ(ParseBandwidth("-1GBps").error, "invalid bandwidth \"-1GBps\": must be greater than zero");
  EXPECT_EQ(ParseBandwidthValue(kube::Json::object()).error,
            "invalid bandwidth: expected a string such as \"200MBps\" or \"100Gbps\", got a mapping");
}

// Found by tests/fuzz/fuzz_quantities: "1E-810" is above zero as the long double the parser works
// in, but 0 as the double it returned, so a zero bandwidth passed the "greater than zero" check and
// a flow at that rate would never finish.
TEST(UnitsTest, BandwidthsTooSmallForADoubleAreRefused) {
  EXPECT_EQ(ParseBandwidth("1E-810").error, "invalid bandwidth \"1E-810\": too small (at least 1e-6 bytes per second)");
  EXPECT_EQ(ParseBandwidth("1e-400GBps").error,
            "invalid bandwidth \"1e-400GBps\": too small (at least 1e-6 bytes per second)");
  EXPECT_FALSE(ParseBandwidthValue(kube::Json(1e-300)).ok());
  EXPECT_DOUBLE_EQ(*ParseBandwidth("1e-6").value, 1e-6);
  EXPECT_DOUBLE_EQ(*ParseBandwidthValue(kube::Json(0.5)).value, 0.5);
}

TEST(UnitsTest, LongGarbageIsCutShortInMessages) {
  const std::string garbage(500, 'x');
  EXPECT_EQ(ParseDuration(garbage).error, "invalid duration \"" + std::string(60, 'x') + "...\"");
  EXPECT_FALSE(ParseSize(std::string("\xff\xfe", 2)).ok());  // invalid UTF-8 is reported, not thrown
}

TEST(UnitsTest, PredictionsWithRangesPickOneUnitByTheValue) {
  EXPECT_EQ(FormatSpan(28.04, 28.04, 28.04), "28.0s");
  EXPECT_EQ(FormatSpan(28.0, 22.1, 35.3), "28.0s (22.1 - 35.3s)");
  EXPECT_EQ(FormatSpan(5754, 4260, 7200), "95.9 min (71.0 - 120.0 min)");
  EXPECT_EQ(FormatSpan(5760, 4320, 7560), "96.0 min (72.0 - 126.0 min)");
  EXPECT_EQ(FormatSpan(7200 * 0.8, 3600 * 1.2, 3600 * 2.1), "96.0 min (72.0 - 126.0 min)");
  EXPECT_EQ(FormatSpan(3600 * 2.5, 3600 * 2, 3600 * 3), "2.50 h (2.00 - 3.00 h)");
  EXPECT_EQ(FormatBytesRange(599.7e9, 571.2e9, 640.8e9), "599.7 GB (571.2 - 640.8 GB)");
  EXPECT_EQ(FormatBytesRange(2e9, 2e9, 2e9), "2.0 GB");
}

TEST(UnitsTest, FormatsRoundTrip) {
  EXPECT_EQ(FormatDuration(0), "0s");
  EXPECT_EQ(FormatDuration(250 * kMillisecond), "250ms");
  EXPECT_EQ(FormatDuration(5400 * kSecond), "1h30m");
  EXPECT_EQ(FormatDuration(7 * 86400 * kSecond), "7d");
  EXPECT_EQ(FormatDuration(90 * kSecond + 500 * kMillisecond), "1m30.5s");
  for (const char* text : {"1h30m", "7d", "250ms", "2d12h", "45s"}) {
    EXPECT_EQ(FormatDuration(*ParseDuration(text).value), text);
  }
  EXPECT_EQ(FormatBandwidth(12.5e9), "12.5GB/s");
  EXPECT_EQ(FormatBandwidth(200e6), "200MB/s");
}

}  // namespace
}  // namespace harness
