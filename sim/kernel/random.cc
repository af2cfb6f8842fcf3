#include "sim/kernel/random.h"

#include "sim/kernel/fnv.h"

#include <cmath>
#include <limits>

// Fusing a*b+c into one FMA changes the last bit, and clang does it by default on targets with FMA.
// GCC in ISO mode (-std=c++20, as this project builds) does not contract.
#if defined(__clang__)
#pragma clang fp contract(off)
#endif

namespace sim {

namespace {

// The SplitMix64 output function (Steele, Lea & Flood 2014).
std::uint64_t Mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::uint64_t SplitMix64Next(std::uint64_t& state) {
  state += 0x9e3779b97f4a7c15ULL;
  return Mix64(state);
}

std::uint64_t Rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

// ln 2 split so that k * kLn2Hi is exact for |k| < 2^11 (the fdlibm constants).
constexpr double kLn2Hi = 6.93147180369123816490e-01;
constexpr double kLn2Lo = 1.90821492927058770002e-10;
constexpr double kInvLn2 = 1.44269504088896338700e+00;
constexpr double kSqrtHalf = 0.70710678118654752440;

}  // namespace

std::uint64_t StreamSeed(std::uint64_t scenario_seed, std::string_view component) {
  return Mix64(FnvFoldBytes(FnvFoldU64(kFnvOffset, scenario_seed), component));
}

RandomStream::RandomStream(std::uint64_t seed) {
  std::uint64_t sm = seed;
  for (std::uint64_t& word : s_) word = SplitMix64Next(sm);
}

std::uint64_t RandomStream::NextU64() {
  const std::uint64_t result = Rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = Rotl(s_[3], 45);
  return result;
}

double RandomStream::Uniform01() {
  return static_cast<double>(NextU64() >> 11) * 0x1.0p-53;
}

double RandomStream::Uniform(double lo, double hi) {
  const double x = lo + (hi - lo) * Uniform01();
  return x < hi ? x : lo;  // rounding can land exactly on hi; keep the interval half-open
}

std::int64_t RandomStream::UniformInt(std::int64_t lo, std::int64_t hi) {
  const std::uint64_t range = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo);
  if (range == std::numeric_limits<std::uint64_t>::max()) {
    return static_cast<std::int64_t>(NextU64());
  }
  const std::uint64_t n = range + 1;
  // Outputs below 2^64 mod n would make the low residues more likely; draw again instead.
  const std::uint64_t threshold = (0 - n) % n;
  std::uint64_t x;
  do {
    x = NextU64();
  } while (x < threshold);
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(lo) + x % n);
}

bool RandomStream::Bernoulli(double p) {
  const double u = Uniform01();
  return u < p;
}

double RandomStream::Exponential(double mean) {
  // 1 - u lies in (0, 1] and is exact, so the log is finite; 0.0 - log avoids returning -0.0.
  const double u = Uniform01();
  return mean * (0.0 - DeterministicLog(1.0 - u));
}

double RandomStream::Normal(double mean, double stddev) {
  double u, v, s;
  do {
    u = 2.0 * Uniform01() - 1.0;
    v = 2.0 * Uniform01() - 1.0;
    s = u * u + v * v;
  } while (s >= 1.0 || s == 0.0);
  const double factor = std::sqrt(-2.0 * DeterministicLog(s) / s);
  return mean + stddev * (u * factor);
}

double RandomStream::LogNormal(double mu, double sigma) {
  return DeterministicExp(Normal(mu, sigma));
}

RandomStream& RandomStreams::Get(std::string_view component) {
  auto it = streams_.find(component);
  if (it == streams_.end()) {
    it = streams_.emplace(std::string(component), RandomStream::ForComponent(seed_, component)).first;
  }
  return it->second;
}

double DeterministicLog(double x) {
  if (std::isnan(x) || x < 0.0) return std::numeric_limits<double>::quiet_NaN();
  if (x == 0.0) return -std::numeric_limits<double>::infinity();
  if (std::isinf(x)) return x;
  int e;
  double m = std::frexp(x, &e);  // x = m * 2^e, m in [0.5, 1), exact
  if (m < kSqrtHalf) {
    m *= 2.0;
    --e;
  }
  // m in [sqrt(1/2), sqrt(2)): log m = 2 atanh(s) = 2 (s + s^3/3 + s^5/5 + ...), |s| < 0.1716.
  const double s = (m - 1.0) / (m + 1.0);
  const double s2 = s * s;
  double p = 1.0 / 25.0;
  for (int k = 23; k >= 3; k -= 2) p = p * s2 + 1.0 / k;
  const double log_m = 2.0 * s + 2.0 * s * (s2 * p);
  const double de = static_cast<double>(e);
  return de * kLn2Hi + (log_m + de * kLn2Lo);
}

double DeterministicExp(double x) {
  if (std::isnan(x)) return x;
  if (x > 709.782712893383973096) return std::numeric_limits<double>::infinity();
  if (x < -745.133219101941108420) return 0.0;
  // x = k ln2 + r with |r| <= ln2 / 2; exp x = 2^k exp r.
  const double k = std::floor(x * kInvLn2 + 0.5);
  const double r = (x - k * kLn2Hi) - k * kLn2Lo;
  // Taylor series of exp r to degree 17 (the next term is below 2^-60 of the sum), in Horner form.
  double p = 1.0;
  for (int n = 17; n >= 1; --n) p = 1.0 + p * r / n;
  return std::ldexp(p, static_cast<int>(k));
}

}  // namespace sim
