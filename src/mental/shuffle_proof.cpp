// Verifiable shuffle of ElGamal decks: Terelius–Wikström (shuffle_proof.hpp). The variable
// names follow docs/mental-poker.md §4 (Haenni et al. 2017's Algorithms 8.4 and 8.5, additive).
#include "fairdeck/mental/shuffle_proof.hpp"

#include <algorithm>
#include <map>
#include <mutex>
#include <stdexcept>

namespace fairdeck::mental {

namespace {

constexpr std::string_view seed_label = "fairdeck/mental/v1/shuffle/seed";
constexpr std::string_view u_label = "fairdeck/mental/v1/shuffle/u";
constexpr std::string_view challenge_label = "fairdeck/mental/v1/shuffle/challenge";

// Wipes a vector of secret indices on every exit path.
struct wiped_indices {
  std::vector<std::uint32_t> v;
  ~wiped_indices() {
    if (!v.empty()) sodium_memzero(v.data(), v.size() * sizeof(std::uint32_t));
  }
};

std::array<std::uint8_t, 64> shuffle_seed(std::span<const std::uint8_t> context, const point& y, const deck& in,
                                          const deck& out, std::span<const point> c) {
  fs_hash h(seed_label);
  h.add(context).add(y);
  for (const auto& e : in) h.add(e.a).add(e.b);
  for (const auto& e : out) h.add(e.a).add(e.b);
  for (const auto& p : c) h.add(p);
  return h.digest();
}

std::vector<scalar> challenges_u(const std::array<std::uint8_t, 64>& seed, std::size_t n) {
  std::vector<scalar> u(n);
  for (std::size_t j = 0; j < n; ++j)
    u[j] = fs_hash(u_label).add(seed).add_u32(static_cast<std::uint32_t>(j)).challenge();
  return u;
}

struct commitments {
  point t1, t2, t3, t4a, t4b;
  std::vector<point> that;
};

scalar final_challenge(const std::array<std::uint8_t, 64>& seed, std::span<const point> chat, const commitments& t) {
  fs_hash h(challenge_label);
  h.add(seed);
  for (const auto& p : chat) h.add(p);
  h.add(t.t1).add(t.t2).add(t.t3).add(t.t4a).add(t.t4b);
  for (const auto& p : t.that) h.add(p);
  return h.challenge();
}

// H_1 + ... + H_n, once per n (the verifier's C̄).
point generator_sum(std::size_t n) {
  static std::mutex m;
  static std::map<std::size_t, point> sums;
  std::lock_guard lock(m);
  if (const auto it = sums.find(n); it != sums.end()) return it->second;
  const auto gens = generators(n + 1);
  point sum = identity();
  for (std::size_t i = 1; i <= n; ++i) sum = add(sum, gens[i]);
  return sums[n] = sum;
}

// acc += x·p; false when libsodium refuses.
bool mul_add(point& acc, const scalar& x, const point& p) {
  point q;
  if (!mul(q, x, p)) return false;
  acc = add(acc, q);
  return true;
}

// A sum that starts empty: its first term is stored, not added to the identity (each
// addition is a decode–add–encode round trip in libsodium, about a quarter of a scalar
// multiplication).
struct point_sum {
  point value = identity();
  bool empty = true;
  void add(const point& q) {
    value = empty ? q : mental::add(value, q);
    empty = false;
  }
  bool mul_add(const scalar& x, const point& p) {
    point q;
    if (!mul(q, x, p)) return false;
    add(q);
    return true;
  }
};

}  // namespace

bool encrypt(ciphertext& out, const point& m, const scalar& r, const point& y) noexcept {
  point ry;
  if (!mul(ry, r, y) || !mul_base(out.b, r)) return false;
  out.a = add(m, ry);
  return true;
}

deck initial_deck(std::size_t n, const point& y, std::span<const std::uint8_t> seed) {
  const auto cards = card_points(n);
  deck d(n);
  for (std::size_t i = 0; i < n; ++i) {
    const scalar r = fs_hash(initial_label).add(seed).add_u32(static_cast<std::uint32_t>(i)).challenge();
    if (!encrypt(d[i], cards[i], r, y)) throw std::invalid_argument("the joint key cannot encrypt the deck");
  }
  return d;
}

std::vector<std::uint8_t> serialize(const shuffle_proof& p) {
  std::vector<std::uint8_t> out;
  out.reserve(shuffle_proof_bytes(p.c.size()));
  auto put = [&](std::span<const std::uint8_t> b) { out.insert(out.end(), b.begin(), b.end()); };
  for (const auto& x : p.c) put(x);
  for (const auto& x : p.chat) put(x);
  for (const scalar* s : {&p.chi, &p.s1, &p.s2, &p.s3, &p.s4}) put(s->b);
  for (const auto& s : p.shat) put(s.b);
  for (const auto& s : p.sprime) put(s.b);
  return out;
}

shuffle_proof parse_shuffle_proof(std::span<const std::uint8_t> bytes, std::size_t n) {
  if (bytes.size() != shuffle_proof_bytes(n))
    throw std::invalid_argument("a shuffle proof for " + std::to_string(n) + " cards has " +
                                std::to_string(shuffle_proof_bytes(n)) + " bytes, not " + std::to_string(bytes.size()));
  std::size_t at = 0;
  auto get_point = [&] {
    point p;
    std::copy_n(bytes.begin() + static_cast<std::ptrdiff_t>(at), point_bytes, p.begin());
    at += point_bytes;
    if (!is_valid(p)) throw std::invalid_argument("a shuffle proof holds a value that is not a ristretto255 point");
    return p;
  };
  auto get_scalar = [&] {
    scalar s;
    std::copy_n(bytes.begin() + static_cast<std::ptrdiff_t>(at), scalar_bytes, s.b.begin());
    at += scalar_bytes;
    if (!scalar_canonical(s.b)) throw std::invalid_argument("a shuffle proof holds a scalar above the group order");
    return s;
  };
  shuffle_proof p;
  p.c.resize(n);
  p.chat.resize(n);
  for (auto& x : p.c) x = get_point();
  for (auto& x : p.chat) x = get_point();
  p.chi = get_scalar();
  p.s1 = get_scalar();
  p.s2 = get_scalar();
  p.s3 = get_scalar();
  p.s4 = get_scalar();
  p.shat.resize(n);
  p.sprime.resize(n);
  for (auto& s : p.shat) s = get_scalar();
  for (auto& s : p.sprime) s = get_scalar();
  return p;
}

bool prove_shuffle(const deck& in, const deck& out, const point& y, std::span<const std::uint32_t> perm,
                   std::span<const scalar> rho, std::span<const std::uint8_t> context, shuffle_proof& proof) {
  const std::size_t n = in.size();
  if (out.size() != n || perm.size() != n || rho.size() != n || n == 0) return false;
  const auto gens = generators(n + 1);
  for (int attempt = 0; attempt < 8; ++attempt) {  // each attempt fails with probability ~2^-245
    bool ok = true;
    // 1. Permutation commitment, indexed by input position: c_{ψ(i)} = r_{ψ(i)}G + H_i.
    std::vector<scalar> r(n);
    proof.c.assign(n, identity());
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint32_t j = perm[i];
      r[j] = scalar::random();
      point rg;
      ok &= mul_base(rg, r[j]);
      proof.c[j] = add(rg, gens[1 + i]);
    }
    // 2. Challenges u_j and u'_i = u_{ψ(i)}.
    const auto seed = shuffle_seed(context, y, in, out, proof.c);
    const auto u = challenges_u(seed, n);
    std::vector<scalar> uprime(n);
    for (std::size_t i = 0; i < n; ++i) uprime[i] = u[perm[i]];
    // 3. Commitment chain ĉ_i = r̂_iG + u'_i ĉ_{i-1}, ĉ_0 = H_0.
    std::vector<scalar> rhat(n);
    proof.chat.assign(n, identity());
    for (std::size_t i = 0; i < n; ++i) {
      rhat[i] = scalar::random();
      const point& prev = i ? proof.chat[i - 1] : gens[0];
      point rg;
      ok &= mul_base(rg, rhat[i]);
      proof.chat[i] = rg;
      ok &= mul_add(proof.chat[i], uprime[i], prev);
    }
    // 4. The prover's commitments.
    const scalar w1 = scalar::random(), w2 = scalar::random(), w3 = scalar::random(), w4 = scalar::random();
    std::vector<scalar> what(n), wprime(n);
    commitments t;
    ok &= mul_base(t.t1, w1);
    ok &= mul_base(t.t2, w2);
    ok &= mul_base(t.t3, w3);
    point w4y, w4g;
    ok &= mul(w4y, w4, y);
    ok &= mul_base(w4g, w4);
    t.t4a = sub(identity(), w4y);
    t.t4b = sub(identity(), w4g);
    t.that.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      what[i] = scalar::random();
      wprime[i] = scalar::random();
      ok &= mul_add(t.t3, wprime[i], gens[1 + i]);
      ok &= mul_add(t.t4a, wprime[i], out[i].a);
      ok &= mul_add(t.t4b, wprime[i], out[i].b);
      ok &= mul_base(t.that[i], what[i]);
      ok &= mul_add(t.that[i], wprime[i], i ? proof.chat[i - 1] : gens[0]);
    }
    if (!ok) continue;  // libsodium refused an identity: draw everything again
    // 5. Challenge.
    proof.chi = final_challenge(seed, proof.chat, t);
    // 6. Responses.
    scalar rbar, rhat_sum, rtilde, rho_sum, v = scalar::one();
    for (std::size_t k = n; k-- > 0;) {  // v_i = u'_{i+1} ... u'_N (1-based), from the top
      rhat_sum = rhat_sum + rhat[k] * v;
      v = v * uprime[k];
    }
    for (std::size_t j = 0; j < n; ++j) {
      rbar = rbar + r[j];
      rtilde = rtilde + r[j] * u[j];
      rho_sum = rho_sum + rho[j] * uprime[j];
    }
    proof.s1 = w1 - proof.chi * rbar;
    proof.s2 = w2 - proof.chi * rhat_sum;
    proof.s3 = w3 - proof.chi * rtilde;
    proof.s4 = w4 - proof.chi * rho_sum;
    proof.shat.resize(n);
    proof.sprime.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      proof.shat[i] = what[i] - proof.chi * rhat[i];
      proof.sprime[i] = wprime[i] - proof.chi * uprime[i];
    }
    return true;
  }
  return false;
}

