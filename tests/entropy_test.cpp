// Outcome counts and reachability: known values, and the exact orbit count checked against
// brute-force enumeration on small shoes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "fairdeck/security/seed_space.hpp"

namespace fairdeck {
namespace {

TEST(Entropy, KnownLogFactorials) {
  EXPECT_NEAR(log2_factorial(52), 225.58100312370277, 1e-9);    // 52! ~ 2^225.58, not 2^220
  EXPECT_NEAR(log2_falling(52, 25), 132.44416229452304, 1e-9);  // log2(52!/27!)
  EXPECT_EQ(log2_factorial(0), 0.0);
  EXPECT_EQ(falling_factorial_decimal(52, 52), "80658175170943878571660636856403766975289505440883277824000000000000");
  EXPECT_EQ(falling_factorial_decimal(52, 2), "2652");
  EXPECT_THROW((void)log2_falling(5, 6), std::invalid_argument);
}

TEST(Entropy, SingleDeck) {
  const auto full = deck_outcomes({});
  EXPECT_EQ(full.cards_dealt, 52u);
  EXPECT_NEAR(full.ordered_bits, 225.581003, 1e-6);
  EXPECT_NEAR(full.distinguishable_bits, full.ordered_bits, 1e-9);  // every card differs
  const auto five = deck_outcomes({}, 5);
  EXPECT_NEAR(five.ordered_bits, std::log2(52.0 * 51 * 50 * 49 * 48), 1e-9);
  EXPECT_NEAR(five.distinguishable_bits, five.ordered_bits, 1e-9);
}

TEST(Entropy, TenPlayerHoldemIsAbout120DistinguishableBits) {
  // The often quoted "about 120 bits" of a ten-player hold'em deal: 52!/27! ordered, divided by
  // 2^10 hole orders and 3! flop orders.
  const auto h = holdem_outcomes({}, 10);
  EXPECT_EQ(h.cards_dealt, 25u);
  EXPECT_NEAR(h.ordered_bits, 132.44416229452304, 1e-9);
  EXPECT_NEAR(h.distinguishable_bits, 119.85919979380188, 1e-9);
}

TEST(Entropy, MultiDeckShoes) {
  const auto two = deck_outcomes({2, 0});
  EXPECT_NEAR(two.ordered_bits, log2_factorial(104), 1e-9);
  EXPECT_NEAR(two.distinguishable_bits, 499.4825703601073, 1e-9);  // 104! / 2^52
  // Each face 6 times, 3 cards dealt: no face can run out, so 52^3 face sequences.
  EXPECT_NEAR(deck_outcomes({6, 0}, 3).distinguishable_bits, 3 * std::log2(52.0), 1e-9);
  // Jokers are interchangeable: 1 deck + 2 jokers = 54! / 2!.
  EXPECT_NEAR(deck_outcomes({1, 2}).distinguishable_bits, log2_factorial(54) - 1, 1e-9);
  // Two decks, 3 cards: 52^3 minus the 52 sequences of one face three times.
  EXPECT_NEAR(deck_outcomes({2, 0}, 3).distinguishable_bits, std::log2(52.0 * 52 * 52 - 52), 1e-9);
}

// Brute force: deal every permutation of a small shoe, read the faces, sort each unordered set.
double brute_force_bits(const std::vector<unsigned>& multiplicity, unsigned pairs, unsigned triples, unsigned singles) {
  std::vector<int> shoe;
  for (std::size_t f = 0; f < multiplicity.size(); ++f) shoe.insert(shoe.end(), multiplicity[f], static_cast<int>(f));
  std::vector<std::size_t> order(shoe.size());
  std::iota(order.begin(), order.end(), 0);
  const std::size_t dealt = 2 * pairs + 3 * triples + singles;
  std::set<std::vector<int>> seen;
  do {
    std::vector<int> out;
    for (std::size_t i = 0; i < dealt; ++i) out.push_back(shoe[order[i]]);
    for (unsigned p = 0; p < pairs; ++p) std::sort(out.begin() + 2 * p, out.begin() + 2 * p + 2);
    for (unsigned t = 0; t < triples; ++t)
      std::sort(out.begin() + 2 * pairs + 3 * t, out.begin() + 2 * pairs + 3 * t + 3);
    seen.insert(out);
  } while (std::next_permutation(order.begin(), order.end()));
  return std::log2(static_cast<double>(seen.size()));
}

TEST(Entropy, OrbitCountMatchesBruteForceOnSmallShoes) {
  struct c {
    std::vector<unsigned> m;
    unsigned pairs, triples, singles;
  };
  for (const auto& k : {c{{2, 2, 1}, 1, 1, 0}, c{{3, 3, 2}, 2, 1, 1}, c{{2, 2, 2, 1}, 1, 1, 1}, c{{1, 1, 1, 1, 1}, 2, 0, 1},
                        c{{4, 1, 1, 1}, 1, 1, 2}, c{{2, 2, 2, 2}, 0, 0, 5}, c{{3, 2, 2}, 2, 0, 2}})
    EXPECT_NEAR(log2_distinguishable(k.m, k.pairs, k.triples, k.singles),
                brute_force_bits(k.m, k.pairs, k.triples, k.singles), 1e-9)
        << k.pairs << " pairs, " << k.triples << " triples, " << k.singles << " singles";
}

TEST(Entropy, ReachabilityVerdicts) {
  const auto rows = engine_reachability(deck_outcomes({}));
  auto row = [&](const std::string& name) { return *std::ranges::find(rows, name, &reachability::name); };
  EXPECT_TRUE(row("secure").every_outcome);
  EXPECT_TRUE(row("secure").secure);
  const auto d = row("delphi");
  EXPECT_FALSE(d.every_outcome);
  EXPECT_DOUBLE_EQ(d.log2_reachable, 32);
  EXPECT_NEAR(d.log2_fraction, 32 - 225.581003, 1e-6);
  const auto t = row("time-of-day-ms");
  EXPECT_NEAR(t.seed_bits, std::log2(86'400'000.0), 1e-12);
  // A 64-bit seed reaches every 5-card deal in count, but stays searchable.
  const auto five = engine_reachability(deck_outcomes({}, 5));
  EXPECT_TRUE(std::ranges::find(five, "pcg64", &reachability::name)->every_outcome);
  EXPECT_NE(std::ranges::find(five, "pcg64", &reachability::name)->verdict.find("predictable"), std::string::npos);
}

TEST(Entropy, BadInputThrows) {
  EXPECT_THROW((void)holdem_outcomes({}, 1), std::invalid_argument);
  EXPECT_THROW((void)holdem_outcomes({}, 23), std::invalid_argument);
  EXPECT_THROW((void)deck_outcomes({}, 53), std::invalid_argument);
}

TEST(EntropyCli, JsonKeysAndValues) {
  const auto r = testing::run_cli("entropy --game holdem --players 10 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_NEAR(j["ordered_bits"].get<double>(), 132.444, 1e-3);
  EXPECT_NEAR(j["distinguishable_bits"].get<double>(), 119.859, 1e-3);
  EXPECT_EQ(j["cards_dealt"], 25);
  EXPECT_EQ(j["players"], 10);
  ASSERT_TRUE(j["engines"].is_array());
  bool saw_delphi = false;
  for (const auto& e : j["engines"]) {
    for (const char* key : {"name", "secure", "seed_bits", "state_bits", "log2_reachable", "log2_fraction_reachable",
                            "fraction_reachable", "every_outcome", "verdict"})
      EXPECT_TRUE(e.contains(key)) << key;
    if (e["name"] == "delphi") {
      saw_delphi = true;
      EXPECT_EQ(e["seed_bits"], 32.0);
      EXPECT_EQ(e["every_outcome"], false);
    }
  }
  EXPECT_TRUE(saw_delphi);
  const auto full = nlohmann::json::parse(testing::run_cli("entropy --json").out);
  EXPECT_EQ(full["ordered_count"], "80658175170943878571660636856403766975289505440883277824000000000000");
}

TEST(EntropyCli, TextTableAndErrors) {
  const auto r = testing::run_cli("entropy --engine delphi");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("2^225.58"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("delphi"), std::string::npos);
  EXPECT_EQ(r.out.find("chacha20"), std::string::npos);
  for (const char* bad : {"entropy --game poker", "entropy --game holdem", "entropy --game holdem --players 1",
                          "entropy --cards 53", "entropy --cards 0", "entropy --engine nope", "entropy --players 3"})
    EXPECT_EQ(testing::run_cli(bad).exit_code, 2) << bad;
}

}  // namespace
}  // namespace fairdeck
