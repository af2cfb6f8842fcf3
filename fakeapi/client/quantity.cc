// Parsing of Kubernetes quantities. See quantity.h.
#include "fakeapi/client/quantity.h"

#include <cmath>
#include <cstdio>

namespace kube {
namespace {

// Multiplier in thousandths for a suffix; 0 when unknown.
bool Suffix(std::string_view s, long double* milli) {
  struct Unit {
    const char* name;
    long double milli;
  };
  static const Unit kUnits[] = {
      {"", 1e3L},           {"m", 1.0L},          {"k", 1e6L},          {"M", 1e9L},
      {"G", 1e12L},         {"T", 1e15L},         {"P", 1e18L},         {"E", 1e21L},
      {"Ki", 1024e3L},      {"Mi", 1048576e3L},   {"Gi", 1073741824e3L}, {"Ti", 1099511627776e3L},
      {"Pi", 1125899906842624e3L}, {"Ei", 1152921504606846976e3L}};
  for (const auto& u : kUnits)
    if (s == u.name) {
      *milli = u.milli;
      return true;
    }
  return false;
}

}  // namespace

std::optional<std::int64_t> ParseQuantityMilli(std::string_view text) {
  if (text.empty() || text.size() > 64) return std::nullopt;
  std::size_t i = 0;
  bool negative = false;
  if (text[i] == '+' || text[i] == '-') negative = text[i++] == '-';
  std::size_t digits_start = i;
  long double value = 0;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') value = value * 10 + (text[i++] - '0');
  if (i < text.size() && text[i] == '.') {
    ++i;
    long double scale = 0.1L;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      value += (text[i++] - '0') * scale;
      scale /= 10;
    }
  }
  if (i == digits_start || (i == digits_start + 1 && text[digits_start] == '.')) return std::nullopt;
  long double multiplier = 0;
  std::string_view rest = text.substr(i);
  if (!rest.empty() && (rest[0] == 'e' || rest[0] == 'E') && rest.size() > 1) {
    // Decimal exponent: "2e3". ("E" alone is the exa suffix.)
    std::size_t j = 1;
    bool neg_exp = false;
    if (rest[j] == '+' || rest[j] == '-') neg_exp = rest[j++] == '-';
    if (j >= rest.size()) return std::nullopt;
    int exp = 0;
    for (; j < rest.size(); ++j) {
      if (rest[j] < '0' || rest[j] > '9' || exp > 30) return std::nullopt;
      exp = exp * 10 + (rest[j] - '0');
    }
    multiplier = 1e3L * std::pow(10.0L, neg_exp ? -exp : exp);
  } else if (!Suffix(rest, &multiplier)) {
    return std::nullopt;
  }
  long double milli = std::ceil(value * multiplier - 1e-9L);
  if (milli > 9.2e18L) return std::nullopt;
  auto out = static_cast<std::int64_t>(milli);
  return negative ? -out : out;
}

std::optional<std::int64_t> ParseQuantity(std::string_view text) {
  auto milli = ParseQuantityMilli(text);
  if (!milli) return std::nullopt;
  std::int64_t v = *milli;
  return v >= 0 ? (v + 999) / 1000 : -((-v) / 1000);
}

std::string FormatBytes(std::int64_t bytes) {
  static const char* kUnits[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi"};
  double v = static_cast<double>(bytes);
  int unit = 0;
  while (std::fabs(v) >= 1024 && unit < 5) {
    v /= 1024;
    ++unit;
  }
  char buf[32];
  if (v == std::floor(v))
    std::snprintf(buf, sizeof buf, "%.0f%s", v, kUnits[unit]);
  else
    std::snprintf(buf, sizeof buf, "%.1f%s", v, kUnits[unit]);
  return buf;
}

}  // namespace kube
