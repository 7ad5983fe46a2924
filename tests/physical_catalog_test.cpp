// riffle / overhand / cut and compositions in the run-time catalog: parsing, names, fairness,
// limits, and that the catalog path shuffles exactly like the direct calls.
#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "fairdeck/cards/card.hpp"
#include "fairdeck/random/xoshiro256pp.hpp"
#include "fairdeck/shuffle/algorithm.hpp"
#include "fairdeck/shuffle/physical.hpp"

namespace fairdeck {
namespace {

TEST(PhysicalCatalog, ParsesNamesAndDefaults) {
  EXPECT_EQ(parse_shuffle_spec("riffle"), (shuffle_spec{shuffle_kind::riffle, 7}));
  EXPECT_EQ(parse_shuffle_spec("riffle:3"), (shuffle_spec{shuffle_kind::riffle, 3}));
  EXPECT_EQ(parse_shuffle_spec("overhand"), (shuffle_spec{shuffle_kind::overhand, 10}));
  EXPECT_EQ(parse_shuffle_spec("cut"), (shuffle_spec{shuffle_kind::cut, 0}));
  EXPECT_EQ(parse_shuffle_spec("riffle").name(), "riffle:7");
  EXPECT_EQ((shuffle_spec{shuffle_kind::riffle, 0}).name(), "riffle:7");  // 0 = default
  // Existing names are unchanged.
  EXPECT_EQ(parse_shuffle_spec("fisher-yates").name(), "fisher-yates");
  EXPECT_EQ(parse_shuffle_spec("partial").name(), "partial");
  EXPECT_EQ(parse_shuffle_spec("partial:5"), (shuffle_spec{shuffle_kind::partial, 5}));
}

TEST(PhysicalCatalog, CompositionsRoundTrip) {
  const auto spec = parse_shuffle_spec("riffle:3+cut+overhand:5");
  EXPECT_EQ(spec.kind, shuffle_kind::riffle);
  EXPECT_EQ(spec.param, 3U);
  ASSERT_EQ(spec.then.size(), 2U);
  EXPECT_EQ(spec.then[0], (shuffle_step{shuffle_kind::cut, 0}));
  EXPECT_EQ(spec.then[1], (shuffle_step{shuffle_kind::overhand, 5}));
  EXPECT_EQ(spec.name(), "riffle:3+cut+overhand:5");
  EXPECT_EQ(parse_shuffle_spec(spec.name()), spec);
  EXPECT_EQ(spec.steps().size(), 3U);
  for (const auto& s : default_audit_algorithms()) EXPECT_EQ(parse_shuffle_spec(s.name()), s) << s.name();
}

TEST(PhysicalCatalog, Fairness) {
  EXPECT_FALSE(parse_shuffle_spec("riffle:7").fair());
  EXPECT_FALSE(parse_shuffle_spec("riffle:100").fair());  // close, never exact
  EXPECT_FALSE(parse_shuffle_spec("overhand").fair());
  EXPECT_FALSE(parse_shuffle_spec("cut").fair());
  EXPECT_FALSE(parse_shuffle_spec("riffle:7+cut").fair());
  // Anything before or after an independent uniform shuffle is uniform.
  EXPECT_TRUE(parse_shuffle_spec("riffle:3+fisher-yates").fair());
  EXPECT_TRUE(parse_shuffle_spec("fisher-yates+cut").fair());
  EXPECT_TRUE(parse_shuffle_spec("naive+sort+naive").fair());
  // A uniform K-card deal stays one when it comes last, but not when followed by a riffle.
  EXPECT_TRUE(parse_shuffle_spec("riffle:2+partial:5").fair());
  EXPECT_FALSE(parse_shuffle_spec("partial:5+riffle:2").fair());
  EXPECT_TRUE(parse_shuffle_spec("partial+riffle:2").fair());  // partial over all cards
  for (const char* name : {"riffle", "overhand", "cut"}) {
    bool listed = false;
    for (const auto& a : shuffle_catalog()) listed |= a.name == name;
    EXPECT_TRUE(listed) << name;
  }
}

TEST(PhysicalCatalog, RejectsBadSpecsWithAMessage) {
  const auto message = [](const std::string& text) {
    try {
      (void)parse_shuffle_spec(text);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("riffle:0").find("positive"), std::string::npos);
  EXPECT_NE(message("riffle:x").find("positive"), std::string::npos);
  EXPECT_NE(message("riffle:10001").find("K <= 10000"), std::string::npos);
  EXPECT_NE(message("cut:3").find("takes no"), std::string::npos);
  EXPECT_NE(message("riffle:3+").find("empty step"), std::string::npos);
  EXPECT_NE(message("+cut").find("empty step"), std::string::npos);
  EXPECT_NE(message("riffle:3++cut").find("empty step"), std::string::npos);
  EXPECT_NE(message("riffle:3+dance").find("unknown algorithm 'dance' in 'riffle:3+dance'"), std::string::npos);
  EXPECT_NE(message("").find("empty"), std::string::npos);
  std::string long_chain = "cut";
  for (int i = 0; i < 64; ++i) long_chain += "+cut";
  EXPECT_NE(message(long_chain).find("more than 64 steps"), std::string::npos);
  // Directly built specs are checked when applied.
  auto deck = make_deck({1, 0});
  xoshiro256pp engine(1);
  EXPECT_THROW(apply_shuffle(shuffle_spec{shuffle_kind::riffle, 1'000'000}, deck, engine), std::invalid_argument);
}

TEST(PhysicalCatalog, CatalogPathEqualsDirectCalls) {
  auto a = make_deck({1, 0}), b = a;
  xoshiro256pp ea(9), eb(9);
  apply_shuffle(parse_shuffle_spec("riffle:3+cut+overhand:5"), a, ea);
  riffle_shuffle(b, 3, eb);
  random_cut(b, eb);
  overhand_shuffle(b, 5, eb);
  EXPECT_EQ(a, b);
  EXPECT_TRUE(std::is_permutation(a.begin(), a.end(), make_deck({1, 0}).begin()));
}

TEST(PhysicalCatalog, HandlesTinyAndLargeDecks) {
  xoshiro256pp engine(3);
  for (std::size_t n : {0U, 1U, 2U, 63U, 64U, 65U, 127U, 128U, 129U, 1000U}) {
    std::vector<int> identity(n);
    std::iota(identity.begin(), identity.end(), 0);
    std::vector<int> deck = identity;
    const auto still_a_permutation = [&] { return std::is_permutation(deck.begin(), deck.end(), identity.begin()); };
    for (const char* spec : {"riffle:7", "overhand:3", "cut", "riffle:1+cut+overhand:1"}) {
      apply_shuffle(parse_shuffle_spec(spec), deck, engine);
      EXPECT_TRUE(still_a_permutation()) << spec << " n=" << n;
    }
    for (int k = 0; k < 3; ++k) gsr_riffle_by_drops(deck, engine);
    EXPECT_TRUE(still_a_permutation()) << "drops n=" << n;
  }
  std::vector<int> deck(10);
  EXPECT_THROW(overhand_shuffle(deck, 1, engine, 0), std::invalid_argument);
}

// Overhand packets have the advertised mean size 1/p = 4 on a long deck: a cheap check of the
// bit trick (cut iff two fair bits are zero) across 64-bit word boundaries.
TEST(PhysicalCatalog, OverhandPacketRateIsOneQuarter) {
  const std::size_t n = 10'000;
  std::vector<int> deck(n);
  std::iota(deck.begin(), deck.end(), 0);
  xoshiro256pp engine(5);
  overhand_shuffle(deck, 1, engine);
  // Packets keep their inner order: every boundary is where deck[j+1] != deck[j] + 1.
  std::size_t boundaries = 0;
  for (std::size_t j = 0; j + 1 < n; ++j) boundaries += deck[j + 1] != deck[j] + 1;
  // Binomial(9999, 1/4): mean 2499.75, sd 43.3; +-6 sd has false-failure rate < 1e-8.
  EXPECT_NEAR(static_cast<double>(boundaries), 2499.75, 6 * 43.3);
}

}  // namespace
}  // namespace fairdeck
