// Fisher–Yates shuffle, Durstenfeld's in-place form (Knuth TAOCP vol. 2, Algorithm P).
#pragma once

#include <cstdint>
#include <iterator>
#include <ranges>
#include <utility>

#include "fairdeck/random/batched.hpp"
#include "fairdeck/random/bounded.hpp"

namespace fairdeck {

// Uniform over all n! orders (given an exact bounded draw and an ideal engine).
// For i = n-1 down to 1: swap r[i] with r[uniform_below(i+1)].
// Time O(n); n-1 bounded draws (each usually one engine call).
// Fast path: engines with full 64-bit words and no native_below roll several of those
// indices from one word (batched.hpp, Brackett-Rozinsky & Lemire 2024): still exactly
// uniform, 52 cards take 5 words instead of 51, but the orders for a given seed differ
// from the one-index-per-word loop (which narrower engines and legacy emulations keep).
template <std::ranges::random_access_range R, random_engine E>
  requires std::permutable<std::ranges::iterator_t<R>>
void fisher_yates(R&& r, E& engine) {
  auto first = std::ranges::begin(r);
  const auto n = static_cast<std::uint64_t>(std::ranges::distance(r));
  if constexpr (batchable_engine<E>) {
    batched::fisher_yates<64>(first, n, batched::engine_words<E>{engine});
  } else {
    for (std::uint64_t i = n; i > 1; --i) {
      const auto j = draw_below(engine, i);
      std::ranges::iter_swap(first + static_cast<std::ptrdiff_t>(i - 1), first + static_cast<std::ptrdiff_t>(j));
    }
  }
}

}  // namespace fairdeck
