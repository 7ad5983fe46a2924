// Bit-exact emulations of the generators old card programs used, each with the range
// mapping its library applied (native_below, picked up by draw_below()). For auditing and
// for `fairdeck attack`: none of them is fit to deal cards.
//
// Every engine models std::uniform_random_bit_generator with the vendor's raw output range
// and is cheap to copy into SIMD lanes (the attack keeps arrays of them), except the two
// <random> wrappers.
#pragma once

#include <array>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>

namespace fairdeck {

namespace detail {
// The historical APIs take a signed 32-bit bound (Random(Integer), nextInt(int), Next(int)).
inline void require_int32_bound(std::uint64_t n, const char* api) {
  if (n < 1 || n > 0x7fffffffu)
    throw std::invalid_argument(std::string(api) + " takes a bound in [1, 2147483647], got " + std::to_string(n));
}
}  // namespace detail

// glibc rand()/srand(): the TYPE_3 additive feedback generator of random_r.c (degree 31,
// separation 3, Park–Miller initialisation, 310 discarded outputs), raw rand() in [0, 2^31-1].
// Historical range mapping: rand() % n.
class glibc_rand {
 public:
  using result_type = std::uint32_t;
  explicit constexpr glibc_rand(std::uint32_t seed) noexcept {
    // srandom_r: seed 0 behaves as 1; state[i] = 16807 * state[i-1] mod (2^31-1) by Schrage's
    // method on a signed 32-bit word, exactly as glibc computes it (also for seeds >= 2^31).
    if (seed == 0) seed = 1;
    std::int32_t word = static_cast<std::int32_t>(seed);
    state_[0] = seed;
    for (unsigned i = 1; i < degree; ++i) {
      const std::int64_t hi = word / 127773, lo = word % 127773;
      std::int64_t next = 16807 * lo - 2836 * hi;
      if (next < 0) next += 2147483647;
      word = static_cast<std::int32_t>(next);
      state_[i] = static_cast<std::uint32_t>(word);
    }
    for (unsigned i = 0; i < 10 * degree; ++i) (void)(*this)();
  }
  static constexpr result_type min() noexcept { return 0; }
  static constexpr result_type max() noexcept { return 0x7fffffff; }
  constexpr result_type operator()() noexcept {
    // random_r: *fptr += *rptr; result = value >> 1; fptr = rptr + 3 (mod 31).
    const std::uint32_t v = state_[front_] += state_[rear_];
    front_ = front_ + 1 == degree ? 0 : front_ + 1;
    rear_ = rear_ + 1 == degree ? 0 : rear_ + 1;
    return v >> 1;
  }
  constexpr std::uint64_t native_below(std::uint64_t n) noexcept { return (*this)() % n; }  // rand() % n

 private:
  static constexpr unsigned degree = 31, separation = 3;
  std::array<std::uint32_t, degree> state_{};
  unsigned front_ = separation, rear_ = 0;
};

// Microsoft C runtime rand()/srand(): holdrand = holdrand * 214013 + 2531011, output bits
// 16..30, in [0, 32767]. Historical range mapping: rand() % n.
class msvc_rand {
 public:
  using result_type = std::uint32_t;
  explicit constexpr msvc_rand(std::uint32_t seed) noexcept : state_(seed) {}
  static constexpr result_type min() noexcept { return 0; }
  static constexpr result_type max() noexcept { return 0x7fff; }
  constexpr result_type operator()() noexcept {
    state_ = state_ * 214013u + 2531011u;
    return (state_ >> 16) & 0x7fff;
  }
  constexpr std::uint64_t native_below(std::uint64_t n) noexcept { return (*this)() % n; }

 private:
  std::uint32_t state_;
};

// Borland Delphi / Turbo Pascal Random: RandSeed := RandSeed * $08088405 + 1 (mod 2^32);
// the raw output is the new RandSeed. Random(n) = (RandSeed * n) shr 32 on the new seed.
// Randomize set RandSeed from the clock (Delphi 1-7: milliseconds since midnight).
class delphi_random {
 public:
  using result_type = std::uint32_t;
  explicit constexpr delphi_random(std::uint32_t rand_seed) noexcept : seed_(rand_seed) {}
  static constexpr result_type min() noexcept { return 0; }
  static constexpr result_type max() noexcept { return 0xffffffffu; }
  constexpr result_type operator()() noexcept { return seed_ = seed_ * 0x08088405u + 1u; }
  std::uint64_t native_below(std::uint64_t n) {
    detail::require_int32_bound(n, "Delphi Random(n)");
    return (static_cast<std::uint64_t>((*this)()) * n) >> 32;
  }
  [[nodiscard]] constexpr std::uint32_t rand_seed() const noexcept { return seed_; }

