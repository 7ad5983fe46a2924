#include "fairdeck/util/sha256.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>
#include <sodium.h>

#include "fairdeck/util/hex.hpp"

namespace fairdeck {
namespace {

static_assert(crypto_hash_sha256_BYTES == sha256_bytes);

crypto_hash_sha256_state* state(std::array<unsigned char, 104>& storage) noexcept {
  static_assert(sizeof(crypto_hash_sha256_state) <= 104 && alignof(crypto_hash_sha256_state) <= 8);
  return reinterpret_cast<crypto_hash_sha256_state*>(storage.data());
}

const unsigned char* bytes_of(std::string_view s) noexcept { return reinterpret_cast<const unsigned char*>(s.data()); }

}  // namespace

sha256_digest sha256(std::span<const std::uint8_t> bytes) noexcept {
  sha256_digest h{};
  crypto_hash_sha256(h.data(), bytes.data(), bytes.size());
  return h;
}

sha256_digest sha256(std::string_view bytes) noexcept {
  sha256_digest h{};
  crypto_hash_sha256(h.data(), bytes_of(bytes), bytes.size());
  return h;
}

std::string sha256_hex(std::span<const std::uint8_t> bytes) { return to_hex(sha256(bytes)); }
std::string sha256_hex(std::string_view bytes) { return to_hex(sha256(bytes)); }

std::string sha256_file_hex(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw std::runtime_error(fmt::format("cannot open '{}' to hash it: {}", path, std::strerror(errno)));
  sha256_hasher h;
  std::vector<std::uint8_t> buf(1 << 20);
  std::size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), f)) > 0) h.update(std::span(buf.data(), n));
  const bool bad = std::ferror(f);
  std::fclose(f);
  if (bad) throw std::runtime_error(fmt::format("read error hashing '{}'", path));
  return h.hex();
}

sha256_hasher::sha256_hasher() noexcept { crypto_hash_sha256_init(state(state_)); }

void sha256_hasher::update(std::span<const std::uint8_t> bytes) noexcept {
  crypto_hash_sha256_update(state(state_), bytes.data(), bytes.size());
}

void sha256_hasher::update(std::string_view bytes) noexcept {
  crypto_hash_sha256_update(state(state_), bytes_of(bytes), bytes.size());
}

sha256_digest sha256_hasher::digest() noexcept {
  sha256_digest h{};
  crypto_hash_sha256_final(state(state_), h.data());
  return h;
}

std::string sha256_hasher::hex() { return to_hex(digest()); }

}  // namespace fairdeck