shuffle_result shuffle_and_prove(const deck& in, const point& y, std::span<const std::uint8_t> context) {
  const std::size_t n = in.size();
  if (n == 0 || n > 0xffffffffu) throw std::invalid_argument("a deck to shuffle must hold at least one card");
  for (int attempt = 0; attempt < 8; ++attempt) {
    wiped_indices perm;
    perm.v.resize(n);
    for (std::size_t i = 0; i < n; ++i) perm.v[i] = static_cast<std::uint32_t>(i);
    for (std::size_t i = n; i-- > 1;)  // Fisher–Yates with libsodium's unbiased uniform draw
      std::swap(perm.v[i], perm.v[randombytes_uniform(static_cast<std::uint32_t>(i + 1))]);
    std::vector<scalar> rho(n);
    shuffle_result r;
    r.out.resize(n);
    bool ok = true;
    for (std::size_t i = 0; i < n; ++i) {
      rho[i] = scalar::random();
      point ry, rg;
      ok &= mul(ry, rho[i], y);
      ok &= mul_base(rg, rho[i]);
      r.out[i] = {add(in[perm.v[i]].a, ry), add(in[perm.v[i]].b, rg)};
    }
    if (!ok) continue;
    if (prove_shuffle(in, r.out, y, perm.v, rho, context, r.proof)) return r;
  }
  throw std::runtime_error("libsodium refused every attempt to shuffle (identity results)");
}

