// Secrets of the dealing service: operator tokens (stored only as SHA-256 hashes, compared in
// constant time), the at-rest key file (32 random bytes, mode 0600) and server seeds sealed
// with it (libsodium crypto_secretbox: XSalsa20-Poly1305, random 24-byte nonce per seal).
//
// Guarantee: a copied database without the key file reveals no unrevealed server seed; a
// tampered sealed seed fails to open (authenticated encryption) instead of dealing garbage.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "fairdeck/security/provably_fair.hpp"

namespace fairdeck::service {

// ---- operator tokens ----
// "fdk_" + 64 hex digits (256 bits from the OS CSPRNG).
[[nodiscard]] std::string generate_token();
// Lowercase hex SHA-256 of the token text: what the store keeps.
[[nodiscard]] std::string token_hash(std::string_view token);
// Constant-time equality of two equal-length strings (length itself is not secret).
[[nodiscard]] bool equal_constant_time(std::string_view a, std::string_view b) noexcept;

// ---- the at-rest key ----
inline constexpr std::size_t key_bytes = 32;

class secret_key {
 public:
  [[nodiscard]] static secret_key generate();
  explicit secret_key(const std::array<std::uint8_t, key_bytes>& bytes) noexcept : bytes_(bytes) {}
  secret_key(const secret_key&) = default;
  secret_key& operator=(const secret_key&) = default;
  ~secret_key();
  [[nodiscard]] const std::array<std::uint8_t, key_bytes>& bytes() const noexcept { return bytes_; }

 private:
  std::array<std::uint8_t, key_bytes> bytes_;
};

// The key file that belongs to a SQLite database: "<db>.key".
[[nodiscard]] std::filesystem::path default_key_path(const std::filesystem::path& db);
// Creates the key file (64 hex digits + newline) with mode 0600, O_CREAT|O_EXCL|O_NOFOLLOW;
// fsyncs it and its directory. Throws std::runtime_error naming the path.
[[nodiscard]] secret_key create_key_file(const std::filesystem::path& path);
// Reads it; refuses (std::runtime_error) a file readable or writable by group or others.
[[nodiscard]] secret_key read_key_file(const std::filesystem::path& path);

// Thrown when a sealed seed does not open (wrong key or tampered data). Never holds a seed.
class seal_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// hex(nonce || secretbox(seed)): 2 * (24 + 16 + 32) = 144 hex digits.
[[nodiscard]] std::string seal_seed(const fair::server_seed& seed, const secret_key& key);
[[nodiscard]] fair::server_seed open_seed(std::string_view sealed_hex, const secret_key& key);

}  // namespace fairdeck::service
