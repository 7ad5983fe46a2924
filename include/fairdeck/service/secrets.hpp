// Secrets of the dealing service: operator tokens (stored only as SHA-256 hashes, compared in
// constant time), the at-rest key file (32 random bytes, mode 0600), the store's key-check
// value, and server seeds sealed with the key, bound to their table.
//
// Sealed seed formats (docs/service.md, "Secrets at rest"):
//   v2 (written since 2026-11): "v2:" + hex(nonce || ciphertext || tag), libsodium
//      crypto_aead_xchacha20poly1305_ietf, random 24-byte nonce, associated data
//      "fairdeck-sealed-seed-v2\ntable=<id>\ncommitment=<hex>\n".
//   v1 (older stores, still read): hex(nonce || crypto_secretbox(seed)), no associated data;
//      rewritten as v2 by the table's next deal.
//
// Guarantees: a copied database without the key file reveals no unrevealed server seed; a
// tampered sealed seed, one sealed under another key, or one copied from another table's row
// fails to open (seal_error) instead of dealing — for v1 seeds the copy is caught by checking
// the opened seed against the table's commitment. Every opened seed matches the commitment.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
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

// The v2 seal of `seed` for table `table_id` ("v2:" + 144 hex digits); the associated data
// holds the table id and fair::commitment(seed).
[[nodiscard]] std::string seal_seed(const fair::server_seed& seed, const secret_key& key, std::string_view table_id);
// Opens a v2 or v1 seal of table `table_id` whose commitment is `commitment`. Throws seal_error
// (naming the table, never a secret) when it does not open or does not match the commitment.
[[nodiscard]] fair::server_seed open_seed(std::string_view sealed, const secret_key& key, std::string_view table_id,
                                          std::string_view commitment);
// The at-rest key as one batch of writes uses it (the group committer makes one per batch).
// Each table's v2 sealed seed is opened once, by open_seed's rules and errors, and kept as a
// keyed seed (fair::keyed_seed) for the batch's other deals on that table. Opening (hex,
// XChaCha20-Poly1305, the commitment check) and keying HMAC with the seed made a deal's seed
// work 6.4 µs against 4.3 µs from the kept key (bench/service/store_bench.cpp,
// deal_opening_the_seed vs deal_from_batch_keys, Intel Xeon). A seed is kept under its exact sealed text
// and commitment, so a rotation inside the batch opens the new seed. Kept only for the batch:
// the keyed seeds are wiped when this object dies.
class batch_keys {
 public:
  explicit batch_keys(const secret_key& key) noexcept : key_(key) {}
  batch_keys(const batch_keys&) = delete;
  batch_keys& operator=(const batch_keys&) = delete;
  ~batch_keys() = default;  // each keyed_seed wipes itself
  [[nodiscard]] const secret_key& key() const noexcept { return key_; }
  // The keyed seed of table `table_id` sealed (v2) as `sealed` with commitment `commitment`.
  // Throws seal_error as open_seed does; valid until this object dies.
  [[nodiscard]] const fair::keyed_seed& keyed(std::string_view sealed, std::string_view table_id,
                                              std::string_view commitment);

 private:
  struct opened {
    std::string sealed, commitment;
    fair::keyed_seed key;
  };
  const secret_key& key_;
  std::map<std::string, std::unique_ptr<opened>, std::less<>> opened_;  // by table id
};

// Is this an older v1 seal (to be rewritten as v2)?
[[nodiscard]] bool is_v1_seal(std::string_view sealed) noexcept;

// ---- the key check ----
// What the store keeps to recognise its key: "v1:" + hex(BLAKE2b-256 keyed with the key, of a
// fixed label). It reveals nothing about the key (a keyed hash, 256-bit key); another key
// gives another value, so `fairdeckd serve` refuses it before sealing anything under it.
[[nodiscard]] std::string key_check_value(const secret_key& key);

}  // namespace fairdeck::service
