#include "fairdeck/stats/tests.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>

#include <boost/math/distributions/binomial.hpp>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/special_functions/gamma.hpp>
#include <fmt/format.h>

#include "fairdeck/shuffle/mixing.hpp"
#include "fairdeck/stats/bins.hpp"

namespace fairdeck::stats {
namespace {

// Renumbers category labels to 0..k-1 (in order of first use) and returns k.
std::size_t compact(categories& cat) {
  std::map<int, int> seen;
  for (int& c : cat) {
    if (c < 0) continue;
    const auto [it, fresh] = seen.emplace(c, static_cast<int>(seen.size()));
    c = it->second;
  }
  return seen.size();
}

categories identity_categories(std::size_t n) {
  categories cat(n);
  std::iota(cat.begin(), cat.end(), 0);
  return cat;
}

// Cards per category, after compact().
std::vector<double> category_sizes(const categories& cat, std::size_t k) {
  std::vector<double> size(k, 0.0);
  for (int c : cat)
    if (c >= 0) size[static_cast<std::size_t>(c)] += 1;
  return size;
}

test_result skipped(test_result r, std::string why) {
  r.p_value.reset();
  r.note = std::move(why);
  return r;
}

}  // namespace

double chi2_upper(double x, double df) {
  if (!(x > 0)) return 1.0;
  return boost::math::gamma_q(df / 2, x / 2);
}

categories suit_categories(std::span<const card_t> cards, const deck_spec& spec) {
  categories cat;
  cat.reserve(cards.size());
  for (card_t c : cards) cat.push_back(is_joker(c, spec) ? 4 : static_cast<int>(suit_of(c)));
  return cat;
}

categories rank_categories(std::span<const card_t> cards, const deck_spec& spec) {
  categories cat;
  cat.reserve(cards.size());
  for (card_t c : cards) cat.push_back(is_joker(c, spec) ? 13 : static_cast<int>(rank_of(c)));
  return cat;
}

test_result position_test(const audit_counts& c, std::size_t position, const categories& cat_in, std::string name,
                          std::string description) {
  test_result r{std::move(name), std::move(description), "chi2", 0, {}, {}, {}};
  categories cat = cat_in;
  const std::size_t k = compact(cat);
  if (k < 2) return skipped(std::move(r), "every card is in the same category");
  if (c.trials == 0) return skipped(std::move(r), "no deals counted");
  const auto size = category_sizes(cat, k);
  std::vector<double> observed(k, 0.0);
  for (std::size_t card = 0; card < c.n; ++card)
    if (cat[card] >= 0) observed[static_cast<std::size_t>(cat[card])] += static_cast<double>(c.at(position, card));
  const double t = static_cast<double>(c.trials);
  double x2 = 0, min_expected = std::numeric_limits<double>::infinity();
  for (std::size_t s = 0; s < k; ++s) {
    const double e = t * size[s] / static_cast<double>(c.n);
    min_expected = std::min(min_expected, e);
    x2 += (observed[s] - e) * (observed[s] - e) / e;
  }
  if (min_expected < 1) return skipped(std::move(r), "fewer than one expected deal per category");
  r.statistic = x2;
  r.df = static_cast<double>(k - 1);
  r.p_value = chi2_upper(x2, *r.df);
  if (min_expected < 5) r.note = "few deals per category: chi-square approximation is rough";
  return r;
}

test_result matrix_test(const audit_counts& c, const categories& cat_in, std::string name, std::string description) {
  test_result r{std::move(name), std::move(description), "chi2", 0, {}, {}, {}};
  categories cat = cat_in;
  const std::size_t k = compact(cat);
  if (k < 2) return skipped(std::move(r), "every card is in the same category");
  if (c.trials == 0) return skipped(std::move(r), "no deals counted");
  const auto size = category_sizes(cat, k);
  const double n = static_cast<double>(c.n), t = static_cast<double>(c.trials);
  const double min_expected = t * *std::min_element(size.begin(), size.end()) / n;
  if (min_expected < 1) return skipped(std::move(r), "fewer than one expected deal per cell");
  std::vector<double> expected(k), observed(k);
  for (std::size_t s = 0; s < k; ++s) expected[s] = t * size[s] / n;
  double x2 = 0;
  for (std::size_t p = 0; p < c.n; ++p) {
    std::fill(observed.begin(), observed.end(), 0.0);
    for (std::size_t card = 0; card < c.n; ++card)
      if (cat[card] >= 0) observed[static_cast<std::size_t>(cat[card])] += static_cast<double>(c.at(p, card));
    for (std::size_t s = 0; s < k; ++s) x2 += (observed[s] - expected[s]) * (observed[s] - expected[s]) / expected[s];
  }
  // Cov(counts) = T/(n-1) (H_n (x) n(D - pp')), H_n the centring projection: X^2 is
  // n/(n-1) times chi2 with (n-1)(k-1) degrees of freedom (docs/audit.md).
  r.statistic = x2 * (n - 1) / n;
  r.df = (n - 1) * static_cast<double>(k - 1);
  r.p_value = chi2_upper(r.statistic, *r.df);
  if (min_expected < 5) r.note = "few deals per cell: chi-square approximation is rough";
  return r;
}

test_result max_cell_test(const audit_counts& c) {
  test_result r{"max-cell", "the most over- or under-represented card at any single position", "binomial-bonferroni",
                0, {}, {}, {}};
  if (c.trials == 0) return skipped(std::move(r), "no deals counted");
  const auto [lo_it, hi_it] = std::minmax_element(c.position_card.begin(), c.position_card.end());
  const double n = static_cast<double>(c.n), t = static_cast<double>(c.trials), p = 1 / n;
  const boost::math::binomial_distribution<double> cell(t, p);
  const double lo_tail = boost::math::cdf(cell, static_cast<double>(*lo_it));
  const double hi_tail = *hi_it == 0 ? 1.0 : boost::math::cdf(boost::math::complement(cell, static_cast<double>(*hi_it - 1)));
  const double sd = std::sqrt(t * p * (1 - p));
  r.statistic = std::max(static_cast<double>(*hi_it) - t * p, t * p - static_cast<double>(*lo_it)) / sd;
  r.p_value = std::min(1.0, 2 * n * n * std::min(lo_tail, hi_tail));
  r.note = "statistic: largest |count - expected| in standard deviations; p-value conservative (Bonferroni)";
  return r;
}

test_result successions_test(const audit_counts& c) {
  test_result r{"successions", "how often card c+1 lies directly below card c (under-mixed decks keep runs)", "chi2",
                0, {}, {}, {}};
  if (c.trials == 0) return skipped(std::move(r), "no deals counted");
  const double n = static_cast<double>(c.n), t = static_cast<double>(c.trials);
  // Per deal: n-1 indicators, each 1/n; any two jointly 1/(n(n-1)) (adjacent pairs too).
  const double mean = t * (n - 1) / n, var = t * (n * n - n - 1) / (n * n);
  const double z = (static_cast<double>(c.successions) - mean) / std::sqrt(var);
  r.statistic = z * z;
  r.df = 1;
  r.p_value = std::erfc(std::abs(z) / std::sqrt(2.0));
  r.note = fmt::format("{} successions, {:.1f} expected", c.successions, mean);
  return r;
}

test_result rising_sequences_test(const audit_counts& c) {
  test_result r{"rising-sequences",
                "how many rising sequences (cards c, c+1, ... in order from the top) each deal keeps (riffles)",
                "chi2", 0, {}, {}, {}};
  if (c.trials == 0) return skipped(std::move(r), "no deals counted");
  const auto uniform = uniform_rising_sequence_distribution(c.n);  // A(n, r-1) / n!
  const double t = static_cast<double>(c.trials);
  // Neighbouring r are pooled from r = 1 up (pool_bins, the rule riffle_detectability_table()
  // predicts power with) until a bin expects at least 5 deals.
  std::vector<double> counts(c.n);
  for (std::size_t i = 0; i < c.n; ++i) counts[i] = static_cast<double>(c.rising[i]);
  auto [observed, expected] = pool_bins(counts, uniform, t);
  for (auto& e : expected) e *= t;
  if (expected.size() < 2) return skipped(std::move(r), "too few deals for two bins of 5 expected deals");
  double x2 = 0;
  for (std::size_t b = 0; b < expected.size(); ++b)
    x2 += (observed[b] - expected[b]) * (observed[b] - expected[b]) / expected[b];
  r.statistic = x2;
  r.df = static_cast<double>(expected.size() - 1);
  r.p_value = chi2_upper(x2, *r.df);
  r.note = fmt::format("r = 1..{} pooled into {} bins of at least 5 expected deals", c.n, expected.size());
  return r;
}

test_result serial_test(const audit_counts& c) {
  test_result r{"serial", "whether one deal's top card predicts the next deal's (weak generators)", "chi2", 0, {}, {},
                {}};
  std::size_t g = serial_groups(c.n);
  std::vector<double> table(c.serial.begin(), c.serial.end());
  const double pairs = std::accumulate(table.begin(), table.end(), 0.0);
  if (pairs < 20) return skipped(std::move(r), "fewer than 20 consecutive deals from one stream");
  for (;;) {
    std::vector<double> rows(g, 0.0), cols(g, 0.0);
    for (std::size_t a = 0; a < g; ++a)
      for (std::size_t b = 0; b < g; ++b) rows[a] += table[a * g + b], cols[b] += table[a * g + b];
    std::size_t live_rows = 0, live_cols = 0;
    double min_expected = std::numeric_limits<double>::infinity();
    for (std::size_t a = 0; a < g; ++a) live_rows += rows[a] > 0;
    for (std::size_t b = 0; b < g; ++b) live_cols += cols[b] > 0;
    for (std::size_t a = 0; a < g; ++a)
      for (std::size_t b = 0; b < g; ++b)
        if (rows[a] > 0 && cols[b] > 0) min_expected = std::min(min_expected, rows[a] * cols[b] / pairs);
    if (live_rows < 2 || live_cols < 2)
      return skipped(std::move(r), "top cards of consecutive deals always fall in one group");
    if (min_expected >= 5 || g <= 2) {
      double x2 = 0;
      for (std::size_t a = 0; a < g; ++a)
        for (std::size_t b = 0; b < g; ++b)
          if (rows[a] > 0 && cols[b] > 0) {
            const double e = rows[a] * cols[b] / pairs, d = table[a * g + b] - e;
            x2 += d * d / e;
          }
      r.statistic = x2;
      r.df = static_cast<double>((live_rows - 1) * (live_cols - 1));
      r.p_value = chi2_upper(x2, *r.df);
      r.note = fmt::format("{} consecutive pairs, top cards in {} groups", static_cast<std::uint64_t>(pairs), g);
      return r;
    }
    // Merge neighbouring groups so the chi-square approximation holds.
    const std::size_t h = (g + 1) / 2;
    std::vector<double> merged(h * h, 0.0);
    for (std::size_t a = 0; a < g; ++a)
      for (std::size_t b = 0; b < g; ++b) merged[(a / 2) * h + b / 2] += table[a * g + b];
    table = std::move(merged);
    g = h;
  }
}

test_result orders_test(const audit_counts& c) {
  test_result r{"orders", "how often each of the n! possible orders occurs", "chi2", 0, {}, {}, {}};
  if (c.orders.empty()) return skipped(std::move(r), "only counted for decks of at most 8 cards");
  const double k = static_cast<double>(c.orders.size()), e = static_cast<double>(c.trials) / k;
  if (e < 1) return skipped(std::move(r), fmt::format("needs at least {} deals (one per order)", c.orders.size()));
  double x2 = 0;
  for (std::uint64_t v : c.orders) x2 += (static_cast<double>(v) - e) * (static_cast<double>(v) - e) / e;
  r.statistic = x2;
  r.df = k - 1;
  r.p_value = chi2_upper(x2, k - 1);
  if (e < 5) r.note = "few deals per order: chi-square approximation is rough";
  return r;
}

std::vector<test_result> run_tests(const audit_counts& c, std::span<const card_t> cards, const deck_spec& spec) {
  const categories card = identity_categories(c.n), suit = suit_categories(cards, spec),
                   rank = rank_categories(cards, spec);
  std::vector<test_result> out;
  out.push_back(position_test(c, 0, card, "first-card", "how often each card comes first"));
  out.push_back(position_test(c, 0, suit, "first-suit", "how often each suit comes first"));
  out.push_back(position_test(c, 0, rank, "first-rank", "how often each rank comes first"));
  out.push_back(matrix_test(c, card, "position-card", "how often each card lands at each position"));
  out.push_back(matrix_test(c, suit, "position-suit", "how often each suit lands at each position"));
  out.push_back(matrix_test(c, rank, "position-rank", "how often each rank lands at each position"));
  out.push_back(max_cell_test(c));
  out.push_back(successions_test(c));
  out.push_back(rising_sequences_test(c));
  out.push_back(serial_test(c));
  if (c.n <= max_order_cards) out.push_back(orders_test(c));
  return out;
}

effect_size measure_effect(const audit_counts& c, double confidence) {
  effect_size e;
  if (c.trials == 0) return e;
  const double n = static_cast<double>(c.n), t = static_cast<double>(c.trials);
  const double tail = (1 - confidence) / (2 * n * n);
  const double z = boost::math::quantile(boost::math::complement(boost::math::normal_distribution<double>(), tail));
  const double z2 = z * z;
  // Wilson intervals depend only on the count: compute once per distinct value.
  std::map<std::uint64_t, std::pair<double, double>> bounds;
  for (std::size_t i = 0; i < c.position_card.size(); ++i) {
    const std::uint64_t v = c.position_card[i];
    const double ratio = static_cast<double>(v) * n / t, dev = std::abs(ratio - 1);
    if (dev > e.max_deviation || i == 0) {
      e.max_deviation = dev;
      e.ratio = ratio;
      e.position = i / c.n;
      e.card = i % c.n;
    }
    auto it = bounds.find(v);
    if (it == bounds.end()) {
      const double ph = static_cast<double>(v) / t;
      const double centre = (ph + z2 / (2 * t)) / (1 + z2 / t);
      const double half = z / (1 + z2 / t) * std::sqrt(ph * (1 - ph) / t + z2 / (4 * t * t));
      const double lo = n * std::max(0.0, centre - half) - 1, hi = n * std::min(1.0, centre + half) - 1;
      it = bounds.emplace(v, std::pair{std::max({0.0, lo, -hi}), std::max(std::abs(lo), std::abs(hi))}).first;
    }
    e.lower = std::max(e.lower, it->second.first);
    e.upper = std::max(e.upper, it->second.second);
  }
  return e;
}

verdict decide(std::span<const test_result> tests, double alpha) {
  verdict v;
  v.alpha = alpha;
  for (const auto& t : tests) {
    if (t.skipped()) continue;
    ++v.tests_run;
    if (!v.worst_p || *t.p_value < *v.worst_p) {
      v.worst_p = *t.p_value;
      v.worst_test = t.name;
    }
  }
  v.threshold = v.tests_run ? alpha / static_cast<double>(v.tests_run) : alpha;
  v.biased = v.worst_p && *v.worst_p < v.threshold;
  return v;
}

}  // namespace fairdeck::stats
