// Key shares, Schnorr proofs of knowledge, the joint key (keys.hpp).
#include "fairdeck/mental/keys.hpp"

#include <stdexcept>

#include "fairdeck/util/hex.hpp"

namespace fairdeck::mental {

key_pair generate_key() {
  key_pair k;
  for (;;) {
    k.secret = scalar::random();
    if (mul_base(k.pub, k.secret)) return k;
  }
}

point public_of(const scalar& x) {
  point p;
  if (!mul_base(p, x)) throw std::invalid_argument("the secret key share is zero");
  return p;
}

std::array<std::uint8_t, sigma_proof_bytes> to_bytes(const sigma_proof& p) {
  std::array<std::uint8_t, sigma_proof_bytes> b;
  std::copy(p.c.b.begin(), p.c.b.end(), b.begin());
  std::copy(p.s.b.begin(), p.s.b.end(), b.begin() + scalar_bytes);
  return b;
}

std::string to_hex(const sigma_proof& p) { return fairdeck::to_hex(to_bytes(p)); }

sigma_proof parse_sigma_proof(std::string_view hex, std::string_view what) {
  if (hex.size() != 2 * sigma_proof_bytes) throw std::invalid_argument(std::string(what) + " is not 128 hex digits");
  return {parse_scalar(hex.substr(0, 64), what), parse_scalar(hex.substr(64), what)};
}

namespace {
scalar schnorr_challenge(std::span<const std::uint8_t> context, const point& pub, const point& t) {
  return fs_hash(schnorr_label).add(context).add(pub).add(t).challenge();
}
}  // namespace

sigma_proof prove_key(const key_pair& k, std::span<const std::uint8_t> context) {
  for (;;) {
    const scalar w = scalar::random();
    point t;
    if (!mul_base(t, w)) continue;
    sigma_proof p;
    p.c = schnorr_challenge(context, k.pub, t);
    p.s = w + p.c * k.secret;
    return p;
  }
}

bool verify_key(const point& pub, const sigma_proof& p, std::span<const std::uint8_t> context) noexcept {
  point sg, cy;
  if (!mul_base(sg, p.s) || !mul(cy, p.c, pub)) return false;
  const point t = sub(sg, cy);
  const scalar c = schnorr_challenge(context, pub, t);
  return sodium_memcmp(c.b.data(), p.c.b.data(), scalar_bytes) == 0;
}

point joint_key(std::span<const point> shares) {
  point y = identity();
  for (const auto& s : shares) y = add(y, s);
  return y;
}

}  // namespace fairdeck::mental
