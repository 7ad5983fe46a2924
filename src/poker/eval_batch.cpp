// Batch 7-card evaluation of card arrays with run-time dispatch: a scalar kernel (the one-hand
// code in a loop), an AVX-512 kernel and an AVX2 kernel (target attributes + a run-time CPU
// check, so the library needs no -march flag; order avx512 > avx2 > scalar). The AVX-512
// kernel works on runs of 1,024 hands:
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
// The AVX2 kernel (below eval7_avx512) follows the same plan 4 hands a step, with the key bytes
// looked up by rank and by suit (16-entry vpshufb); on Zen 4 it runs 1.3-1.4x the scalar
// kernel (435 against 312 M hands/s in cache, BM_EvalRandomBatch7, load 4.4; 323-370 against
// 253-265 M/s on bench/peers/ompeval_eval.sh's 4 M hands). Its loads 4, 8 or 16 steps behind:
// the same within noise.
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

// The AVX2 kernel (CPUs without AVX-512 VBMI): the AVX-512 kernel's plan, 4 hands a step.
// AVX2 has no 52-entry byte lookup, but a card key's bytes 0..4 depend on its rank alone and
// bytes 6..7 on its suit alone, so the cards become rank and suit bytes (3 compares for the
// suit, a 4-entry vpshufb and a subtract for the rank) and each key byte is one 16-entry
// vpshufb on one of them, summed per hand by vpsadbw. No 64-bit multiply in AVX2: three
// vpmuludq. Loads 4 steps behind, flush lanes afterwards, as in the AVX-512 kernel.
#define FAIRDECK_AVX2_TARGET __attribute__((target("avx2,bmi")))

struct avx2_tables {
  alignas(32) std::array<std::array<std::uint8_t, 32>, 8> byte{};  // [i][r or s], both lanes
  alignas(32) std::array<std::uint8_t, 32> suit_base{};            // 13 * s
  alignas(32) std::array<std::uint8_t, 32> spread{};               // vpshufb: 7 cards -> 8 bytes
  alignas(32) std::array<std::uint8_t, 32> pad{};                  // 0x80 on each hand's 8th byte
};
constexpr avx2_tables make_avx2_tables() {
  avx2_tables t;
  for (unsigned lane = 0; lane < 2; ++lane) {
    for (unsigned i = 0; i < 8; ++i)
      for (card_t c = 0; c < 52; ++c) {
        const unsigned idx = i < 6 ? c % 13 : c / 13;  // bytes 0..4: rank; 6..7: suit
        t.byte[i][16 * lane + idx] = static_cast<std::uint8_t>(detail::card_keys[c] >> (8 * i));
      }
    for (unsigned s = 0; s < 4; ++s) t.suit_base[16 * lane + s] = static_cast<std::uint8_t>(13 * s);
    // lane 0 holds packed cards 0..15 (hands 0, 1 at 0 and 7), lane 1 cards 12..27 (hands 2,
    // 3 at 2 and 9 of the lane).
    for (unsigned j = 0; j < 2; ++j)
      for (unsigned k = 0; k < 8; ++k) {
        t.spread[16 * lane + 8 * j + k] = static_cast<std::uint8_t>(k < 7 ? 7 * j + k + 2 * lane : 0x80);
        t.pad[16 * lane + 8 * j + k] = k < 7 ? 0 : 0x80;
      }
  }
  return t;
}
constexpr avx2_tables avx2_t = make_avx2_tables();

