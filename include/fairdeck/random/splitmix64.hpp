// SplitMix64: Steele, Lea & Flood, "Fast Splittable Pseudorandom Number Generators",
// OOPSLA 2014. Used to expand a 64-bit seed into engine state, as xoshiro's authors advise.
#pragma once

#include <cstdint>

namespace fairdeck {

class splitmix64 {
 public:
  using result_type = std::uint64_t;
  explicit constexpr splitmix64(std::uint64_t seed) noexcept : state_(seed) {}
  static constexpr result_type min() noexcept { return 0; }
  static constexpr result_type max() noexcept { return ~result_type{0}; }
  constexpr result_type operator()() noexcept { return mix(state_ += 0x9e3779b97f4a7c15ULL); }

  // The finaliser alone: a bijective 64-bit hash.
  static constexpr std::uint64_t mix(std::uint64_t z) noexcept {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

 private:
  std::uint64_t state_;
};

// Seed of stream `s` derived from a user seed: stream 0 is the seed itself, so a
// single-stream run and stream 0 of a parallel run agree.
constexpr std::uint64_t stream_seed(std::uint64_t seed, std::uint64_t stream) noexcept {
  return stream == 0 ? seed : splitmix64::mix(seed ^ splitmix64::mix(stream + 0x632be59bd9b4e019ULL));
}

}  // namespace fairdeck
