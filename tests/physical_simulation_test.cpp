// Simulation cross-check of the exact formula: the number of rising sequences after K
// simulated riffles must follow the Bayer–Diaconis distribution (chi-squared goodness of fit).
// Fixed seeds, so the outcome never changes; the threshold p < 1e-6 per configuration means a
// correct implementation fails with probability below 1e-6 * 24 configurations per seed.
#include <cstdint>
#include <numeric>
#include <vector>

#include <boost/math/distributions/chi_squared.hpp>
#include <gtest/gtest.h>

#include "fairdeck/random/splitmix64.hpp"
#include "fairdeck/random/xoshiro256pp.hpp"
#include "fairdeck/shuffle/algorithm.hpp"
#include "fairdeck/shuffle/mixing.hpp"
#include "fairdeck/shuffle/physical.hpp"

namespace fairdeck {
namespace {

constexpr double false_failure_rate = 1e-6;
constexpr std::uint64_t samples = 20'000;

// Pearson chi-squared p-value of observed counts against expected probabilities, bins with an
// expected count under 5 pooled into their neighbour so the chi-squared approximation holds.
double chi_squared_p_value(const std::vector<std::uint64_t>& counts, const std::vector<double>& probs) {
  std::vector<double> obs, exp;
  double o = 0, e = 0;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    o += static_cast<double>(counts[i]);
    e += probs[i] * static_cast<double>(samples);
    if (e >= 5) {
      obs.push_back(o);
      exp.push_back(e);
      o = e = 0;
    }
  }
  if (e > 0 || o > 0) {  // leftover tail joins the last bin
    if (exp.empty()) return o == e ? 1.0 : 0.0;
    obs.back() += o;
    exp.back() += e;
  }
  if (exp.size() < 2) return 1.0;  // a single possible outcome: nothing to test
  double stat = 0;
  for (std::size_t i = 0; i < exp.size(); ++i) stat += (obs[i] - exp[i]) * (obs[i] - exp[i]) / exp[i];
  const boost::math::chi_squared dist(static_cast<double>(exp.size() - 1));
  return boost::math::cdf(boost::math::complement(dist, stat));
}

template <class Shuffle>
std::vector<std::uint64_t> rising_sequence_counts(std::size_t n, std::uint64_t seed, Shuffle shuffle) {
  xoshiro256pp engine(seed);
  std::vector<std::uint64_t> counts(n, 0);
  std::vector<int> deck(n);
  for (std::uint64_t s = 0; s < samples; ++s) {
    std::iota(deck.begin(), deck.end(), 0);
    shuffle(deck, engine);
    ++counts[rising_sequences(deck) - 1];
  }
  return counts;
}

TEST(PhysicalSimulation, RiffleRisingSequencesMatchBayerDiaconis) {
  for (std::size_t n = 8; n <= 13; ++n)
    for (std::uint64_t K = 1; K <= 4; ++K) {
      const auto counts = rising_sequence_counts(n, stream_seed(n, K), [K](std::vector<int>& d, xoshiro256pp& e) {
        riffle_shuffle(d, K, e);
      });
      const double p = chi_squared_p_value(counts, rising_sequence_distribution(n, K));
      EXPECT_GT(p, false_failure_rate) << "n=" << n << " K=" << K;
    }
}

TEST(PhysicalSimulation, LiteralDropModelRisingSequencesMatchBayerDiaconis) {
  for (std::size_t n = 8; n <= 13; ++n)
    for (std::uint64_t K = 1; K <= 4; ++K) {
      const auto counts = rising_sequence_counts(n, stream_seed(100 + n, K), [K](std::vector<int>& d, xoshiro256pp& e) {
        for (std::uint64_t k = 0; k < K; ++k) gsr_riffle_by_drops(d, e);
      });
      const double p = chi_squared_p_value(counts, rising_sequence_distribution(n, K));
      EXPECT_GT(p, false_failure_rate) << "n=" << n << " K=" << K;
    }
}

// The test has teeth: K riffles are told apart from K+1 and from a uniform shuffle.
TEST(PhysicalSimulation, ChiSquaredSeparatesNeighbouringK) {
  const std::size_t n = 13;
  for (std::uint64_t K = 1; K <= 4; ++K) {
    const auto spec = parse_shuffle_spec("riffle:" + std::to_string(K));
    const auto counts = rising_sequence_counts(n, stream_seed(200, K), [&](std::vector<int>& d, xoshiro256pp& e) {
      apply_shuffle(spec, d, e);
    });
    EXPECT_GT(chi_squared_p_value(counts, rising_sequence_distribution(n, K)), false_failure_rate) << "K=" << K;
    EXPECT_LT(chi_squared_p_value(counts, rising_sequence_distribution(n, K + 1)), false_failure_rate) << "K=" << K;
    EXPECT_LT(chi_squared_p_value(counts, uniform_rising_sequence_distribution(n)), false_failure_rate) << "K=" << K;
  }
}

TEST(PhysicalSimulation, FisherYatesRisingSequencesAreUniform) {
  const std::size_t n = 13;
  const auto counts = rising_sequence_counts(n, 7, [](std::vector<int>& d, xoshiro256pp& e) { fisher_yates(d, e); });
  EXPECT_GT(chi_squared_p_value(counts, uniform_rising_sequence_distribution(n)), false_failure_rate);
}

}  // namespace
}  // namespace fairdeck
