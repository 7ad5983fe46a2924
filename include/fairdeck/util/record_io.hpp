// Streams of records — lines, NUL-terminated records (`-z`) or fixed-size records — read from
// files, standard input or gzip files, and written through fairdeck::safe_output, optionally
// gzip-compressed. The I/O half of `fairdeck shuffle-file` (shuffle/external.hpp is the
// other half), usable for any record-at-a-time job.
//
// Guarantees:
//  * Bytes are kept as they are: a record is the bytes between delimiters, so a '\r' before
//    '\n' (CRLF) stays part of its line, and a last record without its delimiter is still a
//    record. record_reader::ended_with_delimiter() says whether the input ended with one,
//    and record_writer::finish(final_delimiter) reproduces that shape: the output is then the
//    same bytes as the input, in another order (a permutation of the records).
//  * Several inputs are read one after the other; a record never spans two inputs.
//  * `.gz` inputs (by name) are decompressed with zlib (concatenated gzip members too); a
//    `.gz` output is written as one gzip member (zlib, level 6, like gzip(1)).
//  * Bounded memory: the read buffer grows only to the longest record, and a record longer
//    than max_record_bytes fails with record_too_long instead of growing without bound.
//  * Every read is checked (EINTR retried; a raised stop flag ends a blocked read with
//    fairdeck::interrupted); unreadable input or a short fixed-size record is input_error.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "fairdeck/util/safe_output.hpp"

namespace fairdeck {

struct record_format {
  char delimiter = '\n';          // '\n' for lines, '\0' for -z
  std::uint64_t record_size = 0;  // > 0: fixed-size records of this many bytes, no delimiter
};

// The input cannot be read or is malformed (not whole records, paired inputs of different
// lengths): a problem with what the user gave, not with the machine.
class input_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A record longer than the configured limit (the memory budget allows no more).
class record_too_long : public std::runtime_error {
 public:
  record_too_long(const std::string& message, std::uint64_t limit) : std::runtime_error(message), limit_(limit) {}
  [[nodiscard]] std::uint64_t limit() const noexcept { return limit_; }

 private:
  std::uint64_t limit_;
};

// What one read_records call appended.
struct records_read {
  std::uint64_t bytes = 0;
  std::uint64_t records = 0;
};

// The stop flag was raised (Ctrl-C) while reading or working.
class interrupted : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class record_source {
 public:
  virtual ~record_source() = default;
  // The next record's bytes without its delimiter; false at the end. The view stays valid
  // until the next call.
  virtual bool next(std::string_view& record) = 0;
  // Input bytes consumed so far (uncompressed) and, when known in advance, their total
  // (regular uncompressed files; nullopt for pipes and gzip).
  [[nodiscard]] virtual std::uint64_t bytes_read() const = 0;
  [[nodiscard]] virtual std::optional<std::uint64_t> size_hint() const = 0;

  // Bulk reading, for sources whose records never hold the delimiter (bulk_format() is set):
  // appends whole records to dst, each followed by the delimiter (a last record that had
  // none gets one here; fixed-size records: back to back), at most `cap` bytes; returns the
  // bytes and records appended, no bytes at the end. `threads` may copy a large block in
  // parallel. A record that would end past the source's limit before its delimiter throws
  // record_too_long (cap must exceed the limit); records inside a block are not measured —
  // the caller, which scans them anyway, refuses long ones. next() and read_records() may
  // be mixed: each continues where the other stopped.
  [[nodiscard]] virtual std::optional<record_format> bulk_format() const { return std::nullopt; }
  virtual records_read read_records(char* dst, std::uint64_t cap, unsigned threads);

  // The next records in the same bulk layout without a copy: a read-only view of at most
  // `cap` bytes of whole records straight from a memory-mapped input (mmap(2) of a regular,
  // uncompressed file, whose pages are then the page cache's own: no copy, and no fresh
  // memory to be zeroed). nullopt where the source cannot map (a pipe, gzip, a last record
  // without its delimiter, a record longer than `cap`, an address-space limit (ulimit -v:
  // the mapping would use the headroom), the end): read_records then takes
  // over at the same place; next(), read_records and map_records may be mixed. The
  // view stays valid while `keep` lives. A mapped input must not shrink while it is read
  // (another process truncating it is a SIGBUS, as for any program that maps its input).
  struct mapped_records {
    const char* data = nullptr;
    std::uint64_t bytes = 0, records = 0;
    std::shared_ptr<const void> keep;
  };
  virtual std::optional<mapped_records> map_records(std::uint64_t /*cap*/) { return std::nullopt; }

