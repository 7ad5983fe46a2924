// Board tests of fairdeck/certify/hands.hpp: flop texture against the exact counts of the
// C(52,3) flops, and the first seat's final category against its exact conditional law given
// its hole cards (every C(50,5) board per starting-hand class: a generated table).
#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include "fairdeck/certify/hands.hpp"
#include "fairdeck/poker/enumerate.hpp"
#include "fairdeck/stats/tests.hpp"
#include "final_category_data.hpp"

namespace fairdeck::certify {
namespace {

constexpr std::array<const char*, flop_texture_count> texture_keys = {"trips",          "paired-two-tone",
                                                                      "paired-rainbow", "monotone-connected",
                                                                      "monotone-other", "two-tone-connected",
                                                                      "two-tone-other", "rainbow-connected",
                                                                      "rainbow-other"};

// Three distinct ranks within a window of five (ace high or low): three to a straight.
bool connected(unsigned a, unsigned b, unsigned c) noexcept {  // rank_of: 0 = ace .. 12 = king
  const auto span_ok = [](unsigned x, unsigned y, unsigned z) {
    return std::max({x, y, z}) - std::min({x, y, z}) <= 4;
  };
  const auto high = [](unsigned r) { return r == 0 ? 13u : r; };
  return span_ok(a, b, c) || span_ok(high(a), high(b), high(c));
}

// Solves A x = b for a symmetric positive definite A (Cholesky); false when A is singular.
bool solve_spd(std::vector<std::vector<double>> a, std::vector<double>& b) {
  const std::size_t n = b.size();
  for (std::size_t j = 0; j < n; ++j) {
    double d = a[j][j];
    for (std::size_t k = 0; k < j; ++k) d -= a[j][k] * a[j][k];
    if (!(d > 1e-12 * std::max(1.0, a[j][j]))) return false;
    a[j][j] = std::sqrt(d);
    for (std::size_t i = j + 1; i < n; ++i) {
      double s = a[i][j];
      for (std::size_t k = 0; k < j; ++k) s -= a[i][k] * a[j][k];
      a[i][j] = s / a[j][j];
    }
  }
  for (std::size_t i = 0; i < n; ++i) {  // L y = b
    for (std::size_t k = 0; k < i; ++k) b[i] -= a[i][k] * b[k];
    b[i] /= a[i][i];
  }
  for (std::size_t i = n; i-- > 0;) {  // L^T x = y
    for (std::size_t k = i + 1; k < n; ++k) b[i] -= a[k][i] * b[k];
    b[i] /= a[i][i];
  }
  return true;
}

}  // namespace

flop_texture texture_of(card_t a, card_t b, card_t c) noexcept {
  const unsigned ra = rank_of(a), rb = rank_of(b), rc = rank_of(c);
  const unsigned sa = suit_of(a), sb = suit_of(b), sc = suit_of(c);
  const unsigned suits = 1 + (sb != sa) + (sc != sa && sc != sb);
  if (ra == rb && rb == rc) return flop_texture::trips;
  if (ra == rb || rb == rc || ra == rc)
    return suits == 2 ? flop_texture::paired_two_tone : flop_texture::paired_rainbow;
  const bool conn = connected(ra, rb, rc);
  switch (suits) {
    case 1: return conn ? flop_texture::monotone_connected : flop_texture::monotone_other;
    case 2: return conn ? flop_texture::two_tone_connected : flop_texture::two_tone_other;
    default: return conn ? flop_texture::rainbow_connected : flop_texture::rainbow_other;
  }
}

const char* flop_texture_key(flop_texture t) noexcept { return texture_keys[static_cast<unsigned>(t)]; }

const std::array<std::uint64_t, flop_texture_count>& flop_texture_counts() {
  static const auto counts = [] {
    std::array<std::uint64_t, flop_texture_count> n{};
    for (card_t a = 0; a < cards_per_deck; ++a)
      for (card_t b = static_cast<card_t>(a + 1); b < cards_per_deck; ++b)
        for (card_t c = static_cast<card_t>(b + 1); c < cards_per_deck; ++c)
          ++n[static_cast<unsigned>(texture_of(a, b, c))];
    return n;
  }();
  return counts;
}

category_counts enumerate_final_categories(unsigned cls) {
  const auto hole = poker::preflop_class_combos(cls).front();
  std::vector<card_t> rest;
  for (card_t c = 0; c < cards_per_deck; ++c)
    if (c != hole[0] && c != hole[1]) rest.push_back(c);
  const poker::hand_accumulator base = poker::hand_accumulator{} + hole[0] + hole[1];
  category_counts n{};
  poker::for_each_completion<5>(base, rest, 0,
                                [&](poker::strength_t s) { ++n[static_cast<unsigned>(poker::category_of(s))]; });
  return n;
}

const std::array<category_counts, poker::preflop_classes>& final_category_counts() {
  static const auto table = [] {
    std::array<category_counts, poker::preflop_classes> t{};
    for (unsigned cls = 0; cls < poker::preflop_classes; ++cls)
      std::copy(std::begin(internal::final_category_data[cls]), std::end(internal::final_category_data[cls]),
                t[cls].begin());
    return t;
  }();
  return table;
}

void holdem_tally::board_results(std::vector<test_result>& out) const {
  constexpr std::uint64_t min_boards = 100;
  if (flops_) {
    test_result r{.name = "flop-texture",
                  .family = "hands",
                  .description = "flop texture: paired, monotone / two-tone / rainbow, three to a straight",
                  .reference = "exact counts of all C(52,3) = 22,100 flops; Pearson chi-square, pooled to >= 5 expected",
                  .distribution = "chi2",
                  .sample = flops_,
                  .min_sample = min_boards,
                  .unit = "flops"};
    if (flops_ < min_boards) {
      out.push_back(invalid(std::move(r), fmt::format("needs {} flops, has {}", min_boards, flops_)));
    } else {
      const auto& exact = flop_texture_counts();
      // Most likely first, so pooling merges the rare textures (trips, monotone).
      std::array<unsigned, flop_texture_count> order{};
      std::iota(order.begin(), order.end(), 0u);
      std::sort(order.begin(), order.end(), [&](unsigned a, unsigned b) { return exact[a] > exact[b]; });
      std::vector<double> obs, null;
      for (unsigned i : order) {
        obs.push_back(static_cast<double>(texture_[i]));
        null.push_back(static_cast<double>(exact[i]) / 22100.0);
      }
      chi2_against(r, obs, null);
      std::string seen;
      for (unsigned i = 0; i < flop_texture_count; ++i)
        seen += fmt::format("{}{} {} ({:.1f})", seen.empty() ? "" : ", ", texture_keys[i], texture_[i],
                            static_cast<double>(flops_) * static_cast<double>(exact[i]) / 22100.0);
      if (r.valid()) r.note = "seen (expected): " + seen;
      out.push_back(std::move(r));
    }
  }
  if (!finals_) return;
  test_result r{.name = "final-category",
                .family = "hands",
                .description = "the first seat's best-five category at the river given its hole cards",
                .reference =
                    "exact conditional law per starting-hand class (all C(50,5) boards); quadratic form in "
                    "the exact covariance, chi-square(k - 1)",
                .distribution = "chi2",
                .sample = finals_,
                .min_sample = min_boards,
                .unit = "hands"};
  if (finals_ < min_boards) {
    out.push_back(
        invalid(std::move(r), fmt::format("needs {} hands with a 5-card board, has {}", min_boards, finals_)));
    return;
  }
  const auto& table = final_category_counts();
  constexpr unsigned k = poker::category_count;
  const double boards = static_cast<double>(poker::choose(50, 5));
  std::vector<double> e(k, 0.0);
  std::vector<std::vector<double>> v(k, std::vector<double>(k, 0.0));
  for (unsigned c = 0; c < poker::preflop_classes; ++c) {
    if (!final_class_[c]) continue;
    const double n = static_cast<double>(final_class_[c]);
    for (unsigned i = 0; i < k; ++i) {
      const double pi = static_cast<double>(table[c][i]) / boards;
      e[i] += n * pi;
      v[i][i] += n * pi;
      for (unsigned j = 0; j < k; ++j) v[i][j] -= n * pi * static_cast<double>(table[c][j]) / boards;
    }
  }
  // Bins: categories by expectation, descending; the rarest merge into the next until each
  // expects >= 5 (as chi2_against pools).
  std::vector<unsigned> order(k);
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](unsigned a, unsigned b) { return e[a] > e[b]; });
  std::vector<unsigned> bin_of(k);
  std::vector<double> be;
  for (unsigned i : order) {
    if (!be.empty() && be.back() < 5) {
      be.back() += e[i];
    } else {
      be.push_back(e[i]);
    }
    bin_of[i] = static_cast<unsigned>(be.size() - 1);
  }
  while (be.size() > 1 && be.back() < 5) {  // a short last bin joins the one before
    for (auto& b : bin_of)
      if (b == be.size() - 1) b = static_cast<unsigned>(be.size() - 2);
    be[be.size() - 2] += be.back();
    be.pop_back();
  }
  const std::size_t bins = be.size();
  if (bins < 2) {
    out.push_back(invalid(std::move(r), "too little data for two bins of 5 expected counts"));
    return;
  }
  std::vector<double> d(bins, 0.0);
  std::vector<std::vector<double>> bv(bins, std::vector<double>(bins, 0.0));
  for (unsigned i = 0; i < k; ++i) {
    d[bin_of[i]] += static_cast<double>(final_seen_[i]) - e[i];
    for (unsigned j = 0; j < k; ++j) bv[bin_of[i]][bin_of[j]] += v[i][j];
  }
  // Drop the first (largest) bin: the deviations sum to 0.
  std::vector<double> x(d.begin() + 1, d.end());
  std::vector<std::vector<double>> a(bins - 1, std::vector<double>(bins - 1));
  for (std::size_t i = 1; i < bins; ++i)
    for (std::size_t j = 1; j < bins; ++j) a[i - 1][j - 1] = bv[i][j];
  const std::vector<double> dev = x;
  if (!solve_spd(a, x)) {
    out.push_back(invalid(std::move(r), "singular covariance"));
    return;
  }
  double q = 0;
  for (std::size_t i = 0; i < x.size(); ++i) q += dev[i] * x[i];
  r.statistic = q;
  r.df = static_cast<double>(bins - 1);
  r.p_value = stats::chi2_upper(q, *r.df);
  r.effect = effect_kind::chi2;
  r.effect_n = static_cast<double>(finals_);
  std::string seen;
  for (unsigned i = 0; i < k; ++i)
    seen += fmt::format("{}{} {} ({:.1f})", seen.empty() ? "" : ", ",
                        poker::category_key(static_cast<poker::hand_category>(i)), final_seen_[i], e[i]);
  r.note = fmt::format("{} bins; seen (expected): {}", bins, seen);
  out.push_back(std::move(r));
}

}  // namespace fairdeck::certify
