// Exact-distribution proofs for the batched bounded integers (batched.hpp) and the batched
// fast paths of fisher_yates / partial_shuffle: every word of a narrow (W-bit) engine is
// enumerated through the same templates the 64-bit engines run. Plus fixed-seed
// chi-square checks of the 64-bit instantiation.
#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <numeric>
#include <stdexcept>
#include <vector>

#include <boost/math/distributions/chi_squared.hpp>
#include <gtest/gtest.h>

#include "fairdeck/random/batched.hpp"
#include "fairdeck/random/chacha20.hpp"
#include "fairdeck/random/pcg64.hpp"
#include "fairdeck/random/xoshiro256pp.hpp"
#include "fairdeck/shuffle/fisher_yates.hpp"
#include "fairdeck/shuffle/partial_shuffle.hpp"

namespace fb = fairdeck::batched;

namespace {

// Every word r in [0, 2^W): accepted words spell each dice tuple exactly floor(2^W/P)
// times, and exactly 2^W mod P words are rejected.
template <unsigned W>
void check_all_words(const std::vector<std::uint64_t>& sizes) {
  const auto k = static_cast<unsigned>(sizes.size());
  std::uint64_t product = 1;
  for (auto s : sizes) product *= s;
  const std::uint64_t words = std::uint64_t{1} << W;
  ASSERT_LE(product, words);
  std::vector<std::uint64_t> count(product, 0);
  std::uint64_t rejected = 0;
  std::array<std::uint64_t, fb::max_batch> dice{};
  for (std::uint64_t r = 0; r < words; ++r) {
    if (!fb::dice_from_word<W>(r, sizes.data(), k, product, dice.data())) {
      ++rejected;
      continue;
    }
    std::uint64_t code = 0;  // mixed radix
    for (unsigned j = 0; j < k; ++j) {
      ASSERT_LT(dice[j], sizes[j]);
      code = code * sizes[j] + dice[j];
    }
    ++count[code];
  }
  EXPECT_EQ(rejected, words % product);
  for (std::uint64_t c = 0; c < product; ++c) ASSERT_EQ(count[c], words / product) << "tuple " << c;
}

struct script_exhausted {};

// Replays a fixed list of W-bit words; asking for more throws (a rejected word was met).
struct scripted_words {
  const std::vector<std::uint64_t>* words;
  std::size_t pos = 0;
  std::uint64_t operator()() {
    if (pos == words->size()) throw script_exhausted{};
    return (*words)[pos++];
  }
};

// The batches (largest die, dice) the batched Fisher–Yates takes for n cards.
template <unsigned W>
std::vector<std::vector<std::uint64_t>> fisher_yates_plan(std::uint64_t n) {
  std::vector<std::vector<std::uint64_t>> plan;
  for (std::uint64_t i = n; i > 1;) {
    const unsigned k = std::min<std::uint64_t>(fb::batch_size<W>(i), i - 1);
    std::vector<std::uint64_t> sizes;
    for (unsigned j = 0; j < k; ++j) sizes.push_back(i - j);
    plan.push_back(sizes);
    i -= k;
  }
  return plan;
}

std::uint64_t accepted_words(unsigned w, const std::vector<std::uint64_t>& sizes) {
  std::uint64_t p = 1;
  for (auto s : sizes) p *= s;
  return ((std::uint64_t{1} << w) / p) * p;
}

// Enumerates every tuple of one word per batch; tuples with a rejected word are dropped
// (a rejected word is simply redrawn, so conditioned on acceptance each batch's word is
// uniform over its accepted words, independently). Returns order -> count.
template <unsigned W, class Run>
std::map<std::vector<int>, std::uint64_t> enumerate_orders(std::size_t batches, Run run, std::uint64_t& accepted) {
  std::map<std::vector<int>, std::uint64_t> counts;
  const std::uint64_t per = std::uint64_t{1} << W;
  std::uint64_t total = 1;
  for (std::size_t b = 0; b < batches; ++b) total *= per;
  std::vector<std::uint64_t> words(batches);
  accepted = 0;
  for (std::uint64_t code = 0; code < total; ++code) {
    std::uint64_t c = code;
    for (auto& w : words) {
      w = c % per;
      c /= per;
    }
    scripted_words src{&words};
    std::vector<int> deck;
    try {
      deck = run(src);
    } catch (const script_exhausted&) {
      continue;
    }
    EXPECT_EQ(src.pos, batches);
    ++accepted;
    ++counts[deck];
  }
  return counts;
}

std::uint64_t factorial(std::uint64_t n) { return n <= 1 ? 1 : n * factorial(n - 1); }

}  // namespace

