// A Clock tells the current time. Everything that needs time gets one injected: the simulator
// passes its simulated clock, tests a ManualClock, a real deployment the SystemClock. Time is an
// integer count of microseconds since the Unix epoch, so runs are exact and reproducible.
// The bottom layer (dglclock): the Kubernetes client library and the simulator's event kernel both
// use it, and it uses only the standard library. Namespace kube, as the timestamps are Kubernetes'.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kube {

using Micros = std::int64_t;
constexpr Micros kSecond = 1'000'000;
constexpr Micros kMillisecond = 1'000;

class Clock {
 public:
  virtual ~Clock() = default;
  virtual Micros Now() const = 0;
};

// A clock that moves only when told to. Starts at 2026-01-01T00:00:00Z unless told otherwise.
class ManualClock : public Clock {
 public:
  static constexpr Micros kDefaultStart = 1'767'225'600LL * kSecond;  // 2026-01-01T00:00:00Z
  explicit ManualClock(Micros start = kDefaultStart) : now_(start) {}
  Micros Now() const override { return now_; }
  void Set(Micros t) { now_ = t; }
  void Advance(Micros d) { now_ += d; }

 private:
  Micros now_;
};

// Wall-clock time; only for the operator running against a real API server.
class SystemClock : public Clock {
 public:
  Micros Now() const override;
};

// RFC 3339 with second precision, as metav1.Time serialises: "2026-01-01T00:00:00Z".
std::string FormatTime(Micros t);
// Micro-precision form, as metav1.MicroTime: "2026-01-01T00:00:00.000000Z".
std::string FormatMicroTime(Micros t);
// Parses either form (and numeric offsets); nullopt when it is not a timestamp.
std::optional<Micros> ParseTime(std::string_view s);

// Parses a duration: one or more <number><unit> with units d, h, m, s, ms (fractions allowed,
// largest first not required: "1h30m", "90m", "1.5h", "2d12h", "500ms"), or a plain number of
// seconds ("30", "1.5"). Blanks around it are ignored. Precision is one microsecond (finer fractions
// round to the nearest). nullopt when the text is none of these, is negative or does not fit; then
// `why`, when given, is "must not be negative", "too long" or "" (not a duration).
std::optional<Micros> ParseDuration(std::string_view text, std::string* why = nullptr);

}  // namespace kube
