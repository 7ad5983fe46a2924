// The audit's statistical tests on audit_counts, their p-values (Boost.Math), the effect
// size and the verdict. Derivations and the calibration evidence: docs/audit.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "fairdeck/cards/card.hpp"
#include "fairdeck/stats/counts.hpp"

namespace fairdeck::stats {

struct test_result {
  std::string name;                 // stable identifier, e.g. "position-card"
  std::string description;          // one line in plain words
  std::string distribution;         // reference: "chi2", "binomial-bonferroni"
  double statistic = 0;             // the value compared with the reference
  std::optional<double> df;         // degrees of freedom of a chi2 reference
  std::optional<double> p_value;    // empty when skipped
  std::string note;                 // why skipped, or a caveat
  [[nodiscard]] bool skipped() const noexcept { return !p_value.has_value(); }
};

// Upper tail P(X >= x) of chi-square with df degrees of freedom, accurate far into the tail.
[[nodiscard]] double chi2_upper(double x, double df);

// A category (suit, rank, the card itself) for each card of the audited deck, -1 = none.
using categories = std::vector<int>;
// Suit of each card (jokers form their own category), from the cards' shoe identities.
[[nodiscard]] categories suit_categories(std::span<const card_t> cards, const deck_spec& spec);
[[nodiscard]] categories rank_categories(std::span<const card_t> cards, const deck_spec& spec);

// Pearson chi-square of the category counts at one position against the deck's make-up
// (the classic first check of a shuffle: which card, suit or rank comes first, and is each
// equally likely?): exactly multinomial, df = k - 1.
[[nodiscard]] test_result position_test(const audit_counts& c, std::size_t position, const categories& cat,
                                        std::string name, std::string description);

// Every position at once: Pearson X^2 over the position x category matrix. Rows and columns
// are both fixed by the deal, so X^2 is asymptotically (n/(n-1)) chi2((n-1)(k-1)), not
// chi2((n-1)^2) (docs/audit.md); the statistic reported is X^2 (n-1)/n.
[[nodiscard]] test_result matrix_test(const audit_counts& c, const categories& cat, std::string name,
                                      std::string description);
// Most extreme single position x card cell, exact binomial tails, Bonferroni over 2 n^2
// one-sided tails (conservative). Catches one forbidden or favoured cell.
[[nodiscard]] test_result max_cell_test(const audit_counts& c);
// Successions (card c+1 directly below card c): per deal mean (n-1)/n, variance
// (n^2-n-1)/n^2 under a uniform shuffle; statistic z^2 against chi2(1).
[[nodiscard]] test_result successions_test(const audit_counts& c);
// Rising sequences per deal (counts.hpp) against their exact law under a uniform shuffle,
// A(n, r-1) / n! (Eulerian numbers): Pearson chi-square with neighbouring r pooled from r = 1
// up until each bin expects >= 5 deals (a thin upper tail joins the last bin), df = bins - 1.
// The statistic on which riffles differ most from uniform (Bayer & Diaconis 1992).
[[nodiscard]] test_result rising_sequences_test(const audit_counts& c);
// Independence of the top cards of consecutive deals from one engine stream: contingency
// chi-square on grouped top cards (groups merged until every expected count is >= 5).
[[nodiscard]] test_result serial_test(const audit_counts& c);
// n <= max_order_cards: chi-square over all n! orders, df n! - 1 (skipped below 1 deal per order).
[[nodiscard]] test_result orders_test(const audit_counts& c);

// All of the above for a deck whose card i (canonical order) is cards[i] of `spec`.
[[nodiscard]] std::vector<test_result> run_tests(const audit_counts& c, std::span<const card_t> cards,
                                                 const deck_spec& spec);

// Largest |observed/expected - 1| over the position x card cells, with simultaneous 95%
// bounds (Wilson intervals, Bonferroni over the n^2 cells).
struct effect_size {
  double max_deviation = 0;  // e.g. 0.25: some card sits at some position 25% too often/rarely
  double lower = 0;          // true largest deviation >= lower with 95% confidence
  double upper = 0;          // ... and <= upper
  std::size_t position = 0;  // the cell of the point estimate
  std::size_t card = 0;      // index in the audited deck's canonical order
  double ratio = 1;          // observed/expected there
};
[[nodiscard]] effect_size measure_effect(const audit_counts& c, double confidence = 0.95);

// Bonferroni over the tests that ran: "biased" when some p < alpha / tests.
struct verdict {
  double alpha = 1e-4;
  double threshold = 1e-4;  // alpha / tests run
  std::size_t tests_run = 0;
  bool biased = false;
  std::optional<double> worst_p;
  std::string worst_test;
};
[[nodiscard]] verdict decide(std::span<const test_result> tests, double alpha);

}  // namespace fairdeck::stats
