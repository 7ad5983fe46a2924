// Poker evaluator, odds and equity speed. Numbers to quote are the medians of
// --benchmark_repetitions=5; the reference evaluator (best of 21 five-card subsets by the
// textbook rules) is the baseline measured in the same run.
#include <benchmark/benchmark.h>

#include <array>
#include <vector>

#include "fairdeck/poker/enumerate.hpp"
#include "fairdeck/poker/hand_eval.hpp"
#include "fairdeck/poker/reference_eval.hpp"
#include "fairdeck/random/xoshiro256pp.hpp"
#include "fairdeck/shuffle/partial_shuffle.hpp"

namespace fp = fairdeck::poker;
using fairdeck::card_t;

namespace {

std::vector<card_t> random_hands(std::size_t hands, std::size_t k) {
  std::vector<card_t> deck(52), out;
  for (card_t c = 0; c < 52; ++c) deck[c] = c;
  fairdeck::xoshiro256pp rng(2024);
  out.reserve(hands * k);
  for (std::size_t i = 0; i < hands; ++i) {
    auto h = fairdeck::partial_shuffle(deck, k, rng);
    out.insert(out.end(), h.begin(), h.end());
  }
  return out;
}

constexpr std::size_t kRandomHands = std::size_t{1} << 16;

template <std::size_t N>
void BM_EvalRandom(benchmark::State& state) {
  const auto hands = random_hands(kRandomHands, N);
  const auto& ev = fp::hand_evaluator::instance();
  for (auto _ : state) {
    unsigned sum = 0;
    for (std::size_t i = 0; i < hands.size(); i += N) sum += ev.eval<N>(&hands[i]);
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kRandomHands));
}
BENCHMARK(BM_EvalRandom<7>);
BENCHMARK(BM_EvalRandom<6>);
BENCHMARK(BM_EvalRandom<5>);

void BM_ReferenceEvalRandom7(benchmark::State& state) {
  const auto hands = random_hands(kRandomHands, 7);
  for (auto _ : state) {
    unsigned sum = 0;
    for (std::size_t i = 0; i < hands.size(); i += 7) sum += fp::reference_value({&hands[i], 7});
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kRandomHands));
}
BENCHMARK(BM_ReferenceEvalRandom7);

// Every 7-card hand once, single thread, summing strengths (no histogram).
void BM_EnumerateAll7Sum(benchmark::State& state) {
  std::vector<card_t> deck(52);
  for (card_t c = 0; c < 52; ++c) deck[c] = c;
  for (auto _ : state) {
    unsigned long long sum = 0;
    for (std::size_t first = 0; first < 46; ++first)
      fp::for_each_completion<6>(fp::hand_accumulator{} + deck[first], deck, first + 1, [&](fp::strength_t s) { sum += s; });
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * 133784560LL));
}
BENCHMARK(BM_EnumerateAll7Sum)->Unit(benchmark::kMillisecond);

void BM_EnumerateAll7StatesSum(benchmark::State& state) {
  for (auto _ : state) {
    unsigned long long sum = 0;
    for (unsigned first = 0; first < 46; ++first) fp::for_each_hand<7>(first, [&](fp::strength_t s) { sum += s; });
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * 133784560LL));
}
BENCHMARK(BM_EnumerateAll7StatesSum)->Unit(benchmark::kMillisecond);

void BM_EnumerateAll7StatesCategories(benchmark::State& state) {
  for (auto _ : state) {
    std::array<std::uint64_t, 9> counts{};
    for (unsigned first = 0; first < 46; ++first) fp::for_each_hand<7>(first, [&](fp::strength_t s) { ++counts[s >> 12]; });
    benchmark::DoNotOptimize(counts);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * 133784560LL));
}
BENCHMARK(BM_EnumerateAll7StatesCategories)->Unit(benchmark::kMillisecond);

void BM_EnumerateAll7StatesHistogram(benchmark::State& state) {
  std::vector<std::uint32_t> hist(1u << 16);
  for (auto _ : state) {
    std::fill(hist.begin(), hist.end(), 0);
    for (unsigned first = 0; first < 46; ++first) fp::for_each_hand<7>(first, [&](fp::strength_t s) { ++hist[s]; });
    benchmark::DoNotOptimize(hist.data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * 133784560LL));
}
BENCHMARK(BM_EnumerateAll7StatesHistogram)->Unit(benchmark::kMillisecond);

void BM_EnumerateAll7Categories(benchmark::State& state) {
  std::vector<card_t> deck(52);
  for (card_t c = 0; c < 52; ++c) deck[c] = c;
  for (auto _ : state) {
    std::array<std::uint64_t, 9> counts{};
    for (std::size_t first = 0; first < 46; ++first)
      fp::for_each_completion<6>(fp::hand_accumulator{} + deck[first], deck, first + 1,
                                 [&](fp::strength_t s) { ++counts[s >> 12]; });
    benchmark::DoNotOptimize(counts);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * 133784560LL));
}
BENCHMARK(BM_EnumerateAll7Categories)->Unit(benchmark::kMillisecond);

}  // namespace
