// Physical shuffles against the Fisher–Yates baseline, same engines, same run: one shuffle of
// a 52-card deck (or a 416-card shoe) per iteration. Compare riffle:7 / fisher-yates ratios.
#include <cstdint>
#include <vector>

#include <benchmark/benchmark.h>

#include "fairdeck/cards/card.hpp"
#include "fairdeck/random/chacha20.hpp"
#include "fairdeck/random/xoshiro256pp.hpp"
#include "fairdeck/shuffle/algorithm.hpp"
#include "fairdeck/shuffle/mixing.hpp"
#include "fairdeck/shuffle/physical.hpp"

namespace {

using namespace fairdeck;

template <class Engine>
Engine make_bench_engine();
template <>
xoshiro256pp make_bench_engine<xoshiro256pp>() { return xoshiro256pp(42); }
template <>
chacha20_engine make_bench_engine<chacha20_engine>() { return chacha20_engine(key_from_seed(42)); }

template <class Engine>
void BM_FisherYates(benchmark::State& state) {
  auto engine = make_bench_engine<Engine>();
  auto deck = make_deck({static_cast<unsigned>(state.range(0)), 0});
  for (auto _ : state) {
    fisher_yates(deck, engine);
    benchmark::DoNotOptimize(deck.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations());
}

template <class Engine>
void BM_Riffle(benchmark::State& state) {
  auto engine = make_bench_engine<Engine>();
  auto deck = make_deck({static_cast<unsigned>(state.range(0)), 0});
  const auto times = static_cast<std::uint64_t>(state.range(1));
  for (auto _ : state) {
    riffle_shuffle(deck, times, engine);
    benchmark::DoNotOptimize(deck.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations());
}

// The literal GSR model (binomial cut + one bounded draw per dropped card), K times.
template <class Engine>
void BM_RiffleByDrops(benchmark::State& state) {
  auto engine = make_bench_engine<Engine>();
  auto deck = make_deck({static_cast<unsigned>(state.range(0)), 0});
  const auto times = state.range(1);
  for (auto _ : state) {
    for (std::int64_t k = 0; k < times; ++k) gsr_riffle_by_drops(deck, engine);
    benchmark::DoNotOptimize(deck.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations());
}

template <class Engine>
void BM_Overhand(benchmark::State& state) {
  auto engine = make_bench_engine<Engine>();
  auto deck = make_deck({static_cast<unsigned>(state.range(0)), 0});
  const auto times = static_cast<std::uint64_t>(state.range(1));
  for (auto _ : state) {
    overhand_shuffle(deck, times, engine);
    benchmark::DoNotOptimize(deck.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations());
}

// Through the run-time dispatch the CLI and the audit use.
void BM_ApplyShuffleSpec(benchmark::State& state, const char* spec_text) {
  auto engine = make_bench_engine<xoshiro256pp>();
  const auto spec = parse_shuffle_spec(spec_text);
  auto deck = make_deck({1, 0});
  for (auto _ : state) {
    apply_shuffle(spec, deck, engine);
    benchmark::DoNotOptimize(deck.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations());
}

// The exact Bayer–Diaconis table for K = 1..20 riffles of `decks` decks.
void BM_RiffleMixingExact(benchmark::State& state) {
  const auto n = static_cast<std::uint64_t>(state.range(0)) * cards_per_deck;
  for (auto _ : state) benchmark::DoNotOptimize(riffle_mixing(n, 20));
}

}  // namespace

BENCHMARK(BM_FisherYates<xoshiro256pp>)->Arg(1)->Arg(8);
BENCHMARK(BM_Riffle<xoshiro256pp>)->Args({1, 7})->Args({8, 7})->Args({1, 1});
BENCHMARK(BM_RiffleByDrops<xoshiro256pp>)->Args({1, 7});
BENCHMARK(BM_Overhand<xoshiro256pp>)->Args({1, 10});
BENCHMARK(BM_FisherYates<chacha20_engine>)->Arg(1);
BENCHMARK(BM_Riffle<chacha20_engine>)->Args({1, 7});
BENCHMARK(BM_RiffleByDrops<chacha20_engine>)->Args({1, 7});
BENCHMARK_CAPTURE(BM_ApplyShuffleSpec, fisher_yates, "fisher-yates");
BENCHMARK_CAPTURE(BM_ApplyShuffleSpec, riffle7, "riffle:7");
BENCHMARK_CAPTURE(BM_ApplyShuffleSpec, riffle3_cut_riffle4, "riffle:3+cut+riffle:4");
BENCHMARK(BM_RiffleMixingExact)->Arg(1)->Arg(8)->Unit(benchmark::kMillisecond);
