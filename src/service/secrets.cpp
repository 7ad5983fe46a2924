// Tokens, the key file and sealed seeds (libsodium).
#include "fairdeck/service/secrets.hpp"

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <sodium.h>

#include "fairdeck/random/chacha20.hpp"  // detail::prepare_sodium
#include "fairdeck/random/os_entropy.hpp"
#include "fairdeck/util/hex.hpp"

namespace fairdeck::service {
namespace {

std::string errno_text() { return std::strerror(errno); }

}  // namespace

std::string generate_token() {
  std::array<std::uint8_t, 32> bytes{};
  os_entropy(std::as_writable_bytes(std::span(bytes)));
  std::string t = "fdk_" + to_hex(bytes.data(), bytes.size());
  sodium_memzero(bytes.data(), bytes.size());
  return t;
}

std::string token_hash(std::string_view token) {
  unsigned char h[crypto_hash_sha256_BYTES];
  crypto_hash_sha256(h, reinterpret_cast<const unsigned char*>(token.data()), token.size());
  return to_hex(h, sizeof h);
}

bool equal_constant_time(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  return a.empty() || sodium_memcmp(a.data(), b.data(), a.size()) == 0;
}

secret_key secret_key::generate() {
  std::array<std::uint8_t, key_bytes> bytes{};
  os_entropy(std::as_writable_bytes(std::span(bytes)));
  secret_key k(bytes);
  sodium_memzero(bytes.data(), bytes.size());
  return k;
}

secret_key::~secret_key() { sodium_memzero(bytes_.data(), bytes_.size()); }

std::filesystem::path default_key_path(const std::filesystem::path& db) {
  auto p = db;
  p += ".key";
  return p;
}

secret_key create_key_file(const std::filesystem::path& path) {
  secret_key key = secret_key::generate();
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) throw std::runtime_error(fmt::format("cannot create key file {}: {}", path.string(), errno_text()));
  std::string text = to_hex(key.bytes().data(), key.bytes().size()) + "\n";
  bool ok = ::fchmod(fd, 0600) == 0;
  std::size_t done = 0;
  while (ok && done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) ok = false;
    else done += static_cast<std::size_t>(n);
  }
  ok = ok && ::fsync(fd) == 0;
  const std::string why = errno_text();
  ok = (::close(fd) == 0) && ok;
  sodium_memzero(text.data(), text.size());
  if (!ok) {
    ::unlink(path.c_str());
    throw std::runtime_error(fmt::format("cannot write key file {}: {}", path.string(), why));
  }
  const auto dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return key;
}

secret_key read_key_file(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error(fmt::format("cannot open key file {}: {}", path.string(), errno_text()));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw std::runtime_error(fmt::format("key file {} is not a regular file", path.string()));
  }
  if ((st.st_mode & 077) != 0) {
    ::close(fd);
    throw std::runtime_error(
        fmt::format("key file {} is accessible by other users (mode {:o}); chmod 600 it", path.string(), st.st_mode & 0777));
  }
  char buf[2 * key_bytes + 8];
  ssize_t n;
  do n = ::read(fd, buf, sizeof buf); while (n < 0 && errno == EINTR);
  ::close(fd);
  std::size_t len = n > 0 ? static_cast<std::size_t>(n) : 0;
  while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r' || buf[len - 1] == ' ')) --len;
  std::array<std::uint8_t, key_bytes> bytes{};
  const bool ok = from_hex(std::string_view(buf, len), bytes.data(), bytes.size());
  sodium_memzero(buf, sizeof buf);
  if (!ok) throw std::runtime_error(fmt::format("key file {} does not hold 64 hex digits", path.string()));
  secret_key key(bytes);
  sodium_memzero(bytes.data(), bytes.size());
  return key;
}

std::string seal_seed(const fair::server_seed& seed, const secret_key& key) {
  detail::prepare_sodium();  // a clean entropy_error, never sodium_init's abort()
  static_assert(crypto_secretbox_KEYBYTES == key_bytes);
  std::array<unsigned char, crypto_secretbox_NONCEBYTES + crypto_secretbox_MACBYTES + fair::seed_bytes> box{};
  randombytes_buf(box.data(), crypto_secretbox_NONCEBYTES);
  crypto_secretbox_easy(box.data() + crypto_secretbox_NONCEBYTES, seed.bytes().data(), seed.bytes().size(), box.data(),
                        key.bytes().data());
  return to_hex(box.data(), box.size());
}

fair::server_seed open_seed(std::string_view sealed_hex, const secret_key& key) {
  detail::prepare_sodium();  // a clean entropy_error, never sodium_init's abort()
  std::array<unsigned char, crypto_secretbox_NONCEBYTES + crypto_secretbox_MACBYTES + fair::seed_bytes> box{};
  if (!from_hex(sealed_hex, box.data(), box.size())) throw seal_error("sealed server seed is malformed");
  std::array<std::uint8_t, fair::seed_bytes> plain{};
  const int rc = crypto_secretbox_open_easy(plain.data(), box.data() + crypto_secretbox_NONCEBYTES,
                                            box.size() - crypto_secretbox_NONCEBYTES, box.data(), key.bytes().data());
  if (rc != 0) throw seal_error("sealed server seed does not open with this key (wrong key file or tampered store)");
  fair::server_seed s(plain);
  sodium_memzero(plain.data(), plain.size());
  return s;
}

}  // namespace fairdeck::service
