// util/record_io.hpp bulk reading and writing: record_reader::read_records hands out whole
// records (each with its delimiter; a last one without gets it, and the reader says so) for
// every block size, across several inputs, mixed with next(), for fixed-size records, gzip
// and large files read with parallel preads; a record longer than the limit is an error;
// record_writer::put_block writes the same bytes as put() for each record.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <zlib.h>

#include "fairdeck/util/record_io.hpp"

// A named namespace, not an anonymous one: the fixture is a base of test classes, and in the
// unity build this file is included (g++ -Wsubobject-linkage).
namespace record_io_test {

using namespace fairdeck;
namespace fs = std::filesystem;

class RecordIo : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("fairdeck-record-io-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string file(const std::string& name, const std::string& content) {
    const auto p = (dir_ / name).string();
    std::ofstream(p, std::ios::binary) << content;
    return p;
  }
  std::string gz_file(const std::string& name, const std::string& content) {
    const auto p = (dir_ / name).string();
    gzFile g = gzopen(p.c_str(), "wb");
    gzwrite(g, content.data(), static_cast<unsigned>(content.size()));
    gzclose(g);
    return p;
  }
  // Everything read_records hands out with blocks of `cap` bytes, after `first` next() calls.
  static std::string read_all(record_reader& r, std::uint64_t cap, unsigned threads, std::uint64_t* records) {
    std::string all, block(static_cast<std::size_t>(cap), '\0');
    for (;;) {
      const records_read got = r.read_records(block.data(), cap, threads);
      if (got.bytes == 0) return all;
      EXPECT_TRUE(block[got.bytes - 1] == '\n' || block[got.bytes - 1] == '\0' || r.bulk_format()->record_size);
      all.append(block.data(), static_cast<std::size_t>(got.bytes));
      *records += got.records;
    }
  }
  fs::path dir_;
};

TEST_F(RecordIo, BlocksHoldWholeRecordsForEveryBlockSize) {
  const std::string text = "alpha\r\nb\n\nlonger line here\nlast-no-newline";
  const auto path = file("a.txt", text);
  for (std::uint64_t cap = 17; cap <= 64; ++cap) {  // the longest record is 16 bytes + delimiter
    record_reader r({path}, record_format{}, 16);
    std::uint64_t n = 0;
    EXPECT_EQ(read_all(r, cap, 1, &n), text + "\n") << cap;
    EXPECT_EQ(n, 5u);
    EXPECT_EQ(r.records(), 5u);
    EXPECT_FALSE(r.ended_with_delimiter());  // the input's shape, for the writer
    EXPECT_EQ(r.bytes_read(), text.size());
  }
  record_reader r({file("b.txt", "x\ny\n")}, record_format{}, 16);
  std::uint64_t n = 0;
  EXPECT_EQ(read_all(r, 8, 1, &n), "x\ny\n");
  EXPECT_TRUE(r.ended_with_delimiter());
}

TEST_F(RecordIo, ARecordNeverSpansTwoInputsAndNextMixesWithBlocks) {
  const auto a = file("a.txt", "1\n2\n3");  // no final newline: "3" is a record of its own
  const auto b = file("b.txt", "4\n5\n");
  const auto c = gz_file("c.txt.gz", "6\n7\n");
  record_reader r({a, b, c}, record_format{}, 100);
  std::string_view rec;
  ASSERT_TRUE(r.next(rec));
  EXPECT_EQ(rec, "1");
  std::uint64_t n = 0;
  EXPECT_EQ(read_all(r, 4, 1, &n), "2\n3\n4\n5\n6\n7\n");
  EXPECT_EQ(n, 6u);
  EXPECT_TRUE(r.ended_with_delimiter());
  EXPECT_FALSE(r.next(rec));
}

TEST_F(RecordIo, FixedSizeRecordsAndTheirErrors) {
  const auto path = file("r.bin", "abcdefghijkl");
  for (std::uint64_t cap = 3; cap <= 13; ++cap) {
    record_reader r({path}, record_format{'\n', 3}, 3);
    std::uint64_t n = 0;
    EXPECT_EQ(read_all(r, cap, 1, &n), "abcdefghijkl") << cap;
    EXPECT_EQ(n, 4u);
  }
  // a file that is not whole records fails when it is opened
  EXPECT_THROW(record_reader({file("bad.bin", "abcde")}, record_format{'\n', 3}, 3), input_error);
}

