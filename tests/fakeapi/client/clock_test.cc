// Tests of the clocks and of RFC 3339 formatting and parsing.
#include "clock/clock.h"

#include <gtest/gtest.h>

namespace kube {
namespace {

constexpr Micros kJan2026 = ManualClock::kDefaultStart;

TEST(ClockTest, ManualClockStartsAt2026AndMovesOnlyWhenTold) {
  ManualClock clock;
  EXPECT_EQ(clock.Now(), kJan2026);
  clock.Advance(5 * kSecond);
  EXPECT_EQ(clock.Now(), kJan2026 + 5 * kSecond);
  clock.Set(42);
  EXPECT_EQ(clock.Now(), 42);
}

TEST(ClockTest, SystemClockIsNearTheRealTimeInMicroseconds) {
  SystemClock clock;
  Micros now = clock.Now();
  EXPECT_GT(now, 1'700'000'000LL * kSecond);  // after November 2023
  EXPECT_LT(now, 4'000'000'000LL * kSecond);  // and not in seconds or nanoseconds
  EXPECT_GE(clock.Now(), now);
}

TEST(ClockTest, FormatTimeIsRfc3339Seconds) {
  EXPECT_EQ(FormatTime(kJan2026), "2026-01-01T00:00:00Z");
  EXPECT_EQ(FormatTime(0), "1970-01-01T00:00:00Z");
  // Sub-second parts are dropped, as metav1.Time does.
  EXPECT_EQ(FormatTime(kJan2026 + 3'723 * kSecond + 999'999), "2026-01-01T01:02:03Z");
}

TEST(ClockTest, FormatMicroTimeKeepsSixFractionalDigits) {
  EXPECT_EQ(FormatMicroTime(kJan2026), "2026-01-01T00:00:00.000000Z");
  EXPECT_EQ(FormatMicroTime(kJan2026 + 1'500'042), "2026-01-01T00:00:01.500042Z");
}

TEST(ClockTest, FormatHandlesLeapDaysAndMonthEnds) {
  // 2024-02-29T12:00:00Z = 1709208000.
  EXPECT_EQ(FormatTime(1'709'208'000LL * kSecond), "2024-02-29T12:00:00Z");
  // 2000-03-01 (2000 is a leap year: divisible by 400) = 951868800.
  EXPECT_EQ(FormatTime(951'868'800LL * kSecond), "2000-03-01T00:00:00Z");
  EXPECT_EQ(FormatTime(951'868'800LL * kSecond - kSecond), "2000-02-29T23:59:59Z");
  EXPECT_EQ(FormatTime(1'767'225'600LL * kSecond - kSecond), "2025-12-31T23:59:59Z");
}

TEST(ClockTest, TimesBeforeTheEpochFloorToThePreviousSecond) {
  EXPECT_EQ(FormatTime(-1), "1969-12-31T23:59:59Z");
  EXPECT_EQ(FormatMicroTime(-1), "1969-12-31T23:59:59.999999Z");
}

// Four-digit years are written digit by digit; a year beyond them, as snprintf writes it.
TEST(ClockTest, AYearBeyondFourDigitsIsWrittenInFull) {
  EXPECT_EQ(FormatTime(253'402'300'800LL * kSecond - kSecond), "9999-12-31T23:59:59Z");
  EXPECT_EQ(FormatTime(253'402'300'800LL * kSecond), "10000-01-01T00:00:00Z");
  EXPECT_EQ(FormatMicroTime(253'402'300'800LL * kSecond + 7), "10000-01-01T00:00:00.000007Z");
}

TEST(ClockTest, ParseTimeAcceptsBothForms) {
  EXPECT_EQ(ParseTime("2026-01-01T00:00:00Z"), kJan2026);
  EXPECT_EQ(ParseTime("2026-01-01T00:00:00.000000Z"), kJan2026);
  EXPECT_EQ(ParseTime("2026-01-01T00:00:01.5Z"), kJan2026 + 1'500'000);
  // Nanosecond digits beyond the microsecond are truncated.
  EXPECT_EQ(ParseTime("2026-01-01T00:00:00.123456789Z"), kJan2026 + 123'456);
}

TEST(ClockTest, ParseTimeAppliesNumericOffsets) {
  EXPECT_EQ(ParseTime("2026-01-01T02:00:00+02:00"), kJan2026);
  EXPECT_EQ(ParseTime("2025-12-31T19:30:00-04:30"), kJan2026);
  EXPECT_EQ(ParseTime("2026-01-01T00:00:00+00:00"), kJan2026);
  EXPECT_EQ(ParseTime("2026-01-01T05:30:00.25+05:30"), kJan2026 + 250'000);
}

TEST(ClockTest, ParseTimeRejectsWhatIsNotATimestamp) {
  for (const char* bad : {"", "now", "2026-01-01", "2026-01-01T00:00:00", "2026-13-01T00:00:00Z",
                          "2026-02-29T00:00:00Z", "2026-01-32T00:00:00Z", "2026-01-01T24:00:00Z",
                          "2026-01-01T00:60:00Z", "2026-01-01T00:00:00.Z", "2026-01-01T00:00:00Zjunk",
                          "2026-01-01T00:00:00+0200", "2026-01-01 00:00:00Z", "26-01-01T00:00:00Z",
                          "2026-01-01T00:00:00+2:00"}) {
    EXPECT_FALSE(ParseTime(bad).has_value()) << bad;
  }
  EXPECT_TRUE(ParseTime("2024-02-29T00:00:00Z").has_value());
}

TEST(ClockTest, FormatAndParseRoundTripAcrossCenturies) {
  // Every ~37 days from 1900 to 2400, at an odd time of day, through both forms.
  const Micros start = -2'208'988'800LL * kSecond;  // 1900-01-01
  const Micros end = 13'569'465'600LL * kSecond;    // 2400-01-01
  for (Micros t = start; t < end; t += 3'210'987LL * kSecond + 654'321) {
    ASSERT_EQ(ParseTime(FormatMicroTime(t)), t) << FormatMicroTime(t);
    const Micros whole = t - ((t % kSecond) + kSecond) % kSecond;
    ASSERT_EQ(ParseTime(FormatTime(t)), whole) << FormatTime(t);
  }
}

}  // namespace
}  // namespace kube
