#include "fairdeck/certify/power_plan.hpp"

#include <charconv>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "fairdeck/certify/battery.hpp"
#include "fairdeck/certify/result.hpp"
#include "fairdeck/certify/validity.hpp"

namespace fairdeck::certify {
namespace {

// The tests whose power the plan states, one place: family, test, measure, the model.
struct planned_test {
  const char* family;
  const char* test;
  effect_measure measure;
  const char* effect;  // in words
  enum class model { normal_bias, chi2_cell, chi2_lag, normal_rate } how;
  double p0;  // cell probability (cell), event probability (rate)
  double df;  // chi2 degrees of freedom
};
constexpr planned_test planned_tests_table[] = {
    {"raw", "monobit", effect_measure::bias, "bit bias |P(1) - 1/2|", planned_test::model::normal_bias, 0.5, 0},
    {"raw", "frequency", effect_measure::cell, "relative change of one byte value's probability",
     planned_test::model::chi2_cell, 1.0 / 256, 255},
    {"raw", "serial-correlation", effect_measure::lag, "correlation of words at one lag (of 16)",
     planned_test::model::chi2_lag, 0, 16},
    {"decks", "first-card", effect_measure::cell, "relative change of one card's chance to come first",
     planned_test::model::chi2_cell, 1.0 / 52, 51},
    {"decks", "position-card", effect_measure::cell, "relative change of one card's chance at one position",
     planned_test::model::chi2_cell, 1.0 / 52, 51.0 * 51},
    {"decks", "repeat-top", effect_measure::repeat, "relative change of the rate of repeated top cards",
     planned_test::model::normal_rate, 1.0 / 52, 0},
    {"hands", "hole2-categories", effect_measure::cell, "relative change of the chance of a pocket pair",
     planned_test::model::chi2_cell, 78.0 / 1326, 2},
    {"hands", "hole-classes", effect_measure::cell, "relative change of one pair class's chance (e.g. AA, 6/1326)",
     planned_test::model::chi2_cell, 6.0 / 1326, 168},
};

// Data of `family` in the test's own sample unit, and the reported unit.
double sample_of(const planned_test& t, const planned_data& d) {
  const std::string_view f = t.family;
  if (f == "raw") {
    if (t.how == planned_test::model::normal_bias) return 8.0 * static_cast<double>(d.raw_bytes);  // bits
    if (t.how == planned_test::model::chi2_lag) return static_cast<double>(d.raw_bytes / 8);       // words
    return static_cast<double>(d.raw_bytes);                                                       // bytes
  }
  if (f == "decks")
    return t.how == planned_test::model::normal_rate ? std::max(0.0, static_cast<double>(d.decks) - 1)
                                                     : static_cast<double>(d.decks);
  return static_cast<double>(d.hands);
}

// Sample (in the test's unit) back to the family's unit.
std::uint64_t to_unit(const planned_test& t, double sample) {
  const std::string_view f = t.family;
  double v = sample;
  if (f == "raw" && t.how == planned_test::model::normal_bias) v = sample / 8;
  if (f == "raw" && t.how == planned_test::model::chi2_lag) v = sample * 8;
  if (f == "decks" && t.how == planned_test::model::normal_rate) v = sample + 1;
  if (!(v < 1.8e19)) return std::numeric_limits<std::uint64_t>::max();
  return static_cast<std::uint64_t>(std::ceil(v));
}

// Smallest effect detected with `n` in the test's unit; and `n` for an effect `e`: the same
// equation, n * g(e) = c, solved either way.
double g_of(const planned_test& t, double e) {
  switch (t.how) {
    case planned_test::model::normal_bias: return e * e / (t.p0 * (1 - t.p0));  // (E / sqrt(pq))^2
    case planned_test::model::chi2_cell: return t.p0 * e * e / (1 - t.p0);      // Cohen's w^2
    case planned_test::model::chi2_lag: return e * e;                           // w^2 = rho^2
    case planned_test::model::normal_rate: return e * e * t.p0 / (1 - t.p0);    // (E p / sqrt(pq))^2
  }
  return 0;
}
double constant_of(const planned_test& t, double threshold, double power) {
  if (t.how == planned_test::model::normal_bias || t.how == planned_test::model::normal_rate) {
    const double z = normal_shift_for(threshold, power);
    return z * z;
  }
  return chi2_noncentrality_for(t.df, threshold, power);
}

std::string unit_of(const planned_test& t) {
  const std::string_view f = t.family;
  return f == "raw" ? "bytes" : f == "decks" ? "decks" : "hands";
}

}  // namespace

std::string_view effect_measure_name(effect_measure m) noexcept {
  switch (m) {
    case effect_measure::bias: return "bias";
    case effect_measure::cell: return "cell";
    case effect_measure::lag: return "lag";
    case effect_measure::repeat: break;
  }
  return "repeat";
}

target_effect parse_target_effect(std::string_view text) {
  const auto colon = text.find(':');
  if (colon == std::string_view::npos)
    throw std::invalid_argument(
        fmt::format("effect '{}' is not MEASURE:SIZE (bias, cell, lag or repeat, e.g. bias:0.01)", text));
  const std::string_view name = text.substr(0, colon), size = text.substr(colon + 1);
  target_effect t;
  if (name == "bias")
    t.measure = effect_measure::bias;
  else if (name == "cell")
    t.measure = effect_measure::cell;
  else if (name == "lag")
    t.measure = effect_measure::lag;
  else if (name == "repeat")
    t.measure = effect_measure::repeat;
  else
    throw std::invalid_argument(fmt::format("unknown effect measure '{}' (bias, cell, lag or repeat)", name));
  const std::string s(size);
  char* end = nullptr;
  t.size = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || !(t.size > 0) || !std::isfinite(t.size))
    throw std::invalid_argument(fmt::format("effect size '{}' is not a positive number", size));
  if (t.measure == effect_measure::bias && !(t.size < 0.5))
    throw std::invalid_argument(fmt::format("a bit bias must be below 0.5, not {}", size));
  if (t.measure == effect_measure::lag && !(t.size < 1))
    throw std::invalid_argument(fmt::format("a correlation must be below 1, not {}", size));
  return t;
}

