// Batch 7-card evaluation of card arrays with run-time dispatch: a scalar kernel (the one-hand
// code in a loop) and an AVX-512 kernel (target attributes + a run-time CPU check, so the
// library needs no -march flag). The AVX-512 kernel works on runs of 1,024 hands:
//   1. keys, 8 hands a step in 64-bit lanes: the cards become bytes, 8 per hand; for each byte
//      position i of the card keys, one vpermb (AVX512-VBMI) maps every card to its key's byte i
//      and one vpsadbw adds each hand's 8 bytes; key = start + sum of (that sum << 8i). Addition
//      is linear, so this is detail::card_keys summed, the scalar key bit for bit (7 byte
//      lookups and sums a step, against 14 lookups and 14 variable shifts for per-card keys).
//      The multiply of the hash (vpmullq) too; the input is prefetched 256 hands ahead.
//   2. the two table reads per hand (displacement, then value) as plain loads from the same
//      tables as the scalar code, for the step 4 steps back, inside the same loop: the loads
//      are independent from hand to hand and their waits overlap the next steps' vector work.
//      Vector gathers here (the previous kernel) left each step waiting on them: 70 % of its
//      samples sat behind the two gathers. Quiet Zen 4, same runs: the previous kernel 310 M
//      hands/s, byte-sum keys 330, plain loads in a second pass 358, plus the input prefetch
//      390-415, the loads interleaved 4 steps behind 450-485 (1, 2, 8 or 16 steps: the same
//      within noise).
//   3. flush lanes (about 3 % of random hands, a fifth of the steps), noted without a branch
//      in step 1, redone by the scalar code: a branch per step mispredicts and throws away the
//      overlap of the following steps.
// Hence the kernels agree on every hand; tests/poker_eval_kernels_test.cpp checks all of them.
// Measured on AMD Zen 4 (bench/peers/ompeval_eval.sh, docs/poker.md). Tried and lost (with a
// separate second pass): the hashes stored as 32-bit slots and 16-bit buckets (no change),
// runs of 256 or 512 hands (slower) or 2,048+ (no better), a 512 KB value table with 4,096
// buckets (slower: L2).
// On ready-made hand accumulators the gathers lost to the one-hand loop (so there is no batch
// call for them), and a scalar kernel staged over blocks of 32 hands with prefetches lost to
// the plain loop.
#include <algorithm>
#include <array>

#include "fairdeck/poker/hand_eval.hpp"

#if defined(__x86_64__)
// GCC 12's AVX-512 intrinsics start from _mm512_undefined_*() and -Wmaybe-uninitialized flags
// them once inlined (a false positive).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#define FAIRDECK_EVAL_AVX512 1
#endif


