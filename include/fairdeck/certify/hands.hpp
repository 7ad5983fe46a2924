// Certification tests on hold'em deals seat by seat: the hole cards (each of the 169
// starting-hand classes and each of the 1,326 two-card combinations against its exact
// probability), the seats (does one seat get better starting hands?), the flop's texture
// and each hand's final category given its hole cards. Every null law is exact and computed
// here by enumeration (no published table is copied); tests/certify_hands_test.cpp checks
// them against closed forms. Methods, valid ranges and power: docs/certify.md, "Hands".
//
// Guarantees (H0: every deal is a uniformly random arrangement of one 52-card deck, deals
// independent):
// - hole-classes / hole-combos: Pearson chi-square against 6/1326 (pair), 4/1326 (suited),
//   12/1326 (offsuit) per class, 1/1326 per combination; cells pooled in order until each
//   expects >= 5 (result.hpp chi2_against), so the chi-square law holds at any size.
// - hole-class-extreme / hole-combo-extreme: the most extreme cell by its exact binomial
//   tail (two-sided), Bonferroni over the cells: valid at any size and under any dependence
//   between cells (multinomial cells are dependent, so Sidak is not used). This is the test
//   with power against one missing class ("never deals AA"): P(no AA in n hands) =
//   (1 - 6/1326)^n, a p-value of 338 (1320/1326)^n after the correction.
// - seat-strength: each seat's mean starting-hand percentile (the class's place in
//   poker::preflop_ranking, mid-rank over the 1,326 combos, mean exactly 1/2 under H0) as a
//   z-score with the exact null variance; Bonferroni over the seats (valid although the
//   seats of one deal share a deck).
// - seat-class-extreme: the most extreme (seat, class) cell by its exact binomial tail,
//   Bonferroni over seats x 169 ("never deals AA to seat 3").
// - flop-texture: paired / suited / connected flops against the exact counts of all
//   C(52,3) = 22,100 flops (one flop per deal: the first three board cards).
// - final-category: the first seat's best-five category (hole + 5-card board) against its
//   exact conditional law given its hole cards (all C(50,5) boards per class, cached), a
//   quadratic form in the exact covariance of a sum of independent, non-identical
//   multinomial draws (chi-square with k - 1 df).
// The goodness-of-fit tests use one hand per deal (the first seat), so observations are
// independent; the seat test uses every seat.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "fairdeck/cards/card.hpp"
#include "fairdeck/certify/result.hpp"
#include "fairdeck/poker/hand_eval.hpp"
#include "fairdeck/poker/preflop_table.hpp"

namespace fairdeck::certify {

inline constexpr unsigned hole_combos = 1326;
inline constexpr unsigned max_seats = 23;  // hold'em with one 52-card deck: at most 23 seats and a flop

// Index of the two-card combination {a, b} (distinct cards of [0, 52)) in [0, 1326).
[[nodiscard]] constexpr unsigned combo_index(card_t a, card_t b) noexcept {
  const unsigned lo = a < b ? a : b, hi = a < b ? b : a;
  return hi * (hi - 1) / 2 + lo;
}

// Flop texture cells (exact counts of the 22,100 flops: flop_texture_counts()).
enum class flop_texture : std::uint8_t {
  trips,               // three of a rank
  paired_two_tone,     // a pair, two cards of one suit
  paired_rainbow,      // a pair, three suits
  monotone_connected,  // one suit, three ranks within five (a straight draw on board; A plays low too)
  monotone_other,
  two_tone_connected,
  two_tone_other,
  rainbow_connected,
  rainbow_other,
};
inline constexpr unsigned flop_texture_count = 9;
[[nodiscard]] flop_texture texture_of(card_t a, card_t b, card_t c) noexcept;
[[nodiscard]] const char* flop_texture_key(flop_texture t) noexcept;  // "trips", "paired-two-tone", ...
[[nodiscard]] const std::array<std::uint64_t, flop_texture_count>& flop_texture_counts();

// A starting hand's percentile among the 1,326 combos by preflop_ranking (AA near 1, 72o near
// 0): (combos of weaker classes + half of its own class's) / 1326. Mean 1/2 under H0.
[[nodiscard]] double hole_percentile(unsigned cls) noexcept;
[[nodiscard]] double hole_percentile_sd() noexcept;  // exact null standard deviation

// For each starting-hand class, the number of the C(50,5) = 2,118,760 boards giving each
// best-five category to one of its combos (the same for every combo of a class). Computed on
// first use by enumeration (about a second), then cached; thread-safe.
using category_counts = std::array<std::uint64_t, poker::category_count>;
[[nodiscard]] const std::array<category_counts, poker::preflop_classes>& final_category_counts();

// One dealt hold'em hand: every seat's hole cards (seat 1 first; `first_seat` shifts the
// numbering for lines that carry one labelled seat) and the board (0, 3, 4 or 5 cards).
struct dealt_holdem {
  std::span<const std::array<card_t, 2>> seats;
  std::span<const card_t> board;
  unsigned first_seat = 1;   // seat number of seats[0]
  bool seats_known = false;  // false: a bare two-card line (no seat test)
};

class holdem_tally {
 public:
  void add(const dealt_holdem& d);  // cards distinct and in [0, 52) (readers check)
  [[nodiscard]] std::uint64_t deals() const noexcept { return deals_; }
  // Appends hole-classes, hole-class-extreme, hole-combos, hole-combo-extreme (any hole
  // cards), seat-strength and seat-class-extreme (labelled seats), flop-texture (boards of 3+ cards) and
  // final-category (5-card boards), family "hands".
  void results(std::vector<test_result>& out) const;

 private:
  void board_results(std::vector<test_result>& out) const;  // battery_hands_board.cpp
  std::uint64_t deals_ = 0, flops_ = 0, finals_ = 0;
  std::array<std::uint64_t, hole_combos> combo_{};
  std::array<std::uint64_t, flop_texture_count> texture_{};
  // Final category: observed counts, and the exact expectation and covariance accumulated per
  // class (counts of first seats by class, then the category at the river).
  std::array<std::uint64_t, poker::preflop_classes> final_class_{};
  std::array<std::uint64_t, poker::category_count> final_seen_{};
  std::array<std::uint64_t, max_seats + 1> seat_n_{};
  std::array<std::array<std::uint64_t, poker::preflop_classes>, max_seats + 1> seat_class_{};
  std::array<double, max_seats + 1> seat_sum_{};
};

// Exact two-sided binomial p-value of x successes in n trials with probability p:
// min(1, 2 min(P(X <= x), P(X >= x))).
[[nodiscard]] double binomial_two_sided(std::uint64_t x, std::uint64_t n, double p);

}  // namespace fairdeck::certify
