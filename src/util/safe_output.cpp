// Safe output files: see include/fairdeck/util/safe_output.hpp for the guarantees.
#include "fairdeck/util/safe_output.hpp"

#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstring>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "output_common.hpp"

namespace fairdeck {
namespace {

using output_detail::base_of;
using output_detail::fail;
using output_detail::kind_of;
using output_detail::parent_of;

constexpr std::size_t buffer_size = 1 << 20;

// A descriptor closed when it goes out of scope (-1: none).
struct fd_holder {
  int fd = -1;
  fd_holder() = default;
  fd_holder(const fd_holder&) = delete;
  fd_holder& operator=(const fd_holder&) = delete;
  ~fd_holder() {
    if (fd >= 0) ::close(fd);
  }
};

// ---- registry of live temporary files, read by remove_partial_outputs() in a signal handler
struct partial_slot {
  std::atomic<int> state{0};  // 0 free, 1 being filled, 2 live
  std::array<char, PATH_MAX> path{};
};
std::array<partial_slot, 64> g_partials;

int register_partial(const std::string& path) {
  if (path.size() >= PATH_MAX) return -1;
  for (std::size_t i = 0; i < g_partials.size(); ++i) {
    int expected = 0;
    if (g_partials[i].state.compare_exchange_strong(expected, 1)) {
      std::memcpy(g_partials[i].path.data(), path.c_str(), path.size() + 1);
      g_partials[i].state.store(2);
      return static_cast<int>(i);
    }
  }
  return -1;  // more than 64 at once: still removed by abort(), only not on a signal
}

void unregister_partial(int slot) noexcept {
  if (slot >= 0) g_partials[static_cast<std::size_t>(slot)].state.store(0);
}

std::string temp_name(const std::string& target) {
  static std::atomic<unsigned> counter{0};
  const auto t = static_cast<unsigned long long>(std::chrono::steady_clock::now().time_since_epoch().count());
  const unsigned long long mix = (t * 0x9E3779B97F4A7C15ULL) ^ (static_cast<unsigned long long>(::getpid()) << 20) ^ counter++;
  return fmt::format("{}/{}.{:06x}.fairdeck-partial", parent_of(target), base_of(target), mix & 0xFFFFFF);
}

}  // namespace

struct safe_output::state {
  output_plan plan;
  std::string temp;
  int fd = -1;
  int slot = -1;
  bool anonymous = false;  // fd is an O_TMPFILE file with no name yet
  bool target_was_link = false;  // write-through: plan.target was a link when checked
  bool done = false;
  std::uint64_t written = 0;
  std::vector<char> buf;

  std::uint64_t offset = 0;  // replace mode: where put() writes next (reserve() skips ahead)
  // The temporary file opened again with O_DIRECT, for write_at's whole pages (-1: not open,
  // refused, or given up after a direct write failed with EINVAL).
  int direct_fd = -1;
  bool direct_tried = false;
  std::atomic<bool> direct_refused{false};

  void open_direct() {
    direct_tried = true;
    // Only where the file system's blocks are no bigger than the unit: then no block is
    // shared by a direct and a buffered write.
    struct stat st {};
    if (::fstat(fd, &st) != 0 || st.st_blksize <= 0 || static_cast<std::uint64_t>(st.st_blksize) > direct_alignment) return;
    const std::string path = anonymous ? fmt::format("/proc/self/fd/{}", fd) : temp;
    direct_fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_DIRECT);
  }
  void close_direct() noexcept {
    if (direct_fd >= 0) ::close(direct_fd);
    direct_fd = -1;
  }
  // Writes [at, at + n) with O_DIRECT (p and at page-aligned, n whole pages); what the file
  // system refuses (EINVAL: then never again) or a short write leaves goes through the cache.
  void put_direct(const char* p, std::size_t n, std::uint64_t at) {
    while (n > 0) {
      const ssize_t w = ::pwrite(direct_fd, p, n, static_cast<off_t>(at));
      if (w < 0 && errno == EINTR) continue;
      if (w < 0 && errno == EINVAL) {
        direct_refused = true;
        break;
      }
      if (w <= 0) fail(output_error_kind::io, plan.path, w < 0 ? errno : EIO);
      p += w;
      at += static_cast<std::uint64_t>(w);
      n -= static_cast<std::size_t>(w);
      if (at % direct_alignment != 0) break;  // a short write off the page: the rest through the cache
    }
    if (n > 0) put_at(p, n, at);
  }

