#include "fairdeck/certify/evidence.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <vector>

#include <fcntl.h>
#include <sodium.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "fairdeck/random/chacha20.hpp"  // detail::prepare_sodium
#include "fairdeck/util/hex.hpp"
#include "fairdeck/util/secret_file.hpp"

namespace fairdeck::certify {
namespace {

constexpr std::string_view secret_tag = "fairdeck-ed25519-secret-key ";
constexpr std::string_view public_tag = "fairdeck-ed25519-public-key ";

std::string read_tagged(const std::string& path, std::string_view tag) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error(fmt::format("cannot open key file '{}'", path));
  std::string line;
  std::getline(f, line);
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (line.size() <= tag.size() || line.compare(0, tag.size(), tag) != 0)
    throw std::runtime_error(fmt::format("'{}' is not a {}file", path, tag));
  std::string hex = line.substr(tag.size());
  sodium_memzero(line.data(), line.size());
  return hex;
}

// The secret key's hex, read from one descriptor that was checked first: a regular file no
// one but its owner can read, write or run (mode & 077 == 0, as ssh requires of its keys).
std::string read_secret_key_hex(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) throw std::runtime_error(fmt::format("cannot open key file '{}': {}", path, std::strerror(errno)));
  struct ::stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw std::runtime_error(fmt::format("key file '{}' is not a regular file", path));
  }
  if ((st.st_mode & 077) != 0) {
    ::close(fd);
    throw std::runtime_error(fmt::format("secret key file '{}' is open to other users (mode {:04o}): refusing to sign "
                                         "with it; run chmod 600 '{}' (and make a new key if others may have read it)",
                                         path, st.st_mode & 07777, path));
  }
  std::string text(secret_tag.size() + 2 * crypto_sign_SECRETKEYBYTES + 2, '\0');
  std::size_t got = 0;
  while (got < text.size()) {
    const ssize_t r = ::read(fd, text.data() + got, text.size() - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += static_cast<std::size_t>(r);
  }
  ::close(fd);
  text.resize(got);
  const auto eol = text.find('\n');
  std::string line = text.substr(0, eol);
  sodium_memzero(text.data(), text.size());
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (line.size() <= secret_tag.size() || line.compare(0, secret_tag.size(), secret_tag) != 0) {
    sodium_memzero(line.data(), line.size());
    throw std::runtime_error(fmt::format("'{}' is not a {}file", path, secret_tag));
  }
  std::string hex = line.substr(secret_tag.size());
  sodium_memzero(line.data(), line.size());
  return hex;
}

}  // namespace

key_pair_files generate_key_files(const std::string& prefix) {
  fairdeck::detail::prepare_sodium();  // a clean entropy_error, never sodium_init's abort()
  unsigned char pk[crypto_sign_PUBLICKEYBYTES], sk[crypto_sign_SECRETKEYBYTES];
  crypto_sign_keypair(pk, sk);
  key_pair_files out{prefix + ".key", prefix + ".pub", to_hex(pk, sizeof pk)};
  std::string secret = std::string(secret_tag) + to_hex(sk, sizeof sk) + "\n";
  sodium_memzero(sk, sizeof sk);
  try {
    create_secret_file(out.secret_path, secret);
  } catch (...) {
    sodium_memzero(secret.data(), secret.size());
    throw;
  }
  sodium_memzero(secret.data(), secret.size());
  create_new_file(out.public_path, std::string(public_tag) + out.public_key_hex + "\n", 0644);
  return out;
}

signature sign_message(std::string_view message, const std::string& secret_key_file) {
  fairdeck::detail::prepare_sodium();  // a clean entropy_error, never sodium_init's abort()
  std::string hex = read_secret_key_hex(secret_key_file);
  unsigned char sk[crypto_sign_SECRETKEYBYTES];
  const bool ok = from_hex(hex, sk, sizeof sk);
  sodium_memzero(hex.data(), hex.size());
  if (!ok) {
    sodium_memzero(sk, sizeof sk);
    throw std::runtime_error(fmt::format("'{}' does not hold a 64-byte Ed25519 secret key", secret_key_file));
  }
  unsigned char sig[crypto_sign_BYTES], pk[crypto_sign_PUBLICKEYBYTES];
  crypto_sign_detached(sig, nullptr, reinterpret_cast<const unsigned char*>(message.data()), message.size(), sk);
  crypto_sign_ed25519_sk_to_pk(pk, sk);
  sodium_memzero(sk, sizeof sk);
  return {to_hex(pk, sizeof pk), to_hex(sig, sizeof sig)};
}

bool verify_message(std::string_view message, std::string_view signature_hex, std::string_view public_key_hex) {
  fairdeck::detail::prepare_sodium();  // a clean entropy_error, never sodium_init's abort()
  unsigned char sig[crypto_sign_BYTES], pk[crypto_sign_PUBLICKEYBYTES];
  if (!from_hex(signature_hex, sig, sizeof sig) || !from_hex(public_key_hex, pk, sizeof pk)) return false;
  return crypto_sign_verify_detached(sig, reinterpret_cast<const unsigned char*>(message.data()), message.size(), pk) ==
         0;
}

std::string read_public_key_file(const std::string& path) {
  std::string hex = read_tagged(path, public_tag);
  unsigned char pk[crypto_sign_PUBLICKEYBYTES];
  if (!from_hex(hex, pk, sizeof pk)) throw std::runtime_error(fmt::format("'{}' does not hold a 32-byte public key", path));
  return hex;
}

}  // namespace fairdeck::certify
