// FNV-1a, 64-bit (Fowler, Noll & Vo): the one hash the kernel folds bytes with, for the trace hash
// of a run and for the seeds of its random streams. Integers are folded as their eight
// little-endian bytes, whatever the host byte order, so a hash is the same on every machine.
#pragma once

#include <cstdint>
#include <string_view>

namespace sim {

inline constexpr std::uint64_t kFnvOffset = 0xcbf29ce484222325ULL;
inline constexpr std::uint64_t kFnvPrime = 0x100000001b3ULL;

// `h` with the bytes of `bytes` folded in.
inline std::uint64_t FnvFoldBytes(std::uint64_t h, std::string_view bytes) {
  for (unsigned char c : bytes) {
    h ^= c;
    h *= kFnvPrime;
  }
  return h;
}

// `h` with the eight little-endian bytes of `v` folded in.
inline std::uint64_t FnvFoldU64(std::uint64_t h, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) {
    h ^= (v >> (8 * i)) & 0xff;
    h *= kFnvPrime;
  }
  return h;
}

}  // namespace sim
