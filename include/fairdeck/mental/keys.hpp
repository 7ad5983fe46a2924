// Players' key shares, their Schnorr proofs of knowledge (the rogue-key defence) and the
// joint table key of n-of-n threshold ElGamal. docs/mental-poker.md §2.
//
// Schnorr, "Efficient signature generation by smart cards" (J. Cryptology 1991), made
// non-interactive with Fiat–Shamir over a caller-given context (table, hand, seat and the
// transcript so far: a proof made for one context never verifies in another).
// Guarantees: the secret scalar is wiped when its key_pair dies; proving draws a fresh nonce
// per proof (re-drawn if libsodium refuses an identity); verifying never throws on any
// input, it answers false.
#pragma once

#include <array>
#include <span>
#include <string>
#include <string_view>

#include "fairdeck/mental/group.hpp"

namespace fairdeck::mental {

struct key_pair {
  scalar secret;  // x, non-zero
  point pub;      // Y = xG
};

[[nodiscard]] key_pair generate_key();
// Y from x (for a key file whose public part is checked against its secret).
[[nodiscard]] point public_of(const scalar& x);

// A sigma proof made non-interactive: challenge χ and response s (64 bytes, χ ‖ s).
struct sigma_proof {
  scalar c, s;
};
inline constexpr std::size_t sigma_proof_bytes = 64;
[[nodiscard]] std::array<std::uint8_t, sigma_proof_bytes> to_bytes(const sigma_proof& p);  // χ ‖ s
[[nodiscard]] std::string to_hex(const sigma_proof& p);
// Throws std::invalid_argument naming `what` for anything but 128 hex digits of two scalars
// below the group order.
[[nodiscard]] sigma_proof parse_sigma_proof(std::string_view hex, std::string_view what);

inline constexpr std::string_view schnorr_label = "fairdeck/mental/v1/schnorr";
inline constexpr std::string_view keygen_context = "keygen";

[[nodiscard]] sigma_proof prove_key(const key_pair& k, std::span<const std::uint8_t> context);
[[nodiscard]] bool verify_key(const point& pub, const sigma_proof& p, std::span<const std::uint8_t> context) noexcept;
[[nodiscard]] inline std::span<const std::uint8_t> as_bytes(std::string_view s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

// Y = Y_1 + ... + Y_n.
[[nodiscard]] point joint_key(std::span<const point> shares);

}  // namespace fairdeck::mental
