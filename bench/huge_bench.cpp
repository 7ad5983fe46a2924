// Huge arrays: std::shuffle + std::mt19937_64 against fairdeck::huge_shuffle (bucketed,
// cache-aware, 1 or 2 threads) on 10^7 and 10^8 uint32/uint64. Wall time (UseRealTime):
// multi-threaded rows only make sense that way. Run with --benchmark_filter=Huge.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include <benchmark/benchmark.h>

#include "fairdeck/shuffle/fisher_yates.hpp"
#include "fairdeck/shuffle/huge.hpp"

namespace {

template <class T>
std::vector<T> iota_vector(std::int64_t n) {
  std::vector<T> v(static_cast<std::size_t>(n));
  std::iota(v.begin(), v.end(), T{0});
  return v;
}

template <class T>
void BM_Huge_std_shuffle(benchmark::State& state) {
  auto v = iota_vector<T>(state.range(0));
  std::mt19937_64 g(42);
  for (auto _ : state) {
    std::shuffle(v.begin(), v.end(), g);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

template <class T>
void BM_Huge_fisher_yates_xoshiro(benchmark::State& state) {
  auto v = iota_vector<T>(state.range(0));
  fairdeck::xoshiro256pp e(42);
  for (auto _ : state) {
    fairdeck::fisher_yates(v, e);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

template <class T>
void BM_Huge_huge_shuffle(benchmark::State& state) {
  auto v = iota_vector<T>(state.range(0));
  fairdeck::engine_spec spec;
  spec.id = fairdeck::engine_id::xoshiro256pp;
  fairdeck::huge_shuffle_options opt;
  opt.threads = static_cast<unsigned>(state.range(1));
  std::uint64_t seed = 0;
  for (auto _ : state) {
    spec.seed = ++seed;
    fairdeck::huge_shuffle(std::span<T>(v), spec, opt);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void sizes(benchmark::internal::Benchmark* b) {
  b->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);
  for (std::int64_t n : {10'000'000, 100'000'000}) b->Args({n});
}
void sizes_threads(benchmark::internal::Benchmark* b) {
  b->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0)->ArgNames({"n", "threads"});
  for (std::int64_t n : {10'000'000, 100'000'000})
    for (std::int64_t t : {1, 2}) b->Args({n, t});
}

BENCHMARK_TEMPLATE(BM_Huge_std_shuffle, std::uint32_t)->Apply(sizes);
BENCHMARK_TEMPLATE(BM_Huge_fisher_yates_xoshiro, std::uint32_t)->Apply(sizes);
BENCHMARK_TEMPLATE(BM_Huge_huge_shuffle, std::uint32_t)->Apply(sizes_threads);
BENCHMARK_TEMPLATE(BM_Huge_std_shuffle, std::uint64_t)->Apply(sizes);
BENCHMARK_TEMPLATE(BM_Huge_huge_shuffle, std::uint64_t)->Apply(sizes_threads);

}  // namespace
