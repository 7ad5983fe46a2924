#include "fairdeck/stats/machine.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>

#include <fmt/format.h>

#include "fairdeck/random/bounded.hpp"
#include "fairdeck/stats/bins.hpp"

namespace fairdeck::stats {
namespace {

// Exact tails by dynamic programming up to this much work (decks x n x score), about 0.02 s.
constexpr double exact_tail_work = 2e7;

test_result skipped(test_result r, std::string why) {
  r.p_value.reset();
  r.note = std::move(why);
  return r;
}

double normal_upper(double z) { return 0.5 * std::erfc(z / std::numbers::sqrt2); }

// P(S >= s) for S = the sum over `decks` decks of Bernoulli(1/j), j = 2..n, exactly: the law of
// S truncated at s (everything >= s in one absorbing bin), one deck at a time.
double exact_tail(std::size_t n, std::uint64_t decks, std::uint64_t s) {
  std::vector<double> deck(n, 0.0);  // one deck's law, j = 2..n: support 0..n-1
  deck[0] = 1;
  for (std::size_t j = 2; j <= n; ++j) {
    const double p = 1.0 / static_cast<double>(j);
    for (std::size_t k = j - 1; k >= 1; --k) deck[k] = deck[k] * (1 - p) + deck[k - 1] * p;
    deck[0] *= 1 - p;
  }
  std::vector<double> f(s + 1, 0.0), g(s + 1, 0.0);
  f[0] = 1;
  std::uint64_t reach = 0;  // largest value with mass below the absorbing bin
  for (std::uint64_t d = 0; d < decks; ++d) {
    const std::uint64_t top = std::min<std::uint64_t>(s, reach + n - 1);
    std::fill(g.begin(), g.begin() + static_cast<std::ptrdiff_t>(top + 1), 0.0);
    g[s] = f[s];  // absorbed stays absorbed
    for (std::uint64_t k = 0; k <= std::min(reach, s - 1); ++k) {
      if (f[k] == 0) continue;
      for (std::size_t x = 0; x < n; ++x) g[std::min<std::uint64_t>(s, k + x)] += f[k] * deck[x];
    }
    if (s == 0) g[0] = 1;
    std::swap(f, g);
    reach = top;
  }
  return std::min(1.0, f[s]);
}

// The same by the Lugannani-Rice saddlepoint formula for a lattice variable (Daniels 1987).
double saddlepoint_tail(std::size_t n, std::uint64_t decks, std::uint64_t s) {
  const double D = static_cast<double>(decks), x = static_cast<double>(s);
  const auto moments = [&](double t, double& K, double& K1, double& K2) {
    K = K1 = K2 = 0;
    for (std::size_t j = 2; j <= n; ++j) {
      const double p = 1.0 / static_cast<double>(j);
      // log(1 - p + p e^t) and q = p e^t / (1 - p + p e^t), stable for either sign of t
      const double a = std::log1p(p * std::expm1(t));
      const double q = 1.0 / (1.0 + (1 - p) / p * std::exp(-t));
      K += a, K1 += q, K2 += q * (1 - q);
    }
    K *= D, K1 *= D, K2 *= D;
  };
  double mean = 0, var = 0;
  for (std::size_t j = 2; j <= n; ++j) {
    const double p = 1.0 / static_cast<double>(j);
    mean += p, var += p * (1 - p);
  }
  mean *= D, var *= D;
  if (x <= mean + 0.5) return std::min(1.0, normal_upper((x - 0.5 - mean) / std::sqrt(var)));
  double lo = 0, hi = 1;
  double K, K1, K2;
  for (moments(hi, K, K1, K2); K1 < x && hi < 700; moments(hi, K, K1, K2)) hi *= 2;
  for (int i = 0; i < 200; ++i) {
    const double mid = (lo + hi) / 2;
    moments(mid, K, K1, K2);
    (K1 < x ? lo : hi) = mid;
  }
  const double t = (lo + hi) / 2;
  moments(t, K, K1, K2);
  const double w = std::sqrt(std::max(0.0, 2 * (t * x - K)));
  const double u = -std::expm1(-t) * std::sqrt(K2);
  if (w < 1e-6 || u <= 0) return normal_upper((x - 0.5 - mean) / std::sqrt(var));
  const double phi = std::exp(-w * w / 2) / std::sqrt(2 * std::numbers::pi);
  return std::clamp(normal_upper(w) + phi * (1 / u - 1 / w), 0.0, 1.0);
}

double log_choose(double a, double b) {
  return std::lgamma(a + 1) - std::lgamma(b + 1) - std::lgamma(a - b + 1);
}

// Pearson chi-square of a histogram against an exact law, bins pooled to >= 5 expected.
test_result histogram_test(test_result r, const std::vector<std::uint64_t>& hist, const std::vector<double>& law,
                           std::uint64_t decks, const std::string& what) {
  if (decks == 0) return skipped(std::move(r), "no decks");
  std::vector<double> counts(hist.begin(), hist.end());
  auto [observed, expected] = pool_bins(counts, law, static_cast<double>(decks));
  const double t = static_cast<double>(decks);
  for (auto& e : expected) e *= t;
  if (expected.size() < 2) return skipped(std::move(r), fmt::format("too few decks for two bins of 5 expected decks ({})", what));
  double x2 = 0;
  for (std::size_t b = 0; b < expected.size(); ++b) x2 += (observed[b] - expected[b]) * (observed[b] - expected[b]) / expected[b];
  r.statistic = x2;
  r.df = static_cast<double>(expected.size() - 1);
  r.p_value = chi2_upper(x2, *r.df);
  double sum = 0;
  for (std::size_t k = 0; k < hist.size(); ++k) sum += static_cast<double>(k) * static_cast<double>(hist[k]);
  double mean = 0;
  for (std::size_t k = 0; k < law.size(); ++k) mean += static_cast<double>(k) * law[k];
  r.note = fmt::format("{:.2f} {} per deck, {:.2f} expected; {} bins", sum / t, what, mean, expected.size());
  return r;
}

}  // namespace

double guess_null_mean(std::size_t n) noexcept {
  double h = 0;
  for (std::size_t j = 1; j <= n; ++j) h += 1.0 / static_cast<double>(j);
  return h;
}

double guess_null_variance(std::size_t n) noexcept {
  double v = 0;
  for (std::size_t j = 1; j <= n; ++j) v += (1.0 / static_cast<double>(j)) * (1 - 1.0 / static_cast<double>(j));
  return v;
}

std::vector<double> guess_null_pmf(std::size_t n) {
  std::vector<double> f(n + 1, 0.0);
  f[0] = 1;
  for (std::size_t j = 1; j <= n; ++j) {
    const double p = 1.0 / static_cast<double>(j);
    for (std::size_t k = j; k >= 1; --k) f[k] = f[k] * (1 - p) + f[k - 1] * p;
    f[0] *= 1 - p;
  }
  return f;
}

double guess_upper_tail(std::size_t n, std::uint64_t decks, std::uint64_t score) {
  if (n < 1) throw std::invalid_argument("guessing score: the deck needs at least 1 card");
  if (decks == 0 || score <= decks) return 1.0;  // the last card of each deck is always guessed
  const std::uint64_t s = score - decks;          // the rest: Bernoulli(1/j), j = 2..n
  if (s > decks * (n - 1)) return 0.0;
  if (static_cast<double>(decks) * static_cast<double>(n) * static_cast<double>(s) <= exact_tail_work)
    return exact_tail(n, decks, s);
  return saddlepoint_tail(n, decks, s);
}

double guess_upper_tail_saddlepoint(std::size_t n, std::uint64_t decks, std::uint64_t score) {
  if (n < 1) throw std::invalid_argument("guessing score: the deck needs at least 1 card");
  if (decks == 0 || score <= decks) return 1.0;
  const std::uint64_t s = score - decks;
  if (s > decks * (n - 1)) return 0.0;
  return saddlepoint_tail(n, decks, s);
}

std::uint64_t guess_decks_needed(std::size_t n, double mean, double variance, double alpha, double power) {
  if (!(alpha > 0 && alpha < 1) || !(power > 0 && power < 1)) throw std::invalid_argument("alpha and power must be in (0, 1)");
  if (!(mean > guess_null_mean(n))) return 0;
  const auto caught = [&](std::uint64_t decks) {
    std::uint64_t lo = 0, hi = decks * n + 1;  // tail(lo) > alpha >= tail(hi) = 0
    while (hi - lo > 1) {
      const std::uint64_t mid = lo + (hi - lo) / 2;
      (guess_upper_tail(n, decks, mid) <= alpha ? hi : lo) = mid;
    }
    const double d = static_cast<double>(decks);
    const double sd = std::sqrt(std::max(d * variance, 1e-12));
    return normal_upper((static_cast<double>(hi) - 0.5 - d * mean) / sd) >= power;
  };
  std::uint64_t hi = 1;
  while (!caught(hi)) {
    if (hi > (std::uint64_t{1} << 40)) return 0;
    hi *= 2;
  }
  std::uint64_t lo = hi / 2;  // not caught (or 0)
  while (hi - lo > 1) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    (caught(mid) ? hi : lo) = mid;
  }
  return hi;
}

