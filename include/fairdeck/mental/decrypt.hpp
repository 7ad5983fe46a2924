// Partial decryptions of threshold ElGamal with Chaum–Pedersen proofs of correctness
// ("Wallet Databases with Observers", CRYPTO '92): player j publishes D = x_j·b for a
// ciphertext (a, b) and proves log_G Y_j = log_b D; the card is a − Σ_j D_j.
// docs/mental-poker.md §5.
//
// Guarantees: verify_partial accepts D only if D = x_j·b for the x_j behind Y_j (soundness
// error 1/ℓ plus the random-oracle term); the proof is bound to `context` (hand, step,
// recipient, position). Proving draws a fresh nonce per proof and wipes it.
#pragma once

#include <optional>
#include <span>

#include "fairdeck/mental/keys.hpp"
#include "fairdeck/mental/shuffle_proof.hpp"

namespace fairdeck::mental {

inline constexpr std::string_view dleq_label = "fairdeck/mental/v1/dleq";

struct partial_decryption {
  point share;  // D = x·b
  sigma_proof proof;
};

[[nodiscard]] partial_decryption partial_decrypt(const key_pair& k, const point& b,
                                                 std::span<const std::uint8_t> context);
[[nodiscard]] bool verify_partial(const point& pub, const point& b, const partial_decryption& d,
                                  std::span<const std::uint8_t> context) noexcept;

// M = a − Σ shares, looked up among the first n card points: the card index, or nothing
// when M is not a card of the shoe (a wrong or missing share).
[[nodiscard]] std::optional<std::uint32_t> combine(const ciphertext& e, std::span<const point> shares, std::size_t n);

}  // namespace fairdeck::mental
