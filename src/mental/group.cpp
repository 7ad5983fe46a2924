// ristretto255 wrappers, the Fiat–Shamir hash and the published points (group.hpp).
#include "fairdeck/mental/group.hpp"

#include <mutex>
#include <stdexcept>

#include "fairdeck/random/chacha20.hpp"
#include "fairdeck/util/hex.hpp"

namespace fairdeck::mental {

namespace {
// Largest table of card points / generators kept: far above any shoe a hand accepts.
constexpr std::size_t max_cached = 4096;

struct point_cache {
  std::mutex m;
  std::vector<point> v;
  std::string_view label;
  explicit point_cache(std::string_view l) : label(l) { v.reserve(max_cached); }  // spans stay valid
  std::span<const point> first(std::size_t n) {
    if (n > max_cached) throw std::invalid_argument("too many cards for a mental-poker hand");
    std::lock_guard lock(m);
    while (v.size() < n) v.push_back(point_from_label(label, static_cast<std::uint32_t>(v.size())));
    return {v.data(), n};
  }
};

void le64(std::uint8_t* out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out[i] = static_cast<std::uint8_t>(v >> (8 * i));
}
}  // namespace

scalar::~scalar() { sodium_memzero(b.data(), b.size()); }

scalar scalar::random() {
  fairdeck::detail::prepare_sodium();  // entropy_error instead of libsodium's abort() without OS entropy
  scalar s;
  crypto_core_ristretto255_scalar_random(s.b.data());  // libsodium redraws zero
  return s;
}

scalar scalar::reduce(std::span<const std::uint8_t, 64> wide) {
  scalar s;
  crypto_core_ristretto255_scalar_reduce(s.b.data(), wide.data());
  return s;
}

scalar scalar::one() {
  scalar s;
  s.b[0] = 1;
  return s;
}

bool scalar::is_zero() const noexcept { return sodium_is_zero(b.data(), b.size()) == 1; }

scalar operator+(const scalar& x, const scalar& y) {
  scalar r;
  crypto_core_ristretto255_scalar_add(r.b.data(), x.b.data(), y.b.data());
  return r;
}
scalar operator-(const scalar& x, const scalar& y) {
  scalar r;
  crypto_core_ristretto255_scalar_sub(r.b.data(), x.b.data(), y.b.data());
  return r;
}
scalar operator*(const scalar& x, const scalar& y) {
  scalar r;
  crypto_core_ristretto255_scalar_mul(r.b.data(), x.b.data(), y.b.data());
  return r;
}
scalar operator-(const scalar& x) {
  scalar r;
  crypto_core_ristretto255_scalar_negate(r.b.data(), x.b.data());
  return r;
}

op_counts& thread_op_counts() noexcept {
  thread_local op_counts c;
  return c;
}

bool mul(point& out, const scalar& x, const point& p) noexcept {
  ++thread_op_counts().mul;
  return crypto_scalarmult_ristretto255(out.data(), x.b.data(), p.data()) == 0;
}

bool mul_base(point& out, const scalar& x) noexcept {
  ++thread_op_counts().mul_base;
  return crypto_scalarmult_ristretto255_base(out.data(), x.b.data()) == 0;
}

point add(const point& p, const point& q) noexcept {
  ++thread_op_counts().add;
  point r;
  if (crypto_core_ristretto255_add(r.data(), p.data(), q.data()) != 0) r = identity();  // invalid input only
  return r;
}

point sub(const point& p, const point& q) noexcept {
  ++thread_op_counts().add;
  point r;
  if (crypto_core_ristretto255_sub(r.data(), p.data(), q.data()) != 0) r = identity();
  return r;
}

const point& identity() noexcept {
  static const point zero{};
  return zero;
}

bool is_valid(const point& p) noexcept { return crypto_core_ristretto255_is_valid_point(p.data()) == 1; }

bool scalar_canonical(std::span<const std::uint8_t, scalar_bytes> b) noexcept {
  // ℓ = 2^252 + 27742317777372353535851937790883648493, little-endian.
  static constexpr std::uint8_t l[32] = {0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7,
                                         0xa2, 0xde, 0xf9, 0xde, 0x14, 0,    0,    0,    0,    0,    0,
                                         0,    0,    0,    0,    0,    0,    0,    0,    0,    0x10};
  return sodium_compare(b.data(), l, scalar_bytes) == -1;  // little-endian, constant time
}

point parse_point(std::string_view text, std::string_view what) {
  point p;
  if (!from_hex(text, p)) throw std::invalid_argument(std::string(what) + " is not 64 hex digits");
  if (!is_valid(p)) throw std::invalid_argument(std::string(what) + " is not a ristretto255 point");
  return p;
}

scalar parse_scalar(std::string_view text, std::string_view what) {
  scalar s;
  if (!from_hex(text, s.b)) throw std::invalid_argument(std::string(what) + " is not 64 hex digits");
  if (!scalar_canonical(s.b)) throw std::invalid_argument(std::string(what) + " is not a scalar below the group order");
  return s;
}

std::string hex(const point& p) { return fairdeck::to_hex(p); }

fs_hash::fs_hash(std::string_view label) {
  crypto_hash_sha512_init(&st_);
  add(label);
}

fs_hash& fs_hash::add(std::span<const std::uint8_t> bytes) {
  std::uint8_t len[8];
  le64(len, bytes.size());
  crypto_hash_sha512_update(&st_, len, sizeof len);
  if (!bytes.empty()) crypto_hash_sha512_update(&st_, bytes.data(), bytes.size());
  return *this;
}

fs_hash& fs_hash::add(std::string_view text) {
  return add(std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
}

fs_hash& fs_hash::add_u32(std::uint32_t v) {
  const std::uint8_t b[4] = {static_cast<std::uint8_t>(v), static_cast<std::uint8_t>(v >> 8),
                             static_cast<std::uint8_t>(v >> 16), static_cast<std::uint8_t>(v >> 24)};
  return add(std::span<const std::uint8_t>(b, 4));
}

std::array<std::uint8_t, 64> fs_hash::digest() {
  std::array<std::uint8_t, 64> d;
  crypto_hash_sha512_final(&st_, d.data());
  return d;
}

scalar fs_hash::challenge() {
  auto d = digest();
  scalar s = scalar::reduce(std::span<const std::uint8_t, 64>(d));
  sodium_memzero(d.data(), d.size());
  return s;
}

point point_from_label(std::string_view label, std::uint32_t i) {
  crypto_hash_sha512_state st;
  crypto_hash_sha512_init(&st);
  crypto_hash_sha512_update(&st, reinterpret_cast<const unsigned char*>(label.data()), label.size());
  const std::uint8_t idx[4] = {static_cast<std::uint8_t>(i), static_cast<std::uint8_t>(i >> 8),
                               static_cast<std::uint8_t>(i >> 16), static_cast<std::uint8_t>(i >> 24)};
  crypto_hash_sha512_update(&st, idx, 4);
  std::uint8_t h[64];
  crypto_hash_sha512_final(&st, h);
  point p;
  crypto_core_ristretto255_from_hash(p.data(), h);
  return p;
}

std::span<const point> card_points(std::size_t n) {
  static point_cache cache(card_label);
  return cache.first(n);
}

std::span<const point> generators(std::size_t n_plus_one) {
  static point_cache cache(generator_label);
  return cache.first(n_plus_one);
}

}  // namespace fairdeck::mental
