// Lowercase hex text of bytes and back: the one implementation behind server seeds and
// commitments (security/provably_fair), signing keys (certify/evidence) and service tokens
// and keys (service/secrets). Both directions run in constant time for a given length
// (libsodium's sodium_bin2hex / sodium_hex2bin), so secrets do not leak through timing, and
// neither needs sodium_init(): they work on a machine without OS entropy.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace fairdeck {

// Two lowercase hex digits per byte.
[[nodiscard]] std::string to_hex(std::span<const std::uint8_t> bytes);
[[nodiscard]] inline std::string to_hex(const unsigned char* p, std::size_t n) { return to_hex({p, n}); }

// Exactly 2 * out.size() hex digits (either case) -> out; false, with out unspecified,
// for any other length or a non-hex character.
[[nodiscard]] bool from_hex(std::string_view hex, std::span<std::uint8_t> out) noexcept;
[[nodiscard]] inline bool from_hex(std::string_view hex, unsigned char* out, std::size_t n) noexcept {
  return from_hex(hex, std::span<std::uint8_t>(out, n));
}

}  // namespace fairdeck
