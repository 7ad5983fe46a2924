// fairdeck::shuffle_records (shuffle/external.hpp): exact uniformity through the external
// path with a tiny memory budget (several bucket levels), the same order for every budget
// (in memory vs external), sampling = the shuffle's first K, uniform tie-breaking, and the
// size parser.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <boost/math/distributions/chi_squared.hpp>
#include <gtest/gtest.h>

#include "../src/shuffle/external_parts.hpp"
#include "test_support.hpp"
#include "fairdeck/shuffle/external.hpp"
#include "fairdeck/util/byte_size.hpp"

namespace {

using namespace fairdeck;

class vector_source final : public record_source {
 public:
  // bulk: offer record_source's bulk reading (its generic read_records over next()), so
  // shuffle_records takes its bulk path
  explicit vector_source(std::vector<std::string> v, bool bulk = false) : v_(std::move(v)), bulk_(bulk) {}
  [[nodiscard]] std::optional<record_format> bulk_format() const override {
    return bulk_ ? std::optional<record_format>(record_format{}) : std::nullopt;
  }
  bool next(std::string_view& r) override {
    if (i_ == v_.size()) return false;
    bytes_ += v_[i_].size() + 1;
    r = v_[i_++];
    return true;
  }
  [[nodiscard]] std::uint64_t bytes_read() const override { return bytes_; }
  [[nodiscard]] std::optional<std::uint64_t> size_hint() const override { return std::nullopt; }

 private:
  std::vector<std::string> v_;
  bool bulk_;
  std::size_t i_ = 0;
  std::uint64_t bytes_ = 0;
};

class vector_sink final : public record_sink {
 public:
  void put(std::string_view r) override { out.emplace_back(r); }
  std::vector<std::string> out;
};

std::vector<std::string> numbers(int n) {
  std::vector<std::string> v;
  for (int i = 0; i < n; ++i) v.push_back(std::to_string(i));
  return v;
}

engine_spec seeded(std::uint64_t seed) {
  engine_spec s;
  s.id = engine_id::chacha20;
  s.seed = seed;
  return s;
}

std::vector<std::string> run(const std::vector<std::string>& in, std::uint64_t seed, std::uint64_t memory,
                             external_shuffle_stats* stats = nullptr, std::optional<std::uint64_t> sample = {},
                             unsigned threads = 1, std::uint64_t header = 0, bool bulk = false) {
  vector_source src(in, bulk);
  vector_sink sink;
  external_shuffle_options o;
  o.memory_bytes = memory;
  o.threads = threads;
  o.sample = sample;
  o.header = header;
  const auto st = shuffle_records(src, sink, seeded(seed), o);
  if (stats) *stats = st;
  return sink.out;
}

// Upper critical value of chi-square with `df` degrees of freedom at false-failure rate 1e-6.
double critical(double df) { return boost::math::quantile(boost::math::complement(boost::math::chi_squared(df), 1e-6)); }

double chi_square(const std::map<std::string, int>& counts, double cells, double trials) {
  const double expect = trials / cells;
  double x = 0;
  for (const auto& [k, c] : counts) x += (c - expect) * (c - expect) / expect;
  x += (cells - static_cast<double>(counts.size())) * expect;  // cells never seen
  return x;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += x + ",";
  return s;
}

}  // namespace

// 4 records, 64-byte budget: every bucket holding two or more records is scattered again, so
// runs go through 2-4 bucket levels. All 24 orders must be equally likely (chi-square, 23 df,
// false-failure rate 1e-6 with these fixed seeds), and every seed's order must equal the
// in-memory order for that seed.
TEST(ExternalShuffle, ExternalPathIsExactlyUniformAndEqualsInMemory) {
  const auto in = numbers(4);
  const int trials = 4800;
  std::map<std::string, int> counts;
  unsigned max_passes = 0;
  std::uint64_t max_buckets = 0;
  for (int s = 0; s < trials; ++s) {
    external_shuffle_stats ext, mem;
    const auto a = run(in, static_cast<std::uint64_t>(s), 64, &ext);
    const auto b = run(in, static_cast<std::uint64_t>(s), 64u << 20, &mem);
    ASSERT_EQ(a, b) << "seed " << s;
    ASSERT_EQ(mem.passes, 1u);
    ASSERT_GE(ext.passes, 2u);
    max_passes = std::max(max_passes, ext.passes);
    max_buckets = std::max(max_buckets, ext.buckets);
    ++counts[joined(a)];
  }
  EXPECT_GE(max_passes, 3u);  // recursive splits happened
  EXPECT_GE(max_buckets, 4u);
  EXPECT_EQ(counts.size(), 24u);
  EXPECT_LT(chi_square(counts, 24, trials), critical(23));
}

