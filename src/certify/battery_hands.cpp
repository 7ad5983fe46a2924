// Hole-card and seat tests of fairdeck/certify/hands.hpp (the board tests are in
// battery_hands_board.cpp). Null laws: exact combinatorics of one 52-card deck.
#include <algorithm>
#include <cmath>
#include <mutex>
#include <numeric>

#include <boost/math/distributions/binomial.hpp>
#include <fmt/format.h>

#include "fairdeck/certify/hands.hpp"

namespace fairdeck::certify {
namespace {

// Combos of a class: 6 pairs, 4 suited, 12 offsuit (class = 13 i + j, preflop_table.hpp).
unsigned class_combos(unsigned cls) noexcept {
  const unsigned i = cls / 13, j = cls % 13;
  return i == j ? 6 : i < j ? 4 : 12;
}

struct percentiles {
  std::array<double, poker::preflop_classes> at{};
  double sd = 0;
};

const percentiles& percentile_table() {
  static const percentiles t = [] {
    percentiles p;
    const auto& ranking = poker::preflop_ranking();  // best first
    unsigned weaker = hole_combos;
    for (unsigned cls : ranking) {
      const unsigned n = class_combos(cls);
      weaker -= n;
      p.at[cls] = (weaker + n / 2.0) / hole_combos;
    }
    double var = 0;
    for (unsigned c = 0; c < poker::preflop_classes; ++c)
      var += class_combos(c) * (p.at[c] - 0.5) * (p.at[c] - 0.5) / hole_combos;
    p.sd = std::sqrt(var);
    return p;
  }();
  return t;
}

// The most extreme of `cells` binomial counts (two-sided exact tails), Bonferroni over the
// cells. Fills statistic (the smallest per-cell p-value), p_value, expected (of that cell).
void extreme_cell(test_result& r, std::span<const std::uint64_t> count, std::span<const double> p, std::uint64_t n,
                  const auto& cell_name) {
  double best = 2;
  std::size_t at = 0;
  for (std::size_t c = 0; c < count.size(); ++c) {
    const double pc = binomial_two_sided(count[c], n, p[c]);
    if (pc < best) best = pc, at = c;
  }
  r.distribution = "binomial";
  r.statistic = best;
  r.p_value = std::min(1.0, best * static_cast<double>(count.size()));
  r.expected = static_cast<double>(n) * p[at];
  r.note = fmt::format("most extreme: {} seen {} times, {:.1f} expected (exact two-sided p {:.3g}, x {} cells)",
                       cell_name(at), count[at], *r.expected, best, count.size());
}

// Exact tests need no minimum for their law, but a missing cell is visible only from the size
// where 2 m (1 - p)^n < alpha: the report says from which size (at alpha = 0.01 alone; Holm
// over K tests needs a little more, docs/certify.md).
std::string missing_cell_text(double p, unsigned cells, const char* what) {
  const double n = std::ceil(std::log(0.01 / (2.0 * cells)) / std::log1p(-p));
  return fmt::format("{} never dealt fails from {:.0f} hands at alpha = 0.01", what, n);
}

}  // namespace

double hole_percentile(unsigned cls) noexcept { return percentile_table().at[cls]; }
double hole_percentile_sd() noexcept { return percentile_table().sd; }

double binomial_two_sided(std::uint64_t x, std::uint64_t n, double p) {
  if (n == 0) return 1;
  const boost::math::binomial_distribution<double> b(static_cast<double>(n), p);
  const double xd = static_cast<double>(x);
  const double lo = boost::math::cdf(b, xd);
  const double hi = x == 0 ? 1.0 : boost::math::cdf(boost::math::complement(b, xd - 1));
  return std::min(1.0, 2 * std::min(lo, hi));
}

void holdem_tally::add(const dealt_holdem& d) {
  if (d.seats.empty()) return;
  ++deals_;
  const auto& first = d.seats[0];
  ++combo_[combo_index(first[0], first[1])];
  if (d.seats_known) {
    for (std::size_t s = 0; s < d.seats.size(); ++s) {
      const std::size_t seat = d.first_seat + s;
      if (seat >= seat_n_.size()) break;
      const unsigned cls = poker::preflop_class_of({d.seats[s][0], d.seats[s][1]});
      ++seat_n_[seat];
      ++seat_class_[seat][cls];
      seat_sum_[seat] += hole_percentile(cls);
    }
  }
  if (d.board.size() >= 3) {
    ++flops_;
    ++texture_[static_cast<unsigned>(texture_of(d.board[0], d.board[1], d.board[2]))];
  }
  if (d.board.size() == 5) {
    ++finals_;
    const std::array<card_t, 7> seven{first[0], first[1], d.board[0], d.board[1], d.board[2], d.board[3], d.board[4]};
    ++final_class_[poker::preflop_class_of({first[0], first[1]})];
    ++final_seen_[static_cast<unsigned>(poker::category_of(poker::hand_evaluator::instance().eval7(seven.data())))];
  }
}

void holdem_tally::results(std::vector<test_result>& out) const {
  if (deals_ == 0) return;
  constexpr std::uint64_t min_hands = 100;
  // Class counts from the combos.
  std::array<std::uint64_t, poker::preflop_classes> cls{};
  for (card_t b = 1; b < cards_per_deck; ++b)
    for (card_t a = 0; a < b; ++a) cls[poker::preflop_class_of({a, b})] += combo_[combo_index(a, b)];
  std::vector<double> cls_p(poker::preflop_classes), combo_p(hole_combos, 1.0 / hole_combos);
  for (unsigned c = 0; c < poker::preflop_classes; ++c) cls_p[c] = class_combos(c) / static_cast<double>(hole_combos);
  const auto class_name = [](std::size_t c) { return poker::preflop_class_name(static_cast<unsigned>(c)); };
  const auto combo_name = [](std::size_t i) {
    card_t hi = 1;
    while (combo_index(0, static_cast<card_t>(hi + 1)) <= i) ++hi;
    const card_t lo = static_cast<card_t>(i - combo_index(0, hi));
    return format_card(lo, {}) + format_card(hi, {});
  };
  const std::string ref_cls = "exact: 6 (pair), 4 (suited), 12 (offsuit) of the C(52,2) = 1,326 starting hands";
  // One hole-card test: invalid below min_hands, else `fill` computes it.
  const auto hole_test = [&](test_result r, const auto& fill) {
    r.family = "hands";
    r.sample = deals_;
    r.min_sample = min_hands;
    r.unit = "hands";
    if (deals_ < min_hands) {
      out.push_back(invalid(std::move(r), fmt::format("needs {} hands, has {}", min_hands, deals_)));
      return;
    }
    fill(r);
    out.push_back(std::move(r));
  };
  hole_test({.name = "hole-classes",
             .description = "starting hands: the 169 classes (AA, AKs, AKo, ...) against their exact probabilities",
             .reference = ref_cls + "; Pearson chi-square, classes pooled in grid order to >= 5 expected",
             .distribution = "chi2"},
            [&](test_result& r) { chi2_against(r, std::vector<double>(cls.begin(), cls.end()), cls_p); });
  hole_test({.name = "hole-class-extreme",
             .description = "starting hands: the class furthest from its exact probability (catches a missing or "
                            "favoured class such as AA)",
             .reference = ref_cls + "; exact binomial tails, Bonferroni over the 169 classes",
             .distribution = "binomial"},
            [&](test_result& r) {
              extreme_cell(r, cls, cls_p, deals_, class_name);
              r.note += "; " + missing_cell_text(6.0 / hole_combos, poker::preflop_classes, "a pair class (AA)");
            });
  hole_test({.name = "hole-combos",
             .description = "starting hands: the 1,326 exact two-card combinations, each 1/1326",
             .reference = "exact: uniform over C(52,2) = 1,326; Pearson chi-square, combinations pooled in index "
                          "order to >= 5 expected",
             .distribution = "chi2"},
            [&](test_result& r) { chi2_against(r, std::vector<double>(combo_.begin(), combo_.end()), combo_p); });
  hole_test({.name = "hole-combo-extreme",
             .description = "starting hands: the two-card combination furthest from 1/1326 (a card pair never or "
                            "too often dealt)",
             .reference = "exact binomial(n, 1/1326) tails, Bonferroni over the 1,326 combinations",
             .distribution = "binomial"},
            [&](test_result& r) {
              extreme_cell(r, combo_, combo_p, deals_, combo_name);
              r.note += "; " + missing_cell_text(1.0 / hole_combos, hole_combos, "a combination");
            });
  // Seats: only when the input names them (several seats per line, or "N:" labels).
  unsigned seats = 0;
  std::uint64_t seat_min = UINT64_MAX;
  for (std::size_t s = 1; s < seat_n_.size(); ++s)
    if (seat_n_[s]) ++seats, seat_min = std::min(seat_min, seat_n_[s]);
  if (seats) {
    test_result r{.name = "seat-strength",
                  .family = "hands",
                  .description =
                      "each seat's mean starting-hand percentile (preflop ranking) against 1/2: a "
                      "dealer favouring a seat",
                  .reference =
                      "exact null mean 1/2 and variance over the 1,326 combos; normal z per seat, "
                      "Bonferroni over the seats",
                  .distribution = "normal",
                  .sample = seat_min,
                  .min_sample = min_hands,
                  .unit = "hands per seat"};
    if (seat_min < min_hands) {
      out.push_back(invalid(std::move(r), fmt::format("needs {} hands at every seat, has {}", min_hands, seat_min)));
    } else {
      const double sd = hole_percentile_sd();
      double worst = 0;
      std::size_t at = 0;
      for (std::size_t s = 1; s < seat_n_.size(); ++s) {
        if (!seat_n_[s]) continue;
        const double n = static_cast<double>(seat_n_[s]);
        const double z = (seat_sum_[s] - n / 2) / (sd * std::sqrt(n));
        if (std::abs(z) > std::abs(worst) || at == 0) worst = z, at = s;
      }
      r.statistic = worst;
      r.p_value = std::min(1.0, seats * two_sided_normal(worst));
      r.expected = 0.5;
      r.note = fmt::format("seat {} (of {}): mean percentile {:.4f} over {} hands (z = {:.2f})", at, seats,
                           seat_sum_[at] / static_cast<double>(seat_n_[at]), seat_n_[at], worst);
      r.effect = effect_kind::normal;
      r.effect_n = static_cast<double>(seat_min);
      r.effect_scale = sd;
      r.effect_unit = "shift of one seat's mean percentile";
      out.push_back(std::move(r));
    }
    test_result x{.name = "seat-class-extreme",
                  .family = "hands",
                  .description =
                      "the (seat, starting-hand class) furthest from its exact probability: a class "
                      "missing or favoured at one seat",
                  .reference = ref_cls + "; exact binomial tails per seat, Bonferroni over seats x 169 classes",
                  .distribution = "binomial",
                  .sample = seat_min,
                  .min_sample = min_hands,
                  .unit = "hands per seat"};
    if (seat_min < min_hands) {
      out.push_back(invalid(std::move(x), fmt::format("needs {} hands at every seat, has {}", min_hands, seat_min)));
    } else {
      double best = 2;
      std::size_t at_seat = 0, at_cls = 0;
      for (std::size_t s = 1; s < seat_n_.size(); ++s) {
        if (!seat_n_[s]) continue;
        for (unsigned c = 0; c < poker::preflop_classes; ++c) {
          const double pc = binomial_two_sided(seat_class_[s][c], seat_n_[s], cls_p[c]);
          if (pc < best) best = pc, at_seat = s, at_cls = c;
        }
      }
      x.statistic = best;
      x.p_value = std::min(1.0, best * seats * poker::preflop_classes);
      x.expected = static_cast<double>(seat_n_[at_seat]) * cls_p[at_cls];
      x.note = fmt::format(
          "most extreme: seat {} {} seen {} times, {:.1f} expected (exact two-sided p {:.3g}, x {} "
          "cells)",
          at_seat, class_name(at_cls), seat_class_[at_seat][at_cls], *x.expected, best, seats * poker::preflop_classes);
      out.push_back(std::move(x));
    }
  }
  board_results(out);
}

}  // namespace fairdeck::certify