FAIRDECK_AVX2_TARGET inline __m256i keys4(const card_t* c, const __m256i* table, const __m256i& suit_base,
                                          const __m256i& spread_idx, const __m256i& pad, __m256i start) {
  const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(c));  // cards 0..15
  const __m256i b = _mm256_maskload_epi32(reinterpret_cast<const int*>(c + 16),
                                          _mm256_setr_epi32(-1, -1, -1, -1, -1, -1, 0, 0));  // 16..27
  // packus interleaves lanes: qwords = cards 0-7, 16-23, 8-15, 24-31; put them in order,
  // then dwords 0..3 to lane 0 and 3..6 (cards 12..27) to lane 1.
  const __m256i bytes = _mm256_permute4x64_epi64(_mm256_packus_epi16(a, b), 0xd8);
  const __m256i lanes = _mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(0, 1, 2, 3, 3, 4, 5, 6));
  const __m256i cards = _mm256_shuffle_epi8(lanes, spread_idx);  // 8 bytes a hand, the 8th 0
  const __m256i suit = _mm256_sub_epi8(_mm256_setzero_si256(),
                                       _mm256_add_epi8(_mm256_add_epi8(_mm256_cmpgt_epi8(cards, _mm256_set1_epi8(12)),
                                                                       _mm256_cmpgt_epi8(cards, _mm256_set1_epi8(25))),
                                                       _mm256_cmpgt_epi8(cards, _mm256_set1_epi8(38))));
  const __m256i rank = _mm256_or_si256(_mm256_sub_epi8(cards, _mm256_shuffle_epi8(suit_base, suit)), pad);
  const __m256i suit_p = _mm256_or_si256(suit, pad);  // vpshufb gives 0 for the pad bytes
  const __m256i zero = _mm256_setzero_si256();
  __m256i key = _mm256_add_epi64(start, _mm256_sad_epu8(_mm256_shuffle_epi8(table[0], rank), zero));
  key = _mm256_add_epi64(key, _mm256_slli_epi64(_mm256_sad_epu8(_mm256_shuffle_epi8(table[1], rank), zero), 8));
  key = _mm256_add_epi64(key, _mm256_slli_epi64(_mm256_sad_epu8(_mm256_shuffle_epi8(table[2], rank), zero), 16));
  key = _mm256_add_epi64(key, _mm256_slli_epi64(_mm256_sad_epu8(_mm256_shuffle_epi8(table[3], rank), zero), 24));
  key = _mm256_add_epi64(key, _mm256_slli_epi64(_mm256_sad_epu8(_mm256_shuffle_epi8(table[4], rank), zero), 32));
  key = _mm256_add_epi64(key, _mm256_slli_epi64(_mm256_sad_epu8(_mm256_shuffle_epi8(table[6], suit_p), zero), 48));
  key = _mm256_add_epi64(key, _mm256_slli_epi64(_mm256_sad_epu8(_mm256_shuffle_epi8(table[7], suit_p), zero), 56));
  return key;
}

// a * b mod 2^64 per 64-bit lane (b_hi = b >> 32, precomputed).
FAIRDECK_AVX2_TARGET inline __m256i mullo64(__m256i a, __m256i b, __m256i b_hi) {
  const __m256i cross = _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(a, 32), b), _mm256_mul_epu32(a, b_hi));
  return _mm256_add_epi64(_mm256_mul_epu32(a, b), _mm256_slli_epi64(cross, 32));
}

