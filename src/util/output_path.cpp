// The checks of an output path (check_output_path, same_output_target): see
// include/fairdeck/util/safe_output.hpp for the rules; the writer is src/util/safe_output.cpp.
#include <array>
#include <cerrno>
#include <climits>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "fairdeck/util/safe_output.hpp"
#include "output_common.hpp"

namespace fairdeck {
namespace {

using output_detail::fail;
using output_detail::kind_of;
using output_detail::parent_of;
using output_detail::same_file;
using output_detail::shown;

// The kernel's fs.protected_symlinks rule (Documentation/admin-guide/sysctl/fs.rst; namei.c's
// may_follow_link): a symbolic link in a sticky world-writable folder is followed only by its
// owner or when the folder's owner owns it. Applied here whatever the sysctl says, so a link
// another user planted in /tmp never redirects an output, on any machine.
void check_may_follow(const std::string& path, const std::string& link, const struct stat& lst,
                      const std::string& dir) {
  if (lst.st_uid == ::geteuid()) return;
  struct stat dst {};
  if (::stat(dir.c_str(), &dst) != 0) return;  // the walk just came through it; the kernel reports what follows
  if ((dst.st_mode & (S_ISVTX | S_IWOTH)) != (S_ISVTX | S_IWOTH)) return;
  if (dst.st_uid == lst.st_uid) return;
  const bool is_the_path = link == path || (path.front() != '/' && link.ends_with("/" + path));
  throw output_error(
      output_error_kind::unsafe_link, path, EACCES,
      fmt::format("refusing to follow the symbolic link '{}'{}: it is in the sticky world-writable folder "
                  "'{}' and belongs to neither you nor the folder's owner (the kernel's protected_symlinks "
                  "rule); remove the link or choose another output path",
                  link, is_the_path ? "" : fmt::format(" on the way to {}", shown(path)), dir));
}

bool all_digits(const std::string& s) {
  return !s.empty() && s.size() < 10 && s.find_first_not_of("0123456789") == std::string::npos;
}

// Whether `dir` (a path without links) is this process's descriptor folder: /proc/PID/fd or
// /proc/PID/task/TID/fd, where /proc/self/fd and /proc/thread-self/fd (and so /dev/fd) lead.
bool is_own_fd_folder(const std::string& dir) {
  const std::string own = fmt::format("/proc/{}/", ::getpid());
  if (!dir.starts_with(own)) return false;
  const std::string rest = dir.substr(own.size());  // "fd" or "task/TID/fd"
  return rest == "fd" || (rest.starts_with("task/") && rest.ends_with("/fd") && rest.size() > 8 &&
                          all_digits(rest.substr(5, rest.size() - 8)));
}

// The path the kernel would reach for `path`, walked one component at a time: every symbolic
// link met (in the middle or at the end, also a dangling one) is checked by check_may_follow
// before it is followed, so the result holds no link the rule refuses — and no link at all
// up to the first missing component. Where a component is missing or not a folder the rest is
// appended as given (the caller's own calls then report it as the kernel does).
// When the path ends at an entry of this process's descriptor folder (/dev/stdout,
// /dev/fd/N, /proc/self/fd/N, also a closed N), *own_fd is set to N: the kernel would open
// the descriptor's file anew (at offset 0, without its O_APPEND); the writer uses a
// duplicate of the descriptor instead.
std::string follow_as_the_kernel_would(const std::string& path, int* own_fd) {
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
    const bool found = ::lstat(next.c_str(), &st) == 0;
    if (todo.empty() && (!found || S_ISLNK(st.st_mode)) && all_digits(comp) && is_own_fd_folder(cur)) {
      *own_fd = std::stoi(comp);
      return next;
    }
    if (!found || (!S_ISLNK(st.st_mode) && !S_ISDIR(st.st_mode) && !todo.empty())) {
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

// The plan for this process's descriptor fd (see follow_as_the_kernel_would): it must be
// open for writing.
output_plan descriptor_plan(const std::string& path, int fd) {
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0) fail(kind_of(errno), path, errno);
  if ((flags & O_ACCMODE) == O_RDONLY || (flags & O_PATH) != 0)
    throw output_error(output_error_kind::not_writable, path, EBADF,
                       fmt::format("cannot write {}: descriptor {} is not open for writing", shown(path), fd));
  return {path, path, fd == STDOUT_FILENO ? output_mode::standard_output : output_mode::descriptor, fd};
}

}  // namespace

output_plan check_output_path(const std::string& path, std::span<const std::string> inputs) {
  if (path.empty())
    throw output_error(output_error_kind::empty_path, path, 0, "an output path is empty: give a file name");
  if (path == "-") return {path, path, output_mode::standard_output, STDOUT_FILENO};
  output_plan plan{path, path, output_mode::replace, -1};
  // Every link on the way is checked first (check_may_follow): also those the kernel follows
  // itself when a device or FIFO is opened through the path as given.
  int own_fd = -1;
  const std::string real = follow_as_the_kernel_would(path, &own_fd);
  struct stat st {};
  if (path.back() == '/') {  // names a folder for the kernel too: never a file made without the '/'
    const bool exists = ::stat(path.c_str(), &st) == 0;
    const int err = exists ? 0 : errno;
    if (err == ENOTDIR) fail(output_error_kind::no_parent, path, ENOTDIR);
    if (err == ENOENT && ::stat(parent_of(real).c_str(), &st) != 0) fail(output_error_kind::no_parent, path, ENOENT);
    fail(output_error_kind::is_directory, path, EISDIR);
  }
  if (own_fd >= 0) return descriptor_plan(path, own_fd);
  // A device, FIFO or socket (also behind a link) is written through; only regular files and
  // new paths are replaced, wherever they are (/dev/shm too).
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
    plan.mode = output_mode::write_through;
    if (::access(path.c_str(), W_OK) != 0) fail(kind_of(errno), path, errno);
    struct stat rst {};
    if (::stat(real.c_str(), &rst) == 0 && same_file(rst, st)) plan.target = real;
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
          throw output_error(
              output_error_kind::same_as_input, path, 0,
              fmt::format("{} is the same file as the input {}: refusing to overwrite it; choose another output file",
                          shown(path), in == "-" ? "standard input" : fmt::format("'{}'", in)));
      }
    }
  } else if (errno != ENOENT) {
    fail(kind_of(errno), path, errno);
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

bool same_output_target(const output_plan& a, const output_plan& b) {
  if (a.fd >= 0 && a.fd == b.fd) return true;
  if (a.fd < 0 && b.fd < 0 && a.target == b.target) return true;
  const auto identify = [](const output_plan& p, struct stat& st) {
    return (p.fd >= 0 ? ::fstat(p.fd, &st) : ::stat(p.target.c_str(), &st)) == 0;
  };
  struct stat sa {
  }, sb{};
  return identify(a, sa) && identify(b, sb) && same_file(sa, sb);
}

}  // namespace fairdeck
