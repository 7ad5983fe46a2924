// What fairdeck asks of a random engine: std::uniform_random_bit_generator, and for the
// bounded-integer fast path a range that is exactly 2^W values starting at 0.
#pragma once

#include <bit>
#include <concepts>
#include <cstdint>
#include <random>

namespace fairdeck {

template <class E>
concept random_engine = std::uniform_random_bit_generator<std::remove_reference_t<E>>;

// Number of uniform bits one call yields when the range is [0, 2^W - 1]; 0 otherwise.
template <random_engine E>
inline constexpr unsigned engine_bits = [] {
  using R = typename E::result_type;
  if constexpr (E::min() != 0) {
    return 0u;
  } else {
    const auto max = static_cast<std::uint64_t>(E::max());
    if (max == ~std::uint64_t{0}) return 64u;
    return std::has_single_bit(max + 1) ? static_cast<unsigned>(std::countr_zero(max + 1)) : 0u;
  }
  (void)sizeof(R);
}();

// Engines whose every output is W independent fair bits (W >= 1).
template <class E>
concept full_range_engine = random_engine<E> && (engine_bits<E> > 0);

// An engine may replace the unbiased bounded draw with its own historical mapping (legacy
// emulations: Delphi's Random(n), rand() % n ...) by providing native_below(n).
template <class E>
concept has_native_below = requires(E& e, std::uint64_t n) {
  { e.native_below(n) } -> std::convertible_to<std::uint64_t>;
};

}  // namespace fairdeck
