#include "fairdeck/certify/result.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/distributions/non_central_chi_squared.hpp>
#include <boost/math/distributions/normal.hpp>
#include <fmt/format.h>

#include "fairdeck/certify/null_laws.hpp"
#include "fairdeck/certify/validity.hpp"
#include "fairdeck/stats/bins.hpp"
#include "fairdeck/stats/tests.hpp"

namespace fairdeck::certify {
namespace {

constexpr double power = 0.9;


double chi2_noncentrality(double df, double threshold) { return chi2_noncentrality_for(df, threshold, power); }
double normal_shift(double threshold) { return normal_shift_for(threshold, power); }

double poisson_upper(double x, double lambda) { return poisson_upper_tail(x, lambda); }

// Rate ratio lambda1 / lambda0 that a one-sided upper Poisson test at `threshold` detects
// with 90% power.
double poisson_ratio(double lambda0, double threshold) {
  double crit = std::floor(lambda0);
  while (poisson_upper(crit, lambda0) >= threshold) crit += std::max(1.0, std::floor(std::sqrt(lambda0) / 4));
  double lo = lambda0, hi = std::max(2 * crit, lambda0 * 2);
  while (poisson_upper(crit, hi) < power) hi *= 2;
  for (int i = 0; i < 100; ++i) {
    const double mid = (lo + hi) / 2;
    (poisson_upper(crit, mid) < power ? lo : hi) = mid;
  }
  return hi / lambda0;
}

void fill_effect(test_result& t, double threshold) {
  if (!t.valid() || t.effect_n <= 0) return;
  double e = 0;
  switch (t.effect) {
    case effect_kind::none:
      return;
    case effect_kind::chi2:
      e = std::sqrt(chi2_noncentrality(t.df.value_or(1), threshold) / t.effect_n);
      if (t.effect_unit.empty()) {
        t.effect_unit = "Cohen's w";
        t.effect_text = fmt::format("detects Cohen's w >= {:.3g} (w^2 = sum (p - p0)^2 / p0 over its bins) with 90% power", e);
      } else {
        t.effect_text = fmt::format("detects {} >= {:.3g} with 90% power", t.effect_unit, e);
      }
      break;
    case effect_kind::normal:
      e = t.effect_scale * normal_shift(threshold) / std::sqrt(t.effect_n);
      t.effect_text = fmt::format("detects {} >= {:.3g} with 90% power", t.effect_unit, e);
      break;
    case effect_kind::poisson_rate:
      e = poisson_ratio(t.expected.value_or(0), threshold);
      t.effect_text = fmt::format("detects an event rate >= {:.3g} x the null rate with 90% power", e);
      if (t.effect_unit.empty()) t.effect_unit = "rate ratio";
      break;
  }
  t.detectable_effect = e;
}

}  // namespace

// Smallest non-centrality lambda with P(chi2'(df, lambda) > crit) >= power.
double chi2_noncentrality_for(double df, double threshold, double pw) {
  const boost::math::chi_squared_distribution<double> null(df);
  const double crit = boost::math::quantile(boost::math::complement(null, threshold));
  return boost::math::non_central_chi_squared_distribution<double>::find_non_centrality(df, crit, 1 - pw);
}

double normal_shift_for(double threshold, double pw) {
  const boost::math::normal_distribution<double> z;
  return boost::math::quantile(boost::math::complement(z, threshold / 2)) + boost::math::quantile(z, pw);
}

std::string_view outcome_name(outcome o) noexcept {
  switch (o) {
    case outcome::pass: return "pass";
    case outcome::fail: return "fail";
    case outcome::invalid: break;
  }
  return "invalid";
}

test_result invalid(test_result&& r, std::string why) {
  test_result out = std::move(r);
  out.p_value.reset();
  out.result = outcome::invalid;
  out.note = std::move(why);
  return out;
}

double two_sided_normal(double z) noexcept { return std::erfc(std::abs(z) / std::sqrt(2.0)); }

decision decide(std::span<test_result> tests, double alpha) {
  if (!(alpha > 0 && alpha < 1)) throw std::invalid_argument("alpha must be between 0 and 1");
  decision d;
  d.alpha = alpha;
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < tests.size(); ++i) {
    if (tests[i].valid()) {
      order.push_back(i);
      tests[i].result = outcome::pass;
    } else {
      tests[i].result = outcome::invalid;
      ++d.invalid_tests;
    }
  }
  d.valid_tests = order.size();
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return *tests[a].p_value < *tests[b].p_value; });
  const double k = static_cast<double>(order.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    if (!(*tests[order[i]].p_value < alpha / (k - static_cast<double>(i)))) break;  // Holm stops here
    tests[order[i]].result = outcome::fail;
    ++d.failed_tests;
  }
  d.bonferroni_threshold = order.empty() ? alpha : alpha / k;
  for (auto& t : tests) fill_effect(t, d.bonferroni_threshold);
  d.verdict = d.failed_tests ? outcome::fail : (d.invalid_tests || order.empty()) ? outcome::invalid : outcome::pass;
  d.rule = fmt::format(
      "Holm step-down over the {} valid tests at family-wise alpha = {:g} ({:g}% confidence): the smallest p-value "
      "fails below {:.3g} = alpha/{}; a report passes only when no test fails and none lacks data",
      d.valid_tests, alpha, 100 * (1 - alpha), d.bonferroni_threshold, d.valid_tests);
  return d;
}

outcome family_verdict(std::span<const test_result> tests, std::string_view family) {
  bool any = false, any_invalid = false;
  for (const auto& t : tests) {
    if (t.family != family) continue;
    any = true;
    if (t.result == outcome::fail) return outcome::fail;
    if (t.result == outcome::invalid) any_invalid = true;
  }
  return (!any || any_invalid) ? outcome::invalid : outcome::pass;
}

void chi2_against(test_result& r, const std::vector<double>& observed, const std::vector<double>& null) {
  const double n = std::accumulate(observed.begin(), observed.end(), 0.0);
  r.distribution = "chi2";
  if (n <= 0) {
    r = invalid(std::move(r), "no data");
    return;
  }
  auto [obs, p] = stats::pool_bins(observed, null, n);
  if (obs.size() < 2) {
    r = invalid(std::move(r), "too little data for two bins of 5 expected counts");
    return;
  }
  double x2 = 0;
  for (std::size_t b = 0; b < obs.size(); ++b) {
    const double e = n * p[b];
    x2 += (obs[b] - e) * (obs[b] - e) / e;
  }
  r.statistic = x2;
  r.df = static_cast<double>(obs.size() - 1);
  r.p_value = stats::chi2_upper(x2, *r.df);
  r.effect = effect_kind::chi2;
  r.effect_n = n;
  if (r.note.empty()) r.note = fmt::format("{} bins after pooling to >= 5 expected", obs.size());
}

const validity& validity_of(std::string_view test) {
  for (const auto& v : validity_table)
    if (v.test == test) return v;
  throw std::logic_error(fmt::format("no validity row for the test '{}'", test));
}

std::string with_commas(std::uint64_t v) {
  std::string d = std::to_string(v), out;
  for (std::size_t i = 0; i < d.size(); ++i) {
    if (i && (d.size() - i) % 3 == 0) out += ',';
    out += d[i];
  }
  return out;
}

std::string needs(std::uint64_t need, std::uint64_t has, std::string_view unit) {
  return fmt::format("needs {} {}, has {}", with_commas(need), unit, with_commas(has));
}

}  // namespace fairdeck::certify
