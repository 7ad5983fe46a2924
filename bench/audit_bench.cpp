// The audit's hot loop: shuffle a fresh 52-card deck and count it (position x card matrix,
// successions, rising sequences, serial pairs). Items are deals; compare the count-only and shuffle-only
// baselines measured in the same run. Target: 10^8 Fisher-Yates deals in <= 15 s on 2 cores,
// i.e. >= 6.7M deals/s from BM_CountDeals/threads:2.
#include <benchmark/benchmark.h>

#include <numeric>
#include <vector>

#include "fairdeck/random/engine_registry.hpp"
#include "fairdeck/shuffle/algorithm.hpp"
#include "fairdeck/stats/audit.hpp"

namespace {

using namespace fairdeck;

constexpr std::size_t deck_size = 52;

// Baseline: shuffling alone (fresh canonical deck each time), no counting.
template <class Engine>
void shuffle_only(benchmark::State& state, Engine engine) {
  std::vector<card_t> deck(deck_size);
  for (auto _ : state) {
    std::iota(deck.begin(), deck.end(), card_t{0});
    fisher_yates(deck, engine);
    benchmark::DoNotOptimize(deck.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations());
}

// Shuffle + count: the per-deal cost of the audit on one core.
template <class Engine>
void shuffle_and_count(benchmark::State& state, Engine engine) {
  std::vector<card_t> deck(deck_size);
  stats::chunk_counter counter(deck_size);
  stats::audit_counts total(deck_size);
  std::uint64_t pending = 0;
  for (auto _ : state) {
    std::iota(deck.begin(), deck.end(), card_t{0});
    fisher_yates(deck, engine);
    counter.add(deck);
    if (++pending == stats::audit_chunk_deals) {
      counter.flush_into(total);
      pending = 0;
    }
  }
  counter.flush_into(total);
  benchmark::DoNotOptimize(total.position_card.data());
  state.SetItemsProcessed(state.iterations());
}

// Counting alone, on a fixed pre-shuffled deck: what the tallies cost.
void BM_CountOnly(benchmark::State& state) {
  std::vector<card_t> deck(deck_size);
  std::iota(deck.begin(), deck.end(), card_t{0});
  xoshiro256pp e(3);
  fisher_yates(deck, e);
  stats::chunk_counter counter(deck_size);
  for (auto _ : state) {
    counter.add(deck);
    benchmark::ClobberMemory();
  }
  stats::audit_counts total(deck_size);
  counter.flush_into(total);
  benchmark::DoNotOptimize(total.position_card.data());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_CountOnly);

void BM_ShuffleOnly_Xoshiro(benchmark::State& s) { shuffle_only(s, xoshiro256pp(1)); }
void BM_ShuffleAndCount_Xoshiro(benchmark::State& s) { shuffle_and_count(s, xoshiro256pp(1)); }
void BM_ShuffleOnly_ChaCha20(benchmark::State& s) { shuffle_only(s, chacha20_engine(key_from_seed(1))); }
void BM_ShuffleAndCount_ChaCha20(benchmark::State& s) { shuffle_and_count(s, chacha20_engine(key_from_seed(1))); }
BENCHMARK(BM_ShuffleOnly_Xoshiro);
BENCHMARK(BM_ShuffleAndCount_Xoshiro);
BENCHMARK(BM_ShuffleOnly_ChaCha20);
BENCHMARK(BM_ShuffleAndCount_ChaCha20);

// The library entry point the CLI uses: chunks, streams, threads and merging included.
// Arg 0: engine (0 xoshiro256pp, 1 chacha20); arg 1: threads. 2^22 deals per iteration.
void BM_CountDeals(benchmark::State& state) {
  const engine_spec eng{state.range(0) == 0 ? engine_id::xoshiro256pp : engine_id::chacha20, 42, {}};
  const stats::audit_subject subject{{shuffle_kind::fisher_yates, 0}, eng};
  constexpr std::uint64_t deals = std::uint64_t{1} << 22;
  for (auto _ : state) {
    auto counts = stats::count_deals(subject, deck_size, deals, static_cast<unsigned>(state.range(1)));
    benchmark::DoNotOptimize(counts.position_card.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(deals));
}
BENCHMARK(BM_CountDeals)->ArgNames({"chacha", "threads"})->Args({0, 1})->Args({0, 2})->Args({1, 1})->Args({1, 2})
    ->UseRealTime()->Unit(benchmark::kMillisecond);

// The statistics after counting (n = 52): negligible next to counting.
void BM_AnalyzeCounts(benchmark::State& state) {
  const stats::audit_subject subject{{shuffle_kind::fisher_yates, 0}, engine_spec{engine_id::xoshiro256pp, 1, {}}};
  stats::audit_result r;
  r.counts = stats::count_deals(subject, deck_size, 100'000, 1);
  r.deck = deck_spec{};
  r.cards = make_deck(r.deck);
  for (auto _ : state) {
    stats::analyze(r, 1e-4);
    benchmark::DoNotOptimize(r.decision.worst_p);
  }
}
BENCHMARK(BM_AnalyzeCounts)->Unit(benchmark::kMicrosecond);

}  // namespace
