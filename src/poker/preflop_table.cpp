#include "fairdeck/poker/preflop_table.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <numeric>

#include "fairdeck/poker/internal/preflop_data.hpp"

namespace fairdeck::poker {
namespace {

constexpr std::string_view grid_ranks = "AKQJT98765432";  // row/column i: rank grid_ranks[i]

// Card of grid rank i (0 = ace .. 12 = deuce) in suit s.
card_t grid_card(unsigned i, unsigned suit) {
  const unsigned fairdeck_rank = i == 0 ? 0 : 13 - i;  // ace 0, king 12, ..., deuce 1
  return static_cast<card_t>(suit * ranks_per_suit + fairdeck_rank);
}

unsigned grid_rank(card_t c) {
  const unsigned r = rank_of(c);
  return r == 0 ? 0 : 13 - r;
}

}  // namespace

std::string preflop_class_name(unsigned cls) {
  const unsigned i = cls / 13, j = cls % 13;
  std::string s{grid_ranks[std::min(i, j)], grid_ranks[std::max(i, j)]};
  if (i < j) s += 's';
  if (i > j) s += 'o';
  return s;
}

std::optional<unsigned> preflop_class_index(std::string_view name) {
  if (name.size() < 2 || name.size() > 3) return std::nullopt;
  auto rank = [](char ch) -> int {
    const auto p = grid_ranks.find(static_cast<char>(std::toupper(static_cast<unsigned char>(ch))));
    return p == std::string_view::npos ? -1 : static_cast<int>(p);
  };
  int a = rank(name[0]), b = rank(name[1]);
  if (a < 0 || b < 0) return std::nullopt;
  if (a > b) std::swap(a, b);  // a: the higher rank (smaller grid index)
  const auto ua = static_cast<unsigned>(a), ub = static_cast<unsigned>(b);
  if (name.size() == 2) return a == b ? std::optional<unsigned>(13 * ua + ua) : std::nullopt;
  const char k = static_cast<char>(std::tolower(static_cast<unsigned char>(name[2])));
  if (a == b || (k != 's' && k != 'o')) return std::nullopt;
  return k == 's' ? 13 * ua + ub : 13 * ub + ua;
}

std::vector<hole_cards> preflop_class_combos(unsigned cls) {
  const unsigned i = cls / 13, j = cls % 13;
  std::vector<hole_cards> out;
  for (unsigned s1 = 0; s1 < 4; ++s1)
    for (unsigned s2 = 0; s2 < 4; ++s2) {
      if (i == j ? s2 <= s1 : (i < j) != (s1 == s2)) continue;
      const card_t x = grid_card(std::min(i, j), s1), y = grid_card(std::max(i, j), s2);
      out.push_back(x < y ? hole_cards{x, y} : hole_cards{y, x});
    }
  std::sort(out.begin(), out.end());
  return out;
}

unsigned preflop_class_of(const hole_cards& h) noexcept {
  const unsigned a = grid_rank(h[0]), b = grid_rank(h[1]);
  const unsigned hi = std::min(a, b), lo = std::max(a, b);
  if (hi == lo) return 13 * hi + hi;
  return suit_of(h[0]) == suit_of(h[1]) ? 13 * hi + lo : 13 * lo + hi;
}

preflop_matchup preflop_heads_up(unsigned a, unsigned b) noexcept {
  const bool swapped = a > b;
  const auto& row = internal::preflop_table_data[internal::preflop_pair_index(std::min(a, b), std::max(a, b))];
  preflop_matchup m{row[0], row[1], row[2], row[3]};
  if (swapped) std::swap(m.wins_a, m.wins_b);
  return m;
}

preflop_matchup preflop_vs_random(unsigned a) noexcept {
  // "random" is the union of all classes, so its outcomes split by the opponent's class.
  preflop_matchup sum;
  for (unsigned b = 0; b < preflop_classes; ++b) {
    const auto m = preflop_heads_up(a, b);
    sum.outcomes += m.outcomes, sum.wins_a += m.wins_a, sum.wins_b += m.wins_b, sum.ties += m.ties;
  }
  return sum;
}

const std::array<std::uint8_t, preflop_classes>& preflop_ranking() {
  static const auto ranking = [] {
    std::array<double, preflop_classes> eq{};
    for (unsigned a = 0; a < preflop_classes; ++a) eq[a] = preflop_vs_random(a).equity_a();
    std::array<std::uint8_t, preflop_classes> order{};
    std::iota(order.begin(), order.end(), std::uint8_t{0});
    std::stable_sort(order.begin(), order.end(), [&](auto x, auto y) { return eq[x] > eq[y]; });
    return order;
  }();
  return ranking;
}

std::vector<hole_cards> preflop_top_percent(double percent) {
  const double target = percent / 100 * 1326;
  std::vector<hole_cards> out;
  for (const unsigned cls : preflop_ranking()) {
    const auto combos = preflop_class_combos(cls);
    const double before = static_cast<double>(out.size()), after = before + static_cast<double>(combos.size());
    if (!out.empty() && (before >= target || (after > target && after - target > target - before))) break;
    out.insert(out.end(), combos.begin(), combos.end());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace fairdeck::poker