std::size_t planned_tests(const planned_data& d) {
  std::size_t k = 0;
  if (d.raw_bytes) k += battery(stream_spec::raw_words(64)).results().size();
  if (d.decks) k += 11 + 3;  // the audit's 11 tests of 52-card decks, repeat-top, top5/top7 categories
  // Two-card hands: hole2-categories and the hole-card tests (hole-classes, hole-class-extreme,
  // hole-combos, hole-combo-extreme; certify/hands.hpp). Seat and board tests add to these
  // when the lines carry seats or boards.
  if (d.hands) k += 5;
  return k;
}

power_plan plan_power(const planned_data& data, std::span<const target_effect> targets, double alpha, double power,
                      std::size_t tests) {
  if (!(alpha > 0 && alpha < 1)) throw std::invalid_argument("alpha must be between 0 and 1");
  if (!(power > 0 && power < 1)) throw std::invalid_argument("power must be between 0 and 1");
  power_plan p;
  p.alpha = alpha;
  p.power = power;
  p.tests = tests ? tests : std::max<std::size_t>(1, planned_tests(data));
  p.threshold = alpha / static_cast<double>(p.tests);
  for (const auto& t : planned_tests_table) {
    const double n = sample_of(t, data);
    std::optional<double> target;
    for (const auto& e : targets)
      if (e.measure == t.measure) target = e.size;
    if (n <= 0 && !target) continue;
    const double c = constant_of(t, p.threshold, power);
    power_row r{.family = t.family,
                .test = t.test,
                .measure = t.measure,
                .effect = t.effect,
                .detectable = n > 0 ? 0 : std::numeric_limits<double>::infinity(),
                .data = to_unit(t, n),
                .unit = unit_of(t)};
    if (n > 0) {
      // n g(e) = c with g(e) = a e^2: e = sqrt(c / (n a)).
      r.detectable = std::sqrt(c / (n * g_of(t, 1.0)));
    }
    if (target) {
      r.target = *target;
      r.needed = to_unit(t, c / g_of(t, *target));
    }
    p.rows.push_back(std::move(r));
  }
  return p;
}

std::string power_statement(const power_plan& p) {
  std::string out = fmt::format("power before the run: at alpha {:g}/{} (Holm's first step) with {:g}% power,", p.alpha,
                                p.tests, 100 * p.power);
  std::string family;
  bool first = true;
  for (const auto& r : p.rows) {
    if (r.data == 0) continue;
    if (r.family != family) {
      out += fmt::format("{} {} ({} {}):", first ? "" : ";", r.family, with_commas(r.data), r.unit);
      family = r.family;
      first = false;
    } else {
      out += ",";
    }
    out += fmt::format(" {} {} >= {:.2g}", r.test, effect_measure_name(r.measure), r.detectable);
  }
  if (first) out += " no data";
  return out;
}

}  // namespace fairdeck::certify
