// Exhaustive enumeration of poker hands with incremental keys: each nesting level adds
// one card to the level above's key, so the innermost loop costs one add and one lookup.
#pragma once

#include <bit>
#include <cstdint>
#include <span>

#include "fairdeck/poker/hand_eval.hpp"
#include "fairdeck/poker/internal/rank_states.hpp"

namespace fairdeck::poker {

namespace detail {
template <unsigned Left, class F>
inline void rest(const hand_evaluator& ev, const hand_accumulator& h, std::span<const card_t> deck, std::size_t from,
                 F& f) {
  if constexpr (Left == 1) {
    for (std::size_t i = from; i < deck.size(); ++i) f(ev.eval(h + deck[i]));
  } else {
    for (std::size_t i = from; i + Left <= deck.size(); ++i) rest<Left - 1>(ev, h + deck[i], deck, i + 1, f);
  }
}

// A hand prefix for the full-deck enumeration: rank state, per-suit counts (8 bits each)
// and the card set (for flush masks).
struct prefix {
  std::uint32_t state = internal::rank_states::empty;
  std::uint32_t suits = 0;
  std::uint64_t cards = 0;
};

template <class F>
inline void last_card(const internal::rank_states& rs, const hand_evaluator& ev, const prefix& p, unsigned from, F& f) {
  const strength_t* row = rs.row(p.state);
  unsigned flush_suit = 4, flush_count = 0;  // a suit that 1 more card can make a flush
  // a byte holds a suit's count (at most 6 here): + 0x7c sets its top bit exactly when the count
  // is 4 or more, and never carries into the next byte; at most one suit of 6 cards has 4
  if (const std::uint32_t ge4 = (p.suits + 0x7c7c7c7cu) & 0x80808080u; ge4 != 0) {
    flush_suit = static_cast<unsigned>(std::countr_zero(ge4)) / 8;
    flush_count = (p.suits >> (8 * flush_suit)) & 0xff;
  }
  const unsigned flush_mask = flush_suit < 4 ? static_cast<unsigned>(p.cards >> (13 * flush_suit)) & 0x1fff : 0;
  unsigned r = from % 13;
  for (unsigned s = from / 13; s < 4; ++s, r = 0) {
    if (s == flush_suit) {
      for (; r < 13; ++r) f(ev.by_flush_mask(flush_mask | (1u << r)));
    } else if (flush_count >= 5) {  // already a flush whatever comes
      const strength_t v = ev.by_flush_mask(flush_mask);
      for (; r < 13; ++r) f(v);
    } else {
      for (; r < 13; ++r) f(row[r]);
    }
  }
}

template <unsigned Left, class F>
inline void level(const internal::rank_states& rs, const hand_evaluator& ev, const prefix& p, unsigned from, F& f) {
  if constexpr (Left == 1) {
    last_card(rs, ev, p, from, f);
  } else {
    unsigned c = from, r = from % 13;  // card c = 13 * suit + r, walked by suit and rank (no % and / per card)
    for (unsigned s = from / 13; c + Left <= 52; ++s, r = 0) {
      const std::uint32_t suits = p.suits + (1u << (8 * s));
      for (; r < 13 && c + Left <= 52; ++r, ++c)
        level<Left - 1>(rs, ev, {rs.next(p.state, r), suits, p.cards | (std::uint64_t{1} << c)}, c + 1, f);
    }
  }
}
}  // namespace detail

// Calls f(strength) for every K-card hand of the 52-card deck whose lowest card is
// `first` (0 <= first <= 52 - K); together the `first` values cover each hand once.
// Uses the rank state machine, so each hand costs about one table load.
template <unsigned K, class F>
void for_each_hand(unsigned first, F&& f) {
  static_assert(K >= 5 && K <= 7);
  const auto& rs = internal::rank_states::instance();
  const auto& ev = hand_evaluator::instance();
  const detail::prefix p{rs.next(internal::rank_states::empty, first % 13), 1u << (8 * (first / 13)),
                                   std::uint64_t{1} << first};
  detail::level<K - 1>(rs, ev, p, first + 1, f);
}

// Calls f(strength) for every hand made of `base` plus `Extra` more cards taken from
// `deck` (positions strictly after `from - 1`, in increasing position order). `base` must
// not share cards with `deck`, and base + Extra must be 5..7 cards.
template <unsigned Extra, class F>
void for_each_completion(const hand_accumulator& base, std::span<const card_t> deck, std::size_t from, F&& f) {
  static_assert(Extra >= 1 && Extra <= 7);
  detail::rest<Extra>(hand_evaluator::instance(), base, deck, from, f);
}

// The binomial coefficient C(n, k) (exact for the sizes poker needs).
[[nodiscard]] constexpr std::uint64_t choose(std::uint64_t n, std::uint64_t k) noexcept {
  if (k > n) return 0;
  std::uint64_t r = 1;
  for (std::uint64_t i = 1; i <= k; ++i) r = r * (n - k + i) / i;
  return r;
}

}  // namespace fairdeck::poker
