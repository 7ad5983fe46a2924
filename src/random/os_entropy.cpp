// OS entropy read directly with getrandom(2), so a failure is an exception with its cause
// instead of libsodium's abort() (sodium_init -> randombytes_stir -> sodium_misuse).
#include "fairdeck/random/os_entropy.hpp"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>

#include <fcntl.h>
#include <sys/random.h>
#include <unistd.h>

namespace fairdeck {
namespace {

// getrandom(2) blocks until the kernel's pool is initialised, then never fails for <= 256
// bytes except by a signal (EINTR: retried). Reads larger than 256 bytes may be short: loop.
bool read_getrandom(std::span<std::byte> out, int& err) {
  std::size_t done = 0;
  while (done < out.size()) {
    const ssize_t n = ::getrandom(out.data() + done, out.size() - done, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      err = n < 0 ? errno : EIO;
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  return true;
}

// Only for kernels older than 3.17 (getrandom is ENOSYS): /dev/urandom, O_CLOEXEC.
bool read_urandom(std::span<std::byte> out, int& err) {
  const int fd = ::open("/dev/urandom", O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    err = errno;
    return false;
  }
  std::size_t done = 0;
  while (done < out.size()) {
    const ssize_t n = ::read(fd, out.data() + done, out.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      err = n < 0 ? errno : EIO;
      ::close(fd);
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
  return true;
}

thread_local std::string g_last_error;  // the cause of this thread's last failure

bool system_source(std::span<std::byte> out) {
  int err = 0;
  if (read_getrandom(out, err)) return true;
  if (err != ENOSYS) {
    g_last_error = std::string("getrandom: ") + std::strerror(err);
    return false;
  }
  int uerr = 0;
  if (read_urandom(out, uerr)) return true;
  g_last_error = std::string("getrandom: ") + std::strerror(err) + "; /dev/urandom: " + std::strerror(uerr);
  return false;
}

std::atomic<entropy_source_fn> g_source{&system_source};

}  // namespace

void os_entropy(std::span<std::byte> out) {
  const entropy_source_fn source = g_source.load();
  if (!source(out)) {
    const std::string cause = source == &system_source ? " (" + g_last_error + ")" : std::string();
    throw entropy_error("the operating system provided no entropy" + cause +
                        "; fairdeck will not fall back to a predictable seed");
  }
}

void set_entropy_source_for_testing(entropy_source_fn source) noexcept {
  g_source.store(source ? source : &system_source);
}

}  // namespace fairdeck
