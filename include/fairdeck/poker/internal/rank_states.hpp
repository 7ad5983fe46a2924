// Rank-multiset state machine for exhaustive enumeration (the idea of the "two plus two"
// 7-card evaluator, applied to ranks only, so it is small: 26,950 states). A state is a
// multiset of up to 6 ranks; next(state, rank) adds a card's rank; row(state) lists the
// non-flush strength of state + one more rank for each rank, so the innermost loop of an
// enumeration is a single load from a 13-entry row. Flushes are handled by the caller
// (hand_evaluator::by_flush_mask).
#pragma once

#include <cstdint>
#include <vector>

#include "fairdeck/poker/hand_eval.hpp"

namespace fairdeck::poker::internal {

class rank_states {
 public:
  [[nodiscard]] static const rank_states& instance();
  static constexpr std::uint32_t empty = 0;

  // Ranks are fairdeck ranks (rank_of(card): 0 = ace .. 12 = king).
  [[nodiscard]] std::uint32_t next(std::uint32_t state, unsigned rank) const noexcept { return next_[state * 13 + rank]; }
  // For states of 4..6 ranks: strengths of the 5..7-rank multisets one card later (0 where
  // the rank already appears four times).
  [[nodiscard]] const strength_t* row(std::uint32_t state) const noexcept { return &row_[(state - first_row_state_) * 13]; }
  [[nodiscard]] std::uint32_t states() const noexcept { return states_; }

  rank_states(const rank_states&) = delete;
  rank_states& operator=(const rank_states&) = delete;

 private:
  rank_states();
  std::uint32_t states_ = 0;
  std::uint32_t first_row_state_ = 0;
  std::vector<std::uint32_t> next_;
  std::vector<strength_t> row_;
};

}  // namespace fairdeck::poker::internal
