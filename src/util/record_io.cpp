#include "fairdeck/util/record_io.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <fmt/format.h>

#include "fairdeck/util/internal/delimiters.hpp"
#include "fairdeck/util/parallel.hpp"

namespace fairdeck {

bool is_gzip_path(std::string_view path) noexcept { return path.size() > 3 && path.ends_with(".gz"); }

records_read record_source::read_records(char* dst, std::uint64_t cap, unsigned) {
  const auto f = bulk_format();
  if (!f) throw std::logic_error("read_records: this record source has no bulk format");
  std::uint64_t out = 0, n = 0;
  std::string_view r;
  while (out < cap) {  // one record at a time, for sources without a faster way
    if (pending_.empty()) {
      if (!next(r)) break;
      pending_.assign(r);
      if (!f->record_size) pending_ += f->delimiter;
    }
    if (pending_.size() > cap - out) {
      if (out == 0) throw record_too_long("a record longer than the block it is read into", cap);
      break;
    }
    std::memcpy(dst + out, pending_.data(), pending_.size());
    out += pending_.size();
    pending_.clear();
    ++n;
  }
  return {out, n};
}

namespace {

std::string input_name(const std::string& path) { return path == "-" ? std::string("standard input") : "'" + path + "'"; }

// One opened input: a plain descriptor or a zlib stream over it.
struct input {
  std::string path;
  int fd = -1;
  gzFile gz = nullptr;
  bool own_fd = false;
  bool regular = false;  // a regular uncompressed file: pread works
  std::shared_ptr<const char> map;  // the whole file mapped read-only (map_records), once asked
  std::uint64_t map_size = 0;
  bool map_failed = false;
};

// A view handed out by map_records: it keeps the file's mapping alive, and when released
// drops its pages from the process's page tables (MADV_DONTNEED: the page cache keeps
// them), so resident memory follows what the caller holds, as with a block it read.
struct mapped_window {
  std::shared_ptr<const char> map;
  const char* data;
  std::size_t size;
  mapped_window(std::shared_ptr<const char> m, const char* d, std::size_t n) : map(std::move(m)), data(d), size(n) {}
  mapped_window(const mapped_window&) = delete;
  mapped_window& operator=(const mapped_window&) = delete;
  ~mapped_window() {
    const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
    const auto lo = reinterpret_cast<std::uintptr_t>(data) / page * page;
    const auto hi = (reinterpret_cast<std::uintptr_t>(data) + size + page - 1) / page * page;
    (void)::madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_DONTNEED);
  }
};

// Reads up to n bytes at the descriptor's offset into dst in `threads` parallel preads of
// consecutive parts (the kernel's page-cache copy is the cost of reading a cached file),
// then moves the offset past what was read. Returns the bytes read (short only at the end).
long parallel_read(int fd, char* dst, std::size_t n, unsigned threads, const std::atomic<bool>* stop) {
  const off_t at = ::lseek(fd, 0, SEEK_CUR);
  if (at < 0) return -1;
  const std::size_t parts = threads, part = (n + parts - 1) / parts;
  std::vector<std::size_t> got(parts, 0);
  std::vector<int> err(parts, 0);
  parallel_for(parts, threads, run_control{}, [&](std::uint64_t k, unsigned) {
    const std::size_t lo = std::min(n, k * part), hi = std::min(n, lo + part);
    while (lo + got[k] < hi) {
      if (stop && stop->load()) return;
      const ssize_t r = ::pread(fd, dst + lo + got[k], std::min<std::size_t>(hi - lo - got[k], 1u << 30),
                                at + static_cast<off_t>(lo + got[k]));
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) err[k] = errno;
      if (r <= 0) return;
      got[k] += static_cast<std::size_t>(r);
    }
  });
  std::size_t total = 0;
  for (std::size_t k = 0; k < parts; ++k) {
    if (err[k]) {
      errno = err[k];
      return -1;
    }
    total += got[k];
    if (got[k] < std::min(n, k * part + part) - std::min(n, k * part)) break;  // the end of the file
  }
  if (::lseek(fd, at + static_cast<off_t>(total), SEEK_SET) < 0) return -1;
  return static_cast<long>(total);
}

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
    const std::size_t got = read_into(buf.data() + end, buf.size() - end, 1);
    end += got;
    return got > 0;
  }

  // Reads at most room bytes of the current input into dst; 0 at its end.
  std::size_t read_into(char* dst, std::size_t room, unsigned threads) {
    input& in = inputs[current];
    for (;;) {
      if (stop && stop->load()) throw interrupted("interrupted while reading the input");
      const std::size_t ask = std::min<std::size_t>(room, 1u << 30);
      long got;
      if (in.gz) {
        got = gzread(in.gz, dst, static_cast<unsigned>(ask));
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
        if (got == 0) check_gzip_end(in);
      } else {
        got = in.regular && threads > 1 && ask >= (std::size_t{8} << 20) ? parallel_read(in.fd, dst, ask, threads, stop)
                                                                          : ::read(in.fd, dst, ask);
        if (got < 0) {
          if (errno == EINTR) {
            if (stop && stop->load()) throw interrupted("interrupted while reading the input");
            continue;
          }
          throw input_error(fmt::format("cannot read {}: {}", input_name(in.path), std::strerror(errno)));
        }
      }
      bytes += static_cast<std::uint64_t>(got);
      return static_cast<std::size_t>(got);
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

  // gzread returns 0 both at the end of the data and where the data stops early (a cut-off
  // file): only gzerror tells them apart.
  static void check_gzip_end(const input& in) {
    int err = Z_OK;
    const char* msg = gzerror(in.gz, &err);
    if (err == Z_BUF_ERROR)
      throw input_error(fmt::format("{}: unexpected end of file (truncated gzip data)", input_name(in.path)));
    if (err != Z_OK)
      throw input_error(fmt::format("cannot read {}: {}", input_name(in.path), err == Z_ERRNO ? std::strerror(errno) : msg));
  }

  // Closes the current input; `check`: a gzip input's gzclose result is an input error too
  // (not from the destructor, which may run for another error).
  void close_current(bool check = true) {
    input& in = inputs[current];
    gzFile gz = in.gz;
    if (!gz && in.own_fd) ::close(in.fd);
    in.gz = nullptr;
    in.fd = -1;
    if (!gz) return;
    const int r = gzclose(gz);
    if (!check || r == Z_OK) return;
    if (r == Z_BUF_ERROR)
      throw input_error(fmt::format("{}: unexpected end of file (truncated gzip data)", input_name(in.path)));
    throw input_error(fmt::format("cannot close {}: {}", input_name(in.path),
                                  r == Z_ERRNO ? std::strerror(errno) : fmt::format("zlib error {}", r)));
  }
};

record_reader::record_reader(std::vector<std::string> paths, record_format format, std::uint64_t max_record_bytes,
                             const std::atomic<bool>* stop)
    : p_(std::make_unique<impl>()), format_(format) {
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
      added.regular = true;
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
  for (p_->current = 0; p_->current < p_->inputs.size(); ++p_->current) p_->close_current(false);
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

records_read record_reader::read_records(char* dst, std::uint64_t cap, unsigned threads) {
  impl& s = *p_;
  const std::uint64_t records_before = s.records;
  const std::uint64_t rs = s.format.record_size;
  const char delim = s.format.delimiter;
  std::uint64_t out = 0;
  while (s.current < s.inputs.size() && out < cap) {
    const std::uint64_t input_start = out;  // dst[input_start, out) comes from the current input
    // What next() left buffered, then straight from the input into dst.
    const std::size_t buffered = static_cast<std::size_t>(std::min<std::uint64_t>(s.end - s.begin, cap - out));
    std::memcpy(dst + out, s.buf.data() + s.begin, buffered);
    s.begin += buffered;
    s.scanned = std::max(s.scanned, s.begin);
    out += buffered;
    while (s.begin == s.end && !s.eof && out < cap) {
      const std::size_t got = s.read_into(dst + out, static_cast<std::size_t>(cap - out), threads);
      if (got == 0) s.eof = true;
      out += got;
    }
    // Keep whole records; the rest goes back to the buffer for the next call.
    std::uint64_t keep;
    if (rs) {
      keep = input_start + (out - input_start) / rs * rs;
    } else {
      const void* last = out > input_start ? ::memrchr(dst + input_start, delim, out - input_start) : nullptr;
      keep = last ? static_cast<std::uint64_t>(static_cast<const char*>(last) - dst) + 1 : input_start;
    }
    const std::uint64_t tail = out - keep;
    const bool input_done = s.eof && s.begin == s.end;
    if (tail > 0) {
      if (input_done && rs)
        throw input_error(fmt::format("{} does not hold a whole number of {}-byte records ({} left over)",
                                      input_name(s.inputs[s.current].path), rs, tail));
      if (!rs && tail > s.max_record)
        throw record_too_long(fmt::format("{}: a record longer than {} bytes, the most the memory limit allows",
                                          input_name(s.inputs[s.current].path), s.max_record),
                              s.max_record);
      if (input_done && out < cap) {  // a last record without its delimiter: it gets one here
        dst[out++] = delim;
        s.ended_with_delimiter = false;
        s.records += detail::count_delimiters(dst + input_start, out - input_start, delim);
      } else {  // back to the buffer (it holds less than one record)
        if (keep == 0)  // not even one record fits the block
          throw record_too_long(fmt::format("{}: a record longer than the {}-byte block it is read into",
                                            input_name(s.inputs[s.current].path), cap),
                                cap);
        const std::size_t rest = s.end - s.begin;
        if (s.buf.size() < tail + rest) s.buf.resize(static_cast<std::size_t>(tail + rest));
        std::memmove(s.buf.data() + tail, s.buf.data() + s.begin, rest);
        std::memcpy(s.buf.data(), dst + keep, static_cast<std::size_t>(tail));
        s.begin = 0;
        s.scanned = 0;
        s.end = static_cast<std::size_t>(tail + rest);
        out = keep;
        s.records += rs ? (keep - input_start) / rs : detail::count_delimiters(dst + input_start, keep - input_start, delim);
        if (keep > input_start) s.ended_with_delimiter = true;
        return {out, s.records - records_before};
      }
    } else {
      s.records += rs ? (keep - input_start) / rs : detail::count_delimiters(dst + input_start, keep - input_start, delim);
      if (keep > input_start) s.ended_with_delimiter = true;
    }
    if (!input_done) return {out, s.records - records_before};  // dst is full
    s.close_current();
    ++s.current;
    s.begin = s.end = s.scanned = 0;
    s.eof = false;
  }
  return {out, s.records - records_before};
}

std::optional<record_source::mapped_records> record_reader::map_records(std::uint64_t cap) {
  impl& s = *p_;
  const std::uint64_t rs = s.format.record_size;
  while (s.current < s.inputs.size()) {
    input& in = s.inputs[s.current];
    if (!in.regular || in.gz || in.map_failed || cap == 0) return std::nullopt;
    if (s.stop && s.stop->load()) throw interrupted("interrupted while reading the input");
    const off_t at = ::lseek(in.fd, 0, SEEK_CUR);
    struct stat st {};
    // What next() or read_records left buffered are the file's bytes just before `at`: the
    // window starts there instead, and the buffer is dropped once the window is handed out.
    const std::uint64_t buffered = s.end - s.begin;
    if (at < 0 || static_cast<std::uint64_t>(at) < buffered || ::fstat(in.fd, &st) != 0) return std::nullopt;
    const auto pos = static_cast<std::uint64_t>(at) - buffered, size = static_cast<std::uint64_t>(st.st_size);
    if (pos >= size) {  // this input is done (as read_records would find): the next one
      if (buffered) return std::nullopt;
      s.close_current();
      ++s.current;
      s.begin = s.end = s.scanned = 0;
      s.eof = false;
      continue;
    }
    if (!in.map) {
      // Under an address-space limit (ulimit -v) the mapping would eat the headroom the
      // memory budget was computed from: read instead.
      struct rlimit as {};
      if (::getrlimit(RLIMIT_AS, &as) != 0 || as.rlim_cur != RLIM_INFINITY) {
        in.map_failed = true;
        return std::nullopt;
      }
      void* m = ::mmap(nullptr, static_cast<std::size_t>(size), PROT_READ, MAP_PRIVATE, in.fd, 0);
      if (m == MAP_FAILED) {
        in.map_failed = true;
        return std::nullopt;
      }
      in.map = std::shared_ptr<const char>(static_cast<const char*>(m), [size](const char* p) {
        ::munmap(const_cast<char*>(p), static_cast<std::size_t>(size));
      });
      in.map_size = size;
    }
    if (pos >= in.map_size) return std::nullopt;  // the file grew after it was mapped: read the rest
    const char* data = in.map.get() + pos;
    const std::uint64_t room = std::min(cap, in.map_size - pos);
#ifdef MADV_POPULATE_READ
    {  // the window's page-table entries in one call instead of a fault per 64 KiB
      const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
      const auto lo = reinterpret_cast<std::uintptr_t>(data) / page * page;
      (void)::madvise(reinterpret_cast<void*>(lo), static_cast<std::size_t>(reinterpret_cast<std::uintptr_t>(data) + room - lo),
                      MADV_POPULATE_READ);
    }
#endif
    std::uint64_t bytes, records;
    if (rs) {
      bytes = room / rs * rs;
      records = bytes / rs;
    } else {
      const void* last = ::memrchr(data, s.format.delimiter, static_cast<std::size_t>(room));
      bytes = last ? static_cast<std::uint64_t>(static_cast<const char*>(last) - data) + 1 : 0;
      records = detail::count_delimiters(data, static_cast<std::size_t>(bytes), s.format.delimiter);
    }
    if (bytes == 0) return std::nullopt;  // a record longer than cap, or a short last one: read_records says so
    if (::lseek(in.fd, static_cast<off_t>(pos + bytes), SEEK_SET) < 0) return std::nullopt;
    s.begin = s.end = s.scanned = 0;
    s.eof = false;
    s.bytes = s.bytes - buffered + bytes;  // the buffered bytes were counted when read
    s.records += records;
    s.ended_with_delimiter = true;
    auto window = std::make_shared<mapped_window>(in.map, data, static_cast<std::size_t>(bytes));
    return mapped_records{data, bytes, records, std::shared_ptr<const void>(window, window.get())};
  }
  return std::nullopt;
}

std::uint64_t record_reader::bytes_read() const { return p_->bytes; }
std::optional<std::uint64_t> record_reader::size_hint() const { return p_->hint; }
std::uint64_t record_reader::records() const noexcept { return p_->records; }
bool record_reader::ended_with_delimiter() const noexcept { return p_->ended_with_delimiter; }
const std::string& record_reader::current_path() const noexcept {
  return p_->inputs[std::min(p_->current, p_->inputs.size() - 1)].path;
}

}  // namespace fairdeck
