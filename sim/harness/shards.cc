#include "sim/harness/shards.h"

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <map>
#include <set>
#include <string_view>

namespace harness {
namespace {

using json = kube::Json;

// A value for a message: its JSON, cut short when long.
std::string Shown(const json& value) {
  std::string text = value.dump();
  if (text.size() > 80) text = text.substr(0, 77) + "...";
  return text;
}

// Why `header` (of slice `name`) is not `first` (of slice `first_name`): the fields that differ, or
// the fingerprint alone. "" when they are the same.
std::string HeaderDifference(const json& header, const json& first, const std::string& first_name,
                             const SliceFormat& format) {
  if (header == first) return "";
  std::set<std::string> keys;
  for (const json* h : {&header, &first})
    if (h->is_object())
      for (auto it = h->begin(); it != h->end(); ++it) keys.insert(it.key());
  std::string fields;
  for (const std::string& key : keys) {
    if (key == "fingerprint") continue;
    const json here = header.is_object() && header.contains(key) ? header[key] : json();
    const json there = first.is_object() && first.contains(key) ? first[key] : json();
    if (here == there) continue;
    fields += (fields.empty() ? "" : "; ") + key + " " + Shown(here) + " here, " + Shown(there) + " in " + first_name;
  }
  if (!fields.empty()) return "a slice of another " + format.batch + ": " + fields;
  auto fingerprint = [](const json& h) { return h.is_object() ? h.value("fingerprint", std::string()) : std::string(); };
  return "a slice of another " + format.batch + " (fingerprint " + fingerprint(header) + ", not " + fingerprint(first) +
         "): " + format.changed;
}

// The slice's shard, when it is {index, count} with index < count.
std::optional<Shard> ShardOf(const json& slice) {
  const json& s = slice["shard"];
  if (!s.is_object() || !s.contains("index") || !s.contains("count") || !s["index"].is_number_unsigned() ||
      !s["count"].is_number_unsigned())
    return std::nullopt;
  Shard shard{s["index"].get<std::size_t>(), s["count"].get<std::size_t>()};
  if (shard.count == 0 || shard.index >= shard.count) return std::nullopt;
  return shard;
}

}  // namespace

std::optional<Shard> ParseShard(const std::string& text) {
  const std::size_t slash = text.find('/');
  if (slash == std::string::npos) return std::nullopt;
  Shard shard;
  auto parse = [](std::string_view s, std::size_t* out) {
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
    return ec == std::errc() && end == s.data() + s.size() && !s.empty();
  };
  if (!parse(std::string_view(text).substr(0, slash), &shard.index) || !parse(std::string_view(text).substr(slash + 1), &shard.count))
    return std::nullopt;
  if (shard.count == 0 || shard.index >= shard.count) return std::nullopt;
  return shard;
}

std::string Fingerprint(const json& header, const std::vector<std::string>& texts) {
  std::uint64_t h = 14695981039346656037ull;
  auto add = [&h](std::string_view text) {
    for (unsigned char c : text) {
      h ^= c;
      h *= 1099511628211ull;
    }
  };
  add(header.dump());
  for (const std::string& text : texts) add(text);
  char buffer[17];
  std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(h));
  return buffer;
}

std::optional<json> CheckSlices(const std::vector<json>& slices, const std::vector<std::string>& names,
                                const SliceFormat& format, std::vector<std::string>* problems) {
  const std::size_t before = problems->size();
  if (slices.empty()) problems->push_back("no slices to merge");
  std::optional<json> header;
  std::string first_name;
  std::size_t count = 0;
  std::map<std::size_t, std::string> shards;  // index -> file
  for (std::size_t i = 0; i < slices.size(); ++i) {
    const json& s = slices[i];
    if (!s.is_object() || s.value("kind", "") != format.kind || !s.contains(format.header) || !s.contains("shard") ||
        !s.contains(format.rows) || !s[format.rows].is_array()) {
      problems->push_back(names[i] + ": not a " + format.batch + " slice (kind: " + format.kind + ", written by " +
                          format.writer + ")");
      continue;
    }
    const std::optional<Shard> shard = ShardOf(s);
    if (!shard) {
      problems->push_back(names[i] + ": shard: expected {index: I, count: N} with 0 <= I < N, got " + Shown(s["shard"]));
      continue;
    }
    if (!header) {
      header = s[format.header];
      first_name = names[i];
      count = shard->count;
    } else if (std::string why = HeaderDifference(s[format.header], *header, first_name, format); !why.empty()) {
      problems->push_back(names[i] + ": " + why);
      continue;
    }
    if (shard->count != count) {
      problems->push_back(names[i] + ": shard " + std::to_string(shard->index) + " of " + std::to_string(shard->count) +
                          ", the others are of " + std::to_string(count));
      continue;
    }
    if (auto [it, fresh] = shards.emplace(shard->index, names[i]); !fresh)
      problems->push_back(names[i] + ": shard " + std::to_string(shard->index) + " again (also in " + it->second + ")");
  }
  if (header)
    for (std::size_t i = 0; i < count; ++i)
      if (!shards.contains(i)) problems->push_back("shard " + std::to_string(i) + " of " + std::to_string(count) + " is missing");
  if (problems->size() != before) return std::nullopt;
  return header;
}

}  // namespace harness
