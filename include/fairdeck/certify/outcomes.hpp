// Certification tests on the outcomes of any game (`fairdeck certify --outcomes FILE`): one
// outcome per line from a declared set of categories with exact probabilities (baccarat
// banker / player / tie, a roulette colour, a dealer's blackjack total), tested for the
// frequencies, for runs of one outcome and, per seat or table, for each group's
// frequencies. Guarantees under H0 (outcomes i.i.d. with the declared probabilities):
// - outcome-frequencies: Pearson chi-square when every category expects >= 5; below that the
//   exact multinomial test (sum of the probabilities of all count vectors no more likely than
//   the one seen; Read & Cressie 1988 §2), enumerated while there are at most 2,000,000 count
//   vectors, else chi-square with rare categories pooled (result.hpp chi2_against).
// - outcome-runs: the number of changes between consecutive outcomes, whose exact mean and
//   variance under known probabilities follow from 1-dependence (a multi-category
//   Wald-Wolfowitz runs test with the probabilities declared, not estimated); normal law,
//   valid when both changes and repeats expect >= 20.
// - outcome-longest-run: for each category the longest run, against its exact law (the
//   recurrence q_m = q_{m-1} - (1-p) p^L q_{m-L-1} for "no run of L in m trials"; Feller,
//   An Introduction to Probability Theory, vol. 1, 3rd ed., XIII.7), two-sided, Bonferroni
//   over the categories.
// - outcome-by-seat / outcome-by-table: each group's chi-square against the declared law
//   (groups with >= 5 expected in every category), Bonferroni over the groups.
//
// File format (docs/certify.md, "Outcomes of any game"):
//   # categories: banker=2292252566437888/4998398275503360 player=0.446247 tie=0.095156
//   banker
//   tie table=7
// Probabilities are decimals or exact rationals p/q and must sum to 1 within 1e-9. A line is
// a category name, optionally followed by one `seat=X` or `table=X` label (one key per file).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fairdeck/certify/result.hpp"
#include "fairdeck/util/run_control.hpp"

namespace fairdeck::certify {

struct outcome_category {
  std::string name;
  double p = 0;
  std::string given;  // as declared ("2292252566437888/4998398275503360", "0.446247")
};
struct outcome_spec {
  std::vector<outcome_category> categories;
  [[nodiscard]] std::string describe() const;  // "banker 0.458597, player 0.446247, tie 0.095156"
};

// Parses "name=p name=p ..." (spaces or commas between entries). Throws std::invalid_argument
// naming the problem: fewer than 2 categories, a repeated name, a probability outside (0, 1),
// a sum further than 1e-9 from 1.
[[nodiscard]] outcome_spec parse_outcome_spec(std::string_view text);

class outcome_tally {
 public:
  explicit outcome_tally(outcome_spec spec);
  void add(std::size_t category, std::string_view group = {});
  void set_group_key(std::string key) { group_key_ = std::move(key); }  // "seat" or "table"
  [[nodiscard]] std::uint64_t outcomes() const noexcept { return n_; }
  [[nodiscard]] const outcome_spec& spec() const noexcept { return spec_; }
  // Appends outcome-frequencies, outcome-runs, outcome-longest-run and (with group labels)
  // outcome-by-seat or outcome-by-table; family "outcomes".
  void results(std::vector<test_result>& out) const;

 private:
  outcome_spec spec_;
  std::string group_key_;
  std::uint64_t n_ = 0, changes_ = 0;
  std::vector<std::uint64_t> count_, longest_, run_;
  std::size_t last_ = 0;
  std::map<std::string, std::vector<std::uint64_t>, std::less<>> groups_;
};

// Reads an outcomes file: the "# categories:" header (unless `declared` is given; both is an
// error), then one outcome per line ('#' comments and blank lines skipped). Throws
// std::runtime_error naming the line on anything else.
[[nodiscard]] outcome_tally read_outcomes(std::istream& in, std::optional<outcome_spec> declared,
                                          const run_control& control = {});

// Exact laws, exposed for tests.
// P(longest run of successes >= len) in m Bernoulli(p) trials.
[[nodiscard]] double longest_run_at_least(std::uint64_t m, double p, std::uint64_t len);
// Exact multinomial test p-value of `counts` under `p`; nullopt when more than `max_vectors`
// count vectors would have to be enumerated.
[[nodiscard]] std::optional<double> exact_multinomial_p(const std::vector<std::uint64_t>& counts,
                                                        const std::vector<double>& p,
                                                        std::uint64_t max_vectors = 2000000);

}  // namespace fairdeck::certify
