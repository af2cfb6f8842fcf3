// The units a scenario file writes its numbers in: durations ("30s", "1h30m", "500ms"), sizes
// (Kubernetes quantities: "768Gi", "5G", "1500M") and bandwidths ("100Gbps", "2GBps", "200MiBps").
// Each parser returns the value or a one-line message for the user (`invalid duration "5 minutes"`);
// nothing here throws.
//
// Durations: a sequence of <number><unit> with units d, h, m, s, ms (largest first is not
// required; "1h30m", "90m", "1.5h" and "2d12h" all work). A plain number, written bare or as a string,
// is seconds. Negative durations are refused: nothing in a scenario runs backwards. Precision is one
// microsecond (kube::Micros); finer fractions are rounded to the nearest microsecond.
//
// Sizes are bytes, written as Kubernetes quantities (kube::ParseQuantity): "5Gi" = 5 * 2^30,
// "5G" = 5 * 10^9, a plain number is bytes. Sub-byte values round up, as the API server does.
//
// Bandwidths are bytes per second. Byte units are decimal (KBps = 10^3 B/s, MBps, GBps, TBps) or
// binary (KiBps, MiBps, GiBps, TiBps); bit units are decimal and divided by 8 (bps, Kbps, Mbps,
// Gbps, Tbps). "Bps" alone is bytes per second, and so is a plain number. Units are case-sensitive,
// because "Mbps" and "MBps" differ by a factor of eight. A bandwidth must be at least 1e-6 bytes per
// second ("1e-810Bps" is not zero to a long double, but it is to the model's doubles).
#pragma once

#include "clock/clock.h"
#include "fakeapi/client/json.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace harness {

// For messages: the text as it appeared, quoted as JSON, cut short when long (a message stays one
// readable line); and the kind of a YAML value ("a mapping", "a sequence", "a string", ...).
std::string Quoted(std::string_view text);
std::string TypeName(const kube::Json& value);

// A parsed value or the reason there is none.
template <class T>
struct Parsed {
  std::optional<T> value;
  std::string error;  // set exactly when `value` is empty
  bool ok() const { return value.has_value(); }
  static Parsed Ok(T v) { return Parsed{std::move(v), {}}; }
  static Parsed Error(std::string message) { return Parsed{std::nullopt, std::move(message)}; }
};

Parsed<kube::Micros> ParseDuration(std::string_view text);
Parsed<std::int64_t> ParseSize(std::string_view text);  // bytes
Parsed<double> ParseBandwidth(std::string_view text);   // bytes per second

// The same, for a YAML value converted to JSON: a string as above, or a number (seconds, bytes,
// bytes per second). Any other type is an error saying what was expected.
Parsed<kube::Micros> ParseDurationValue(const kube::Json& value);
Parsed<std::int64_t> ParseSizeValue(const kube::Json& value);
Parsed<double> ParseBandwidthValue(const kube::Json& value);

// Short human forms for messages and reports: "1h30m", "250ms", "0s"; "200MB/s", "12.5GB/s".
std::string FormatDuration(kube::Micros d);
std::string FormatBandwidth(double bytes_per_second);
// A duration given in seconds, rounded to the second, the same way: "2m5s".
std::string FormatSeconds(double seconds);
// A number with `digits` digits after the point ("%.*f"): FormatFixed(2.345, 1) is "2.3".
std::string FormatFixed(double value, int digits);
// Simulated microseconds as seconds.
double MicrosToSeconds(kube::Micros t);

// A prediction with its range in one unit chosen by the value: seconds below 10 minutes ("28.0s",
// "28.0s (22.1 - 35.3s)"), minutes below 2 hours ("95.9 min (71.0 - 120.3 min)"), hours above
// ("1.60 h (1.20 - 2.10 h)"). The range is left out when it is within 0.1 % of the value.
std::string FormatSpan(double seconds, double low, double high);
// Bytes the same way, in GB (10^9): "599.7 GB (571.2 - 640.8 GB)".
std::string FormatBytesRange(double bytes, double low, double high);

}  // namespace harness
