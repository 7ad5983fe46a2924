#include "fairdeck/util/record_io.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <fmt/format.h>

namespace fairdeck {

bool is_gzip_path(std::string_view path) noexcept { return path.size() > 3 && path.ends_with(".gz"); }

namespace {

std::string input_name(const std::string& path) { return path == "-" ? std::string("standard input") : "'" + path + "'"; }

// One opened input: a plain descriptor or a zlib stream over it.
struct input {
  std::string path;
  int fd = -1;
  gzFile gz = nullptr;
  bool own_fd = false;
};

}  // namespace

struct record_reader::impl {
  std::vector<input> inputs;
  std::size_t current = 0;
  record_format format;
  std::uint64_t max_record;
  const std::atomic<bool>* stop;
  std::optional<std::uint64_t> hint;
  std::vector<char> buf;
  std::size_t begin = 0, end = 0, scanned = 0;  // valid data [begin, end); no delimiter in [begin, scanned)
  bool eof = false;                              // the current input has no more bytes
  std::uint64_t bytes = 0, records = 0;
  bool ended_with_delimiter = true;

  // Reads more of the current input into buf[end..]; false at its end.
  bool fill() {
    input& in = inputs[current];
    for (;;) {
      if (stop && stop->load()) throw interrupted("interrupted while reading the input");
      const std::size_t room = buf.size() - end;
      const std::size_t ask = std::min<std::size_t>(room, 1u << 30);
      long got;
      if (in.gz) {
        got = gzread(in.gz, buf.data() + end, static_cast<unsigned>(ask));
        if (got < 0) {
          int err = 0;
          const char* msg = gzerror(in.gz, &err);
          if (err == Z_ERRNO && errno == EINTR && !(stop && stop->load())) {
            gzclearerr(in.gz);
            continue;
          }
          if (stop && stop->load()) throw interrupted("interrupted while reading the input");
          throw input_error(fmt::format("cannot read {}: {}", input_name(in.path),
                                        err == Z_ERRNO ? std::strerror(errno) : msg));
        }
      } else {
        got = ::read(in.fd, buf.data() + end, ask);
        if (got < 0) {
          if (errno == EINTR) {
            if (stop && stop->load()) throw interrupted("interrupted while reading the input");
            continue;
          }
          throw input_error(fmt::format("cannot read {}: {}", input_name(in.path), std::strerror(errno)));
        }
      }
      if (got == 0) return false;
      end += static_cast<std::size_t>(got);
      bytes += static_cast<std::uint64_t>(got);
      return true;
    }
  }

  // Makes room at the end of buf for more data (compacting, then growing up to the limit).
  void make_room() {
    if (begin > 0) {
      std::memmove(buf.data(), buf.data() + begin, end - begin);
      scanned -= begin;
      end -= begin;
      begin = 0;
    }
    if (end < buf.size()) return;
    const std::uint64_t cap = (format.record_size ? format.record_size : max_record + 1);
    if (buf.size() >= cap)
      throw record_too_long(fmt::format("{}: a record longer than {} bytes, the most the memory limit allows",
                                        input_name(inputs[current].path), max_record),
                            max_record);
    buf.resize(static_cast<std::size_t>(std::min<std::uint64_t>(cap, std::max<std::uint64_t>(buf.size() * 2, 4096))));
  }

