// Exact-distribution proofs: every possible draw path of each algorithm is enumerated for
// small n and the resulting distribution over orders is compared with the claim.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <vector>

#include <random>
#include <span>

#include "fairdeck/random/xoshiro256pp.hpp"
#include "fairdeck/shuffle/algorithm.hpp"
#include "scripted_engine.hpp"

using namespace fairdeck;
using namespace fairdeck::testing;

namespace {

using order = std::vector<int>;

order identity(int n) {
  order v(static_cast<std::size_t>(n));
  std::iota(v.begin(), v.end(), 0);
  return v;
}

std::uint64_t factorial(int n) { return n <= 1 ? 1 : static_cast<std::uint64_t>(n) * factorial(n - 1); }

// Distribution over final orders of `algo` for n cards, over all ideal draw paths.
// Also checks every path has the same bound sequence (so equal probability).
template <class Algo>
std::map<order, std::uint64_t> enumerate(int n, Algo algo, std::uint64_t* paths = nullptr) {
  std::map<order, std::uint64_t> counts;
  std::vector<std::uint64_t> first_bounds;
  std::uint64_t total = 0;
  for_each_ideal_path(
      [&](ideal_draws& e) {
        order v = identity(n);
        algo(v, e);
        return v;
      },
      [&](const order& v, const std::vector<std::uint64_t>& bounds) {
        if (total == 0) first_bounds = bounds;
        EXPECT_EQ(bounds, first_bounds);
        ++counts[v];
        ++total;
      });
  if (paths) *paths = total;
  return counts;
}

}  // namespace

TEST(ExactDistribution, FisherYatesHitsEveryOrderExactlyOnce) {
  for (int n = 1; n <= 6; ++n) {
    std::uint64_t paths = 0;
    const auto counts = enumerate(n, [](order& v, ideal_draws& e) { fisher_yates(v, e); }, &paths);
    EXPECT_EQ(paths, factorial(n));  // n-1 draws with bounds n, n-1, ..., 2
    EXPECT_EQ(counts.size(), factorial(n));
    for (const auto& [o, c] : counts) EXPECT_EQ(c, 1u);
  }
}

TEST(ExactDistribution, PartialShuffleDealsUniformKPermutations) {
  for (int n = 1; n <= 6; ++n)
    for (int k = 0; k <= n; ++k) {
      std::map<order, std::uint64_t> prefixes;
      std::uint64_t paths = 0;
      for (const auto& [o, c] :
           enumerate(n, [k](order& v, ideal_draws& e) { partial_shuffle(v, static_cast<std::uint64_t>(k), e); }, &paths))
        prefixes[order(o.begin(), o.begin() + k)] += c;
      EXPECT_EQ(prefixes.size(), factorial(n) / factorial(n - k)) << n << " " << k;
      for (const auto& [p, c] : prefixes) EXPECT_EQ(c, paths / prefixes.size()) << n << " " << k;
    }
}

TEST(ExactDistribution, ReusingThePartlyShuffledDeckStaysUniformAndIndependent) {
  // Dealing only k cards (Rust rand's SliceRandom::partial_shuffle) and reusing the deck: deal k,
  // then deal k again from the same (not reset) deck.
  // Every pair (first deal, second deal) must be equally likely.
  const int n = 5, k = 2;
  std::map<std::pair<order, order>, std::uint64_t> pairs;
  for_each_ideal_path(
      [&](ideal_draws& e) {
        order v = identity(n);
        partial_shuffle(v, k, e);
        order first(v.begin(), v.begin() + k);
        partial_shuffle(v, k, e);
        return std::make_pair(first, order(v.begin(), v.begin() + k));
      },
      [&](const auto& p, const auto&) { ++pairs[p]; });
  EXPECT_EQ(pairs.size(), 20u * 20u);
  for (const auto& [p, c] : pairs) EXPECT_EQ(c, 1u);
}

TEST(ExactDistribution, NaiveShuffleIsBiased) {
  // n = 3: 27 equally likely paths onto 6 orders: 4,5,5,5,4,4 (the table in Jeff Atwood,
  // "The Danger of Naivete", Coding Horror, 2007).
  std::uint64_t paths = 0;
  const auto counts = enumerate(3, [](order& v, ideal_draws& e) { naive_shuffle(v, e); }, &paths);
  EXPECT_EQ(paths, 27u);
  const std::map<order, std::uint64_t> expected = {{{0, 1, 2}, 4}, {{0, 2, 1}, 5}, {{1, 0, 2}, 5},
                                                   {{1, 2, 0}, 5}, {{2, 0, 1}, 4}, {{2, 1, 0}, 4}};
  EXPECT_EQ(counts, expected);
  for (int n = 3; n <= 5; ++n) {  // n^n is never a multiple of n! for n >= 3
    const auto c = enumerate(n, [](order& v, ideal_draws& e) { naive_shuffle(v, e); });
    const auto [lo, hi] = std::ranges::minmax_element(c, {}, &std::pair<const order, std::uint64_t>::second);
    EXPECT_LT(lo->second, hi->second) << n;
  }
}

