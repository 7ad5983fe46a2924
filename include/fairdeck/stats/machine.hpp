// Tests that see shuffling machines in recorded decks (`fairdeck audit --input`): a machine
// leaves sequential structure relative to the order the deck went in, which the position
// tests of stats/tests.hpp need thousands of decks to notice. Three tests, each with an exact
// null law under a uniform shuffle:
//
//  guessing        the complete-feedback card guesser of Diaconis, Fulman & Holmes ("Analysis
//                  of casino shelf shuffling machines", Ann. Appl. Probab. 23(4), 2013;
//                  shuffle/shelf.hpp shelf_guesser), scored on every deck relative to the order
//                  it went in. Null: the total over D decks is a sum of D independent copies
//                  of sum_{j=1..n} Bernoulli(1/j), whatever the strategy (each guess names an
//                  unseen card, chosen from the past only). One-sided: a machine is guessed
//                  better. p-value exact (dynamic programming over the Bernoulli sum) while
//                  decks x n x score <= 2e8, else the Lugannani-Rice saddlepoint
//                  approximation for a lattice sum (Daniels, "Tail probability
//                  approximations", Int. Stat. Rev. 55, 1987), whose relative error is O(1/(Dn))
//                  (below 1e-3 at that size).
//  turning-points  peaks + valleys of each deck in before-order labels (alternating runs - 1;
//                  shelf outputs are made of V's, riffles of rising runs), against the exact law
//                  (André's recurrence for alternating runs): Pearson chi-square, bins pooled
//                  to >= 5 expected decks (stats/bins.hpp).
//  colour-changes  red/black changes down each deck (jokers skipped), against the exact law
//                  of runs in a random arrangement of r red and b black cards (Wald &
//                  Wolfowitz 1940): chi-square pooled as above.
// All three read a deck and its mirror image (labels n-1-x) or its reverse alike, so a machine
// fed from the bottom or unloaded upside down is seen as fast. A chi-square test with too few
// decks for two pooled bins is skipped with a note (it stays out of the verdict); the guessing
// test is exact from one deck on.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "fairdeck/cards/card.hpp"
#include "fairdeck/shuffle/shelf.hpp"
#include "fairdeck/stats/tests.hpp"

namespace fairdeck::stats {

// Per-deck guessing score on a uniform deck of n cards: mean H_n, variance sum (1/j)(1 - 1/j).
[[nodiscard]] double guess_null_mean(std::size_t n) noexcept;
[[nodiscard]] double guess_null_variance(std::size_t n) noexcept;
// Law of one uniform deck's score: element k = P(score = k), k = 0..n (exact, in doubles).
[[nodiscard]] std::vector<double> guess_null_pmf(std::size_t n);
// P(total >= score) over `decks` uniform decks of n cards (see above: exact or saddlepoint).
[[nodiscard]] double guess_upper_tail(std::size_t n, std::uint64_t decks, std::uint64_t score);
// The saddlepoint branch alone, at any size (tests compare it with the exact branch).
[[nodiscard]] double guess_upper_tail_saddlepoint(std::size_t n, std::uint64_t decks, std::uint64_t score);

// Least number of decks with which the guessing test at level alpha (alone) catches a machine
// whose per-deck score has this mean and variance with probability >= power: the critical
// score from the exact null tail, the machine's total approximated as normal (CLT over decks,
// continuity-corrected). 0 when the machine is not guessed better than a uniform deck.
[[nodiscard]] std::uint64_t guess_decks_needed(std::size_t n, double mean, double variance, double alpha, double power);

// Exact laws under a uniform shuffle: P(turning points = t), t = 0..n-2; P(colour changes =
// c), c = 0..red+black-1.
[[nodiscard]] std::vector<double> turning_point_law(std::size_t n);
[[nodiscard]] std::vector<double> colour_change_law(std::size_t red, std::size_t black);

// Tallies the three tests over recorded decks, one pass, no allocation per deck.
class machine_counter {
 public:
  // `cards`: the deck's cards in canonical order (card ids of `spec`); their colours.
  machine_counter(std::span<const card_t> cards, const deck_spec& spec);
  // One deck, top first, as indices into `cards`. `before`: the order the deck went in (top
  // first, indices into `cards`); empty for new-deck order (index order).
  void add(std::span<const card_t> order, std::span<const card_t> before = {});
  [[nodiscard]] std::vector<test_result> tests() const;
  [[nodiscard]] std::uint64_t decks() const noexcept { return decks_; }
  // Decks per guessing score 0..n (for reports: the observed against the null law).
  [[nodiscard]] const std::vector<std::uint64_t>& guess_histogram() const noexcept { return guess_hist_; }

 private:
  std::size_t n_;
  shelf_guesser guesser_;
  std::vector<int> colour_;             // per card index: 0 black, 1 red, -1 none
  std::size_t red_ = 0, black_ = 0;
  std::vector<std::uint32_t> label_of_, labels_;
  std::uint64_t decks_ = 0, guess_total_ = 0;
  std::vector<std::uint64_t> guess_hist_, turning_hist_, colour_hist_;
};

}  // namespace fairdeck::stats