  void close_current() {
    input& in = inputs[current];
    if (in.gz) gzclose(in.gz);
    else if (in.own_fd) ::close(in.fd);
    in.gz = nullptr;
    in.fd = -1;
  }
};

record_reader::record_reader(std::vector<std::string> paths, record_format format, std::uint64_t max_record_bytes,
                             const std::atomic<bool>* stop)
    : p_(std::make_unique<impl>()) {
  p_->format = format;
  p_->max_record = std::max<std::uint64_t>(max_record_bytes, 1);
  p_->stop = stop;
  std::uint64_t total = 0;
  bool known = true;
  for (auto& path : paths) {
    input in;
    in.path = path;
    p_->inputs.push_back(in);  // closed by the destructor even if a later one fails
    input& added = p_->inputs.back();
    if (path == "-") {
      added.fd = STDIN_FILENO;
    } else {
      added.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
      if (added.fd < 0) throw input_error(fmt::format("cannot open '{}': {}", path, std::strerror(errno)));
      added.own_fd = true;
    }
    struct stat st {};
    if (::fstat(added.fd, &st) != 0) throw input_error(fmt::format("cannot read {}: {}", input_name(path), std::strerror(errno)));
    if (S_ISDIR(st.st_mode)) throw input_error(fmt::format("'{}' is a directory, not a file", path));
    const bool gz = is_gzip_path(path);
    if (S_ISREG(st.st_mode) && !gz) {
      total += static_cast<std::uint64_t>(st.st_size);
      if (format.record_size && static_cast<std::uint64_t>(st.st_size) % format.record_size)
        throw input_error(fmt::format("'{}' has {} bytes, not a whole number of {}-byte records ({} left over)", path,
                                      st.st_size, format.record_size,
                                      static_cast<std::uint64_t>(st.st_size) % format.record_size));
      ::posix_fadvise(added.fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    } else {
      known = false;
    }
    if (gz) {
      added.gz = gzdopen(added.fd, "rb");
      if (!added.gz) throw input_error(fmt::format("cannot read '{}': out of memory for zlib", path));
      added.own_fd = false;  // gzclose closes it
      gzbuffer(added.gz, 1u << 18);
    }
  }
  if (known) p_->hint = total;
  p_->buf.resize(static_cast<std::size_t>(std::min<std::uint64_t>(std::uint64_t{1} << 20, p_->max_record + 1)));
  if (format.record_size) p_->buf.resize(static_cast<std::size_t>(std::max<std::uint64_t>(p_->buf.size(), format.record_size)));
}

record_reader::~record_reader() {
  for (p_->current = 0; p_->current < p_->inputs.size(); ++p_->current) p_->close_current();
}

bool record_reader::next(std::string_view& record) {
  impl& s = *p_;
  while (s.current < s.inputs.size()) {
    if (s.format.record_size) {
      const std::size_t rs = static_cast<std::size_t>(s.format.record_size);
      while (s.end - s.begin < rs && !s.eof) {
        if (s.buf.size() - s.end < rs) s.make_room();
        if (!s.fill()) s.eof = true;
      }
      if (s.end - s.begin >= rs) {
        record = std::string_view(s.buf.data() + s.begin, rs);
        s.begin += rs;
        s.scanned = s.begin;
        ++s.records;
        return true;
      }
      if (s.end > s.begin)
        throw input_error(fmt::format("{} does not hold a whole number of {}-byte records ({} left over)",
                                      input_name(s.inputs[s.current].path), rs, s.end - s.begin));
    } else {
      for (;;) {
        const void* hit = s.scanned < s.end ? std::memchr(s.buf.data() + s.scanned, s.format.delimiter, s.end - s.scanned) : nullptr;
        if (hit) {
          const std::size_t at = static_cast<std::size_t>(static_cast<const char*>(hit) - s.buf.data());
          if (at - s.begin > s.max_record)
            throw record_too_long(fmt::format("{}: a record longer than {} bytes, the most the memory limit allows",
                                              input_name(s.inputs[s.current].path), s.max_record),
                                  s.max_record);
          record = std::string_view(s.buf.data() + s.begin, at - s.begin);
          s.begin = s.scanned = at + 1;
          s.ended_with_delimiter = true;
          ++s.records;
          return true;
        }
        s.scanned = s.end;
        if (s.eof) break;
        s.make_room();
        if (!s.fill()) s.eof = true;
      }
      if (s.end > s.begin) {  // a last record without its delimiter: kept as it is
        record = std::string_view(s.buf.data() + s.begin, s.end - s.begin);
        s.begin = s.scanned = s.end;
        s.ended_with_delimiter = false;
        ++s.records;
        return true;
      }
    }
    s.close_current();
    ++s.current;
    s.begin = s.end = s.scanned = 0;
    s.eof = false;
  }
  return false;
}

std::uint64_t record_reader::bytes_read() const { return p_->bytes; }
std::optional<std::uint64_t> record_reader::size_hint() const { return p_->hint; }
std::uint64_t record_reader::records() const noexcept { return p_->records; }
bool record_reader::ended_with_delimiter() const noexcept { return p_->ended_with_delimiter; }
const std::string& record_reader::current_path() const noexcept {
  return p_->inputs[std::min(p_->current, p_->inputs.size() - 1)].path;
}

// ---------------------------------------------------------------------------------------------

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
