#include "fairdeck/util/sha256.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>
#include <nettle/sha2.h>
#include <sodium.h>
// nettle names its functions by macro (sha256_digest → nettle_sha256_digest), one of them our
// digest type's name: the functions are called by their real names below.
#undef sha256_init
#undef sha256_update
#undef sha256_digest

#include "fairdeck/util/hex.hpp"

namespace fairdeck {
namespace {

static_assert(SHA256_DIGEST_SIZE == sha256_bytes);

sha256_ctx* state(std::array<unsigned char, 128>& storage) noexcept {
  static_assert(sizeof(sha256_ctx) <= 128 && alignof(sha256_ctx) <= 8);
  return reinterpret_cast<sha256_ctx*>(storage.data());
}

const std::uint8_t* bytes_of(std::string_view s) noexcept { return reinterpret_cast<const std::uint8_t*>(s.data()); }

}  // namespace

sha256_digest sha256(std::span<const std::uint8_t> bytes) noexcept {
  sha256_hasher h;
  h.update(bytes);
  return h.digest();
}

sha256_digest sha256(std::string_view bytes) noexcept {
  sha256_hasher h;
  h.update(bytes);
  return h.digest();
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

sha256_hasher::sha256_hasher() noexcept { nettle_sha256_init(state(state_)); }

sha256_hasher::~sha256_hasher() { sodium_memzero(state_.data(), state_.size()); }

void sha256_hasher::update(std::span<const std::uint8_t> bytes) noexcept {
  nettle_sha256_update(state(state_), bytes.size(), bytes.data());
}

void sha256_hasher::update(std::string_view bytes) noexcept {
  nettle_sha256_update(state(state_), bytes.size(), bytes_of(bytes));
}

sha256_digest sha256_hasher::digest() noexcept {
  sha256_digest h{};
  nettle_sha256_digest(state(state_), h.size(), h.data());
  return h;
}

std::string sha256_hasher::hex() { return to_hex(digest()); }

}  // namespace fairdeck
