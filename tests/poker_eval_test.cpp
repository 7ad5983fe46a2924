// The evaluator against the rules: exhaustive category counts over all 5- and 7-card hands
// (published counts, e.g. Wikipedia "Poker probability"), exact agreement with the slow
// reference evaluator on every 5-card hand and on random 6- and 7-card hands.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <vector>

#include "fairdeck/poker/enumerate.hpp"
#include "fairdeck/poker/hand_eval.hpp"
#include "fairdeck/poker/reference_eval.hpp"
#include "fairdeck/random/xoshiro256pp.hpp"
#include "fairdeck/shuffle/partial_shuffle.hpp"
#include "sanitizer_build.hpp"

namespace fairdeck::poker {
namespace {

using counts = std::array<std::uint64_t, category_count>;

std::vector<card_t> full_deck() {
  std::vector<card_t> d(52);
  for (card_t c = 0; c < 52; ++c) d[c] = c;
  return d;
}

// strength -> reference value for all 7462 strengths, from every 5-card hand.
const std::vector<std::uint32_t>& strength_to_reference() {
  static const std::vector<std::uint32_t> map = [] {
    std::vector<std::uint32_t> m(65536, 0);
    const auto& ev = hand_evaluator::instance();
    std::array<card_t, 5> h{};
    for (h[0] = 0; h[0] < 52; ++h[0])
      for (h[1] = h[0] + 1; h[1] < 52; ++h[1])
        for (h[2] = h[1] + 1; h[2] < 52; ++h[2])
          for (h[3] = h[2] + 1; h[3] < 52; ++h[3])
            for (h[4] = h[3] + 1; h[4] < 52; ++h[4]) m[ev.eval5(h.data())] = reference_value(h);
    return m;
  }();
  return map;
}

TEST(PokerEval, AllFiveCardHandsMatchReferenceExactly) {
  const auto& ev = hand_evaluator::instance();
  counts by_cat{};
  std::vector<std::uint32_t> seen(65536, 0);
  std::array<card_t, 5> h{};
  std::uint64_t mismatches = 0;
  for (h[0] = 0; h[0] < 52; ++h[0])
    for (h[1] = h[0] + 1; h[1] < 52; ++h[1])
      for (h[2] = h[1] + 1; h[2] < 52; ++h[2])
        for (h[3] = h[2] + 1; h[3] < 52; ++h[3])
          for (h[4] = h[3] + 1; h[4] < 52; ++h[4]) {
            const strength_t s = ev.eval5(h.data());
            const std::uint32_t ref = reference_value(h);
            ++by_cat[static_cast<unsigned>(category_of(s))];
            if (category_of(s) != reference_category(ref)) ++mismatches;
            if (seen[s] == 0) seen[s] = ref;
            else if (seen[s] != ref) ++mismatches;  // one strength, two different hands
          }
  EXPECT_EQ(mismatches, 0u);
  const counts expected{1302540, 1098240, 123552, 54912, 10200, 5108, 3744, 624, 40};
  EXPECT_EQ(by_cat, expected);
  // Strengths sorted ascending must list reference values strictly ascending: the order is exact.
  std::uint32_t prev = 0;
  unsigned distinct = 0;
  for (std::uint32_t s = 0; s < seen.size(); ++s) {
    if (!seen[s]) continue;
    EXPECT_GT(seen[s], prev) << "strength " << s;
    prev = seen[s];
    ++distinct;
  }
  EXPECT_EQ(distinct, 7462u);
}

TEST(PokerEval, AllSevenCardHandCategoryCounts) {
  const auto deck = full_deck();
  counts by_cat{};
  std::uint64_t total = 0;
  for (std::size_t first = 0; first < 46; ++first)  // all hands, also under ASan (~5 s)
    for_each_completion<6>(hand_accumulator{} + deck[first], deck, first + 1, [&](strength_t s) {
      ++by_cat[static_cast<unsigned>(category_of(s))];
      ++total;
    });
  EXPECT_EQ(total, 133784560u);
  const counts expected{23294460, 58627800, 31433400, 6461620, 6180020, 4047644, 3473184, 224848, 41584};
  EXPECT_EQ(by_cat, expected);
}

template <std::size_t N>
void check_random_hands(std::uint64_t seed, int n) {
  const auto& ev = hand_evaluator::instance();
  const auto& map = strength_to_reference();
  auto deck = full_deck();
  xoshiro256pp rng(seed);
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    partial_shuffle(deck, N, rng);
    const strength_t s = ev.eval<N>(deck.data());
    const std::uint32_t ref = reference_value(std::span<const card_t>(deck.data(), N));
    if (map[s] != ref) {
      if (++bad < 5) ADD_FAILURE() << "hand " << format_cards(std::span<const card_t>(deck.data(), N), {});
    }
    hand_accumulator acc;
    for (std::size_t k = 0; k < N; ++k) acc = acc + deck[k];
    if (ev.eval(acc) != s) ++bad;
  }
  EXPECT_EQ(bad, 0);
}

// Sanitizer builds check a fifth of the hands (above, every 5-card hand is checked against the
// reference and every 7-card hand's category is counted).
TEST(PokerEval, RandomSevenCardHandsMatchReference) { check_random_hands<7>(7, FAIRDECK_SLOW_BUILD ? 20000 : 100000); }
TEST(PokerEval, RandomSixCardHandsMatchReference) { check_random_hands<6>(6, FAIRDECK_SLOW_BUILD ? 40000 : 200000); }

strength_t eval_text(std::string_view text) { return evaluate(parse_cards(text)); }

TEST(PokerEval, AceIsHighAndLow) {
  EXPECT_EQ(category_of(eval_text("Ah 2c 3d 4s 5h")), hand_category::straight);
  EXPECT_EQ(category_of(eval_text("Th Jc Qd Ks Ah")), hand_category::straight);
  EXPECT_EQ(category_of(eval_text("Qh Kc Ad 2s 3h")), hand_category::high_card);  // no wrap-around
  EXPECT_LT(eval_text("Ah 2c 3d 4s 5h"), eval_text("2c 3d 4s 5h 6d"));  // the wheel is the lowest
  EXPECT_GT(eval_text("Ah Kc 3d 4s 5h"), eval_text("Kh Qc Jd 9s 8h"));
  EXPECT_EQ(category_of(eval_text("Ah 2h 3h 4h 5h")), hand_category::straight_flush);
  EXPECT_LT(eval_text("Ah 2h 3h 4h 5h"), eval_text("2h 3h 4h 5h 6h"));
  EXPECT_GT(eval_text("As Ks Qs Js Ts"), eval_text("Ks Qs Js Ts 9s"));
}

TEST(PokerEval, SevenCardsPickTheBestFive) {
  EXPECT_EQ(category_of(eval_text("Ah Kh 2c 3d 4s 5h 9c")), hand_category::straight);
  EXPECT_EQ(category_of(eval_text("2h 3h 4h 5h 9h Ac 6d")), hand_category::flush);
  EXPECT_EQ(category_of(eval_text("2h 3h 4h 5h 9h Ah 6h")), hand_category::straight_flush);
  EXPECT_EQ(category_of(eval_text("Kh Kd Kc 7s 7d 7c 2h")), hand_category::full_house);
  // Three pairs: the best two count, and the kicker may come from the third pair.
  EXPECT_EQ(eval_text("Ah Ad Kc Ks Qh Qd 2c"), eval_text("Ah Ad Kc Ks Qh 3d 2c"));
  EXPECT_EQ(category_of(eval_text("Ah Ad Kc Ks Qh Qd 2c")), hand_category::two_pair);
  // Board plays: both players split.
  EXPECT_EQ(eval_text("2c 3d Ah Kh Qh Jh Th"), eval_text("4c 5d Ah Kh Qh Jh Th"));
}

TEST(PokerEval, CheckedEntryRejectsBadHands) {
  const std::vector<card_t> four{0, 1, 2, 3};
  const std::vector<card_t> dup{0, 1, 2, 3, 3};
  const std::vector<card_t> off{0, 1, 2, 3, 52};
  EXPECT_THROW((void)evaluate(four), std::invalid_argument);
  EXPECT_THROW((void)evaluate(dup), std::invalid_argument);
  EXPECT_THROW((void)evaluate(off), std::invalid_argument);
}

TEST(PokerEval, TablesAreAPerfectHashOfAllRankMultisets) {
  const auto& ev = hand_evaluator::instance();
  EXPECT_EQ(ev.rank_keys(), 6175u + 18395u + 49205u);
  EXPECT_EQ(ev.multiplier() & 1, 1u);
}

TEST(PokerEval, CategoryNames) {
  EXPECT_EQ(category_key(hand_category::straight_flush), "straight_flush");
  EXPECT_EQ(category_label(hand_category::three_of_a_kind), "Three of a kind");
}

}  // namespace
}  // namespace fairdeck::poker
