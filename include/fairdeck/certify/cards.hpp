// Certification tests on dealt outcomes: poker hand categories of dealt hands against
// their exact probabilities, the first cards of shuffled decks, and repeated top cards of
// consecutive decks. The deck audit itself (fairdeck/stats) supplies the position tests.
#pragma once

#include <array>
#include <cstdint>
#include <iosfwd>
#include <span>
#include <string>
#include <vector>

#include "fairdeck/cards/card.hpp"
#include "fairdeck/certify/hands.hpp"
#include "fairdeck/certify/result.hpp"
#include "fairdeck/poker/hand_eval.hpp"
#include "fairdeck/util/run_control.hpp"

namespace fairdeck::certify {

// Exact number of K-card hands (K = 5, 6, 7) of a 52-card deck in each category, by the best
// 5 of K (the counts fairdeck::poker::exact_category_counts enumerates; tests check them).
[[nodiscard]] const std::array<std::uint64_t, poker::category_count>& exact_hand_counts(unsigned cards);

struct hand_tally {
  unsigned cards = 5;
  std::uint64_t hands = 0;
  std::array<std::uint64_t, poker::category_count> count{};
  void add(std::span<const card_t> hand);  // K distinct cards of one 52-card deck (unchecked)
};

// Pearson chi-square of a tally against the exact probabilities (rare categories pooled
// until each bin expects >= 5). Invalid below 200 hands.
[[nodiscard]] test_result hand_category_test(const hand_tally& t, std::string name, std::string family,
                                             std::string description);

// Tallies a deck stream: category of the 5 and 7 top cards (standard 52-card decks only)
// and how often consecutive decks share their top card.
class deck_outcomes {
 public:
  explicit deck_outcomes(bool standard_deck) : standard_(standard_deck) {}
  // `top_first`: card ids from the top.
  void add(std::span<const card_t> top_first);
  // repeat-top: binomial(pairs, 1/n) two-sided exact; top5/top7 hand categories.
  void results(std::size_t deck_size, std::vector<test_result>& out) const;

 private:
  bool standard_;
  hand_tally top5_{5}, top7_{7};
  std::uint64_t pairs_ = 0, same_top_ = 0, decks_ = 0;
  bool have_last_ = false;
  card_t last_top_ = 0;
};

// Reads dealt hands, one per line: 2 (hold'em hole cards), 5, 6 or 7 cards of one 52-card
// deck ("Ah Kd 7c 7s 2h", hold'em "Ah Kd | 7c 7s 2h 9d Tc"); separators are spaces, commas
// and '|'; '#' lines and blank lines are skipped. Throws std::runtime_error naming the line
// on anything else. Two-card hands are tallied as pair / suited / offsuit (exactly 78, 312
// and 936 of the 1,326 starting hands).
// Hold'em deals (hands.hpp): groups separated by '|' are seats' hole cards (2 each, seat 1
// first) and, last, the board (3, 4 or 5 cards): "Ah Kd | Qs Qc | 7c 7s 2h 9d Tc". A leading
// "N:" labels the first seat ("3: Ah Kd | 7c 7s 2h"). Every two-card hand and deal also feeds
// `holdem` (hole-card, seat and board tests); the first seat with the board feeds the
// 5/6/7-card category tallies as a one-seat line always did.
struct hand_tallies {
  hand_tally five{5}, six{6}, seven{7};
  std::array<std::uint64_t, 3> hole{};  // pair, suited, offsuit
  std::uint64_t hole_hands = 0;
  holdem_tally holdem;
  std::uint64_t hands = 0;  // lines holding a hand or a deal
  std::uint64_t lines = 0;
};
void read_hands(std::istream& in, hand_tallies& out, const run_control& control = {});
void hand_results(const hand_tallies& t, std::vector<test_result>& out);

}  // namespace fairdeck::certify
