// Exact equity when every player holds one known hand (no ranges, no weights), e.g.
// `AhKh QsQd` or `AhKh QsQd 7c6c`. Without flushes a showdown depends only on the board's
// ranks, so boards are counted by rank multiset (weight: product of binomials of the
// available cards per rank) with a rank_states walk per hand; boards where some hand makes a
// flush are then corrected exactly (true showdown minus the rank-only one). Every count is the
// same integer as a plain loop over all boards; src/poker/equity_fixed.cpp has the details.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "fairdeck/poker/equity.hpp"

namespace fairdeck::poker::internal {

// `in` is prepared (equity.hpp) with exactly one combo per player; `total` is the number of
// completions.
[[nodiscard]] equity_result fixed_hands_equity(const equity_input& in, std::uint64_t total, unsigned threads,
                                               const run_control& rc);

// Several hole-card assignments of `in`'s players, each solved as fixed hands (its own
// completion deck: every card but the board, the dead cards and its hole cards) and counted
// `weight` times: the exact sums over assignments x boards when the weights are the sizes of
// the assignments' suit-symmetry orbits (equity_assignments.cpp) - the same integers as the
// board-major enumeration. Unweighted ranges only. `total` = sum of weights x completions.
struct fixed_assignment {
  std::vector<hole_cards> holes;  // one per player
  std::uint64_t weight = 1;
};
[[nodiscard]] equity_result fixed_assignments_equity(const equity_input& in, std::span<const fixed_assignment> assignments,
                                                     std::uint64_t total, unsigned threads, const run_control& rc);

}  // namespace fairdeck::poker::internal
