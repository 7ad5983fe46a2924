// Exact hold'em equity (equity_exact.cpp), part 1: the plan — every consistent hole-card
// assignment listed once, the cards a board completion may use, and the suit permutations
// that leave the input unchanged (for suit isomorphism). Internal to src/poker.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "fairdeck/poker/equity.hpp"
#include "fairdeck/poker/internal/fixed_hands.hpp"
#include "fairdeck/poker/internal/rank_states.hpp"
#include "fairdeck/poker/internal/suit_symmetry.hpp"

namespace fairdeck::poker::detail {

using internal::rank_states;

struct combo_info {
  std::uint64_t mask;
  std::uint8_t r1, r2;  // fairdeck ranks
  std::uint8_t s1, s2;  // suits
};

struct board_state {
  std::uint32_t ranks = rank_states::empty;
  std::array<std::uint8_t, 4> suits{};
  std::uint64_t mask = 0;
};

[[nodiscard]] inline board_state add(const rank_states& rs, const board_state& b, card_t c) noexcept {
  board_state out{rs.next(b.ranks, rank_of(c)), b.suits, b.mask | card_bit(c)};
  ++out.suits[suit_of(c)];
  return out;
}

struct plan {
  std::size_t n = 0;
  unsigned need = 0;
  bool weighted = false;
  int fixed = -1;                       // heads-up with one fixed hand: that player
  std::vector<combo_info> combos;       // every combo some player may hold, once
  std::vector<std::uint16_t> ids;       // assignments: n combo ids each
  std::vector<std::uint64_t> masks;     // assignments: their cards
  std::vector<double> weights;          // assignments: product of weight fractions (weighted only)
  std::vector<card_t> deck;             // cards a completion may use
  board_state board0;
  std::uint64_t assignments = 0;
};

// Lists the assignments (throws std::invalid_argument past max_exact_assignments or when no
// deal is possible) and the completion deck.
plan make_plan(const equity_input& in);

// The suit permutations (without the identity) that leave board, dead cards and every
// player's weighted range unchanged.
std::vector<internal::suit_perm> input_symmetries(const equity_input& in);

// One assignment per orbit of the symmetry group `group` (input_symmetries) acting on the
// plan's assignments, weighted by the orbit's size (|G| / |stabiliser|, the orbit-stabiliser
// theorem): a suit permutation that maps the input onto itself maps an assignment's outcomes
// one-to-one onto its image's, so the weighted sum over representatives equals the sum over
// all assignments. The representative is the assignment whose per-player card masks are
// lexicographically smallest among its images. Unweighted plans only.
std::vector<internal::fixed_assignment> assignment_orbits(const plan& pl, const std::vector<internal::suit_perm>& group);

}  // namespace fairdeck::poker::detail
