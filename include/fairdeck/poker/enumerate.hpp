// Exhaustive enumeration of poker hands with incremental keys: each nesting level adds
// one card to the level above's key, so the innermost loop costs one add and one lookup.
#pragma once

#include <cstdint>
#include <span>

#include "fairdeck/poker/hand_eval.hpp"

namespace fairdeck::poker {

namespace enumerate_detail {
template <unsigned Left, class F>
inline void rest(const hand_evaluator& ev, const hand_accumulator& h, std::span<const card_t> deck, std::size_t from,
                 F& f) {
  if constexpr (Left == 1) {
    for (std::size_t i = from; i < deck.size(); ++i) f(ev.eval(h + deck[i]));
  } else {
    for (std::size_t i = from; i + Left <= deck.size(); ++i) rest<Left - 1>(ev, h + deck[i], deck, i + 1, f);
  }
}
}  // namespace enumerate_detail

// Calls f(strength) for every hand made of `base` plus `Extra` more cards taken from
// `deck` (positions strictly after `from - 1`, in increasing position order). `base` must
// not share cards with `deck`, and base + Extra must be 5..7 cards.
template <unsigned Extra, class F>
void for_each_completion(const hand_accumulator& base, std::span<const card_t> deck, std::size_t from, F&& f) {
  static_assert(Extra >= 1 && Extra <= 7);
  enumerate_detail::rest<Extra>(hand_evaluator::instance(), base, deck, from, f);
}

// The binomial coefficient C(n, k) (exact for the sizes poker needs).
[[nodiscard]] constexpr std::uint64_t choose(std::uint64_t n, std::uint64_t k) noexcept {
  if (k > n) return 0;
  std::uint64_t r = 1;
  for (std::uint64_t i = 1; i <= k; ++i) r = r * (n - k + i) / i;
  return r;
}

}  // namespace fairdeck::poker
