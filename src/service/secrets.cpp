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
#include "fairdeck/util/internal/wipe.hpp"
#include "fairdeck/util/secret_file.hpp"
#include "fairdeck/util/sha256.hpp"

namespace fairdeck::service {
namespace {

std::string errno_text() { return std::strerror(errno); }

}  // namespace

std::string generate_token() {
  std::array<std::uint8_t, 32> bytes{};
  os_entropy(std::as_writable_bytes(std::span(bytes)));
  std::string hex = to_hex(bytes.data(), bytes.size());
  sodium_memzero(bytes.data(), bytes.size());
  const detail::wipe_on_exit wipe_hex(hex.data(), hex.size());
  std::string t;  // sized once: no copy of the token is left in a buffer outgrown and freed
  t.reserve(4 + hex.size());
  t.append("fdk_").append(hex);
  return t;
}

std::string token_hash(std::string_view token) {
  return sha256_hex(token);
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
  std::string text = to_hex(key.bytes().data(), key.bytes().size()) + "\n";
  try {
    create_secret_file(path, text);  // O_EXCL | O_NOFOLLOW, 0600, fsync'd file and folder
  } catch (const secret_file_error& e) {
    sodium_memzero(text.data(), text.size());
    throw std::runtime_error(fmt::format("cannot {} key file {}: {}",
                                         e.kind() == secret_file_error::kind_t::io ? "write" : "create",
                                         path.string(), std::strerror(e.os_error())));
  }
  sodium_memzero(text.data(), text.size());
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
  if (!ok) {
    sodium_memzero(bytes.data(), bytes.size());  // the digits before a bad one were decoded
    throw std::runtime_error(fmt::format("key file {} does not hold 64 hex digits", path.string()));
  }
  secret_key key(bytes);
  sodium_memzero(bytes.data(), bytes.size());
  return key;
}

namespace {

constexpr std::string_view v2_prefix = "v2:";
constexpr std::size_t nonce2 = crypto_aead_xchacha20poly1305_ietf_NPUBBYTES;
constexpr std::size_t tag2 = crypto_aead_xchacha20poly1305_ietf_ABYTES;
using box2 = std::array<unsigned char, nonce2 + fair::seed_bytes + tag2>;
using box1 = std::array<unsigned char, crypto_secretbox_NONCEBYTES + crypto_secretbox_MACBYTES + fair::seed_bytes>;

std::string seal_ad(std::string_view table_id, std::string_view commitment) {
  return fmt::format("fairdeck-sealed-seed-v2\ntable={}\ncommitment={}\n", table_id, commitment);
}

[[noreturn]] void does_not_open(std::string_view table_id) {
  throw seal_error(fmt::format(
      "the sealed server seed of table '{}' does not open with this key (wrong key file, tampered store, or a seed "
      "copied from another table)",
      table_id));
}

}  // namespace

bool is_v1_seal(std::string_view sealed) noexcept { return !sealed.starts_with(v2_prefix); }

std::string seal_seed(const fair::server_seed& seed, const secret_key& key, std::string_view table_id) {
  detail::prepare_sodium();  // a clean entropy_error, never sodium_init's abort()
  static_assert(crypto_aead_xchacha20poly1305_ietf_KEYBYTES == key_bytes);
  const std::string ad = seal_ad(table_id, fair::commitment(seed));
  box2 box{};
  randombytes_buf(box.data(), nonce2);
  unsigned long long len = 0;
  crypto_aead_xchacha20poly1305_ietf_encrypt(box.data() + nonce2, &len, seed.bytes().data(), seed.bytes().size(),
                                             reinterpret_cast<const unsigned char*>(ad.data()), ad.size(), nullptr,
                                             box.data(), key.bytes().data());
  return std::string(v2_prefix) + to_hex(box.data(), box.size());
}

fair::server_seed open_seed(std::string_view sealed, const secret_key& key, std::string_view table_id,
                            std::string_view commitment) {
  detail::prepare_sodium();  // a clean entropy_error, never sodium_init's abort()
  std::array<std::uint8_t, fair::seed_bytes> plain{};
  int rc = -1;
  if (!is_v1_seal(sealed)) {
    box2 box{};
    if (!from_hex(sealed.substr(v2_prefix.size()), box.data(), box.size()))
      throw seal_error(fmt::format("the sealed server seed of table '{}' is malformed", table_id));
    const std::string ad = seal_ad(table_id, commitment);
    unsigned long long len = 0;
    rc = crypto_aead_xchacha20poly1305_ietf_decrypt(plain.data(), &len, nullptr, box.data() + nonce2,
                                                    box.size() - nonce2, reinterpret_cast<const unsigned char*>(ad.data()),
                                                    ad.size(), box.data(), key.bytes().data());
  } else {
    static_assert(crypto_secretbox_KEYBYTES == key_bytes);
    box1 box{};
    if (!from_hex(sealed, box.data(), box.size()))
      throw seal_error(fmt::format("the sealed server seed of table '{}' is malformed", table_id));
    rc = crypto_secretbox_open_easy(plain.data(), box.data() + crypto_secretbox_NONCEBYTES,
                                    box.size() - crypto_secretbox_NONCEBYTES, box.data(), key.bytes().data());
  }
  if (rc != 0) {
    sodium_memzero(plain.data(), plain.size());
    does_not_open(table_id);
  }
  fair::server_seed s(plain);
  sodium_memzero(plain.data(), plain.size());
  // v2 binds the commitment as associated data; a v1 seal copied from another table's row
  // opens, and is caught here.
  if (!equal_constant_time(fair::commitment(s), commitment))
    throw seal_error(fmt::format("the sealed server seed of table '{}' does not match its commitment (a seed copied "
                                 "from another table?)",
                                 table_id));
  return s;
}

const fair::keyed_seed& batch_keys::keyed(std::string_view sealed, std::string_view table_id,
                                          std::string_view commitment) {
  auto it = opened_.find(table_id);
  if (it != opened_.end() && it->second->sealed == sealed && it->second->commitment == commitment)
    return it->second->key;
  const fair::server_seed seed = open_seed(sealed, key_, table_id, commitment);
  std::unique_ptr<opened> entry(new opened{std::string(sealed), std::string(commitment), fair::keyed_seed(seed)});
  if (it != opened_.end()) it->second = std::move(entry);  // rotated inside the batch
  else it = opened_.emplace(std::string(table_id), std::move(entry)).first;
  return it->second->key;
}

std::string key_check_value(const secret_key& key) {
  detail::prepare_sodium();
  constexpr std::string_view label = "fairdeck at-rest key check v1";
  unsigned char h[32];
  crypto_generichash(h, sizeof h, reinterpret_cast<const unsigned char*>(label.data()), label.size(), key.bytes().data(),
                     key.bytes().size());
  return "v1:" + to_hex(h, sizeof h);
}

}  // namespace fairdeck::service