TEST(BatchedExact, EveryWordOfSmallWidths) {
  // Consecutive falling dice (what the shuffles use) and arbitrary sizes.
  for (std::uint64_t top = 1; top <= 40; ++top)
    for (unsigned k = 1; k <= fb::max_batch && k <= top; ++k) {
      std::vector<std::uint64_t> sizes;
      std::uint64_t p = 1;
      for (unsigned j = 0; j < k; ++j) {
        sizes.push_back(top - j);
        p *= top - j;
      }
      if (p <= (1u << 10)) check_all_words<10>(sizes);
      if (p <= (1u << 8)) check_all_words<8>(sizes);
    }
  check_all_words<8>({7, 3, 11});
  check_all_words<8>({256});
  check_all_words<8>({2, 2, 2, 2, 2, 2, 2, 2});
  check_all_words<12>({13, 1, 17, 5, 3});
  check_all_words<16>({52, 51, 24});
  check_all_words<16>({65535});
}

TEST(BatchedExact, BatchSizesRespectTheBudget) {
  // n^k <= 2^(W - W/8) and k maximal (up to max_batch); 52 cards take 5 words at W = 64.
  for (std::uint64_t n = 1; n < 5000; ++n) {
    const unsigned k = fb::batch_size<64>(n);
    long double pk = 1;
    for (unsigned j = 0; j < k; ++j) pk *= static_cast<long double>(n);
    EXPECT_LE(pk, 72057594037927936.0L) << n;  // 2^56
    if (k < fb::max_batch) {
      EXPECT_GT(pk * static_cast<long double>(n), 72057594037927936.0L) << n;
    }
  }
  EXPECT_EQ(fb::batch_size<64>(52), 9u);
  EXPECT_EQ(fisher_yates_plan<64>(52).size(), 5u);  // 52^9, 43^10, 33^11, 22^12 < 2^56
  EXPECT_EQ(fb::batch_size<64>(~std::uint64_t{0}), 1u);
}

TEST(BatchedExact, FisherYatesEveryOrderEquallyOften) {
  // W = 6 and W = 8 words drive the same template as 64-bit engines; all n! orders must
  // come out exactly equally often over the accepted word tuples.
  auto check = [](auto width, std::uint64_t n) {
    constexpr unsigned W = decltype(width)::value;
    const auto plan = fisher_yates_plan<W>(n);
    std::uint64_t expect_accepted = 1;
    for (const auto& b : plan) expect_accepted *= accepted_words(W, b);
    std::uint64_t accepted = 0;
    const auto counts = enumerate_orders<W>(
        plan.size(),
        [n](scripted_words& src) {
          std::vector<int> deck(n);
          std::iota(deck.begin(), deck.end(), 0);
          fb::fisher_yates<W>(deck.begin(), n, src);
          return deck;
        },
        accepted);
    ASSERT_EQ(accepted, expect_accepted) << "W=" << W << " n=" << n;
    ASSERT_EQ(counts.size(), factorial(n)) << "W=" << W << " n=" << n;
    for (const auto& [order, c] : counts) ASSERT_EQ(c, accepted / factorial(n));
  };
  for (std::uint64_t n = 1; n <= 7; ++n) check(std::integral_constant<unsigned, 6>{}, n);
  for (std::uint64_t n = 1; n <= 5; ++n) check(std::integral_constant<unsigned, 8>{}, n);
}

TEST(BatchedExact, DiceWiderThanAWordUseTheExactSingleDraw) {
  // W = 4 words and 40 cards: dice above 15 go through uniform_below (proved in
  // random_bounded_test); the result must still be a permutation, consuming the script.
  std::vector<std::uint64_t> script;
  fairdeck::xoshiro256pp x(3);
  for (int i = 0; i < 4000; ++i) script.push_back(x() & 15);
  scripted_words src{&script};
  std::vector<int> deck(40);
  std::iota(deck.begin(), deck.end(), 0);
  fb::fisher_yates<4>(deck.begin(), deck.size(), src);
  std::vector<int> sorted = deck;
  std::sort(sorted.begin(), sorted.end());
  for (int i = 0; i < 40; ++i) EXPECT_EQ(sorted[static_cast<std::size_t>(i)], i);
  EXPECT_GT(src.pos, 25u);
}