TEST_F(RecordIo, ARecordLongerThanTheLimitIsAnError) {
  record_reader r({file("long.txt", "short\n" + std::string(40, 'x') + "\nshort\n")}, record_format{}, 16);
  std::string block(64, '\0');
  EXPECT_THROW(
      {
        for (int i = 0; i < 10; ++i)
          if (r.read_records(block.data(), 17, 1).bytes == 0) break;
      },
      record_too_long);
}

TEST_F(RecordIo, LargeFilesReadWithParallelPreadsAreTheSameBytes) {
  std::string text;
  for (std::uint64_t i = 0; text.size() < (20u << 20); ++i) text += "line " + std::to_string(i * 7919 % 100003) + " of the large file\n";
  text += "tail";
  const auto path = file("big.txt", text);
  for (unsigned threads : {1u, 2u, 3u}) {
    record_reader r({path}, record_format{}, 1 << 20);
    std::uint64_t n = 0;
    EXPECT_EQ(read_all(r, 9u << 20, threads, &n), text + "\n") << threads;
    EXPECT_EQ(n, static_cast<std::uint64_t>(std::count(text.begin(), text.end(), '\n')) + 1);
  }
}

TEST_F(RecordIo, PutBlockWritesWhatPutWouldWrite) {
  for (const bool final_delimiter : {true, false}) {
    const auto a = (dir_ / "a.out").string(), b = (dir_ / "b.out").string();
    {
      safe_output out(a);
      record_writer w(out, record_format{}, false);
      w.put("head");
      w.put_block("x\nyy\n\nzzz\n", 4, record_format{});
      w.put("tail");
      w.put_block("q\n", 1, record_format{});
      w.finish(final_delimiter);
      EXPECT_EQ(w.records(), 7u);
      out.commit();
    }
    {
      safe_output out(b);
      record_writer w(out, record_format{}, false);
      for (const char* r : {"head", "x", "yy", "", "zzz", "tail", "q"}) w.put(r);
      w.finish(final_delimiter);
      out.commit();
    }
    const auto c = (dir_ / "c.out").string();
    {  // the same through positional blocks, written after later blocks were placed
      safe_output out(c);
      record_writer w(out, record_format{}, false);
      w.put("head");
      const auto s1 = w.reserve_block(10, 4, record_format{});
      ASSERT_TRUE(s1.has_value());
      w.put("tail");
      const auto s2 = w.reserve_block(2, 1, record_format{});
      ASSERT_TRUE(s2.has_value());
      w.write_block(*s2, "q\n");
      w.write_block(*s1, "x\nyy\n\nzzz\n");
      w.finish(final_delimiter);
      EXPECT_EQ(w.records(), 7u);
      out.commit();
    }
    std::ifstream fa(a, std::ios::binary), fb(b, std::ios::binary), fc(c, std::ios::binary);
    const std::string sa((std::istreambuf_iterator<char>(fa)), {}), sb((std::istreambuf_iterator<char>(fb)), {});
    const std::string sc((std::istreambuf_iterator<char>(fc)), {});
    EXPECT_EQ(sa, sb);
    EXPECT_EQ(sc, sb);
    EXPECT_EQ(sa, final_delimiter ? "head\nx\nyy\n\nzzz\ntail\nq\n" : "head\nx\nyy\n\nzzz\ntail\nq");
  }
}

}  // namespace record_io_test
using namespace record_io_test;

