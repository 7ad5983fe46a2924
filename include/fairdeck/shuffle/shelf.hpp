// Casino shelf shuffling machines: the model, an exact sampler, the exact distance to uniform
// and the card guesser that exposes them (Diaconis, Fulman & Holmes, "Analysis of casino shelf
// shuffling machines", Ann. Appl. Probab. 23(4), 2013, arXiv:1107.2961; "DFH" below).
//
// The model (DFH section 1): the deck is fed one card at a time from the top; each card goes to
// one of m shelves chosen uniformly at random and is placed on top of or under that shelf's pile
// with probability 1/2 each; the piles are then stacked, shelf 1 on top. Read from the top, each
// shelf's pile is a "V" in the order the cards went in: the cards placed on top, latest first
// (falling), then the cards placed under, earliest first (rising).
//
// Passes (DFH Corollary 4.2, the composition rule): a pass through m1 shelves followed by one
// through m2 has the law of ONE pass through 2 m1 m2 shelves, so k passes of m are one pass of
// M = 2^(k-1) m^k shelves — two passes of 10 shelves are 200, not 100. Proof: the second pass
// splits the deck into 2 m2 runs (shelf s2, top or under), reversing the top runs; inside a run
// the first pass's 2 m1 runs appear, in reverse order when the run is reversed, so each
// (s2, side2, s1) is one V whose own side is side1: 2 m1 m2 blocks in a fixed order, each card
// in any block with probability 1/(2 m1 m2) and on either side with 1/2.
// tests/physical_exact_test.cpp checks it over every path for n <= 4.
//
// Exact law (DFH Theorem 3.1, in the counting form used here): a deck is a shelf output exactly
// when it can be cut into m consecutive, possibly empty blocks each of which is a V; the
// (2m)^n equally likely choice sequences that give one deck are these cuttings weighted 2 per
// non-empty block (its first card may go on top or under). A cutting must split every peak
// (a card above and below which lie cards that went in earlier); so the chance of a deck depends
// only on its number of peaks p (DFH count valleys of the inverse-labelled permutation: the same
// statistic):
//   P(deck) = N_m(p) / (2m)^n,  N_m(p) = sum_j 2^(j+1) C(m, j+1) S(p, j),
//   S(p, j) = sum_b C(p, b) 2^(p-b) C(n-1-2p, j-p-b)   (j interior cut points, b peaks cut twice).
// tests/physical_exact_test.cpp checks the sampler and this formula against every path of the
// sampler for n <= 6.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "fairdeck/shuffle/physical.hpp"
#include "fairdeck/util/position_set.hpp"
#include "fairdeck/util/run_control.hpp"

namespace fairdeck {

// Largest shelves per pass the sampler and the catalogue accept (a machine has 10 to a few
// hundred), and the most passes.
inline constexpr std::uint64_t shelf_max_shelves = 1'000'000;
inline constexpr std::uint64_t shelf_max_passes = 1'000;

// One pass through m shelves of the range's cards, exactly the model above given an ideal
// engine: one bounded draw in [0, 2m) per card (shelf = x / 2, under when x is odd). Time
// O(n + m), memory n + 2m words. m >= 1.
template <shuffleable_range R, random_engine E>
void shelf_pass(R&& r, std::uint64_t shelves, E& engine) {
  using V = std::ranges::range_value_t<R>;
  const auto n = static_cast<std::size_t>(std::ranges::distance(r));
  if (shelves < 1 || shelves > shelf_max_shelves)
    throw std::invalid_argument("shelf shuffle: the number of shelves must be 1..1000000");
  if (n < 2) return;
  const auto first = std::ranges::begin(r);
  const std::vector<V> in(first, std::ranges::end(r));
  std::vector<std::uint32_t> choice(n);
  std::vector<std::size_t> on_top(shelves, 0), under(shelves, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const auto x = static_cast<std::uint32_t>(draw_below(engine, 2 * shelves));
    choice[i] = x;
    ++(x & 1U ? under : on_top)[x >> 1];
  }
  // Shelf s occupies [start, start + on_top + under): its top cards end, latest first, just
  // above its bottom cards, earliest first.
  std::size_t start = 0;
  for (std::size_t s = 0; s < shelves; ++s) {
    const std::size_t t = on_top[s], u = under[s];
    on_top[s] = start + t;  // the next top card goes just above this position
    under[s] = start + t;   // the next bottom card goes here
    start += t + u;
  }
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t x = choice[i];
    const std::size_t pos = x & 1U ? under[x >> 1]++ : --on_top[x >> 1];
    first[static_cast<std::ptrdiff_t>(pos)] = in[i];
  }
}

// `passes` passes through m shelves (each pass feeds the deck the previous one left).
template <shuffleable_range R, random_engine E>
void shelf_shuffle(R&& r, std::uint64_t shelves, std::uint64_t passes, E& engine) {
  for (std::uint64_t k = 0; k < passes; ++k) shelf_pass(r, shelves, engine);
}