std::vector<double> turning_point_law(std::size_t n) {
  if (n < 3) return {1.0};
  // P_m(k): alternating runs k = 1..m-1 of a uniform permutation of m (André):
  // R(m, k) = k R(m-1, k) + 2 R(m-1, k-1) + (m-k) R(m-1, k-2), divided by m at each step.
  std::vector<double> p(n + 1, 0.0), q(n + 1, 0.0);
  p[1] = 1;  // m = 2
  for (std::size_t m = 3; m <= n; ++m) {
    std::fill(q.begin(), q.end(), 0.0);
    for (std::size_t k = 1; k < m; ++k) {
      double v = static_cast<double>(k) * p[k] + (k >= 1 ? 2 * p[k - 1] : 0.0);
      if (k >= 2) v += static_cast<double>(m - k) * p[k - 2];
      q[k] = v / static_cast<double>(m);
    }
    std::swap(p, q);
  }
  return {p.begin() + 1, p.begin() + static_cast<std::ptrdiff_t>(n)};  // turning points t = k - 1
}

std::vector<double> colour_change_law(std::size_t red, std::size_t black) {
  const std::size_t total = red + black;
  if (red == 0 || black == 0) return {1.0};
  std::vector<double> law(total, 0.0);
  const double lt = log_choose(static_cast<double>(total), static_cast<double>(red));
  const double r = static_cast<double>(red), b = static_cast<double>(black);
  const auto term = [&](double x, double k) { return k <= x ? log_choose(x - 1, k - 1) : -INFINITY; };
  for (std::size_t runs = 2; runs <= total; ++runs) {
    double p = 0;
    if (runs % 2 == 0) {
      const double k = static_cast<double>(runs / 2);
      p = 2 * std::exp(term(r, k) + term(b, k) - lt);
    } else {
      const double k = static_cast<double>(runs / 2);  // runs = 2k + 1
      p = std::exp(term(r, k + 1) + term(b, k) - lt) + std::exp(term(r, k) + term(b, k + 1) - lt);
    }
    law[runs - 1] = p;  // changes = runs - 1
  }
  return law;
}

