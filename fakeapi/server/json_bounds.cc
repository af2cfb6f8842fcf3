// See json_bounds.h.
#include "fakeapi/server/json_bounds.h"

#include <utility>
#include <vector>

namespace fakeapi {

using json = kube::Json;

std::size_t TextNestingDepth(std::string_view text, std::size_t limit) {
  std::size_t depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > deepest) deepest = depth;
      if (deepest > limit) return deepest;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

std::size_t NestingDepth(const json& value, std::size_t limit) {
  std::size_t deepest = 0;
  std::vector<std::pair<const json*, std::size_t>> stack = {{&value, 0}};
  while (!stack.empty()) {
    auto [at, depth] = stack.back();
    stack.pop_back();
    if (!at->is_structured()) continue;
    const std::size_t inner = depth + 1;
    if (inner > deepest) deepest = inner;
    if (deepest > limit) return deepest;
    for (const json& child : *at)
      if (child.is_structured()) stack.push_back({&child, inner});
  }
  return deepest;
}

std::size_t ApproximateMemory(const json& value) {
  // A json value is 16 bytes; a std::string 32 plus its heap buffer past 15 characters; a map node
  // some 48 bytes of links beside its key and value; vectors hold their elements inline.
  auto string_bytes = [](const std::string& s) { return 32 + (s.size() > 15 ? s.size() + 1 : 0); };
  std::size_t total = sizeof(json);
  std::vector<const json*> stack = {&value};
  while (!stack.empty()) {
    const json* at = stack.back();
    stack.pop_back();
    if (at->is_string()) {
      total += string_bytes(at->get_ref<const std::string&>());
    } else if (at->is_object()) {
      total += 48;  // the std::map itself
      for (auto it = at->begin(); it != at->end(); ++it) {
        total += 48 + string_bytes(it.key()) + sizeof(json);
        stack.push_back(&it.value());
      }
    } else if (at->is_array()) {
      total += 24 + at->size() * sizeof(json);
      for (const json& child : *at) stack.push_back(&child);
    } else if (at->is_binary()) {
      total += at->get_binary().size();
    }
  }
  return total;
}

}  // namespace fakeapi
