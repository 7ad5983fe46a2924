// The group of mental poker: ristretto255 (RFC 9496) through libsodium, its points and
// scalars, the domain-separated hash behind every Fiat–Shamir challenge, and the published
// hash-to-group points (card plaintexts, Pedersen generators). docs/mental-poker.md §1, §3.
//
// Guarantees:
//  * A `scalar` wipes itself (sodium_memzero) when destroyed; arithmetic is libsodium's
//    constant-time scalar code, with no branch on a scalar's value here.
//  * libsodium refuses an identity result of a scalar multiplication (returns -1): `mul` and
//    `mul_base` report it as false, so a verifier rejects and a prover draws again; they
//    never produce an identity silently.
//  * `point_from_label(label, i)` = from_hash(SHA-512(label ‖ u32le(i))): nobody knows a
//    discrete log between two such points or between one and the base point G.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <sodium.h>

namespace fairdeck::mental {

inline constexpr std::size_t point_bytes = 32;
inline constexpr std::size_t scalar_bytes = 32;

// A canonical ristretto255 encoding (checked where it is read: `parse_point`).
using point = std::array<std::uint8_t, point_bytes>;

// A scalar mod ℓ, little-endian; wiped on destruction. Copies are wiped too.
struct scalar {
  std::array<std::uint8_t, scalar_bytes> b{};
  scalar() = default;
  scalar(const scalar&) = default;
  scalar& operator=(const scalar&) = default;
  ~scalar();
  [[nodiscard]] static scalar random();  // uniform, non-zero
  [[nodiscard]] static scalar reduce(std::span<const std::uint8_t, 64> wide);
  [[nodiscard]] static scalar one();
  [[nodiscard]] bool is_zero() const noexcept;  // constant time
};

[[nodiscard]] scalar operator+(const scalar& x, const scalar& y);
[[nodiscard]] scalar operator-(const scalar& x, const scalar& y);
[[nodiscard]] scalar operator*(const scalar& x, const scalar& y);
[[nodiscard]] scalar operator-(const scalar& x);

// out = x·P / x·G; false (out unspecified) when libsodium refuses (identity result).
[[nodiscard]] bool mul(point& out, const scalar& x, const point& p) noexcept;
[[nodiscard]] bool mul_base(point& out, const scalar& x) noexcept;
[[nodiscard]] point add(const point& p, const point& q) noexcept;
[[nodiscard]] point sub(const point& p, const point& q) noexcept;
[[nodiscard]] const point& identity() noexcept;  // all-zero encoding
[[nodiscard]] bool is_valid(const point& p) noexcept;

// Counts of group operations in this thread since the last reset (the benchmark's account
// of where the time goes).
struct op_counts {
  std::uint64_t mul = 0, mul_base = 0, add = 0;
};
[[nodiscard]] op_counts& thread_op_counts() noexcept;

// Hex text <-> points and scalars: exactly 64 hex digits; a point must be a canonical
// encoding, a scalar below ℓ. Throw std::invalid_argument naming `what`.
[[nodiscard]] point parse_point(std::string_view hex, std::string_view what);
[[nodiscard]] scalar parse_scalar(std::string_view hex, std::string_view what);
[[nodiscard]] bool scalar_canonical(std::span<const std::uint8_t, scalar_bytes> b) noexcept;
[[nodiscard]] std::string hex(const point& p);

// H(label; x1, ..., xk) = SHA-512(u64le|label| ‖ label ‖ u64le|x1| ‖ x1 ‖ ...).
class fs_hash {
 public:
  explicit fs_hash(std::string_view label);
  fs_hash& add(std::span<const std::uint8_t> bytes);
  fs_hash& add(std::string_view text);
  fs_hash& add(const point& p) { return add(std::span<const std::uint8_t>(p)); }
  fs_hash& add_u32(std::uint32_t v);
  [[nodiscard]] std::array<std::uint8_t, 64> digest();
  [[nodiscard]] scalar challenge();  // reduce(digest())

 private:
  crypto_hash_sha512_state st_{};
};

// from_hash(SHA-512(label ‖ u32le(i))).
[[nodiscard]] point point_from_label(std::string_view label, std::uint32_t i);

inline constexpr std::string_view card_label = "fairdeck/mental/v1/card";
inline constexpr std::string_view generator_label = "fairdeck/mental/v1/generator";

// M_i, the plaintext of card index i (fairdeck's card encoding), and the Pedersen generators
// H_0..H_n. Cached: computed once per process.
[[nodiscard]] std::span<const point> card_points(std::size_t n);
[[nodiscard]] std::span<const point> generators(std::size_t n_plus_one);

}  // namespace fairdeck::mental