machine_counter::machine_counter(std::span<const card_t> cards, const deck_spec& spec, unsigned copies)
    : n_(cards.size()), copies_(copies), guesser_(copies > 1 ? 1 : cards.size()), label_of_(cards.size()), labels_(cards.size()),
      guess_hist_(cards.size() + 1, 0), turning_hist_(cards.size() > 2 ? cards.size() - 1 : 1, 0) {
  if (copies > 1) {
    if (n_ != std::size_t{cards_per_deck} * copies) throw std::invalid_argument("machine tests: a shoe must hold 52 cards per deck");
    shoe_.emplace(cards_per_deck, copies);
    slots_.resize(n_);
    used_.resize(cards_per_deck);
  }
  for (const int suit : suit_categories(cards, spec)) {
    const int c = suit == 0 || suit == 3 ? 0 : suit == 1 || suit == 2 ? 1 : -1;  // c, s black; d, h red
    colour_.push_back(c);
    red_ += c == 1, black_ += c == 0;
  }
  colour_hist_.assign(std::max<std::size_t>(red_ + black_, 1), 0);
}

void machine_counter::add(std::span<const card_t> order, std::span<const card_t> before) {
  const std::size_t n = n_;
  std::size_t score = 0;
  if (shoe_) {
    last_ = shoe_->play(order, before);
    score = last_.hits;
    guess_null_total_ += last_.null_mean;
    for (std::size_t i = 0; i < log_lr_.size(); ++i) log_lr_[i] += last_.log_lr[i];
    // Labels: each card takes one of its face's before positions, uniformly at random among
    // those not taken yet (a uniform matching of copies to positions).
    std::fill(used_.begin(), used_.end(), 0U);
    for (std::size_t i = 0; i < n; ++i) {
      const card_t f = before.empty() ? static_cast<card_t>(i % cards_per_deck) : before[i];
      slots_[f * copies_ + used_[f]++] = static_cast<std::uint32_t>(i);
    }
    std::fill(used_.begin(), used_.end(), 0U);
    for (std::size_t i = 0; i < n; ++i) {
      const card_t f = order[i];
      std::uint32_t* s = &slots_[f * copies_];
      const std::uint32_t u = used_[f]++;
      const auto j = u + static_cast<std::uint32_t>(draw_below(ties_, copies_ - u));
      std::swap(s[u], s[j]);
      labels_[i] = s[u];
    }
  } else {
    if (before.empty()) {
      for (std::size_t i = 0; i < n; ++i) labels_[i] = order[i];
    } else {
      for (std::size_t i = 0; i < n; ++i) label_of_[before[i]] = static_cast<std::uint32_t>(i);
      for (std::size_t i = 0; i < n; ++i) labels_[i] = label_of_[order[i]];
    }
    score = guesser_.play(labels_);
  }
  last_hits_ = score;
  ++guess_hist_[score];
  guess_total_ += score;
  std::size_t turns = 0;
  for (std::size_t i = 1; i + 1 < n; ++i) turns += (labels_[i] > labels_[i - 1]) != (labels_[i + 1] > labels_[i]);
  ++turning_hist_[n > 2 ? turns : 0];
  std::size_t changes = 0;
  int last = -1;
  for (std::size_t i = 0; i < n; ++i) {
    const int c = colour_[order[i]];
    if (c < 0) continue;
    changes += last >= 0 && c != last;
    last = c;
  }
  ++colour_hist_[changes];
  last_turns_ = n > 2 ? turns : 0;
  last_changes_ = changes;
  ++decks_;
}

