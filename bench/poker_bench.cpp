// Poker evaluator, odds and equity speed. Numbers to quote are the medians of
// --benchmark_repetitions=5; the reference evaluator (best of 21 five-card subsets by the
// textbook rules) is the baseline measured in the same run.
#include <benchmark/benchmark.h>

#include <array>
#include <vector>

#include "fairdeck/poker/enumerate.hpp"
#include "fairdeck/poker/equity.hpp"
#include "fairdeck/poker/odds.hpp"
#include "fairdeck/poker/hand_eval.hpp"
#include "fairdeck/poker/reference_eval.hpp"
#include "fairdeck/random/engine_registry.hpp"
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

// Every 7-card hand once, single thread. Baseline: the perfect-hash evaluator on incremental
// keys (for_each_completion), then the rank-state machine (for_each_hand) that the library's
// exact counts use; "Sum" adds strengths, "Histogram" counts per strength (what
// exact_category_counts does), "Categories" increments nine category counters.
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


// The library's exact category counts for 7 cards (rank-state enumeration + histogram).
void BM_OddsExact7(benchmark::State& state) {
  const auto threads = static_cast<unsigned>(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(fp::exact_category_counts(7, threads));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * 133784560LL));
}
BENCHMARK(BM_OddsExact7)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

// Monte Carlo 7-card odds: partial shuffle of 7 cards with deck reuse + evaluation.
void BM_OddsMonteCarlo7(benchmark::State& state) {
  const auto id = static_cast<fairdeck::engine_id>(state.range(0));
  const auto spec = fairdeck::make_engine_spec(fairdeck::info(id).name, 1, std::nullopt);
  const std::uint64_t trials = std::uint64_t{1} << 22;
  for (auto _ : state) benchmark::DoNotOptimize(fp::sample_category_counts(7, trials, spec, 1));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * trials));
  state.SetLabel(std::string(fairdeck::info(id).name));
}
BENCHMARK(BM_OddsMonteCarlo7)
    ->Arg(static_cast<int>(fairdeck::engine_id::xoshiro256pp))
    ->Arg(static_cast<int>(fairdeck::engine_id::pcg64))
    ->Arg(static_cast<int>(fairdeck::engine_id::chacha20))
    ->Unit(benchmark::kMillisecond);

// Baseline for the Monte Carlo loop: a full 52-card Fisher-Yates per hand instead of the
// 7-card partial shuffle (same engine, same evaluator).
void BM_OddsMonteCarlo7FullShuffleBaseline(benchmark::State& state) {
  const auto& ev = fp::hand_evaluator::instance();
  std::array<card_t, 52> deck{};
  for (card_t c = 0; c < 52; ++c) deck[c] = c;
  fairdeck::xoshiro256pp rng(1);
  const std::uint64_t trials = std::uint64_t{1} << 20;
  for (auto _ : state) {
    std::array<std::uint64_t, 9> counts{};
    for (std::uint64_t t = 0; t < trials; ++t) {
      (void)fairdeck::partial_shuffle(deck, 52, rng);
      ++counts[static_cast<unsigned>(fp::category_of(ev.eval7(deck.data())))];
    }
    benchmark::DoNotOptimize(counts);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * trials));
}
BENCHMARK(BM_OddsMonteCarlo7FullShuffleBaseline)->Unit(benchmark::kMillisecond);

fp::equity_input equity_case(std::vector<std::string> hands, std::string_view board = "") {
  fp::equity_input in;
  for (const auto& h : hands) in.ranges.push_back(fp::parse_range(h));
  in.board = fp::parse_card_run(board);
  return fp::prepared(std::move(in));
}

// Heads-up preflop, exact: 1,712,304 boards x 2 hands.
void BM_EquityExactHeadsUpPreflop(benchmark::State& state) {
  const auto in = equity_case({"AhKh", "QsQd"});
  const auto threads = static_cast<unsigned>(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(fp::exact_equity(in, threads));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * 1712304LL));
}
BENCHMARK(BM_EquityExactHeadsUpPreflop)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

// Three-way preflop, exact: C(46,5) = 1,370,754 boards x 3 hands.
void BM_EquityExactThreeWayPreflop(benchmark::State& state) {
  const auto in = equity_case({"AhKh", "QsQd", "7c6c"});
  for (auto _ : state) benchmark::DoNotOptimize(fp::exact_equity(in, 1));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * 1370754LL));
}
BENCHMARK(BM_EquityExactThreeWayPreflop)->Unit(benchmark::kMillisecond);

// Ranges, Monte Carlo (rejection-sampled hole cards): deals per second.
void BM_EquityMonteCarloRanges(benchmark::State& state) {
  const auto in = equity_case({"QQ+", "AKs,A5s-A2s", "random"});
  const auto spec = fairdeck::make_engine_spec("xoshiro256pp", 1, std::nullopt);
  const std::uint64_t trials = std::uint64_t{1} << 18;
  for (auto _ : state) benchmark::DoNotOptimize(fp::sample_equity(in, trials, spec, 1));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * trials));
}
BENCHMARK(BM_EquityMonteCarloRanges)->Unit(benchmark::kMillisecond);

// Fixed hands, Monte Carlo with deck reuse: deals per second.
void BM_EquityMonteCarloHeadsUp(benchmark::State& state) {
  const auto in = equity_case({"AhKh", "QsQd"});
  const auto spec = fairdeck::make_engine_spec("xoshiro256pp", 1, std::nullopt);
  const std::uint64_t trials = std::uint64_t{1} << 20;
  for (auto _ : state) benchmark::DoNotOptimize(fp::sample_equity(in, trials, spec, 1));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * trials));
}
BENCHMARK(BM_EquityMonteCarloHeadsUp)->Unit(benchmark::kMillisecond);

}  // namespace
