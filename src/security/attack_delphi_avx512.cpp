// Hand-vectorised Delphi filter for AVX-512 CPUs (the default attack, so worth ~1.6x over
// what the compiler makes of the generic lane model). Same contract as the generic scan.
//
// Two tricks: (1) lanes hold consecutive seeds, so after k steps lane l's RandSeed is
// base_k + l * a^k (mod 2^32): one add of a precomputed vector replaces the multiply;
// (2) Random(n) = (RandSeed * n) >> 32 uses two 32x32->64 multiplies (even and odd
// lanes) instead of widening to 64-bit lanes.
// x86-64 only: elsewhere delphi_scan_avx512 is the portable lane model (never picked there:
// lane_scanner only picks AVX-512 code on a CPU that has it).
#if !defined(__x86_64__)
#include "fairdeck/security/internal/attack_kernel.hpp"

namespace fairdeck::detail {
void delphi_scan_avx512(std::uint64_t first, std::uint64_t count, const scan_plan& plan, std::vector<std::uint64_t>& out) {
  lane_scanner(engine_id::delphi, plan.step_count, false)(first, count, plan, out);
}
}  // namespace fairdeck::detail
#else
// g++ 12 warns falsely inside its own AVX-512 intrinsics (GCC bug 105593).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#include "fairdeck/security/internal/attack_kernel.hpp"

namespace fairdeck::detail {
namespace {

constexpr std::uint32_t delphi_a = 0x08088405u;
constexpr unsigned vectors = lanes / 16;

}  // namespace

[[gnu::target("avx512f")]] void delphi_scan_avx512(std::uint64_t first, std::uint64_t count, const scan_plan& plan,
                                                   std::vector<std::uint64_t>& out) {
  // offset[k][l] = l * a^(k+1) mod 2^32: lane l's distance from lane 0 after step k.
  std::vector<std::uint32_t> offset(plan.step_count * lanes);
  std::uint32_t ak = 1;
  for (std::size_t k = 0; k < plan.step_count; ++k) {
    ak *= delphi_a;
    for (unsigned l = 0; l < lanes; ++l) offset[k * lanes + l] = l * ak;
  }
  const __m512i start_a = _mm512_set1_epi32(static_cast<int>(plan.start[0]));
  const __m512i start_b = _mm512_set1_epi32(static_cast<int>(plan.start[1]));
  const __m512i target_a = _mm512_set1_epi32(static_cast<int>(plan.target[0]));
  const __m512i target_b = _mm512_set1_epi32(static_cast<int>(plan.target[1]));
  constexpr __mmask16 odd = 0xAAAA;

  for (std::uint64_t done = 0; done < count; done += lanes) {
    __m512i a[vectors], b[vectors];
    for (unsigned v = 0; v < vectors; ++v) {
      a[v] = start_a;
      b[v] = start_b;
    }
    auto base = static_cast<std::uint32_t>(first + done);
    for (std::size_t k = 0; k < plan.step_count; ++k) {
      base = base * delphi_a + 1u;
      const __m512i vbase = _mm512_set1_epi32(static_cast<int>(base));
      const __m512i bound = _mm512_set1_epi32(static_cast<int>(plan.steps[k].bound));
      const __m512i i = _mm512_set1_epi32(static_cast<int>(plan.steps[k].i));
      const std::uint32_t* off = offset.data() + k * lanes;
      for (unsigned v = 0; v < vectors; ++v) {
        const __m512i s = _mm512_add_epi32(vbase, _mm512_loadu_si512(off + 16 * v));
        const __m512i even = _mm512_srli_epi64(_mm512_mul_epu32(s, bound), 32);
        const __m512i oddp = _mm512_mul_epu32(_mm512_srli_epi64(s, 32), bound);
        const __m512i j = _mm512_mask_blend_epi32(odd, even, oddp);  // high halves of s * n
        const __m512i d = _mm512_xor_si512(i, j);
        // swap(i, j) moves a tracked card at i or j by xor with i ^ j.
        const __mmask16 ai = _mm512_cmpeq_epi32_mask(a[v], i), aj = _mm512_cmpeq_epi32_mask(a[v], j);
        const __mmask16 bi = _mm512_cmpeq_epi32_mask(b[v], i), bj = _mm512_cmpeq_epi32_mask(b[v], j);
        a[v] = _mm512_mask_xor_epi32(a[v], static_cast<__mmask16>(ai ^ aj), a[v], d);
        b[v] = _mm512_mask_xor_epi32(b[v], static_cast<__mmask16>(bi ^ bj), b[v], d);
      }
    }
    std::uint64_t mask = 0;
    for (unsigned v = 0; v < vectors; ++v) {
      const __mmask16 hit = static_cast<__mmask16>(_mm512_cmpeq_epi32_mask(a[v], target_a) &
                                                   _mm512_cmpeq_epi32_mask(b[v], target_b));
      mask |= static_cast<std::uint64_t>(hit) << (16 * v);
    }
    const std::uint64_t left = count - done;
    if (left < lanes) mask &= (std::uint64_t{1} << left) - 1;  // lanes past the range
    if (mask) push_hits(out, first + done, mask);
  }
}

}  // namespace fairdeck::detail
#endif  // __x86_64__
