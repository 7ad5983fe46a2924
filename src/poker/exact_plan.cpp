// Exact hold'em equity, the plan (exact_plan.hpp): assignments, completion deck, symmetries.
#include "exact_plan.hpp"

#include <algorithm>
#include <bit>
#include <stdexcept>

#include <fmt/format.h>

#include "fairdeck/poker/internal/assignments.hpp"

namespace fairdeck::poker::detail {
namespace {

std::uint64_t known_cards(const equity_input& in) {
  std::uint64_t m = 0;
  for (card_t c : in.board) m |= card_bit(c);
  for (card_t c : in.dead) m |= card_bit(c);
  return m;
}

std::uint32_t weight_of(const equity_input& in, std::size_t p, std::size_t i) {
  return p < in.weights.size() && !in.weights[p].empty() ? in.weights[p][i] : weight_unit;
}

bool is_weighted(const equity_input& in) {
  for (std::size_t p = 0; p < in.ranges.size(); ++p)
    for (std::size_t i = 0; i < in.ranges[p].size(); ++i)
      if (weight_of(in, p, i) != weight_unit) return true;
  return false;
}

}  // namespace

std::vector<internal::suit_perm> input_symmetries(const equity_input& in) {
  std::vector<std::vector<std::pair<std::uint64_t, std::uint32_t>>> sorted(in.ranges.size());
  for (std::size_t p = 0; p < in.ranges.size(); ++p) {
    for (std::size_t i = 0; i < in.ranges[p].size(); ++i) sorted[p].push_back({card_bits(in.ranges[p][i]), weight_of(in, p, i)});
    std::sort(sorted[p].begin(), sorted[p].end());
  }
  std::uint64_t board = 0, dead = 0;
  for (card_t c : in.board) board |= card_bit(c);
  for (card_t c : in.dead) dead |= card_bit(c);
  std::vector<internal::suit_perm> out;
  const auto perms = internal::all_suit_perms();
  for (std::size_t k = 1; k < perms.size(); ++k) {
    const auto& perm = perms[k];
    bool same = permute_mask(board, perm) == board && permute_mask(dead, perm) == dead;
    for (std::size_t p = 0; p < sorted.size() && same; ++p) {
      auto image = sorted[p];
      for (auto& e : image) e.first = permute_mask(e.first, perm);
      std::sort(image.begin(), image.end());
      same = image == sorted[p];
    }
    if (same) out.push_back(perm);
  }
  return out;
}

std::vector<internal::fixed_assignment> assignment_orbits(const plan& pl, const std::vector<internal::suit_perm>& group) {
  const std::size_t n = pl.n;
  const auto size = static_cast<std::uint64_t>(group.size() + 1);
  std::vector<internal::fixed_assignment> out;
  std::vector<std::uint64_t> own(n), image(n);
  for (std::size_t a = 0; a < pl.masks.size(); ++a) {
    for (std::size_t p = 0; p < n; ++p) own[p] = pl.combos[pl.ids[a * n + p]].mask;
    std::uint64_t stabiliser = 1;
    bool smallest = true;
    for (const auto& g : group) {
      for (std::size_t p = 0; p < n; ++p) image[p] = internal::permute_mask(own[p], g);
      if (image < own) {
        smallest = false;
        break;
      }
      stabiliser += image == own;
    }
    if (!smallest) continue;
    internal::fixed_assignment fa{{}, size / stabiliser};
    for (std::size_t p = 0; p < n; ++p) {
      const auto lo = static_cast<card_t>(std::countr_zero(own[p])), hi = static_cast<card_t>(63 - std::countl_zero(own[p]));
      fa.holes.push_back(hole_cards{lo, hi});
    }
    out.push_back(std::move(fa));
  }
  return out;
}

plan make_plan(const equity_input& in) {
  plan pl;
  pl.n = in.ranges.size();
  pl.need = 5 - static_cast<unsigned>(in.board.size());
  pl.weighted = is_weighted(in);
  std::array<std::int16_t, 52 * 52> id_of{};
  id_of.fill(-1);
  std::vector<std::vector<std::uint16_t>> range_ids(pl.n);
  for (std::size_t p = 0; p < pl.n; ++p)
    for (const auto& h : in.ranges[p]) {
      auto& id = id_of[h[0] * 52 + h[1]];
      if (id < 0) {
        id = static_cast<std::int16_t>(pl.combos.size());
        pl.combos.push_back({card_bits(h), static_cast<std::uint8_t>(rank_of(h[0])), static_cast<std::uint8_t>(rank_of(h[1])),
                             static_cast<std::uint8_t>(suit_of(h[0])), static_cast<std::uint8_t>(suit_of(h[1]))});
      }
      range_ids[p].push_back(static_cast<std::uint16_t>(id));
    }
  const std::uint64_t known = known_cards(in);
  std::uint64_t always = ~std::uint64_t{0};
  std::vector<std::uint32_t> cur(pl.n);
  auto keep = [&](const std::vector<std::uint32_t>& a) {
    std::uint64_t m = 0;
    double w = 1;
    for (std::size_t p = 0; p < pl.n; ++p) {
      pl.ids.push_back(range_ids[p][a[p]]);
      m |= card_bits(in.ranges[p][a[p]]);
      if (pl.weighted) w *= static_cast<double>(weight_of(in, p, a[p])) / weight_unit;
    }
    pl.masks.push_back(m);
    if (pl.weighted) pl.weights.push_back(w);
    always &= m;
    return pl.masks.size() <= max_exact_assignments;
  };
  if (!internal::for_each_assignment(in.ranges, 0, known, cur, keep))
    throw std::invalid_argument(fmt::format("more than {} hole-card assignments: too many to enumerate exactly; use Monte Carlo",
                                            max_exact_assignments));
  pl.assignments = pl.masks.size();
  if (pl.assignments == 0) throw std::invalid_argument("no deal is possible: the players' hands and ranges always share a card");
  for (card_t c = 0; c < cards_per_deck; ++c)
    if (!((known | always) >> c & 1)) pl.deck.push_back(c);
  const auto& rs = rank_states::instance();
  for (card_t c : in.board) pl.board0 = add(rs, pl.board0, c);
  if (pl.n == 2 && !pl.weighted && pl.combos.size() > 13)
    for (int p = 0; p < 2; ++p)
      if (in.ranges[static_cast<std::size_t>(p)].size() == 1) pl.fixed = p;
  return pl;
}

}  // namespace fairdeck::poker::detail