FAIRDECK_AVX2_TARGET void eval7_avx2(const hand_evaluator& ev, const table_view& t, const card_t* cards, std::size_t n,
                                     strength_t* out) {
  __m256i table[8];
  for (unsigned i = 0; i < 8; ++i)
    table[i] = _mm256_load_si256(reinterpret_cast<const __m256i*>(avx2_t.byte[i].data()));
  const __m256i suit_base = _mm256_load_si256(reinterpret_cast<const __m256i*>(avx2_t.suit_base.data()));
  const __m256i spread_idx = _mm256_load_si256(reinterpret_cast<const __m256i*>(avx2_t.spread.data()));
  const __m256i pad = _mm256_load_si256(reinterpret_cast<const __m256i*>(avx2_t.pad.data()));
  const __m256i start = _mm256_set1_epi64x(static_cast<long long>(detail::start_key));
  const __m256i flush = _mm256_set1_epi64x(static_cast<long long>(detail::flush_bits));
  const __m256i rank_bits = _mm256_set1_epi64x(static_cast<long long>(detail::rank_bits));
  const __m256i multiplier = _mm256_set1_epi64x(static_cast<long long>(t.multiplier));
  const __m256i multiplier_hi = _mm256_set1_epi64x(static_cast<long long>(t.multiplier >> 32));
  constexpr std::size_t run = 256;  // steps of 4 hands
  constexpr std::size_t prefetch_hands = 256;
  std::array<std::size_t, run> pending_block;
  std::array<std::uint8_t, run> pending_lanes;
  alignas(32) std::array<std::uint64_t, run * 4> hashes;
  constexpr unsigned bucket_shift = 64 - hand_evaluator::bucket_bits;
  constexpr unsigned slot_shift = 64 - hand_evaluator::bucket_bits - hand_evaluator::slot_bits;
  std::size_t i = 0;
  while (i + 4 <= n) {
    std::size_t pending = 0;
    const std::size_t first = i;
    const std::size_t stop = i + std::min<std::size_t>(run * 4, (n - i) / 4 * 4);
    const auto lookups = [&](std::size_t from) {
      for (std::size_t j = from; j < from + 8; ++j) {
        const std::uint64_t h = hashes[j];
        const unsigned slot = static_cast<unsigned>(h >> slot_shift) & (hand_evaluator::slots - 1);
        out[first + j] = t.values[slot ^ t.displacement[h >> bucket_shift]];
      }
    };
    constexpr std::size_t lag = 4;  // steps of 4 hands; lookups in pairs of steps
    for (; i < stop; i += 4) {
      const char* ahead = reinterpret_cast<const char*>(cards + 7 * std::min(i + prefetch_hands, n - 4));
      _mm_prefetch(ahead, _MM_HINT_T0);
      const __m256i key = keys4(cards + 7 * i, table, suit_base, spread_idx, pad, start);
      _mm256_store_si256(reinterpret_cast<__m256i*>(hashes.data() + (i - first)),
                         mullo64(_mm256_and_si256(key, rank_bits), multiplier, multiplier_hi));
      const unsigned m = static_cast<unsigned>(_mm256_movemask_pd(_mm256_castsi256_pd(
                             _mm256_cmpeq_epi64(_mm256_and_si256(key, flush), _mm256_setzero_si256())))) ^
                         0xfu;
      pending_block[pending] = i;
      pending_lanes[pending] = static_cast<std::uint8_t>(m);
      pending += m != 0;
      if ((i - first) % 8 == 4 && i - first + 4 >= 4 * lag) lookups(i + 4 - first - 4 * lag);
    }
    // The hands not looked up yet: the loop did pairs of steps up to 4 * lag hands before the
    // last whole pair.
    const std::size_t pairs_end = (stop - first) / 8 * 8;
    const std::size_t done = pairs_end >= 4 * lag ? pairs_end - 4 * lag + 8 : 0;
    for (std::size_t j = done; j < stop - first; ++j) {
      const std::uint64_t h = hashes[j];
      const unsigned slot = static_cast<unsigned>(h >> slot_shift) & (hand_evaluator::slots - 1);
      out[first + j] = t.values[slot ^ t.displacement[h >> bucket_shift]];
    }
    for (std::size_t p = 0; p < pending; ++p)
      for (unsigned m = pending_lanes[p]; m; m &= m - 1) {
        const std::size_t h = pending_block[p] + static_cast<unsigned>(__builtin_ctz(m));
        out[h] = ev.eval7(cards + 7 * h);
      }
  }
  for (; i < n; ++i) out[i] = ev.eval7(cards + 7 * i);
}

bool avx2_supported() noexcept {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2");
}

bool avx512_supported() noexcept {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
         __builtin_cpu_supports("avx512vbmi");
}
#else
bool avx512_supported() noexcept { return false; }
bool avx2_supported() noexcept { return false; }
#endif

}  // namespace

bool hand_evaluator::kernel_supported(eval_kernel k) noexcept {
  static const bool avx512 = avx512_supported();
  static const bool avx2 = avx2_supported();
  return k == eval_kernel::scalar || (k == eval_kernel::avx512 && avx512) || (k == eval_kernel::avx2 && avx2);
}

hand_evaluator::eval_kernel hand_evaluator::best_kernel() noexcept {
  if (kernel_supported(eval_kernel::avx512)) return eval_kernel::avx512;
  return kernel_supported(eval_kernel::avx2) ? eval_kernel::avx2 : eval_kernel::scalar;
}

void hand_evaluator::eval7_batch(eval_kernel k, const card_t* cards, std::size_t n, strength_t* out) const noexcept {
#if FAIRDECK_EVAL_AVX512
  if (k == eval_kernel::avx512)
    return eval7_avx512(*this, {multiplier_, displacement_.data(), values_.data()}, cards, n, out);
  if (k == eval_kernel::avx2)
    return eval7_avx2(*this, {multiplier_, displacement_.data(), values_.data()}, cards, n, out);
#endif
  (void)k;
  for (std::size_t i = 0; i < n; ++i) out[i] = eval7(cards + 7 * i);
}

void hand_evaluator::eval7_batch(const card_t* cards, std::size_t n, strength_t* out) const noexcept {
  eval7_batch(best_kernel(), cards, n, out);
}


}  // namespace fairdeck::poker
