#include "fairdeck/shuffle/algorithm.hpp"

#include <array>
#include <charconv>
#include <exception>
#include <stdexcept>

#include <fmt/format.h>

#include "fairdeck/util/printable.hpp"

namespace fairdeck {
namespace {

// Past these a physical shuffle stops being physical and only burns time.
constexpr std::uint64_t max_riffles = 10'000;
constexpr std::uint64_t max_overhands = 1'000'000;

constexpr std::array catalog = {
    shuffle_algorithm_info{shuffle_kind::fisher_yates, "fisher-yates", true, false, 0,
                           "Durstenfeld/Knuth: exactly uniform, O(n), n-1 bounded draws"},
    shuffle_algorithm_info{shuffle_kind::partial, "partial", true, true, 0,
                           "forward Fisher-Yates over the first K positions: uniform K-card deal, O(K)"},
    shuffle_algorithm_info{shuffle_kind::sort, "sort", true, false, 0,
                           "sort by random 64-bit keys, ties redrawn: exactly uniform, O(n log n)"},
    shuffle_algorithm_info{shuffle_kind::naive, "naive", false, false, 0,
                           "swap each card with any card: BIASED (n^n paths onto n! orders)"},
    shuffle_algorithm_info{shuffle_kind::asf1999, "asf1999", false, false, 0,
                           "1999 Planet Poker loop, random(51)+1: BROKEN (last card never last)"},
    shuffle_algorithm_info{shuffle_kind::riffle, "riffle", false, true, 7,
                           "K Gilbert-Shannon-Reeds riffles: NOT uniform; exact distance in `fairdeck riffle`",
                           max_riffles},
    shuffle_algorithm_info{shuffle_kind::overhand, "overhand", false, true, 10,
                           "K overhand shuffles (Pemantle, cut w.p. 1/4 per gap): NOT uniform for K << n^2 log n",
                           max_overhands},
    shuffle_algorithm_info{shuffle_kind::cut, "cut", false, false, 0,
                           "one uniform cut (top c cards to the bottom, c uniform in [0,n)): NOT uniform"},
    shuffle_algorithm_info{shuffle_kind::shelf, "shelf", false, true, 10,
                           "casino shelf machine, M shelves, K passes (shelf:MxK): NOT uniform; exact distance in `fairdeck shelf`",
                           shelf_max_shelves, true, false},
};

constexpr std::size_t max_steps = 64;  // in one composition

// One case per enumerator and no default: with -Wall -Werror (-Wswitch) a new shuffle_kind
// missing here fails the build, and the static_assert below then demands its catalog row.
constexpr bool is_enumerator(shuffle_kind kind) noexcept {
  switch (kind) {
    case shuffle_kind::fisher_yates: case shuffle_kind::partial: case shuffle_kind::sort: case shuffle_kind::naive:
    case shuffle_kind::asf1999: case shuffle_kind::riffle: case shuffle_kind::overhand: case shuffle_kind::cut:
    case shuffle_kind::shelf:
      return true;
  }
  return false;
}

// Row i describes shuffle_kind(i), and every enumerator has a row: info() cannot fall back
// on another algorithm's row (row 0 is fisher-yates: a new algorithm would pass as fair).
constexpr bool catalog_complete() noexcept {
  for (std::size_t i = 0; i < catalog.size(); ++i)
    if (static_cast<std::size_t>(catalog[i].kind) != i || !is_enumerator(catalog[i].kind)) return false;
  return !is_enumerator(static_cast<shuffle_kind>(catalog.size()));
}
static_assert(catalog_complete(), "shuffle catalog: one row per shuffle_kind, in enum order");

}  // namespace

std::span<const shuffle_algorithm_info> shuffle_catalog() noexcept { return catalog; }

const shuffle_algorithm_info& info(shuffle_kind kind) noexcept {
  const auto i = static_cast<std::size_t>(kind);
  if (i >= catalog.size()) std::terminate();  // not a shuffle_kind: a cast gone wrong, never row 0
  return catalog[i];
}

std::vector<shuffle_step> shuffle_spec::steps() const {
  std::vector<shuffle_step> out{{kind, param, passes}};
  out.insert(out.end(), then.begin(), then.end());
  return out;
}

std::string shuffle_spec::name() const {
  std::string out;
  for (const auto& step : steps()) {
    const auto& i = info(step.kind);
    const std::uint64_t k = step.param ? step.param : i.default_param;
    if (!out.empty()) out += '+';
    out += i.takes_param && k ? fmt::format("{}:{}", i.name, k) : std::string(i.name);
    if (step.passes > 1) out += fmt::format("x{}", step.passes);
  }
  return out;
}

bool shuffle_spec::fair() const noexcept {
  const auto whole_order_uniform = [](const shuffle_step& s) {
    return s.kind == shuffle_kind::fisher_yates || s.kind == shuffle_kind::sort ||
           (s.kind == shuffle_kind::partial && s.param == 0);
  };
  if (then.empty()) return info(kind).fair;
  if (info(then.back().kind).fair || whole_order_uniform({kind, param, passes})) return true;
  for (const auto& s : then)
    if (whole_order_uniform(s)) return true;
  return false;
}

std::vector<shuffle_spec> default_audit_algorithms() {
  std::vector<shuffle_spec> out;
  for (const auto& a : catalog)
    if (a.in_default_audit) out.push_back({a.kind, a.default_param});
  return out;
}

namespace {

shuffle_step parse_step(std::string_view text, std::string_view whole) {
  const auto colon = text.find(':');
  std::string_view base = text.substr(0, colon);
  if (base == "fy" || base == "knuth" || base == "fisher_yates" || base == "durstenfeld") base = "fisher-yates";
  for (const auto& a : catalog) {
    if (a.name != base) continue;
    shuffle_step step{a.kind, a.default_param};
    if (colon != std::string_view::npos) {
      auto arg = text.substr(colon + 1);
      if (!a.takes_param) throw std::invalid_argument(fmt::format("algorithm '{}' takes no ':' parameter", a.name));
      if (const auto x = arg.find('x'); a.takes_passes && x != std::string_view::npos) {  // "MxK"
        const auto k = arg.substr(x + 1);
        const auto [q, e] = std::from_chars(k.data(), k.data() + k.size(), step.passes);
        if (e != std::errc{} || q != k.data() + k.size() || step.passes == 0)
          throw std::invalid_argument(
              fmt::format("algorithm '{}': '{}' is not a positive whole number of passes", printable(text), printable(k)));
        if (step.passes > shelf_max_passes)
          throw std::invalid_argument(
              fmt::format("algorithm '{}': {}:MxK needs K <= {} passes", printable(text), a.name, shelf_max_passes));
        arg = arg.substr(0, x);
      }
      const auto [p, ec] = std::from_chars(arg.data(), arg.data() + arg.size(), step.param);
      if (ec != std::errc{} || p != arg.data() + arg.size() || step.param == 0)
        throw std::invalid_argument(
            fmt::format("algorithm '{}': '{}' is not a positive whole number", printable(text), printable(arg)));
      if (a.max_param && step.param > a.max_param)
        throw std::invalid_argument(fmt::format("algorithm '{}': {}:K needs K <= {}", printable(text), a.name, a.max_param));
    }
    return step;
  }
  std::string names;
  for (const auto& a : catalog)
    names += fmt::format("{}{}{}", names.empty() ? "" : ", ", a.name, a.takes_passes ? "[:M[xK]]" : a.takes_param ? "[:K]" : "");
  if (text == whole)
    throw std::invalid_argument(fmt::format("unknown algorithm '{}' (choose from {})", printable(text), names));
  throw std::invalid_argument(fmt::format("unknown algorithm '{}' in '{}' (choose from {}, joined by '+')",
                                          printable(text), printable(whole), names));
}

}  // namespace

shuffle_spec parse_shuffle_spec(std::string_view text) {
  std::vector<shuffle_step> steps;
  for (std::size_t start = 0;;) {
    const auto plus = text.find('+', start);
    const auto part = text.substr(start, plus == std::string_view::npos ? std::string_view::npos : plus - start);
    if (part.empty())
      throw std::invalid_argument(text.empty() ? std::string("empty algorithm name")
                                               : fmt::format("algorithm '{}': empty step around '+'", printable(text)));
    if (steps.size() == max_steps)
      throw std::invalid_argument(fmt::format("algorithm '{}': more than {} steps", printable(text), max_steps));
    steps.push_back(parse_step(part, text));
    if (plus == std::string_view::npos) break;
    start = plus + 1;
  }
  return {steps.front().kind, steps.front().param, {steps.begin() + 1, steps.end()}, steps.front().passes};
}

}  // namespace fairdeck
