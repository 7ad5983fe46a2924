// Partial shuffle: shuffle only the k cards you deal, i.e. stop the Fisher-Yates/Durstenfeld
// loop (Durstenfeld, "Algorithm 235: Random permutation", CACM 7(7), 1964; Knuth, TAOCP
// vol. 2, section 3.4.2, Algorithm P) after k steps, as Rust rand's
// SliceRandom::partial_shuffle does. The k cards are a uniform ordered sample whatever order
// the deck was in, so a deck can be reused from deal to deal without resetting it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <ranges>
#include <stdexcept>

#include "fairdeck/random/batched.hpp"
#include "fairdeck/random/bounded.hpp"

namespace fairdeck {

// The dealt prefix [first, first + k). A minimal view (not std::ranges::subrange, which
// clang 14 cannot instantiate with libstdc++ 12).
template <std::random_access_iterator It>
struct dealt_cards {
  It first;
  It last;
  [[nodiscard]] It begin() const { return first; }
  [[nodiscard]] It end() const { return last; }
  [[nodiscard]] std::size_t size() const { return static_cast<std::size_t>(last - first); }
  [[nodiscard]] decltype(auto) operator[](std::size_t i) const { return first[static_cast<std::ptrdiff_t>(i)]; }
};

// Forward Fisher–Yates stopped after k steps: for i = 0..k-1 swap r[i] with
// r[i + uniform_below(n - i)]. Afterwards r[0..k) is a uniformly random k-permutation of
// the whole range, whatever order the range was in before, so a Monte Carlo loop may
// call it again on the same, already partly shuffled, deck (exact: tests enumerate it).
// Time O(k); min(k, n-1) bounded draws. Returns the dealt prefix r[0..k).
// k > n throws std::out_of_range (never a silent clamp).
template <std::ranges::random_access_range R, random_engine E>
  requires std::permutable<std::ranges::iterator_t<R>>
auto partial_shuffle(R&& r, std::uint64_t k, E& engine) {
  auto first = std::ranges::begin(r);
  const auto n = static_cast<std::uint64_t>(std::ranges::distance(r));
  if (k > n) throw std::out_of_range("partial_shuffle: k exceeds the range size");
  const std::uint64_t steps = k < n ? k : n - (n > 0);  // the last position needs no draw
  if constexpr (batchable_engine<E>) {
    // Several dice per word (batched.hpp): 7 cards of 52 from one 64-bit word; same
    // guarantee, different (still exact) indices than one draw per card.
    batched::partial_fisher_yates<64>(first, n, steps, batched::engine_words<E>{engine});
  } else {
    for (std::uint64_t i = 0; i < steps; ++i) {
      const auto j = i + draw_below(engine, n - i);
      std::ranges::iter_swap(first + static_cast<std::ptrdiff_t>(i), first + static_cast<std::ptrdiff_t>(j));
    }
  }
  return dealt_cards<decltype(first)>{first, first + static_cast<std::ptrdiff_t>(k)};
}

}  // namespace fairdeck
