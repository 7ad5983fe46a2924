// util/sha256 (GNU Nettle, with the CPU's SHA extensions where it has them) against libsodium's
// portable crypto_hash_sha256 in the same run: the claim in util/sha256.hpp. Sizes are the
// service's: a 65-byte Merkle node, a ~700-byte deal record, 1 MiB of a certified file; and
// one block of the deal's HMAC-SHA-256 word stream (security/provably_fair) from a keyed seed,
// against libsodium's HMAC from a keyed state copied the same way.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <sodium.h>

#include "fairdeck/security/provably_fair.hpp"
#include "fairdeck/util/sha256.hpp"

namespace {

std::vector<std::uint8_t> message(std::size_t n) {
  std::vector<std::uint8_t> m(n);
  for (std::size_t i = 0; i < n; ++i) m[i] = static_cast<std::uint8_t>(i * 131 + 7);
  return m;
}

void BM_Sha256_fairdeck(benchmark::State& state) {
  auto m = message(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    m[0]++;
    benchmark::DoNotOptimize(fairdeck::sha256(std::span<const std::uint8_t>(m)));
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * state.range(0));
}
BENCHMARK(BM_Sha256_fairdeck)->Arg(65)->Arg(700)->Arg(1 << 20);

void BM_Sha256_libsodium(benchmark::State& state) {
  auto m = message(static_cast<std::size_t>(state.range(0)));
  std::array<unsigned char, 32> h{};
  for (auto _ : state) {
    m[0]++;
    crypto_hash_sha256(h.data(), m.data(), m.size());
    benchmark::DoNotOptimize(h);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * state.range(0));
}
BENCHMARK(BM_Sha256_libsodium)->Arg(65)->Arg(700)->Arg(1 << 20);

const fairdeck::fair::server_seed& seed() {
  static const auto s = fairdeck::fair::server_seed::from_hex(std::string(64, '7'));
  return s;
}

// One HMAC block of a deal's words (8 words a block).
void BM_HmacBlock_fairdeck(benchmark::State& state) {
  const fairdeck::fair::keyed_seed key(seed());
  std::uint64_t nonce = 0;
  for (auto _ : state) {
    fairdeck::fair::word_stream w(key, "client seed", nonce++);
    benchmark::DoNotOptimize(w.next_word());
  }
}
BENCHMARK(BM_HmacBlock_fairdeck);

void BM_HmacBlock_libsodium(benchmark::State& state) {
  crypto_auth_hmacsha256_state keyed;
  crypto_auth_hmacsha256_init(&keyed, seed().bytes().data(), seed().bytes().size());
  std::uint64_t nonce = 0;
  std::array<unsigned char, 32> out{};
  for (auto _ : state) {
    const std::string msg = fairdeck::fair::word_stream::block_message("client seed", nonce++, 0);
    crypto_auth_hmacsha256_state st;
    std::memcpy(&st, &keyed, sizeof st);
    crypto_auth_hmacsha256_update(&st, reinterpret_cast<const unsigned char*>(msg.data()), msg.size());
    crypto_auth_hmacsha256_final(&st, out.data());
    benchmark::DoNotOptimize(out);
  }
}
BENCHMARK(BM_HmacBlock_libsodium);

}  // namespace
