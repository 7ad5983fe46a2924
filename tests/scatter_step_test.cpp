// Exhaustive proof of one level of the in-place scatter shuffle: every element must end in
// bucket j with probability exactly 1/k, independently of the others (i.i.d. labels), which is
// what makes huge_shuffle exactly uniform (multinomial theorem, see huge.hpp). We enumerate
// every value of the label bits the rough scatter and the settle step can read and check that
// each of the k^n element -> bucket assignments comes out exactly equally often.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <numeric>
#include <vector>

#include <gtest/gtest.h>

#include "fairdeck/random/xoshiro256pp.hpp"
#include "fairdeck/shuffle/internal/scatter_step.hpp"
#include "sanitizer_build.hpp"

namespace {

namespace scatter = fairdeck::scatter;

// One fixed 64-bit word, forever (each step reads at most n labels: fewer than one word).
struct one_word_engine {
  using result_type = std::uint64_t;
  std::uint64_t word;
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return ~result_type{0}; }
  result_type operator()() { return word; }
};

struct level_result {
  std::vector<std::uint32_t> data;
  std::vector<std::uint64_t> start;
};

// Lane l reads its labels from its own field of `rough_bits` (as many labels as it has
// elements, at most): independent lanes, as the real streams are.
level_result run_level(std::uint32_t n, unsigned bits, unsigned lanes, std::uint64_t rough_bits, std::uint64_t settle_word) {
  level_result out{std::vector<std::uint32_t>(n), {}};
  std::iota(out.data.begin(), out.data.end(), 0u);
  scatter::regions r(n, bits, lanes);
  unsigned shift = 0;
  for (unsigned l = 0; l < lanes; ++l) {
    one_word_engine e{rough_bits >> shift};
    shift += static_cast<unsigned>(r.lane_elements(l)) * bits;
    scatter::rough_scatter(out.data.data(), r.front.data() + l * r.k, r.hi.data() + l * r.k, bits, e);
  }
  one_word_engine e{settle_word};
  out.start = scatter::settle(out.data.data(), r, bits, e);
  return out;
}

// Enumerates the low n*bits bits of both words (the only bits read) and counts assignments.
void expect_iid_buckets(std::uint32_t n, unsigned bits, unsigned lanes) {
  const std::uint64_t k = std::uint64_t{1} << bits;
  const unsigned used = n * bits;
  std::map<std::vector<std::uint32_t>, std::uint64_t> assignments;  // element -> bucket
  for (std::uint64_t a = 0; a < (std::uint64_t{1} << used); ++a) {
    for (std::uint64_t b = 0; b < (std::uint64_t{1} << used); ++b) {
      const level_result res = run_level(n, bits, lanes, a, b);
      ASSERT_EQ(res.start.front(), 0u);
      ASSERT_EQ(res.start.back(), n);
      std::vector<std::uint32_t> bucket_of(n, ~0u);
      for (std::uint64_t j = 0; j < k; ++j)
        for (std::uint64_t p = res.start[j]; p < res.start[j + 1]; ++p) bucket_of[res.data[p]] = static_cast<std::uint32_t>(j);
      for (std::uint32_t e = 0; e < n; ++e) ASSERT_NE(bucket_of[e], ~0u) << "element lost";
      ++assignments[bucket_of];
    }
  }
  std::uint64_t all = 1;
  for (std::uint32_t i = 0; i < n; ++i) all *= k;
  ASSERT_EQ(assignments.size(), all) << "n=" << n << " bits=" << bits << " lanes=" << lanes;
  const std::uint64_t expected = (std::uint64_t{1} << (2 * used)) / all;
  for (const auto& [assignment, count] : assignments) ASSERT_EQ(count, expected);
}

}  // namespace

TEST(ScatterStep, EveryBucketAssignmentEquallyLikelyTwoBuckets) {
  for (std::uint32_t n = 2; n <= 6; ++n) expect_iid_buckets(n, 1, 1);
}

TEST(ScatterStep, EveryBucketAssignmentEquallyLikelyFourBuckets) {
  // n = 5 is 2^20 runs of the level (13 s under ASan): the sanitizer builds stop at n = 4.
  for (std::uint32_t n = 4; n <= (FAIRDECK_SLOW_BUILD ? 4u : 5u); ++n) expect_iid_buckets(n, 2, 1);
}

TEST(ScatterStep, EveryBucketAssignmentEquallyLikelyWithLanes) {
  // Two buckets, two lanes: regions of 3 split 1 + 2, so lanes stop at different times.
  expect_iid_buckets(6, 1, 2);
  expect_iid_buckets(5, 1, 2);
}

TEST(ScatterStep, LongRunsKeepAPermutationAndFillFromTheFront) {
  // Large regions take the unchecked rounds; the result must be a permutation, every
  // labelled prefix must sit inside its region, and settle must tile [0, n).
  const std::uint32_t n = 100'000;
  for (unsigned bits : {1u, 3u, 8u}) {
    for (unsigned lanes : {1u, 3u}) {
      std::vector<std::uint32_t> d(n);
      std::iota(d.begin(), d.end(), 0u);
      scatter::regions r(n, bits, lanes);
      for (unsigned l = 0; l < lanes; ++l) {
        fairdeck::xoshiro256pp e(1234 + l);
        scatter::rough_scatter(d.data(), r.front.data() + l * r.k, r.hi.data() + l * r.k, bits, e);
      }
      bool some_full = false;
      for (std::uint64_t i = 0; i < r.k * lanes; ++i) {
        ASSERT_LE(r.lo[i], r.front[i]);
        ASSERT_LE(r.front[i], r.hi[i]);
        some_full |= r.front[i] == r.hi[i];
      }
      EXPECT_TRUE(some_full);
      fairdeck::xoshiro256pp e(99);
      scatter::settle_report report;
      const auto start = scatter::settle(d.data(), r, bits, e, &report);
      ASSERT_EQ(start.back(), n);
      // The first region fills after about n - sqrt(2 ln k * k * lanes * n) labels (the
      // maximum of k*lanes binomial counts); 3 times that is far out (fixed seeds anyway).
      const double k = static_cast<double>(r.k);
      const double bound = 3 * std::sqrt(2 * std::log(k) * k * lanes * n) + k * lanes;
      EXPECT_LT(static_cast<double>(report.unlabelled), bound) << bits << " " << lanes;
      std::vector<std::uint32_t> sorted = d;
      std::sort(sorted.begin(), sorted.end());
      for (std::uint32_t i = 0; i < n; ++i) ASSERT_EQ(sorted[i], i);
    }
  }
}
