// The batch evaluation kernels (scalar, AVX-512 where the CPU has it) against the one-hand
// evaluator on every input they take: all 133,784,560 7-card hands as card arrays
// and as byte arrays (eval7_batch's two overloads; also eval<7> on byte arrays), in batches whose sizes are not multiples of the
// kernels' 8 lanes (so the tails run too). The one-hand evaluator itself is checked against
// the reference rules in poker_eval_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "fairdeck/poker/hand_eval.hpp"
#include "poker_test_config.hpp"

namespace {

using fairdeck::card_t;
namespace fp = fairdeck::poker;
using kernel = fp::hand_evaluator::eval_kernel;

constexpr std::array<kernel, 3> all_kernels{kernel::scalar, kernel::avx512, kernel::avx2};
constexpr std::size_t batch = 4093;  // prime: every tail length occurs

// Calls flush(cards, hands) for batches of all K-card hands (cards: 7 per hand, K used).
template <unsigned K, class Flush>
void for_each_batch(Flush&& flush) {
  std::vector<card_t> cards;
  std::vector<fp::hand_accumulator> hands;
  cards.reserve(7 * batch);
  hands.reserve(batch);
  std::array<card_t, 7> c{};
  auto rec = [&](auto& self, unsigned depth, card_t from, fp::hand_accumulator h) -> void {
    if (depth == K) {
      cards.insert(cards.end(), c.begin(), c.begin() + 7);
      hands.push_back(h);
      if (hands.size() == batch) {
        flush(cards, hands);
        cards.clear();
        hands.clear();
      }
      return;
    }
    // Under sanitizers, 7-card hands with the first card 0 only (18,009,460 hands, a stated subset).
    const card_t last = FAIRDECK_POKER_SANITIZED && depth == 0 && K == 7 ? 1
                                                                         : static_cast<card_t>(52 - (K - depth) + 1);
    for (card_t x = from; x < last; ++x) {
      c[depth] = x;
      self(self, depth + 1, static_cast<card_t>(x + 1), h + x);
    }
  };
  rec(rec, 0, 0, fp::hand_accumulator{});
  if (!hands.empty()) flush(cards, hands);
}

TEST(PokerEvalKernels, ScalarIsAlwaysSupportedAndBestIsSupported) {
  EXPECT_TRUE(fp::hand_evaluator::kernel_supported(kernel::scalar));
  EXPECT_TRUE(fp::hand_evaluator::kernel_supported(fp::hand_evaluator::best_kernel()));
  if (!fp::hand_evaluator::kernel_supported(kernel::avx512))
    std::printf("note: this CPU has no AVX-512 (F, BW, DQ, VL, VBMI); only the scalar kernel is checked\n");
}

TEST(PokerEvalKernels, EveryKernelAgreesOnAllSevenCardHands) {
  const auto& ev = fp::hand_evaluator::instance();
  std::vector<fp::strength_t> want, got;
  std::vector<std::uint8_t> bytes;
  std::uint64_t hands_seen = 0, bad = 0;
  for_each_batch<7>([&](const std::vector<card_t>& cards, const std::vector<fp::hand_accumulator>& hands) {
    const std::size_t n = hands.size();
    want.resize(n);
    got.resize(n);
    bytes.assign(cards.begin(), cards.end());
    for (std::size_t i = 0; i < n; ++i) {
      want[i] = ev.eval(hands[i]);
      bad += ev.eval7(&cards[7 * i]) != want[i];
      bad += ev.eval7(hands[i]) != want[i];         // the seven-card table, from an accumulator
      bad += ev.eval<7>(&bytes[7 * i]) != want[i];  // byte card arrays
    }
    for (const kernel k : all_kernels) {
      if (!fp::hand_evaluator::kernel_supported(k)) continue;
      ev.eval7_batch(k, cards.data(), n, got.data());
      for (std::size_t i = 0; i < n; ++i) bad += got[i] != want[i];
      std::fill(got.begin(), got.end(), 0);
      ev.eval7_batch(k, bytes.data(), n, got.data());  // cards as bytes
      for (std::size_t i = 0; i < n; ++i) bad += got[i] != want[i];
    }
    ev.eval7_batch(cards.data(), n, got.data());  // the dispatching entry points
    for (std::size_t i = 0; i < n; ++i) bad += got[i] != want[i];
    std::fill(got.begin(), got.end(), 0);
    ev.eval7_batch(bytes.data(), n, got.data());
    for (std::size_t i = 0; i < n; ++i) bad += got[i] != want[i];
    hands_seen += n;
  });
  EXPECT_EQ(bad, 0u);
  if (!FAIRDECK_POKER_SANITIZED) {
    EXPECT_EQ(hands_seen, 133784560u);
  }
}

TEST(PokerEvalKernels, EmptyAndShortBatches) {
  const auto& ev = fp::hand_evaluator::instance();
  const std::array<card_t, 21> cards{0,  13, 26, 39, 1,  14, 27,  // four aces, deuce, deuce, deuce
                                     0,  1,  2,  3,  4,  20, 33,  // A-5 straight flush in clubs
                                     12, 25, 38, 51, 11, 24, 37};
  std::array<std::uint8_t, 21> bytes{};
  std::copy(cards.begin(), cards.end(), bytes.begin());
  std::array<fp::strength_t, 3> got{};
  for (const kernel k : all_kernels) {
    if (!fp::hand_evaluator::kernel_supported(k)) continue;
    ev.eval7_batch(k, cards.data(), 0, got.data());
    ev.eval7_batch(k, bytes.data(), 0, got.data());
    for (std::size_t n = 1; n <= 3; ++n) {
      got.fill(0);
      ev.eval7_batch(k, cards.data(), n, got.data());
      for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(got[i], ev.eval7(&cards[7 * i]));
      for (std::size_t i = n; i < 3; ++i) EXPECT_EQ(got[i], 0);  // nothing written past n
      got.fill(0);
      ev.eval7_batch(k, bytes.data(), n, got.data());
      for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(got[i], ev.eval7(&cards[7 * i]));
      for (std::size_t i = n; i < 3; ++i) EXPECT_EQ(got[i], 0);
    }
  }
  EXPECT_EQ(fp::category_of(ev.eval7(&cards[0])), fp::hand_category::four_of_a_kind);
  EXPECT_EQ(fp::category_of(ev.eval7(&cards[7])), fp::hand_category::straight_flush);
}

}  // namespace
