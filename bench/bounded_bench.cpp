// Bounded integers: Lemire's multiply-and-reject (fairdeck::uniform_below) against
// std::uniform_int_distribution and the biased `x % n`, all on the same engines.
#include <benchmark/benchmark.h>

#include <random>

#include "fairdeck/random/bounded.hpp"
#include "fairdeck/random/pcg64.hpp"
#include "fairdeck/random/xoshiro256pp.hpp"

namespace {

// Bounds cycle through 52..2 as in a Fisher-Yates pass, so no bound is a constant.
template <class Engine>
void BM_UniformBelow(benchmark::State& state) {
  Engine e(42);
  std::uint64_t sink = 0;
  for (auto _ : state)
    for (std::uint64_t n = 52; n > 1; --n) sink += fairdeck::uniform_below(e, n);
  benchmark::DoNotOptimize(sink);
  state.SetItemsProcessed(state.iterations() * 51);
}

template <class Engine>
void BM_StdUniformIntDistribution(benchmark::State& state) {
  Engine e(42);
  std::uint64_t sink = 0;
  for (auto _ : state)
    for (std::uint64_t n = 52; n > 1; --n) sink += std::uniform_int_distribution<std::uint64_t>(0, n - 1)(e);
  benchmark::DoNotOptimize(sink);
  state.SetItemsProcessed(state.iterations() * 51);
}

template <class Engine>
void BM_BiasedModulo(benchmark::State& state) {
  Engine e(42);
  std::uint64_t sink = 0;
  for (auto _ : state)
    for (std::uint64_t n = 52; n > 1; --n) sink += static_cast<std::uint64_t>(e()) % n;
  benchmark::DoNotOptimize(sink);
  state.SetItemsProcessed(state.iterations() * 51);
}

}  // namespace

BENCHMARK(BM_UniformBelow<std::mt19937_64>);
BENCHMARK(BM_StdUniformIntDistribution<std::mt19937_64>);
BENCHMARK(BM_BiasedModulo<std::mt19937_64>);
BENCHMARK(BM_UniformBelow<fairdeck::xoshiro256pp>);
BENCHMARK(BM_StdUniformIntDistribution<fairdeck::xoshiro256pp>);
BENCHMARK(BM_UniformBelow<fairdeck::pcg64>);
BENCHMARK(BM_UniformBelow<std::mt19937>);
BENCHMARK(BM_StdUniformIntDistribution<std::mt19937>);