TEST(BatchedExact, PartialShuffleEveryDealEquallyOften) {
  constexpr unsigned W = 6;
  for (std::uint64_t n = 2; n <= 7; ++n)
    for (std::uint64_t steps = 1; steps < n; ++steps) {
      std::vector<std::vector<std::uint64_t>> plan;
      for (std::uint64_t p = 0; p < steps;) {
        const unsigned k = std::min<std::uint64_t>(fb::batch_size<W>(n - p), steps - p);
        std::vector<std::uint64_t> sizes;
        for (unsigned j = 0; j < k; ++j) sizes.push_back(n - p - j);
        plan.push_back(sizes);
        p += k;
      }
      if (plan.size() > 2) continue;  // keep the enumeration small (3-batch plans: FisherYates test)
      std::uint64_t accepted = 0;
      const auto counts = enumerate_orders<W>(
          plan.size(),
          [n, steps](scripted_words& src) {
            std::vector<int> deck(n);
            std::iota(deck.begin(), deck.end(), 0);
            // Start from a non-identity order: the deal must not depend on it.
            std::rotate(deck.begin(), deck.begin() + 1, deck.end());
            fb::partial_fisher_yates<W>(deck.begin(), n, steps, src);
            deck.resize(steps);
            return deck;
          },
          accepted);
      const std::uint64_t deals = factorial(n) / factorial(n - steps);
      ASSERT_EQ(counts.size(), deals) << n << " " << steps;
      for (const auto& [d, c] : counts) ASSERT_EQ(c, accepted / deals);
    }
}

TEST(BatchedExact, RejectedWordIsRedrawnForTheSameBatch) {
  // 2^6 mod 60 = 4: words whose leftover is below 4 are rejected for dice (5,4,3)... find one.
  constexpr unsigned W = 6;
  const std::vector<std::uint64_t> sizes = {5, 4, 3};
  std::array<std::uint64_t, fb::max_batch> dice{}, again{};
  std::uint64_t bad = 64, good = 64;
  for (std::uint64_t r = 0; r < 64; ++r) {
    const bool ok = fb::dice_from_word<W>(r, sizes.data(), 3, 60, dice.data());
    if (!ok && bad == 64) bad = r;
    if (ok && good == 64) good = r;
  }
  ASSERT_LT(bad, 64u);
  ASSERT_LT(good, 64u);
  std::vector<std::uint64_t> script = {bad, good};
  scripted_words src{&script};
  fb::roll_dice<W>(src, sizes.data(), 3, 60, dice.data());
  EXPECT_EQ(src.pos, 2u);
  ASSERT_TRUE(fb::dice_from_word<W>(good, sizes.data(), 3, 60, again.data()));
  EXPECT_EQ(dice, again);
}

namespace {

// Chi-square over the 52 x 52 (card, position) table, row by row with a Bonferroni bound:
// false-failure probability below 1e-6 for the whole test.
void expect_positions_uniform(const std::vector<std::vector<std::uint64_t>>& table, std::uint64_t trials,
                              std::size_t positions) {
  const double expected = static_cast<double>(trials) / static_cast<double>(positions);
  const boost::math::chi_squared dist(static_cast<double>(positions - 1));
  const double limit = boost::math::quantile(boost::math::complement(dist, 1e-6 / static_cast<double>(table.size())));
  for (std::size_t card = 0; card < table.size(); ++card) {
    double chi2 = 0;
    for (std::size_t pos = 0; pos < positions; ++pos) {
      const double d = static_cast<double>(table[card][pos]) - expected;
      chi2 += d * d / expected;
    }
    EXPECT_LT(chi2, limit) << "card " << card;
  }
}

template <class Engine>
void check_fisher_yates_52(Engine& e) {
  constexpr std::size_t n = 52;
  constexpr std::uint64_t trials = 52 * 400;
  std::vector<std::vector<std::uint64_t>> table(n, std::vector<std::uint64_t>(n, 0));
  std::array<int, n> deck{};
  for (std::uint64_t t = 0; t < trials; ++t) {
    std::iota(deck.begin(), deck.end(), 0);
    fairdeck::fisher_yates(deck, e);
    for (std::size_t pos = 0; pos < n; ++pos) ++table[static_cast<std::size_t>(deck[pos])][pos];
  }
  expect_positions_uniform(table, trials, n);
}

}  // namespace

