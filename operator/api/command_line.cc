#include "operator/api/command_line.h"

#include "operator/api/json_fields.h"

#include <utility>
#include <vector>

namespace dgl {
namespace {

using json = kube::Json;

// Splits command and args into shell-like words: whitespace, quotes and ';' separate words, so a
// whole script in one string ("sh -c 'dglrun --num-servers 2; ...'") yields the same words as a
// list of arguments would.
std::vector<std::string> CommandWords(const json& container) {
  std::vector<std::string> words;
  for (const char* key : {"command", "args"}) {
    const json* list = fields::Member(container, key);
    if (list == nullptr || !list->is_array()) continue;
    for (const json& element : *list) {
      if (!element.is_string()) continue;
      std::string word;
      for (char c : element.get_ref<const std::string&>()) {
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '"' || c == '\'' || c == ';') {
          if (!word.empty()) words.push_back(std::move(word));
          word.clear();
        } else {
          word += c;
        }
      }
      if (!word.empty()) words.push_back(std::move(word));
    }
  }
  return words;
}

}  // namespace

std::optional<std::string> FindCommandFlag(const json& container, std::string_view flag) {
  if (!container.is_object() || flag.empty()) return std::nullopt;
  std::vector<std::string> words = CommandWords(container);
  std::optional<std::string> value;
  for (std::size_t i = 0; i < words.size(); ++i) {
    std::string_view word = words[i];
    if (word == flag) {
      if (i + 1 < words.size()) value = words[i + 1];
    } else if (word.size() > flag.size() && word.substr(0, flag.size()) == flag && word[flag.size()] == '=') {
      value = std::string(word.substr(flag.size() + 1));
    }
  }
  return value;
}

bool CommandRuns(const json& container, std::string_view program) {
  if (!container.is_object() || program.empty()) return false;
  for (const std::string& word : CommandWords(container)) {
    std::string_view w = word;
    if (w == program) return true;
    if (w.size() > program.size() && w.ends_with(program) && w[w.size() - program.size() - 1] == '/') return true;
  }
  return false;
}

}  // namespace dgl
