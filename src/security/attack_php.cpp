// The PHP shuffle() seed filter: all 2^32 mt_srand seeds in under two minutes on two Zen 4
// cores (~51 ns of CPU per seed for a 52-card deck with AVX-512, ~55 with AVX2, measured
// under load; docs/performance.md).
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
//
// Where the time goes (Zen 4, one core): the 397-step seeding ~21 ns per seed, the 51 draws
// of a 52-card deck ~30 ns (tempering, x % n, two tracked cards). The first version kept the
// 64 rows in memory (a store-to-load round trip in every seeding step's dependency chain) and
// branched per vector on the kind of bound: 67 ns. No early exit: a lane's tracked cards are
// settled only at the last draws, and a block stops only when all 64 lanes have failed.
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "fairdeck/security/internal/attack_kernel.hpp"
#include "fairdeck/security/internal/runtime_kernels.hpp"
#include "fairdeck/security/runtime_attack.hpp"

namespace fairdeck::detail {
namespace {

// `lanes` (64) seeds per block in GCC/Clang vector extensions of the kernel's native width
// (16 lanes for AVX-512, 8 for AVX2, 4 for SSE2: wider generic vectors are lowered through
// memory), so one source compiles to every kernel and every kernel computes the same bits.
// (GCC ignores a dependent vector_size, hence one struct per width.)
#define FAIRDECK_PHP_SIMD(BYTES)                                           \
  template <>                                                              \
  struct simd<BYTES> {                                                     \
    using vec = std::uint32_t __attribute__((vector_size(BYTES)));         \
    using vec64 = std::uint64_t __attribute__((vector_size(2 * (BYTES)))); \
    using veci = std::int32_t __attribute__((vector_size(BYTES)));         \
    using vecf = float __attribute__((vector_size(BYTES)));                \
    static constexpr unsigned width = (BYTES) / 4;                         \
    static constexpr unsigned count = lanes / width;                       \
  };
template <unsigned Bytes>
struct simd;
FAIRDECK_PHP_SIMD(16)
FAIRDECK_PHP_SIMD(32)
FAIRDECK_PHP_SIMD(64)
#undef FAIRDECK_PHP_SIMD

// Per step: the draw's bound and rejection limit, and for x % n a multiplier m = floor(2^(32+lg)
// / n) < 2^32 with q = hi32(x m) >> lg (Granlund & Montgomery, "Division by invariant integers
// using multiplication", PLDI 1994, rounded down: exact or one too small, fixed below).
// Power-of-two bounds mask (PHP never rejects them).
// Bounds up to 256 take a float path instead (below): mul = 2^16 mod n, inverse = 1/n.
struct draw_plan {
  std::uint32_t i, n, limit, mul, lg, pow2;
  float inverse;
};

template <int Isa>
inline void php_scan(std::uint64_t first, std::uint64_t count, const scan_plan& plan, std::vector<std::uint64_t>& out) {
  using S = simd<Isa == 2 ? 64 : Isa == 1 ? 32 : 16>;
  using vec = typename S::vec;
  using vec64 = typename S::vec64;
  using veci = typename S::veci;
  using vecf = typename S::vecf;
  constexpr unsigned vecs = S::count, width = S::width;
  const std::size_t k = plan.step_count;
  // s[0..k] of each lane, word-major, 64-byte aligned (std::vector<vec> would drop the
  // vector type's alignment: attributes are ignored on template arguments).
  std::vector<std::uint32_t> storage((k + 1) * lanes + 16);
  vec* const words = reinterpret_cast<vec*>((reinterpret_cast<std::uintptr_t>(storage.data()) + 63) & ~std::uintptr_t{63});
  std::vector<draw_plan> draw(k);
  for (std::size_t t = 0; t < k; ++t) {
    const std::uint32_t n = plan.steps[t].bound;
    const unsigned lg = 31u - static_cast<unsigned>(__builtin_clz(n));  // 2^lg <= n
    const bool pow2 = (n & (n - 1)) == 0;
    const std::uint32_t mul = pow2 ? 0u
                              : n <= 256 ? (std::uint32_t{1} << 16) % n
                                         : static_cast<std::uint32_t>((std::uint64_t{1} << (32 + lg)) / n);
    draw[t] = {plan.steps[t].i, n, pow2 ? 0xffffffffu : 0xffffffffu - (0xffffffffu % n) - 1, mul, lg, pow2,
               1.0f / static_cast<float>(n)};
  }
  const vec zero{};
  vec lane_index{};
  for (unsigned l = 0; l < width; ++l) lane_index[l] = l;
  for (std::uint64_t done = 0; done < count; done += lanes) {
    vec row[vecs], a[vecs], b[vecs], doubt[vecs];
    for (unsigned v = 0; v < vecs; ++v) {
      row[v] = lane_index + static_cast<std::uint32_t>(first + done + v * width);  // mt_srand takes 32 bits
      words[v] = row[v];
      a[v] = zero + plan.start[0];
      b[v] = zero + plan.start[1];
      doubt[v] = zero;
    }
    // init_genrand: s[w] = 1812433253 (s[w-1] ^ (s[w-1] >> 30)) + w. Three loops (keep
    // s[1..k], run on to 396, then draw) keep the rows in registers in the long middle one.
    std::uint32_t w = 1;
    for (; w <= k; ++w)
      for (unsigned v = 0; v < vecs; ++v) {
        row[v] = 1812433253u * (row[v] ^ (row[v] >> 30)) + w;
        words[std::size_t{w} * vecs + v] = row[v];
      }
    for (; w < 397; ++w)
      for (unsigned v = 0; v < vecs; ++v) row[v] = 1812433253u * (row[v] ^ (row[v] >> 30)) + w;
    for (std::size_t t = 0; t < k; ++t, ++w) {
      const draw_plan& d = draw[t];
      vec x[vecs], j[vecs];
#pragma GCC unroll 16
      for (unsigned v = 0; v < vecs; ++v) {
        row[v] = 1812433253u * (row[v] ^ (row[v] >> 30)) + w;  // s[397 + t]
        const vec y = (words[t * vecs + v] & 0x80000000u) | (words[(t + 1) * vecs + v] & 0x7fffffffu);
        vec z = row[v] ^ (y >> 1) ^ (-(y & 1u) & 0x9908b0dfu);
        z ^= z >> 11;  // tempering
        z ^= (z << 7) & 0x9d2c5680u;
        z ^= (z << 15) & 0xefc60000u;
        z ^= z >> 18;
        doubt[v] |= reinterpret_cast<vec>(z > d.limit);
        x[v] = z;
      }
      if (d.pow2) {
#pragma GCC unroll 16
        for (unsigned v = 0; v < vecs; ++v) j[v] = x[v] & (d.n - 1);
      } else if (d.n <= 256) {
        // x % n in 32-bit lanes (no 64-bit multiply, which AVX2 and SSE2 lack): v = (x >> 16)
        // (2^16 mod n) + (x & 0xffff) = x (mod n) and v < 2^24, so v and v/n are exact or
        // within 2/n < 1 in float: the quotient is off by at most one either way, fixed below.
        const auto n = static_cast<std::int32_t>(d.n);
#pragma GCC unroll 16
        for (unsigned v = 0; v < vecs; ++v) {
          const auto u = reinterpret_cast<veci>((x[v] >> 16) * d.mul + (x[v] & 0xffffu));
          const vecf quotient = __builtin_convertvector(u, vecf) * d.inverse;
          veci r = u - __builtin_convertvector(quotient, veci) * n;
          r = r < 0 ? r + n : r;
          r = r >= n ? r - n : r;
          j[v] = reinterpret_cast<vec>(r);
        }
      } else {  // x % n: q = hi32(x m) >> lg is the quotient or one less
#pragma GCC unroll 16
        for (unsigned v = 0; v < vecs; ++v) {
          const vec64 hi = (__builtin_convertvector(x[v], vec64) * std::uint64_t{d.mul}) >> 32;
          const vec q = __builtin_convertvector(hi, vec) >> d.lg;
          const vec r = x[v] - q * d.n;
          j[v] = r >= d.n ? r - d.n : r;
        }
      }
#pragma GCC unroll 16
      for (unsigned v = 0; v < vecs; ++v) {
        const vec dx = j[v] ^ d.i;
        a[v] ^= (reinterpret_cast<vec>(a[v] == d.i) ^ reinterpret_cast<vec>(a[v] == j[v])) & dx;
        b[v] ^= (reinterpret_cast<vec>(b[v] == d.i) ^ reinterpret_cast<vec>(b[v] == j[v])) & dx;
      }
    }
    std::uint64_t mask = 0;
    for (unsigned v = 0; v < vecs; ++v)
      for (unsigned l = 0; l < width; ++l)
        mask |= static_cast<std::uint64_t>((a[v][l] == plan.target[0] && b[v][l] == plan.target[1]) || doubt[v][l] != 0)
                << (v * width + l);
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

std::vector<named_scanner> php_kernels() {
  std::vector<named_scanner> kernels{{"baseline", &php_baseline}};
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) kernels.push_back({"avx2", &php_avx2});
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq"))
    kernels.push_back({"avx512", &php_avx512});
#endif
  return kernels;
}

}  // namespace fairdeck::detail