// Same order for every budget and thread count, on enough records for many buckets.
TEST(ExternalShuffle, OrderDoesNotDependOnMemoryOrThreads) {
  const auto in = numbers(50000);
  external_shuffle_stats st;
  const auto ref = run(in, 7, 256u << 20, &st, {}, 1);
  EXPECT_EQ(st.passes, 1u);
  EXPECT_EQ(st.buckets, 0u);
  for (const std::uint64_t memory : {std::uint64_t{512} << 10, std::uint64_t{200} << 10, std::uint64_t{64} << 10, std::uint64_t{20} << 10}) {
    for (const unsigned threads : {1u, 2u, 3u}) {
      const auto out = run(in, 7, memory, &st, {}, threads);
      EXPECT_EQ(out, ref) << memory << " bytes, " << threads << " threads";
      EXPECT_GE(st.passes, 2u) << memory;
      EXPECT_GE(st.buckets, 2u) << memory;
      if (memory >= (64u << 10)) {  // below: the 4 KiB minimum buffers dominate
        EXPECT_LE(st.peak_reserved_bytes, memory) << memory;
      }
    }
  }
  auto sorted = ref;
  std::sort(sorted.begin(), sorted.end());
  auto expect = in;
  std::sort(expect.begin(), expect.end());
  EXPECT_EQ(sorted, expect);
  EXPECT_NE(ref, in);
}

// -n K: exactly the first K records of the full shuffle, for every seed; every ordered
// pair of 5 records equally likely (chi-square, 19 df, 1e-6).
TEST(ExternalShuffle, SampleIsThePrefixOfTheShuffleAndUniform) {
  const auto in = numbers(5);
  std::map<std::string, int> counts;
  const int trials = 4000;
  for (int s = 0; s < trials; ++s) {
    const auto full = run(in, static_cast<std::uint64_t>(s), 1u << 20);
    const auto two = run(in, static_cast<std::uint64_t>(s), 1u << 20, nullptr, 2);
    ASSERT_EQ(two, std::vector<std::string>(full.begin(), full.begin() + 2));
    ++counts[joined(two)];
  }
  EXPECT_EQ(counts.size(), 20u);
  EXPECT_LT(chi_square(counts, 20, trials), critical(19));
  EXPECT_EQ(run(in, 3, 1u << 20, nullptr, 0).size(), 0u);
  EXPECT_EQ(run(in, 3, 1u << 20, nullptr, 9), run(in, 3, 1u << 20));  // K >= n: everything
  const auto big = numbers(5000);
  const auto full = run(big, 9, 64u << 10);
  EXPECT_EQ(run(big, 9, 64u << 10, nullptr, 100), std::vector<std::string>(full.begin(), full.begin() + 100));
}

TEST(ExternalShuffle, HeaderStaysInPlace) {
  const auto in = numbers(1000);
  for (const std::uint64_t memory : {std::uint64_t{1} << 20, std::uint64_t{8} << 10}) {
    const auto out = run(in, 5, memory, nullptr, {}, 1, 3);
    ASSERT_EQ(out.size(), 1000u);
    EXPECT_EQ(out[0], "0");
    EXPECT_EQ(out[1], "1");
    EXPECT_EQ(out[2], "2");
    // the rest is the shuffle of records 3.. with keys counted from 0 after the header
    const auto rest = run(std::vector<std::string>(in.begin() + 3, in.end()), 5, 1u << 20);
    EXPECT_EQ(std::vector<std::string>(out.begin() + 3, out.end()), rest);
  }
  EXPECT_EQ(run(numbers(2), 1, 1u << 20, nullptr, {}, 1, 5), numbers(2));  // header longer than the input
}

