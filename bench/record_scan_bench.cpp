// Finding record delimiters (util/internal/delimiters.hpp) against what shuffle-file did
// before: one memchr call per record and std::count over the bytes, in the same binary.
// Input: 8 MiB of lines like shuffle-file's benchmark file (bench/shuffle_file_bench.sh:
// "record 000000123 some payload text 861", ~44 bytes), so the data sits in L3, not RAM,
// and the rows compare the scans themselves. Items are bytes (bytes_per_second).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#include <benchmark/benchmark.h>

#include "fairdeck/util/internal/delimiters.hpp"

namespace {

const std::string& lines() {
  static const std::string text = [] {
    std::string t;
    for (std::uint64_t i = 0; t.size() < (std::size_t{8} << 20); ++i)
      t += "record " + std::to_string(1000000000 + i).substr(1) + " some payload text " + std::to_string(i * 7) + "\n";
    return t;
  }();
  return text;
}

void BM_RecordEnds_MemchrPerRecord(benchmark::State& state) {
  const std::string& t = lines();
  for (auto _ : state) {
    std::uint64_t sum = 0;
    for (std::size_t at = 0; at < t.size();) {
      const auto* end = static_cast<const char*>(std::memchr(t.data() + at, '\n', t.size() - at));
      const auto stop = static_cast<std::size_t>(end - t.data());
      sum += stop - at;
      at = stop + 1;
    }
    benchmark::DoNotOptimize(sum);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * t.size()));
}
BENCHMARK(BM_RecordEnds_MemchrPerRecord);

void BM_RecordEnds_MaskScan(benchmark::State& state) {
  const std::string& t = lines();
  for (auto _ : state) {
    std::uint64_t sum = 0, at = 0;
    fairdeck::detail::for_each_delimiter(t.data(), t.size(), '\n', [&](std::size_t stop) {
      sum += stop - at;
      at = stop + 1;
    });
    benchmark::DoNotOptimize(sum);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * t.size()));
}
BENCHMARK(BM_RecordEnds_MaskScan);

void BM_RecordCount_StdCount(benchmark::State& state) {
  const std::string& t = lines();
  for (auto _ : state) benchmark::DoNotOptimize(std::count(t.data(), t.data() + t.size(), '\n'));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * t.size()));
}
BENCHMARK(BM_RecordCount_StdCount);

void BM_RecordCount_ByteCounters(benchmark::State& state) {
  const std::string& t = lines();
  for (auto _ : state) benchmark::DoNotOptimize(fairdeck::detail::count_delimiters(t.data(), t.size(), '\n'));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * t.size()));
}
BENCHMARK(BM_RecordCount_ByteCounters);

}  // namespace
