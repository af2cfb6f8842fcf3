// See line_regex.h.
#include "sim/harness/config/line_regex.h"

#include <re2/re2.h>

namespace harness {

LineRegex LineRegex::Compile(std::string_view pattern, std::string* error) {
  LineRegex out;
  if (pattern.size() > kMaxRegexBytes) {
    *error = "longer than " + std::to_string(kMaxRegexBytes) + " bytes (" + std::to_string(pattern.size()) + ")";
    return out;
  }
  RE2::Options options;
  options.set_log_errors(false);
  options.set_max_mem(static_cast<int64_t>(kMaxRegexProgramBytes));
  auto re = std::make_shared<const RE2>(re2::StringPiece(pattern.data(), pattern.size()), options);
  if (!re->ok()) {
    *error = re->error_code() == RE2::ErrorPatternTooLarge
                 ? "too complex: its compiled form passes " + std::to_string(kMaxRegexProgramBytes >> 20) + " MiB"
                 : re->error();
    if (error->empty()) *error = "invalid";
    return out;
  }
  out.re_ = std::move(re);
  return out;
}

bool LineRegex::Search(std::string_view text) const {
  return re_ != nullptr && RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), *re_);
}

}  // namespace harness
