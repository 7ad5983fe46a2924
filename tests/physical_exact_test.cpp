// Exact distributions of the physical shuffles for small decks: every draw path of the
// algorithm is walked with a scripted engine, weighted exactly, and the resulting
// distribution over orders is compared, as exact rationals, with the model's formula.
#include <algorithm>
#include <deque>
#include <cstdint>
#include <map>
#include <numeric>
#include <vector>

#include <boost/multiprecision/cpp_int.hpp>
#include <gtest/gtest.h>

#include "fairdeck/shuffle/algorithm.hpp"
#include "fairdeck/shuffle/physical.hpp"
#include "fairdeck/shuffle/shelf.hpp"

namespace fairdeck {
namespace {

using rational = boost::multiprecision::cpp_rational;
using big = boost::multiprecision::cpp_int;
using order = std::vector<int>;
using distribution = std::map<order, rational>;

struct branch {
  std::uint64_t value;
  std::uint64_t arity;
};

// Replays a prefix of choices, then takes choice 0 at every new branch point. (Unlike
// scripted_engine.hpp's ideal_draws, which scripts bounded draws only, this also branches on
// raw engine words: the riffle and the overhand read fair bits, not bounded draws.) Each engine
// word is a branch with 2^word_bits outcomes (the algorithms under test read only that many
// low bits of a word), each bounded draw (native_below, which draw_below prefers) a branch
// with n outcomes: so each walked path has probability prod 1/arity.
class path_engine {
 public:
  using result_type = std::uint64_t;
  static constexpr result_type min() noexcept { return 0; }
  static constexpr result_type max() noexcept { return ~result_type{0}; }

  path_engine(std::vector<branch>& path, unsigned word_bits) : path_(path), word_bits_(word_bits) {}
  result_type operator()() { return next(std::uint64_t{1} << word_bits_); }
  std::uint64_t native_below(std::uint64_t n) { return next(n); }
  [[nodiscard]] std::size_t depth() const { return depth_; }

