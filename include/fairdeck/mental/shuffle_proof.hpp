// ElGamal decks under the joint key and the verifiable shuffle: re-encrypt, permute, and
// prove it in zero knowledge with the Terelius–Wikström proof of a shuffle ("Proofs of
// Restricted Shuffles", AFRICACRYPT 2010; the form of Wikström's "How to Implement a
// Stand-alone Verifier for the Verificatum Mix-Net" and Haenni et al., "Pseudo-Code Algorithms
// for Verifiable Re-Encryption Mix-Nets", FC 2017). docs/mental-poker.md §3–§4.
//
// Guarantees: verify_shuffle accepts an output deck only if it is a re-encryption of a
// permutation of the input deck (soundness error about N/ℓ plus the random-oracle terms),
// and only if no output ciphertext equals an input one (a permutation without re-encryption
// would reveal the permutation). The proof reveals nothing about the permutation or the
// randomness beyond that (honest-verifier zero knowledge; Fiat–Shamir over `context`).
// The permutation and all randomness are wiped after proving. Proof size 128·N + 160 bytes.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "fairdeck/mental/group.hpp"

namespace fairdeck::mental {

struct ciphertext {
  point a, b;  // (M + rY, rG)
  friend bool operator==(const ciphertext&, const ciphertext&) = default;
};
using deck = std::vector<ciphertext>;

// Enc(M; r) under Y; false when libsodium refuses (r = 0).
[[nodiscard]] bool encrypt(ciphertext& out, const point& m, const scalar& r, const point& y) noexcept;

inline constexpr std::string_view initial_label = "fairdeck/mental/v1/initial";
// The public starting deck: card i encrypted with r_i = reduce(H(initial_label; seed, u32le(i))).
[[nodiscard]] deck initial_deck(std::size_t n, const point& y, std::span<const std::uint8_t> seed);

struct shuffle_proof {
  std::vector<point> c;     // permutation commitment c_1..c_N
  std::vector<point> chat;  // commitment chain ĉ_1..ĉ_N
  scalar chi, s1, s2, s3, s4;
  std::vector<scalar> shat, sprime;
};
[[nodiscard]] constexpr std::size_t shuffle_proof_bytes(std::size_t n) { return 128 * n + 160; }
[[nodiscard]] std::vector<std::uint8_t> serialize(const shuffle_proof& p);
// Throws std::invalid_argument for a wrong length, a non-canonical point or scalar.
[[nodiscard]] shuffle_proof parse_shuffle_proof(std::span<const std::uint8_t> bytes, std::size_t n);

struct shuffle_result {
  deck out;
  shuffle_proof proof;
};

// A fresh uniform permutation and fresh randomness: out[i] = ReEnc(in[ψ(i)]; ρ_i), with proof.
[[nodiscard]] shuffle_result shuffle_and_prove(const deck& in, const point& y, std::span<const std::uint8_t> context);

// The prover for a given claimed witness: out[i] = ReEnc(in[perm[i]]; rho[i]) is what an
// honest prover has; the proof is computed whatever out holds (tests use it to play a
// cheating shuffler). Returns false only if libsodium refused every one of a few attempts.
[[nodiscard]] bool prove_shuffle(const deck& in, const deck& out, const point& y, std::span<const std::uint32_t> perm,
                                 std::span<const scalar> rho, std::span<const std::uint8_t> context,
                                 shuffle_proof& proof);

// Never throws on any input (sizes that do not match: false).
[[nodiscard]] bool verify_shuffle(const deck& in, const deck& out, const point& y, const shuffle_proof& proof,
                                  std::span<const std::uint8_t> context);

}  // namespace fairdeck::mental
