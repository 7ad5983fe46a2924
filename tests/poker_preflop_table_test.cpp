// The shipped heads-up preflop table against direct exact enumeration (a sample of class
// pairs and class-vs-random rows), its consistency, and the percentage ranges built on it.
#include <gtest/gtest.h>

#include <set>

#include "fairdeck/poker/equity.hpp"
#include "fairdeck/poker/preflop_table.hpp"
#include "fairdeck/random/splitmix64.hpp"
#include "poker_test_config.hpp"

namespace fairdeck::poker {
namespace {

equity_result direct(const std::vector<hole_cards>& a, const std::vector<hole_cards>& b) {
  equity_input in;
  in.ranges = {a, b};
  return exact_equity(prepared(std::move(in)), 2);
}

TEST(PokerPreflopTable, ClassesCoverEveryComboOnce) {
  std::set<hole_cards> all;
  for (unsigned c = 0; c < preflop_classes; ++c) {
    const auto combos = preflop_class_combos(c);
    const auto name = preflop_class_name(c);
    EXPECT_EQ(combos.size(), name.size() == 2 ? 6u : name[2] == 's' ? 4u : 12u) << name;
    EXPECT_EQ(preflop_class_index(name), c) << name;
    EXPECT_EQ(combos, parse_range(name)) << name;
    for (const auto& h : combos) {
      EXPECT_EQ(preflop_class_of(h), c);
      EXPECT_TRUE(all.insert(h).second);
    }
  }
  EXPECT_EQ(all.size(), 1326u);
  EXPECT_EQ(preflop_class_name(0), "AA");
  EXPECT_EQ(preflop_class_name(1), "AKs");
  EXPECT_EQ(preflop_class_name(13), "AKo");
  EXPECT_FALSE(preflop_class_index("AAs"));
  EXPECT_FALSE(preflop_class_index("AX"));
}

TEST(PokerPreflopTable, SampleMatchesDirectEnumeration) {
  // A fixed pseudo-random sample of class pairs plus hand-picked ones (pairs, the diagonal).
  std::vector<std::pair<unsigned, unsigned>> sample{{0, 0}, {0, 14 * 12}, {*preflop_class_index("AKs"), *preflop_class_index("QQ")},
                                                    {*preflop_class_index("72o"), *preflop_class_index("32o")}};
  splitmix64 rng(18);
  for (int i = 0; i < (FAIRDECK_POKER_SANITIZED ? 2 : 12); ++i)
    sample.push_back({static_cast<unsigned>(rng() % preflop_classes), static_cast<unsigned>(rng() % preflop_classes)});
  for (const auto& [a, b] : sample) {
    const auto m = preflop_heads_up(a, b);
    const auto r = direct(preflop_class_combos(a), preflop_class_combos(b));
    EXPECT_EQ(m.outcomes, r.outcomes) << preflop_class_name(a) << " vs " << preflop_class_name(b);
    EXPECT_EQ(m.wins_a, r.players[0].wins) << preflop_class_name(a) << " vs " << preflop_class_name(b);
    EXPECT_EQ(m.wins_b, r.players[1].wins) << preflop_class_name(a) << " vs " << preflop_class_name(b);
    EXPECT_EQ(m.ties, r.players[0].ties) << preflop_class_name(a) << " vs " << preflop_class_name(b);
    const auto flipped = preflop_heads_up(b, a);
    EXPECT_EQ(flipped.wins_a, m.wins_b);
  }
  EXPECT_NEAR(preflop_heads_up(*preflop_class_index("AKs"), *preflop_class_index("QQ")).equity_a(), 0.46, 0.01);
}

TEST(PokerPreflopTable, VersusRandomRowsMatchDirectEnumeration) {
  std::vector<hole_cards> random;
  for (card_t x = 0; x < 52; ++x)
    for (card_t y = x + 1; y < 52; ++y) random.push_back({x, y});
  // One row (about a second of enumeration; skipped under sanitizers, where the sampled
  // pairs above still tie the table to the enumerator).
  for (const char* name : {"AA"}) {
    if (FAIRDECK_POKER_SANITIZED) break;
    const unsigned c = *preflop_class_index(name);
    const auto m = preflop_vs_random(c);
    const auto r = direct(preflop_class_combos(c), random);
    EXPECT_EQ(m.outcomes, r.outcomes) << name;
    EXPECT_EQ(m.wins_a, r.players[0].wins) << name;
    EXPECT_EQ(m.ties, r.players[0].ties) << name;
  }
  // Every outcome of the table is counted once per orientation: wins + ties add up.
  for (unsigned a = 0; a < preflop_classes; ++a) {
    const auto m = preflop_vs_random(a);
    EXPECT_EQ(m.wins_a + m.wins_b + m.ties, m.outcomes);
  }
}

TEST(PokerPreflopTable, RankingAndPercentRanges) {
  const auto& order = preflop_ranking();
  EXPECT_EQ(preflop_class_name(order[0]), "AA");
  EXPECT_EQ(preflop_class_name(order[1]), "KK");
  EXPECT_EQ(preflop_class_name(order[168]), "32o");
  EXPECT_EQ(std::set<std::uint8_t>(order.begin(), order.end()).size(), 169u);
  EXPECT_EQ(parse_range("100%").size(), 1326u);
  EXPECT_EQ(parse_range("0.01%").size(), 6u);  // at least one class: AA
  const auto r15 = parse_range("15%");
  EXPECT_NEAR(static_cast<double>(r15.size()), 0.15 * 1326, 6.0);  // nearest whole-class count
  const auto r20 = parse_range("20%");
  EXPECT_TRUE(std::includes(r20.begin(), r20.end(), r15.begin(), r15.end()));
  EXPECT_EQ(parse_weighted_range("15%@50").weights.size(), r15.size());
  EXPECT_THROW((void)parse_range("0%"), range_parse_error);
  EXPECT_THROW((void)parse_range("101%"), range_parse_error);
  EXPECT_THROW((void)parse_range("x%"), range_parse_error);
}

}  // namespace
}  // namespace fairdeck::poker
