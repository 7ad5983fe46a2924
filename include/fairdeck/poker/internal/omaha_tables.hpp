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

namespace detail {
// Per card: fairdeck rank, low rank bit (ace 1 .. eight 128, 0 above), and a 4-bit counter
// per suit (a board's sum plus 0x5555 has bit 3 of a counter set iff that suit has 3+ cards).
struct card_info {
  std::uint8_t rank;
  std::uint8_t low;
  std::uint16_t suit;
};
constexpr std::array<card_info, 52> make_card_info() {
  std::array<card_info, 52> t{};
  for (card_t c = 0; c < 52; ++c)
    t[c] = {static_cast<std::uint8_t>(rank_of(c)), static_cast<std::uint8_t>(rank_of(c) <= 7 ? 1u << rank_of(c) : 0u),
            static_cast<std::uint16_t>(1u << (4 * suit_of(c)))};
  return t;
}
inline constexpr std::array<card_info, 52> card_info_table = make_card_info();

constexpr unsigned rank_pair_column(unsigned p, unsigned q) { return p > q ? p * (p + 1) / 2 + q : q * (q + 1) / 2 + p; }
constexpr std::array<std::uint8_t, 52 * 52> make_pair_column() {
  std::array<std::uint8_t, 52 * 52> t{};
  for (card_t a = 0; a < 52; ++a)
    for (card_t b = 0; b < 52; ++b) t[a * 52u + b] = static_cast<std::uint8_t>(rank_pair_column(rank_of(a), rank_of(b)));
  return t;
}
inline constexpr std::array<std::uint8_t, 52 * 52> pair_column_table = make_pair_column();

// colex[i][r] = C(r + i, i + 1): the i-th smallest rank r of a multiset maps to the strictly
// increasing r + i (Knuth, TAOCP 7.2.1.3, the combinatorial number system).
constexpr std::array<std::array<std::uint16_t, 13>, 5> make_colex() {
  std::array<std::array<std::uint16_t, 13>, 5> t{};
  for (unsigned i = 0; i < 5; ++i)
    for (unsigned r = 0; r < 13; ++r) {
      unsigned n = r + i, c = 1;
      for (unsigned j = 1; j <= i + 1; ++j) c = j > n + 1 ? 0 : c * (n + 1 - j) / j;
      t[i][r] = static_cast<std::uint16_t>(c);
    }
  return t;
}
inline constexpr auto colex = make_colex();
static_assert(colex[0][12] + colex[1][12] + colex[2][12] + colex[3][12] + colex[4][12] == 6187);  // C(17,5) - 1
static_assert(colex[4][0] == 0 && colex[2][1] == 1 && colex[4][1] == 1 && colex[1][2] == 3);
}  // namespace detail

class omaha_tables {
 public:
  static constexpr unsigned rank_pairs = 91;
  static constexpr unsigned board_multisets = 6188;  // C(17, 5)

  [[nodiscard]] static const omaha_tables& instance();

  // Row of best non-flush strengths for a board (five cards, any order).
  [[nodiscard]] const strength_t* high_row(const card_t* board) const noexcept { return &high_[board_id(board) * rank_pairs]; }
  // Column in a row for two hole cards (card indices, any order).
  [[nodiscard]] static unsigned pair_column(card_t a, card_t b) noexcept { return detail::pair_column_table[a * 52u + b]; }
  // Best low (omaha.hpp low_t: 256 - rank mask, 0 = none) from the two low rank sets.
  [[nodiscard]] std::uint8_t low(unsigned board_low_set, unsigned hole_low_set) const noexcept {
    return low_[board_low_set << 8 | hole_low_set];
  }

  // Colex index of the board's rank multiset, in [0, board_multisets).
  [[nodiscard]] static unsigned board_id(const card_t* b) noexcept {
    const auto& ci = detail::card_info_table;
    unsigned r0 = ci[b[0]].rank, r1 = ci[b[1]].rank, r2 = ci[b[2]].rank, r3 = ci[b[3]].rank, r4 = ci[b[4]].rank;
    // Optimal 9-comparator sorting network for five inputs (Knuth, TAOCP 5.3.4), branch-free.
    auto cs = [](unsigned& x, unsigned& y) {
      const unsigned lo = x < y ? x : y, hi = x < y ? y : x;
      x = lo;
      y = hi;
    };
    cs(r0, r1), cs(r3, r4), cs(r2, r4), cs(r2, r3), cs(r0, r3), cs(r0, r2), cs(r1, r4), cs(r1, r3), cs(r1, r2);
    const auto& cx = detail::colex;
    return cx[0][r0] + cx[1][r1] + cx[2][r2] + cx[3][r3] + cx[4][r4];
  }

  omaha_tables(const omaha_tables&) = delete;
  omaha_tables& operator=(const omaha_tables&) = delete;

 private:
  omaha_tables();
  std::vector<strength_t> high_;
  std::vector<std::uint8_t> low_;
};

}  // namespace fairdeck::poker::internal
