// huge_shuffle: permutation, uniformity on tiny inputs forced through buckets, lanes and the
// settle step (chi-square, fixed seeds, threshold p = 1e-6 each), independence from the thread
// count, Ctrl-C semantics. One level's exactness is proved by enumeration in
// scatter_step_test.cpp.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <map>
#include <numeric>
#include <vector>

#include <boost/math/distributions/chi_squared.hpp>
#include <gtest/gtest.h>

#include "fairdeck/shuffle/huge.hpp"
#include "sanitizer_build.hpp"

namespace {

using fairdeck::engine_id;
using fairdeck::engine_spec;
using fairdeck::huge_shuffle_options;

engine_spec seeded(engine_id id, std::uint64_t seed) {
  engine_spec s;
  s.id = id;
  s.seed = seed;
  return s;
}

template <class T>
std::vector<T> iota_vector(std::size_t n) {
  std::vector<T> v(n);
  std::iota(v.begin(), v.end(), T{0});
  return v;
}

template <class T>
bool is_permutation_of_iota(std::vector<T> v) {
  std::sort(v.begin(), v.end());
  for (std::size_t i = 0; i < v.size(); ++i)
    if (v[i] != static_cast<T>(i)) return false;
  return true;
}

// Chi-square over all n! orders of n = 5 elements: threshold at p = 1e-6.
void expect_uniform_orders(const huge_shuffle_options& opt, engine_id id, std::uint64_t per_order) {
  constexpr std::size_t n = 5, orders = 120;
  const auto plan = fairdeck::plan_huge_shuffle(n, sizeof(std::uint32_t), opt);
  ASSERT_GE(plan.bucket_bits, 1u);  // really goes through the rough scatter, settle and buckets
  std::map<std::vector<std::uint32_t>, std::uint64_t> counts;
  const std::uint64_t trials = orders * per_order;
  for (std::uint64_t t = 0; t < trials; ++t) {
    auto v = iota_vector<std::uint32_t>(n);
    ASSERT_TRUE(fairdeck::huge_shuffle(std::span(v), seeded(id, t), opt));
    ++counts[v];
  }
  ASSERT_EQ(counts.size(), orders);
  const double expected = static_cast<double>(per_order);
  double chi2 = 0;
  for (const auto& [order, c] : counts) chi2 += (static_cast<double>(c) - expected) * (static_cast<double>(c) - expected) / expected;
  const boost::math::chi_squared dist(orders - 1);
  EXPECT_LT(chi2, boost::math::quantile(boost::math::complement(dist, 1e-6)));
}

}  // namespace

