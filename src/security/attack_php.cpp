// The PHP shuffle() seed filter: all 2^32 mt_srand seeds in about two minutes on two AVX-512
// cores (~49 ns of CPU per seed on a Zen 4 core).
//
// PHP 8.2's shuffle() is Fisher–Yates from the top, j = mt_rand_range(0, i) with
// rand_range32: x = the full 32-bit MT19937 output; power-of-two bounds mask, other bounds
// reject x above UINT32_MAX - UINT32_MAX % (i+1) - 1 and return x % (i+1). mt_srand(S)
// fills the state by init_genrand (Matsumoto & Nishimura 1998, the 2002 seeding:
// s[w] = 1812433253 (s[w-1] ^ (s[w-1] >> 30)) + w) and twists.
//
// Why it is fast: output t (t < 227) of the first twist reads only s[t], s[t+1] and s[t+397],
// so a k-draw shuffle needs words 0..k and 397..396+k. The seeding recurrence is sequential
// and has to run to word 396+k, but nothing past it is computed, no 624-word state is ever
// stored, and draw t is taken the moment word 397+t appears (one pass, ~14 KB per block of 64
// seeds). The known cards are followed as in the legacy filters (attack_kernel.hpp); lanes
// that would hit the (rare) rejection are passed on as doubtful to the exact check.
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "fairdeck/security/internal/attack_kernel.hpp"
#include "fairdeck/security/internal/runtime_kernels.hpp"
#include "fairdeck/security/runtime_attack.hpp"

namespace fairdeck::detail {
namespace {

constexpr std::uint32_t mt_tempered(std::uint32_t v) noexcept {
  v ^= v >> 11;
  v ^= (v << 7) & 0x9d2c5680u;
  v ^= (v << 15) & 0xefc60000u;
  return v ^ (v >> 18);
}

template <int Isa>
inline void php_scan(std::uint64_t first, std::uint64_t count, const scan_plan& plan, std::vector<std::uint64_t>& out) {
  const std::size_t k = plan.step_count;
  std::vector<std::uint32_t> words((k + 1) * lanes);  // s[0..k] of each lane, word-major
  // Per step: a multiplier and shift for the quotient (Granlund & Montgomery, "Division by
  // invariant integers using multiplication", PLDI 1994, rounded down: exact or one too small,
  // fixed below) and the largest draw that needs no rejection (PHP's limit; power-of-two
  // bounds never reject).
  std::vector<std::uint32_t> limit(k);
  std::vector<std::uint64_t> mul(k);
  std::vector<unsigned> shift(k);
  for (std::size_t t = 0; t < k; ++t) {
    const std::uint32_t n = plan.steps[t].bound;
    const unsigned lg = 31u - static_cast<unsigned>(__builtin_clz(n));  // 2^lg <= n
    shift[t] = 32 + lg;
    mul[t] = (std::uint64_t{1} << shift[t]) / n;  // <= 2^32: q is exact or one too small
    limit[t] = (n & (n - 1)) == 0 ? 0xffffffffu : 0xffffffffu - (0xffffffffu % n) - 1;
  }
  for (std::uint64_t done = 0; done < count; done += lanes) {
    std::uint32_t row[lanes], a[lanes], b[lanes], doubt[lanes];
    for (unsigned l = 0; l < lanes; ++l) {
      row[l] = static_cast<std::uint32_t>(first + done + l);
      words[l] = row[l];
      a[l] = plan.start[0];
      b[l] = plan.start[1];
      doubt[l] = 0;
    }
    for (std::uint32_t w = 1; w < 397 + k; ++w) {
      for (unsigned l = 0; l < lanes; ++l) row[l] = 1812433253u * (row[l] ^ (row[l] >> 30)) + w;
      if (w <= k) {
        std::uint32_t* dst = words.data() + std::size_t{w} * lanes;
        for (unsigned l = 0; l < lanes; ++l) dst[l] = row[l];
      }
      if (w < 397) continue;
      const std::size_t t = w - 397;
      const std::uint32_t* s0 = words.data() + t * lanes;
      const std::uint32_t* s1 = s0 + lanes;
      const std::uint32_t i = plan.steps[t].i, n = plan.steps[t].bound, lim = limit[t];
      const std::uint64_t q_mul = mul[t];
      const unsigned q_shift = shift[t];
      for (unsigned l = 0; l < lanes; ++l) {
        const std::uint32_t y = (s0[l] & 0x80000000u) | (s1[l] & 0x7fffffffu);
        const std::uint32_t x = mt_tempered(row[l] ^ (y >> 1) ^ ((y & 1u) ? 0x9908b0dfu : 0u));
        doubt[l] |= static_cast<std::uint32_t>(x > lim);
        // x % n: q is the quotient or one less, so x - q n is in [0, 2n).
        const auto q = static_cast<std::uint32_t>((std::uint64_t{x} * q_mul) >> q_shift);
        std::uint32_t r = x - q * n;
        r = r >= n ? r - n : r;
        const std::uint32_t j = r, d = i ^ j, pa = a[l], pb = b[l];
        a[l] = pa ^ ((pa == i ? d : 0u) ^ (pa == j ? d : 0u));
        b[l] = pb ^ ((pb == i ? d : 0u) ^ (pb == j ? d : 0u));
      }
    }
    std::uint64_t mask = 0;
    for (unsigned l = 0; l < lanes; ++l)
      mask |= static_cast<std::uint64_t>((a[l] == plan.target[0] && b[l] == plan.target[1]) || doubt[l] != 0) << l;
    const std::uint64_t left = count - done;
    if (left < lanes) mask &= (std::uint64_t{1} << left) - 1;
    if (mask) push_hits(out, first + done, mask);
  }
}

#if defined(__x86_64__)  // the x86 builds of the kernel, picked at run time (attack_kernels.cpp)
[[gnu::target("avx512f,avx512vl,avx512bw,avx512dq"), gnu::flatten]] void php_avx512(std::uint64_t f, std::uint64_t c,
                                                                                   const scan_plan& p,
                                                                                   std::vector<std::uint64_t>& o) {
  php_scan<2>(f, c, p, o);
}
[[gnu::target("avx2,fma"), gnu::flatten]] void php_avx2(std::uint64_t f, std::uint64_t c, const scan_plan& p,
                                                        std::vector<std::uint64_t>& o) {
  php_scan<1>(f, c, p, o);
}
#endif
[[gnu::flatten]] void php_baseline(std::uint64_t f, std::uint64_t c, const scan_plan& p, std::vector<std::uint64_t>& o) {
  php_scan<0>(f, c, p, o);
}

}  // namespace

seed_scanner php_scanner(std::size_t step_count) {
  if (step_count > 226) return nullptr;  // draw 227 would read a word the first twist rewrote
#if defined(__x86_64__)
  return pick_scanner(&php_avx512, &php_avx2, &php_baseline);
#else
  return &php_baseline;  // the portable build, vectorised for the target's own SIMD
#endif
}

}  // namespace fairdeck::detail
