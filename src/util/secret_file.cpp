// Secret files: O_EXCL | O_NOFOLLOW, 0600, checked writes, fsync of file and folder
// (secret_file.hpp).
#include "fairdeck/util/secret_file.hpp"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fairdeck {
namespace {

[[noreturn]] void fail(secret_file_error::kind_t kind, std::string_view action, const std::filesystem::path& path,
                       int err) {
  throw secret_file_error(kind, err, "cannot " + std::string(action) + " " + path.string() + ": " + std::strerror(err));
}

}  // namespace

void create_secret_file(const std::filesystem::path& path, std::string_view bytes) {
  create_new_file(path, bytes, S_IRUSR | S_IWUSR);
}

void create_new_file(const std::filesystem::path& path, std::string_view bytes, unsigned mode) {
  // Created owner-only; the mode asked for is set before the first byte (fchmod below).
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, S_IRUSR | S_IWUSR);
  if (fd < 0) {
    const int err = errno;
    if (err == EEXIST)
      throw secret_file_error(secret_file_error::kind_t::exists, err, path.string() + " already exists");
    fail(secret_file_error::kind_t::create, "create", path, err);
  }
  auto abandon = [&](std::string_view action, int err) {
    ::close(fd);
    ::unlink(path.c_str());
    fail(secret_file_error::kind_t::io, action, path, err);
  };
  if (::fchmod(fd, static_cast<mode_t>(mode)) != 0) abandon("set the mode of", errno);  // whatever the umask
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) abandon("write", n < 0 ? errno : EIO);
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) abandon("sync", errno);
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(path.c_str());
    fail(secret_file_error::kind_t::io, "close", path, err);
  }
  // The new directory entry is durable only once the folder itself is synced: without this a
  // crash right after the call can lose a secret that was already reported written.
  const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0 || ::fsync(dfd) != 0) {
    const int err = errno;
    if (dfd >= 0) ::close(dfd);
    ::unlink(path.c_str());
    fail(secret_file_error::kind_t::io, "sync the directory of", path, err);
  }
  ::close(dfd);
}

}  // namespace fairdeck
