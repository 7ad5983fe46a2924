// SHA-256 (FIPS 180-4) through GNU Nettle's sha256 (Debian's nettle-dev): the one
// implementation behind commitments to server seeds and combined client seeds
// (security/provably_fair, whose HMAC-SHA-256 word stream is Nettle's too), the Merkle log's
// leaves and nodes (tlog), the checksums of certified inputs (certify), service token hashes
// and record hash chains (service). Digests are the raw 32 bytes or their lowercase hex
// (util/hex.hpp).
//
// Why Nettle and not libsodium (which the project uses for everything else): Debian builds
// Nettle "fat", choosing at run time the CPU's SHA extensions (x86 SHA-NI) where present and
// its own assembly or C elsewhere; libsodium's SHA-256 is portable C only. On the
// Intel Xeon of docs/performance.md (SHA-NI), bench/sha256_bench.cpp (both in one run, medians
// of 5): a 700-byte record 0.73 against 3.12 µs, a 65-byte Merkle node 0.16 against 0.54 µs,
// 1 MiB at 1.1 against 0.24 GB/s, a deck's HMAC block 0.33 against 0.74 µs. A durable deal
// hashes its deck's blocks, its record and its log leaf and nodes: fairdeckd's CPU per deal on
// SQLite fell 15 % (docs/service.md, 2026-11-29).
// The digests are FIPS 180-4's whichever code Nettle picks: tests/sha256_test.cpp checks the
// known-answer vectors and libsodium's digest at every length up to 17 blocks, and
// tests/fair_crosscheck_test.cpp the deal's HMAC stream against libsodium's HMAC.
// None needs sodium_init() (which aborts on a machine without OS entropy); none copies its
// input (a caller hashing a secret wipes its own buffer), and a hasher wipes its own state,
// whose buffer holds the message's last block, when it is destroyed.
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
  ~sha256_hasher();
  sha256_hasher(const sha256_hasher&) = default;
  sha256_hasher& operator=(const sha256_hasher&) = default;
  void update(std::span<const std::uint8_t> bytes) noexcept;
  void update(std::string_view bytes) noexcept;
  [[nodiscard]] sha256_digest digest() noexcept;
  [[nodiscard]] std::string hex();

 private:
  alignas(8) std::array<unsigned char, 128> state_{};  // nettle's sha256_ctx (checked in sha256.cpp)
};

}  // namespace fairdeck
