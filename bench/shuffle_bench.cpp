// 52-card shuffles and 7-card deals: fairdeck's engines and algorithms against
// std::shuffle / std::uniform_int_distribution with std::mt19937_64 in the same binary.
// Compare the rows' times (ratios), not absolute numbers: `fairdeck bench` prints ratios.
#include <algorithm>
#include <array>
#include <cstdint>
#include <numeric>
#include <random>

#include <benchmark/benchmark.h>

#include "fairdeck/random/chacha20.hpp"
#include "fairdeck/random/pcg64.hpp"
#include "fairdeck/random/xoshiro256pp.hpp"
#include "fairdeck/shuffle/fisher_yates.hpp"
#include "fairdeck/shuffle/partial_shuffle.hpp"

namespace {

using deck52 = std::array<std::uint16_t, 52>;

deck52 fresh_deck() {
  deck52 d{};
  std::iota(d.begin(), d.end(), std::uint16_t{0});
  return d;
}

void BM_std_shuffle_mt19937_64(benchmark::State& state) {
  std::mt19937_64 g(42);
  auto deck = fresh_deck();
  for (auto _ : state) {
    std::shuffle(deck.begin(), deck.end(), g);
    benchmark::DoNotOptimize(deck.data());
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_std_shuffle_mt19937_64);

void BM_fisher_yates_xoshiro(benchmark::State& state) {
  fairdeck::xoshiro256pp e(42);
  auto deck = fresh_deck();
  for (auto _ : state) {
    fairdeck::fisher_yates(deck, e);
    benchmark::DoNotOptimize(deck.data());
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_fisher_yates_xoshiro);

void BM_fisher_yates_pcg64(benchmark::State& state) {
  fairdeck::pcg64 e(42);
  auto deck = fresh_deck();
  for (auto _ : state) {
    fairdeck::fisher_yates(deck, e);
    benchmark::DoNotOptimize(deck.data());
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_fisher_yates_pcg64);

void BM_fisher_yates_chacha20(benchmark::State& state) {
  fairdeck::chacha20_engine e(fairdeck::key_from_seed(42));
  auto deck = fresh_deck();
  for (auto _ : state) {
    fairdeck::fisher_yates(deck, e);
    benchmark::DoNotOptimize(deck.data());
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_fisher_yates_chacha20);

void BM_fisher_yates_secure(benchmark::State& state) {
  fairdeck::secure_engine e;
  auto deck = fresh_deck();
  for (auto _ : state) {
    fairdeck::fisher_yates(deck, e);
    benchmark::DoNotOptimize(deck.data());
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_fisher_yates_secure);

// Baseline for dealing: seven std::uniform_int_distribution draws (forward partial
// Fisher–Yates), as code written against <random> would do it.
void BM_deal7_std_uniform_int_mt19937_64(benchmark::State& state) {
  std::mt19937_64 g(42);
  auto deck = fresh_deck();
  for (auto _ : state) {
    for (std::size_t i = 0; i < 7; ++i) {
      std::uniform_int_distribution<std::size_t> d(i, deck.size() - 1);
      std::swap(deck[i], deck[d(g)]);
    }
    benchmark::DoNotOptimize(deck.data());
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_deal7_std_uniform_int_mt19937_64);

void BM_deal7_xoshiro(benchmark::State& state) {
  fairdeck::xoshiro256pp e(42);
  auto deck = fresh_deck();
  for (auto _ : state) {
    fairdeck::partial_shuffle(deck, 7, e);
    benchmark::DoNotOptimize(deck.data());
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_deal7_xoshiro);

void BM_deal7_secure(benchmark::State& state) {
  fairdeck::secure_engine e;
  auto deck = fresh_deck();
  for (auto _ : state) {
    fairdeck::partial_shuffle(deck, 7, e);
    benchmark::DoNotOptimize(deck.data());
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_deal7_secure);

}  // namespace
