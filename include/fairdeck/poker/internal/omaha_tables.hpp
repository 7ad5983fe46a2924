// Lookup tables for the Omaha evaluator (omaha.hpp): exactly two hole cards and exactly three
// board cards make the hand.
//
// High, no flush: a five-card hand without a flush is judged by its ranks alone, so the best
// non-flush hand from a hole pair and a board depends only on the pair's two ranks and the
// board's rank multiset. The table holds, for each of the C(17,5) = 6,188 multisets of five
// ranks (colex rank of the sorted ranks r0 <= .. <= r4 mapped to r_i + i; the 13 "five of a
// rank" slots stay unused) a row of 91 entries, one per unordered rank pair: the best
// strength over the board's ten triples. A PLO4 hand is then 6 loads from one 182-byte row
// (three cache lines), PLO5 10 loads, instead of 60 / 100 hash lookups. Entries that would
// need five cards of one rank are 0 (they cannot occur with one deck).
// Flushes (a suit with 3+ board cards and 2+ hole cards) are added by the caller.
//
// Low, 8 or better: only the sets of distinct low ranks matter (ace..eight as bits 0..7), so
// the best low is a 256 x 256 byte table indexed by (board low set, hole low set):
// 256 - (smallest 3-subset of the board set | disjoint 2-subset of the hole set), 0 if none.
//
// Built on first use from hand_evaluator (about 30 ms); tests check the evaluator that uses
// them against a brute force over all 2 + 3 choices.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "fairdeck/cards/card.hpp"
#include "fairdeck/poker/hand_eval.hpp"

namespace fairdeck::poker::internal {

class omaha_tables {
 public:
  static constexpr unsigned rank_pairs = 91;
  static constexpr unsigned board_multisets = 6188;  // C(17, 5)

  [[nodiscard]] static const omaha_tables& instance();

  // Row of best non-flush strengths for a board (five cards, any order).
  [[nodiscard]] const strength_t* high_row(const card_t* board) const noexcept { return &high_[board_id(board) * rank_pairs]; }
  // Column in a row for two hole cards (card indices, any order).
  [[nodiscard]] static unsigned pair_column(card_t a, card_t b) noexcept { return pair_column_[a * 52u + b]; }
  // Best low (omaha.hpp low_t: 256 - rank mask, 0 = none) from the two low rank sets.
  [[nodiscard]] std::uint8_t low(unsigned board_low_set, unsigned hole_low_set) const noexcept {
    return low_[board_low_set << 8 | hole_low_set];
  }
  // Low rank bit of a card (ace 1, deuce 2, ... eight 128; 0 above eight).
  [[nodiscard]] static unsigned low_bit(card_t c) noexcept { return rank_of(c) <= 7 ? 1u << rank_of(c) : 0u; }

  // Colex index of the board's rank multiset, in [0, board_multisets).
  [[nodiscard]] static unsigned board_id(const card_t* board) noexcept;

  omaha_tables(const omaha_tables&) = delete;
  omaha_tables& operator=(const omaha_tables&) = delete;

 private:
  omaha_tables();
  static const std::array<std::uint8_t, 52 * 52> pair_column_;
  std::vector<strength_t> high_;
  std::vector<std::uint8_t> low_;
};

}  // namespace fairdeck::poker::internal