// Equal keys (about n^2/2^64 likely, so forced here through the sort itself): sorted by
// key, each group shuffled uniformly — every order of a 3-record tie group equally likely.
TEST(ExternalShuffle, TiesAreBrokenUniformly) {
  using fairdeck::detail::item;
  std::map<std::string, int> counts;
  const int trials = 3000;
  for (int s = 0; s < trials; ++s) {
    std::vector<std::uint64_t> keys = {9, 5, static_cast<std::uint64_t>(100 + s), 5, 1, 5};
    std::vector<item> items(keys.size());
    std::vector<std::uint64_t> scratch;
    auto for_each = [&](auto&& emit) {
      for (std::size_t i = 0; i < keys.size(); ++i) emit(keys[i], i);
    };
    fairdeck::detail::sort_items(std::span<item>(items), 0, 0, for_each, seeded(1), 2, scratch);
    for (std::size_t i = 1; i < items.size(); ++i) ASSERT_LE(items[i - 1].key, items[i].key);
    ASSERT_EQ(items[0].pos, 4u);
    std::string group;
    for (std::size_t i = 1; i < 4; ++i) group += std::to_string(items[i].pos);
    ++counts[group];
  }
  // key 100+s varies the tie stream? No: the group's stream is (seed, key 5) — the same in
  // every trial — so vary the engine seed instead below; this loop checks determinism.
  EXPECT_EQ(counts.size(), 1u);
  counts.clear();
  for (int s = 0; s < trials; ++s) {
    std::vector<std::uint64_t> keys = {5, 5, 5};
    std::vector<item> items(3);
    std::vector<std::uint64_t> scratch;
    auto for_each = [&](auto&& emit) {
      for (std::size_t i = 0; i < keys.size(); ++i) emit(keys[i], i);
    };
    fairdeck::detail::sort_items(std::span<item>(items), 0, 0, for_each, seeded(static_cast<std::uint64_t>(s)), 1, scratch);
    std::string group;
    for (const auto& it : items) group += std::to_string(it.pos);
    ++counts[group];
  }
  EXPECT_EQ(counts.size(), 6u);
  EXPECT_LT(chi_square(counts, 6, trials), critical(5));
}

// The bulk path (sources with a bulk format: files): with a 64-byte budget it goes through
// bucket files, split again in turn; every seed's order equals the record-at-a-time
// path's, and all 24 orders of 4 records are equally likely (chi-square, 23 df, 1e-6).
TEST(ExternalShuffle, BulkPathIsExactlyUniformAndEqualsTheRecordPath) {
  const auto in = numbers(4);
  const int trials = 2400;
  std::map<std::string, int> counts;
  for (int s = 0; s < trials; ++s) {
    external_shuffle_stats ext, mem;
    const auto a = run(in, static_cast<std::uint64_t>(s), 64, &ext, {}, 1 + s % 2, 0, true);
    const auto b = run(in, static_cast<std::uint64_t>(s), 64u << 20, &mem, {}, 1, 0, true);
    ASSERT_EQ(a, b) << "seed " << s;
    ASSERT_EQ(a, run(in, static_cast<std::uint64_t>(s), 64u << 20)) << "seed " << s;
    ASSERT_EQ(mem.passes, 1u);
    ASSERT_GE(ext.passes, 2u);
    ++counts[joined(a)];
  }
  EXPECT_EQ(counts.size(), 24u);
  EXPECT_LT(chi_square(counts, 24, trials), critical(23));
}

// Bulk path: the same order as the record path for every budget and thread count, memory
// within the budget, and the header kept in place.
TEST(ExternalShuffle, BulkPathOrderDoesNotDependOnMemoryOrThreads) {
  const auto in = numbers(50000);
  const auto ref = run(in, 7, 256u << 20);
  external_shuffle_stats st;
  for (const std::uint64_t memory : {std::uint64_t{256} << 20, std::uint64_t{4} << 20, std::uint64_t{512} << 10,
                                     std::uint64_t{200} << 10, std::uint64_t{64} << 10, std::uint64_t{20} << 10}) {
    for (const unsigned threads : {1u, 2u, 3u}) {
      const auto out = run(in, 7, memory, &st, {}, threads, 0, true);
      EXPECT_EQ(out, ref) << memory << " bytes, " << threads << " threads";
      EXPECT_EQ(st.records, in.size());
      EXPECT_EQ(st.output_records, in.size());
      if (memory >= (64u << 10)) {
        EXPECT_LE(st.peak_reserved_bytes, memory) << memory << " bytes, " << threads << " threads";
      }
      if (memory <= (512u << 10)) {
        EXPECT_GE(st.passes, 2u) << memory;
      } else {
        EXPECT_EQ(st.passes, 1u) << memory;
      }
    }
  }
  const auto head = run(in, 5, 8u << 10, nullptr, {}, 2, 3, true);
  EXPECT_EQ(std::vector<std::string>(head.begin(), head.begin() + 3), numbers(3));
  EXPECT_EQ(head, run(in, 5, 1u << 20, nullptr, {}, 1, 3));
}

