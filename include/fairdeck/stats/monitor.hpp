// Watching a live table (`fairdeck monitor`): the machine tests of stats/machine.hpp run as
// anytime-valid tests on decks (or shoes) as they arrive, raising an alarm as soon as the
// evidence suffices, with the probability of ANY false alarm over an unbounded stream of
// uniform decks at most alpha.
//
// The construction (game-theoretic testing: Ville, "Étude critique de la notion de collectif",
// 1939; Shafer & Vovk, "Game-Theoretic Foundations for Probability and Finance", 2019; Ramdas,
// Grünwald, Vovk & Shafer, "Game-theoretic statistics and safe anytime-valid inference",
// Stat. Sci. 38(4), 2023):
//  1. Per deck and test, a likelihood ratio L_a(deck) whose mean under a uniform deck is
//     exactly 1 given everything before it, for each alternative a of a small grid:
//       guessing        prod_t c^X_t / (1 - p_t + c p_t): hit X_t with null chance p_t (1/R for a
//                       deck, r_g/R for a shoe; stats/machine.hpp), odds c in guess_odds_grid;
//       turning-points  exp(theta z) / E0[exp(theta z)], z the deck's standardised count, the
//       colour-changes  expectation under the exact law (machine.hpp), theta in monitor_tilts.
//  2. A machine may take over at any deck k, so each alternative's e-process mixes the
//     products started at every deck k with prior weight w_k = 1/(k(k+1)) (sum 1), plus the
//     leftover weight 1/(n+1) on "no change yet": M_n = sum_{k<=n} w_k prod_{j=k..n} L(j) +
//     1/(n+1), a nonnegative martingale with M_0 = 1 (a Shiryaev-Roberts-type mixture, as in
//     the e-detectors of Shin, Ramdas & Rinaldo, 2023). Recursion: S_n = (S_{n-1} + w_n) L(n).
//  3. Averages of e-processes are e-processes: over each test's grid, then over the three
//     tests (E = mean of the three).
//  4. Ville's inequality: P(sup_n E_n >= 1/alpha) <= alpha under a uniform shuffle, so the alarm
//     at E_n >= 1/alpha is a level-alpha test over the whole, unbounded stream.
// The cost of the change-point mixture is log(1/w_k) ~ 2 log k in log-evidence: a machine that
// takes over at deck 101 must earn about 9 more nats than one there from the start.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "fairdeck/cards/card.hpp"
#include "fairdeck/stats/machine.hpp"

namespace fairdeck::stats {

// Tilts theta of the turning-point and colour-change likelihood ratios (both directions: a
// shelf machine leaves fewer turning points, other machines may leave more).
inline constexpr std::array<double, 6> monitor_tilts{-2.0, -1.0, -0.5, 0.5, 1.0, 2.0};

struct monitor_alarm {
  std::uint64_t deck = 0;         // 1-based index of the deck at which the alarm fired
  std::string test;               // the test with the most evidence then
  double evidence = 0;            // the combined e-value E (>= 1/alpha)
  std::array<double, 3> tests{};  // each test's e-process: guessing, turning-points, colour-changes
};

class machine_monitor {
 public:
  static constexpr std::array<const char*, 3> test_names{"guessing", "turning-points", "colour-changes"};

  // `cards`, `spec`, `copies` as machine_counter (copies > 1: a shoe of faces). alpha in (0, 1).
  machine_monitor(std::span<const card_t> cards, const deck_spec& spec, unsigned copies, double alpha);

  // One deck (as machine_counter::add). Returns the alarm when the combined evidence reaches
  // 1/alpha at this deck; keeps watching after it (the caller may stop).
  std::optional<monitor_alarm> add(std::span<const card_t> order, std::span<const card_t> before = {});

  [[nodiscard]] std::uint64_t decks() const noexcept { return decks_; }
  [[nodiscard]] double alpha() const noexcept { return alpha_; }
  // The combined e-value after the decks so far, and each test's.
  [[nodiscard]] double evidence() const noexcept;
  [[nodiscard]] std::array<double, 3> test_evidence() const noexcept;

 private:
  // One test's change-point mixture over a grid of alternatives, in logs.
  struct process {
    std::vector<double> log_s;  // log S_n per alternative (-inf before any deck)
    void add(double log_w, std::span<const double> log_lr);
    [[nodiscard]] double log_value(std::uint64_t n) const noexcept;  // log M_n
  };
  // log LR per tilt for a count with this exact law (log normalisers precomputed).
  struct tilted {
    std::vector<double> law_mean_sd;  // mean, sd
    std::vector<double> log_norm;     // log E0[exp(theta z)] per tilt
    void init(const std::vector<double>& law);
    void log_lr(std::size_t count, std::span<double> out) const;
  };

  machine_counter counter_;
  double alpha_;
  std::uint64_t decks_ = 0;
  process guess_, turning_, colour_;
  tilted turning_law_, colour_law_;
  bool turning_valid_ = false, colour_valid_ = false;
};

}  // namespace fairdeck::stats
