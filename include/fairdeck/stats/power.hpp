// How visible a departure from uniform is to a test of a given size: an upper bound for every
// test (from the total variation distance) and the power of Pearson's chi-squared test (the
// non-central chi-squared approximation), applied to K riffles of n cards (shuffle/mixing.hpp
// gives their exact distances and rising-sequence laws, Bayer & Diaconis 1992).
#pragma once

#include <cstdint>
#include <vector>

#include "fairdeck/util/run_control.hpp"

namespace fairdeck::stats {

// Upper bound on the power of ANY level-alpha test of "uniform" that sees `trials`
// independent samples of a law at total variation distance `total_variation` from it:
// alpha + TV(P^trials, U^trials) <= alpha + 1 - (1 - TV)^trials, capped at 1.
[[nodiscard]] double any_test_power_bound(double total_variation, std::uint64_t trials, double alpha);

// Power of Pearson's chi-squared test against the alternative `p` when the null is `u`, with
// `trials` samples at level alpha, bins pooled by pool_bins (stats/bins.hpp, at least 5
// expected under u): the non-central chi-squared approximation with df = bins - 1 and
// non-centrality trials * sum (p - u)^2 / u (e.g. Cohen, "Statistical Power Analysis for the
// Behavioral Sciences", 2nd ed. 1988, ch. 7). alpha when fewer than two bins remain or p = u.
[[nodiscard]] double chi_squared_power(const std::vector<double>& p, const std::vector<double>& u, std::uint64_t trials,
                                       double alpha);

// What an audit with `trials` shuffles can see, for K = 1..max_shuffles riffles of n cards.
struct riffle_detectability {
  std::uint64_t shuffles = 0;
  // any_test_power_bound() at the exact total variation distance after K riffles.
  double any_test_power_bound = 0;
  // chi_squared_power() of the audit's rising-sequences test (stats/tests.hpp) at level alpha.
  double rising_sequence_test_power = 0;
};
inline constexpr std::uint64_t riffle_detectability_max_cards = 416;

// Needs 1 <= n <= riffle_detectability_max_cards, trials >= 1, 0 < alpha < 1 (and
// max_shuffles as riffle_mixing(), shuffle/mixing.hpp). Stops early like riffle_mixing().
[[nodiscard]] std::vector<riffle_detectability> riffle_detectability_table(std::uint64_t n, std::uint64_t max_shuffles,
                                                                           std::uint64_t trials, double alpha = 1e-6,
                                                                           const run_control& control = {});

}  // namespace fairdeck::stats
