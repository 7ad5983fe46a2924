// Depth-first enumeration of consistent hole-card assignments: one combo per player, no
// card shared with the known cards or another player.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "fairdeck/poker/range.hpp"

namespace fairdeck::poker::internal {

// Calls f(indices) with indices[p] = position of player p's combo in ranges[p]; f returns
// false to stop (then this returns false).
template <class F>
bool for_each_assignment(const std::vector<std::vector<hole_cards>>& ranges, std::size_t p, std::uint64_t used,
                         std::vector<std::uint32_t>& cur, F& f) {
  if (p == ranges.size()) return f(std::as_const(cur));
  for (std::size_t i = 0; i < ranges[p].size(); ++i) {
    const auto& h = ranges[p][i];
    if (used & card_bits(h)) continue;
    cur[p] = static_cast<std::uint32_t>(i);
    if (!for_each_assignment(ranges, p + 1, used | card_bits(h), cur, f)) return false;
  }
  return true;
}

}  // namespace fairdeck::poker::internal