// Bulk path in memory: a record's position holds its length when that is below the largest
// value its low bits take (13 bits with 64 MiB blocks, 16 with smaller ones); longer records
// have their end searched for. Records of every class, at and around both limits, come out
// exactly as the record path puts them, for budgets that make either kind of block.
TEST(ExternalShuffle, BulkPathKeepsRecordsOfEveryLength) {
  std::vector<std::string> in;
  for (int rep = 0; rep < 6; ++rep) {
    for (const std::size_t len : {std::size_t{0}, std::size_t{1}, std::size_t{43}, std::size_t{8190}, std::size_t{8191},
                                  std::size_t{8192}, std::size_t{8193}, std::size_t{20000}, std::size_t{65534},
                                  std::size_t{65535}, std::size_t{65536}, std::size_t{65537}, std::size_t{100000}}) {
      std::string r = len >= 8 ? std::to_string(in.size()) + ":" : "";
      r.resize(len, static_cast<char>('a' + in.size() % 26));
      in.push_back(r);
    }
  }
  for (const std::uint64_t memory : {std::uint64_t{512} << 20, std::uint64_t{16} << 20}) {
    const auto ref = run(in, 11, memory);
    for (const unsigned threads : {1u, 2u}) {
      external_shuffle_stats st;
      EXPECT_EQ(run(in, 11, memory, &st, {}, threads, 0, true), ref) << memory << " bytes, " << threads << " threads";
      EXPECT_EQ(st.passes, 1u) << memory;
    }
  }
}

// A bucket file with a large buffer writes whole pages with O_DIRECT (where the file system
// takes it) and its tail through the cache; a small buffer stays buffered. Either way the
// bytes read back are exactly the records appended, including ones split across buffers
// and ones longer than the buffer.
TEST(BucketFile, DirectAndBufferedWritesReadBackExactly) {
  const fairdeck::testing::temp_dir dir;
  for (const std::uint64_t buffer : {std::uint64_t{4096}, detail::bucket_file::direct_min_buffer, std::uint64_t{1} << 20}) {
    detail::ledger mem;
    external_shuffle_stats stats;
    detail::bucket_file f(dir.path.string(), buffer, mem, stats);
    if (buffer < detail::bucket_file::direct_min_buffer) {
      EXPECT_FALSE(f.direct());
    }
    if (buffer >= detail::bucket_file::direct_min_buffer && !f.direct())
      std::cout << "note: " << dir.path << " refuses O_DIRECT; the buffered path is tested twice\n";
    std::vector<std::pair<std::uint64_t, std::string>> want;
    for (std::uint64_t i = 0; i < 40000; ++i) {
      const std::size_t len = i % 997 == 0 ? (i * 7919) % (3 * buffer) : i % 61;
      want.emplace_back(i * 0x9E3779B97F4A7C15ull, std::string(len, static_cast<char>('a' + i % 26)));
      f.append(want.back().first, want.back().second);
    }
    f.flush();
    EXPECT_FALSE(f.direct());
    std::string back(static_cast<std::size_t>(f.size()), '\0');
    f.read(0, back.data(), f.size());
    const auto* p = reinterpret_cast<const std::uint8_t*>(back.data());
    const auto* end = p + back.size();
    std::size_t k = 0;
    for (; p < end && k < want.size(); ++k) {
      std::uint64_t key, len;
      std::memcpy(&key, p, 8);
      p = detail::get_varint(p + 8, len);
      ASSERT_EQ(key, want[k].first) << k;
      ASSERT_EQ(std::string_view(reinterpret_cast<const char*>(p), len), want[k].second) << k;
      p += len;
    }
    EXPECT_EQ(k, want.size());
    EXPECT_EQ(p, end);
    EXPECT_EQ(f.records(), want.size());
  }
}

TEST(ByteSize, ParsesUnitsAndRefusesJunk) {
  EXPECT_EQ(parse_byte_size("65536"), 65536u);
  EXPECT_EQ(parse_byte_size("600M"), 600ull << 20);
  EXPECT_EQ(parse_byte_size("2G"), 2ull << 30);
  EXPECT_EQ(parse_byte_size("2GiB"), 2ull << 30);
  EXPECT_EQ(parse_byte_size("2gb"), 2ull << 30);
  EXPECT_EQ(parse_byte_size("1.5K"), 1536u);
  EXPECT_EQ(parse_byte_size("64k"), 65536u);
  EXPECT_EQ(parse_byte_size("12B"), 12u);
  for (const char* bad : {"", "M", "-1", "1.5", "1x", "1 G", "1GG", "99999999999T", "1.G", "18446744073709551616"})
    EXPECT_THROW((void)parse_byte_size(bad), std::invalid_argument) << bad;
  EXPECT_EQ(format_byte_size(512), "512 B");
  EXPECT_EQ(format_byte_size(600ull << 20), "600 MiB");
  EXPECT_EQ(format_byte_size(1536), "1.50 KiB");
}
