// xoshiro256++ 1.0: Blackman & Vigna, "Scrambled Linear Pseudorandom Number Generators",
// ACM TOMS 47(4), 2021. Fast, 256-bit state, not cryptographic.
#pragma once

#include <array>
#include <bit>
#include <cstdint>

#include "fairdeck/random/splitmix64.hpp"

namespace fairdeck {

class xoshiro256pp {
 public:
  using result_type = std::uint64_t;

  // State = four SplitMix64 outputs from `seed` (never all zero).
  explicit xoshiro256pp(std::uint64_t seed) noexcept {
    splitmix64 sm(seed);
    for (auto& w : s_) w = sm();
  }
  explicit xoshiro256pp(const std::array<std::uint64_t, 4>& state) noexcept : s_(state) {}

  xoshiro256pp(const xoshiro256pp&) = delete;
  xoshiro256pp& operator=(const xoshiro256pp&) = delete;
  xoshiro256pp(xoshiro256pp&&) noexcept = default;
  xoshiro256pp& operator=(xoshiro256pp&&) noexcept = default;

  static constexpr result_type min() noexcept { return 0; }
  static constexpr result_type max() noexcept { return ~result_type{0}; }

  result_type operator()() noexcept {
    const std::uint64_t result = std::rotl(s_[0] + s_[3], 23) + s_[0];
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = std::rotl(s_[3], 45);
    return result;
  }

  // Advances 2^128 calls: 2^128 non-overlapping subsequences for parallel streams.
  void jump() noexcept {
    constexpr std::uint64_t poly[] = {0x180ec6d33cfd0abaULL, 0xd5a61266f0c9392cULL, 0xa9582618e03fc9aaULL,
                                      0x39abdc4529b1661cULL};
    std::array<std::uint64_t, 4> acc{};
    for (std::uint64_t p : poly)
      for (int b = 0; b < 64; ++b) {
        if (p & (std::uint64_t{1} << b))
          for (int i = 0; i < 4; ++i) acc[i] ^= s_[i];
        (*this)();
      }
    s_ = acc;
  }

 private:
  std::array<std::uint64_t, 4> s_;
};

}  // namespace fairdeck
