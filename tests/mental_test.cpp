// fairdeck::mental (docs/mental-poker.md): known answers, honest hands of 2..6 players, and
// real attacks — cheating shuffles (drop, duplicate, replace, no re-encryption, replayed),
// wrong partial decryptions, rogue keys, and a transcript edited byte by byte.
// Deterministic: the known answers are fixed; the attacks fail verification with certainty
// or with probability 1 - N/ℓ (≈ 2^-246); the byte-edit sample uses a fixed seed.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include "fairdeck/mental/transcript.hpp"

namespace {

using namespace fairdeck::mental;
using fairdeck::deck_spec;

std::vector<std::uint8_t> ctx_bytes(std::string_view s) { return {s.begin(), s.end()}; }

struct table {
  std::vector<key_pair> keys;
  hand h;
  explicit table(std::size_t n, unsigned decks = 1) {
    std::vector<public_share> pubs;
    for (std::size_t i = 0; i < n; ++i) {
      keys.push_back(generate_key());
      pubs.push_back(make_public_share(keys.back()));
    }
    h = new_hand("test", pubs, deck_spec{decks, 0});
  }
  void shuffle_all(bool verify_first = false) {
    for (const auto& k : keys) add_shuffle(h, k, verify_first);
  }
  // Opens `positions` to seat `to` (1-based): everybody else reveals.
  void open_to(std::uint32_t to, std::vector<std::uint32_t> positions) {
    for (std::size_t j = 0; j < keys.size(); ++j)
      if (j + 1 != to) add_reveal(h, keys[j], positions, to, false);
  }
  void open_to_all(std::vector<std::uint32_t> positions) {
    for (const auto& k : keys) add_reveal(h, k, positions, to_all, false);
  }
};

TEST(MentalCards, KnownAnswers) {
  // M_i = from_hash(SHA-512("fairdeck/mental/v1/card" ‖ u32le(i))); the same values come out
  // of tests/mental/reference.mjs (@noble/curves), written independently from RFC 9496.
  const auto c = card_points(53);
  EXPECT_EQ(hex(c[0]), "7a74db10637cbdce2f89903342c542f0b1c7d71299a4288fea028c193decd820");   // Ac
  EXPECT_EQ(hex(c[1]), "b875186f763dc40ca3bcaaba028f930f2213021e4215defdc222a7864823f505");   // 2c
  EXPECT_EQ(hex(c[12]), "0a3ea9b848e3903eab2f38d9f977a76678a7e9dbe648d151f15521506316b235");  // Kc
  EXPECT_EQ(hex(c[13]), "a0200426b086ae41e4eff450938d4800b5e14319331d834fd99de5aa608b8212");  // Ad
  EXPECT_EQ(hex(c[51]), "72af43ef7e36c16e3681d3f4fd8da3b0399bc3a4e7aba52b4749d0ddbb916720");  // Ks
  EXPECT_EQ(hex(c[52]), "3434447b806f02e52d109c78544118b86d4e5e1e18b4c0032265b40fdb044c69");  // Ac, copy 1
  const auto g = generators(2);
  EXPECT_EQ(hex(g[0]), "86a8b6892fd5d95deb953f9664c7783814fdce50cf2f69b34e87a1502d4cdc2a");
  EXPECT_EQ(hex(g[1]), "a466928d8fa57bf930df32df5bce3a7a9ed6bf12965bbf6d19dc738bbde75f2f");
  // Every card of the largest shoe is a distinct valid point, distinct from the generators.
  const std::size_t n = max_hand_decks * 52 + max_hand_jokers;
  std::set<point> all;
  for (const auto& p : card_points(n)) {
    EXPECT_TRUE(is_valid(p));
    all.insert(p);
  }
  for (const auto& p : generators(n + 1)) all.insert(p);
  EXPECT_EQ(all.size(), 2 * n + 1);
}

TEST(MentalGroup, IdentityIsRefusedNotProduced) {
  point out;
  EXPECT_FALSE(mul(out, scalar{}, card_points(1)[0]));   // scalar 0
  EXPECT_FALSE(mul(out, scalar::random(), identity()));  // identity input
  EXPECT_FALSE(mul_base(out, scalar{}));
  ciphertext e;
  EXPECT_FALSE(encrypt(e, card_points(1)[0], scalar{}, generate_key().pub));           // randomness 0 never encrypts
  EXPECT_THROW((void)parse_scalar(std::string(64, 'f'), "s"), std::invalid_argument);  // above ℓ
}

TEST(MentalKeys, SchnorrBindsKeyAndContext) {
  const auto k = generate_key(), other = generate_key();
  const auto c = ctx_bytes("table/hand/1"), c2 = ctx_bytes("table/hand/2");
  const auto p = prove_key(k, c);
  EXPECT_TRUE(verify_key(k.pub, p, c));
  EXPECT_FALSE(verify_key(k.pub, p, c2));
  EXPECT_FALSE(verify_key(other.pub, p, c));
  auto q = p;
  q.s = q.s + scalar::one();
  EXPECT_FALSE(verify_key(k.pub, q, c));
}

TEST(MentalKeys, RogueKeyIsRefused) {
  // Mallory announces Y_M = zG − Y_A so that the joint key is zG, which she alone controls.
  const auto alice = generate_key();
  key_pair z = generate_key();
  const point rogue = sub(z.pub, alice.pub);
  // She cannot prove knowledge of log Y_M; her best is a proof for a key she knows.
  public_share m{rogue, prove_key(z, as_bytes(keygen_context))};
  EXPECT_FALSE(verify_public_share(m));
  EXPECT_THROW((void)new_hand("t", {make_public_share(alice), m}, deck_spec{1, 0}), std::invalid_argument);
  // A copied share (a replayed proof) is refused as a repeat.
  EXPECT_THROW((void)new_hand("t", {make_public_share(alice), make_public_share(alice)}, deck_spec{1, 0}),
               std::invalid_argument);
}

TEST(MentalKeys, KeyFileRoundTripAndMismatch) {
  const auto k = generate_key();
  std::string text = key_file_text(k);
  const auto back = parse_key_file(text);
  EXPECT_EQ(back.pub, k.pub);
  EXPECT_EQ(back.secret.b, k.secret.b);
  const auto other = generate_key();
  std::string swapped = text;
  swapped.replace(swapped.find(hex(k.pub)), 64, hex(other.pub));
  EXPECT_THROW((void)parse_key_file(swapped), format_error);
  EXPECT_THROW((void)parse_key_file("{}"), format_error);
}

// A deck, its honest shuffle, and the witness, for the attack tests.
struct shuffle_fixture {
  key_pair k1 = generate_key(), k2 = generate_key();
  point y;
  deck in;
  std::vector<std::uint8_t> ctx = ctx_bytes("shuffle-ctx");
  shuffle_fixture() {
    const point ys[2] = {k1.pub, k2.pub};
    y = joint_key(ys);
    in = initial_deck(52, y, ctx);
  }
  // out[i] = ReEnc(in[perm[i]]; rho[i]).
  deck reencrypt(const std::vector<std::uint32_t>& perm, const std::vector<scalar>& rho) const {
    deck out;
    for (std::size_t i = 0; i < perm.size(); ++i) {
      point ry, rg;
      EXPECT_TRUE(mul(ry, rho[i], y));
      EXPECT_TRUE(mul_base(rg, rho[i]));
      out.push_back({add(in[perm[i]].a, ry), add(in[perm[i]].b, rg)});
    }
    return out;
  }
  static std::vector<std::uint32_t> reversal() {
    std::vector<std::uint32_t> p(52);
    for (std::uint32_t i = 0; i < 52; ++i) p[i] = 51 - i;
    return p;
  }
  static std::vector<scalar> fresh() {
    std::vector<scalar> r(52);
    for (auto& s : r) s = scalar::random();
    return r;
  }
  bool cheat_verifies(const deck& out, const std::vector<std::uint32_t>& perm, const std::vector<scalar>& rho) {
    shuffle_proof p;
    EXPECT_TRUE(prove_shuffle(in, out, y, perm, rho, ctx, p));
    return verify_shuffle(in, out, y, p, ctx);
  }
};

TEST(MentalShuffle, HonestShuffleVerifiesAndOpensToAPermutation) {
  shuffle_fixture f;
  const auto r = shuffle_and_prove(f.in, f.y, f.ctx);
  EXPECT_EQ(serialize(r.proof).size(), shuffle_proof_bytes(52));
  EXPECT_LE(shuffle_proof_bytes(52), 8u * 1024);
  EXPECT_TRUE(verify_shuffle(f.in, r.out, f.y, r.proof, f.ctx));
  EXPECT_EQ(parse_shuffle_proof(serialize(r.proof), 52).chi.b, r.proof.chi.b);
  // The witness path: a known permutation with fresh randomness verifies too.
  const auto perm = shuffle_fixture::reversal();
  const auto rho = shuffle_fixture::fresh();
  EXPECT_TRUE(f.cheat_verifies(f.reencrypt(perm, rho), perm, rho));
  std::set<std::uint32_t> cards;
  for (const auto& e : r.out) {
    const partial_decryption d1 = partial_decrypt(f.k1, e.b, f.ctx), d2 = partial_decrypt(f.k2, e.b, f.ctx);
    const point s[2] = {d1.share, d2.share};
    const auto c = combine(e, s, 52);
    ASSERT_TRUE(c.has_value());
    cards.insert(*c);
  }
  EXPECT_EQ(cards.size(), 52u);
}

TEST(MentalShuffle, DuplicatingACardFails) {
  shuffle_fixture f;
  auto perm = shuffle_fixture::reversal();
  const auto rho = shuffle_fixture::fresh();
  perm[1] = perm[0];  // card of input 51 twice; input 50 dropped
  EXPECT_FALSE(f.cheat_verifies(f.reencrypt(perm, rho), shuffle_fixture::reversal(), rho));
  EXPECT_FALSE(f.cheat_verifies(f.reencrypt(perm, rho), perm, rho));  // the "permutation" that is not one
}

TEST(MentalShuffle, DroppingACardFails) {
  shuffle_fixture f;
  const auto perm = shuffle_fixture::reversal();
  const auto rho = shuffle_fixture::fresh();
  const auto honest = f.reencrypt(perm, rho);
  shuffle_proof p;
  ASSERT_TRUE(prove_shuffle(f.in, honest, f.y, perm, rho, f.ctx, p));
  deck shorter(honest.begin(), honest.end() - 1);
  EXPECT_FALSE(verify_shuffle(f.in, shorter, f.y, p, f.ctx));
}

TEST(MentalShuffle, ReplacingACardFails) {
  shuffle_fixture f;
  const auto perm = shuffle_fixture::reversal();
  const auto rho = shuffle_fixture::fresh();
  auto out = f.reencrypt(perm, rho);
  // Position 7 now holds a fresh encryption of the ace of spades (card 39) instead.
  ASSERT_TRUE(encrypt(out[7], card_points(52)[39], rho[7], f.y));
  EXPECT_FALSE(f.cheat_verifies(out, perm, rho));
}

TEST(MentalShuffle, PermutingWithoutReEncryptingFails) {
  shuffle_fixture f;
  const auto perm = shuffle_fixture::reversal();
  std::vector<scalar> zero(52);  // ρ = 0: out is the input permuted, the permutation in plain sight
  deck out;
  for (const auto j : perm) out.push_back(f.in[j]);
  EXPECT_FALSE(f.cheat_verifies(out, perm, zero));
  // One card left as it was is enough to be refused.
  auto rho = shuffle_fixture::fresh();
  auto mixed = f.reencrypt(perm, rho);
  mixed[3] = f.in[perm[3]];
  rho[3] = scalar{};
  EXPECT_FALSE(f.cheat_verifies(mixed, perm, rho));
}

TEST(MentalShuffle, ReplayedShuffleFails) {
  // Re-used randomness: an honest shuffle (its re-encryptions and proof) replayed in another
  // context — another hand, step or seat — or against another deck does not verify.
  shuffle_fixture f;
  const auto r = shuffle_and_prove(f.in, f.y, f.ctx);
  EXPECT_FALSE(verify_shuffle(f.in, r.out, f.y, r.proof, ctx_bytes("shuffle-ctx-2")));
  const deck other = initial_deck(52, f.y, ctx_bytes("another hand"));
  EXPECT_FALSE(verify_shuffle(other, r.out, f.y, r.proof, f.ctx));
  // A second shuffle that re-uses the first one's output and proof (no work of its own).
  EXPECT_FALSE(verify_shuffle(r.out, r.out, f.y, r.proof, f.ctx));
  // Tampering with any single response is caught.
  auto bad = r.proof;
  bad.sprime[10] = bad.sprime[10] + scalar::one();
  EXPECT_FALSE(verify_shuffle(f.in, r.out, f.y, bad, f.ctx));
}

TEST(MentalShuffle, OneBadEquationAmongManyIsCaught) {
  // Each of the 2N + 5 responses and each of the 2N commitments alone made wrong — one of the
  // N + 5 verification equations off, all the others right — is refused: whatever a future
  // verifier combines, no single equation may be lost in the crowd. A response is moved by
  // one, a commitment by adding G (it stays a valid point, so only the algebra can catch it).
  shuffle_fixture f;
  const auto r = shuffle_and_prove(f.in, f.y, f.ctx);
  ASSERT_TRUE(verify_shuffle(f.in, r.out, f.y, r.proof, f.ctx));
  point g;
  ASSERT_TRUE(mul_base(g, scalar::one()));
  std::size_t tried = 0;
  auto refused = [&](const shuffle_proof& bad) {
    ++tried;
    return !verify_shuffle(f.in, r.out, f.y, bad, f.ctx);
  };
  for (scalar shuffle_proof::*s :
       {&shuffle_proof::chi, &shuffle_proof::s1, &shuffle_proof::s2, &shuffle_proof::s3, &shuffle_proof::s4}) {
    auto bad = r.proof;
    bad.*s = bad.*s + scalar::one();
    EXPECT_TRUE(refused(bad)) << "a changed χ or s1..s4 verifies";
  }
  for (std::size_t i = 0; i < 52; ++i) {
    auto bad = r.proof;
    bad.shat[i] = bad.shat[i] + scalar::one();
    EXPECT_TRUE(refused(bad)) << "a changed ŝ_" << i + 1 << " verifies";
    bad = r.proof;
    bad.sprime[i] = bad.sprime[i] + scalar::one();
    EXPECT_TRUE(refused(bad)) << "a changed s'_" << i + 1 << " verifies";
    bad = r.proof;
    bad.c[i] = add(bad.c[i], g);
    EXPECT_TRUE(refused(bad)) << "a changed c_" << i + 1 << " verifies";
    bad = r.proof;
    bad.chat[i] = add(bad.chat[i], g);
    EXPECT_TRUE(refused(bad)) << "a changed ĉ_" << i + 1 << " verifies";
  }
  EXPECT_EQ(tried, 4 * 52 + 5u);
}

TEST(MentalShuffle, IdentityInTheDeckIsRejectedNotACrash) {
  shuffle_fixture f;
  auto r = shuffle_and_prove(f.in, f.y, f.ctx);
  r.out[5].b = identity();
  EXPECT_FALSE(verify_shuffle(f.in, r.out, f.y, r.proof, f.ctx));
}

TEST(MentalDecrypt, WrongPartialDecryptionIsCaught) {
  shuffle_fixture f;
  const auto& e = f.in[0];
  const auto honest = partial_decrypt(f.k1, e.b, f.ctx);
  EXPECT_TRUE(verify_partial(f.k1.pub, e.b, honest, f.ctx));
  // Open card 0 as card 39 instead: D' = D + (M_0 − M_39); the honest proof does not cover D'.
  auto cheat = honest;
  cheat.share = add(honest.share, sub(card_points(52)[0], card_points(52)[39]));
  EXPECT_FALSE(verify_partial(f.k1.pub, e.b, cheat, f.ctx));
  const auto d2 = partial_decrypt(f.k2, e.b, f.ctx);
  const point shares[2] = {cheat.share, d2.share};
  EXPECT_EQ(combine(e, shares, 52), std::optional<std::uint32_t>(39));  // the lie would work unchecked
  // A share made with another key, with its own valid proof, under this player's key.
  EXPECT_FALSE(verify_partial(f.k1.pub, e.b, d2, f.ctx));
  // The right share for another ciphertext, another context.
  EXPECT_FALSE(verify_partial(f.k1.pub, f.in[1].b, honest, f.ctx));
  EXPECT_FALSE(verify_partial(f.k1.pub, e.b, honest, ctx_bytes("elsewhere")));
}

void expect_holdem(std::size_t n) {
  table t(n);
  t.shuffle_all(true);
  // Hole cards: positions 2s, 2s+1 for seat s+1; the board after them.
  for (std::uint32_t s = 0; s < n; ++s) t.open_to(s + 1, {2 * s, 2 * s + 1});
  const auto board_at = static_cast<std::uint32_t>(2 * n);
  t.open_to_all({board_at, board_at + 1, board_at + 2, board_at + 3, board_at + 4});
  const auto v = verify_hand(t.h);
  ASSERT_TRUE(v.ok) << v.problem;
  EXPECT_EQ(v.shuffles, n);
  EXPECT_EQ(v.public_cards.size(), 5u);
  std::set<fairdeck::card_t> seen;
  for (const auto& [p, c] : v.public_cards) seen.insert(static_cast<fairdeck::card_t>(c));
  for (std::uint32_t s = 0; s < n; ++s) {
    const auto mine = open_cards(t.h, t.keys[s], false);
    ASSERT_EQ(mine.size(), 7u) << "seat " << s + 1;  // two hole cards and the board
    EXPECT_TRUE(mine.contains(2 * s) && mine.contains(2 * s + 1));
    for (const auto& [p, c] : mine) {
      if (p >= board_at) {
        EXPECT_EQ(c, v.public_cards.at(p));
      } else {
        seen.insert(c);
      }
    }
  }
  EXPECT_EQ(seen.size(), 2 * n + 5);  // all distinct
  // The text form round-trips and verifies.
  const auto text = to_json(t.h);
  const auto tv = verify_text(text);
  EXPECT_TRUE(tv.readable && tv.v.ok) << tv.v.problem;
  EXPECT_EQ(tv.v.head, v.head);
}

TEST(MentalHand, HonestHandsOf2To6PlayersVerify) {
  for (std::size_t n = 2; n <= 6; ++n) {
    SCOPED_TRACE(n);
    expect_holdem(n);
  }
}

TEST(MentalHand, StepsOutOfTurnAreRefused) {
  table t(3);
  EXPECT_THROW(add_shuffle(t.h, t.keys[1]), std::invalid_argument);                                   // player 1 first
  EXPECT_THROW(add_reveal(t.h, t.keys[0], std::vector<std::uint32_t>{0}, 2), std::invalid_argument);  // before shuffles
  t.shuffle_all();
  EXPECT_THROW(add_shuffle(t.h, t.keys[0]), std::invalid_argument);  // everyone has shuffled
  EXPECT_THROW(add_reveal(t.h, t.keys[0], std::vector<std::uint32_t>{0}, 1), std::invalid_argument);  // to itself
  EXPECT_THROW(add_reveal(t.h, t.keys[0], std::vector<std::uint32_t>{52}, 2), std::invalid_argument);
  EXPECT_THROW(add_reveal(t.h, generate_key(), std::vector<std::uint32_t>{0}, 2), std::invalid_argument);
  // Nobody but seat 1 can open what is revealed to seat 1.
  t.open_to(1, {0});
  EXPECT_EQ(open_cards(t.h, t.keys[0]).size(), 1u);
  EXPECT_TRUE(open_cards(t.h, t.keys[1]).empty());
}

TEST(MentalHand, StepsCopiedBetweenHandsFail) {
  // Same players, two hands: hand 2's first shuffle replaced by hand 1's.
  table t(2);
  std::vector<public_share> pubs;
  for (const auto& k : t.keys) pubs.push_back(make_public_share(k));
  hand other = new_hand("test", pubs, deck_spec{1, 0});
  t.shuffle_all();
  add_shuffle(other, t.keys[0]);
  other.steps[0] = t.h.steps[0];
  const auto v = verify_hand(other);
  EXPECT_FALSE(v.ok);
  EXPECT_EQ(v.failed_step, std::optional<std::size_t>(0));
  // A reveal moved to another recipient.
  t.open_to(1, {0});
  std::get<reveal_step>(t.h.steps.back()).to = to_all;
  const auto v2 = verify_hand(t.h);
  EXPECT_FALSE(v2.ok);
  EXPECT_EQ(v2.failed_step, std::optional<std::size_t>(2));
  EXPECT_NE(v2.problem.find("step 2 (reveal by player 2 to all)"), std::string::npos) << v2.problem;
}

// verify_hand(h, k) checks the proofs of steps k.. only (a server that verified the earlier
// steps when they came), but the structure of every step: a forged proof at step k or later is
// caught, one before k is not (that is the offline verifier's job, proofs_from = 0), and a step
// out of turn or a repeated position anywhere still fails.
TEST(MentalHand, VerifyingFromAStepChecksThatStepsProofsAndEveryStepsStructure) {
  table t(2);
  t.shuffle_all();
  t.open_to(1, {0, 1});
  t.open_to_all({4});
  ASSERT_TRUE(verify_hand(t.h).ok);
  for (std::size_t k = 0; k <= t.h.steps.size(); ++k) EXPECT_TRUE(verify_hand(t.h, k).ok) << k;
  // A forged partial decryption in the last step: caught from 0..last, not after it.
  const std::size_t last = t.h.steps.size() - 1;
  ASSERT_EQ(last, 4u);  // shuffle, shuffle, reveal to seat 1, two reveals to all
  hand forged = t.h;
  auto& reveal = std::get<reveal_step>(forged.steps[last]);
  reveal.shares[0].share = add(reveal.shares[0].share, card_points(52)[1]);
  for (std::size_t k = 0; k <= last; ++k) {
    const auto v = verify_hand(forged, k);
    EXPECT_FALSE(v.ok) << k;
    EXPECT_EQ(v.failed_step, std::optional<std::size_t>(last)) << k;
  }
  // Two cards of shuffle 1's output swapped: its proof fails from 0 and 1; from 2 the later
  // reveals' proofs (made against the deck as it was) fail; with no proofs at all it passes.
  hand bad_shuffle = t.h;
  auto& out = std::get<shuffle_step>(bad_shuffle.steps[1]).out;
  std::swap(out[0], out[1]);
  EXPECT_EQ(verify_hand(bad_shuffle, 0).failed_step, std::optional<std::size_t>(1));
  EXPECT_EQ(verify_hand(bad_shuffle, 1).failed_step, std::optional<std::size_t>(1));
  EXPECT_EQ(verify_hand(bad_shuffle, 2).failed_step, std::optional<std::size_t>(2));
  EXPECT_TRUE(verify_hand(bad_shuffle, bad_shuffle.steps.size()).ok);
  // Structure is checked at every step whatever proofs_from says: a repeated position in step 2.
  hand repeated = t.h;
  auto& r2 = std::get<reveal_step>(repeated.steps[2]);
  r2.positions[1] = r2.positions[0];
  const auto v = verify_hand(repeated, repeated.steps.size());
  EXPECT_FALSE(v.ok);
  EXPECT_EQ(v.failed_step, std::optional<std::size_t>(2));
}

TEST(MentalHand, EveryByteEditFails) {
  // A 2-player hand with both shuffles, a private and a public opening. A fixed-seed sample of
  // 150 bytes from each region — header, shuffles, reveals — is edited; an edited hex digit
  // becomes another hex digit (the text stays well-formed: only the proofs can catch it), any
  // other byte is flipped in its lowest bit. (Every byte would take minutes: each edit that
  // parses costs a full verification.)
  table t(2);
  t.shuffle_all();
  t.open_to(1, {0, 1});
  t.open_to_all({4});
  const std::string text = to_json(t.h);
  ASSERT_TRUE(verify_text(text).v.ok);
  const std::size_t steps_at = text.find("\"steps\"");
  const std::size_t reveals_at = text.find("\"type\": \"shuffle\"", text.find("\"type\": \"shuffle\"") + 1);
  ASSERT_NE(reveals_at, std::string::npos);
  std::vector<std::size_t> where;
  std::mt19937_64 rng(20261126);
  for (int i = 0; i < 150; ++i) {
    where.push_back(rng() % steps_at);
    where.push_back(steps_at + rng() % (reveals_at - steps_at));
    where.push_back(reveals_at + rng() % (text.size() - reveals_at));
  }
  std::size_t hex_edits = 0;
  for (const std::size_t i : where) {
    std::string edited = text;
    const char c = edited[i];
    static constexpr std::string_view digits = "0123456789abcdef";
    if (const auto d = digits.find(c); d != std::string_view::npos) {
      edited[i] = digits[(d + 1) % 16];
      ++hex_edits;
    } else {
      edited[i] = static_cast<char>(c ^ 1);
    }
    const auto r = verify_text(edited);
    EXPECT_FALSE(r.readable && r.v.ok) << "an edit at byte " << i << " ('" << c << "' -> '" << edited[i]
                                       << "') still verifies";
  }
  EXPECT_GT(hex_edits, where.size() / 2);
}

}  // namespace
