// How visible K riffles are to an audit of a given size: an upper bound for every test (from
// the exact total variation distance) and the power of one concrete test (rising sequences).
#include "fairdeck/stats/power.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/distributions/non_central_chi_squared.hpp>
#include <fmt/format.h>

#include "fairdeck/shuffle/mixing.hpp"
#include "fairdeck/stats/bins.hpp"

namespace fairdeck::stats {

double any_test_power_bound(double total_variation, std::uint64_t trials, double alpha) {
  // 1 - (1 - TV)^T without cancellation.
  const double bound = -std::expm1(static_cast<double>(trials) * std::log1p(-total_variation));
  return std::min(1.0, alpha + bound);
}

double chi_squared_power(const std::vector<double>& p, const std::vector<double>& u, std::uint64_t trials,
                         double alpha) {
  const auto t = static_cast<double>(trials);
  const auto [pbins, ubins] = pool_bins(p, u, t);
  const auto bins = ubins.size();
  double lambda = 0;
  for (std::size_t b = 0; b < bins; ++b) lambda += (pbins[b] - ubins[b]) * (pbins[b] - ubins[b]) / ubins[b];
  if (bins < 2) return alpha;  // one bin: the test cannot tell anything apart
  lambda *= t;
  const auto df = static_cast<double>(bins - 1);
  const double critical = boost::math::quantile(boost::math::complement(boost::math::chi_squared(df), alpha));
  if (lambda == 0) return alpha;
  if (lambda > 1e6) return 1.0;  // far beyond the critical value; avoids slow series
  return boost::math::cdf(boost::math::complement(boost::math::non_central_chi_squared(df, lambda), critical));
}

std::vector<riffle_detectability> riffle_detectability_table(std::uint64_t n, std::uint64_t max_shuffles,
                                                             std::uint64_t trials, double alpha,
                                                             const run_control& control) {
  if (n < 1 || n > riffle_detectability_max_cards)
    throw std::invalid_argument(
        fmt::format("detectability: n = {} cards is outside 1..{}", n, riffle_detectability_max_cards));
  if (trials < 1) throw std::invalid_argument("detectability: needs at least one trial");
  if (!(alpha > 0 && alpha < 1)) throw std::invalid_argument(fmt::format("detectability: alpha {} is outside (0, 1)", alpha));
  const auto tv = riffle_mixing(n, max_shuffles, control);
  const auto dists = rising_sequence_distributions(n, max_shuffles, control);
  const auto uniform = uniform_rising_sequence_distribution(n);
  std::vector<riffle_detectability> out;
  for (std::size_t k = 0; k < tv.size() && k < dists.size(); ++k)
    out.push_back({k + 1, any_test_power_bound(tv[k].total_variation, trials, alpha),
                   chi_squared_power(dists[k], uniform, trials, alpha)});
  return out;
}

}  // namespace fairdeck::stats
