#include "sim/harness/config/units.h"

#include "fakeapi/client/quantity.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <utility>

namespace harness {

using json = kube::Json;

std::string Quoted(std::string_view text) {
  constexpr std::size_t kMax = 60;
  std::string cut(text.substr(0, kMax));
  if (text.size() > kMax) cut += "...";
  return json(cut).dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string TypeName(const json& value) {
  switch (value.type()) {
    case json::value_t::null: return "null";
    case json::value_t::object: return "a mapping";
    case json::value_t::array: return "a sequence";
    case json::value_t::string: return "a string";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float: return "a number";
    default: return "an unsupported value";
  }
}

namespace {

// Reads an unsigned decimal number ("12", "1.5", ".5") at the front of `text`; advances it.
std::optional<long double> TakeNumber(std::string_view& text) {
  std::size_t i = 0;
  long double value = 0;
  bool digits = false;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
    value = value * 10 + (text[i] - '0');
    digits = true;
    ++i;
  }
  if (i < text.size() && text[i] == '.') {
    ++i;
    long double scale = 0.1L;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      value += (text[i] - '0') * scale;
      scale /= 10;
      digits = true;
      ++i;
    }
  }
  if (!digits) return std::nullopt;
  text.remove_prefix(i);
  return value;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// The smallest bandwidth a scenario may give: one byte in about 11.6 days.
constexpr double kMinBandwidth = 1e-6;

constexpr long double kMaxMicros = static_cast<long double>(std::numeric_limits<kube::Micros>::max() / 2);

Parsed<kube::Micros> MicrosFrom(long double micros, std::string_view text) {
  if (!(micros <= kMaxMicros)) return Parsed<kube::Micros>::Error("invalid duration " + Quoted(text) + ": too long");
  return Parsed<kube::Micros>::Ok(static_cast<kube::Micros>(std::llround(static_cast<double>(micros))));
}

}  // namespace

Parsed<kube::Micros> ParseDuration(std::string_view text) {
  std::string why;
  if (std::optional<kube::Micros> d = kube::ParseDuration(text, &why)) return Parsed<kube::Micros>::Ok(*d);
  return Parsed<kube::Micros>::Error("invalid duration " + Quoted(text) + (why.empty() ? "" : ": " + why));
}

Parsed<kube::Micros> ParseDurationValue(const json& value) {
  if (value.is_string()) return ParseDuration(value.get_ref<const std::string&>());
  if (value.is_number()) {
    const double seconds = value.get<double>();
    if (!std::isfinite(seconds)) return Parsed<kube::Micros>::Error("invalid duration " + value.dump());
    if (seconds < 0) return Parsed<kube::Micros>::Error("invalid duration " + value.dump() + ": must not be negative");
    return MicrosFrom(static_cast<long double>(seconds) * kube::kSecond, value.dump());
  }
  return Parsed<kube::Micros>::Error("invalid duration: expected a string such as \"30s\" or \"1h30m\", or a number of seconds, got " +
                                        TypeName(value));
}

Parsed<std::int64_t> ParseSize(std::string_view text) {
  const std::string_view trimmed = Trim(text);
  if (!trimmed.empty() && trimmed.front() == '-') {
    return Parsed<std::int64_t>::Error("invalid size " + Quoted(text) + ": must not be negative");
  }
  std::optional<std::int64_t> bytes = kube::ParseQuantity(trimmed);
  if (!bytes) return Parsed<std::int64_t>::Error("invalid size " + Quoted(text) + " (expected a quantity such as 512Mi, 5Gi or 5G)");
  if (*bytes < 0) return Parsed<std::int64_t>::Error("invalid size " + Quoted(text) + ": must not be negative");
  return Parsed<std::int64_t>::Ok(*bytes);
}

Parsed<std::int64_t> ParseSizeValue(const json& value) {
  if (value.is_string()) return ParseSize(value.get_ref<const std::string&>());
  if (value.is_number_integer()) {
    if (value.is_number_unsigned() && value.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      return Parsed<std::int64_t>::Error("invalid size " + value.dump() + ": too large");
    }
    const std::int64_t bytes = value.get<std::int64_t>();
    if (bytes < 0) return Parsed<std::int64_t>::Error("invalid size " + value.dump() + ": must not be negative");
    return Parsed<std::int64_t>::Ok(bytes);
  }
  if (value.is_number_float()) return ParseSize(std::string_view(value.dump()));
  return Parsed<std::int64_t>::Error("invalid size: expected a quantity such as \"5Gi\" or a number of bytes, got " + TypeName(value));
}

Parsed<double> ParseBandwidth(std::string_view text) {
  const std::string_view original = text;
  text = Trim(text);
  auto invalid = [&] {
    return Parsed<double>::Error("invalid bandwidth " + Quoted(original) +
                                 " (expected a number and a unit such as 200MBps, 2GiBps or 100Gbps)");
  };
  if (!text.empty() && text.front() == '-') {
    return Parsed<double>::Error("invalid bandwidth " + Quoted(original) + ": must be greater than zero");
  }
  std::optional<long double> number = TakeNumber(text);
  if (!number) return invalid();
  // Optional exponent, as in "1.25e10".
  if (!text.empty() && (text.front() == 'e' || text.front() == 'E') && text.size() > 1 &&
      ((text[1] >= '0' && text[1] <= '9') || text[1] == '+' || text[1] == '-')) {
    std::string_view rest = text.substr(1);
    bool negative = false;
    if (rest.front() == '+' || rest.front() == '-') {
      negative = rest.front() == '-';
      rest.remove_prefix(1);
    }
    int exponent = 0;
    bool digits = false;
    while (!rest.empty() && rest.front() >= '0' && rest.front() <= '9' && exponent < 1000) {
      exponent = exponent * 10 + (rest.front() - '0');
      rest.remove_prefix(1);
      digits = true;
    }
    if (!digits) return invalid();
    *number *= std::pow(10.0L, negative ? -exponent : exponent);
    text = rest;
  }
  static constexpr std::pair<std::string_view, long double> kUnits[] = {
      {"", 1},           {"Bps", 1},           {"KBps", 1e3},         {"kBps", 1e3},        {"MBps", 1e6},
      {"GBps", 1e9},     {"TBps", 1e12},       {"KiBps", 1024.0L},    {"MiBps", 1048576.0L}, {"GiBps", 1073741824.0L},
      {"TiBps", 1099511627776.0L}, {"bps", 0.125L}, {"Kbps", 125.0L}, {"kbps", 125.0L},    {"Mbps", 125e3L},
      {"Gbps", 125e6L},  {"Tbps", 125e9L},
  };
  for (const auto& [unit, factor] : kUnits) {
    if (text == unit) {
      const long double bytes = *number * factor;
      if (!(bytes > 0)) return Parsed<double>::Error("invalid bandwidth " + Quoted(original) + ": must be greater than zero");
      if (!(bytes < 1e30L)) return Parsed<double>::Error("invalid bandwidth " + Quoted(original) + ": too large");
      // "1e-810" is above zero as a long double but 0 as the double the network model uses.
      if (!(static_cast<double>(bytes) >= kMinBandwidth))
        return Parsed<double>::Error("invalid bandwidth " + Quoted(original) + ": too small (at least 1e-6 bytes per second)");
      return Parsed<double>::Ok(static_cast<double>(bytes));
    }
  }
  return invalid();
}

Parsed<double> ParseBandwidthValue(const json& value) {
  if (value.is_string()) return ParseBandwidth(value.get_ref<const std::string&>());
  if (value.is_number()) {
    const double bytes = value.get<double>();
    if (!std::isfinite(bytes) || bytes <= 0) {
      return Parsed<double>::Error("invalid bandwidth " + value.dump() + ": must be greater than zero");
    }
    if (bytes < kMinBandwidth)
      return Parsed<double>::Error("invalid bandwidth " + value.dump() + ": too small (at least 1e-6 bytes per second)");
    return Parsed<double>::Ok(bytes);
  }
  return Parsed<double>::Error("invalid bandwidth: expected a string such as \"200MBps\" or \"100Gbps\", got " + TypeName(value));
}

std::string FormatDuration(kube::Micros d) {
  if (d == 0) return "0s";
  std::string out;
  if (d < 0) {
    out = "-";
    d = d == std::numeric_limits<kube::Micros>::min() ? std::numeric_limits<kube::Micros>::max() : -d;
  }
  if (d < kube::kSecond) {
    if (d % kube::kMillisecond == 0) return out + std::to_string(d / kube::kMillisecond) + "ms";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3fms", static_cast<double>(d) / kube::kMillisecond);
    return out + buf;
  }
  const kube::Micros kDay = 86400 * kube::kSecond;
  const kube::Micros kHour = 3600 * kube::kSecond;
  const kube::Micros kMinute = 60 * kube::kSecond;
  if (d >= kDay) {
    out += std::to_string(d / kDay) + "d";
    d %= kDay;
  }
  if (d >= kHour) {
    out += std::to_string(d / kHour) + "h";
    d %= kHour;
  }
  if (d >= kMinute) {
    out += std::to_string(d / kMinute) + "m";
    d %= kMinute;
  }
  if (d > 0) {
    if (d % kube::kSecond == 0) {
      out += std::to_string(d / kube::kSecond) + "s";
    } else if (d % kube::kMillisecond == 0 && d < kube::kSecond) {
      out += std::to_string(d / kube::kMillisecond) + "ms";
    } else {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%gs", static_cast<double>(d) / kube::kSecond);
      out += buf;
    }
  }
  return out;
}

std::string FormatBandwidth(double bytes_per_second) {
  static constexpr std::pair<double, const char*> kScales[] = {{1e12, "TB/s"}, {1e9, "GB/s"}, {1e6, "MB/s"}, {1e3, "KB/s"}};
  for (const auto& [scale, unit] : kScales) {
    if (bytes_per_second >= scale) {
      char buf[48];
      std::snprintf(buf, sizeof buf, "%g%s", bytes_per_second / scale, unit);
      return buf;
    }
  }
  char buf[48];
  std::snprintf(buf, sizeof buf, "%gB/s", bytes_per_second);
  return buf;
}

namespace {

}  // namespace

// Whether a range differs from its value by more than rounding noise (0.1 %).
bool Ranged(double value, double low, double high) {
  const double noise = 1e-3 * std::abs(value);
  return value - low > noise || high - value > noise;
}

std::string FormatSpan(double seconds, double low, double high) {
  const bool ranged = Ranged(seconds, low, high);
  if (seconds < 600) {
    return FormatFixed(seconds, 1) + "s" + (ranged ? " (" + FormatFixed(low, 1) + " - " + FormatFixed(high, 1) + "s)" : "");
  }
  const double unit = seconds < 7200 ? 60.0 : 3600.0;
  const char* name = seconds < 7200 ? " min" : " h";
  const int digits = seconds < 7200 ? 1 : 2;
  return FormatFixed(seconds / unit, digits) + name +
         (ranged ? " (" + FormatFixed(low / unit, digits) + " - " + FormatFixed(high / unit, digits) + name + ")" : "");
}

std::string FormatBytesRange(double bytes, double low, double high) {
  const bool ranged = Ranged(bytes, low, high);
  return FormatFixed(bytes / 1e9, 1) + " GB" +
         (ranged ? " (" + FormatFixed(low / 1e9, 1) + " - " + FormatFixed(high / 1e9, 1) + " GB)" : "");
}

std::string FormatSeconds(double seconds) {
  return FormatDuration(static_cast<kube::Micros>(std::llround(seconds)) * kube::kSecond);
}

std::string FormatFixed(double value, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, value);
  return buf;
}

double MicrosToSeconds(kube::Micros t) { return static_cast<double>(t) / static_cast<double>(kube::kSecond); }

}  // namespace harness