TEST(ExactDistribution, Asf1999NeverLeavesTheLastCardLast) {
  for (int n = 2; n <= 5; ++n) {
    const auto counts = enumerate(n, [](order& v, ideal_draws& e) { asf1999_shuffle(v, e); });
    for (const auto& [o, c] : counts) EXPECT_NE(o.back(), n - 1) << "n=" << n;
    EXPECT_LT(counts.size(), factorial(n));
  }
}

TEST(ExactDistribution, FisherYatesWithLemireOnANarrowEngineIsExact) {
  // The real composition: raw 3-bit words through uniform_below. Paths where a draw is
  // rejected ask for more words than scripted and are dropped; a rejection restarts the
  // same draw, so the accepted paths carry the exact distribution.
  for (int n = 2; n <= 5; ++n) {
    const int draws = n - 1;
    std::uint64_t total = 1;
    for (int i = 0; i < draws; ++i) total *= 8;
    std::map<order, std::uint64_t> counts;
    for (std::uint64_t code = 0; code < total; ++code) {
      std::vector<std::uint64_t> words;
      for (std::uint64_t c = code, i = 0; i < static_cast<std::uint64_t>(draws); ++i, c /= 8) words.push_back(c % 8);
      scripted_engine<3> e(words);
      order v = identity(n);
      try {
        fisher_yates(v, e);
      } catch (const path_exhausted&) {
        continue;
      }
      ++counts[v];
    }
    ASSERT_EQ(counts.size(), factorial(n));
    const auto c0 = counts.begin()->second;
    for (const auto& [o, c] : counts) EXPECT_EQ(c, c0) << "n=" << n;
  }
}

TEST(ExactDistribution, SortShuffleRedrawsTiesSoEveryOrderIsEquallyLikely) {
  // Keys drawn from a 5-letter alphabet (scaled into 64 bits): all 5^n key vectors; those
  // with a tie make sort_shuffle ask for more keys (dropped path: the redraw restarts).
  for (int n = 2; n <= 5; ++n) {
    std::uint64_t total = 1;
    for (int i = 0; i < n; ++i) total *= 5;
    std::map<order, std::uint64_t> counts;
    std::uint64_t tied = 0;
    for (std::uint64_t code = 0; code < total; ++code) {
      std::vector<std::uint64_t> keys;
      for (std::uint64_t c = code, i = 0; i < static_cast<std::uint64_t>(n); ++i, c /= 5) keys.push_back((c % 5) << 60);
      scripted_engine<64> e(keys);
      order v = identity(n);
      try {
        sort_shuffle(v, e);
      } catch (const path_exhausted&) {
        ++tied;
        continue;
      }
      ++counts[v];
    }
    EXPECT_GT(tied, 0u);
    ASSERT_EQ(counts.size(), factorial(n));
    for (const auto& [o, c] : counts) EXPECT_EQ(c, counts.begin()->second) << "n=" << n;
  }
}

TEST(Algorithms, SpecsParseAndRoundTrip) {
  for (const auto* text : {"fisher-yates", "partial", "partial:7", "sort", "naive", "asf1999"})
    EXPECT_EQ(parse_shuffle_spec(text).name(), text);
  EXPECT_EQ(parse_shuffle_spec("knuth").kind, shuffle_kind::fisher_yates);
  EXPECT_THROW((void)parse_shuffle_spec("bogus"), std::invalid_argument);
  EXPECT_THROW((void)parse_shuffle_spec("partial:0"), std::invalid_argument);
  EXPECT_THROW((void)parse_shuffle_spec("partial:x"), std::invalid_argument);
  EXPECT_THROW((void)parse_shuffle_spec("naive:3"), std::invalid_argument);
  EXPECT_TRUE(parse_shuffle_spec("sort").fair());
  EXPECT_FALSE(parse_shuffle_spec("asf1999").fair());
  std::vector<int> deck(10);
  xoshiro256pp e(1);
  EXPECT_THROW(apply_shuffle(parse_shuffle_spec("partial:11"), deck, e), std::invalid_argument);
}

TEST(Algorithms, WorkWithStdRandomAndRangeViews) {
  // Composes with <random> engines and views (shuffle the second half only).
  std::mt19937 mt(3);
  std::vector<int> v = identity(20);
  fisher_yates(std::span(v).subspan(10), mt);
  EXPECT_TRUE(std::is_sorted(v.begin(), v.begin() + 10));
  EXPECT_TRUE(std::is_permutation(v.begin(), v.end(), identity(20).begin()));
}
