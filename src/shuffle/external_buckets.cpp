// Temporary bucket files, the memory budget and its default (external.hpp).
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <new>
#include <sstream>

#include <fcntl.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "external_parts.hpp"
#include "fairdeck/util/byte_size.hpp"

namespace fairdeck {

std::uint64_t max_record_bytes(std::uint64_t memory_bytes) noexcept { return std::max<std::uint64_t>(memory_bytes / 16, 1); }

namespace {

// A /proc or /sys number after `key` (or the whole file when key is empty); 0 if absent.
std::uint64_t read_number(const char* path, std::string_view key, std::uint64_t unit) {
  std::ifstream f(path);
  std::string line;
  while (std::getline(f, line)) {
    if (!key.empty() && !line.starts_with(key)) continue;
    std::istringstream ss(line.substr(key.size()));
    std::uint64_t v = 0;
    if (ss >> v) return v * unit;
    return 0;  // e.g. "max"
  }
  return 0;
}

std::uint64_t rlimit_headroom(int resource, std::uint64_t used) {
  struct rlimit rl {};
  if (::getrlimit(resource, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return UINT64_MAX;
  return rl.rlim_cur > used ? rl.rlim_cur - used : 0;
}

}  // namespace

std::uint64_t default_memory_budget() noexcept {
  try {
    std::uint64_t avail = read_number("/proc/meminfo", "MemAvailable:", 1024);
    if (avail == 0) avail = static_cast<std::uint64_t>(::sysconf(_SC_PHYS_PAGES)) * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
    // cgroup v2: the limit of this process's group
    std::ifstream cg("/proc/self/cgroup");
    std::string line;
    while (std::getline(cg, line))
      if (line.starts_with("0::")) {
        const std::string dir = "/sys/fs/cgroup" + line.substr(3);
        const std::uint64_t max = read_number((dir + "/memory.max").c_str(), "", 1);
        const std::uint64_t cur = read_number((dir + "/memory.current").c_str(), "", 1);
        if (max) avail = std::min(avail, max > cur ? max - cur : 0);
      }
    // ulimit -v / -d: what is left of the address space (thread stacks and libraries
    // count there too, hence the same halving)
    const std::uint64_t vm = read_number("/proc/self/status", "VmSize:", 1024);
    avail = std::min({avail, rlimit_headroom(RLIMIT_AS, vm), rlimit_headroom(RLIMIT_DATA, vm)});
    return std::max<std::uint64_t>(avail / 2, std::uint64_t{16} << 20);
  } catch (...) {
    return std::uint64_t{256} << 20;
  }
}

namespace detail {

namespace {

// n bytes mapped (a multiple of the page), `align`-aligned (a power of two, at least the
// page): the mapping is made larger and trimmed to the aligned part. nullptr on failure.
void* map_bytes(std::size_t n, std::size_t align) {
  const std::size_t extra = align > 4096 ? align : 0;
  void* p = ::mmap(nullptr, n + extra, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  if (extra == 0) return p;
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t start = (at + align - 1) / align * align;
  if (start > at) ::munmap(p, start - at);
  if (const std::size_t tail = at + n + extra - (start + n); tail > 0) ::munmap(reinterpret_cast<void*>(start + n), tail);
  return reinterpret_cast<void*>(start);
}

}  // namespace

void release_freed_memory() noexcept {
#ifdef __GLIBC__
  (void)::malloc_trim(0);
#endif
}

void buffer_deleter::operator()(void* p) const noexcept {
  if (!p) return;
  if (mapped) ::munmap(p, mapped);
  else std::free(p);
}

big_buffer allocate(std::uint64_t bytes, const char* purpose) {
  if (bytes >= map_min_bytes) return allocate_big(bytes, purpose);
  void* p = std::malloc(static_cast<std::size_t>(std::max<std::uint64_t>(bytes, 1)));
  if (!p) throw memory_error(fmt::format("cannot allocate {} for {}", format_byte_size(bytes), purpose), bytes);
  return big_buffer(static_cast<char*>(p), buffer_deleter{0});
}

big_buffer allocate_big(std::uint64_t bytes, const char* purpose) {
  constexpr std::uint64_t huge = std::uint64_t{2} << 20;
  constexpr std::uint64_t page = 4096;
  const bool use_huge = bytes >= 2 * huge;
  const std::uint64_t unit = use_huge ? huge : page;
  const std::uint64_t n = (std::max<std::uint64_t>(bytes, 1) + unit - 1) / unit * unit;
  void* p = n <= SIZE_MAX / 2 ? map_bytes(static_cast<std::size_t>(n), static_cast<std::size_t>(unit)) : nullptr;
  if (!p) throw memory_error(fmt::format("cannot allocate {} for {}", format_byte_size(bytes), purpose), bytes);
  if (use_huge) (void)::madvise(p, static_cast<std::size_t>(n), MADV_HUGEPAGE);  // advice only: ignored where THP is off
  return big_buffer(static_cast<char*>(p), buffer_deleter{static_cast<std::size_t>(n)});
}

budget::budget(std::uint64_t m) : memory(m) {
  const std::uint64_t io = max_record_bytes(m) + std::min<std::uint64_t>(m / 8, std::uint64_t{4} << 20);
  work = m > io ? m - io : 1;
  bucket_buffers = work / 8;
  in_memory = work - bucket_buffers;
  // Buckets per scatter: every bucket gets a 4 KiB+ write buffer and a file descriptor.
  std::uint64_t fds = 1024;
  struct rlimit rl {};
  if (::getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) fds = rl.rlim_cur > 64 ? rl.rlim_cur - 64 : 2;
  const std::uint64_t by_memory = bucket_buffers / 4096;
  max_buckets = std::bit_floor(std::clamp<std::uint64_t>(std::min({fds, by_memory, std::uint64_t{1024}}), 2, 1024));
}

// Bucket files are written once, sequentially, and read back once: with O_DIRECT their bytes
// skip the page cache (no copy into it, no dirty pages crowding out the input and output, no
// writeback throttling). Direct writes need whole pages from an aligned buffer, so the buffer
// is a multiple of the page and only full buffers go out directly; the last partial page is
// written through the cache. Where O_DIRECT is refused (tmpfs), the file stays buffered.
// Each direct write waits for the device, so small buffers stay buffered: on this project's
// VM, dd oflag=direct wrote 466 MB/s in 64 KiB writes, 1.2 GB/s in 256 KiB, 1.6 GB/s in 512 KiB.
// Measured (bench/shuffle_file_bench.sh, 10.5 GB under --memory 1G, 256 buckets of ~390 KiB
// buffers): 39.7 and 39.7 s buffered, 32.3 and 32.9 s direct, in the same runs.
constexpr std::uint64_t direct_unit = 4096;

bucket_file::bucket_file(const std::string& dir, std::uint64_t buffer_bytes, ledger& mem, external_shuffle_stats& stats)
    : dir_(dir), cap_(std::max<std::uint64_t>(buffer_bytes / direct_unit * direct_unit, direct_unit)), mem_(mem), stats_(stats) {
  std::string name = dir + "/fairdeck-shuffle.XXXXXX";
  fd_ = ::mkostemp(name.data(), O_CLOEXEC);
  if (fd_ < 0) throw temp_space_error(fmt::format("cannot create a temporary file in '{}': {}", dir, std::strerror(errno)));
  ::unlink(name.c_str());  // nameless from now on: gone when closed, whatever happens
  const int fl = ::fcntl(fd_, F_GETFL);
  struct stat st {};
  direct_ = cap_ >= bucket_file::direct_min_buffer && ::fstat(fd_, &st) == 0 && st.st_blksize > 0 &&
            static_cast<std::uint64_t>(st.st_blksize) <= direct_unit && fl >= 0 && ::fcntl(fd_, F_SETFL, fl | O_DIRECT) == 0;
  try {
    buf_ = allocate_big(cap_, "a temporary file's write buffer");
  } catch (...) {
    ::close(fd_);
    throw;
  }
  mem_.take(cap_);
  ++stats_.buckets;
}

bucket_file::~bucket_file() { release(); }

void bucket_file::release() {
  if (buf_) {
    buf_.reset();
    mem_.give(cap_);
  }
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

void bucket_file::append(std::uint64_t key, std::string_view record) {
  const std::uint64_t need = 8 + varint_size(record.size()) + record.size();
  if (used_ + need <= cap_) {  // the common case: the record fits in the buffer
    auto* p = reinterpret_cast<std::uint8_t*>(buf_.get() + used_);
    std::memcpy(p, &key, 8);
    p = put_varint(p + 8, record.size());
    std::memcpy(p, record.data(), record.size());
    used_ = static_cast<std::uint64_t>(reinterpret_cast<char*>(p) - buf_.get()) + record.size();
  } else {  // it fills the buffer: split across buffers
    std::uint8_t head[8 + 10];
    std::memcpy(head, &key, 8);
    const auto* e = put_varint(head + 8, record.size());
    put(reinterpret_cast<const char*>(head), static_cast<std::uint64_t>(e - head));
    put(record.data(), record.size());
  }
  ++records_;
  record_bytes_ += record.size();
}

void bucket_file::put(const char* p, std::uint64_t n) {
  while (n > 0) {
    const std::uint64_t k = std::min(n, cap_ - used_);
    std::memcpy(buf_.get() + used_, p, static_cast<std::size_t>(k));
    used_ += k;
    p += k;
    n -= k;
    if (used_ == cap_) {
      write_out(buf_.get(), cap_);
      used_ = 0;
    }
  }
}

void bucket_file::flush() {
  if (!buf_) return;
  if (direct_) {  // whole pages directly, then the tail through the cache
    const std::uint64_t pages = used_ / direct_unit * direct_unit;
    write_out(buf_.get(), pages);
    stop_direct();
    write_out(buf_.get() + pages, used_ - pages);
  } else {
    write_out(buf_.get(), used_);
  }
  used_ = 0;
  buf_.reset();
  mem_.give(cap_);
}

void bucket_file::stop_direct() {
  const int fl = ::fcntl(fd_, F_GETFL);
  if (fl < 0 || ::fcntl(fd_, F_SETFL, fl & ~O_DIRECT) != 0)
    throw temp_space_error(fmt::format("cannot write a temporary file in '{}': {}", dir_, std::strerror(errno)));
  direct_ = false;
}

void bucket_file::write_out(const char* p, std::uint64_t left) {
  while (left > 0) {
    const ssize_t w = ::write(fd_, p, static_cast<std::size_t>(std::min<std::uint64_t>(left, 1u << 30)));
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && errno == EINVAL && direct_) {  // O_DIRECT accepted at open, refused here: go on through the cache
      stop_direct();
      continue;
    }
    if (w <= 0) {
      const int err = w < 0 ? errno : ENOSPC;
      throw temp_space_error(fmt::format("cannot write a temporary file in '{}': {} ({} written there so far; the "
                                         "temporary files need room for about the input's size)",
                                         dir_, std::strerror(err),
                                         format_byte_size(std::atomic_ref<std::uint64_t>(stats_.temp_bytes).load())));
    }
    p += w;
    left -= static_cast<std::uint64_t>(w);
    size_ += static_cast<std::uint64_t>(w);
    std::atomic_ref<std::uint64_t>(stats_.temp_bytes).fetch_add(static_cast<std::uint64_t>(w));  // workers write concurrently
  }
}

// Reading back goes through the cache: reading large buckets with O_DIRECT was slower
// (10.5 GB under --memory 1G: 35.3 and 34.9 s against 32.3 and 32.9 s).
void bucket_file::read(std::uint64_t offset, char* out, std::uint64_t n) const {
  while (n > 0) {
    const ssize_t r = ::pread(fd_, out, static_cast<std::size_t>(std::min<std::uint64_t>(n, 1u << 30)), static_cast<off_t>(offset));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0)
      throw temp_space_error(fmt::format("cannot read back a temporary file in '{}': {}", dir_,
                                         r < 0 ? std::strerror(errno) : "it is shorter than written"));
    out += r;
    n -= static_cast<std::uint64_t>(r);
    offset += static_cast<std::uint64_t>(r);
  }
}

}  // namespace detail
}  // namespace fairdeck
