#include "sim/kernel/trace.h"

#include "sim/kernel/fnv.h"

namespace sim {

namespace {

// Tags the two record forms in the hashed encoding.
constexpr char kTextTag = 'T';
constexpr char kFieldsTag = 'F';

}  // namespace

std::string Hex64(std::uint64_t v) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i) {
    out[i] = kDigits[v & 0xf];
    v >>= 4;
  }
  return out;
}

std::string Trace::HashHex() const { return Hex64(hash_); }

void Trace::HashBytes(std::string_view bytes) { hash_ = FnvFoldBytes(hash_, bytes); }

void Trace::HashU64(std::uint64_t v) { hash_ = FnvFoldU64(hash_, v); }

void Trace::Record(kube::Micros time, std::string_view category, std::string_view text) {
  HashU64(static_cast<std::uint64_t>(time));
  HashString(category);
  HashBytes(std::string_view(&kTextTag, 1));
  HashString(text);
  ++count_;
  if (options_.keep_records) Keep(time, category, std::string(text));
}

void Trace::Record(kube::Micros time, std::string_view category,
                   std::initializer_list<TraceField> fields) {
  HashU64(static_cast<std::uint64_t>(time));
  HashString(category);
  HashBytes(std::string_view(&kFieldsTag, 1));
  HashU64(fields.size());
  for (const TraceField& f : fields) {
    HashString(f.first);
    HashString(f.second);
  }
  ++count_;
  if (!options_.keep_records) return;
  std::string text;
  for (const TraceField& f : fields) {
    if (!text.empty()) text += ' ';
    text.append(f.first);
    text += '=';
    text.append(f.second);
  }
  Keep(time, category, std::move(text));
}

void Trace::Keep(kube::Micros time, std::string_view category, std::string text) {
  if (options_.max_records != 0 && records_.size() >= options_.max_records) records_.pop_front();
  records_.push_back(TraceRecord{time, std::string(category), std::move(text)});
}

}  // namespace sim