TEST(BatchedChiSquare, FisherYates52WithFastAndSecureEngines) {
  fairdeck::xoshiro256pp x(20240601);
  check_fisher_yates_52(x);
  fairdeck::pcg64 p(7, 3);
  check_fisher_yates_52(p);
  fairdeck::chacha20_engine c(fairdeck::key_from_seed(99));
  check_fisher_yates_52(c);
}

TEST(BatchedChiSquare, RepeatedDealsOfSevenFromOneDeck) {
  // Monte Carlo use: partial_shuffle again and again on the same, partly shuffled deck.
  constexpr std::size_t n = 52, k = 7;
  constexpr std::uint64_t trials = 52 * 600;
  std::vector<std::vector<std::uint64_t>> table(k, std::vector<std::uint64_t>(n, 0));
  std::array<int, n> deck{};
  std::iota(deck.begin(), deck.end(), 0);
  fairdeck::xoshiro256pp e(5);
  for (std::uint64_t t = 0; t < trials; ++t) {
    const auto dealt = fairdeck::partial_shuffle(deck, k, e);
    for (std::size_t pos = 0; pos < k; ++pos) ++table[pos][static_cast<std::size_t>(dealt[pos])];
  }
  expect_positions_uniform(table, trials, n);  // rows = dealt positions, columns = cards
}

TEST(BatchedPaths, LegacyAndNarrowEnginesKeepOneDrawPerIndex) {
  struct legacy {
    using result_type = std::uint64_t;
    static constexpr result_type min() { return 0; }
    static constexpr result_type max() { return ~result_type{0}; }
    std::uint64_t calls = 0;
    result_type operator()() { return ++calls; }
    std::uint64_t native_below(std::uint64_t n) { return (++calls) % n; }
  };
  static_assert(!fairdeck::batchable_engine<legacy>);
  static_assert(fairdeck::batchable_engine<fairdeck::xoshiro256pp>);
  static_assert(fairdeck::batchable_engine<fairdeck::secure_engine>);
  static_assert(!fairdeck::batchable_engine<std::minstd_rand>);
  legacy e;
  std::array<int, 52> deck{};
  fairdeck::fisher_yates(deck, e);
  EXPECT_EQ(e.calls, 51u);  // one native_below per position, as the historical programs did
  fairdeck::xoshiro256pp x(1);
  std::array<int, 52> a{}, b{};
  std::iota(a.begin(), a.end(), 0);
  b = a;
  fairdeck::fisher_yates(a, x);
  fairdeck::xoshiro256pp y(1);
  fb::fisher_yates<64>(b.begin(), 52, fb::engine_words<fairdeck::xoshiro256pp>{y});
  EXPECT_EQ(a, b);  // the 64-bit fast path is exactly the proved template at W = 64
}

TEST(BatchedExact, InsideOutCopyEveryOrderEquallyOften) {
  // The one-pass copy+shuffle huge_shuffle uses for its buckets; W = 6 words.
  constexpr unsigned W = 6;
  for (std::uint64_t m = 1; m <= 6; ++m) {
    std::vector<std::vector<std::uint64_t>> plan;
    for (std::uint64_t i = 1; i < m;) {
      const std::uint64_t top = std::min<std::uint64_t>(m, i + fb::max_batch);
      const unsigned k = std::min<std::uint64_t>(fb::batch_size<W>(top), m - i);
      std::vector<std::uint64_t> sizes;
      for (unsigned j = 0; j < k; ++j) sizes.push_back(i + 1 + j);
      plan.push_back(sizes);
      i += k;
    }
    ASSERT_LE(plan.size(), 3u);
    std::uint64_t accepted = 0;
    const auto counts = enumerate_orders<W>(
        plan.size(),
        [m](scripted_words& src) {
          std::vector<int> in(m), out(m, -1);
          std::iota(in.begin(), in.end(), 0);
          fb::inside_out_copy<W>(in.data(), out.data(), m, src);
          return out;
        },
        accepted);
    ASSERT_EQ(counts.size(), factorial(m)) << m;
    for (const auto& [order, c] : counts) ASSERT_EQ(c, accepted / factorial(m));
  }
}

