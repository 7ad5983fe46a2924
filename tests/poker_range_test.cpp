// Hand and range notation.
#include <gtest/gtest.h>

#include <set>

#include "fairdeck/poker/range.hpp"

namespace fairdeck::poker {
namespace {

card_t c(std::string_view t) { return parse_card(t); }
hole_cards hc(std::string_view a, std::string_view b) {
  const card_t x = c(a), y = c(b);
  return x < y ? hole_cards{x, y} : hole_cards{y, x};
}

TEST(PokerRange, ExactHandsWithOrWithoutSpaces) {
  EXPECT_EQ(parse_hole_cards("AhKh"), hc("Ah", "Kh"));
  EXPECT_EQ(parse_hole_cards(" Ah Kh "), hc("Ah", "Kh"));
  EXPECT_EQ(parse_hole_cards("10h9h"), hc("Th", "9h"));
  EXPECT_EQ(parse_hole_cards("9h10h"), hc("Th", "9h"));
  EXPECT_EQ(parse_hole_cards("A\u2665K\u2660"), hc("Ah", "Ks"));
  EXPECT_EQ(parse_hole_cards("AK"), std::nullopt);
  EXPECT_EQ(parse_hole_cards("AhKhQh"), std::nullopt);
  EXPECT_THROW((void)parse_hole_cards("AhAh"), range_parse_error);
  EXPECT_EQ(parse_range("AhKh"), std::vector<hole_cards>{hc("Ah", "Kh")});
}

TEST(PokerRange, ComboCounts) {
  EXPECT_EQ(parse_range("QQ").size(), 6u);
  EXPECT_EQ(parse_range("QQ+").size(), 18u);
  EXPECT_EQ(parse_range("99-66").size(), 24u);
  EXPECT_EQ(parse_range("66-99").size(), 24u);
  EXPECT_EQ(parse_range("AKs").size(), 4u);
  EXPECT_EQ(parse_range("AKo").size(), 12u);
  EXPECT_EQ(parse_range("AK").size(), 16u);
  EXPECT_EQ(parse_range("KA").size(), 16u);
  EXPECT_EQ(parse_range("KQo").size(), 12u);
  EXPECT_EQ(parse_range("A5s-A2s").size(), 16u);
  EXPECT_EQ(parse_range("ATs+").size(), 16u);
  EXPECT_EQ(parse_range("KTo+").size(), 36u);
  EXPECT_EQ(parse_range("random").size(), 1326u);
  EXPECT_EQ(parse_range("*").size(), 1326u);
  EXPECT_EQ(parse_range("QQ+, AKs,AhKd").size(), 23u);
  EXPECT_EQ(parse_range("QQ+,KK,KhKd").size(), 18u);  // a set: duplicates count once
  EXPECT_EQ(parse_range("aks").size(), 4u);
  EXPECT_EQ(parse_range("QQ, Random").size(), 1326u);
}

TEST(PokerRange, CombosAreTheRightCards) {
  for (const auto& h : parse_range("AKs")) {
    EXPECT_EQ(suit_of(h[0]), suit_of(h[1]));
    EXPECT_EQ(std::set<unsigned>({rank_of(h[0]), rank_of(h[1])}), (std::set<unsigned>{0, 12}));  // A, K
  }
  for (const auto& h : parse_range("AKo")) EXPECT_NE(suit_of(h[0]), suit_of(h[1]));
  std::set<unsigned> kickers;
  for (const auto& h : parse_range("A5s-A2s")) kickers.insert(rank_of(h[1]) == 0 ? rank_of(h[0]) : rank_of(h[1]));
  EXPECT_EQ(kickers, (std::set<unsigned>{1, 2, 3, 4}));  // 2..5
  for (const auto& h : parse_range("QQ+")) {
    EXPECT_EQ(rank_of(h[0]), rank_of(h[1]));
    EXPECT_LT(h[0], h[1]);
  }
  const auto all = parse_range("random");
  EXPECT_EQ(std::set<hole_cards>(all.begin(), all.end()).size(), 1326u);
}

TEST(PokerRange, ErrorsNameTheItem) {
  for (const char* bad : {"", "AKx", "A", "QQs", "A5s-K2s", "99-A5s", "QQ,,KK", "QQ,", "Zh", "AhKhQh", "AKs-AQo"}) {
    try {
      (void)parse_range(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const range_parse_error& e) {
      EXPECT_NE(std::string(e.what()).find("invalid"), std::string::npos) << e.what();
    }
  }
}

TEST(PokerRange, CardRuns) {
  EXPECT_EQ(parse_card_run("7c8d9h"), (std::vector<card_t>{c("7c"), c("8d"), c("9h")}));
  EXPECT_EQ(parse_card_run("7c 8d,9h"), (std::vector<card_t>{c("7c"), c("8d"), c("9h")}));
  EXPECT_TRUE(parse_card_run("").empty());
  EXPECT_THROW((void)parse_card_run("7c 8x"), range_parse_error);
}

}  // namespace
}  // namespace fairdeck::poker

namespace fairdeck::poker {
namespace {

TEST(PokerWeightedRange, WeightsPercentFractionAndLastMentionWins) {
  const auto r = parse_weighted_range("AA@50, JTo:0.25, QsQc@25, KK");
  ASSERT_EQ(r.combos.size(), 6u + 12u + 1u + 6u);
  ASSERT_EQ(r.weights.size(), r.combos.size());
  std::uint64_t sum = 0;
  for (auto w : r.weights) sum += w;
  EXPECT_EQ(sum, 6u * 5000 + 12u * 2500 + 2500 + 6u * weight_unit);
  const auto qq = parse_weighted_range("QQ@10,QsQc");  // the later, unweighted mention wins
  for (std::size_t i = 0; i < qq.combos.size(); ++i)
    EXPECT_EQ(qq.weights[i], qq.combos[i] == *parse_hole_cards("QsQc") ? weight_unit : 1000u);
  EXPECT_TRUE(parse_weighted_range("AA@100,KK:1").weights.empty());  // all full: no weights
  EXPECT_EQ(parse_weighted_range("AA@0,KK").combos.size(), 6u);    // weight 0 removes
  EXPECT_EQ(parse_weighted_range("AA@12.34").weights[0], 1234u);
}

TEST(PokerWeightedRange, RejectsBadWeights) {
  for (const char* bad : {"AA@101", "AA@-1", "AA@", "AA@1.234", "AA:1.5", "AA:0.12345", "AA@x", "AA@0", "AA@5@6"})
    EXPECT_THROW((void)parse_weighted_range(bad), range_parse_error) << bad;
  EXPECT_THROW((void)parse_range("AA@50"), range_parse_error);
  EXPECT_EQ(parse_range("AA@100").size(), 6u);
}

}  // namespace
}  // namespace fairdeck::poker
