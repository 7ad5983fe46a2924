// fairdeck certify's battery throughput on raw 64-bit words (bytes/s), against the engine
// that produces them (the baseline in the same run): the issue asks for >= 1 GB per minute.
#include <benchmark/benchmark.h>

#include <vector>

#include "fairdeck/certify/battery.hpp"
#include "fairdeck/random/xoshiro256pp.hpp"

namespace {

constexpr std::size_t block = 1 << 16;

std::vector<std::uint64_t> words(std::size_t n) {
  fairdeck::xoshiro256pp rng(1);
  std::vector<std::uint64_t> v(n);
  for (auto& x : v) x = rng();
  return v;
}

// Baseline: generating the words.
void BM_engine_words(benchmark::State& state) {
  fairdeck::xoshiro256pp rng(1);
  std::vector<std::uint64_t> v(block);
  for (auto _ : state) {
    for (auto& x : v) x = rng();
    benchmark::DoNotOptimize(v.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * block * 8));
}
BENCHMARK(BM_engine_words);

// The whole raw battery (every test, birthday spacings at 2^60 cells included).
void BM_battery_raw64(benchmark::State& state) {
  const auto v = words(block);
  fairdeck::certify::battery b(fairdeck::certify::stream_spec::raw_words(64));
  for (auto _ : state) b.feed(v);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * block * 8));
}
BENCHMARK(BM_battery_raw64)->MinTime(2.0);

// A whole small report: a new battery, 2^16 words, results. Here the linear-complexity test's
// Berlekamp–Massey (quadratic, on the first 5,000 blocks of 1,000 bits) is most of the time.
void BM_battery_report_2e16(benchmark::State& state) {
  const auto v = words(block);
  for (auto _ : state) {
    fairdeck::certify::battery b(fairdeck::certify::stream_spec::raw_words(64));
    b.feed(v);
    benchmark::DoNotOptimize(b.results());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * block * 8));
}
BENCHMARK(BM_battery_report_2e16)->MinTime(2.0);

// Scaled draws in [0, 52).
void BM_battery_scaled52(benchmark::State& state) {
  auto v = words(block);
  for (auto& x : v) x %= 52;
  fairdeck::certify::battery b(fairdeck::certify::stream_spec::scaled(52));
  for (auto _ : state) b.feed(v);
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * block));
}
BENCHMARK(BM_battery_scaled52)->MinTime(2.0);

}  // namespace