namespace fairdeck::poker {
namespace {

#if FAIRDECK_EVAL_AVX512
#define FAIRDECK_AVX512_TARGET __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx512vbmi")))

// Byte i of every card's key (detail::card_keys), as a 64-entry vpermb table; entries 52..63
// are 0, so a pad byte of 63 adds nothing. Bytes 0..4 hold the rank counts, 6..7 the suit
// counters; byte 5 is 0 for every card.
struct digit_tables {
  alignas(64) std::array<std::array<std::uint8_t, 64>, 8> byte{};
};
constexpr digit_tables make_digit_tables() {
  digit_tables d;
  for (unsigned i = 0; i < 8; ++i)
    for (card_t c = 0; c < 52; ++c) d.byte[i][c] = static_cast<std::uint8_t>(detail::card_keys[c] >> (8 * i));
  return d;
}
constexpr digit_tables digits = make_digit_tables();

// Byte indices that spread 56 packed card bytes (7 per hand) to 8 per hand (byte 8j + k = card
// k of hand j); the 8th byte of each hand is masked to the pad.
struct spread_indices {
  alignas(64) std::array<std::uint8_t, 64> idx{};
};
constexpr spread_indices make_spread_indices() {
  spread_indices s;
  for (unsigned j = 0; j < 8; ++j)
    for (unsigned k = 0; k < 8; ++k) s.idx[8 * j + k] = static_cast<std::uint8_t>(k < 7 ? 7 * j + k : 0);
  return s;
}
constexpr spread_indices spread = make_spread_indices();

struct table_view {
  std::uint64_t multiplier;
  const std::uint16_t* displacement;
  const strength_t* values;
};

// One 8-hand block's keys: the cards as bytes, 8 per hand (a pad of 63 last), then for each
// non-zero byte position i of the card keys, vpermb maps every card to its key's byte i and
// vpsadbw adds a hand's 8 bytes; key = start + sum over i of (that sum << 8i). Addition is
// linear, so this is the sum of the cards' keys, bit for bit the scalar key.
FAIRDECK_AVX512_TARGET inline __m512i keys8(const card_t* c, const __m512i* table, __m512i spread_idx, __m512i start) {
  const __m512i a = _mm512_loadu_si512(c);                         // cards 0..31 (16-bit)
  const __m512i b = _mm512_maskz_loadu_epi16(0x00ffffff, c + 32);  // cards 32..55
  const __m512i packed = _mm512_inserti64x4(_mm512_castsi256_si512(_mm512_cvtepi16_epi8(a)), _mm512_cvtepi16_epi8(b),
                                            1);
  const __m512i cards = _mm512_mask_permutexvar_epi8(_mm512_set1_epi8(63), 0x7f7f7f7f7f7f7f7fULL, spread_idx, packed);
  const __m512i zero = _mm512_setzero_si512();
  __m512i key = start;
  key = _mm512_add_epi64(key, _mm512_sad_epu8(_mm512_permutexvar_epi8(cards, table[0]), zero));
  key = _mm512_add_epi64(key, _mm512_slli_epi64(_mm512_sad_epu8(_mm512_permutexvar_epi8(cards, table[1]), zero), 8));
  key = _mm512_add_epi64(key, _mm512_slli_epi64(_mm512_sad_epu8(_mm512_permutexvar_epi8(cards, table[2]), zero), 16));
  key = _mm512_add_epi64(key, _mm512_slli_epi64(_mm512_sad_epu8(_mm512_permutexvar_epi8(cards, table[3]), zero), 24));
  key = _mm512_add_epi64(key, _mm512_slli_epi64(_mm512_sad_epu8(_mm512_permutexvar_epi8(cards, table[4]), zero), 32));
  key = _mm512_add_epi64(key, _mm512_slli_epi64(_mm512_sad_epu8(_mm512_permutexvar_epi8(cards, table[6]), zero), 48));
  key = _mm512_add_epi64(key, _mm512_slli_epi64(_mm512_sad_epu8(_mm512_permutexvar_epi8(cards, table[7]), zero), 56));
  return key;
}

FAIRDECK_AVX512_TARGET void eval7_avx512(const hand_evaluator& ev, const table_view& t, const card_t* cards,
                                         std::size_t n, strength_t* out) {
  __m512i table[8];
  for (unsigned i = 0; i < 8; ++i) table[i] = _mm512_load_si512(digits.byte[i].data());
  const __m512i spread_idx = _mm512_load_si512(spread.idx.data());
  const __m512i start = _mm512_set1_epi64(static_cast<long long>(detail::start_key));
  const __m512i flush = _mm512_set1_epi64(static_cast<long long>(detail::flush_bits));
  // Flush lanes (about 3 % of random hands, a fifth of the steps) are noted without a branch
  // and redone by the scalar code after each run: a branch per step mispredicts and throws
  // away the overlap of the following steps' loads.
  constexpr std::size_t run = 128;  // steps of 8 hands
  constexpr std::size_t prefetch_hands = 256;
  std::array<std::size_t, run> pending_block;  // first hand of the block
  std::array<std::uint8_t, run> pending_lanes;
  alignas(64) std::array<std::uint64_t, run * 8> hashes;
  const __m512i rank_bits = _mm512_set1_epi64(static_cast<long long>(detail::rank_bits));
  const __m512i multiplier = _mm512_set1_epi64(static_cast<long long>(t.multiplier));
  constexpr unsigned bucket_shift = 64 - hand_evaluator::bucket_bits;
  constexpr unsigned slot_shift = 64 - hand_evaluator::bucket_bits - hand_evaluator::slot_bits;
  std::size_t i = 0;
  while (i + 8 <= n) {
    std::size_t pending = 0;
    const std::size_t first = i;
    const std::size_t stop = i + std::min<std::size_t>(run * 8, (n - i) / 8 * 8);
    // 1. Keys and their hashes, 8 hands a step; 2. the two table reads of the step `lag`
    //    steps back as plain loads, so that the loads' waits overlap the next keys' work.
    const auto lookups = [&](std::size_t from) {
      for (std::size_t j = from; j < from + 8; ++j) {
        const std::uint64_t h = hashes[j];
        const unsigned slot = static_cast<unsigned>(h >> slot_shift) & (hand_evaluator::slots - 1);
        out[first + j] = t.values[slot ^ t.displacement[h >> bucket_shift]];
      }
    };
    constexpr std::size_t lag = 4;
    for (; i < stop; i += 8) {
      // The input streams from memory (14 bytes a hand): ask for it 256 hands ahead.
      const char* ahead = reinterpret_cast<const char*>(cards + 7 * std::min(i + prefetch_hands, n - 8));
      _mm_prefetch(ahead, _MM_HINT_T0);
      _mm_prefetch(ahead + 64, _MM_HINT_T0);
      const __m512i key = keys8(cards + 7 * i, table, spread_idx, start);
      _mm512_store_si512(hashes.data() + (i - first), _mm512_mullo_epi64(_mm512_and_si512(key, rank_bits), multiplier));
      const unsigned m = _mm512_test_epi64_mask(key, flush);
      pending_block[pending] = i;
      pending_lanes[pending] = static_cast<std::uint8_t>(m);
      pending += m != 0;
      if (i - first >= 8 * lag) lookups(i - first - 8 * lag);
    }
    for (std::size_t j = (stop - first > 8 * lag ? stop - first - 8 * lag : 0); j < stop - first; j += 8) lookups(j);
    // 3. The flush lanes, by the scalar code.
    for (std::size_t p = 0; p < pending; ++p)
      for (unsigned m = pending_lanes[p]; m; m &= m - 1) {
        const std::size_t h = pending_block[p] + static_cast<unsigned>(__builtin_ctz(m));
        out[h] = ev.eval7(cards + 7 * h);
      }
  }
  for (; i < n; ++i) out[i] = ev.eval7(cards + 7 * i);
}

bool avx512_supported() noexcept {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
         __builtin_cpu_supports("avx512vbmi");
}
#else
bool avx512_supported() noexcept { return false; }
#endif

}  // namespace

bool hand_evaluator::kernel_supported(eval_kernel k) noexcept {
  static const bool avx512 = avx512_supported();
  return k == eval_kernel::scalar || (k == eval_kernel::avx512 && avx512);
}

hand_evaluator::eval_kernel hand_evaluator::best_kernel() noexcept {
  return kernel_supported(eval_kernel::avx512) ? eval_kernel::avx512 : eval_kernel::scalar;
}

void hand_evaluator::eval7_batch(eval_kernel k, const card_t* cards, std::size_t n, strength_t* out) const noexcept {
#if FAIRDECK_EVAL_AVX512
  if (k == eval_kernel::avx512)
    return eval7_avx512(*this, {multiplier_, displacement_.data(), values_.data()}, cards, n, out);
#endif
  (void)k;
  for (std::size_t i = 0; i < n; ++i) out[i] = eval7(cards + 7 * i);
}

void hand_evaluator::eval7_batch(const card_t* cards, std::size_t n, strength_t* out) const noexcept {
  eval7_batch(best_kernel(), cards, n, out);
}


}  // namespace fairdeck::poker
