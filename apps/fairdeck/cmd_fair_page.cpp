// fairdeck fair page: writes the player's browser verifier (docs/verify-page.md), the exact
// bytes of web/verify.html that fairdeckd serves at GET /verify, to a file or stdout.
#include "cmd_fair_page.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "fairdeck/security/verify_page.hpp"

namespace fairdeck::cli {
namespace {

[[noreturn]] void fail(const std::string& what, const std::string& path) {
  throw std::runtime_error(fmt::format("cannot {} '{}': {}", what, path, std::strerror(errno)));
}

void write_all(int fd, std::string_view data, const std::string& path) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("write", path);
    data.remove_prefix(static_cast<std::size_t>(n));
  }
}

// A regular file (or a new one) is replaced whole: temporary file beside it, fsync, rename,
// so readers never see half a page and a failure leaves the old file as it was. Anything
// else (a symlink, a device, a FIFO) is written through.
void write_page(const std::string& path, std::string_view page) {
  struct stat st {};
  const bool exists = ::lstat(path.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode)) {
    errno = EISDIR;
    fail("write", path);
  }
  if (exists && !S_ISREG(st.st_mode)) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0) fail("open", path);
    try {
      write_all(fd, page, path);
    } catch (...) {
      ::close(fd);
      throw;
    }
    if (::close(fd) != 0) fail("write", path);
    return;
  }
  std::string tmp = path + ".XXXXXX";
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0) fail("create a temporary file for", path);
  try {
    const mode_t umask_now = ::umask(0);
    ::umask(umask_now);
    const mode_t mode = exists ? (st.st_mode & 07777) : (0666 & ~umask_now);
    if (::fchmod(fd, mode) != 0) fail("set the mode of", tmp);
    write_all(fd, page, tmp);
    if (::fsync(fd) != 0) fail("write", tmp);
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  if (::close(fd) != 0) {
    const int saved = errno;
    ::unlink(tmp.c_str());
    errno = saved;
    fail("write", tmp);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int saved = errno;
    ::unlink(tmp.c_str());
    errno = saved;
    fail("create", path);
  }
}

int run_page(const std::string& out) {
  const std::string_view page = fair::verify_page();
  if (out.empty() || out == "-") {
    if (std::fwrite(page.data(), 1, page.size(), stdout) != page.size() || std::fflush(stdout) != 0)
      fail("write", "standard output");
    return 0;
  }
  write_page(out, page);
  return 0;
}

}  // namespace

void add_fair_page_command(CLI::App& fair, int& exit_code) {
  auto out = std::make_shared<std::string>();
  auto* page = fair.add_subcommand(
      "page", "Write the player's offline browser verifier (verify.html; docs/verify-page.md), as fairdeckd serves it");
  page->add_option("-o,--out", *out, "File to write (default: standard output)");
  page->callback([out, &exit_code] { exit_code = run_page(*out); });
}

}  // namespace fairdeck::cli