bool verify_shuffle(const deck& in, const deck& out, const point& y, const shuffle_proof& p,
                    std::span<const std::uint8_t> context) {
  const std::size_t n = in.size();
  if (n == 0 || out.size() != n || p.c.size() != n || p.chat.size() != n || p.shat.size() != n || p.sprime.size() != n)
    return false;
  // Every output ciphertext re-encrypted: no b' equals an input b (nor is the identity).
  {
    std::vector<point> bs;
    bs.reserve(n);
    for (const auto& e : in) bs.push_back(e.b);
    std::sort(bs.begin(), bs.end());
    for (const auto& e : out)
      if (e.b == identity() || e.a == identity() || std::binary_search(bs.begin(), bs.end(), e.b)) return false;
  }
  const auto gens = generators(n + 1);
  const auto seed = shuffle_seed(context, y, in, out, p.c);
  const auto u = challenges_u(seed, n);
  bool ok = true;
  // C̄ = Σc_j − ΣH_i, Ĉ = ĉ_N − (∏u_j)H_0; χC̃ = Σ(χu_j)c_j, χÃ = Σ(χu_j)a_j, χB̃ = Σ(χu_j)b_j
  // (χ folded into the scalars: the same points, three multiplications fewer).
  point_sum csum, t3, t4a, t4b;
  scalar uprod = scalar::one();
  for (std::size_t j = 0; j < n; ++j) {
    csum.add(p.c[j]);
    uprod = uprod * u[j];
    const scalar cu = p.chi * u[j];
    ok &= t3.mul_add(cu, p.c[j]);
    ok &= t4a.mul_add(cu, in[j].a);
    ok &= t4b.mul_add(cu, in[j].b);
  }
  const point cbar = sub(csum.value, generator_sum(n));
  point uh0;
  ok &= mul(uh0, uprod, gens[0]);
  const point chat_big = sub(p.chat[n - 1], uh0);
  commitments t;
  point x;
  ok &= mul(t.t1, p.chi, cbar);
  ok &= mul_base(x, p.s1);
  t.t1 = add(t.t1, x);
  ok &= mul(t.t2, p.chi, chat_big);
  ok &= mul_base(x, p.s2);
  t.t2 = add(t.t2, x);
  ok &= mul_base(x, p.s3);
  t.t3 = add(t3.value, x);
  ok &= mul(x, p.s4, y);
  t.t4a = sub(t4a.value, x);
  ok &= mul_base(x, p.s4);
  t.t4b = sub(t4b.value, x);
  t.that.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    ok &= mul_add(t.t3, p.sprime[i], gens[1 + i]);
    ok &= mul_add(t.t4a, p.sprime[i], out[i].a);
    ok &= mul_add(t.t4b, p.sprime[i], out[i].b);
    ok &= mul(t.that[i], p.chi, p.chat[i]);
    ok &= mul_base(x, p.shat[i]);
    t.that[i] = add(t.that[i], x);
    ok &= mul_add(t.that[i], p.sprime[i], i ? p.chat[i - 1] : gens[0]);
    if (!ok) return false;  // libsodium refused: reject
  }
  if (!ok) return false;
  const scalar chi = final_challenge(seed, p.chat, t);
  return sodium_memcmp(chi.b.data(), p.chi.b.data(), scalar_bytes) == 0;
}

}  // namespace fairdeck::mental
