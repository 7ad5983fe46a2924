// util/internal/delimiters.hpp: for_each_delimiter finds exactly the offsets a memchr loop
// finds, in order, and count_delimiters equals std::count, for every delimiter byte (0, '\n',
// bytes above 127), every size up to a few 64-byte blocks, every alignment, dense and sparse.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "fairdeck/util/internal/delimiters.hpp"

namespace {

using fairdeck::detail::count_delimiters;
using fairdeck::detail::for_each_delimiter;

std::vector<std::size_t> memchr_offsets(const char* data, std::size_t size, char delim) {
  std::vector<std::size_t> out;
  for (std::size_t at = 0; at < size;) {
    const void* hit = std::memchr(data + at, delim, size - at);
    if (!hit) break;
    out.push_back(static_cast<std::size_t>(static_cast<const char*>(hit) - data));
    at = out.back() + 1;
  }
  return out;
}

std::vector<std::size_t> scanned_offsets(const char* data, std::size_t size, char delim) {
  std::vector<std::size_t> out;
  for_each_delimiter(data, size, delim, [&](std::size_t i) { out.push_back(i); });
  return out;
}

TEST(Delimiters, EveryOffsetAndCountAgreeWithMemchrAndStdCount) {
  std::mt19937_64 rng(20261128);
  std::vector<char> buf(4 * 64 + 80);
  for (const int delim_byte : {0x0a, 0x00, 0xff, 0x80, 0x7f, 0x2c}) {
    const char delim = static_cast<char>(delim_byte);
    for (const unsigned density : {0u, 1u, 8u, 64u, 256u}) {  // delimiters per 256 bytes
      for (auto& c : buf) {
        // the other bytes include the delimiter's neighbours (a compare must be exact)
        const auto r = rng();
        c = (r & 255) < density ? delim : static_cast<char>(delim_byte + 1 - static_cast<int>(r >> 8 & 3));
        if (c == delim && (r & 255) >= density) c = static_cast<char>(delim_byte ^ 0x40);
      }
      for (std::size_t offset = 0; offset < 16; ++offset) {
        for (std::size_t size = 0; offset + size <= buf.size(); size += 1 + size / 16) {
          const char* data = buf.data() + offset;
          ASSERT_EQ(scanned_offsets(data, size, delim), memchr_offsets(data, size, delim))
              << "delimiter " << delim_byte << ", density " << density << ", offset " << offset << ", size " << size;
          ASSERT_EQ(count_delimiters(data, size, delim),
                    static_cast<std::uint64_t>(std::count(data, data + size, delim)))
              << "delimiter " << delim_byte << ", density " << density << ", offset " << offset << ", size " << size;
        }
      }
    }
  }
}

TEST(Delimiters, CountsPastTheEightBitCounters) {
  // All delimiters over many 63-step rounds: every 8-bit counter is folded before it wraps.
  std::vector<char> all(64 * 63 * 5 + 37, '\n');
  EXPECT_EQ(count_delimiters(all.data(), all.size(), '\n'), all.size());
  std::vector<std::size_t> seen;
  for_each_delimiter(all.data(), all.size(), '\n', [&](std::size_t i) { seen.push_back(i); });
  ASSERT_EQ(seen.size(), all.size());
  for (std::size_t i = 0; i < seen.size(); ++i) ASSERT_EQ(seen[i], i);
  EXPECT_EQ(count_delimiters(all.data(), all.size(), 'x'), 0u);
}

}  // namespace