  void put(const char* p, std::size_t n) {
    if (fd < 0) open_through();
    if (plan.mode == output_mode::replace) {
      put_at(p, n, offset);
      offset += n;
      return;
    }
    while (n > 0) {
      const ssize_t w = ::write(fd, p, n);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) fail(output_error_kind::io, plan.path, w < 0 ? errno : EIO);
      p += w;
      n -= static_cast<std::size_t>(w);
    }
  }
  void put_at(const char* p, std::size_t n, std::uint64_t at) const {
    while (n > 0) {
      const ssize_t w = ::pwrite(fd, p, n, static_cast<off_t>(at));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) fail(output_error_kind::io, plan.path, w < 0 ? errno : EIO);
      p += w;
      at += static_cast<std::uint64_t>(w);
      n -= static_cast<std::size_t>(w);
    }
  }
  void flush() {
    put(buf.data(), buf.size());
    buf.clear();
  }
  void open_through() {
    if (plan.mode == output_mode::standard_output) {
      if (std::fflush(stdout) != 0) fail(output_error_kind::io, plan.path, errno);
      fd = STDOUT_FILENO;
      return;
    }
    if (plan.mode == output_mode::descriptor) {
      // What stdio holds for standard output goes first, should both be the same file (its
      // failure stays in stdout's error flag, for whoever reports standard output).
      (void)std::fflush(stdout);
      fd = ::fcntl(plan.fd, F_DUPFD_CLOEXEC, 3);
      if (fd < 0) fail(kind_of(errno), plan.path, errno);
      return;
    }
    // What was checked is what is opened: a target that was no link then must be none now
    // (a FIFO another user owns in /tmp, replaced by a link in the meantime).
    fd = ::open(plan.target.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY | (target_was_link ? 0 : O_NOFOLLOW));
    if (fd < 0) fail(kind_of(errno), plan.path, errno, "open");
  }
  void create_temp() {
    struct stat st {};
    const bool exists = ::stat(plan.target.c_str(), &st) == 0;
    // An unnamed file in the target's folder (O_TMPFILE): if the process dies, even by
    // kill -9, nothing is left behind. It gets a name only when complete, at commit.
    // Without O_TMPFILE support (or /proc to link it by), a named temporary file.
#ifdef O_TMPFILE
    if (::access("/proc/self/fd", X_OK) == 0) {
      fd = ::open(parent_of(plan.target).c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
      anonymous = fd >= 0;
    }
#endif
    if (!anonymous) {
      for (int attempt = 0; attempt < 100; ++attempt) {
        temp = temp_name(plan.target);
        fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
        if (fd >= 0 || errno != EEXIST) break;
      }
      if (fd < 0) fail(kind_of(errno), plan.path, errno, "create a file next to");
      slot = register_partial(temp);
    }
    // A replaced file keeps its owner and group (where this process may give them: root, or
    // its own file and a group it is in; EPERM otherwise, EINVAL for an id not mapped in this
    // user namespace: then the new file is the caller's), then its mode (after: fchown
    // clears the set-user-ID and set-group-ID bits).
    if (exists && ::fchown(fd, st.st_uid, st.st_gid) != 0 && errno != EPERM && errno != EINVAL) {
      const int err = errno;
      drop();
      fail(output_error_kind::io, plan.path, err, "set the owner of");
    }
    if (exists && ::fchmod(fd, st.st_mode & 07777) != 0) {
      const int err = errno;
      drop();
      fail(output_error_kind::io, plan.path, err, "set the mode of");
    }
  }
  // Gives the unnamed file a temporary name next to the target (then renamed over it).
  void link_anonymous() {
    const std::string self = fmt::format("/proc/self/fd/{}", fd);
    for (int attempt = 0; attempt < 100; ++attempt) {
      temp = temp_name(plan.target);
      slot = register_partial(temp);
      if (::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, temp.c_str(), AT_SYMLINK_FOLLOW) == 0) return;
      const int err = errno;
      unregister_partial(slot);
      slot = -1;
      temp.clear();
      if (err != EEXIST) fail(kind_of(err), plan.path, err, "create");
    }
    fail(output_error_kind::io, plan.path, EEXIST, "create");
  }
  void drop() noexcept {
    close_direct();
    if (plan.mode == output_mode::replace && (anonymous || !temp.empty())) {
      if (fd >= 0) ::close(fd);  // an unnamed file vanishes with its descriptor
      if (!temp.empty()) ::unlink(temp.c_str());
    } else if (fd >= 0 && (plan.mode == output_mode::write_through || plan.mode == output_mode::descriptor)) {
      ::close(fd);
    }
    fd = -1;
    unregister_partial(slot);
    slot = -1;
    done = true;
  }
};

safe_output::safe_output(const std::string& path, std::span<const std::string> inputs) : s_(std::make_unique<state>()) {
  s_->plan = check_output_path(path, inputs);
  struct stat lst {};
  s_->target_was_link = ::lstat(s_->plan.target.c_str(), &lst) == 0 && S_ISLNK(lst.st_mode);
  if (s_->plan.mode == output_mode::replace) s_->create_temp();
  s_->buf.reserve(buffer_size);
}

safe_output::~safe_output() { abort(); }
safe_output::safe_output(safe_output&&) noexcept = default;
safe_output& safe_output::operator=(safe_output&& other) noexcept {
  if (this != &other) {
    abort();
    s_ = std::move(other.s_);
  }
  return *this;
}

