// What the fuzz targets of tests/fuzz assert besides "no crash, no leak, no undefined behaviour":
// properties every input must keep (a round trip gives back what it started from, a problem is
// located, a valid job builds). A broken property prints what was expected and what was seen and
// aborts, which libFuzzer reports as a crash and saves as an input to replay.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace dglsim_fuzz {

// Aborts with `what` (and `seen`, when given) unless `holds`.
inline void Require(bool holds, std::string_view what, std::string_view seen = {}) {
  if (holds) return;
  std::fprintf(stderr, "fuzz property broken: %.*s\n", static_cast<int>(what.size()), what.data());
  if (!seen.empty()) std::fprintf(stderr, "  seen: %.*s\n", static_cast<int>(seen.size()), seen.data());
  std::abort();
}

inline std::string_view Text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Splits `text` at the first line that is exactly `separator` ("a\n====\nb" -> "a", "b"); without
// one, everything is the first part.
inline std::pair<std::string_view, std::string_view> SplitAtLine(std::string_view text, std::string_view separator) {
  const std::string marker = "\n" + std::string(separator) + "\n";
  std::size_t at = text.find(marker);
  if (at == std::string_view::npos) return {text, {}};
  return {text.substr(0, at), text.substr(at + marker.size())};
}

}  // namespace dglsim_fuzz
