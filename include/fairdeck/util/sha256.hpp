// SHA-256 (FIPS 180-4) through libsodium's crypto_hash_sha256: the one implementation behind
// commitments to server seeds and combined client seeds (security/provably_fair), the
// checksums of certified inputs (certify), service token hashes and record hash chains
// (service). Digests are the raw 32 bytes or their lowercase hex (util/hex.hpp). None of
// these needs sodium_init() (which aborts on a machine without OS entropy), and none copies
// its input: a caller hashing a secret wipes its own buffer.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace fairdeck {

inline constexpr std::size_t sha256_bytes = 32;
using sha256_digest = std::array<std::uint8_t, sha256_bytes>;

[[nodiscard]] sha256_digest sha256(std::span<const std::uint8_t> bytes) noexcept;
[[nodiscard]] sha256_digest sha256(std::string_view bytes) noexcept;
// 64 lowercase hex digits.
[[nodiscard]] std::string sha256_hex(std::span<const std::uint8_t> bytes);
[[nodiscard]] std::string sha256_hex(std::string_view bytes);
// The whole file, read in 1 MiB blocks; throws std::runtime_error naming the path when it
// cannot be opened or read.
[[nodiscard]] std::string sha256_file_hex(const std::string& path);

// Incremental: update() any number of times, then digest() or hex() once (the state is
// finished by either; a finished hasher must not be updated again).
class sha256_hasher {
 public:
  sha256_hasher() noexcept;
  void update(std::span<const std::uint8_t> bytes) noexcept;
  void update(std::string_view bytes) noexcept;
  [[nodiscard]] sha256_digest digest() noexcept;
  [[nodiscard]] std::string hex();

 private:
  alignas(8) std::array<unsigned char, 104> state_{};  // crypto_hash_sha256_state (checked in sha256.cpp)
};

}  // namespace fairdeck
