// The statistics, checked exactly where the theory is exact: moments by enumerating every
// permutation, p-values of known cases, detection of planted dependence.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "fairdeck/stats/audit.hpp"
#include "stats_test_support.hpp"

namespace fairdeck::stats {
namespace {

// Counts of every permutation of n cards exactly once: a perfectly uniform sample.
audit_counts all_orders(std::size_t n) {
  chunk_counter counter(n);
  std::vector<card_t> p(n);
  std::iota(p.begin(), p.end(), card_t{0});
  do counter.add(p);
  while (std::next_permutation(p.begin(), p.end()));
  audit_counts c(n);
  counter.flush_into(c);
  return c;
}

TEST(StatsTests, ChiSquareTailMatchesKnownValues) {
  EXPECT_NEAR(chi2_upper(3.841458820694124, 1), 0.05, 1e-12);
  EXPECT_NEAR(chi2_upper(10, 2), std::exp(-5.0), 1e-15);
  EXPECT_EQ(chi2_upper(0, 5), 1.0);
  EXPECT_GT(chi2_upper(1500, 100), 0.0);  // deep tail stays representable (about 1e-247)
  EXPECT_LT(chi2_upper(1500, 100), 1e-200);
}

TEST(StatsTests, SuccessionMomentsMatchEnumeration) {
  for (std::size_t n = 2; n <= 7; ++n) {
    std::vector<card_t> p(n);
    std::iota(p.begin(), p.end(), card_t{0});
    double sum = 0, sum2 = 0, count = 0;
    do {
      double s = 0;
      for (std::size_t i = 0; i + 1 < n; ++i) s += p[i + 1] == p[i] + 1;
      sum += s, sum2 += s * s, count += 1;
    } while (std::next_permutation(p.begin(), p.end()));
    const double nd = static_cast<double>(n), mean = sum / count;
    EXPECT_NEAR(mean, (nd - 1) / nd, 1e-12) << n;
    EXPECT_NEAR(sum2 / count - mean * mean, (nd * nd - nd - 1) / (nd * nd), 1e-12) << n;
  }
}

TEST(StatsTests, PermutationMatrixCovarianceIsAScaledProjection) {
  // Cov(P_ij, P_kl) over all n! permutation matrices equals (1/(n-1)) H_ik H_jl with
  // H = I - J/n: the fact behind the matrix test's n/(n-1) scale and (n-1)^2 df.
  const std::size_t n = 5;
  std::vector<card_t> p(n);
  std::iota(p.begin(), p.end(), card_t{0});
  std::vector<double> cov(n * n * n * n, 0.0);
  double count = 0;
  const double e = 1.0 / n;
  do {
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j)
        for (std::size_t k = 0; k < n; ++k)
          for (std::size_t l = 0; l < n; ++l)
            cov[((i * n + j) * n + k) * n + l] += ((p[i] == j) - e) * ((p[k] == l) - e);
    count += 1;
  } while (std::next_permutation(p.begin(), p.end()));
  auto h = [&](std::size_t a, std::size_t b) { return (a == b ? 1.0 : 0.0) - e; };
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j)
      for (std::size_t k = 0; k < n; ++k)
        for (std::size_t l = 0; l < n; ++l)
          ASSERT_NEAR(cov[((i * n + j) * n + k) * n + l] / count, h(i, k) * h(j, l) / (n - 1.0), 1e-12);
}

