// The regular expressions a scenario gives (`matches:` of a configMap expectation), compiled and
// matched with bounds whatever the pattern:
// - a pattern is at most kMaxRegexBytes (1,000) bytes, and its compiled program at most
//   kMaxRegexProgramBytes (1 MiB): RE2 refuses past that, so 30,000 nested parentheses or
//   `(a{999}){999}` are a located error (exit 2), not a stack overflow or minutes of compiling;
// - matching is RE2's: no backtracking, time linear in the line, so `^(.*)*$x` answers at once
//   (std::regex took exponential time on it and recursed once per character of the line).
// The syntax is RE2's, which is ECMAScript's for what a line check needs (classes such as \S \d \w,
// anchors, groups, alternation, counted repeats); backreferences and lookaround are refused with
// RE2's message. Never throws.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace re2 {
class RE2;
}  // namespace re2

namespace harness {

inline constexpr std::size_t kMaxRegexBytes = 1000;
inline constexpr std::size_t kMaxRegexProgramBytes = std::size_t{1} << 20;

class LineRegex {
 public:
  LineRegex() = default;  // matches nothing until compiled
  // The compiled pattern; on failure !ok() and *error says why (never empty).
  static LineRegex Compile(std::string_view pattern, std::string* error);
  bool ok() const { return re_ != nullptr; }
  // True when the pattern matches somewhere in `text` (ECMAScript's search).
  bool Search(std::string_view text) const;

 private:
  std::shared_ptr<const re2::RE2> re_;  // immutable, shared by copies
};

}  // namespace harness
