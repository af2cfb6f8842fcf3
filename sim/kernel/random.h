// A RandomStream is a seeded pseudo-random generator (xoshiro256**, Blackman & Vigna 2018) with the
// conversions the simulator needs: uniform reals and integers, exponential, normal, log-normal and
// Bernoulli draws. Each simulated component owns one stream, derived from the scenario seed and the
// component's name (StreamSeed), so adding or removing a component never changes the numbers
// another component draws.
//
// Contract: the same seed yields the same sequence of values, bit for bit, on every platform with
// IEEE-754 doubles. Nothing here uses std:: distributions (their output differs between standard
// libraries) or the platform's log/exp (libm results may differ in the last bit between systems):
// the conversions use only integer arithmetic, +, -, *, /, sqrt, floor, frexp and ldexp, which
// IEEE-754 defines exactly, plus our own log and exp built from them. random.cc turns off
// floating-point contraction (FMA fusing) where the compiler would otherwise apply it.
//
// Every draw consumes a fixed number of 64-bit outputs, except UniformInt and Normal, which reject
// and retry with a tiny probability.
//
// REQUIRES: external synchronization.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>

namespace sim {

// The seed of component `component`'s stream in a scenario run with `scenario_seed`: FNV-1a 64 of
// the seed's eight little-endian bytes followed by the name, finished with the SplitMix64 mixer.
std::uint64_t StreamSeed(std::uint64_t scenario_seed, std::string_view component);

class RandomStream {
 public:
  // The four words of state come from SplitMix64 seeded with `seed` (as the xoshiro authors advise),
  // so any seed, 0 included, gives a good state.
  explicit RandomStream(std::uint64_t seed);
  // The stream of `component` in a run with `scenario_seed`.
  static RandomStream ForComponent(std::uint64_t scenario_seed, std::string_view component) {
    return RandomStream(StreamSeed(scenario_seed, component));
  }

  // The next raw 64-bit output.
  std::uint64_t NextU64();

  // Uniform on [0, 1), from the top 53 bits of one output: every multiple of 2^-53 equally likely.
  double Uniform01();
  // Uniform on [lo, hi). REQUIRES: lo <= hi.
  double Uniform(double lo, double hi);
  // Uniform integer in [lo, hi], both ends included, without modulo bias (rejection sampling).
  // REQUIRES: lo <= hi.
  std::int64_t UniformInt(std::int64_t lo, std::int64_t hi);
  // True with probability p (p <= 0: never; p >= 1: always). Always consumes one output.
  bool Bernoulli(double p);
  // Exponentially distributed with the given mean (> 0); the result is >= 0 and finite.
  double Exponential(double mean);
  // Normally distributed (Marsaglia's polar method; the second value of each pair is discarded so
  // that a draw never depends on an earlier one).
  double Normal(double mean, double stddev);
  // exp(Normal(mu, sigma)): mu and sigma are those of the underlying normal.
  double LogNormal(double mu, double sigma);

 private:
  std::uint64_t s_[4];
};

// The streams of one run, created on first use by component name. References stay valid for the
// life of the RandomStreams.
class RandomStreams {
 public:
  explicit RandomStreams(std::uint64_t scenario_seed) : seed_(scenario_seed) {}
  RandomStreams(const RandomStreams&) = delete;
  RandomStreams& operator=(const RandomStreams&) = delete;

  std::uint64_t seed() const { return seed_; }
  RandomStream& Get(std::string_view component);

 private:
  std::uint64_t seed_;
  std::map<std::string, RandomStream, std::less<>> streams_;
};

// The natural logarithm and exponential used by the conversions above, exposed for tests and for
// models that need the same cross-platform guarantee. Within 2 ulp of the correctly rounded
// result (log) and 1 ulp (exp), measured against glibc over millions of arguments.
// DeterministicLog: -infinity at 0, NaN below 0.
double DeterministicLog(double x);
// DeterministicExp: 0 below about -745, +infinity above about 709.78.
double DeterministicExp(double x);

}  // namespace sim
