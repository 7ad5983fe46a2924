// Exactly uniform integers in [0, n).
//
// Lemire, "Fast Random Integer Generation in an Interval", ACM TOMACS 29(1), 2019:
// multiply a W-bit draw by n, keep the high W bits, reject the few low parts below
// (2^W - n) mod n. Exactly uniform, usually one draw and no division.
#pragma once

#include <cassert>
#include <cstdint>
#include <limits>

#include "fairdeck/random/concepts.hpp"

namespace fairdeck {

namespace detail {
__extension__ using uint128 = unsigned __int128;

// Presents any engine as a source of full-width 64-bit words, exactly: engines with
// 2^W outputs are concatenated; others (e.g. minstd's [1, 2^31-2]) first reject down to
// the largest power of two that fits their range.
template <random_engine E>
std::uint64_t draw_u64(E& e) {
  if constexpr (engine_bits<E> == 64) {
    return static_cast<std::uint64_t>(e());
  } else if constexpr (engine_bits<E> > 0) {
    constexpr unsigned w = engine_bits<E>;
    std::uint64_t out = 0;
    for (unsigned got = 0; got < 64; got += w) out = (out << w) | static_cast<std::uint64_t>(e());
    return out;
  } else {
    constexpr std::uint64_t range = static_cast<std::uint64_t>(E::max() - E::min());  // size - 1
    constexpr unsigned w = static_cast<unsigned>(std::bit_width(range + 1)) - 1;         // 2^w <= size
    static_assert(w >= 1, "engine range too small");
    std::uint64_t out = 0;
    for (unsigned got = 0; got < 64; got += w) {
      std::uint64_t x;
      do x = static_cast<std::uint64_t>(e() - E::min());
      while (x >> w);  // keep only draws in [0, 2^w)
      out = (out << w) | x;
    }
    return out;
  }
}
}  // namespace detail

// Uniform integer in [0, n), n >= 1, from any std::uniform_random_bit_generator.
// Complexity: expected < 1 + n/2^W engine calls; exact for every n (proved exhaustively
// on an 8-bit scripted engine in tests/random_bounded_test.cpp).
template <random_engine E>
[[nodiscard]] std::uint64_t uniform_below(E& e, std::uint64_t n) {
  assert(n >= 1);
  constexpr unsigned w = engine_bits<E>;
  if constexpr (w == 64) {
    detail::uint128 m = detail::uint128{static_cast<std::uint64_t>(e())} * n;
    auto low = static_cast<std::uint64_t>(m);
    if (low < n) {
      const std::uint64_t t = (0 - n) % n;  // 2^64 mod n
      while (low < t) {
        m = detail::uint128{static_cast<std::uint64_t>(e())} * n;
        low = static_cast<std::uint64_t>(m);
      }
    }
    return static_cast<std::uint64_t>(m >> 64);
  } else if constexpr (w > 0 && w <= 32) {
    if (n <= (std::uint64_t{1} << w)) {
      constexpr std::uint64_t mask = (std::uint64_t{1} << w) - 1;
      std::uint64_t m = static_cast<std::uint64_t>(e()) * n;
      std::uint64_t low = m & mask;
      if (low < n) {
        const std::uint64_t t = ((mask + 1) - n) % n;  // 2^w mod n
        while (low < t) {
          m = static_cast<std::uint64_t>(e()) * n;
          low = m & mask;
        }
      }
      return m >> w;
    }
  }
  // Wide bounds on narrow engines, and engines whose range is not a power of two.
  detail::uint128 m = detail::uint128{detail::draw_u64(e)} * n;
  auto low = static_cast<std::uint64_t>(m);
  if (low < n) {
    const std::uint64_t t = (0 - n) % n;
    while (low < t) {
      m = detail::uint128{detail::draw_u64(e)} * n;
      low = static_cast<std::uint64_t>(m);
    }
  }
  return static_cast<std::uint64_t>(m >> 64);
}

// What every fairdeck algorithm calls for "a random index below n": the exact draw above,
// unless the engine is a legacy emulation that brings its historical mapping.
template <random_engine E>
[[nodiscard]] std::uint64_t draw_below(E& e, std::uint64_t n) {
  if constexpr (has_native_below<E>)
    return static_cast<std::uint64_t>(e.native_below(n));
  else
    return uniform_below(e, n);
}

}  // namespace fairdeck