TEST(StatsTests, MatrixStatisticHasMeanEqualToItsDegreesOfFreedom) {
  // One deal (T = 1) averaged over all n! deals: E[X^2] = n(n-1), so the reported
  // X^2 (n-1)/n has mean (n-1)^2 = df exactly, for the card and the suit matrices.
  // matrix_test skips a table with under one expected deal per cell, as T = 1 is, so each
  // deal is counted n times: the counts and their expectations scale by n, X^2 by n
  // exactly, and statistic / n is the one-deal value. (Before, every call was skipped and
  // the test compared 0 with an empty optional's bytes.)
  for (std::size_t n : {3u, 4u, 6u}) {
    std::vector<card_t> p(n);
    std::iota(p.begin(), p.end(), card_t{0});
    categories by_card(n), by_pair(n);
    std::iota(by_card.begin(), by_card.end(), 0);
    for (std::size_t c = 0; c < n; ++c) by_pair[c] = static_cast<int>(c / 2);  // groups of 2 (and 1)
    double sum_card = 0, sum_pair = 0, count = 0, df_card = 0, df_pair = 0;
    do {
      audit_counts one(n);
      chunk_counter counter(n);
      for (std::size_t copy = 0; copy < n; ++copy) counter.add(p);
      counter.flush_into(one);
      const auto a = matrix_test(one, by_card, "c", ""), b = matrix_test(one, by_pair, "p", "");
      ASSERT_TRUE(a.df && b.df) << n << ": " << a.note << " / " << b.note;  // computed, not skipped
      sum_card += a.statistic / static_cast<double>(n), sum_pair += b.statistic / static_cast<double>(n), count += 1;
      df_card = *a.df, df_pair = *b.df;
    } while (std::next_permutation(p.begin(), p.end()));
    EXPECT_NEAR(sum_card / count, df_card, 1e-9) << n;
    EXPECT_NEAR(sum_pair / count, df_pair, 1e-9) << n;
  }
}

TEST(StatsTests, PerfectlyUniformCountsPassEveryTest) {
  const auto c = all_orders(5);
  const auto cards = make_deck({});
  const auto tests = run_tests(c, std::span(cards).first(5), deck_spec{});
  for (const auto& t : tests) {
    if (t.name == "serial" || t.name == "first-suit" || t.name == "position-suit") continue;  // chain / one suit
    ASSERT_FALSE(t.skipped()) << t.name << ": " << t.note;
    EXPECT_GT(*t.p_value, 0.5) << t.name;
  }
  const auto e = measure_effect(c);
  EXPECT_DOUBLE_EQ(e.max_deviation, 0.0);
  EXPECT_GT(e.upper, 0.0);
  EXPECT_DOUBLE_EQ(e.lower, 0.0);
}

TEST(StatsTests, RisingSequenceBinsArePooledToFiveExpectedDeals) {
  // All 120 orders of 5 cards: r = 1..5 expected 1, 26, 66, 26, 1. Pooled from r = 1 up:
  // {1, 2} = 27, {3} = 66, {4} = 26, and the thin tail {5} joins the last bin: 3 bins, df 2.
  auto c = all_orders(5);
  auto t = rising_sequences_test(c);
  ASSERT_FALSE(t.skipped());
  EXPECT_EQ(*t.df, 2.0);
  EXPECT_NEAR(t.statistic, 0.0, 1e-12);
  // Move 10 deals from r = 3 to r = 5 (last bin): X^2 = 100/66 + 100/27.
  c.rising[2] -= 10;
  c.rising[4] += 10;
  t = rising_sequences_test(c);
  EXPECT_NEAR(t.statistic, 100.0 / 66 + 100.0 / 27, 1e-9);
  EXPECT_NEAR(*t.p_value, chi2_upper(t.statistic, 2), 1e-15);
  // Fewer than 10 expected deals cannot fill two bins.
  audit_counts few(5);
  few.trials = 9;
  few.rising[2] = 9;
  EXPECT_TRUE(rising_sequences_test(few).skipped());
}

TEST(StatsTests, OrdersTestCatchesTheNaiveShuffleOnThreeCards) {
  // Naive on 3 cards: orders come 4,5,5,5,4,4 times in 27 - invisible to no test.
  const auto c = count_deals({{shuffle_kind::naive, 0}, engine_spec{engine_id::xoshiro256pp, 5, {}}}, 3, 60000, 1);
  const auto t = orders_test(c);
  ASSERT_FALSE(t.skipped());
  EXPECT_EQ(*t.df, 5.0);
  EXPECT_LT(*t.p_value, 1e-30);
}

TEST(StatsTests, SerialTestCatchesDependenceBetweenDeals) {
  // Every deal is a uniformly placed rotation, so each card is at each position equally
  // often; but deal t+1's top card is deal t's plus one: only the serial test can see it.
  const std::size_t n = 16;
  chunk_counter counter(n);
  std::vector<card_t> deck(n);
  for (std::size_t t = 0; t < 16 * 200; ++t) {
    for (std::size_t i = 0; i < n; ++i) deck[i] = static_cast<card_t>((t + i * 5) % n);
    counter.add(deck);
  }
  audit_counts c(n);
  counter.flush_into(c);
  const auto s = serial_test(c);
  ASSERT_FALSE(s.skipped());
  EXPECT_LT(*s.p_value, 1e-100);
  categories by_card(n);
  std::iota(by_card.begin(), by_card.end(), 0);
  EXPECT_GT(position_test(c, 0, by_card, "first-card", "").p_value.value_or(0), 0.5);
  EXPECT_GT(matrix_test(c, by_card, "position-card", "").p_value.value_or(0), 0.5);
}

TEST(StatsTests, MaxCellSeesOneForbiddenCell) {
  auto c = all_orders(6);  // 720 uniform deals
  for (int r = 0; r < 20; ++r) {
    const auto more = all_orders(6);
    c.merge(more);
  }
  EXPECT_GT(*max_cell_test(c).p_value, 0.5);
  c.position_card[5 * 6 + 5] = 0;  // card 5 never last (the asf1999 defect)
  EXPECT_LT(*max_cell_test(c).p_value, 1e-100);
}

TEST(StatsTests, EffectSizeLocatesAndBoundsTheWorstCell) {
  auto c = all_orders(4);
  c.merge(all_orders(4));
  for (int r = 0; r < 200; ++r) c.merge(all_orders(4));  // 202 * 24 deals
  c.position_card[1 * 4 + 2] += 606;  // 1212 expected: card 2 at position 1 1.5x as often
  c.position_card[1 * 4 + 3] -= 606;
  const auto e = measure_effect(c);
  EXPECT_NEAR(e.max_deviation, 0.5, 1e-12);
  EXPECT_EQ(e.position, 1u);
  EXPECT_TRUE(e.card == 2u || e.card == 3u);
  EXPECT_GT(e.lower, 0.3);
  EXPECT_LT(e.lower, 0.5);
  EXPECT_GT(e.upper, 0.5);
}

TEST(StatsTests, VerdictUsesBonferroniOverTestsThatRan) {
  std::vector<test_result> t(3);
  t[0].p_value = 0.5;
  t[1].p_value = 4e-5;  // below 1e-4 but not below 1e-4 / 2
  t[1].name = "second";
  auto v = decide(t, 1e-4);
  EXPECT_EQ(v.tests_run, 2u);
  EXPECT_DOUBLE_EQ(v.threshold, 5e-5);
  EXPECT_TRUE(v.biased);
  EXPECT_EQ(v.worst_test, "second");
  t[1].p_value = 6e-5;
  EXPECT_FALSE(decide(t, 1e-4).biased);
}

TEST(StatsTests, KolmogorovSmirnovAgainstUniform) {
  std::vector<double> even(1000);
  for (std::size_t i = 0; i < even.size(); ++i) even[i] = (static_cast<double>(i) + 0.5) / 1000;
  EXPECT_GT(ks_uniform(even).p_value, 0.999);
  std::vector<double> low(1000, 0.01);
  EXPECT_LT(ks_uniform(low).p_value, 1e-100);
  // D = 0.1 with m = 100: asymptotic p about 0.27.
  std::vector<double> shifted(100);
  for (std::size_t i = 0; i < 100; ++i) shifted[i] = std::min(1.0, (static_cast<double>(i) + 0.5) / 100 + 0.095);
  EXPECT_NEAR(ks_uniform(shifted).p_value, 0.27, 0.03);
}

}  // namespace
}  // namespace fairdeck::stats
