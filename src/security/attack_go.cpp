// The Go 1.19 math/rand Shuffle seed filter: every rand.NewSource state (2^31-2 of them).
//
// rngSource.Seed runs a Lehmer LCG x <- 48271 x mod (2^31-1) 20 + 3*607 times, but word i of
// the ALFG state is (x_{21+3i} << 40) ^ (x_{22+3i} << 20) ^ x_{23+3i} ^ rngCooked[i] with
// x_e = x_0 * 48271^e mod (2^31-1): each needed word is three modular multiplications by
// precomputed powers, no 1,800-step seeding. Draw k (k < 273) is vec[333-k] + vec[606-k] of
// the seeded state (neither word has been fed back yet), Uint32 its bits 31..62, and
// Shuffle's int31n(n) the high half of Uint32 * n; a low half below n may reject (rare):
// such lanes are passed on as doubtful to the exact check.
#include <array>
#include <cstdint>
#include <vector>

#include "fairdeck/runtimes/internal/go_source.hpp"
#include "fairdeck/security/internal/runtime_kernels.hpp"

namespace fairdeck::detail {
namespace {

namespace go = runtimes::go;
constexpr std::uint64_t m31 = go::int32max;
constexpr unsigned max_draws = go::rng_len - go::rng_tap;  // 334: draw k reads vec[606-k] unmodified while k < 273
constexpr unsigned safe_draws = go::rng_tap;              // 273

constexpr std::uint64_t mulmod(std::uint64_t a, std::uint64_t b) noexcept {  // a, b < 2^31
  std::uint64_t p = a * b;
  p = (p & m31) + (p >> 31);
  return p >= m31 ? p - m31 : p;
}

std::uint64_t power(std::uint64_t e) {
  std::uint64_t r = 1, b = 48271;
  for (; e; e >>= 1, b = mulmod(b, b))
    if (e & 1) r = mulmod(r, b);
  return r;
}

// The multipliers and cooked word of one ALFG word.
struct word_plan {
  std::uint64_t c[3];
  std::uint64_t cooked;
};
word_plan plan_word(unsigned i) {
  return {{power(21 + 3 * i), power(22 + 3 * i), power(23 + 3 * i)}, go::rng_cooked[i]};
}

inline std::uint64_t alfg_word(std::uint64_t x, const word_plan& w) {
  return (mulmod(x, w.c[0]) << 40) ^ (mulmod(x, w.c[1]) << 20) ^ mulmod(x, w.c[2]) ^ w.cooked;
}

template <int Isa>
inline void go_scan(std::uint64_t first, std::uint64_t count, const scan_plan& plan, std::vector<std::uint64_t>& out) {
  const std::size_t k = plan.step_count;
  std::vector<word_plan> feed(k), tap(k);
  for (std::size_t t = 0; t < k; ++t) {
    feed[t] = plan_word(static_cast<unsigned>(max_draws - 1 - t));  // vec[333 - t]
    tap[t] = plan_word(static_cast<unsigned>(go::rng_len - 1 - t));  // vec[606 - t]
  }
  for (std::uint64_t done = 0; done < count; done += lanes) {
    std::uint64_t x[lanes];
    std::uint32_t a[lanes], b[lanes], doubt[lanes];
    for (unsigned l = 0; l < lanes; ++l) {
      x[l] = go::reduce_seed(first + done + l);
      a[l] = plan.start[0];
      b[l] = plan.start[1];
      doubt[l] = 0;
    }
    for (std::size_t t = 0; t < k; ++t) {
      const std::uint32_t i = plan.steps[t].i;
      const std::uint64_t n = plan.steps[t].bound;
      const word_plan& f = feed[t];
      const word_plan& p = tap[t];
      for (unsigned l = 0; l < lanes; ++l) {
        const std::uint64_t sum = alfg_word(x[l], f) + alfg_word(x[l], p);
        const std::uint64_t v = (sum >> 31) & 0xffffffffu;  // uint32(Int63() >> 31)
        const std::uint64_t prod = v * n;
        doubt[l] |= static_cast<std::uint32_t>((prod & 0xffffffffu) < n);
        const auto j = static_cast<std::uint32_t>(prod >> 32), d = i ^ j, pa = a[l], pb = b[l];
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
[[gnu::target("avx512f,avx512vl,avx512bw,avx512dq"), gnu::flatten]] void go_avx512(std::uint64_t f, std::uint64_t c,
                                                                                  const scan_plan& p,
                                                                                  std::vector<std::uint64_t>& o) {
  go_scan<2>(f, c, p, o);
}
[[gnu::target("avx2,fma"), gnu::flatten]] void go_avx2(std::uint64_t f, std::uint64_t c, const scan_plan& p,
                                                       std::vector<std::uint64_t>& o) {
  go_scan<1>(f, c, p, o);
}
#endif
[[gnu::flatten]] void go_baseline(std::uint64_t f, std::uint64_t c, const scan_plan& p, std::vector<std::uint64_t>& o) {
  go_scan<0>(f, c, p, o);
}

}  // namespace

seed_scanner go_scanner(std::size_t step_count) {
  if (step_count > safe_draws) return nullptr;
#if defined(__x86_64__)
  return pick_scanner(&go_avx512, &go_avx2, &go_baseline);
#else
  return &go_baseline;  // the portable build, vectorised for the target's own SIMD
#endif
}

}  // namespace fairdeck::detail
