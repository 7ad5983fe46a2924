// Category odds: exact enumeration against published counts and an independent path
// (hash evaluator vs rank-state enumeration), Monte Carlo determinism and accuracy.
#include <gtest/gtest.h>

#include <atomic>

#include <boost/math/distributions/chi_squared.hpp>

#include "fairdeck/poker/enumerate.hpp"
#include "fairdeck/poker/odds.hpp"
#include "poker_test_config.hpp"

namespace fairdeck::poker {
namespace {

using counts = std::array<std::uint64_t, category_count>;
// Published counts (e.g. Wikipedia "Poker probability"), high card first.
constexpr counts five_card{1302540, 1098240, 123552, 54912, 10200, 5108, 3744, 624, 40};
constexpr counts seven_card{23294460, 58627800, 31433400, 6461620, 6180020, 4047644, 3473184, 224848, 41584};

TEST(PokerOdds, ExactFiveCardCounts) {
  const auto r = exact_category_counts(5, 2);
  EXPECT_TRUE(r.complete);
  EXPECT_EQ(r.hands, 2598960u);
  EXPECT_EQ(r.count, five_card);
}

TEST(PokerOdds, ExactSevenCardCountsAnyThreadCount) {
  const auto two = exact_category_counts(7, 2);
  EXPECT_EQ(two.hands, 133784560u);
  EXPECT_EQ(two.count, seven_card);
#if !FAIRDECK_POKER_SANITIZED
  // (Under sanitizers one full run is enough.)
  EXPECT_EQ(exact_category_counts(7, 3).count, seven_card);
#endif
}

// for_each_hand (rank-state rows and flush masks) visits the hands of each lowest card in the
// order of their cards' indices, as for_each_completion (one hash lookup a hand) does over the
// deck in order: both give the same strength for every hand, in the same order.
template <unsigned K>
void expect_same_strengths_hand_by_hand() {
  std::vector<card_t> deck(52);
  for (card_t c = 0; c < 52; ++c) deck[c] = c;
  for (unsigned first = 0; first + K <= 52; ++first) {
    std::uint64_t a = 0, b = 0, na = 0, nb = 0;
    for_each_hand<K>(first, [&](strength_t s) { a = a * 0x9e3779b97f4a7c15u + s + 1, ++na; });
    for_each_completion<K - 1>(hand_accumulator{} + deck[first], deck, first + 1,
                               [&](strength_t s) { b = b * 0x9e3779b97f4a7c15u + s + 1, ++nb; });
    ASSERT_EQ(na, nb) << K << " cards, lowest card " << first;
    ASSERT_EQ(na, choose(51 - first, K - 1)) << K << " cards, lowest card " << first;
    ASSERT_EQ(a, b) << K << " cards, lowest card " << first;
  }
}

TEST(PokerOdds, RankStateEnumerationEqualsTheHashEvaluatorHandByHand) {
  expect_same_strengths_hand_by_hand<5>();
  expect_same_strengths_hand_by_hand<6>();
#if !FAIRDECK_POKER_SANITIZED
  expect_same_strengths_hand_by_hand<7>();  // 133,784,560 hands each way (~1 s); 5 and 6 cards cover the same code
#endif
}

TEST(PokerOdds, ExactSixCardCountsMatchTheHashEvaluator) {
  // Two independent paths: rank-state enumeration vs per-hand perfect-hash evaluation.
  const auto fast = exact_category_counts(6, 2);
  std::vector<card_t> deck(52);
  for (card_t c = 0; c < 52; ++c) deck[c] = c;
  counts slow{};
  for (std::size_t first = 0; first + 6 <= 52; ++first)
    for_each_completion<5>(hand_accumulator{} + deck[first], deck, first + 1,
                           [&](strength_t s) { ++slow[static_cast<unsigned>(category_of(s))]; });
  EXPECT_EQ(fast.count, slow);
  EXPECT_EQ(fast.hands, choose(52, 6));
}

TEST(PokerOdds, RejectsOtherHandSizes) {
  EXPECT_THROW((void)exact_category_counts(4), std::invalid_argument);
  EXPECT_THROW((void)sample_category_counts(8, 10, make_engine_spec("xoshiro256pp", 1, std::nullopt)), std::invalid_argument);
}

TEST(PokerOdds, MonteCarloIsTheSameForAnyThreadCount) {
  const auto spec = make_engine_spec("xoshiro256pp", 42, std::nullopt);
  const std::uint64_t trials = 3 * odds_chunk_trials + 12345;  // a partial last chunk
  const auto one = sample_category_counts(7, trials, spec, 1);
  const auto two = sample_category_counts(7, trials, spec, 2);
  const auto three = sample_category_counts(7, trials, spec, 3);
  EXPECT_EQ(one.hands, trials);
  EXPECT_EQ(one.count, two.count);
  EXPECT_EQ(one.count, three.count);
  std::uint64_t sum = 0;
  for (auto c : one.count) sum += c;
  EXPECT_EQ(sum, trials);
  const auto other_seed = sample_category_counts(7, trials, make_engine_spec("xoshiro256pp", 43, std::nullopt), 2);
  EXPECT_NE(one.count, other_seed.count);
}

// Goodness of fit of the partial-shuffle-with-reuse sampler to the exact distribution.
// Fixed seeds, so never flaky; a correct sampler would fail with probability 1e-6.
void check_fit(unsigned cards, const char* engine, std::uint64_t seed) {
  const std::uint64_t trials = std::uint64_t{1} << 20;
  const auto got = sample_category_counts(cards, trials, make_engine_spec(engine, seed, std::nullopt), 2);
  const auto truth = exact_category_counts(cards, 2);
  double chi2 = 0;
  for (unsigned c = 0; c < category_count; ++c) {
    const double expected = static_cast<double>(trials) * static_cast<double>(truth.count[c]) / static_cast<double>(truth.hands);
    const double d = static_cast<double>(got.count[c]) - expected;
    chi2 += d * d / expected;
  }
  const boost::math::chi_squared dist(category_count - 1);
  EXPECT_LT(chi2, boost::math::quantile(boost::math::complement(dist, 1e-6))) << engine << " cards " << cards;
}

TEST(PokerOdds, MonteCarloFitsTheExactDistribution) {
  check_fit(7, "xoshiro256pp", 1);
  check_fit(5, "chacha20", 2);
  check_fit(6, "pcg64", 3);
}

TEST(PokerOdds, StopsWhenAsked) {
  const std::atomic<bool> stop{true};
  run_control rc;
  rc.stop = &stop;
  const auto e = exact_category_counts(7, 2, rc);
  EXPECT_FALSE(e.complete);
  EXPECT_EQ(e.hands, 0u);
  const auto m = sample_category_counts(7, 1000000, make_engine_spec("xoshiro256pp", 1, std::nullopt), 2, rc);
  EXPECT_FALSE(m.complete);
}

TEST(PokerOdds, ReportsProgressUpToTheTotal) {
  std::uint64_t last = 0, total = 0;
  run_control rc;
  rc.on_progress = [&](std::uint64_t d, std::uint64_t t) { last = std::max(last, d), total = t; };
  (void)exact_category_counts(5, 2, rc);
  EXPECT_EQ(last, 2598960u);
  EXPECT_EQ(total, 2598960u);
}

TEST(PokerOdds, ClopperPearsonKnownValues) {
  const auto zero = clopper_pearson(0, 10);
  EXPECT_DOUBLE_EQ(zero.low, 0.0);
  EXPECT_NEAR(zero.high, 1 - std::pow(0.025, 0.1), 1e-12);  // (alpha/2)^(1/n)
  const auto half = clopper_pearson(5, 10);
  EXPECT_NEAR(half.low, 0.187086, 1e-6);
  EXPECT_NEAR(half.high, 0.812914, 1e-6);
}

}  // namespace
}  // namespace fairdeck::poker