const output_plan& safe_output::plan() const { return s_->plan; }
std::uint64_t safe_output::bytes_written() const { return s_->written; }

void safe_output::write(const void* data, std::size_t size) {
  if (!s_ || s_->done) throw std::logic_error("safe_output::write after commit or abort");
  const char* p = static_cast<const char*>(data);
  try {
    if (s_->buf.size() + size > buffer_size) s_->flush();
    if (size >= buffer_size)
      s_->put(p, size);
    else
      s_->buf.insert(s_->buf.end(), p, p + size);
  } catch (...) {
    abort();
    throw;
  }
  s_->written += size;
}

std::optional<std::uint64_t> safe_output::reserve(std::uint64_t n) {
  if (!s_ || s_->done) throw std::logic_error("safe_output::reserve after commit or abort");
  if (s_->plan.mode != output_mode::replace) return std::nullopt;
  try {
    s_->flush();
  } catch (...) {
    abort();
    throw;
  }
  if (n >= direct_min_bytes && !s_->direct_tried) s_->open_direct();  // here: reserve() runs on one thread
  const std::uint64_t at = s_->offset;
  s_->offset += n;
  s_->written += n;
  return at;
}

void safe_output::write_at(const void* data, std::size_t n, std::uint64_t offset) {
  if (!s_ || s_->done || s_->plan.mode != output_mode::replace) throw std::logic_error("safe_output::write_at without a reserved range");
  // no abort() here: other threads may be writing; the owner aborts
  state& s = *s_;
  const char* p = static_cast<const char*>(data);
  if (s.direct_fd >= 0 && n >= direct_min_bytes && !s.direct_refused.load(std::memory_order_relaxed)) {
    const std::uint64_t head = (direct_alignment - offset % direct_alignment) % direct_alignment;
    const std::uint64_t pages = (n - std::min<std::uint64_t>(head, n)) / direct_alignment * direct_alignment;
    if (pages > 0 && reinterpret_cast<std::uintptr_t>(p + head) % direct_alignment == 0) {
      s.put_at(p, static_cast<std::size_t>(head), offset);
      s.put_direct(p + head, static_cast<std::size_t>(pages), offset + head);
      s.put_at(p + head + pages, static_cast<std::size_t>(n - head - pages), offset + head + pages);
      return;
    }
  }
  s.put_at(p, n, offset);
}

void safe_output::commit() {
  if (!s_ || s_->done) throw std::logic_error("safe_output::commit after commit or abort");
  state& s = *s_;
  try {
    s.flush();
    if (s.fd < 0) s.open_through();  // nothing written: still create / touch the target
    if (s.plan.mode == output_mode::standard_output) {
      s.done = true;
      s.fd = -1;
      return;
    }
    // The rename is made durable by an fsync of the folder or, where the folder cannot be
    // opened (a 0733 drop folder of another user), by a syncfs through the file itself,
    // kept open for it past its close below.
    fd_holder dir, keep;
    if (s.plan.mode == output_mode::replace) {
      s.close_direct();
      if (::fsync(s.fd) != 0) fail(output_error_kind::io, s.plan.path, errno, "sync");
      if (s.anonymous) s.link_anonymous();
      dir.fd = ::open(parent_of(s.plan.target).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (dir.fd < 0 && (keep.fd = ::fcntl(s.fd, F_DUPFD_CLOEXEC, 3)) < 0)
        fail(output_error_kind::io, s.plan.path, errno, "sync the folder of");
    }
    const int fd = s.fd;
    s.fd = -1;
    if (::close(fd) != 0 && errno != EINTR) fail(output_error_kind::io, s.plan.path, errno, "close");
    if (s.plan.mode == output_mode::replace) {
      if (::rename(s.temp.c_str(), s.plan.target.c_str()) != 0) fail(kind_of(errno), s.plan.path, errno, "create");
      unregister_partial(s.slot);
      s.slot = -1;
      s.temp.clear();
      if (dir.fd >= 0) {
        if (::fsync(dir.fd) != 0 && errno != EINVAL) fail(output_error_kind::io, s.plan.path, errno, "sync the folder of");
      } else if (::syncfs(keep.fd) != 0) {
        fail(output_error_kind::io, s.plan.path, errno, "sync the file system of");
      }
    }
    s.done = true;
  } catch (...) {
    abort();
    throw;
  }
}

void safe_output::abort() noexcept {
  if (s_ && !s_->done) s_->drop();
}

void write_output_file(const std::string& path, std::string_view content, std::span<const std::string> inputs) {
  safe_output out(path, inputs);
  out.write(content);
  out.commit();
}

void remove_partial_outputs() noexcept {
  for (auto& slot : g_partials)
    if (slot.state.load() == 2) ::unlink(slot.path.data());
}

}  // namespace fairdeck
