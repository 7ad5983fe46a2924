// Mental poker (docs/mental-poker.md §8): the Terelius–Wikström shuffle proof of a 52-card deck
// (prove, verify, size) and a whole 6-player hold'em hand, next to the libsodium operations
// they are made of, measured in the same run (compare as ratios; medians with
// --benchmark_repetitions). Counters: group operations per iteration (where the time goes).
// Goals (issue #32): prove ≤ 60 ms, verify ≤ 30 ms, proof ≤ 8 KB, hand ≤ 1.5 s, one core.
#include <benchmark/benchmark.h>
#include <sodium.h>

#include "fairdeck/mental/transcript.hpp"

namespace {

using namespace fairdeck::mental;

void count_ops(benchmark::State& state, const op_counts& before) {
  const auto& now = thread_op_counts();
  const double it = static_cast<double>(state.iterations());
  state.counters["mul"] = static_cast<double>(now.mul - before.mul) / it;
  state.counters["mul_base"] = static_cast<double>(now.mul_base - before.mul_base) / it;
  state.counters["add"] = static_cast<double>(now.add - before.add) / it;
}

struct fixture {
  key_pair k1 = generate_key(), k2 = generate_key();
  point y;
  deck in;
  std::vector<std::uint8_t> ctx{'b', 'e', 'n', 'c', 'h'};
  fixture() {
    const point ys[2] = {k1.pub, k2.pub};
    y = joint_key(ys);
    in = initial_deck(52, y, ctx);
  }
};

// Baselines: one of each libsodium operation the proofs are made of.
void BM_MentalScalarMult(benchmark::State& state) {
  const scalar x = scalar::random();
  point p = card_points(1)[0];
  for (auto _ : state) {
    benchmark::DoNotOptimize(mul(p, x, p));
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_MentalScalarMult)->Unit(benchmark::kMicrosecond);

void BM_MentalScalarMultBase(benchmark::State& state) {
  scalar x = scalar::random();
  point p;
  for (auto _ : state) {
    benchmark::DoNotOptimize(mul_base(p, x));
    x.b[0] ^= p[1] & 1;  // depend on the last result
  }
}
BENCHMARK(BM_MentalScalarMultBase)->Unit(benchmark::kMicrosecond);

void BM_MentalPointAdd(benchmark::State& state) {
  point p = card_points(2)[0];
  const point q = card_points(2)[1];
  for (auto _ : state) {
    p = add(p, q);
    benchmark::DoNotOptimize(p);
  }
}
BENCHMARK(BM_MentalPointAdd)->Unit(benchmark::kMicrosecond);

// A point decode alone (crypto_core_ristretto255_is_valid_point: the inverse square root an
// addition pays twice, plus once more to encode its result).
void BM_MentalPointDecode(benchmark::State& state) {
  const point p = card_points(1)[0];
  for (auto _ : state) benchmark::DoNotOptimize(is_valid(p));
}
BENCHMARK(BM_MentalPointDecode)->Unit(benchmark::kMicrosecond);

// The other variable-base routes in libsodium, measured for the record (docs/mental-poker.md
// §8 says why none of them replaces the ristretto255 multiplication): Ed25519 without clamping
// (checks subgroup membership with a multiplication by ℓ), the Ed25519 addition, and X25519
// (Montgomery ladder: x-only, clamped — no sign, so its results cannot be added).
void BM_MentalAltEd25519Mult(benchmark::State& state) {
  scalar x = scalar::random();
  unsigned char e[crypto_core_ed25519_BYTES], h[crypto_core_ed25519_UNIFORMBYTES] = {1, 2, 3};
  crypto_core_ed25519_from_uniform(e, h);
  for (auto _ : state) {
    benchmark::DoNotOptimize(crypto_scalarmult_ed25519_noclamp(e, x.b.data(), e));
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_MentalAltEd25519Mult)->Unit(benchmark::kMicrosecond);

void BM_MentalAltEd25519Add(benchmark::State& state) {
  unsigned char e[crypto_core_ed25519_BYTES], f[crypto_core_ed25519_BYTES], h[crypto_core_ed25519_UNIFORMBYTES] = {1};
  crypto_core_ed25519_from_uniform(e, h);
  h[0] = 2;
  crypto_core_ed25519_from_uniform(f, h);
  for (auto _ : state) {
    benchmark::DoNotOptimize(crypto_core_ed25519_add(e, e, f));
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_MentalAltEd25519Add)->Unit(benchmark::kMicrosecond);

void BM_MentalAltX25519(benchmark::State& state) {
  scalar x = scalar::random();
  unsigned char u[crypto_scalarmult_curve25519_BYTES];
  if (crypto_scalarmult_curve25519_base(u, x.b.data()) != 0) state.SkipWithError("X25519 base failed");
  for (auto _ : state) {
    benchmark::DoNotOptimize(crypto_scalarmult_curve25519(u, x.b.data(), u));
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_MentalAltX25519)->Unit(benchmark::kMicrosecond);

void BM_MentalShuffleProve52(benchmark::State& state) {
  fixture f;
  const auto before = thread_op_counts();
  std::size_t bytes = 0;
  for (auto _ : state) {
    auto r = shuffle_and_prove(f.in, f.y, f.ctx);
    bytes = serialize(r.proof).size();
    benchmark::DoNotOptimize(r);
  }
  count_ops(state, before);
  state.counters["proof_bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_MentalShuffleProve52)->Unit(benchmark::kMillisecond);

void BM_MentalShuffleVerify52(benchmark::State& state) {
  fixture f;
  const auto r = shuffle_and_prove(f.in, f.y, f.ctx);
  const auto before = thread_op_counts();
  for (auto _ : state) {
    const bool ok = verify_shuffle(f.in, r.out, f.y, r.proof, f.ctx);
    if (!ok) state.SkipWithError("an honest shuffle did not verify");
    benchmark::DoNotOptimize(ok);
  }
  count_ops(state, before);
}
BENCHMARK(BM_MentalShuffleVerify52)->Unit(benchmark::kMillisecond);

void BM_MentalPartialDecryptAndVerify(benchmark::State& state) {
  fixture f;
  for (auto _ : state) {
    const auto d = partial_decrypt(f.k1, f.in[0].b, f.ctx);
    benchmark::DoNotOptimize(verify_partial(f.k1.pub, f.in[0].b, d, f.ctx));
  }
}
BENCHMARK(BM_MentalPartialDecryptAndVerify)->Unit(benchmark::kMicrosecond);

// A whole 6-player hold'em hand: 6 shuffles with proofs, every hole card opened to its owner
// (5 partial decryptions each), the 5 board cards opened to all (6 each), then everything
// verified by one party and every player opening its cards. Keys are made outside the timing.
void BM_MentalHoldemHand6(benchmark::State& state) {
  constexpr std::uint32_t n = 6;
  std::vector<key_pair> keys;
  std::vector<public_share> pubs;
  for (std::uint32_t i = 0; i < n; ++i) {
    keys.push_back(generate_key());
    pubs.push_back(make_public_share(keys.back()));
  }
  const auto before = thread_op_counts();
  for (auto _ : state) {
    hand h = new_hand("bench", pubs, fairdeck::deck_spec{1, 0});
    for (const auto& k : keys) add_shuffle(h, k, false);
    for (std::uint32_t s = 1; s <= n; ++s) {
      const std::uint32_t hole[2] = {2 * (s - 1), 2 * (s - 1) + 1};
      for (std::uint32_t j = 1; j <= n; ++j)
        if (j != s) add_reveal(h, keys[j - 1], hole, s, false);
    }
    const std::uint32_t board[5] = {2 * n, 2 * n + 1, 2 * n + 2, 2 * n + 3, 2 * n + 4};
    for (const auto& k : keys) add_reveal(h, k, board, to_all, false);
    const auto v = verify_hand(h);
    if (!v.ok) state.SkipWithError(v.problem.c_str());
    for (const auto& k : keys) benchmark::DoNotOptimize(open_cards(h, k, false));
  }
  count_ops(state, before);
}
BENCHMARK(BM_MentalHoldemHand6)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace
