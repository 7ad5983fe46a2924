// The exact Bayer–Diaconis distances: published values, brute force over all n! orders for
// small n, and the identities the distributions must satisfy.
#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "fairdeck/shuffle/mixing.hpp"
#include "fairdeck/shuffle/physical.hpp"
#include "fairdeck/stats/bins.hpp"
#include "fairdeck/stats/power.hpp"

namespace fairdeck {
namespace {

// Bayer & Diaconis 1992, Table 1 (n = 52), three decimals.
TEST(MixingExact, MatchesBayerDiaconisTableFor52Cards) {
  constexpr std::array<double, 10> published = {1.000, 1.000, 1.000, 1.000, 0.924, 0.614, 0.334, 0.167, 0.085, 0.043};
  const auto rows = riffle_mixing(52, 10);
  ASSERT_EQ(rows.size(), published.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].shuffles, i + 1);
    EXPECT_NEAR(rows[i].total_variation, published[i], 0.0005) << "K = " << i + 1;
  }
  // The famous "seven": the first K under 1/2.
  EXPECT_GT(rows[5].total_variation, 0.5);
  EXPECT_LT(rows[6].total_variation, 0.5);
}

TEST(MixingExact, DecimalDigitsAgreeWithDoubles) {
  for (const auto& row : riffle_mixing(52, 12)) {
    EXPECT_EQ(row.total_variation_digits.size(), 32U);
    EXPECT_NEAR(std::stod(row.total_variation_digits), row.total_variation, 1e-15);
    EXPECT_NEAR(std::stod(row.separation_digits), row.separation, 1e-15);
  }
}

// For n <= 7 enumerate all n! orders, weight each by C(2^K + n - r, n) / 2^(Kn) from its own
// rising-sequence count, and sum |P - 1/n!| directly: checks the Eulerian bookkeeping and the
// prefix trick, independently of both.
TEST(MixingExact, AgreesWithBruteForceOverAllOrders) {
  for (std::uint64_t n = 1; n <= 7; ++n) {
    const auto rows = riffle_mixing(n, 8);
    for (std::uint64_t K = 1; K <= 8; ++K) {
      std::vector<int> deck(n);
      std::iota(deck.begin(), deck.end(), 0);
      double nfact = 1;
      for (std::uint64_t i = 2; i <= n; ++i) nfact *= static_cast<double>(i);
      double l1 = 0, total = 0, min_p = 1;
      do {
        const double p = riffle_arrangement_probability(n, K, rising_sequences(deck));
        total += p;
        l1 += std::abs(p - 1 / nfact);
        min_p = std::min(min_p, p);
      } while (std::next_permutation(deck.begin(), deck.end()));
      EXPECT_NEAR(total, 1.0, 1e-12) << "n=" << n << " K=" << K;
      EXPECT_NEAR(rows[K - 1].total_variation, l1 / 2, 1e-12) << "n=" << n << " K=" << K;
      EXPECT_NEAR(rows[K - 1].separation, 1 - nfact * min_p, 1e-12) << "n=" << n << " K=" << K;
    }
  }
}

// Two independent routes to the same number: the binary-split prefix sum of riffle_mixing()
// and half the L1 distance between the rising-sequence distributions (exact per-r terms).
TEST(MixingExact, TotalVariationEqualsHalfL1OfRisingSequenceDistributions) {
  for (std::uint64_t n : {52U, 416U}) {
    const auto uniform = uniform_rising_sequence_distribution(n);
    const auto rows = riffle_mixing(n, 24);
    for (std::uint64_t K = 1; K <= 24; ++K) {
      const auto d = rising_sequence_distribution(n, K);
      double l1 = 0;
      for (std::size_t i = 0; i < n; ++i) l1 += std::abs(d[i] - uniform[i]);
      EXPECT_NEAR(rows[K - 1].total_variation, l1 / 2, 1e-12) << "n=" << n << " K=" << K;
    }
  }
}

TEST(MixingExact, DistributionsSumToOneAndApproachUniform) {
  for (std::uint64_t n : {2U, 13U, 52U, 416U}) {
    const auto uniform = uniform_rising_sequence_distribution(n);
    EXPECT_NEAR(std::accumulate(uniform.begin(), uniform.end(), 0.0), 1.0, 1e-12);
    for (std::uint64_t K : {0U, 1U, 5U, 30U}) {
      const auto d = rising_sequence_distribution(n, K);
      EXPECT_NEAR(std::accumulate(d.begin(), d.end(), 0.0), 1.0, 1e-12) << "n=" << n << " K=" << K;
      // K riffles make at most 2^K rising sequences.
      for (std::uint64_t r = 1; r <= n; ++r) {
        if (K < 63 && r > (std::uint64_t{1} << K)) {
          EXPECT_EQ(d[r - 1], 0.0) << "n=" << n << " K=" << K;
        }
      }
    }
    const auto far = rising_sequence_distribution(n, 60);
    double l1 = 0;
    for (std::size_t i = 0; i < n; ++i) l1 += std::abs(far[i] - uniform[i]);
    EXPECT_LT(l1, 1e-9) << "n=" << n;
  }
  EXPECT_EQ(rising_sequence_distribution(5, 0)[0], 1.0);  // unshuffled: one rising sequence
}

TEST(MixingExact, EightDecksDecreaseMonotonicallyAndSeparationDominates) {
  const auto rows = riffle_mixing(416, 20);
  ASSERT_EQ(rows.size(), 20U);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_LE(rows[i].total_variation, rows[i].separation + 1e-15);  // TV <= separation always
    if (i) {
      EXPECT_LE(rows[i].total_variation, rows[i - 1].total_variation);
      EXPECT_LE(rows[i].separation, rows[i - 1].separation);
    }
  }
  // Cut-off at about (3/2) log2 n = 13 riffles (Bayer & Diaconis): still far at 9, close at 14.
  EXPECT_GT(rows[8].total_variation, 0.9);
  EXPECT_LT(rows[13].total_variation, 0.25);
}

TEST(MixingExact, SeparationIsOneUntilTheReversedDeckBecomesPossible) {
  // K riffles make at most 2^K rising sequences; the reversed deck needs n of them.
  const auto rows = riffle_mixing(52, 7);
  EXPECT_EQ(rows[4].separation, 1.0);  // 2^5 = 32 < 52
  EXPECT_EQ(rows[4].separation_digits, "1." + std::string(30, '0'));
  EXPECT_LT(rows[5].separation, 1.0);  // 2^6 = 64 >= 52
}

TEST(MixingExact, RejectsOutOfRangeInputs) {
  EXPECT_THROW((void)riffle_mixing(0, 5), std::invalid_argument);
  EXPECT_THROW((void)riffle_mixing(52, 0), std::invalid_argument);
  EXPECT_THROW((void)riffle_mixing(riffle_mixing_max_cards + 1, 5), std::invalid_argument);
  EXPECT_THROW((void)riffle_mixing(52, riffle_mixing_max_shuffles + 1), std::invalid_argument);
  EXPECT_THROW((void)riffle_arrangement_probability(5, 1, 6), std::invalid_argument);
  EXPECT_THROW((void)riffle_arrangement_probability(5, 1, 0), std::invalid_argument);
}

TEST(MixingExact, StopsWhenAsked) {
  std::atomic<bool> stop{true};
  run_control control;
  control.stop = &stop;
  EXPECT_TRUE(riffle_mixing(416, 20, control).empty());
}

}  // namespace
}  // namespace fairdeck

namespace fairdeck::stats {
namespace {

TEST(StatsBins, PoolsInOrderUntilFiveExpectedAndTheTailJoinsTheLastBin) {
  // 100 trials: 0.03 + 0.02 reach 5 expected, 0.5 alone, 0.45 alone; nothing left over.
  auto b = pool_bins({1, 2, 50, 47}, {0.03, 0.02, 0.5, 0.45}, 100);
  EXPECT_EQ(b.values, (std::vector<double>{3, 50, 47}));
  EXPECT_EQ(b.null.size(), 3U);
  EXPECT_NEAR(b.null[0], 0.05, 1e-15);
  // A tail of 0.04 (4 expected) joins the last bin.
  b = pool_bins({60, 36, 4}, {0.6, 0.36, 0.04}, 100);
  EXPECT_EQ(b.values, (std::vector<double>{60, 40}));
  EXPECT_NEAR(b.null[1], 0.4, 1e-15);
  EXPECT_TRUE(pool_bins({1, 1}, {0.5, 0.5}, 4).null.empty());  // no bin reaches 5
}

TEST(MixingDetectability, BoundsAndRisingSequencePowerBehave) {
  const std::uint64_t trials = 100'000;
  const auto table = riffle_detectability_table(52, 40, trials);
  ASSERT_EQ(table.size(), 40U);
  const auto tv = riffle_mixing(52, 40);
  for (const auto& d : table) {
    SCOPED_TRACE(d.shuffles);
    // No test beats the TV bound; the chi-squared power is a power: in [alpha, 1].
    EXPECT_LE(d.rising_sequence_test_power, d.any_test_power_bound + 1e-9);
    EXPECT_GE(d.rising_sequence_test_power, 1e-6 - 1e-12);
    EXPECT_LE(d.rising_sequence_test_power, 1.0);
    EXPECT_NEAR(d.any_test_power_bound,
                std::min(1.0, 1e-6 + 1 - std::pow(1 - tv[d.shuffles - 1].total_variation, static_cast<double>(trials))),
                1e-9);
  }
  // Riffle:3-5 are glaring at any audit size; the rising-sequence test still sees 11 riffles
  // in 100 000 shuffles, and 40 riffles are invisible to every test (bound ~ alpha).
  for (std::uint64_t K = 1; K <= 11; ++K) EXPECT_GT(table[K - 1].rising_sequence_test_power, 0.99) << K;
  EXPECT_LT(table[39].any_test_power_bound, 1e-5);
  for (std::size_t i = 12; i < table.size(); ++i)
    EXPECT_LE(table[i].rising_sequence_test_power, table[i - 1].rising_sequence_test_power + 1e-12) << i;
}

TEST(MixingDetectability, RejectsBadInputs) {
  EXPECT_THROW((void)riffle_detectability_table(417, 5, 100), std::invalid_argument);
  EXPECT_THROW((void)riffle_detectability_table(52, 5, 0), std::invalid_argument);
  EXPECT_THROW((void)riffle_detectability_table(52, 5, 100, 0.0), std::invalid_argument);
  EXPECT_THROW((void)riffle_detectability_table(52, 5, 100, 1.0), std::invalid_argument);
}

}  // namespace
}  // namespace fairdeck::stats
