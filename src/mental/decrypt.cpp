// Partial decryptions and Chaum–Pedersen proofs (decrypt.hpp).
#include "fairdeck/mental/decrypt.hpp"

#include <stdexcept>

namespace fairdeck::mental {

namespace {
scalar dleq_challenge(std::span<const std::uint8_t> context, const point& pub, const point& b, const point& d,
                      const point& t1, const point& t2) {
  return fs_hash(dleq_label).add(context).add(pub).add(b).add(d).add(t1).add(t2).challenge();
}
}  // namespace

partial_decryption partial_decrypt(const key_pair& k, const point& b, std::span<const std::uint8_t> context) {
  partial_decryption out;
  if (!mul(out.share, k.secret, b))
    throw std::invalid_argument("a ciphertext with an identity component cannot be decrypted");
  for (;;) {
    const scalar w = scalar::random();
    point t1, t2;
    if (!mul_base(t1, w) || !mul(t2, w, b)) continue;
    out.proof.c = dleq_challenge(context, k.pub, b, out.share, t1, t2);
    out.proof.s = w + out.proof.c * k.secret;
    return out;
  }
}

bool verify_partial(const point& pub, const point& b, const partial_decryption& d,
                    std::span<const std::uint8_t> context) noexcept {
  point sg, cy, sb, cd;
  if (!mul_base(sg, d.proof.s) || !mul(cy, d.proof.c, pub) || !mul(sb, d.proof.s, b) || !mul(cd, d.proof.c, d.share))
    return false;
  const scalar c = dleq_challenge(context, pub, b, d.share, sub(sg, cy), sub(sb, cd));
  return sodium_memcmp(c.b.data(), d.proof.c.b.data(), scalar_bytes) == 0;
}

std::optional<std::uint32_t> combine(const ciphertext& e, std::span<const point> shares, std::size_t n) {
  point m = e.a;
  for (const auto& s : shares) m = sub(m, s);
  const auto cards = card_points(n);
  for (std::size_t i = 0; i < n; ++i)
    if (cards[i] == m) return static_cast<std::uint32_t>(i);
  return std::nullopt;
}

}  // namespace fairdeck::mental
