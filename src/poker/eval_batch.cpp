// Batch 7-card evaluation of card arrays with run-time dispatch: a scalar kernel (the one-hand
// code in a loop) and an AVX-512 kernel (target attributes + a run-time CPU check, so the
// library needs no -march flag). The AVX-512 kernel evaluates 8 hands per step in 64-bit lanes:
//   card -> key: two byte-table lookups (vpermb, AVX512-VBMI) give each card's shift counts
//                (3 * poker rank, 48 + 4 * suit); the key is the sum of 1 << count, as in
//                detail::card_keys, so it is the scalar key bit for bit;
//   hash:        the same multiply-shift and XOR displacement (vpmullq), two gathers
//                (displacement, then value) into the same tables as the scalar code;
//   flushes:     lanes whose suit counters show a flush (about 3 % of random hands) are
//                redone by the scalar code.
// Hence the kernels agree on every hand; tests/poker_eval_kernels_test.cpp checks all of them.
// Measured on AMD Zen 4 under load (bench/peers/ompeval_eval.sh, docs/poker.md): the kernel
// beats the scalar loop on card arrays (it builds 8 keys at once); on ready-made hand
// accumulators the two gathers lost to the one-hand loop (so there is no batch call for them),
// and a scalar kernel staged over blocks of 32 hands with prefetches lost to the plain loop.
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

struct shift_tables {
  alignas(64) std::array<std::uint8_t, 64> rank{};  // 3 * poker rank of card c
  alignas(64) std::array<std::uint8_t, 64> suit{};  // 48 + 4 * suit of card c
};
constexpr shift_tables make_shift_tables() {
  shift_tables t;
  for (card_t c = 0; c < 52; ++c) {
    t.rank[c] = static_cast<std::uint8_t>(3 * poker_rank(c));
    t.suit[c] = static_cast<std::uint8_t>(48 + 4 * suit_of(c));
  }
  return t;
}
constexpr shift_tables shifts = make_shift_tables();

// Word indices that move card k of hand j (word 7j + k of 56) to word 4j (the low word of
// 64-bit lane j), for vpermt2w.
struct extract_indices {
  alignas(64) std::array<std::array<std::uint16_t, 32>, 7> idx{};
};
constexpr extract_indices make_extract_indices() {
  extract_indices e;
  for (unsigned k = 0; k < 7; ++k)
    for (unsigned j = 0; j < 8; ++j) e.idx[k][4 * j] = static_cast<std::uint16_t>(7 * j + k);
  return e;
}
constexpr extract_indices extract = make_extract_indices();

struct table_view {
  std::uint64_t multiplier;
  const std::uint16_t* displacement;
  const strength_t* values;
};

// Strengths of 8 keys with no flush (the flush lanes give garbage, fixed by the caller).
FAIRDECK_AVX512_TARGET inline __m128i by_ranks8(const table_view& t, __m512i key) {
  const __m512i h = _mm512_mullo_epi64(_mm512_and_si512(key,
                                                        _mm512_set1_epi64(static_cast<long long>(detail::rank_bits))),
                                       _mm512_set1_epi64(static_cast<long long>(t.multiplier)));
  const __m512i bucket = _mm512_srli_epi64(h, 64 - hand_evaluator::bucket_bits);
  const __m256i slot = _mm512_cvtepi64_epi32(
      _mm512_and_si512(_mm512_srli_epi64(h, 64 - hand_evaluator::bucket_bits - hand_evaluator::slot_bits),
                       _mm512_set1_epi64(hand_evaluator::slots - 1)));
  // 32-bit gathers of the 16-bit entries (the 2 bytes above the last entry are the next
  // member of hand_evaluator), masked to 16 bits.
  const __m256i low16 = _mm256_set1_epi32(0xffff);
  const __m256i disp = _mm256_and_si256(_mm512_i64gather_epi32(bucket, t.displacement, 2), low16);
  const __m256i at = _mm256_xor_si256(slot, disp);
  const __m256i v = _mm256_i32gather_epi32(reinterpret_cast<const int*>(t.values), at, 2);
  return _mm256_cvtepi32_epi16(v);  // the upper 16 bits are dropped
}

FAIRDECK_AVX512_TARGET void eval7_avx512(const hand_evaluator& ev, const table_view& t, const card_t* cards,
                                         std::size_t n, strength_t* out) {
  const __m512i rank_table = _mm512_load_si512(shifts.rank.data());
  const __m512i suit_table = _mm512_load_si512(shifts.suit.data());
  const __m512i one = _mm512_set1_epi64(1);
  const __m512i start = _mm512_set1_epi64(static_cast<long long>(detail::start_key));
  const __m512i flush = _mm512_set1_epi64(static_cast<long long>(detail::flush_bits));
  __m512i idx[7];
  for (unsigned k = 0; k < 7; ++k) idx[k] = _mm512_load_si512(extract.idx[k].data());
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const card_t* c = cards + 7 * i;
    const __m512i a = _mm512_loadu_si512(c);                         // words 0..31
    const __m512i b = _mm512_maskz_loadu_epi16(0x00ffffff, c + 32);  // words 32..55
    __m512i key = start;
    for (unsigned k = 0; k < 7; ++k) {
      const __m512i card = _mm512_maskz_permutex2var_epi16(0x11111111, a, idx[k], b);
      const __m512i r = _mm512_maskz_permutexvar_epi8(0x0101010101010101ULL, card, rank_table);
      const __m512i s = _mm512_maskz_permutexvar_epi8(0x0101010101010101ULL, card, suit_table);
      key = _mm512_add_epi64(key, _mm512_or_si512(_mm512_sllv_epi64(one, r), _mm512_sllv_epi64(one, s)));
    }
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), by_ranks8(t, key));
    for (unsigned m = _mm512_test_epi64_mask(key, flush); m; m &= m - 1) {
      const unsigned j = static_cast<unsigned>(__builtin_ctz(m));
      out[i + j] = ev.eval7(c + 7 * j);
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
