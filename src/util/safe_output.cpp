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

namespace fairdeck {
namespace {

constexpr std::size_t buffer_size = 1 << 20;

std::string shown(const std::string& path) { return path == "-" ? "standard output" : fmt::format("'{}'", path); }

[[noreturn]] void fail(output_error_kind kind, const std::string& path, int err, std::string_view action = "write") {
  throw output_error(kind, path, err, fmt::format("cannot {} {}: {}", action, shown(path), std::strerror(err)));
}

output_error_kind kind_of(int err) {
  switch (err) {
    case EACCES: case EPERM: case EROFS: return output_error_kind::not_writable;
    case EISDIR: return output_error_kind::is_directory;
    case ENOENT: case ENOTDIR: return output_error_kind::no_parent;
    default: return output_error_kind::io;
  }
}

std::string parent_of(const std::string& p) {
  const auto slash = p.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return p.substr(0, slash);
}

std::string base_of(const std::string& p) {
  const auto slash = p.find_last_of('/');
  return slash == std::string::npos ? p : p.substr(slash + 1);
}

// The kernel's fs.protected_symlinks rule (Documentation/admin-guide/sysctl/fs.rst; namei.c's
// may_follow_link): a symbolic link in a sticky world-writable folder is followed only by its
// owner or when the folder's owner owns it. Applied here whatever the sysctl says, so a link
// another user planted in /tmp never redirects an output, on any machine.
void check_may_follow(const std::string& path, const std::string& link, const struct stat& lst, const std::string& dir) {
  if (lst.st_uid == ::geteuid()) return;
  struct stat dst {};
  if (::stat(dir.c_str(), &dst) != 0) return;  // the walk just came through it; the kernel reports what follows
  if ((dst.st_mode & (S_ISVTX | S_IWOTH)) != (S_ISVTX | S_IWOTH)) return;
  if (dst.st_uid == lst.st_uid) return;
  const bool is_the_path = link == path || (path.front() != '/' && link.ends_with("/" + path));
  throw output_error(output_error_kind::unsafe_link, path, EACCES,
                     fmt::format("refusing to follow the symbolic link '{}'{}: it is in the sticky world-writable folder "
                                 "'{}' and belongs to neither you nor the folder's owner (the kernel's protected_symlinks "
                                 "rule); remove the link or choose another output path",
                                 link, is_the_path ? "" : fmt::format(" on the way to {}", shown(path)), dir));
}

// The path the kernel would reach for `path`, walked one component at a time: every symbolic
// link met (in the middle or at the end, also a dangling one) is checked by check_may_follow
// before it is followed, so the result holds no link the rule refuses — and no link at all
// up to the first missing component. Where a component is missing or not a folder the rest is
// appended as given (the caller's own calls then report it as the kernel does).
std::string follow_as_the_kernel_would(const std::string& path) {
  std::vector<std::string> todo;  // components still to walk, the next one last
  auto push_front = [&todo](const std::string& p) {
    std::vector<std::string> parts;
    for (std::size_t at = 0; at <= p.size();) {
      const std::size_t slash = std::min(p.find('/', at), p.size());
      if (slash > at) parts.push_back(p.substr(at, slash - at));
      at = slash + 1;
    }
    todo.insert(todo.end(), parts.rbegin(), parts.rend());
  };
  std::string cur;  // the folder reached so far, without links; "" is the root
  if (path.front() != '/') {
    std::array<char, PATH_MAX> buf{};
    if (::getcwd(buf.data(), buf.size()) == nullptr) return path;
    cur = buf.data();
    if (cur == "/") cur.clear();
  }
  push_front(path);
  int links = 0;
  while (!todo.empty()) {
    std::string comp = std::move(todo.back());
    todo.pop_back();
    if (comp == ".") continue;
    if (comp == "..") {
      cur.erase(std::min(cur.size(), cur.rfind('/')));  // cur has no links: its parent is textual
      continue;
    }
    const std::string next = cur + "/" + comp;
    struct stat st {};
    if (::lstat(next.c_str(), &st) != 0 || (!S_ISLNK(st.st_mode) && !S_ISDIR(st.st_mode) && !todo.empty())) {
      std::string rest = next;  // missing, or a file used as a folder: the kernel will say so
      for (auto it = todo.rbegin(); it != todo.rend(); ++it) rest += "/" + *it;
      return rest;
    }
    if (!S_ISLNK(st.st_mode)) {
      cur = next;
      continue;
    }
    check_may_follow(path, next, st, cur.empty() ? "/" : cur);
    if (++links > 40) fail(output_error_kind::io, path, ELOOP, "resolve");
    std::array<char, PATH_MAX> buf{};
    const ssize_t n = ::readlink(next.c_str(), buf.data(), buf.size() - 1);
    if (n <= 0) fail(output_error_kind::io, path, n < 0 ? errno : ENOENT, "resolve");
    const std::string text(buf.data(), static_cast<std::size_t>(n));
    if (text.front() == '/') cur.clear();
    push_front(text);
  }
  return cur.empty() ? "/" : cur;
}

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

bool same_file(const struct stat& a, const struct stat& b) { return a.st_dev == b.st_dev && a.st_ino == b.st_ino; }

}  // namespace

output_plan check_output_path(const std::string& path, std::span<const std::string> inputs) {
  if (path.empty()) throw output_error(output_error_kind::empty_path, path, 0, "an output path is empty: give a file name");
  output_plan plan{path, path, output_mode::standard_output};
  if (path == "-") return plan;
  // Every link on the way is checked first (check_may_follow): also those the kernel follows
  // itself when a device or FIFO is opened through the path as given.
  const std::string real = follow_as_the_kernel_would(path);
  struct stat st {};
  // A device, FIFO or socket (also behind a link, e.g. /dev/stdout -> /proc/self/fd/1 ->
  // "pipe:[…]"), and anything under /dev or /proc (/dev/stdout redirected to a file), is
  // written through the path as given; only regular files and new paths use the resolved one.
  const bool special = path.starts_with("/dev/") || path.starts_with("/proc/");
  if (::stat(path.c_str(), &st) == 0 && (special || !S_ISREG(st.st_mode)) && !S_ISDIR(st.st_mode)) {
    plan.mode = output_mode::write_through;
    if (::access(path.c_str(), W_OK) != 0) fail(kind_of(errno), path, errno);
    struct stat rst {};
    if (!special && ::stat(real.c_str(), &rst) == 0 && same_file(rst, st)) plan.target = real;
    return plan;
  }
  plan.target = real;
  if (::stat(plan.target.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) fail(output_error_kind::is_directory, path, EISDIR);
    plan.mode = S_ISREG(st.st_mode) ? output_mode::replace : output_mode::write_through;
    if (::access(plan.target.c_str(), W_OK) != 0) fail(kind_of(errno), path, errno);
    if (plan.mode == output_mode::replace) {
      for (const auto& in : inputs) {
        struct stat ist {};
        const int r = in == "-" ? ::fstat(STDIN_FILENO, &ist) : ::stat(in.c_str(), &ist);
        if (r == 0 && same_file(st, ist))
          throw output_error(output_error_kind::same_as_input, path, 0,
                             fmt::format("{} is the same file as the input {}: refusing to overwrite it; choose another output file",
                                         shown(path), in == "-" ? "standard input" : fmt::format("'{}'", in)));
      }
    }
  } else if (errno != ENOENT) {
    fail(kind_of(errno), path, errno);
  } else {
    plan.mode = output_mode::replace;
  }
  if (plan.mode == output_mode::replace) {
    const std::string dir = parent_of(plan.target);
    struct stat dst {};
    if (::stat(dir.c_str(), &dst) != 0) fail(output_error_kind::no_parent, path, errno);
    if (!S_ISDIR(dst.st_mode)) fail(output_error_kind::no_parent, path, ENOTDIR);
    if (::access(dir.c_str(), W_OK | X_OK) != 0) fail(kind_of(errno), path, errno);
  }
  return plan;
}

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
    } else if (fd >= 0 && plan.mode == output_mode::write_through) {
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
    if (s.plan.mode == output_mode::replace) {
      s.close_direct();
      if (::fsync(s.fd) != 0) fail(output_error_kind::io, s.plan.path, errno, "sync");
      if (s.anonymous) s.link_anonymous();
    }
    const int fd = s.fd;
    s.fd = -1;
    if (::close(fd) != 0 && errno != EINTR) fail(output_error_kind::io, s.plan.path, errno, "close");
    if (s.plan.mode == output_mode::replace) {
      if (::rename(s.temp.c_str(), s.plan.target.c_str()) != 0) fail(kind_of(errno), s.plan.path, errno, "create");
      unregister_partial(s.slot);
      s.slot = -1;
      s.temp.clear();
      const int dfd = ::open(parent_of(s.plan.target).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (dfd >= 0) {
        const int r = ::fsync(dfd);
        const int err = errno;
        ::close(dfd);
        if (r != 0 && err != EINVAL) fail(output_error_kind::io, s.plan.path, err, "sync the folder of");
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
