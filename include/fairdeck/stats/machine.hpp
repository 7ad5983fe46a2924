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
//
// Shoes (D >= 2 decks whose copies a camera log cannot tell apart; deck_reader's shoe mode):
//  guessing        the same guesser on faces (shoe_guesser below). Before each card it names a
//                  face g; given everything seen so far, a uniform shoe turns up g with
//                  probability exactly p = r_g / R (r_g copies of g left, R cards left), for any
//                  strategy that uses only the past (the unseen cards are a uniform arrangement
//                  of the remaining multiset). With one copy p = 1/R and this is the deck law
//                  above; with copies the hits are no longer independent of the strategy, so
//                  the test is the likelihood ratio of "the guesser's odds are c times
//                  better", prod_t (c^X_t / (1 - p_t + c p_t)), averaged over c in
//                  guess_odds_grid: under a uniform shoe a product of conditional likelihood
//                  ratios has mean exactly 1 (a test martingale; Ville 1939, Shafer & Vovk
//                  2019), so p = min(1, 1/E) is a valid p-value (Markov), conservative by at most
//                  the factor E's law leaves. tests/shoe_machine_test.cpp checks E[E] = 1 and
//                  P(p <= a) <= a by enumerating every arrangement of tiny shoes.
//  turning-points  peaks + valleys of the before-order labels with each face's D positions in
//                  the before order assigned to its D copies uniformly at random (fixed seed):
//                  a uniform shoe then gives a uniform permutation of 52 D labels, so the exact
//                  law is André's for n = 52 D (ties broken at random keep the law exact).
//  colour-changes  the runs law of Wald & Wolfowitz with r = b = 26 D (a multiset: exact).
// All three read a deck and its mirror image (labels n-1-x) or its reverse alike, so a machine
// fed from the bottom or unloaded upside down is seen as fast. A chi-square test with too few
// decks for two pooled bins is skipped with a note (it stays out of the verdict); the guessing
// test is exact from one deck on.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "fairdeck/cards/card.hpp"
#include "fairdeck/random/xoshiro256pp.hpp"
#include "fairdeck/shuffle/shelf.hpp"
#include "fairdeck/stats/tests.hpp"
#include "fairdeck/util/position_set.hpp"

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

// The alternatives of the guessing likelihood ratio: the guesser's odds of a hit c times the
// uniform odds, q = c p / (1 - p + c p). An average over a grid of c is an e-value too.
inline constexpr std::array<double, 5> guess_odds_grid{1.5, 2.0, 3.0, 5.0, 10.0};

// log of the average over guess_odds_grid of exp(log_lr[i]): the mixture e-value's log.
[[nodiscard]] double log_mean_exp(std::span<const double> log_lr) noexcept;

// One deck or shoe played by a guesser: hits, their null mean sum p_t, and for each c of
// guess_odds_grid the log likelihood ratio sum_t (X_t log c - log(1 - p_t + c p_t)).
struct guess_play {
  std::uint32_t hits = 0;
  double null_mean = 0;
  std::array<double, guess_odds_grid.size()> log_lr{};
};

// Log likelihood ratios of a deck of n distinct cards with `hits` (p_t = 1/R, R = n..1).
[[nodiscard]] guess_play deck_guess_play(std::size_t n, std::size_t hits) noexcept;

// The complete-feedback guesser on a shoe of `faces` faces x `copies` copies that sees faces
// only. It follows the DFH rule of shelf_guesser on the before-order positions ("labels"),
// giving each seen face the label of its nearest unseen copy in the direction the shoe is
// going (the other side when none is left), and guesses the face of the nearest unseen label
// in that direction. Remembers the shoes' top cards for the first guesses, as shelf_guesser.
class shoe_guesser {
 public:
  shoe_guesser(std::size_t faces, unsigned copies);
  // `before`: the faces in the order the shoe went in, top first (empty: new-deck order
  // stacked, face of position i = i % faces); `order`: the shoe's faces, top first.
  guess_play play(std::span<const card_t> order, std::span<const card_t> before = {});

 private:
  std::size_t faces_, n_;
  unsigned copies_;
  position_set unseen_;
  std::vector<std::uint32_t> positions_;  // face f's before positions at [f * copies, (f+1) * copies), ascending
  std::vector<std::uint32_t> fill_, remaining_;
  std::vector<card_t> face_at_;           // before position -> face
  std::int64_t high_tops_ = 0;
};

// Tallies the three tests over recorded decks, one pass, no allocation per deck.
class machine_counter {
 public:
  // `cards`: the deck's cards in canonical order (card ids of `spec`); their colours.
  // `copies` >= 2: a shoe read in deck_reader's shoe mode (cards = the shoe's 52 D cards;
  // add() then takes faces 0..51).
  machine_counter(std::span<const card_t> cards, const deck_spec& spec, unsigned copies = 1);
  // One deck, top first, as indices into `cards` (faces for a shoe). `before`: the order the
  // deck went in (top first, same encoding); empty for new-deck order (index order).
  void add(std::span<const card_t> order, std::span<const card_t> before = {});
  [[nodiscard]] std::vector<test_result> tests() const;
  [[nodiscard]] std::uint64_t decks() const noexcept { return decks_; }
  // Decks per guessing score 0..n (for reports: the observed against the null law).
  [[nodiscard]] const std::vector<std::uint64_t>& guess_histogram() const noexcept { return guess_hist_; }
  // The law of one deck's score under a uniform shuffle, for reports: exact for decks, for
  // shoes simulated (`shoes` uniform shoes through the same guesser, xoshiro256++ seed 1).
  [[nodiscard]] std::vector<double> guess_null_law(std::uint64_t shoes = 4000) const;
  // The last deck's play (for the monitor: the per-deck likelihood ratios).
  [[nodiscard]] guess_play last_play() const;
  // The last deck's turning points and colour changes.
  [[nodiscard]] std::size_t last_turning_points() const noexcept { return last_turns_; }
  [[nodiscard]] std::size_t last_colour_changes() const noexcept { return last_changes_; }
  [[nodiscard]] std::size_t cards() const noexcept { return n_; }
  [[nodiscard]] std::size_t red() const noexcept { return red_; }
  [[nodiscard]] std::size_t black() const noexcept { return black_; }

 private:
  std::size_t n_;
  unsigned copies_;
  shelf_guesser guesser_;
  std::optional<shoe_guesser> shoe_;
  std::vector<int> colour_;             // per card index (per face for a shoe): 0 black, 1 red, -1 none
  std::size_t red_ = 0, black_ = 0;
  std::vector<std::uint32_t> label_of_, labels_;
  std::vector<std::uint32_t> slots_, used_;  // shoe: before positions of each face, and how many are taken
  xoshiro256pp ties_{1};                     // shoe: fixed-seed random tie-breaking
  std::size_t last_hits_ = 0;
  std::uint64_t decks_ = 0, guess_total_ = 0;
  double guess_null_total_ = 0;
  std::array<double, guess_odds_grid.size()> log_lr_{};
  guess_play last_;
  std::size_t last_turns_ = 0, last_changes_ = 0;
  std::vector<std::uint64_t> guess_hist_, turning_hist_, colour_hist_;
};

}  // namespace fairdeck::stats
