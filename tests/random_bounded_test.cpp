// uniform_below is exactly uniform: proved by enumerating every engine output on narrow
// scripted engines (Lemire's method is the same arithmetic at every word width).
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include <boost/math/distributions/chi_squared.hpp>

#include "fairdeck/random/bounded.hpp"
#include "scripted_engine.hpp"

using namespace fairdeck;
using fairdeck::testing::path_exhausted;
using fairdeck::testing::scripted_engine;

namespace {

// For bound n, feeds every W-bit first draw; a draw the method rejects asks for a second
// one (path_exhausted). Since a rejection restarts from the same state, exactness means:
// every value in [0, n) is produced by exactly floor(2^W / n) accepted first draws.
template <unsigned W>
void expect_exact(std::uint64_t n) {
  constexpr std::uint64_t size = std::uint64_t{1} << W;
  std::vector<std::uint64_t> hits(n, 0);
  std::uint64_t accepted = 0;
  for (std::uint64_t x = 0; x < size; ++x) {
    scripted_engine<W> e({x});
    try {
      const auto v = uniform_below(e, n);
      ASSERT_LT(v, n);
      ++hits[v];
      ++accepted;
    } catch (const path_exhausted&) {
    }
  }
  for (std::uint64_t v = 0; v < n; ++v) ASSERT_EQ(hits[v], size / n) << "W=" << W << " n=" << n << " v=" << v;
  EXPECT_EQ(accepted, n * (size / n));  // and no more rejections than necessary
}

double chi2_p(const std::vector<std::uint64_t>& counts, double expected) {
  double stat = 0;
  for (auto c : counts) stat += (static_cast<double>(c) - expected) * (static_cast<double>(c) - expected) / expected;
  boost::math::chi_squared dist(static_cast<double>(counts.size() - 1));
  return boost::math::cdf(boost::math::complement(dist, stat));
}

}  // namespace

TEST(UniformBelow, ExhaustiveOn8BitEngineForEveryBound) {
  for (std::uint64_t n = 1; n <= 256; ++n) expect_exact<8>(n);
}

TEST(UniformBelow, ExhaustiveOn12BitEngineForManyBounds) {
  for (std::uint64_t n : {1u, 2u, 3u, 5u, 7u, 52u, 100u, 1000u, 2047u, 2049u, 3000u, 4095u, 4096u}) expect_exact<12>(n);
}

TEST(UniformBelow, SixtyFourBitPathRejectsOnlyTheBiasedLowParts) {
  // 64-bit words: x * n / 2^64 with rejection when the low part < 2^64 mod n.
  const std::uint64_t n = 52;
  const std::uint64_t t = (0 - n) % n;  // 2^64 mod 52 = 16
  ASSERT_EQ(t, 16u);
  {
    scripted_engine<64> e({~std::uint64_t{0}});
    EXPECT_EQ(uniform_below(e, n), n - 1);
  }
  {
    scripted_engine<64> e({0});  // low part 0 < 16: rejected, asks again
    EXPECT_THROW((void)uniform_below(e, n), path_exhausted);
  }
  {
    scripted_engine<64> e({0, (std::uint64_t{1} << 63) + 1});  // low part 52 >= 16: accepted
    EXPECT_EQ(uniform_below(e, n), 26u);
    EXPECT_EQ(e.used(), 2u);
  }
}

TEST(UniformBelow, NarrowEnginesReachWideBounds) {
  std::mt19937 mt(7);  // 32-bit engine, 40-bit bound: two words concatenated
  const std::uint64_t n = std::uint64_t{1} << 40;
  std::vector<std::uint64_t> top(16, 0);
  for (int i = 0; i < 160000; ++i) {
    const auto v = uniform_below(mt, n);
    ASSERT_LT(v, n);
    ++top[v >> 36];
  }
  EXPECT_GT(chi2_p(top, 10000.0), 1e-6);  // false-failure rate 1e-6
}

TEST(UniformBelow, EnginesWhoseRangeIsNotAPowerOfTwo) {
  std::minstd_rand lcg(11);  // range [1, 2^31 - 2]
  std::vector<std::uint64_t> counts(6, 0);
  for (int i = 0; i < 60000; ++i) ++counts[uniform_below(lcg, 6)];
  EXPECT_GT(chi2_p(counts, 10000.0), 1e-6);  // false-failure rate 1e-6
}

TEST(UniformBelow, DrawBelowPrefersNativeMapping) {
  struct legacy {
    using result_type = std::uint32_t;
    static constexpr result_type min() { return 0; }
    static constexpr result_type max() { return 0xffffffffu; }
    result_type operator()() { return 12345; }
    std::uint64_t native_below(std::uint64_t n) { return 12345 % n; }
  } e;
  EXPECT_EQ(draw_below(e, 100), 45u);
}
