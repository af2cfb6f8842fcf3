// A Trace is the append-only record of what happened in a simulated run: every API write and every
// simulated event, each with its simulated time, a category ("api", "sched", "kubelet", ...) and a
// text or a list of fields. Callers record; the trace never reads the clock itself.
//
// Contract: the trace keeps a running 64-bit FNV-1a hash over a canonical byte encoding of every
// record, so the same records in the same order give the same hash, bit for bit, on every platform,
// and a different record or a different order gives (with overwhelming probability) a different one.
// The hash covers every record, whether or not records are kept in memory.
//
// Records can also be kept in memory (for Chrome trace export and for tests), bounded: once the
// bound is reached the oldest records are dropped, since the end of a run is usually what one
// debugs. Big runs turn keeping off and pay only for the hash.
//
// REQUIRES: external synchronization.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

#include "clock/clock.h"

namespace sim {

struct TraceRecord {
  kube::Micros time = 0;
  std::string category;
  std::string text;
};

// A key and its value, for the structured form of Trace::Record.
using TraceField = std::pair<std::string_view, std::string_view>;

class Trace {
 public:
  struct Options {
    bool keep_records = true;
    // Records kept in memory at most; older ones are dropped first. 0 means no bound.
    std::size_t max_records = 1 << 20;
  };

  Trace() : Trace(Options()) {}
  explicit Trace(Options options) : options_(options) {}
  Trace(const Trace&) = delete;
  Trace& operator=(const Trace&) = delete;

  // Appends one record. `category` and `text` may hold any bytes.
  void Record(kube::Micros time, std::string_view category, std::string_view text);
  // Appends one record whose text is the fields in the given order, rendered "k1=v1 k2=v2". The
  // hash covers each key and value separately (length-prefixed), so values containing spaces or
  // '=' cannot make two different field lists collide; it also tells this form from a text record
  // with the same rendering.
  void Record(kube::Micros time, std::string_view category,
              std::initializer_list<TraceField> fields);

  // Running hash of everything recorded so far; FNV-1a 64 offset basis when empty.
  std::uint64_t hash() const { return hash_; }
  // hash() as 16 lowercase hex digits.
  std::string HashHex() const;

  // Number of records appended, kept or not.
  std::uint64_t count() const { return count_; }
  // Records kept in memory, oldest first.
  const std::deque<TraceRecord>& records() const { return records_; }
  // Records appended but no longer (or never) kept in memory.
  std::uint64_t dropped() const { return count_ - records_.size(); }

 private:
  void HashBytes(std::string_view bytes);
  void HashU64(std::uint64_t v);
  void HashString(std::string_view s) {
    HashU64(s.size());
    HashBytes(s);
  }
  void Keep(kube::Micros time, std::string_view category, std::string text);

  Options options_;
  std::uint64_t hash_ = 0xcbf29ce484222325ULL;
  std::uint64_t count_ = 0;
  std::deque<TraceRecord> records_;
};

// `v` as 16 lowercase hex digits.
std::string Hex64(std::uint64_t v);

}  // namespace sim
