#include "fairdeck/util/read_input.hpp"

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <sodium.h>

#include "fairdeck/util/printable.hpp"

namespace fairdeck {
namespace {

// All of fd into one string allocated at max_bytes + 1 and never moved; wiped on every error.
// `name`: the input as messages name it.
std::string read_secret_fd(int fd, bool close_fd, const std::string& name, std::size_t max_bytes,
                           std::string_view what) {
  std::string out(max_bytes + 1, '\0');
  std::size_t got = 0;
  int err = 0;
  while (got < out.size()) {
    const ssize_t n = ::read(fd, out.data() + got, out.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) err = errno;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  if (close_fd) ::close(fd);
  if (err == 0 && got <= max_bytes) {
    out.resize(got);
    return out;
  }
  sodium_memzero(out.data(), out.size());
  if (err != 0) throw std::runtime_error(fmt::format("cannot read {} {}: {}", what, name, std::strerror(err)));
  throw std::runtime_error(fmt::format("{} {} is larger than {} bytes", what, name, max_bytes));
}

}  // namespace

std::string read_input(std::string_view path, std::size_t max_bytes, std::string_view what) {
  const bool is_stdin = path == "-";
  const std::string name = is_stdin ? std::string("standard input") : printable(path, 200);
  const int fd = is_stdin ? STDIN_FILENO : ::open(std::string(path).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error(fmt::format("cannot open {} {}: {}", what, name, std::strerror(errno)));
  std::string out;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      if (!is_stdin) ::close(fd);
      throw std::runtime_error(fmt::format("cannot read {} {}: {}", what, name, std::strerror(err)));
    }
    if (n == 0) break;
    if (out.size() + static_cast<std::size_t>(n) > max_bytes) {
      if (!is_stdin) ::close(fd);
      throw std::runtime_error(fmt::format("{} {} is larger than {} bytes", what, name, max_bytes));
    }
    out.append(buf, static_cast<std::size_t>(n));
  }
  if (!is_stdin) ::close(fd);
  return out;
}

std::string read_secret_input(std::string_view path, std::size_t max_bytes, std::string_view what) {
  const bool is_stdin = path == "-";
  const std::string name = is_stdin ? std::string("standard input") : printable(path, 200);
  const int fd = is_stdin ? STDIN_FILENO : ::open(std::string(path).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error(fmt::format("cannot open {} {}: {}", what, name, std::strerror(errno)));
  return read_secret_fd(fd, !is_stdin, name, max_bytes, what);
}

std::string read_secret_file(std::string_view path, std::size_t max_bytes, std::string_view what) {
  const std::string name = printable(path, 200);
  const int fd = ::open(std::string(path).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error(fmt::format("cannot open {} {}: {}", what, name, std::strerror(errno)));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw std::runtime_error(fmt::format("{} {} is not a regular file", what, name));
  }
  if ((st.st_mode & 077) != 0) {
    ::close(fd);
    throw std::runtime_error(
        fmt::format("{} {} is accessible by other users (mode {:o}); chmod 600 it", what, name, st.st_mode & 0777));
  }
  return read_secret_fd(fd, true, name, max_bytes, what);
}

}  // namespace fairdeck
