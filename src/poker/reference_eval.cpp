#include "fairdeck/poker/reference_eval.hpp"

#include <algorithm>
#include <array>
#include <span>
#include <utility>

namespace fairdeck::poker {
namespace {

std::uint32_t five_card_value(const std::array<card_t, 5>& hand) {
  std::array<int, 13> count{};
  bool flush = true;
  for (card_t c : hand) {
    ++count[poker_rank(c)];
    flush = flush && suit_of(c) == suit_of(hand[0]);
  }
  // Distinct ranks ordered by (how many, rank), both descending: the order ties are broken in.
  std::array<std::pair<int, int>, 5> slots{};
  std::size_t distinct = 0;
  for (int r = 12; r >= 0; --r)
    if (count[r]) slots[distinct++] = {count[r], r};
  const std::span<std::pair<int, int>> groups(slots.data(), distinct);
  std::stable_sort(groups.begin(), groups.end(), [](auto a, auto b) { return a.first > b.first; });

  bool straight = false;
  int straight_high = -1;
  if (groups.size() == 5) {
    if (groups[0].second - groups[4].second == 4) straight = true, straight_high = groups[0].second;
    if (groups[0].second == 12 && groups[1].second == 3) straight = true, straight_high = 3;  // A-2-3-4-5
  }
  hand_category cat;
  if (straight && flush) cat = hand_category::straight_flush;
  else if (groups[0].first == 4) cat = hand_category::four_of_a_kind;
  else if (groups[0].first == 3 && groups[1].first == 2) cat = hand_category::full_house;
  else if (flush) cat = hand_category::flush;
  else if (straight) cat = hand_category::straight;
  else if (groups[0].first == 3) cat = hand_category::three_of_a_kind;
  else if (groups[0].first == 2 && groups[1].first == 2) cat = hand_category::two_pair;
  else if (groups[0].first == 2) cat = hand_category::pair;
  else cat = hand_category::high_card;

  std::uint32_t v = static_cast<std::uint32_t>(cat);
  unsigned nibbles = 0;
  if (straight) {
    v = (v << 4) | static_cast<std::uint32_t>(straight_high), nibbles = 1;
  } else {
    for (auto [n, r] : groups) v = (v << 4) | static_cast<std::uint32_t>(r), ++nibbles;
  }
  for (; nibbles < 5; ++nibbles) v <<= 4;
  return v;
}

}  // namespace

std::uint32_t reference_value(std::span<const card_t> cards) {
  const std::size_t n = cards.size();
  std::uint32_t best = 0;
  std::array<card_t, 5> hand{};
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = a + 1; b < n; ++b)
      for (std::size_t c = b + 1; c < n; ++c)
        for (std::size_t d = c + 1; d < n; ++d)
          for (std::size_t e = d + 1; e < n; ++e) {
            hand = {cards[a], cards[b], cards[c], cards[d], cards[e]};
            best = std::max(best, five_card_value(hand));
          }
  return best;
}

}  // namespace fairdeck::poker