// Peaks of a sequence of distinct labels: interior positions whose label exceeds both
// neighbours'. The shelf law depends only on the peaks of the deck labelled by the order the
// cards went in.
template <std::ranges::random_access_range R>
[[nodiscard]] std::size_t peaks(const R& labels) {
  const auto n = static_cast<std::size_t>(std::ranges::distance(labels));
  std::size_t p = 0;
  for (std::size_t i = 1; i + 1 < n; ++i) p += labels[i] > labels[i - 1] && labels[i] > labels[i + 1];
  return p;
}

// ---------------------------------------------------------------------------------------------
// Exact distances to uniform.

// Largest deck shelf_mixing() takes (its cost grows like n^3 big-integer operations: 52 cards
// take about a millisecond, 416 a few seconds), and the largest 2^(k-1) m^k, in bits.
inline constexpr std::uint64_t shelf_mixing_max_cards = 416;
inline constexpr std::uint64_t shelf_mixing_max_bits = 2048;

struct shelf_distance {
  std::uint64_t cards = 0, shelves = 0, passes = 1;
  double total_variation = 0;  // 1/2 sum over all n! orders |P(order) - 1/n!|
  double separation = 0;       // max over orders of 1 - n! P(order)
  std::string total_variation_digits;  // exact value to 30 decimals, rounded
  std::string separation_digits;
};

// K passes of m shelves (one pass of 2^(k-1) m^k). Exact, in integer arithmetic
// (Boost.Multiprecision): the sums are exact rationals; only the two final quotients are
// rounded, to the nearest double (error < 1e-16) and to 30 decimals. Throws
// std::invalid_argument for n outside 1..shelf_mixing_max_cards, m or k < 1, or
// k (1 + log2 m) > shelf_mixing_max_bits.
[[nodiscard]] shelf_distance shelf_mixing(std::uint64_t n, std::uint64_t shelves, std::uint64_t passes = 1);

// Number of permutations of n with p peaks, p = 0..(n-1)/2 (exact; also the count with p
// valleys). W(n, p) = (2p+2) W(n-1, p) + (n-2p) W(n-1, p-1).
[[nodiscard]] std::vector<std::string> permutations_by_peaks(std::uint64_t n);

// P(deck) for one deck with `p` peaks after one pass through M shelves (M = 2^(k-1) m^k for
// k passes of m), as the exact fraction num/den in decimal strings: for tests and cross-checks.
struct shelf_probability {
  std::string numerator, denominator;
};
[[nodiscard]] shelf_probability shelf_deck_probability(std::uint64_t n, std::uint64_t total_shelves, std::uint64_t p);

// ---------------------------------------------------------------------------------------------
// The complete-feedback card guesser (DFH section 5).
//
// A guesser names a card not yet seen before each card is turned up, and sees it. Any guesser
// that uses only what it has seen is right on the card dealt with j cards left with probability
// exactly 1/j when the deck is uniform, independently of the other guesses: its score on a
// uniform deck of n cards is a sum of independent Bernoulli(1/j), j = 1..n (mean H_n, 4.54 for
// 52 cards), whatever the strategy. Against a shelf machine, DFH's strategy exploits the V's:
// keep going the way the deck is going, guessing the nearest unseen label in that direction
// (below the last card after a fall, above it after a rise; the other side when none is left).
// That rule treats a rise and a fall alike, so it reads a machine fed from the bottom (Λ's
// instead of V's) or unloaded upside down as well as the plain one. The only choices that
// depend on the orientation are the first guess (the top card: the highest label for a V
// machine, the lowest for its mirror) and the second (below or above the first card): the
// guesser makes them from the earlier decks' top cards (a machine's top card lies in the
// upper or lower half), so they are as good as the orientation allows after a few decks and
// still use only what was seen.
class shelf_guesser {
 public:
  explicit shelf_guesser(std::size_t n);
  // Plays one deck given as labels (a permutation of 0..n-1: the order each card went in),
  // top first; returns the number of correct guesses. Remembers the deck's top card for the
  // next decks' first guesses.
  std::size_t play(std::span<const std::uint32_t> labels);
  [[nodiscard]] std::size_t size() const noexcept { return n_; }

 private:
  std::size_t n_;
  position_set unseen_;
  std::int64_t high_tops_ = 0;  // decks so far whose top card was in the upper half, minus lower
};

// The guesser's mean score and its variance per deck, on decks from `passes` passes through m
// shelves (a fresh guesser per deck, told the orientation: a V machine), estimated from
// `decks` simulated decks (xoshiro256++, seed 1: reproducible; standard error = sqrt(var/decks)).
struct guess_moments {
  double mean = 0, variance = 0;
  std::uint64_t decks = 0;
};
[[nodiscard]] guess_moments shelf_guess_moments(std::size_t n, std::uint64_t shelves, std::uint64_t passes,
                                                std::uint64_t decks, const run_control& control = {});

}  // namespace fairdeck
