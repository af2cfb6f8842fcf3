// Fuzz target: the numbers users write as text. Kubernetes quantities (kube::ParseQuantityMilli,
// ParseQuantity; "768Gi", "100m", "2e3"), a scenario's durations, sizes and bandwidths
// (harness::ParseDuration, ParseSize, ParseBandwidth). Each must answer any text without crashing,
// and what they print must read back: a whole byte count FormatBytes prints parses to itself, a
// duration FormatDuration prints (to the millisecond) parses to itself.
#include "fakeapi/client/quantity.h"
#include "sim/harness/config/units.h"
#include "tests/fuzz/fuzz_check.h"

#include <string>

using dglsim_fuzz::Require;

namespace {

void CheckQuantity(std::string_view text) {
  std::optional<std::int64_t> milli = kube::ParseQuantityMilli(text);
  std::optional<std::int64_t> whole = kube::ParseQuantity(text);
  Require(milli.has_value() == whole.has_value(), "ParseQuantity and ParseQuantityMilli agree on what is a quantity",
          std::string(text));
  if (!whole) return;
  const std::string printed = kube::FormatBytes(*whole);
  if (printed.find('.') != std::string::npos) return;  // "1.5Gi" is rounded for reading, not exact
  std::optional<std::int64_t> again = kube::ParseQuantity(printed);
  Require(again && *again == *whole, "FormatBytes prints a quantity that parses to the same bytes",
          std::string(text) + " -> " + std::to_string(*whole) + " -> " + printed);
}

void CheckDuration(std::string_view text) {
  harness::Parsed<kube::Micros> d = harness::ParseDuration(text);
  Require(d.ok() == d.error.empty(), "a duration is either a value or an error", std::string(text));
  if (!d.ok()) return;
  Require(*d.value >= 0, "durations are never negative", std::string(text));
  if (*d.value % kube::kMillisecond != 0) return;
  const std::string printed = harness::FormatDuration(*d.value);
  harness::Parsed<kube::Micros> again = harness::ParseDuration(printed);
  Require(again.ok() && *again.value == *d.value, "FormatDuration prints a duration that parses to itself",
          std::string(text) + " -> " + std::to_string(*d.value) + " us -> " + printed);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = dglsim_fuzz::Text(data, size);
  CheckQuantity(text);
  CheckDuration(text);
  harness::Parsed<std::int64_t> bytes = harness::ParseSize(text);
  Require(!bytes.ok() || *bytes.value >= 0, "sizes are never negative", std::string(text));
  harness::Parsed<double> bandwidth = harness::ParseBandwidth(text);
  Require(!bandwidth.ok() || *bandwidth.value > 0, "bandwidths are positive", std::string(text));
  return 0;
}