TEST(HugeShuffle, PlanDependsOnSizeOnly) {
  const auto small = fairdeck::plan_huge_shuffle(1000, 4);
  EXPECT_EQ(small.bucket_bits, 0u);
  const auto big = fairdeck::plan_huge_shuffle(100'000'000, 4);
  EXPECT_EQ(big.buckets(), 256u);  // capped fan-out: 256 write fronts
  EXPECT_EQ(big.lanes, 8u);
  const auto mid = fairdeck::plan_huge_shuffle(10'000'000, 4);
  EXPECT_EQ(mid.buckets(), 64u);  // 40 MB / 1 MiB, rounded up to a power of two
  EXPECT_EQ(mid.lanes, 2u);
  huge_shuffle_options three;
  three.lanes = 3;
  EXPECT_EQ(fairdeck::plan_huge_shuffle(10'000'000, 4, three).lanes, 3u);
  three.lanes = 65;
  std::vector<std::uint32_t> v(100'000);
  EXPECT_THROW((void)fairdeck::huge_shuffle(std::span(v), seeded(engine_id::pcg64, 1), three), std::invalid_argument);
}

TEST(HugeShuffle, EveryOrderOfFiveEquallyLikelyThroughBuckets) {
  // 16 buckets for 5 elements: empty regions, so everything goes through the settle step (the
  // rough scatter on tiny regions is enumerated in scatter_step_test.cpp).
  huge_shuffle_options one_lane;
  one_lane.bucket_bytes = 4;
  one_lane.threads = 1;  // thread independence is tested below
  expect_uniform_orders(one_lane, engine_id::xoshiro256pp, 400);
  huge_shuffle_options two_lanes = one_lane;
  two_lanes.lanes = 2;
  expect_uniform_orders(two_lanes, engine_id::pcg64, 400);
}

// The relative order of four tracked elements (24 orders) and every element's position decile
// must be uniform.
static void expect_orders_and_positions_uniform(const huge_shuffle_options& opt) {
  constexpr std::size_t n = 3000;
  // Sanitizer builds: a tenth of the deals (50 per order, 120 per decile: the chi-square
  // approximations still hold); the release build runs the full test on the same seeds.
  constexpr std::uint64_t trials = FAIRDECK_SLOW_BUILD ? 1'200 : 12'000;
  constexpr std::size_t bins = 10;
  std::vector<std::uint64_t> table(n * bins, 0);
  std::map<std::vector<std::size_t>, std::uint64_t> orders;
  const std::uint32_t tracked[4] = {0, 1, 1500, 2999};
  for (std::uint64_t t = 0; t < trials; ++t) {
    auto v = iota_vector<std::uint32_t>(n);
    ASSERT_TRUE(fairdeck::huge_shuffle(std::span(v), seeded(engine_id::xoshiro256pp, 5000 + t), opt));
    std::vector<std::size_t> pos(4);
    for (std::size_t p = 0; p < n; ++p) {
      ++table[v[p] * bins + p * bins / n];
      for (int q = 0; q < 4; ++q)
        if (v[p] == tracked[q]) pos[q] = p;
    }
    std::vector<std::size_t> rank(4);
    for (int q = 0; q < 4; ++q)
      for (int r = 0; r < 4; ++r) rank[q] += pos[r] < pos[q];
    ++orders[rank];
  }
  ASSERT_EQ(orders.size(), 24u);
  double chi2 = 0;
  const double per_order = trials / 24.0;
  for (const auto& [o, c] : orders) chi2 += (static_cast<double>(c) - per_order) * (static_cast<double>(c) - per_order) / per_order;
  EXPECT_LT(chi2, boost::math::quantile(boost::math::complement(boost::math::chi_squared(23), 1e-6)));
  const double expected = static_cast<double>(trials) / bins;
  const double limit = boost::math::quantile(boost::math::complement(boost::math::chi_squared(bins - 1), 1e-6 / n));
  for (std::size_t e = 0; e < n; ++e) {
    double c2 = 0;
    for (std::size_t b = 0; b < bins; ++b) {
      const double d = static_cast<double>(table[e * bins + b]) - expected;
      c2 += d * d / expected;
    }
    ASSERT_LT(c2, limit) << "element " << e;
  }
}

TEST(HugeShuffle, OrdersAndPositionsUniformThroughLongRunsAndLevels) {
  huge_shuffle_options long_runs;  // 16 regions of ~190 in 3 lanes: the unchecked rounds
  long_runs.bucket_bytes = 1000;
  long_runs.lanes = 3;
  long_runs.threads = 1;
  ASSERT_EQ(fairdeck::plan_huge_shuffle(3000, 4, long_runs).buckets(), 16u);
  expect_orders_and_positions_uniform(long_runs);
  huge_shuffle_options deep;  // 256 regions of ~12, each split again: two levels
  deep.bucket_bytes = 4;
  deep.lanes = 2;
  deep.threads = 1;
  ASSERT_EQ(fairdeck::plan_huge_shuffle(3000, 4, deep).buckets(), 256u);
  expect_orders_and_positions_uniform(deep);
  huge_shuffle_options defaults;  // automatic lanes (1), 256 regions of ~12, one level
  defaults.bucket_bytes = 64;
  defaults.threads = 1;
  expect_orders_and_positions_uniform(defaults);
}

TEST(HugeShuffle, SameSeedSameOrderWhateverTheThreadCount) {
  for (engine_id id : {engine_id::xoshiro256pp, engine_id::pcg64, engine_id::chacha20, engine_id::mt19937_64}) {
    huge_shuffle_options opt;
    opt.bucket_bytes = 4096;
    opt.lanes = 3;
    std::vector<std::vector<std::uint32_t>> results;
    for (unsigned threads : {1u, 2u, 3u, 7u}) {
      opt.threads = threads;
      auto v = iota_vector<std::uint32_t>(100'003);
      ASSERT_TRUE(fairdeck::huge_shuffle(std::span(v), seeded(id, 42), opt));
      results.push_back(std::move(v));
    }
    EXPECT_TRUE(is_permutation_of_iota(results[0]));
    EXPECT_NE(results[0], iota_vector<std::uint32_t>(100'003));
    for (const auto& r : results) EXPECT_EQ(r, results[0]);
  }
  // Default plan (several real 1 MiB buckets), 64-bit elements.
  std::vector<std::uint64_t> a = iota_vector<std::uint64_t>(600'000), b = a;
  huge_shuffle_options one, two;
  one.threads = 1;
  two.threads = 2;
  ASSERT_GT(fairdeck::plan_huge_shuffle(a.size(), 8).bucket_bits, 0u);
  ASSERT_TRUE(fairdeck::huge_shuffle(std::span(a), seeded(engine_id::xoshiro256pp, 9), one));
  ASSERT_TRUE(fairdeck::huge_shuffle(std::span(b), seeded(engine_id::xoshiro256pp, 9), two));
  EXPECT_EQ(a, b);
  EXPECT_TRUE(is_permutation_of_iota(a));
  auto c = iota_vector<std::uint64_t>(600'000);
  ASSERT_TRUE(fairdeck::huge_shuffle(std::span(c), seeded(engine_id::xoshiro256pp, 10), two));
  EXPECT_NE(a, c);
}

TEST(HugeShuffle, SecureSpecIsAPermutationAndNotReplayed) {
  huge_shuffle_options opt;
  opt.bucket_bytes = 4096;
  auto a = iota_vector<std::uint32_t>(50'000), b = a;
  ASSERT_TRUE(fairdeck::huge_shuffle(std::span(a), engine_spec{}, opt));
  ASSERT_TRUE(fairdeck::huge_shuffle(std::span(b), engine_spec{}, opt));
  EXPECT_TRUE(is_permutation_of_iota(a));
  EXPECT_TRUE(is_permutation_of_iota(b));
  EXPECT_NE(a, b);
}

TEST(HugeShuffle, StopKeepsAPermutation) {
  std::atomic<bool> stop{true};
  huge_shuffle_options opt;
  opt.bucket_bytes = 4096;
  opt.lanes = 4;
  opt.threads = 2;
  opt.control.stop = &stop;
  auto v = iota_vector<std::uint32_t>(100'000);
  EXPECT_FALSE(fairdeck::huge_shuffle(std::span(v), seeded(engine_id::xoshiro256pp, 1), opt));
  EXPECT_TRUE(is_permutation_of_iota(v));
  // Stop in the middle of the bucket phase (one thread: with two, the helper could finish
  // every bucket before the reporting thread sees the flag).
  stop = false;
  opt.threads = 1;
  std::uint64_t calls = 0;
  opt.control.on_progress = [&](std::uint64_t done, std::uint64_t total) {
    EXPECT_LE(done, total);
    if (done > total * 3 / 4 && ++calls == 1) stop = true;
  };
  EXPECT_FALSE(fairdeck::huge_shuffle(std::span(v), seeded(engine_id::xoshiro256pp, 2), opt));
  EXPECT_TRUE(is_permutation_of_iota(v));
  // Stop between lanes of the rough scatter.
  stop = false;
  opt.control.on_progress = [&](std::uint64_t done, std::uint64_t total) {
    if (done > 0 && done < total / 2) stop = true;
  };
  EXPECT_FALSE(fairdeck::huge_shuffle(std::span(v), seeded(engine_id::xoshiro256pp, 3), opt));
  EXPECT_TRUE(is_permutation_of_iota(v));
}

TEST(HugeShuffle, StatsShowASmallSettleStep) {
  auto v = iota_vector<std::uint32_t>(4'000'000);  // 16 MB: 16 buckets of 1 MiB, 1 lane
  fairdeck::huge_shuffle_stats stats;
  huge_shuffle_options opt;
  opt.stats = &stats;
  ASSERT_TRUE(fairdeck::huge_shuffle(std::span(v), seeded(engine_id::pcg64, 3), opt));
  EXPECT_EQ(stats.buckets, 16u);
  EXPECT_EQ(stats.lanes, 1u);
  EXPECT_GT(stats.unlabelled, 0u);
  EXPECT_LT(stats.unlabelled, v.size() / 50);  // ~0.4 % expected; 2 % is > 20 sigma away
  EXPECT_LT(stats.buffer_bytes, v.size() * 4 / 10);
  EXPECT_TRUE(is_permutation_of_iota(v));
}

TEST(HugeShuffle, EmptyAndTinyInputs) {
  std::vector<std::uint32_t> empty;
  EXPECT_TRUE(fairdeck::huge_shuffle(std::span(empty), seeded(engine_id::pcg64, 1)));
  std::vector<std::uint64_t> one{7};
  EXPECT_TRUE(fairdeck::huge_shuffle(std::span(one), seeded(engine_id::pcg64, 1)));
  EXPECT_EQ(one[0], 7u);
}

TEST(HugeShuffle, RandomPermutationEqualsShufflingTheIdentity) {
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{1000}, std::size_t{100'003}}) {
    huge_shuffle_options opt;
    opt.bucket_bytes = 4096;
    opt.lanes = 2;
    opt.threads = 2;
    auto shuffled = iota_vector<std::uint32_t>(n);
    ASSERT_TRUE(fairdeck::huge_shuffle(std::span(shuffled), seeded(engine_id::pcg64, 77), opt));
    std::vector<std::uint32_t> perm(n, 12345);
    ASSERT_TRUE(fairdeck::random_permutation(std::span(perm), seeded(engine_id::pcg64, 77), opt));
    EXPECT_EQ(perm, shuffled) << n;
    // 64-bit elements make a different plan (bucket_bytes / 8), hence a different order.
    auto shuffled64 = iota_vector<std::uint64_t>(n);
    ASSERT_TRUE(fairdeck::huge_shuffle(std::span(shuffled64), seeded(engine_id::pcg64, 77), opt));
    std::vector<std::uint64_t> perm64(n);
    ASSERT_TRUE(fairdeck::random_permutation(std::span(perm64), seeded(engine_id::pcg64, 77), opt));
    EXPECT_EQ(perm64, shuffled64) << n;
  }
  // Alignment of the array does not matter.
  std::vector<std::uint32_t> buf(100'004), ref(100'003);
  huge_shuffle_options opt;
  opt.bucket_bytes = 4096;
  ASSERT_TRUE(fairdeck::random_permutation(std::span(ref), seeded(engine_id::xoshiro256pp, 5), opt));
  ASSERT_TRUE(fairdeck::random_permutation(std::span(buf).subspan(1), seeded(engine_id::xoshiro256pp, 5), opt));
  EXPECT_TRUE(std::equal(ref.begin(), ref.end(), buf.begin() + 1));
  EXPECT_TRUE(is_permutation_of_iota(ref));
}

TEST(HugeShuffle, RandomPermutationOfFiveIsUniform) {
  constexpr std::size_t n = 5, orders = 120;
  constexpr std::uint64_t per_order = 300;
  huge_shuffle_options opt;
  opt.bucket_bytes = 4;
  opt.lanes = 2;
  opt.threads = 1;
  std::map<std::vector<std::uint32_t>, std::uint64_t> counts;
  for (std::uint64_t t = 0; t < orders * per_order; ++t) {
    std::vector<std::uint32_t> v(n);
    ASSERT_TRUE(fairdeck::random_permutation(std::span(v), seeded(engine_id::chacha20, t), opt));
    ++counts[v];
  }
  ASSERT_EQ(counts.size(), orders);
  double chi2 = 0;
  for (const auto& [order, c] : counts)
    chi2 += (static_cast<double>(c) - per_order) * (static_cast<double>(c) - per_order) / per_order;
  EXPECT_LT(chi2, boost::math::quantile(boost::math::complement(boost::math::chi_squared(orders - 1), 1e-6)));
}

namespace {
struct record {  // a 16-byte dataset row
  std::uint32_t id;
  std::uint32_t payload[3];
  bool operator==(const record&) const = default;
};
struct rgb {  // 3 bytes, alignment 1
  std::uint8_t r, g, b;
};
}  // namespace

TEST(HugeShuffle, AnyTriviallyCopyableElement) {
  std::vector<record> rows(300'000);
  for (std::uint32_t i = 0; i < rows.size(); ++i) rows[i] = {i, {i * 3, i * 5, ~i}};
  auto one = rows, two = rows;
  huge_shuffle_options opt;
  opt.bucket_bytes = 4 << 10;  // 4.8 MB: 256 buckets of ~19 KB, each split 16 ways again
  opt.lanes = 2;
  opt.threads = 1;
  ASSERT_TRUE(fairdeck::huge_shuffle(std::span(one), seeded(engine_id::xoshiro256pp, 8), opt));
  opt.threads = 2;
  ASSERT_TRUE(fairdeck::huge_shuffle(std::span(two), seeded(engine_id::xoshiro256pp, 8), opt));
  EXPECT_EQ(one, two);
  EXPECT_NE(one, rows);
  std::vector<bool> seen(rows.size(), false);
  for (const record& r : one) {  // every row once, intact
    ASSERT_LT(r.id, rows.size());
    ASSERT_FALSE(seen[r.id]);
    seen[r.id] = true;
    ASSERT_EQ(r, rows[r.id]);
  }

  std::vector<rgb> pixels(1'000'003);
  for (std::uint32_t i = 0; i < pixels.size(); ++i)
    pixels[i] = {static_cast<std::uint8_t>(i), static_cast<std::uint8_t>(i >> 8), static_cast<std::uint8_t>(i >> 16)};
  huge_shuffle_options small_buckets;
  small_buckets.bucket_bytes = 16 << 10;
  ASSERT_TRUE(fairdeck::huge_shuffle(std::span(pixels), seeded(engine_id::pcg64, 2), small_buckets));
  std::vector<bool> got(pixels.size(), false);
  for (const rgb& p : pixels) {
    const std::uint32_t i = p.r | (std::uint32_t{p.g} << 8) | (std::uint32_t{p.b} << 16);
    ASSERT_LT(i, got.size());
    ASSERT_FALSE(got[i]);
    got[i] = true;
  }
}
