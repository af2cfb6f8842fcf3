// The system clock and RFC 3339 formatting and parsing of microsecond timestamps.
// The civil-date arithmetic is done here on integers (proleptic Gregorian calendar, UTC) so that
// results never depend on the host's locale, TZ variable or C library.
#include "clock/clock.h"

#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>

namespace kube {

namespace {

constexpr std::int64_t kSecondsPerDay = 86'400;

// Floor division: timestamps before the epoch must land on the previous day, not round to zero.
std::int64_t FloorDiv(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

// Days since 1970-01-01 of a civil date. Years are counted from March so that the leap day falls
// at the end of a year; an "era" is the 400-year cycle after which the calendar repeats.
std::int64_t DaysFromCivil(std::int64_t y, int m, int d) {
  y -= m <= 2 ? 1 : 0;
  const std::int64_t era = FloorDiv(y, 400);
  const std::int64_t year_of_era = y - era * 400;                          // [0, 399]
  const int month_from_march = m > 2 ? m - 3 : m + 9;                      // [0, 11]
  const std::int64_t day_of_year = (153 * month_from_march + 2) / 5 + d - 1;  // [0, 365]
  const std::int64_t day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146'097 + day_of_era - 719'468;  // 719468: days from 0000-03-01 to 1970-01-01
}

struct CivilDate {
  std::int64_t year;
  int month;
  int day;
};

// The inverse of DaysFromCivil.
CivilDate CivilFromDays(std::int64_t days) {
  days += 719'468;
  const std::int64_t era = FloorDiv(days, 146'097);
  const std::int64_t day_of_era = days - era * 146'097;  // [0, 146096]
  const std::int64_t year_of_era =
      (day_of_era - day_of_era / 1460 + day_of_era / 36'524 - day_of_era / 146'096) / 365;  // [0, 399]
  const std::int64_t day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
  const std::int64_t month_from_march = (5 * day_of_year + 2) / 153;  // [0, 11]
  const int day = static_cast<int>(day_of_year - (153 * month_from_march + 2) / 5 + 1);
  const int month = static_cast<int>(month_from_march < 10 ? month_from_march + 3 : month_from_march - 9);
  return {year_of_era + era * 400 + (month <= 2 ? 1 : 0), month, day};
}

bool IsLeap(std::int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int DaysInMonth(std::int64_t y, int m) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeap(y) ? 29 : kDays[m - 1];
}

// "2026-01-01T00:00:00" plus, when micro is set, ".000000"; always UTC ("Z").
std::string Format(Micros t, bool micro) {
  const std::int64_t secs = FloorDiv(t, kSecond);
  const std::int64_t frac = t - secs * kSecond;
  const std::int64_t days = FloorDiv(secs, kSecondsPerDay);
  const std::int64_t sod = secs - days * kSecondsPerDay;
  const CivilDate date = CivilFromDays(days);
  if (date.year >= 0 && date.year <= 9999) {
    // Written digit by digit: snprintf's format parsing was most of the cost of every timestamp
    // the API server and the kubelets stamp.
    char out[] = "0000-00-00T00:00:00.000000Z";
    const auto put = [&out](int at, std::int64_t value, int width) {
      for (int i = at + width - 1; i >= at; --i, value /= 10) out[i] = static_cast<char>('0' + value % 10);
    };
    put(0, date.year, 4);
    put(5, date.month, 2);
    put(8, date.day, 2);
    put(11, sod / 3600, 2);
    put(14, sod / 60 % 60, 2);
    put(17, sod % 60, 2);
    if (!micro) return std::string(out, 19) + "Z";
    put(20, frac, 6);
    return std::string(out, sizeof out - 1);
  }
  char buf[64];
  if (micro) {
    std::snprintf(buf, sizeof buf, "%04lld-%02d-%02dT%02lld:%02lld:%02lld.%06lldZ",
                  static_cast<long long>(date.year), date.month, date.day, static_cast<long long>(sod / 3600),
                  static_cast<long long>(sod / 60 % 60), static_cast<long long>(sod % 60),
                  static_cast<long long>(frac));
  } else {
    std::snprintf(buf, sizeof buf, "%04lld-%02d-%02dT%02lld:%02lld:%02lldZ", static_cast<long long>(date.year),
                  date.month, date.day, static_cast<long long>(sod / 3600), static_cast<long long>(sod / 60 % 60),
                  static_cast<long long>(sod % 60));
  }
  return buf;
}

// Reads exactly `n` decimal digits at `pos`, advancing it.
bool ReadDigits(std::string_view s, size_t& pos, int n, int& out) {
  if (pos + n > s.size()) return false;
  int v = 0;
  for (int i = 0; i < n; ++i) {
    char c = s[pos + i];
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  pos += n;
  out = v;
  return true;
}

bool Expect(std::string_view s, size_t& pos, char c) {
  if (pos >= s.size() || s[pos] != c) return false;
  ++pos;
  return true;
}

}  // namespace

Micros SystemClock::Now() const {
  // Since C++20 system_clock's epoch is the Unix epoch.
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string FormatTime(Micros t) { return Format(t, false); }

std::string FormatMicroTime(Micros t) { return Format(t, true); }

std::optional<Micros> ParseTime(std::string_view s) {
  size_t pos = 0;
  // Zero first: ReadDigits sets its output only on success, and every use follows a success, but
  // g++ -O3 cannot see that through the short-circuits (-Wmaybe-uninitialized).
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!ReadDigits(s, pos, 4, year) || !Expect(s, pos, '-') || !ReadDigits(s, pos, 2, month) ||
      !Expect(s, pos, '-') || !ReadDigits(s, pos, 2, day)) {
    return std::nullopt;
  }
  if (pos >= s.size() || (s[pos] != 'T' && s[pos] != 't')) return std::nullopt;
  ++pos;
  if (!ReadDigits(s, pos, 2, hour) || !Expect(s, pos, ':') || !ReadDigits(s, pos, 2, minute) ||
      !Expect(s, pos, ':') || !ReadDigits(s, pos, 2, second)) {
    return std::nullopt;
  }
  if (month < 1 || month > 12 || day < 1 || day > DaysInMonth(year, month) || hour > 23 || minute > 59 ||
      second > 59) {
    return std::nullopt;
  }
  // Fractional seconds of any length; digits beyond microseconds are truncated.
  Micros frac = 0;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    size_t start = pos;
    Micros scale = 100'000;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
      frac += (s[pos] - '0') * scale;
      scale /= 10;
      ++pos;
    }
    if (pos == start) return std::nullopt;
  }
  std::int64_t offset_seconds = 0;
  if (pos < s.size() && (s[pos] == 'Z' || s[pos] == 'z')) {
    ++pos;
  } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
    const int sign = s[pos] == '-' ? -1 : 1;
    ++pos;
    int oh = 0, om = 0;
    if (!ReadDigits(s, pos, 2, oh) || !Expect(s, pos, ':') || !ReadDigits(s, pos, 2, om) || oh > 23 || om > 59) {
      return std::nullopt;
    }
    offset_seconds = sign * (oh * 3600 + om * 60);
  } else {
    return std::nullopt;
  }
  if (pos != s.size()) return std::nullopt;
  // A local time at offset +02:00 is two hours ahead of UTC, so subtract the offset.
  const std::int64_t secs = DaysFromCivil(year, month, day) * kSecondsPerDay + hour * 3600 + minute * 60 + second -
                            offset_seconds;
  return secs * kSecond + frac;
}

namespace {

// Reads an unsigned decimal number ("12", "1.5", ".5", no exponent) at the front of `text`;
// advances it.
std::optional<double> TakeNumber(std::string_view& text) {
  if (text.empty() || !((text.front() >= '0' && text.front() <= '9') || text.front() == '.')) return std::nullopt;
  double value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, std::chars_format::fixed);
  if (error != std::errc()) return std::nullopt;
  text.remove_prefix(static_cast<std::size_t>(end - text.data()));
  return value;
}

// The unit at the front of `text` in microseconds (advancing it); 0 when there is none.
long double TakeUnit(std::string_view& text) {
  static constexpr std::pair<std::string_view, long double> kUnits[] = {
      {"ms", kMillisecond}, {"d", 86400.0L * kSecond}, {"h", 3600.0L * kSecond}, {"m", 60.0L * kSecond}, {"s", kSecond}};
  for (const auto& [name, micros] : kUnits)
    if (text.starts_with(name)) {
      text.remove_prefix(name.size());
      return micros;
    }
  return 0;
}

}  // namespace

std::optional<Micros> ParseDuration(std::string_view text, std::string* why) {
  constexpr long double kMax = static_cast<long double>(std::numeric_limits<Micros>::max() / 2);
  auto fail = [why](const char* reason) -> std::optional<Micros> {
    if (why) *why = reason;
    return std::nullopt;
  };
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  if (text.empty()) return fail("");
  if (text.front() == '-') return fail("must not be negative");
  if (text.front() == '+') text.remove_prefix(1);
  long double total = 0;
  for (bool first = true; !text.empty(); first = false) {
    std::optional<double> number = TakeNumber(text);
    if (!number) return fail("");
    const long double unit = text.empty() && first ? kSecond : TakeUnit(text);  // "1h30": a unit is missing
    if (unit == 0) return fail("");
    total += *number * unit;
    if (!(total <= kMax)) return fail("too long");
  }
  if (why) why->clear();
  return static_cast<Micros>(std::llround(static_cast<double>(total)));
}

}  // namespace kube