 private:
  std::uint32_t seed_;
};

// java.util.Random: 48-bit LCG, seed scrambled with 0x5DEECE66D; raw output nextInt() as
// unsigned 32 bits (Java prints it signed). native_below is nextInt(bound), with its
// power-of-two case and its rejection loop.
class java_random {
 public:
  using result_type = std::uint32_t;
  explicit constexpr java_random(std::uint64_t seed) noexcept : seed_((seed ^ multiplier) & mask) {}
  static constexpr result_type min() noexcept { return 0; }
  static constexpr result_type max() noexcept { return 0xffffffffu; }
  constexpr result_type operator()() noexcept { return next(32); }
  std::uint64_t native_below(std::uint64_t bound) {
    detail::require_int32_bound(bound, "Java nextInt(bound)");
    std::uint32_t r = next(31);
    const std::uint64_t m = bound - 1;
    if ((bound & m) == 0) return (bound * r) >> 31;
    // for (u = r; u - (r = u % bound) + m < 0; u = next(31)): the int sum overflows exactly
    // when the draw falls in the incomplete last block.
    for (std::uint64_t u = r; u - (r = static_cast<std::uint32_t>(u % bound)) + m > 0x7fffffffu; u = next(31)) {
    }
    return r;
  }
  constexpr std::uint32_t next(unsigned bits) noexcept {
    seed_ = (seed_ * multiplier + 0xB) & mask;
    return static_cast<std::uint32_t>(seed_ >> (48 - bits));
  }

 private:
  static constexpr std::uint64_t multiplier = 0x5DEECE66DULL, mask = (std::uint64_t{1} << 48) - 1;
  std::uint64_t seed_;
};

// .NET Framework System.Random(int seed) (kept by .NET Core as Net5CompatSeedImpl): Knuth's
// subtractive generator as in Numerical Recipes ran3, raw Next() in [0, 2^31-2];
// Next(n) = (int)(Sample() * n) with Sample() = Next() * (1.0 / int.MaxValue).
class dotnet_random {
 public:
  using result_type = std::uint32_t;
  // seed: the Int32 passed to new Random(seed); only |seed| matters (int.MinValue acts as MaxValue).
  explicit dotnet_random(std::int32_t seed) noexcept;
  static constexpr result_type min() noexcept { return 0; }
  static constexpr result_type max() noexcept { return 0x7ffffffe; }
  result_type operator()() noexcept {
    if (++inext_ >= 56) inext_ = 1;
    if (++inextp_ >= 56) inextp_ = 1;
    std::int32_t v = wrapping_sub(seed_array_[inext_], seed_array_[inextp_]);
    if (v == mbig) --v;
    if (v < 0) v += mbig;
    seed_array_[inext_] = v;
    return static_cast<result_type>(v);
  }
  std::uint64_t native_below(std::uint64_t n) {
    detail::require_int32_bound(n, ".NET Random.Next(n)");
    const double sample = (*this)() * (1.0 / mbig);
    return static_cast<std::uint64_t>(sample * static_cast<double>(n));
  }

  // C# int arithmetic is unchecked (wraps); C++ signed overflow is not, so subtract as unsigned.
  static constexpr std::int32_t wrapping_sub(std::int32_t a, std::int32_t b) noexcept {
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) - static_cast<std::uint32_t>(b));
  }

 private:
  static constexpr std::int32_t mbig = 0x7fffffff;
  std::array<std::int32_t, 56> seed_array_{};
  int inext_ = 0, inextp_ = 21;
};

// std::mt19937 with a 32-bit seed (standard seeding). Range mapping: mt() % n, the common
// hand-written form (std::uniform_int_distribution differs between standard libraries).
class mt19937_32 {
 public:
  using result_type = std::uint32_t;
  explicit mt19937_32(std::uint32_t seed) : g_(seed) {}
  mt19937_32(const mt19937_32&) = delete;
  mt19937_32& operator=(const mt19937_32&) = delete;
  mt19937_32(mt19937_32&&) noexcept = default;
  mt19937_32& operator=(mt19937_32&&) noexcept = default;
  static constexpr result_type min() noexcept { return 0; }
  static constexpr result_type max() noexcept { return 0xffffffffu; }
  result_type operator()() { return static_cast<result_type>(g_()); }
  std::uint64_t native_below(std::uint64_t n) { return (*this)() % n; }

 private:
  std::mt19937 g_;
};

// The minimal-standard Lehmer generators x = a x mod (2^31-1) (Park & Miller 1988, "Random
// number generators: good ones are hard to find", CACM 31(10); a = 48271 from Park, Miller &
// Stockmeyer 1993), outputs in [1, 2^31-2]; seed mod (2^31-1) == 0 becomes 1, as
// std::linear_congruential_engine seeds. Range mapping: minstd() % n.
template <std::uint32_t Multiplier>
class park_miller {
 public:
  using result_type = std::uint32_t;
  explicit constexpr park_miller(std::uint32_t seed) noexcept
      : x_(seed % modulus == 0 ? 1u : static_cast<std::uint32_t>(seed % modulus)) {}
  static constexpr result_type min() noexcept { return 1; }
  static constexpr result_type max() noexcept { return modulus - 1; }
  constexpr result_type operator()() noexcept {
    x_ = static_cast<std::uint32_t>(std::uint64_t{x_} * Multiplier % modulus);
    return x_;
  }
  constexpr std::uint64_t native_below(std::uint64_t n) noexcept { return (*this)() % n; }

 private:
  static constexpr std::uint32_t modulus = 0x7fffffff;
  std::uint32_t x_;
};
using minstd_rand = park_miller<48271>;   // std::minstd_rand
using minstd_rand0 = park_miller<16807>;  // std::minstd_rand0 (libstdc++'s default_random_engine)

}  // namespace fairdeck
