#include "fairdeck/stats/monitor.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace fairdeck::stats {
namespace {

double log_add_exp(double a, double b) noexcept {
  if (a < b) std::swap(a, b);
  if (b == -std::numeric_limits<double>::infinity()) return a;
  return a + std::log1p(std::exp(b - a));
}

}  // namespace

void machine_monitor::process::add(double log_w, std::span<const double> log_lr) {
  if (log_s.size() != log_lr.size()) log_s.assign(log_lr.size(), -std::numeric_limits<double>::infinity());
  for (std::size_t i = 0; i < log_s.size(); ++i) log_s[i] = log_add_exp(log_s[i], log_w) + log_lr[i];
}

double machine_monitor::process::log_value(std::uint64_t n) const noexcept {
  // M_n = mean over the grid of S_n, plus the weight 1/(n+1) left on "no change yet".
  const double rest = -std::log(static_cast<double>(n) + 1);
  if (log_s.empty()) return rest;
  return log_add_exp(log_mean_exp(log_s), rest);
}

void machine_monitor::tilted::init(const std::vector<double>& law) {
  double mean = 0, m2 = 0;
  for (std::size_t k = 0; k < law.size(); ++k) mean += static_cast<double>(k) * law[k];
  for (std::size_t k = 0; k < law.size(); ++k)
    m2 += (static_cast<double>(k) - mean) * (static_cast<double>(k) - mean) * law[k];
  const double sd = std::sqrt(std::max(m2, 1e-300));
  law_mean_sd = {mean, sd};
  log_norm.clear();
  for (const double theta : monitor_tilts) {
    // log sum_k law[k] exp(theta z_k), in logs (the tails of a 416-card law reach z ~ 30)
    double acc = -std::numeric_limits<double>::infinity();
    for (std::size_t k = 0; k < law.size(); ++k)
      if (law[k] > 0) acc = log_add_exp(acc, std::log(law[k]) + theta * (static_cast<double>(k) - mean) / sd);
    log_norm.push_back(acc);
  }
}

void machine_monitor::tilted::log_lr(std::size_t count, std::span<double> out) const {
  const double z = (static_cast<double>(count) - law_mean_sd[0]) / law_mean_sd[1];
  for (std::size_t i = 0; i < monitor_tilts.size(); ++i) out[i] = monitor_tilts[i] * z - log_norm[i];
}

machine_monitor::machine_monitor(std::span<const card_t> cards, const deck_spec& spec, unsigned copies, double alpha)
    : counter_(cards, spec, copies), alpha_(alpha) {
  if (!(alpha > 0 && alpha < 1)) throw std::invalid_argument("alpha must be between 0 and 1");
  if (cards.size() >= 3) {
    turning_law_.init(turning_point_law(cards.size()));
    turning_valid_ = true;
  }
  if (counter_.red() > 0 && counter_.black() > 0) {
    colour_law_.init(colour_change_law(counter_.red(), counter_.black()));
    colour_valid_ = true;
  }
}

std::array<double, 3> machine_monitor::test_evidence() const noexcept {
  return {std::exp(guess_.log_value(decks_)), turning_valid_ ? std::exp(turning_.log_value(decks_)) : 1.0,
          colour_valid_ ? std::exp(colour_.log_value(decks_)) : 1.0};
}

double machine_monitor::evidence() const noexcept {
  const auto e = test_evidence();
  return (e[0] + e[1] + e[2]) / 3;
}

std::optional<monitor_alarm> machine_monitor::add(std::span<const card_t> order, std::span<const card_t> before) {
  counter_.add(order, before);
  ++decks_;
  const double n = static_cast<double>(decks_);
  const double log_w = -std::log(n) - std::log(n + 1);  // w_n = 1/(n(n+1))
  const guess_play g = counter_.last_play();
  guess_.add(log_w, g.log_lr);
  std::array<double, monitor_tilts.size()> lr{};
  if (turning_valid_) {
    turning_law_.log_lr(counter_.last_turning_points(), lr);
    turning_.add(log_w, lr);
  }
  if (colour_valid_) {
    colour_law_.log_lr(counter_.last_colour_changes(), lr);
    colour_.add(log_w, lr);
  }
  const auto e = test_evidence();
  const double combined = (e[0] + e[1] + e[2]) / 3;
  if (!(combined >= 1 / alpha_)) return std::nullopt;
  monitor_alarm a;
  a.deck = decks_;
  a.evidence = combined;
  a.tests = e;
  const auto best = static_cast<std::size_t>(std::max_element(e.begin(), e.end()) - e.begin());
  a.test = test_names[best];
  return a;
}

}  // namespace fairdeck::stats
