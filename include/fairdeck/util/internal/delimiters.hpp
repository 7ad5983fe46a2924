// Finding the delimiters that end records in a byte range: the bulk path of shuffle-file
// (src/shuffle/external_bulk.cpp) and the record reader's mapped and read blocks
// (src/util/record_io.cpp).
//
// for_each_delimiter is the structural-index step of simdjson (G. Langdale, D. Lemire,
// "Parsing gigabytes of JSON per second", VLDB Journal 28(6), 2019, stage 1): compare 64
// bytes with the delimiter at once, pack the comparisons into a 64-bit mask (SSE2: four
// pcmpeqb + pmovmskb; SSE2 is part of every x86-64 CPU, so no run-time dispatch), then take
// the set bits lowest first (count trailing zeros, clear the lowest bit). Against one memchr
// call per record it drops the call and memchr's start-up, which dominate short records
// (shuffle-file's lines are often under 100 bytes): bench/record_scan_bench.cpp.
//
// count_delimiters counts with byte counters: each compare (0 or -1 per byte) is subtracted
// from a vector of 8-bit counts, folded into 64-bit sums by psadbw before a count can reach
// 256. std::count over bytes returns a 64-bit count, and g++ widens every byte to a 64-bit
// lane to vectorise it: 1.7 GB/s against 19.2 (bench/record_scan_bench.cpp, Intel Xeon).
//
// for_each_record splits a block of whole records (fixed-size or delimited) with it.
//
// Guarantee: for_each_delimiter calls f(offset) for exactly the offsets memchr would find,
// in increasing order, and count_delimiters equals std::count, for every delimiter byte
// (0 and bytes above 127 included), size and alignment (tests/delimiters_test.cpp checks
// both against those references). Other CPUs run memchr and std::count themselves.
// Complexity: O(size) reads of the range, plus O(1) per delimiter.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace fairdeck::detail {

#if defined(__SSE2__)
// Bit i set where p[i] == the delimiter (d holds it in every byte), for the 64 bytes at p.
inline std::uint64_t delimiter_mask64(const char* p, __m128i d) noexcept {
  const auto m = [&](int k) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
    return static_cast<std::uint64_t>(static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, d))));
  };
  return m(0) | m(1) << 16 | m(2) << 32 | m(3) << 48;
}
#endif

// Calls f(i) for every i in [0, size) with data[i] == delim, in increasing order.
template <class F>
void for_each_delimiter(const char* data, std::size_t size, char delim, F&& f) {
  std::size_t base = 0;
#if defined(__SSE2__)
  const __m128i d = _mm_set1_epi8(delim);
  for (; size - base >= 64; base += 64) {
    for (std::uint64_t m = delimiter_mask64(data + base, d); m != 0; m &= m - 1)
      f(base + static_cast<std::size_t>(std::countr_zero(m)));
  }
#endif
  const char* const end = data + size;
  for (const char* p = data + base; p < end; ++p) {
    p = static_cast<const char*>(std::memchr(p, delim, static_cast<std::size_t>(end - p)));
    if (p == nullptr) break;
    f(static_cast<std::size_t>(p - data));
  }
}

// The number of bytes in [data, data + size) equal to delim (std::count's answer).
inline std::uint64_t count_delimiters(const char* data, std::size_t size, char delim) noexcept {
  std::uint64_t total = 0;
  std::size_t i = 0;
#if defined(__SSE2__)
  const __m128i d = _mm_set1_epi8(delim), zero = _mm_setzero_si128();
  while (size - i >= 64) {
    // four compares a step, so each 8-bit counter gains at most 4: 63 steps stay below 256
    const std::size_t steps = std::min<std::size_t>((size - i) / 64, 63);
    __m128i counts = zero;
    for (std::size_t s = 0; s < steps; ++s, i += 64) {
      for (int k = 0; k < 4; ++k) {
        const __m128i v = _mm_loadu_si128(
            reinterpret_cast<const __m128i*>(data + i + 16 * static_cast<std::size_t>(k)));
        counts = _mm_sub_epi8(counts, _mm_cmpeq_epi8(v, d));
      }
    }
    const __m128i sums = _mm_sad_epu8(counts, zero);  // two 64-bit sums of 8 counters each
    total += static_cast<std::uint64_t>(_mm_cvtsi128_si64(sums)) +
             static_cast<std::uint64_t>(_mm_cvtsi128_si64(_mm_unpackhi_epi64(sums, sums)));
  }
#endif
  return total + static_cast<std::uint64_t>(std::count(data + i, data + size, delim));
}

// Calls f(start, length) for each record of a block of whole records: record_size bytes each,
// or (record_size 0) each ending with delim, the block's last byte being one.
template <class F>
void for_each_record(const char* data, std::uint64_t size, std::uint64_t record_size, char delim, F&& f) {
  if (record_size) {
    for (std::uint64_t at = 0; at < size; at += record_size) f(at, record_size);
    return;
  }
  std::uint64_t at = 0;
  for_each_delimiter(data, static_cast<std::size_t>(size), delim, [&](std::size_t stop) {
    f(at, stop - at);
    at = stop + 1;
  });
}

}  // namespace fairdeck::detail
