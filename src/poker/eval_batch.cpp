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
// Both read the seven-card table (hand_evaluator's seven_*, 128 KB for 64 Ki slots), not the
// general 5-7-card one (256 KB): on a Zen 3 (512 KB L2 per core, 2.25 GHz) the AVX2 kernel
// went from 162 to 223 M hands/s (medians of 6 alternated runs of BM_EvalRandomBatch7/2,
// 2026-11-27; a 64 KB stand-in table had shown the gain first), and from 1.07-1.13x to 1.37x
// OMPEval on ompeval_eval.sh. Dropping each hand's pad byte to card 0 (its key taken off
// once) and summing the rank part and the suit counters apart took ~8 % more before that.
// Hence the kernels agree on every hand; tests/poker_eval_kernels_test.cpp checks all of them.
// Input: card_t arrays (2 bytes a card) or bytes (1 byte a card); the kernels are templates on
// the card type and differ only in how a step's cards become packed bytes. From memory the
// input is what limits the AVX-512 kernel: on an Intel Xeon model 167 (2026-11-29), 4 M random
// hands (59 MB as card_t) ran at 366-414 M hands/s as card_t and 565-650 as bytes (alternated,
// bench/peers/ompeval_eval.sh), against 653 as card_t with 100 k hands in cache.
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

constexpr unsigned seven_slots = 1u << hand_evaluator::seven_slot_bits;

// The seven-card table (hand_evaluator's seven_*: every kernel hashes the same way).
struct table_view {
  std::uint64_t multiplier;
  const std::uint16_t* displacement;
  const strength_t* values;
  // The strength of the hand whose rank key times `multiplier` is h (hand_evaluator::lookup).
  [[nodiscard]] strength_t at(std::uint64_t h) const noexcept {
    constexpr unsigned bucket_shift = 64 - hand_evaluator::bucket_bits;
    constexpr unsigned slot_shift = bucket_shift - hand_evaluator::seven_slot_bits;
    const unsigned slot = static_cast<unsigned>(h >> slot_shift) & (seven_slots - 1);
    return values[slot ^ displacement[h >> bucket_shift]];
  }
};

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

// The 56 cards of 8 hands as bytes 0..55 (masked loads: nothing read past the 8th hand).
FAIRDECK_AVX512_TARGET inline __m512i packed8(const card_t* c) {
  const __m512i a = _mm512_loadu_si512(c);                         // cards 0..31 (16-bit)
  const __m512i b = _mm512_maskz_loadu_epi16(0x00ffffff, c + 32);  // cards 32..55
  return _mm512_inserti64x4(_mm512_castsi256_si512(_mm512_cvtepi16_epi8(a)), _mm512_cvtepi16_epi8(b), 1);
}
FAIRDECK_AVX512_TARGET inline __m512i packed8(const std::uint8_t* c) {
  return _mm512_maskz_loadu_epi8(0x00ffffffffffffffULL, c);
}

