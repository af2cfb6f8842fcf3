// Kubernetes resource quantities ("96", "100m", "768Gi", "1.5G", "2e3") as exact integers.
// CPU is counted in millicores, everything else in whole units (bytes, GPUs), rounding up as
// the API server does for sub-unit values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kube {

// The value in thousandths of a unit ("100m" -> 100, "2" -> 2000, "1Gi" -> 1073741824000);
// nullopt when `text` is not a quantity or overflows.
std::optional<std::int64_t> ParseQuantityMilli(std::string_view text);
// The value in whole units, rounded up ("100m" -> 1, "768Gi" -> 824633720832).
std::optional<std::int64_t> ParseQuantity(std::string_view text);
// A short human form in binary units for bytes ("768Gi", "1.5Gi", "512Mi", "10").
std::string FormatBytes(std::int64_t bytes);

}  // namespace kube