// map_records hands out the same records as read_records, without a copy, from regular
// files; it gives way (nullopt) to read_records for what it cannot map — a gzip input, what
// next() buffered, a last record without its delimiter, a record longer than the block —
// and the two mixed give exactly the bytes, records and shape of read_records alone.
TEST_F(RecordIo, MappedBlocksMixWithReadBlocksAndKeepTheBytes) {
  std::string big;
  for (int i = 0; i < 20000; ++i) big += "line " + std::to_string(i * 7919 % 100003) + (i % 13 ? "\n" : "\r\n");
  const auto a = file("a.txt", big);
  const auto b = file("b.txt", "short\nlast-no-newline");
  const auto c = gz_file("c.txt.gz", "g1\ng2\n");
  const auto d = file("d.txt", "");
  const auto e = file("e.txt", "after-empty\n");
  const std::vector<std::string> inputs{a, b, c, d, e};
  std::uint64_t want_records = 0;
  std::string want;
  {
    record_reader r(inputs, record_format{}, 100);
    want = read_all(r, 4096, 1, &want_records);
  }
  for (const std::uint64_t cap : {std::uint64_t{120}, std::uint64_t{4096}, std::uint64_t{1} << 20}) {
    for (const bool skip_first : {false, true}) {
      record_reader r(inputs, record_format{}, 100);
      std::string got, block(static_cast<std::size_t>(cap), '\0');
      std::uint64_t records = 0, mapped = 0;
      std::string_view rec;
      if (skip_first) {  // next() buffers part of the file: the blocks go on after it
        ASSERT_TRUE(r.next(rec));
        got.append(rec);
        got += '\n';
        ++records;
      }
      for (int k = 0;; ++k) {
        if (auto m = k % 3 == 2 ? std::nullopt : r.map_records(cap)) {  // every third block read instead
          ASSERT_GT(m->bytes, 0u);
          EXPECT_LE(m->bytes, cap);
          EXPECT_EQ(m->data[m->bytes - 1], '\n');
          EXPECT_EQ(m->records, static_cast<std::uint64_t>(std::count(m->data, m->data + m->bytes, '\n')));
          got.append(m->data, static_cast<std::size_t>(m->bytes));
          records += m->records;
          ++mapped;
          continue;
        }
        const records_read rr = r.read_records(block.data(), cap, 2);
        if (rr.bytes == 0) break;
        got.append(block.data(), static_cast<std::size_t>(rr.bytes));
        records += rr.records;
      }
      EXPECT_TRUE(got == want) << cap << " " << skip_first;  // (not EXPECT_EQ: no diff of 200 KB)
      EXPECT_EQ(records, want_records);
      EXPECT_EQ(r.records(), want_records);
      EXPECT_EQ(r.bytes_read(), big.size() + 21 + 6 + 12);
      EXPECT_TRUE(r.ended_with_delimiter());  // e.txt ends with one
      EXPECT_GT(mapped, 0u) << cap;
    }
  }
  // Fixed-size records: whole records only; a file that is not whole records still fails.
  record_reader f({file("f.bin", std::string(4000, 'x'))}, record_format{'\n', 16}, 16);
  std::uint64_t fixed = 0;
  while (auto m = f.map_records(1000)) {
    EXPECT_EQ(m->bytes % 16, 0u);
    fixed += m->records;
  }
  EXPECT_EQ(fixed, 250u);
  // A record longer than the block is not mapped: read_records reports it.
  record_reader l({file("l.txt", std::string(300, 'y') + "\n")}, record_format{}, 100);
  EXPECT_FALSE(l.map_records(200).has_value());
  std::string small(200, '\0');
  EXPECT_THROW((void)l.read_records(small.data(), 200, 1), record_too_long);
}

// A .gz input that ends early (a cut-off download) is an input error naming the file, for
// next() and read_records alike: zlib's gzread reports it only through gzerror, after
// handing out what it could decompress, and gzclose returns it again.
TEST_F(RecordIo, ATruncatedGzipInputIsAnError) {
  std::string text;
  for (int i = 0; i < 100000; ++i) text += std::to_string(i) + "\n";
  const auto whole = gz_file("whole.gz", text);
  std::ifstream in(whole, std::ios::binary);
  const std::string gz((std::istreambuf_iterator<char>(in)), {});
  for (const std::size_t keep : {gz.size() / 2, gz.size() - 4, std::size_t{12}}) {
    SCOPED_TRACE(keep);
    const auto cut = file("cut.gz", gz.substr(0, keep));
    const std::string want = "'" + cut + "': unexpected end of file (truncated gzip data)";
    try {
      record_reader r({cut}, record_format{}, 100);
      std::string_view rec;
      while (r.next(rec)) {
      }
      ADD_FAILURE() << "next() read to the end";
    } catch (const input_error& e) {
      EXPECT_EQ(std::string(e.what()), want);
    }
    try {
      record_reader r({cut, file("after.txt", "x\n")}, record_format{}, 100);
      std::uint64_t n = 0;
      (void)read_all(r, 4096, 1, &n);
      ADD_FAILURE() << "read_records read to the end";
    } catch (const input_error& e) {
      EXPECT_EQ(std::string(e.what()), want);
    }
  }
}