// One 8-hand block's keys: the cards as bytes, 8 per hand (a pad of 63 last), then for each
// non-zero byte position i of the card keys, vpermb maps every card to its key's byte i and
// vpsadbw adds a hand's 8 bytes; key = start + sum over i of (that sum << 8i). Addition is
// linear, so this is the sum of the cards' keys, bit for bit the scalar key.
template <class Card>
FAIRDECK_AVX512_TARGET inline __m512i keys8(const Card* c, const __m512i* table, __m512i spread_idx, __m512i start) {
  const __m512i packed = packed8(c);
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

template <class Card>
FAIRDECK_AVX512_TARGET void eval7_avx512(const hand_evaluator& ev, const table_view& t, const Card* cards,
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
  std::size_t i = 0;
  while (i + 8 <= n) {
    std::size_t pending = 0;
    const std::size_t first = i;
    const std::size_t stop = i + std::min<std::size_t>(run * 8, (n - i) / 8 * 8);
    // 1. Keys and their hashes, 8 hands a step; 2. the two table reads of the step `lag`
    //    steps back as plain loads, so that the loads' waits overlap the next keys' work.
    const auto lookups = [&](std::size_t from) {
      for (std::size_t j = from; j < from + 8; ++j) {
        out[first + j] = t.at(hashes[j]);
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
        out[h] = ev.eval<7>(cards + 7 * h);
      }
  }
  for (; i < n; ++i) out[i] = ev.eval<7>(cards + 7 * i);
}

// The AVX2 kernel (CPUs without AVX-512 VBMI): the AVX-512 kernel's plan, 4 hands a step.
// AVX2 has no 52-entry byte lookup, but a card key's bytes 0..4 depend on its rank alone and
// bytes 6..7 on its suit alone. So each card byte c becomes its suit s (three compares) and
// x = c + 3s = rank + 16s: vpshufb reads only x's low nibble, the rank, so each rank byte of
// the key is one 16-entry vpshufb on x and each suit byte one on s, summed per hand by
// vpsadbw. The rank part (the hash input) and the suit counters are summed apart: no mask
// before the multiply, and the flush test is a 16-bit sum of four 4-bit counters. Each hand's
// 8th byte is card 0 (vpshufb's zero), whose key is taken off again. No 64-bit multiply in
// AVX2: three vpmuludq. Loads 4 steps behind, flush lanes afterwards, as in the AVX-512 kernel.
#define FAIRDECK_AVX2_TARGET __attribute__((target("avx2,bmi")))

struct avx2_tables {
  alignas(32) std::array<std::array<std::uint8_t, 32>, 7> byte{};  // [i][r] for i < 5, [5 + i][s]: both lanes
  alignas(32) std::array<std::uint8_t, 32> spread{};               // vpshufb: 7 cards -> 8 bytes
};
constexpr avx2_tables make_avx2_tables() {
  avx2_tables t;
  for (unsigned lane = 0; lane < 2; ++lane) {
    for (card_t c = 0; c < 52; ++c) {
      for (unsigned i = 0; i < 5; ++i)  // bytes 0..4: by rank
        t.byte[i][16 * lane + c % 13] = static_cast<std::uint8_t>(detail::card_keys[c] >> (8 * i));
      for (unsigned i = 6; i < 8; ++i)  // bytes 6..7: by suit
        t.byte[i - 1][16 * lane + c / 13] = static_cast<std::uint8_t>(detail::card_keys[c] >> (8 * i));
    }
    // lane 0 holds packed cards 0..15 (hands 0, 1 at 0 and 7), lane 1 cards 12..27 (hands 2,
    // 3 at 2 and 9 of the lane); a hand's 8th byte is 0 (0x80: vpshufb writes 0).
    for (unsigned j = 0; j < 2; ++j)
      for (unsigned k = 0; k < 8; ++k)
        t.spread[16 * lane + 8 * j + k] = static_cast<std::uint8_t>(k < 7 ? 7 * j + k + 2 * lane : 0x80);
  }
  return t;
}
constexpr avx2_tables avx2_t = make_avx2_tables();
// The 8th byte's card 0 is in every sum: its rank key comes off the rank part, and its club
// raises the clubs counter by one, so clubs are biased by 2 (flush at 6) and the others by 3.
constexpr std::uint64_t pad_rank_key = detail::card_keys[0] & detail::rank_bits;
constexpr std::uint64_t suit_bias = 0x3332;
static_assert((detail::card_keys[0] >> 48) == 1, "card 0 is a club: the bias above");

// Each hand's sum of the 8 bytes that table[i] gives its cards (index: x or the suit).
FAIRDECK_AVX2_TARGET inline __m256i sum(const __m256i* table, int i, __m256i index) {
  return _mm256_sad_epu8(_mm256_shuffle_epi8(table[i], index), _mm256_setzero_si256());
}

struct keys4_out {
  __m256i rank_key;  // the hash input: key & rank_bits
  __m256i flush;     // all ones in the lanes of flush hands
};

// The 28 cards of 4 hands as bytes 0..27 (masked loads: nothing read past the 4th hand).
FAIRDECK_AVX2_TARGET inline __m256i packed4(const card_t* c) {
  const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(c));  // cards 0..15
  const __m256i b = _mm256_maskload_epi32(reinterpret_cast<const int*>(c + 16),
                                          _mm256_setr_epi32(-1, -1, -1, -1, -1, -1, 0, 0));  // 16..27
  // packus interleaves lanes: qwords = cards 0-7, 16-23, 8-15, 24-31; put them in order.
  return _mm256_permute4x64_epi64(_mm256_packus_epi16(a, b), 0xd8);
}
FAIRDECK_AVX2_TARGET inline __m256i packed4(const std::uint8_t* c) {
  return _mm256_maskload_epi32(reinterpret_cast<const int*>(c), _mm256_setr_epi32(-1, -1, -1, -1, -1, -1, -1, 0));
}

template <class Card>
FAIRDECK_AVX2_TARGET inline keys4_out keys4(const Card* c, const __m256i* table, const __m256i& spread_idx) {
  const __m256i bytes = packed4(c);
  // Dwords 0..3 to lane 0 and 3..6 (cards 12..27) to lane 1.
  const __m256i lanes = _mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(0, 1, 2, 3, 3, 4, 5, 6));
  const __m256i cards = _mm256_shuffle_epi8(lanes, spread_idx);  // 8 bytes a hand, the 8th 0
  const __m256i minus_suit = _mm256_add_epi8(_mm256_add_epi8(_mm256_cmpgt_epi8(cards, _mm256_set1_epi8(12)),
                                                             _mm256_cmpgt_epi8(cards, _mm256_set1_epi8(25))),
                                             _mm256_cmpgt_epi8(cards, _mm256_set1_epi8(38)));
  const __m256i suit = _mm256_sub_epi8(_mm256_setzero_si256(), minus_suit);
  const __m256i x = _mm256_sub_epi8(_mm256_sub_epi8(_mm256_sub_epi8(cards, minus_suit), minus_suit), minus_suit);
  const __m256i zero = _mm256_setzero_si256();
  __m256i rank_key = _mm256_sub_epi64(sum(table, 0, x), _mm256_set1_epi64x(static_cast<long long>(pad_rank_key)));
  rank_key = _mm256_add_epi64(rank_key, _mm256_slli_epi64(sum(table, 1, x), 8));
  rank_key = _mm256_add_epi64(rank_key, _mm256_slli_epi64(sum(table, 2, x), 16));
  rank_key = _mm256_add_epi64(rank_key, _mm256_slli_epi64(sum(table, 3, x), 24));
  rank_key = _mm256_add_epi64(rank_key, _mm256_slli_epi64(sum(table, 4, x), 32));
  const __m256i counters = _mm256_add_epi64(_mm256_add_epi64(sum(table, 5, suit),
                                                             _mm256_slli_epi64(sum(table, 6, suit), 8)),
                                            _mm256_set1_epi64x(static_cast<long long>(suit_bias)));
  const __m256i no_flush = _mm256_cmpeq_epi64(_mm256_and_si256(counters, _mm256_set1_epi64x(0x8888)), zero);
  return {rank_key, _mm256_xor_si256(no_flush, _mm256_set1_epi64x(-1))};
}