 private:
  std::uint64_t next(std::uint64_t arity) {
    if (depth_ < path_.size()) {
      EXPECT_EQ(path_[depth_].arity, arity) << "algorithm is not deterministic given its draws";
      return path_[depth_++].value;
    }
    path_.push_back({0, arity});
    ++depth_;
    return 0;
  }
  std::vector<branch>& path_;
  unsigned word_bits_;
  std::size_t depth_ = 0;
};

// Distribution of the order `shuffle(deck, engine)` leaves a deck 0..n-1 in.
template <class F>
distribution enumerate(std::size_t n, unsigned word_bits, F shuffle) {
  distribution out;
  std::vector<branch> path;
  for (;;) {
    order deck(n);
    std::iota(deck.begin(), deck.end(), 0);
    path_engine engine(path, word_bits);
    shuffle(deck, engine);
    EXPECT_EQ(engine.depth(), path.size());
    big denominator = 1;
    for (const auto& b : path) denominator *= b.arity;
    out[deck] += rational(1, denominator);
    while (!path.empty() && path.back().value + 1 == path.back().arity) path.pop_back();
    if (path.empty()) return out;
    ++path.back().value;
  }
}

// Bayer & Diaconis: K GSR riffles give an order with r rising sequences probability
// C(2^K + n - r, n) / 2^(Kn).
rational gsr_probability(std::size_t n, unsigned K, std::size_t r) {
  const big M = big(1) << K;
  if (M < r) return 0;
  big num = 1, den = 1;
  for (std::size_t i = 0; i < n; ++i) {
    num *= M + n - r - i;  // C(M + n - r, n) = (M+n-r)...(M-r+1) / n!
    den *= i + 1;
  }
  return rational(num, den * (big(1) << (K * n)));
}

void expect_gsr(const distribution& got, std::size_t n, unsigned K) {
  order deck(n);
  std::iota(deck.begin(), deck.end(), 0);
  rational total = 0;
  do {
    const rational want = gsr_probability(n, K, rising_sequences(deck));
    const auto it = got.find(deck);
    const rational have = it == got.end() ? rational(0) : it->second;
    EXPECT_EQ(have, want) << "n=" << n << " K=" << K << " r=" << rising_sequences(deck);
    total += have;
  } while (std::next_permutation(deck.begin(), deck.end()));
  EXPECT_EQ(total, 1);
}

TEST(PhysicalExact, RiffleIsExactlyGsrForEveryPath) {
  for (std::size_t n = 1; n <= 5; ++n)
    for (unsigned K = 1; K <= 3; ++K)
      expect_gsr(enumerate(n, static_cast<unsigned>(n), [K](order& d, path_engine& e) { riffle_shuffle(d, K, e); }), n, K);
}

TEST(PhysicalExact, LiteralDropModelIsExactlyGsr) {
  for (std::size_t n = 1; n <= 5; ++n)
    expect_gsr(enumerate(n, static_cast<unsigned>(n), [](order& d, path_engine& e) { gsr_riffle_by_drops(d, e); }), n, 1);
  for (std::size_t n = 1; n <= 3; ++n)
    expect_gsr(enumerate(n, static_cast<unsigned>(n),
                         [](order& d, path_engine& e) {
                           gsr_riffle_by_drops(d, e);
                           gsr_riffle_by_drops(d, e);
                         }),
               n, 2);
}

TEST(PhysicalExact, BinomialCutIsExact) {
  for (std::uint64_t n = 1; n <= 6; ++n) {
    std::map<std::uint64_t, rational> got;
    std::vector<branch> path;
    for (;;) {
      path_engine e(path, static_cast<unsigned>(n));
      const auto c = binomial_half(e, n);
      got[c] += rational(1, big(1) << n);
      while (!path.empty() && path.back().value + 1 == path.back().arity) path.pop_back();
      if (path.empty()) break;
      ++path.back().value;
    }
    big choose = 1;
    for (std::uint64_t c = 0; c <= n; ++c) {
      EXPECT_EQ(got[c], rational(choose, big(1) << n)) << "n=" << n << " c=" << c;
      choose = choose * (n - c) / (c + 1);
    }
  }
}

// Overhand, physically: packets (cut at each gap independently w.p. p) go onto a new pile one
// by one, so the packet order reverses and each packet keeps its order. Built here directly
// from each cut set, independently of the in-place reversal trick in physical.hpp.
distribution overhand_model(std::size_t n, unsigned cut_log2) {
  distribution out;
  const std::size_t gaps = n - 1;
  for (std::uint64_t cuts = 0; cuts < (std::uint64_t{1} << gaps); ++cuts) {
    std::vector<order> packets{{0}};
    for (std::size_t c = 1; c < n; ++c) {
      if ((cuts >> (c - 1)) & 1U) packets.emplace_back();
      packets.back().push_back(static_cast<int>(c));
    }
    order deck;
    for (auto it = packets.rbegin(); it != packets.rend(); ++it) deck.insert(deck.end(), it->begin(), it->end());
    const auto k = static_cast<unsigned>(std::popcount(cuts));
    const big q = big(1) << cut_log2;  // p = 1/q
    big num = 1;
    for (std::size_t i = k; i < gaps; ++i) num *= q - 1;
    out[deck] += rational(num, boost::multiprecision::pow(q, static_cast<unsigned>(gaps)));
  }
  return out;
}

TEST(PhysicalExact, OverhandMatchesPemantleModel) {
  for (std::size_t n = 2; n <= 5; ++n)
    for (unsigned cut_log2 : {1U, 2U, 3U}) {
      const auto got = enumerate(n, static_cast<unsigned>(n - 1),
                                 [cut_log2](order& d, path_engine& e) { overhand_shuffle(d, 1, e, cut_log2); });
      EXPECT_EQ(got, overhand_model(n, cut_log2)) << "n=" << n << " p=2^-" << cut_log2;
    }
}

TEST(PhysicalExact, CutIsAUniformRotation) {
  for (std::size_t n = 1; n <= 6; ++n) {
    const auto got = enumerate(n, 1, [](order& d, path_engine& e) { random_cut(d, e); });
    ASSERT_EQ(got.size(), n);
    const rational each(1, n);
    for (const auto& [deck, p] : got) {
      EXPECT_TRUE(p == each) << "n=" << n;
      for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(static_cast<std::size_t>(deck[i]), (deck[0] + i) % n);
    }
  }
}

// A composition is the convolution of its steps: riffle once, then cut.
TEST(PhysicalExact, CompositionAppliesStepsInOrder) {
  const std::size_t n = 4;
  const auto spec = parse_shuffle_spec("riffle:1+cut");
  const auto got = enumerate(n, n, [&](order& d, path_engine& e) { apply_shuffle(spec, d, e); });
  distribution want;
  order deck(n);
  std::iota(deck.begin(), deck.end(), 0);
  do {
    const rational p = gsr_probability(n, 1, rising_sequences(deck));
    if (p == 0) continue;
    for (std::size_t c = 0; c < n; ++c) {
      order cut = deck;
      std::rotate(cut.begin(), cut.begin() + static_cast<std::ptrdiff_t>(c), cut.end());
      want[cut] += p / n;
    }
  } while (std::next_permutation(deck.begin(), deck.end()));
  EXPECT_EQ(got, want);
}


// ---- Shelf machines (shuffle/shelf.hpp) ----

// The model literally: all (2m)^n choice sequences of one pass (shelf, top or under per card,
// fed from the top), each with probability (2m)^-n, piles stacked shelf 1 on top.
distribution shelf_brute_force(std::size_t n, std::size_t m) {
  distribution out;
  std::vector<std::size_t> choice(n, 0);
  big total = 1;
  for (std::size_t i = 0; i < n; ++i) total *= 2 * m;
  for (;;) {
    std::vector<std::deque<int>> piles(m);
    for (std::size_t card = 0; card < n; ++card) {
      auto& pile = piles[choice[card] / 2];
      if (choice[card] % 2) pile.push_back(static_cast<int>(card));   // under the pile
      else pile.push_front(static_cast<int>(card));                   // on top of it
    }
    order deck;
    for (const auto& pile : piles) deck.insert(deck.end(), pile.begin(), pile.end());
    out[deck] += rational(1, total);
    std::size_t i = 0;
    while (i < n && ++choice[i] == 2 * m) choice[i++] = 0;
    if (i == n) return out;
  }
}

rational shelf_formula(std::size_t n, std::size_t total_shelves, const order& deck) {
  const auto p = shelf_deck_probability(n, total_shelves, peaks(deck));
  return rational(big(p.numerator), big(p.denominator));
}

// Every order's chance: the sampler (every path of its draws), the literal model and DFH's
// formula (through the number of peaks) agree exactly, for every n <= 6 and m <= 3.
TEST(PhysicalExact, ShelfSamplerModelAndFormulaAgree) {
  for (std::size_t n = 1; n <= 6; ++n)
    for (std::size_t m = 1; m <= 3; ++m) {
      if (n == 6 && m == 3) continue;  // 6^6 paths: covered by n = 5
      SCOPED_TRACE(::testing::Message() << "n=" << n << " m=" << m);
      const auto sampler = enumerate(n, 1, [m](order& d, path_engine& e) { shelf_pass(d, m, e); });
      const auto model = shelf_brute_force(n, m);
      EXPECT_EQ(sampler, model);
      order deck(n);
      std::iota(deck.begin(), deck.end(), 0);
      rational total = 0;
      do {
        const auto it = model.find(deck);
        const rational want = it == model.end() ? rational(0) : it->second;
        EXPECT_EQ(shelf_formula(n, m, deck), want);
        total += want;
      } while (std::next_permutation(deck.begin(), deck.end()));
      EXPECT_EQ(total, 1);
    }
}

// The composition rule (DFH Corollary 4.2, shelf.hpp): a pass of m1 shelves then one of m2 is one
// pass of 2 m1 m2 shelves, so k passes of m are one pass of 2^(k-1) m^k -- not m^k: two passes
// of 2 shelves are 8 shelves (and differ from 4 already for 3 cards).
TEST(PhysicalExact, PassesComposeToTwiceTheProductOfShelves) {
  for (std::size_t n = 2; n <= 4; ++n) {
    const auto two = enumerate(n, 1, [](order& d, path_engine& e) { shelf_shuffle(d, 2, 2, e); });
    EXPECT_EQ(two, shelf_brute_force(n, 8)) << "n=" << n;
    if (n >= 3) {
      EXPECT_NE(two, shelf_brute_force(n, 4)) << "n=" << n;
    }
    const auto spec = parse_shuffle_spec("shelf:2x2");
    EXPECT_EQ(enumerate(n, 1, [&](order& d, path_engine& e) { apply_shuffle(spec, d, e); }), two);
    const auto mixed = enumerate(n, 1, [](order& d, path_engine& e) { shelf_pass(d, 1, e); shelf_pass(d, 3, e); });
    EXPECT_EQ(mixed, shelf_brute_force(n, 6)) << "n=" << n;
  }
  // Three passes of 2 shelves: 2^2 2^3 = 32 shelves, through the formula (every order).
  const std::size_t n = 3;
  const auto three = enumerate(n, 1, [](order& d, path_engine& e) { shelf_shuffle(d, 2, 3, e); });
  order deck(n);
  std::iota(deck.begin(), deck.end(), 0);
  do {
    const auto it = three.find(deck);
    EXPECT_EQ(it == three.end() ? rational(0) : it->second, shelf_formula(n, 32, deck));
  } while (std::next_permutation(deck.begin(), deck.end()));
}

// The peak counts and the exact distances against brute force over all n! orders.
TEST(PhysicalExact, ShelfDistancesMatchBruteForce) {
  for (std::size_t n = 1; n <= 6; ++n) {
    std::vector<big> by_peaks((n - 1) / 2 + 1);
    order deck(n);
    std::iota(deck.begin(), deck.end(), 0);
    do ++by_peaks[peaks(deck)];
    while (std::next_permutation(deck.begin(), deck.end()));
    const auto counted = permutations_by_peaks(n);
    ASSERT_EQ(counted.size(), by_peaks.size());
    for (std::size_t p = 0; p < counted.size(); ++p) EXPECT_EQ(big(counted[p]), by_peaks[p]) << n << " " << p;
    for (std::size_t m = 1; m <= 3; ++m) {
      if (n == 6 && m == 3) continue;
      const auto model = shelf_brute_force(n, m);
      big orders = 1;
      for (std::size_t i = 2; i <= n; ++i) orders *= i;
      const rational uniform(1, orders);
      rational tv = 0, sep = 0;
      std::iota(deck.begin(), deck.end(), 0);
      do {
        const auto it = model.find(deck);
        const rational p = it == model.end() ? rational(0) : it->second;
        tv += abs(p - uniform) / 2;
        sep = std::max(sep, rational(1) - p / uniform);
      } while (std::next_permutation(deck.begin(), deck.end()));
      const auto d = shelf_mixing(n, m);
      EXPECT_NEAR(d.total_variation, static_cast<double>(tv), 1e-15) << n << " " << m;
      EXPECT_NEAR(d.separation, static_cast<double>(sep), 1e-15) << n << " " << m;
    }
  }
}

}  // namespace
}  // namespace fairdeck
