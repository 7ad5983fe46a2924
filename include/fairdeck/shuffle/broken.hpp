// Shuffles kept for teaching and auditing: both are BIASED. Never use them to deal.
#pragma once

#include <cstdint>
#include <iterator>
#include <ranges>

#include "fairdeck/random/bounded.hpp"

namespace fairdeck {

// The naive "swap each card with any card" shuffle (Jeff Atwood, "The Danger of Naivete",
// Coding Horror, 2007): for i = 0..n-1 swap r[i] with r[uniform_below(n)]. BIASED: n^n equally likely draw paths cannot map evenly
// onto n! orders (n = 3: 27 paths, orders hit 4,5,5,5,4,4 times). n bounded draws.
template <std::ranges::random_access_range R, random_engine E>
  requires std::permutable<std::ranges::iterator_t<R>>
void naive_shuffle(R&& r, E& engine) {
  auto first = std::ranges::begin(r);
  const auto n = static_cast<std::uint64_t>(std::ranges::distance(r));
  for (std::uint64_t i = 0; i < n; ++i)
    std::ranges::iter_swap(first + static_cast<std::ptrdiff_t>(i),
                           first + static_cast<std::ptrdiff_t>(draw_below(engine, n)));
}

// The 1999 Planet Poker loop (ASF Software): "for ctr = 1 to 52: swap card[ctr] with
// card[random(51)+1]". 0-based: for i = 0..n-1 swap r[i] with r[draw_below(n-1)].
// BROKEN twice: the naive bias, and the last card can never stay last (it is always swapped
// into [0, n-1)). Historically fed by Delphi's Random seeded with the time of day.
// n bounded draws; needs n >= 2.
template <std::ranges::random_access_range R, random_engine E>
  requires std::permutable<std::ranges::iterator_t<R>>
void asf1999_shuffle(R&& r, E& engine) {
  auto first = std::ranges::begin(r);
  const auto n = static_cast<std::uint64_t>(std::ranges::distance(r));
  if (n < 2) return;
  for (std::uint64_t i = 0; i < n; ++i)
    std::ranges::iter_swap(first + static_cast<std::ptrdiff_t>(i),
                           first + static_cast<std::ptrdiff_t>(draw_below(engine, n - 1)));
}

}  // namespace fairdeck
