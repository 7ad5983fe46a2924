// Sort-by-random-keys shuffle: tag each item with a random key and sort by key (as in
// "ORDER BY RAND()" or sorting on a column of random numbers). Uniform only when the keys are
// distinct: with duplicate keys a stable sort keeps tied items in their original order, so
// small or colliding keys bias it towards the starting order. Here keys are 64-bit and a
// collision draws them all again.
#pragma once

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <ranges>
#include <utility>
#include <vector>

#include "fairdeck/random/bounded.hpp"

namespace fairdeck {

// Uniform over all n! orders: with distinct keys every order of keys is equally likely.
// A tie would favour the original order, so when any two keys collide all keys are drawn
// again (probability < n^2 / 2^65 per attempt). Time O(n log n); n engine words per
// attempt (64-bit words, see detail::draw_u64); O(n) extra memory.
template <std::ranges::random_access_range R, random_engine E>
  requires std::permutable<std::ranges::iterator_t<R>>
void sort_shuffle(R&& r, E& engine) {
  using value_t = std::ranges::range_value_t<R>;
  const auto n = static_cast<std::size_t>(std::ranges::distance(r));
  std::vector<std::pair<std::uint64_t, std::size_t>> keys(n);
  auto same_key = [](const auto& a, const auto& b) { return a.first == b.first; };
  do {
    for (std::size_t i = 0; i < n; ++i) keys[i] = {detail::draw_u64(engine), i};
    std::ranges::sort(keys);
  } while (std::adjacent_find(keys.begin(), keys.end(), same_key) != keys.end());

  std::vector<value_t> items;
  items.reserve(n);
  for (auto&& v : r) items.push_back(std::move(v));
  auto out = std::ranges::begin(r);
  for (const auto& k : keys) *out++ = std::move(items[k.second]);
}

}  // namespace fairdeck
