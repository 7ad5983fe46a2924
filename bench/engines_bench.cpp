// Raw engine throughput (64-bit words) and bounded draws: one word at a time, single
// bounded draws (Lemire) and batched dice (Brackett-Rozinsky & Lemire), against
// std::mt19937_64 and std::uniform_int_distribution in the same binary.
#include <array>
#include <cstdint>
#include <random>

#include <benchmark/benchmark.h>

#include "fairdeck/random/batched.hpp"
#include "fairdeck/random/bounded.hpp"
#include "fairdeck/random/chacha20.hpp"
#include "fairdeck/random/pcg64.hpp"
#include "fairdeck/random/xoshiro256pp.hpp"

namespace {

template <class E>
void words(benchmark::State& state, E& e) {
  std::uint64_t acc = 0;
  for (auto _ : state) {
    for (int i = 0; i < 1024; ++i) acc += e();
    benchmark::DoNotOptimize(acc);
  }
  state.SetItemsProcessed(state.iterations() * 1024);
  state.SetBytesProcessed(state.iterations() * 1024 * 8);
}

void BM_Engine_std_mt19937_64(benchmark::State& state) {
  std::mt19937_64 e(1);
  words(state, e);
}
BENCHMARK(BM_Engine_std_mt19937_64);

void BM_Engine_xoshiro256pp(benchmark::State& state) {
  fairdeck::xoshiro256pp e(1);
  words(state, e);
}
BENCHMARK(BM_Engine_xoshiro256pp);

void BM_Engine_pcg64(benchmark::State& state) {
  fairdeck::pcg64 e(1);
  words(state, e);
}
BENCHMARK(BM_Engine_pcg64);

void BM_Engine_chacha20(benchmark::State& state) {
  fairdeck::chacha20_engine e(fairdeck::key_from_seed(1));
  words(state, e);
}
BENCHMARK(BM_Engine_chacha20);

void BM_Engine_secure(benchmark::State& state) {
  fairdeck::secure_engine e;
  words(state, e);
}
BENCHMARK(BM_Engine_secure);

// Bounded draws below 52 .. 46 (a 7-card deal's dice).
void BM_Bounded_std_uniform_int_distribution(benchmark::State& state) {
  std::mt19937_64 g(1);
  std::uint64_t acc = 0;
  for (auto _ : state) {
    for (std::uint64_t n = 52; n > 45; --n) acc += std::uniform_int_distribution<std::uint64_t>(0, n - 1)(g);
    benchmark::DoNotOptimize(acc);
  }
  state.SetItemsProcessed(state.iterations() * 7);
}
BENCHMARK(BM_Bounded_std_uniform_int_distribution);

void BM_Bounded_lemire_xoshiro(benchmark::State& state) {
  fairdeck::xoshiro256pp e(1);
  std::uint64_t acc = 0;
  for (auto _ : state) {
    for (std::uint64_t n = 52; n > 45; --n) acc += fairdeck::uniform_below(e, n);
    benchmark::DoNotOptimize(acc);
  }
  state.SetItemsProcessed(state.iterations() * 7);
}
BENCHMARK(BM_Bounded_lemire_xoshiro);

void BM_Bounded_batched_xoshiro(benchmark::State& state) {
  namespace fb = fairdeck::batched;
  fairdeck::xoshiro256pp e(1);
  fb::engine_words<fairdeck::xoshiro256pp> next{e};
  const std::array<std::uint64_t, 7> sizes = {52, 51, 50, 49, 48, 47, 46};
  const std::uint64_t product = 52ull * 51 * 50 * 49 * 48 * 47 * 46;
  std::array<std::uint64_t, fb::max_batch> dice{};
  for (auto _ : state) {
    fb::roll_dice<64>(next, sizes.data(), 7, product, dice.data());
    benchmark::DoNotOptimize(dice);
  }
  state.SetItemsProcessed(state.iterations() * 7);
}
BENCHMARK(BM_Bounded_batched_xoshiro);

}  // namespace