// The parallel form of dice_from_word (one multiply per die, no chain) against the textbook
// serial form, die for die and verdict for verdict: every word of 8- and 12-bit engines, and
// 2^20 words of a 64-bit stream for every batch the 64-bit shuffles take (falling sizes up to
// 10^5, 1..12 dice) plus random size lists.
template <unsigned W>
void expect_parallel_equals_serial(std::uint64_t word, const std::vector<std::uint64_t>& sizes) {
  std::uint64_t product = 1;
  for (auto s : sizes) product *= s;
  const auto k = static_cast<unsigned>(sizes.size());
  std::array<std::uint64_t, fb::max_batch> a{}, b{};
  const bool ok_a = fb::dice_from_word<W>(word, sizes.data(), k, product, a.data());
  const bool ok_b = fb::dice_from_word_serial<W>(word, sizes.data(), k, product, b.data());
  ASSERT_EQ(ok_a, ok_b) << "word " << word;
  ASSERT_EQ(a, b) << "word " << word;
}

TEST(BatchedExact, ParallelDiceEqualSerialDice) {
  for (std::uint64_t r = 0; r < 256; ++r) {
    expect_parallel_equals_serial<8>(r, {7, 3, 11});
    expect_parallel_equals_serial<8>(r, {6, 5, 4, 2});
  }
  for (std::uint64_t r = 0; r < 4096; ++r) expect_parallel_equals_serial<12>(r, {13, 1, 17, 5, 3});
  fairdeck::xoshiro256pp words(20261126);
  for (std::uint64_t top : {2ull, 3ull, 7ull, 52ull, 53ull, 104ull, 312ull, 1000ull, 65536ull, 100000ull})
    for (unsigned k = 1; k <= fb::max_batch && k < top; ++k) {
      if (top > fb::batch_limits<64>[k]) break;
      std::vector<std::uint64_t> sizes;
      for (unsigned j = 0; j < k; ++j) sizes.push_back(top - j);
      for (int i = 0; i < (1 << 14); ++i) expect_parallel_equals_serial<64>(words(), sizes);
    }
  for (int t = 0; t < (1 << 12); ++t) {  // random sizes with a product below 2^56
    std::vector<std::uint64_t> sizes;
    std::uint64_t product = 1;
    for (unsigned j = 0; j < fb::max_batch; ++j) {
      const std::uint64_t s = 1 + words() % 3000;
      if (product > (std::uint64_t{1} << 56) / s) break;
      product *= s;
      sizes.push_back(s);
    }
    for (int i = 0; i < 64; ++i) expect_parallel_equals_serial<64>(words(), sizes);
  }
  // Words right at the rejection boundary: leftover just below / at 2^64 mod P.
  const std::vector<std::uint64_t> deal = {52, 51, 50, 49, 48, 47, 46};
  std::uint64_t p = 1;
  for (auto s : deal) p *= s;
  const std::uint64_t inv = [p] {  // p^-1 mod 2^64 (p odd part): build words with chosen leftovers
    std::uint64_t odd = p >> __builtin_ctzll(p), x = 1;
    for (int i = 0; i < 7; ++i) x *= 2 - odd * x;
    return x;
  }();
  const unsigned tz = static_cast<unsigned>(__builtin_ctzll(p));
  for (std::uint64_t leftover = 0; leftover < (std::uint64_t{64} << tz); leftover += std::uint64_t{1} << tz)
    expect_parallel_equals_serial<64>((leftover >> tz) * inv, deal);
}

// The inlined one-word deal (partial_fisher_yates) against the general batch loop: the same
// deals, and the same number of words drawn, for every short deal that fits one word.
TEST(BatchedExact, OneWordDealEqualsTheBatchLoop) {
  for (std::uint64_t n : {2ull, 3ull, 7ull, 52ull, 104ull, 312ull, 1000ull})
    for (std::uint64_t steps = 1; steps <= fb::max_batch && steps <= n; ++steps)
      for (std::uint64_t seed = 0; seed < 200; ++seed) {
        fairdeck::xoshiro256pp e1(seed), e2(seed);
        std::vector<std::uint32_t> d1(n), d2(n);
        std::iota(d1.begin(), d1.end(), 0u);
        std::iota(d2.begin(), d2.end(), 0u);
        for (int deal = 0; deal < 4; ++deal) {  // repeated deals from the same, already dealt, deck
          fb::partial_fisher_yates<64>(d1.begin(), n, steps, fb::engine_words<fairdeck::xoshiro256pp>{e1});
          fb::partial_fisher_yates_batches<64>(d2.begin(), n, steps, fb::engine_words<fairdeck::xoshiro256pp>{e2});
          ASSERT_EQ(d1, d2) << n << " " << steps << " " << seed;
        }
        ASSERT_EQ(e1(), e2()) << "both drew the same number of words";
      }
}

