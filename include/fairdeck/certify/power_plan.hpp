// Power before the run (`fairdeck certify plan`, and the power line at the top of every
// certify report): for the data given, the smallest effect each family's most direct test
// detects at the report's level with 90% power, and how much data a target effect needs.
//
// Level: the Bonferroni threshold alpha/K, K the number of tests in the report — Holm's first
// and strictest step (result.hpp), so a detection stated here holds for the family rule.
// Power: the normal shift z_(1-a/2) + z_power for normal tests; for chi-square tests the
// non-centrality lambda with P(chi2'(df, lambda) > crit) = power (Cohen 1988, ch. 7), lambda
// = n w^2. Effects (the vocabulary of --effect, docs/certify.md "Power before the run"):
//   bias:E   a bit with |P(1) - 1/2| = E                        raw: monobit
//   cell:E   one cell's probability p0 moved to p0 (1 + E), the others scaled to compensate
//            (w^2 = p0 E^2 / (1 - p0))                           raw: frequency (a byte
//            value); decks: first-card, position-card; hands: hole2-categories (pairs)
//   lag:E    correlation E between values one lag apart        raw: serial-correlation
//   repeat:E relative change E of the repeat-top rate          decks: repeat-top
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace fairdeck::certify {

enum class effect_measure { bias, cell, lag, repeat };
[[nodiscard]] std::string_view effect_measure_name(effect_measure m) noexcept;  // "bias", "cell", ...

struct target_effect {
  effect_measure measure = effect_measure::bias;
  double size = 0;  // > 0 (bias < 0.5)
};
// "bias:0.01", "cell:0.05", "lag:1e-3", "repeat:0.2"; std::invalid_argument naming the problem.
[[nodiscard]] target_effect parse_target_effect(std::string_view text);

struct planned_data {
  std::uint64_t raw_bytes = 0;  // raw output (64-bit words)
  std::uint64_t decks = 0;      // 52-card decks
  std::uint64_t hands = 0;      // two-card hands
};

struct power_row {
  std::string family;  // "raw", "decks", "hands"
  std::string test;    // the test whose power is stated
  effect_measure measure;
  std::string effect;                     // what the effect measures, in words
  double detectable = 0;                  // smallest effect detected with the data given (inf: none)
  std::uint64_t data = 0;                 // the data given, in `unit`
  std::string unit;                       // "bytes", "decks", "hands"
  std::optional<double> target{};         // a --effect of this measure
  std::optional<std::uint64_t> needed{};  // data the target needs, in `unit`
};

struct power_plan {
  double alpha = 0.01, power = 0.9;
  std::size_t tests = 0;  // K
  double threshold = 0;   // alpha / K
  std::vector<power_row> rows;
};

// Number of tests a report on this data holds (the raw battery on 64-bit words, the deck
// tests of 52-card decks, the hand tests of two-card hands): K of the plan.
[[nodiscard]] std::size_t planned_tests(const planned_data& data);

// The plan for `data` (families without data are left out unless a target names them) at
// alpha/K with `tests` = K (0: planned_tests(data)). Throws std::invalid_argument unless
// 0 < alpha < 1 and 0 < power < 1.
[[nodiscard]] power_plan plan_power(const planned_data& data, std::span<const target_effect> targets = {},
                                    double alpha = 0.01, double power = 0.9, std::size_t tests = 0);

// One line: "with 1,073,741,824 bytes, 10,000 decks at alpha 0.01/20 and 90% power: raw bit
// bias >= 2.5e-05, ...".
[[nodiscard]] std::string power_statement(const power_plan& p);

}  // namespace fairdeck::certify
