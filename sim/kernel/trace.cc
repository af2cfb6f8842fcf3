#include "sim/kernel/trace.h"

namespace sim {

namespace {

constexpr std::uint64_t kFnvPrime = 0x100000001b3ULL;

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

void Trace::HashBytes(std::string_view bytes) {
  std::uint64_t h = hash_;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= kFnvPrime;
  }
  hash_ = h;
}

void Trace::HashU64(std::uint64_t v) {
  // Little-endian bytes, whatever the host byte order.
  std::uint64_t h = hash_;
  for (int i = 0; i < 8; ++i) {
    h ^= (v >> (8 * i)) & 0xff;
    h *= kFnvPrime;
  }
  hash_ = h;
}

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