guess_play machine_counter::last_play() const {
  if (shoe_) return last_;
  return deck_guess_play(n_, last_hits_);
}

std::vector<double> machine_counter::guess_null_law(std::uint64_t shoes) const {
  if (!shoe_) return guess_null_pmf(n_);
  std::vector<double> law(n_ + 1, 0.0);
  if (shoes == 0) return law;
  xoshiro256pp engine(1);
  shoe_guesser guesser(cards_per_deck, copies_);
  std::vector<card_t> shoe(n_);
  for (std::size_t i = 0; i < n_; ++i) shoe[i] = static_cast<card_t>(i % cards_per_deck);
  for (std::uint64_t k = 0; k < shoes; ++k) {
    for (std::size_t i = n_; i > 1; --i) std::swap(shoe[i - 1], shoe[draw_below(engine, i)]);
    law[guesser.play(shoe).hits] += 1.0 / static_cast<double>(shoes);
  }
  return law;
}

std::vector<test_result> machine_counter::tests() const {
  std::vector<test_result> out;
  {
    test_result r{"guessing",
                  "a card guesser that sees each card after guessing it (Diaconis-Fulman-Holmes; shelf machines)",
                  "bernoulli-sum", static_cast<double>(guess_total_), {}, {}, {}};
    if (decks_ == 0) {
      out.push_back(skipped(std::move(r), "no decks"));
    } else if (shoe_) {  // the likelihood-ratio e-value (see the header): p = min(1, 1/E)
      r.distribution = "likelihood-ratio-e-value";
      const double log_e = log_mean_exp(log_lr_);
      r.p_value = std::min(1.0, std::exp(-log_e));
      r.note = fmt::format("{:.2f} correct guesses per shoe, {:.2f} expected; e-value {:.3g}",
                           static_cast<double>(guess_total_) / static_cast<double>(decks_),
                           guess_null_total_ / static_cast<double>(decks_), std::exp(log_e));
      out.push_back(std::move(r));
    } else {
      r.p_value = guess_upper_tail(n_, decks_, guess_total_);
      r.note = fmt::format("{:.2f} correct guesses per deck, {:.2f} expected", static_cast<double>(guess_total_) / static_cast<double>(decks_),
                           guess_null_mean(n_));
      out.push_back(std::move(r));
    }
  }
  test_result turning{"turning-points", "how often each deck turns between falling and rising (peaks and valleys)",
                      "chi2", 0, {}, {}, {}};
  if (n_ < 3)
    out.push_back(skipped(std::move(turning), "needs at least 3 cards"));
  else
    out.push_back(histogram_test(std::move(turning), turning_hist_, turning_point_law(n_), decks_, "turning points"));
  test_result colour{"colour-changes", "how often the colour changes down each deck", "chi2", 0, {}, {}, {}};
  if (red_ == 0 || black_ == 0)
    out.push_back(skipped(std::move(colour), "needs red and black cards"));
  else
    out.push_back(histogram_test(std::move(colour), colour_hist_, colour_change_law(red_, black_), decks_, "colour changes"));
  return out;
}

}  // namespace fairdeck::stats
