// Omaha: PLO4 / PLO5 (4 or 5 hole cards; a hand is exactly two hole cards plus exactly three
// board cards), high only or hi/lo 8-or-better, evaluation and equity (exact and Monte Carlo)
// for 2..10 fixed hands.
//
// High: the best of the C(h, 2) x C(5, 3) five-card hands by hand_evaluator's order. Without
// a flush only ranks matter: a prepared board points at its row of internal::omaha_tables
// (best strength per hole rank pair over its ten triples), so a hand is C(h, 2) loads from one
// 182-byte row; flush candidates (a suit with 3+ board cards and 2+ hole cards) are added
// from the flush table.
// Low (8 or better): five distinct ranks from ace (low) to eight, two from the hand and three
// from the board; straights and flushes do not count. As a set of ranks (bit 0 = ace ...
// bit 7 = eight) two lows compare like the numbers their bit masks spell (highest card first),
// so the best low is the smallest mask over disjoint (hole pair, board triple) pairs; it
// depends only on the two sets of distinct low ranks, one load from a 64 KB table.
// Hi/lo pots: half to the best high and half to the best low (ties split each half, so a
// pot can be quartered); with no qualifying low the high takes all. Shares are counted in
// 1/omaha_pot_units of a pot (2 x 2520), always whole numbers.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <span>
#include <vector>

#include "fairdeck/poker/equity.hpp"
#include "fairdeck/poker/hand_eval.hpp"
#include "fairdeck/poker/internal/omaha_tables.hpp"

namespace fairdeck::poker {

struct omaha_rules {
  unsigned hole_cards = 4;  // 4 (PLO) or 5 (PLO5)
  bool hi_lo = false;       // 8-or-better split pot
};

inline constexpr std::uint64_t omaha_pot_units = 2 * pot_units;

// Low value: 0 = no qualifying low; otherwise 256 - rank mask, so higher is better.
using low_t = std::uint16_t;

// A complete 5-card board, prepared for evaluating many Omaha hands (unchecked hot path:
// distinct cards in [0, 52); omaha_high / omaha_low below check their input).
class omaha_board {
 public:
  explicit omaha_board(std::span<const card_t, 5> b) noexcept : tables_(&internal::omaha_tables::instance()) {
    const auto& ci = internal::detail::card_info_table;
    row_ = tables_->high_row(b.data());
    unsigned suits = 0x5555;
    std::uint64_t cards = 0;
    for (card_t c : b) {
      suits += ci[c].suit;
      low_set_ |= ci[c].low;
      cards |= std::uint64_t{1} << c;
    }
    if (const unsigned f = suits & 0x8888) [[unlikely]] {  // 3+ cards of one suit (at most one such suit)
      flush_shift_ = 13 * (static_cast<unsigned>(std::countr_zero(f)) >> 2);
      flush_board_ = static_cast<unsigned>(cards >> flush_shift_) & 0x1fff;
    }
  }
  // Best high strength of a hand of 2..5 hole cards (exactly two used).
  [[nodiscard]] strength_t high(std::span<const card_t> hole) const noexcept {
    switch (hole.size()) {
      case 4: return high_n<4>(hole.data());
      case 5: return high_n<5>(hole.data());
      default: return high_any(hole);
    }
  }
  // Best 8-or-better low (0 if none).
  [[nodiscard]] low_t low(std::span<const card_t> hole) const noexcept {
    unsigned hole_set = 0;
    for (card_t c : hole) hole_set |= internal::detail::card_info_table[c].low;
    return tables_->low(low_set_, hole_set);
  }

 private:
  template <std::size_t H>
  [[nodiscard]] strength_t high_n(const card_t* h) const noexcept {
    strength_t best = 0;
    for (std::size_t i = 0; i < H; ++i)
      for (std::size_t j = i + 1; j < H; ++j) {
        const strength_t v = row_[internal::omaha_tables::pair_column(h[i], h[j])];
        best = v > best ? v : best;
      }
    if (flush_board_) [[unlikely]] {
      const strength_t f = flush_high({h, H});
      best = f > best ? f : best;
    }
    return best;
  }
  [[nodiscard]] strength_t high_any(std::span<const card_t> hole) const noexcept;
  [[nodiscard]] strength_t flush_high(std::span<const card_t> hole) const noexcept;

  const internal::omaha_tables* tables_;
  const strength_t* row_ = nullptr;  // the board's row: best non-flush strength per hole rank pair
  unsigned low_set_ = 0;             // distinct low ranks on the board (ace bit 0 .. eight bit 7)
  unsigned flush_shift_ = 0;         // 13 x the suit with 3+ board cards
  unsigned flush_board_ = 0;         // that suit's board ranks (fairdeck order), 0 if no such suit
};

// Checked one-off evaluation: 4..5 distinct hole cards and 5 board cards.
[[nodiscard]] strength_t omaha_high(std::span<const card_t> hole, std::span<const card_t> board);
[[nodiscard]] low_t omaha_low(std::span<const card_t> hole, std::span<const card_t> board);

struct omaha_input {
  omaha_rules rules;
  std::vector<std::vector<card_t>> hands;  // 2..10 players, rules.hole_cards each
  std::vector<card_t> board;               // 0..5
  std::vector<card_t> dead;
};

// Checks counts and distinct cards; throws std::invalid_argument naming the problem.
void check_omaha_input(const omaha_input& in);
// Five-card lookups an exact run needs (boards x players x hole pairs x 10 board triples).
[[nodiscard]] double omaha_exact_work(const omaha_input& in);

// Results use equity_result with pot = omaha_pot_units: wins = whole pot alone (a scoop),
// ties = part of the pot, share = pot shares.
[[nodiscard]] equity_result omaha_exact_equity(const omaha_input& in, unsigned threads = 0, const run_control& rc = {});
[[nodiscard]] equity_result omaha_sample_equity(const omaha_input& in, std::uint64_t trials, const engine_spec& engine,
                                                unsigned threads = 0, const run_control& rc = {});

}  // namespace fairdeck::poker