 private:
  std::string pending_;  // the generic read_records: a record that did not fit the last block
};

class record_sink {
 public:
  virtual ~record_sink() = default;
  virtual void put(std::string_view record) = 0;
  // `records` records in the bulk layout of read_records (each followed by f's delimiter,
  // or fixed-size): the same as put() for each of them. Sinks that can write the bytes
  // as they are override it.
  virtual void put_block(std::string_view block, std::uint64_t records, const record_format& f);
  // Blocks written on several threads: when reserves_blocks(f), reserve_block(bytes,
  // records, f), called in order instead of put_block, returns the slot of a block of
  // `bytes` bytes (nothing only for 0 records); write_block(slot, block) then writes the
  // block from any thread, concurrently with other slots. A block placed at the same spot
  // in its 4 KiB page as slot.data_offset() is written without the page-cache copy
  // (safe_output::write_at).
  struct block_slot {
    std::uint64_t offset = 0;
    bool leading_delimiter = false;  // the previous record's delimiter goes first
    // where the block's first byte goes in the output
    [[nodiscard]] std::uint64_t data_offset() const noexcept { return offset + (leading_delimiter ? 1 : 0); }
  };
  [[nodiscard]] virtual bool reserves_blocks(const record_format&) const { return false; }
  virtual std::optional<block_slot> reserve_block(std::uint64_t, std::uint64_t, const record_format&) { return std::nullopt; }
  virtual void write_block(const block_slot&, std::string_view) {}
};

[[nodiscard]] bool is_gzip_path(std::string_view path) noexcept;  // ends with ".gz"

class record_reader final : public record_source {
 public:
  // Opens every input at once ("-": standard input), so a missing file fails before any
  // work. Throws input_error.
  record_reader(std::vector<std::string> paths, record_format format, std::uint64_t max_record_bytes,
                const std::atomic<bool>* stop = nullptr);
  ~record_reader() override;
  record_reader(const record_reader&) = delete;
  record_reader& operator=(const record_reader&) = delete;

  bool next(std::string_view& record) override;
  [[nodiscard]] std::uint64_t bytes_read() const override;
  [[nodiscard]] std::optional<std::uint64_t> size_hint() const override;
  [[nodiscard]] std::optional<record_format> bulk_format() const override { return format_; }
  records_read read_records(char* dst, std::uint64_t cap, unsigned threads) override;
  std::optional<mapped_records> map_records(std::uint64_t cap) override;
  [[nodiscard]] std::uint64_t records() const noexcept;
  // True if the last record read had its delimiter (or there was none; fixed-size: true).
  [[nodiscard]] bool ended_with_delimiter() const noexcept;
  // The input the last record came from (for messages).
  [[nodiscard]] const std::string& current_path() const noexcept;

 private:
  struct impl;
  std::unique_ptr<impl> p_;
  record_format format_;
};

class record_writer final : public record_sink {
 public:
  // Writes to `out` (which the caller commits after finish()); gzip: compress.
  record_writer(safe_output& out, record_format format, bool gzip);
  ~record_writer() override;
  record_writer(const record_writer&) = delete;
  record_writer& operator=(const record_writer&) = delete;

  void put(std::string_view record) override;
  void put_block(std::string_view block, std::uint64_t records, const record_format& f) override;
  // Positional blocks when the output is a file safe_output replaces and not gzip.
  [[nodiscard]] bool reserves_blocks(const record_format& f) const override;
  std::optional<block_slot> reserve_block(std::uint64_t bytes, std::uint64_t records, const record_format& f) override;
  void write_block(const block_slot& slot, std::string_view block) override;
  // Ends the output: the last record gets its delimiter only if final_delimiter (see above).
  void finish(bool final_delimiter);
  [[nodiscard]] std::uint64_t records() const noexcept;

 private:
  struct impl;
  std::unique_ptr<impl> p_;
};

// Two line-aligned inputs as one source (`--paired A B`): record i is a_i, the delimiter,
// b_i (a_i holds no delimiter, so the split is unambiguous). Different record counts are an
// input_error naming both files.
class paired_source final : public record_source {
 public:
  paired_source(record_reader& a, record_reader& b, std::string name_a, std::string name_b, char delimiter);
  bool next(std::string_view& record) override;
  [[nodiscard]] std::uint64_t bytes_read() const override;
  [[nodiscard]] std::optional<std::uint64_t> size_hint() const override;

 private:
  record_reader &a_, &b_;
  std::string name_a_, name_b_, joined_;
  char delimiter_;
};

// The other half: splits each record at its first delimiter into two writers.
class paired_sink final : public record_sink {
 public:
  paired_sink(record_writer& a, record_writer& b, char delimiter) : a_(a), b_(b), delimiter_(delimiter) {}
  void put(std::string_view record) override;

 private:
  record_writer &a_, &b_;
  char delimiter_;
};

}  // namespace fairdeck
