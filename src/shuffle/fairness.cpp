#include "fairdeck/shuffle/fairness.hpp"

#include <bit>

#include <fmt/format.h>

namespace fairdeck {
namespace {

struct legacy_mapping {
  std::uint64_t outputs;    // distinct raw values the mapping sees
  std::string_view formula; // the historical range mapping
};

// The mappings of legacy.hpp's native_below (java's nextInt rejects: exact).
legacy_mapping mapping_of(engine_id id) {
  switch (id) {
    case engine_id::glibc_rand: return {std::uint64_t{1} << 31, "rand() % n"};
    case engine_id::msvc_rand: return {std::uint64_t{1} << 15, "rand() % n on 15-bit outputs"};
    case engine_id::delphi: return {std::uint64_t{1} << 32, "(RandSeed * n) shr 32"};
    case engine_id::dotnet: return {0x7fffffffu, "(int)(Sample() * n)"};
    case engine_id::mt19937: return {std::uint64_t{1} << 32, "mt() % n"};
    case engine_id::minstd: return {0x7ffffffeu, "minstd() % n"};
    default: return {0, {}};
  }
}

}  // namespace

bounded_draw_quality draw_quality(engine_id id, std::uint64_t max_bound) {
  const legacy_mapping m = mapping_of(id);
  if (m.outputs == 0) return {};  // Lemire's exact method, or java's rejection loop
  const auto& name = info(id).name;
  if (max_bound > m.outputs)
    return {false, fmt::format("engine {} draws with {}: only {} outputs, so for bounds above {} indices {} and up "
                               "are never drawn (a {}-card shoe is badly biased)",
                               name, m.formula, m.outputs, m.outputs, m.outputs, max_bound)};
  // The worst bound is the largest one that does not divide the output count: its indices
  // get floor(R/b) or floor(R/b)+1 outputs each.
  for (std::uint64_t b = max_bound; b >= 2; --b) {
    if (m.outputs % b == 0) continue;
    const std::uint64_t q = m.outputs / b;
    return {false, fmt::format("engine {} draws with {}: for a bound of {} some indices are {:.3g}% more likely "
                               "than others (modulo bias; {} outputs)",
                               name, m.formula, b, 100.0 / static_cast<double>(q), m.outputs)};
  }
  return {};  // every bound divides the output count (n <= 2 on a power-of-two generator)
}

shuffle_fairness assess_fairness(const shuffle_spec& algo, engine_id id, std::uint64_t n) {
  if (!algo.fair()) return {false, fmt::format("algorithm {} is biased; use it only to study bias", algo.name())};
  // A sort step makes the whole order uniform from 64-bit keys alone, whatever came before.
  for (const auto& step : algo.steps())
    if (step.kind == shuffle_kind::sort) return {};
  const auto q = draw_quality(id, n);
  if (q.exact) return {};
  return {false, q.bias + "; the shuffle is not fair"};
}

}  // namespace fairdeck