// a * b mod 2^64 per 64-bit lane (b_hi = b >> 32, precomputed).
FAIRDECK_AVX2_TARGET inline __m256i mullo64(__m256i a, __m256i b, __m256i b_hi) {
  const __m256i cross = _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(a, 32), b), _mm256_mul_epu32(a, b_hi));
  return _mm256_add_epi64(_mm256_mul_epu32(a, b), _mm256_slli_epi64(cross, 32));
}

template <class Card>
FAIRDECK_AVX2_TARGET void eval7_avx2(const hand_evaluator& ev, const table_view& t, const Card* cards, std::size_t n,
                                     strength_t* out) {
  __m256i table[7];
  for (unsigned i = 0; i < 7; ++i)
    table[i] = _mm256_load_si256(reinterpret_cast<const __m256i*>(avx2_t.byte[i].data()));
  const __m256i spread_idx = _mm256_load_si256(reinterpret_cast<const __m256i*>(avx2_t.spread.data()));
  const __m256i multiplier = _mm256_set1_epi64x(static_cast<long long>(t.multiplier));
  const __m256i multiplier_hi = _mm256_set1_epi64x(static_cast<long long>(t.multiplier >> 32));
  constexpr std::size_t run = 256;  // steps of 4 hands
  constexpr std::size_t prefetch_hands = 256;
  std::array<std::size_t, run> pending_block;
  std::array<std::uint8_t, run> pending_lanes;
  alignas(32) std::array<std::uint64_t, run * 4> hashes;
  std::size_t i = 0;
  while (i + 4 <= n) {
    std::size_t pending = 0;
    const std::size_t first = i;
    const std::size_t stop = i + std::min<std::size_t>(run * 4, (n - i) / 4 * 4);
    const auto lookups = [&](std::size_t from) {
      for (std::size_t j = from; j < from + 8; ++j) {
        out[first + j] = t.at(hashes[j]);
      }
    };
    constexpr std::size_t lag = 4;  // steps of 4 hands; lookups in pairs of steps
    for (; i < stop; i += 4) {
      const char* ahead = reinterpret_cast<const char*>(cards + 7 * std::min(i + prefetch_hands, n - 4));
      _mm_prefetch(ahead, _MM_HINT_T0);
      const keys4_out k = keys4(cards + 7 * i, table, spread_idx);
      _mm256_store_si256(reinterpret_cast<__m256i*>(hashes.data() + (i - first)),
                         mullo64(k.rank_key, multiplier, multiplier_hi));
      const unsigned m = static_cast<unsigned>(_mm256_movemask_pd(_mm256_castsi256_pd(k.flush)));
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
      out[first + j] = t.at(hashes[j]);
    }
    for (std::size_t p = 0; p < pending; ++p)
      for (unsigned m = pending_lanes[p]; m; m &= m - 1) {
        const std::size_t h = pending_block[p] + static_cast<unsigned>(__builtin_ctz(m));
        out[h] = ev.eval<7>(cards + 7 * h);
      }
  }
  for (; i < n; ++i) out[i] = ev.eval<7>(cards + 7 * i);
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

namespace {
template <class Card>
void dispatch(const hand_evaluator& ev, hand_evaluator::eval_kernel k, const table_view& t, const Card* cards,
              std::size_t n, strength_t* out) noexcept {
#if FAIRDECK_EVAL_AVX512
  if (k == hand_evaluator::eval_kernel::avx512) return eval7_avx512(ev, t, cards, n, out);
  if (k == hand_evaluator::eval_kernel::avx2) return eval7_avx2(ev, t, cards, n, out);
#endif
  (void)k;
  (void)t;
  for (std::size_t i = 0; i < n; ++i) out[i] = ev.eval<7>(cards + 7 * i);
}
}  // namespace

void hand_evaluator::eval7_batch(eval_kernel k, const card_t* cards, std::size_t n, strength_t* out) const noexcept {
  dispatch(*this, k, {seven_multiplier_, seven_displacement_.data(), seven_values_.data()}, cards, n, out);
}
void hand_evaluator::eval7_batch(eval_kernel k, const std::uint8_t* cards, std::size_t n,
                                 strength_t* out) const noexcept {
  dispatch(*this, k, {seven_multiplier_, seven_displacement_.data(), seven_values_.data()}, cards, n, out);
}
void hand_evaluator::eval7_batch(const card_t* cards, std::size_t n, strength_t* out) const noexcept {
  eval7_batch(best_kernel(), cards, n, out);
}
void hand_evaluator::eval7_batch(const std::uint8_t* cards, std::size_t n, strength_t* out) const noexcept {
  eval7_batch(best_kernel(), cards, n, out);
}

}  // namespace fairdeck::poker
