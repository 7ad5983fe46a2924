#include "fairdeck/shuffle/algorithm.hpp"

#include <array>
#include <charconv>
#include <stdexcept>

#include <fmt/format.h>

namespace fairdeck {
namespace {

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
};

}  // namespace

std::span<const shuffle_algorithm_info> shuffle_catalog() noexcept { return catalog; }

const shuffle_algorithm_info& info(shuffle_kind kind) noexcept {
  for (const auto& a : catalog)
    if (a.kind == kind) return a;
  return catalog[0];
}

std::string shuffle_spec::name() const {
  const auto& i = info(kind);
  return i.takes_param && param ? fmt::format("{}:{}", i.name, param) : std::string(i.name);
}

bool shuffle_spec::fair() const noexcept { return info(kind).fair; }

std::vector<shuffle_spec> default_audit_algorithms() {
  std::vector<shuffle_spec> out;
  for (const auto& a : catalog) out.push_back({a.kind, a.default_param});
  return out;
}

shuffle_spec parse_shuffle_spec(std::string_view text) {
  const auto colon = text.find(':');
  std::string_view base = text.substr(0, colon);
  if (base == "fy" || base == "knuth" || base == "fisher_yates" || base == "durstenfeld") base = "fisher-yates";
  for (const auto& a : catalog) {
    if (a.name != base) continue;
    shuffle_spec spec{a.kind, 0};
    if (colon != std::string_view::npos) {
      const auto arg = text.substr(colon + 1);
      if (!a.takes_param) throw std::invalid_argument(fmt::format("algorithm '{}' takes no ':' parameter", a.name));
      const auto [p, ec] = std::from_chars(arg.data(), arg.data() + arg.size(), spec.param);
      if (ec != std::errc{} || p != arg.data() + arg.size() || spec.param == 0)
        throw std::invalid_argument(fmt::format("algorithm '{}': '{}' is not a positive whole number", text, arg));
    }
    return spec;
  }
  std::string names;
  for (const auto& a : catalog) names += fmt::format("{}{}{}", names.empty() ? "" : ", ", a.name, a.takes_param ? "[:K]" : "");
  throw std::invalid_argument(fmt::format("unknown algorithm '{}' (choose from {})", text, names));
}

}  // namespace fairdeck
