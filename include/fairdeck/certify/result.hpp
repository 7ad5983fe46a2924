// One certification test's outcome and the battery's decision rule.
//
// Every test of fairdeck/certify reports a p-value from an exact or stated-approximate null
// distribution, the data it used, the minimum data its approximation needs (below that the
// result is `invalid`, never `pass`) and the smallest effect it detects at the run's size.
//
// Decision rule (docs/certify.md): the family-wise error rate is held at alpha = 0.01 (99%
// confidence) over every valid test of a report with Holm's step-down procedure (Holm 1979,
// "A simple sequentially rejective multiple test procedure", Scand. J. Statist. 6:65-70):
// sort the K p-values, reject p_(i) while p_(i) < alpha / (K - i + 1). Holm is valid under
// any dependence between the tests (they share data) and rejects the whole battery exactly
// when Bonferroni does (p_min < alpha / K). Report verdict: `fail` when any test fails,
// else `invalid` when any test lacked data, else `pass`.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace fairdeck::certify {

enum class outcome { pass, fail, invalid };
[[nodiscard]] std::string_view outcome_name(outcome o) noexcept;  // "pass", "fail", "invalid"

// How the detectable effect of a test is computed (see describe_effect).
enum class effect_kind {
  none,
  chi2,          // Cohen's w = sqrt(lambda / n) at 90% power, lambda the non-centrality
  normal,        // shift of the statistic in units of 1/sqrt(n) (n = effect_n)
  poisson_rate,  // ratio of the event rate to its null rate (`expected`) at 90% power
};

struct test_result {
  std::string name{};          // stable identifier, e.g. "monobit"
  std::string family{};        // "raw", "scaled", "decks", "hands"
  std::string description{};   // one line in plain words
  std::string reference{};     // where the null distribution comes from
  std::string distribution{};  // "normal", "chi2", "poisson", "binomial"
  double statistic = 0;
  std::optional<double> df{};
  std::optional<double> p_value{};  // empty when invalid
  outcome result = outcome::invalid;
  std::uint64_t sample = 0;      // data the test used, in `unit`
  std::uint64_t min_sample = 0;  // minimum for a valid result, in `unit`
  std::string unit{};              // "bits", "values", "groups", "decks", ...
  std::string note{};              // why invalid, or what was seen (for people; read the fields)
  // The count the statistic compares with, expected under H0, where there is one: ones
  // (monobit), runs, repeats (repeat-top), collisions (birthday spacings: the Poisson mean).
  std::optional<double> expected{};
  // Detectable effect: filled by decide() from the kind, effect_n and the Holm threshold.
  effect_kind effect = effect_kind::none;
  double effect_n = 0;           // sample size the effect formula uses
  double effect_scale = 1;       // normal: effect = scale * (z shift) / sqrt(effect_n)
  std::optional<double> detectable_effect{};
  std::string effect_text{};       // "detects a bit bias |P(1) - 1/2| >= 1.2e-05 (90% power)"
  std::string effect_unit{};       // what detectable_effect measures, e.g. "bias in P(1)"
  [[nodiscard]] bool valid() const noexcept { return p_value.has_value(); }
};

// An invalid result with its reason. `r` is taken by rvalue reference, not by value, so the
// reason may be built from r's own fields in the same call (`invalid(std::move(r), needs(...,
// r.unit))`): with a by-value parameter, a compiler that evaluates arguments left to right
// (clang) moved r's strings away before the reason read them.
[[nodiscard]] test_result invalid(test_result&& r, std::string why);

struct decision {
  double alpha = 0.01;
  std::size_t valid_tests = 0, invalid_tests = 0, failed_tests = 0;
  double bonferroni_threshold = 0.01;  // alpha / valid_tests: the first Holm step
  outcome verdict = outcome::invalid;
  std::string rule{};                    // the rule in words (for reports)
};

// Applies Holm at `alpha` over all valid tests, sets every result, fills the detectable
// effects (90% power at the Bonferroni threshold alpha / K, the strictest Holm step) and
// returns the report verdict. Throws std::invalid_argument unless 0 < alpha < 1.
[[nodiscard]] decision decide(std::span<test_result> tests, double alpha = 0.01);

// Verdict of a subset (a family) after decide(): fail > invalid > pass.
[[nodiscard]] outcome family_verdict(std::span<const test_result> tests, std::string_view family);

// Pearson chi-square of counts against null probabilities, bins pooled in order until each
// expects >= 5 (stats/bins.hpp pool_bins). Fills statistic, df, p_value, effect; leaves
// the result invalid with a note when fewer than two bins remain.
void chi2_against(test_result& r, const std::vector<double>& observed, const std::vector<double>& null);

// Power machinery shared by decide() and power_plan.hpp: the non-centrality lambda with
// P(chi2'(df, lambda) > chi2 critical value at `threshold`) = power, and the shift
// z_(1 - threshold/2) + z_power of a two-sided normal test.
[[nodiscard]] double chi2_noncentrality_for(double df, double threshold, double power = 0.9);
[[nodiscard]] double normal_shift_for(double threshold, double power = 0.9);

// Upper tail of the standard normal for |z|, two-sided: erfc(|z| / sqrt 2).
[[nodiscard]] double two_sided_normal(double z) noexcept;

}  // namespace fairdeck::certify
