// Writing records (util/record_io.hpp): record_writer (plain or gzip, in order or by
// positional blocks), the two-file paired source and sink, and record_sink's generic block.
#include <cstring>
#include <stdexcept>

#include <zlib.h>

#include <fmt/format.h>

#include "fairdeck/util/record_io.hpp"

namespace fairdeck {

void record_sink::put_block(std::string_view block, std::uint64_t, const record_format& f) {
  while (!block.empty()) {
    const std::size_t n = f.record_size ? static_cast<std::size_t>(f.record_size) : block.find(f.delimiter);
    put(block.substr(0, n));
    block.remove_prefix(std::min(block.size(), n + (f.record_size ? 0 : 1)));
  }
}

struct record_writer::impl {
  safe_output& out;
  record_format format;
  bool gzip;
  bool pending_delimiter = false;
  bool finished = false;
  std::uint64_t records = 0;
  z_stream z{};
  bool z_live = false;
  std::vector<unsigned char> zbuf;
  std::string batch;  // small records are collected before a write/deflate call

  impl(safe_output& o, record_format f, bool gz) : out(o), format(f), gzip(gz) {
    if (gzip) {
      if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        throw std::bad_alloc();
      z_live = true;
      zbuf.resize(1u << 18);
    }
    batch.reserve(1u << 16);
  }
  ~impl() {
    if (z_live) deflateEnd(&z);
  }

  void emit(const char* data, std::size_t size, int flush) {
    if (!gzip) {
      out.write(data, size);
      return;
    }
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data));
    z.avail_in = static_cast<uInt>(size);
    do {
      z.next_out = zbuf.data();
      z.avail_out = static_cast<uInt>(zbuf.size());
      const int rc = deflate(&z, flush);
      if (rc == Z_STREAM_ERROR) throw std::runtime_error("gzip compression failed");
      out.write(zbuf.data(), zbuf.size() - z.avail_out);
    } while (z.avail_out == 0 || (flush == Z_FINISH && z.avail_in > 0));
  }
  void drain() {
    if (!batch.empty()) emit(batch.data(), batch.size(), Z_NO_FLUSH);
    batch.clear();
  }
  void write(const char* data, std::size_t size) {
    if (size >= (1u << 15)) {
      drain();
      // zlib takes at most 4 GiB per call
      for (std::size_t off = 0; off < size; off += (1u << 30)) emit(data + off, std::min<std::size_t>(size - off, 1u << 30), Z_NO_FLUSH);
      return;
    }
    if (batch.size() + size > batch.capacity()) drain();
    batch.append(data, size);
  }
};

record_writer::record_writer(safe_output& out, record_format format, bool gzip)
    : p_(std::make_unique<impl>(out, format, gzip)) {}
record_writer::~record_writer() = default;

void record_writer::put(std::string_view record) {
  impl& s = *p_;
  if (s.pending_delimiter) s.write(&s.format.delimiter, 1);
  s.write(record.data(), record.size());
  s.pending_delimiter = s.format.record_size == 0;
  ++s.records;
}

void record_writer::finish(bool final_delimiter) {
  impl& s = *p_;
  if (s.finished) return;
  if (s.pending_delimiter && final_delimiter) s.write(&s.format.delimiter, 1);
  s.pending_delimiter = false;
  s.drain();
  if (s.gzip) s.emit(nullptr, 0, Z_FINISH);
  s.finished = true;
}

void record_writer::put_block(std::string_view block, std::uint64_t records, const record_format& f) {
  impl& s = *p_;
  if (records == 0) return;
  if (f.record_size != s.format.record_size || (!f.record_size && f.delimiter != s.format.delimiter)) {
    record_sink::put_block(block, records, f);
    return;
  }
  if (s.pending_delimiter) s.write(&s.format.delimiter, 1);
  // Every record of the block ends with the delimiter; the last one is written later (finish).
  s.write(block.data(), block.size() - (f.record_size ? 0 : 1));
  s.pending_delimiter = f.record_size == 0;
  s.records += records;
}

bool record_writer::reserves_blocks(const record_format& f) const {
  const impl& s = *p_;
  return !s.gzip && f.record_size == s.format.record_size && (f.record_size || f.delimiter == s.format.delimiter) &&
         s.out.plan().mode == output_mode::replace;
}

std::optional<record_sink::block_slot> record_writer::reserve_block(std::uint64_t block_bytes, std::uint64_t records,
                                                                    const record_format& f) {
  impl& s = *p_;
  if (records == 0 || !reserves_blocks(f)) return std::nullopt;
  s.drain();
  // As put_block: the block's last delimiter is left pending (finish() decides).
  const std::uint64_t bytes = block_bytes - (f.record_size ? 0 : 1) + (s.pending_delimiter ? 1 : 0);
  const auto at = s.out.reserve(bytes);
  if (!at) return std::nullopt;
  const block_slot slot{*at, s.pending_delimiter};
  s.pending_delimiter = f.record_size == 0;
  s.records += records;
  return slot;
}

void record_writer::write_block(const block_slot& slot, std::string_view block) {
  impl& s = *p_;
  std::uint64_t at = slot.offset;
  if (slot.leading_delimiter) s.out.write_at(&s.format.delimiter, 1, at++);
  s.out.write_at(block.data(), block.size() - (s.format.record_size ? 0 : 1), at);
}

std::uint64_t record_writer::records() const noexcept { return p_->records; }

// ---------------------------------------------------------------------------------------------

paired_source::paired_source(record_reader& a, record_reader& b, std::string name_a, std::string name_b, char delimiter)
    : a_(a), b_(b), name_a_(std::move(name_a)), name_b_(std::move(name_b)), delimiter_(delimiter) {}

bool paired_source::next(std::string_view& record) {
  std::string_view ra, rb;
  const bool has_a = a_.next(ra);
  if (has_a) joined_.assign(ra);  // ra is invalidated by nothing b does, but keep it simple
  const bool has_b = b_.next(rb);
  if (has_a != has_b) {
    const auto& longer = has_a ? name_a_ : name_b_;
    const auto& shorter = has_a ? name_b_ : name_a_;
    const std::uint64_t n = (has_a ? b_ : a_).records();
    throw input_error(fmt::format("paired inputs are not line-aligned: '{}' ends after {} records but '{}' has more",
                                  shorter, n, longer));
  }
  if (!has_a) return false;
  joined_ += delimiter_;
  joined_.append(rb);
  record = joined_;
  return true;
}

std::uint64_t paired_source::bytes_read() const { return a_.bytes_read() + b_.bytes_read(); }
std::optional<std::uint64_t> paired_source::size_hint() const {
  const auto x = a_.size_hint(), y = b_.size_hint();
  if (!x || !y) return std::nullopt;
  return *x + *y;
}

void paired_sink::put(std::string_view record) {
  const std::size_t at = record.find(delimiter_);
  a_.put(record.substr(0, at));
  b_.put(at == std::string_view::npos ? std::string_view() : record.substr(at + 1));
}

}  // namespace fairdeck
