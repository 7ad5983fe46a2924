// Go 1.19 math/rand's rngSource (src/math/rand/rng.go): an additive lagged Fibonacci
// generator x[n] = x[n-607] + x[n-273] (mod 2^64) after Mitchell and Reeds, seeded by a
// Lehmer LCG (x = x * 48271 mod 2^31-1) XORed with the 607 "cooked" words. Shared by the
// emulation (src/runtimes/go.cpp) and the seed search (src/security/attack_go.cpp).
#pragma once

#include <array>
#include <cstdint>

namespace fairdeck::runtimes::go {

inline constexpr unsigned rng_len = 607, rng_tap = 273;
inline constexpr std::uint32_t int32max = 0x7fffffff;  // 2^31 - 1, the LCG modulus

extern const std::array<std::uint64_t, rng_len> rng_cooked;

// rand.NewSource(S)'s reduction: S as int64, S % (2^31-1) made non-negative, 0 -> 89482311.
// The result, in [1, 2^31-2], is the whole state the 64-bit seed selects.
constexpr std::uint32_t reduce_seed(std::uint64_t seed) noexcept {
  std::int64_t s = static_cast<std::int64_t>(seed) % std::int64_t{int32max};
  if (s < 0) s += int32max;
  if (s == 0) s = 89482311;
  return static_cast<std::uint32_t>(s);
}

// seedrand: x * 48271 mod (2^31 - 1) (Go computes it with Schrage's method; same value).
constexpr std::uint32_t seedrand(std::uint32_t x) noexcept {
  return static_cast<std::uint32_t>(std::uint64_t{x} * 48271u % int32max);
}

class source {
 public:
  explicit source(std::uint64_t seed) noexcept {
    std::uint32_t x = reduce_seed(seed);
    for (int i = -20; i < static_cast<int>(rng_len); ++i) {
      x = seedrand(x);
      if (i >= 0) {
        std::uint64_t u = std::uint64_t{x} << 40;
        x = seedrand(x);
        u ^= std::uint64_t{x} << 20;
        x = seedrand(x);
        u ^= x;
        u ^= rng_cooked[static_cast<unsigned>(i)];
        vec_[static_cast<unsigned>(i)] = u;
      }
    }
  }
  std::uint64_t uint64() noexcept {
    tap_ = tap_ == 0 ? rng_len - 1 : tap_ - 1;
    feed_ = feed_ == 0 ? rng_len - 1 : feed_ - 1;
    return vec_[feed_] += vec_[tap_];
  }
  std::uint64_t int63() noexcept { return uint64() & 0x7fffffffffffffffu; }
  std::uint32_t uint32() noexcept { return static_cast<std::uint32_t>(int63() >> 31); }
  // Rand.int31n (Lemire's multiply-shift with rejection), n in [1, 2^31-1].
  std::uint32_t int31n(std::uint32_t n) noexcept {
    std::uint64_t prod = std::uint64_t{uint32()} * n;
    auto low = static_cast<std::uint32_t>(prod);
    if (low < n) {
      const std::uint32_t thresh = (0u - n) % n;
      while (low < thresh) {
        prod = std::uint64_t{uint32()} * n;
        low = static_cast<std::uint32_t>(prod);
      }
    }
    return static_cast<std::uint32_t>(prod >> 32);
  }

 private:
  std::array<std::uint64_t, rng_len> vec_{};
  unsigned tap_ = 0, feed_ = rng_len - rng_tap;
};

}  // namespace fairdeck::runtimes::go