// Golden decks from fairdeck before the parallel dice and the one-word deal (xoshiro256pp
// seed 20261126): a 52-card shuffle, and deals of 7 (one word) and 12 (two batches).
TEST(BatchedExact, SameOrdersAsBeforeTheFastPaths) {
  auto deck = [] {
    std::vector<int> d(52);
    std::iota(d.begin(), d.end(), 0);
    return d;
  };
  fairdeck::xoshiro256pp e(20261126);
  auto fy = deck();
  fairdeck::fisher_yates(fy, e);
  auto p7 = deck();
  fairdeck::partial_shuffle(p7, 7, e);
  auto p12 = deck();
  fairdeck::partial_shuffle(p12, 12, e);
  const std::vector<int> want_fy = {28, 4,  38, 9, 19, 24, 13, 18, 48, 5,  37, 45, 25, 17, 36, 30, 31, 15,
                                    51, 40, 23, 2, 14, 43, 10, 7,  44, 49, 39, 21, 35, 26, 29, 20, 27, 42,
                                    41, 16, 8,  3, 33, 47, 0,  46, 1,  12, 6,  50, 11, 32, 22, 34};
  const std::vector<int> want_p7 = {17, 49, 6,  33, 18, 26, 28, 7,  8,  9,  10, 11, 12, 13, 14, 15, 16, 0,
                                    4,  19, 20, 21, 22, 23, 24, 25, 5,  27, 2,  29, 30, 31, 32, 3,  34, 35,
                                    36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 1,  50, 51};
  const std::vector<int> want_p12 = {37, 18, 39, 9,  12, 19, 33, 32, 50, 35, 17, 4,  11, 13, 14, 15, 16, 10,
                                     1,  5,  20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 7,  6,  34, 3,
                                     36, 0,  38, 2,  40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 8,  51};
  EXPECT_EQ(fy, want_fy);
  EXPECT_EQ(p7, want_p7);
  EXPECT_EQ(p12, want_p12);
}

TEST(BatchedExact, RunsOfEqualBatchesDealWhatBatchByBatchDeals) {
  // Above batch_limits[long_runs + 1] fisher_yates chooses a batch size once per run of equal
  // batches, and batch by batch below it; the reference below chooses it afresh for every
  // batch, as the algorithm is stated. Same words, same dice, same order, for sizes that cross
  // every batch-size boundary of 64-bit words, and sizes at the boundaries themselves.
  const auto reference = [](std::vector<std::uint32_t>& v, fairdeck::xoshiro256pp& e) {
    std::array<std::uint64_t, fb::max_batch> sizes{}, dice{};
    fb::engine_words<fairdeck::xoshiro256pp> next{e};
    for (std::uint64_t i = v.size(); i > 1;) {
      const unsigned k = std::min<unsigned>(fb::batch_size<64>(i), static_cast<unsigned>(i - 1));
      std::uint64_t product = 1;
      for (unsigned j = 0; j < k; ++j) product *= (sizes[j] = i - j);
      fb::roll_dice<64>(next, sizes.data(), k, product, dice.data());
      for (unsigned j = 0; j < k; ++j) std::swap(v[i - 1 - j], v[dice[j]]);
      i -= k;
    }
  };
  std::vector<std::size_t> sizes{0, 1, 2, 3, 12, 13, 52, 75, 76, 312, 1000, 4097, 70000, 300000, 3000000};
  for (unsigned k = fb::long_runs; k <= fb::long_runs + 1; ++k)  // ~416,000 and 16,384 for 64-bit words
    for (const std::uint64_t d : {0, 1, 2}) sizes.push_back(fb::batch_limits<64>[k] + d);
  for (const std::size_t n : sizes) {
    std::vector<std::uint32_t> a(n), b(n);
    std::iota(a.begin(), a.end(), 0u);
    b = a;
    fairdeck::xoshiro256pp x(n + 7), y(n + 7);
    fb::fisher_yates<64>(a.begin(), n, fb::engine_words<fairdeck::xoshiro256pp>{x});
    reference(b, y);
    EXPECT_EQ(a, b) << "n = " << n;
    EXPECT_EQ(x(), y()) << "n = " << n << ": not the same number of words";
  }
}
