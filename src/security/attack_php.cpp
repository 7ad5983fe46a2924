// The PHP shuffle() seed filter: all 2^32 mt_srand seeds in 102.5–109.9 s on two cores of an
// Intel Xeon 6/207 (~47 ns of CPU per seed for a 52-card deck with AVX-512, against ~78 for the
// kernel before the changes below; docs/performance.md).
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
// stored, and draw t is taken the moment word 397+t appears. The known cards are followed as
// in the legacy filters (attack_kernel.hpp); lanes whose largest output could have been
// rejected are passed on as doubtful to the exact check.
//
// Where the time goes (one core): the seeding is a chain of 397 dependent multiplies per seed,
// so 16 vectors' chains run side by side (4 x 64 seeds on AVX-512, whose vpmulld has a latency
// of ~10 cycles: with 4 chains it was latency-bound, 47 of 80 ns on the Intel). Then the draws:
// tempering, x % n and two or three tracked cards, ~44 vector operations each. After the draw at step
// i, positions >= i are final, so once a tracked card has settled off its target the lane is
// dead; after `cut` draws (compaction_point) the lanes still alive (~1 in 5 for two cards
// with targets 0 and 1, ~1 in 6 for three at 0..2) go to a queue that makes the remaining draws in
// full blocks, so ~23-28 draws are made for every seed instead of 51.
#include <algorithm>
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

// Draws made on every seed before the lanes still alive are moved to the queue that makes the
// rest in full blocks; plan.step_count when that does not pay or the plan is not Fisher–Yates
// from the top (i = n-1, n-2, ..., 1, j <= i). A draw settles any given unsettled card with
// probability 1/bound, so after t draws a card whose target is still open is alive with
// probability free = prod(1 - 1/bound), and one whose target is final with
// free-at-its-step / bound (the cards taken as independent). Cost per seed, in draws:
// cut + alive (k - cut + 20), the 20 for queueing a lane (its state is copied, its first k
// words computed again) and the block it waits for; fitted to the measured optimum (cut 24 to
// 32 for two cards with targets 0 and 1 all cost the same within 3 %; this picks 28, and 23
// for three cards at 0, 1 and 2, where 18 to 28 measured the same).
std::size_t compaction_point(const scan_plan& plan, std::span<const std::uint32_t> targets) {
  const std::size_t k = plan.step_count;
  if (k < 2) return k;
  for (std::size_t t = 0; t < k; ++t)
    if (plan.steps[t].bound != plan.steps[t].i + 1 || plan.steps[t].i + t != plan.steps[0].i) return k;
  double free = 1, on_target[3] = {0, 0, 0};
  double best = static_cast<double>(k);
  std::size_t cut = k;
  for (std::size_t t = 0; t + 1 < k; ++t) {
    const swap_step& s = plan.steps[t];
    for (std::size_t c = 0; c < targets.size(); ++c)
      if (targets[c] == s.i) on_target[c] = free / s.bound;
    free *= 1.0 - 1.0 / s.bound;
    double alive = 1;  // after draws 0..t: positions >= s.i are final
    for (std::size_t c = 0; c < targets.size(); ++c) alive *= targets[c] >= s.i ? on_target[c] : free;
    const double cost = static_cast<double>(t + 1) + alive * (static_cast<double>(k - t - 1) + 20);
    if (cost < best) {
      best = cost;
      cut = t + 1;
    }
  }
  return cut;
}

// The cards a scan follows: the plan's distinct known cards (1 to 3), slots past `count`
// repeating the first.
struct tracked_cards {
  std::uint32_t start[3] = {}, target[3] = {};
  unsigned count = 0;
  explicit tracked_cards(const scan_plan& plan) {
    const std::uint32_t starts[3] = {plan.start[0], plan.start[1], plan.third_start};
    const std::uint32_t targets[3] = {plan.target[0], plan.target[1], plan.third_target};
    for (unsigned c = 0; c < 3; ++c)
      if (starts[c] != scan_plan::no_card && std::find(start, start + count, starts[c]) == start + count) {
        start[count] = starts[c];
        target[count++] = targets[c];
      }
    for (unsigned c = count; c < 3; ++c) {
      start[c] = start[0];
      target[c] = target[0];
    }
  }
};

template <int Isa, unsigned Cards>
inline void php_scan(std::uint64_t first, std::uint64_t count, const scan_plan& plan, const tracked_cards& cards,
                     std::vector<std::uint64_t>& out) {
  using S = simd<Isa == 2 ? 64 : Isa == 1 ? 32 : 16>;
  using vec = typename S::vec;
  using vec64 = typename S::vec64;
  using veci = typename S::veci;
  using vecf = typename S::vecf;
  constexpr unsigned vecs = S::count, width = S::width;
  const std::size_t k = plan.step_count, cut = compaction_point(plan, {cards.target, cards.count}),
                    found_before = out.size();
  // 64-byte aligned word-major tables (std::vector<vec> would drop the vector type's
  // alignment: attributes are ignored on template arguments).
  const auto aligned = [](std::vector<std::uint32_t>& v) {
    return reinterpret_cast<std::uint32_t*>((reinterpret_cast<std::uintptr_t>(v.data()) + 63) & ~std::uintptr_t{63});
  };
  // s[0..cut] of each lane of a block: `group` runs of `lanes` seeds, seeded together so that
  // enough independent multiply chains are in flight (16 on AVX-512 and AVX2), then drawn one run
  // at a time.
  constexpr unsigned group = Isa == 2 ? 4 : 2;
  std::vector<std::uint32_t> storage((cut + 1) * group * lanes + 16);
  vec* const words = reinterpret_cast<vec*>(aligned(storage));
  // The queue of lanes alive after `cut` draws (up to 2 blocks): per lane its seed, s[396 + cut]
  // (the seeding row), the largest output and the tracked cards' positions. Its words
  // s[cut..k] are computed again when it runs (k multiply steps per 16 lanes cost less than
  // copying k - cut words lane by lane).
  constexpr unsigned capacity = 2 * lanes, stride = capacity / width, queue_rows = 3 + Cards;
  std::vector<std::uint32_t> queue_storage(cut < k ? queue_rows * capacity + 16 : 0);
  std::vector<std::uint32_t> queue_word_storage(cut < k ? (k - cut + 1) * lanes + 16 : 0);
  std::uint32_t* const queue = cut < k ? aligned(queue_storage) : nullptr;
  vec* const queue_words = cut < k ? reinterpret_cast<vec*>(aligned(queue_word_storage)) : nullptr;
  std::uint64_t queued_seed[capacity];
  unsigned queued = 0;
  std::vector<draw_plan> draw(k);
  std::uint32_t lowest_limit = 0xffffffffu;
  for (std::size_t t = 0; t < k; ++t) {
    const std::uint32_t n = plan.steps[t].bound;
    const unsigned lg = 31u - static_cast<unsigned>(__builtin_clz(n));  // 2^lg <= n
    const bool pow2 = (n & (n - 1)) == 0;
    const std::uint32_t mul = pow2       ? 0u
                              : n <= 256 ? (std::uint32_t{1} << 16) % n
                                         : static_cast<std::uint32_t>((std::uint64_t{1} << (32 + lg)) / n);
    draw[t] = {plan.steps[t].i,
               n,
               pow2 ? 0xffffffffu : 0xffffffffu - (0xffffffffu % n) - 1,
               mul,
               lg,
               pow2,
               1.0f / static_cast<float>(n)};
    lowest_limit = std::min(lowest_limit, draw[t].limit);
  }
  // A lane is doubtful (may have met a rejection) when its largest output so far is above the
  // lowest limit of the plan: a superset of the lanes that did, at one max per draw (a few
  // more seeds in 10^6 go to the exact check: (2^32 - lowest limit) / 2^32 per draw).
  const vec zero{}, magic = zero + 0x9908b0dfu;

  // Draws t0..t1-1 of one block; words_of(t)[v] is s[t] of the block's vector v, row[v] s[396 + t0].
  const auto draws = [&](std::size_t t0, std::size_t t1, vec* row, vec(*pos)[vecs], vec* top, auto words_of) {
    for (std::size_t t = t0; t < t1; ++t) {
      const auto w = static_cast<std::uint32_t>(397 + t);
      const draw_plan& d = draw[t];
      vec x[vecs], j[vecs];
#pragma GCC unroll 16
      for (unsigned v = 0; v < vecs; ++v) {
        row[v] = 1812433253u * (row[v] ^ (row[v] >> 30)) + w;  // s[397 + t]
        const vec next = words_of(t + 1)[v];                   // y: the top bit of s[t], the rest of s[t + 1]
        const vec y = next ^ ((words_of(t)[v] ^ next) & 0x80000000u);
        vec z = row[v] ^ (y >> 1) ^ ((next & 1u) != 0 ? magic : zero);
        z ^= z >> 11;  // tempering
        z ^= (z << 7) & 0x9d2c5680u;
        z ^= (z << 15) & 0xefc60000u;
        z ^= z >> 18;
        top[v] = top[v] > z ? top[v] : z;
        x[v] = z;
      }
      if (d.pow2) {
#pragma GCC unroll 16
        for (unsigned v = 0; v < vecs; ++v) j[v] = x[v] & (d.n - 1);
      } else if (d.n <= 256) {
        // x % n in 32-bit lanes (no 64-bit multiply, which AVX2 and SSE2 lack): v = (x >> 16)
        // (2^16 mod n) + (x & 0xffff) = x (mod n) and v < 2^24, so v and v/n are exact or
        // within 2/n < 1 in float: the quotient is off by at most one either way, so of r, r + n
        // and r - n (unsigned) the least is the remainder.
#pragma GCC unroll 16
        for (unsigned v = 0; v < vecs; ++v) {
          const vec u = (x[v] >> 16) * d.mul + (x[v] & 0xffffu);
          const vecf quotient = __builtin_convertvector(reinterpret_cast<veci>(u), vecf) * d.inverse;
          const vec r = u - reinterpret_cast<vec>(__builtin_convertvector(quotient, veci)) * d.n;  // in [-n, 2n)
          const vec up = r + d.n, down = r - d.n;  // unsigned, the one in [0, n) is the least
          const vec m = r < up ? r : up;
          j[v] = m < down ? m : down;
        }
      } else {  // x % n: q = hi32(x m) >> lg is the quotient or one less
#pragma GCC unroll 16
        for (unsigned v = 0; v < vecs; ++v) {
          const vec64 hi = (__builtin_convertvector(x[v], vec64) * std::uint64_t{d.mul}) >> 32;
          const vec q = __builtin_convertvector(hi, vec) >> d.lg;
          const vec r = x[v] - q * d.n;
          const vec down = r - d.n;
          j[v] = r < down ? r : down;
        }
      }
#pragma GCC unroll 16
      for (unsigned v = 0; v < vecs; ++v) {
        const vec i = zero + d.i;  // swap(deck[i], deck[j]) moves a card at i or j
        for (unsigned c = 0; c < Cards; ++c) pos[c][v] = pos[c][v] == i ? j[v] : pos[c][v] == j[v] ? i : pos[c][v];
      }
    }
  };
  // Lanes whose tracked cards landed on target, or that are doubtful.
  const auto hits = [&](const vec(*pos)[vecs], const vec* top) {
    std::uint64_t mask = 0;
    for (unsigned v = 0; v < vecs; ++v) {
      veci hit = top[v] > lowest_limit;
      veci all = pos[0][v] == cards.target[0];
      for (unsigned c = 1; c < Cards; ++c) all &= pos[c][v] == cards.target[c];
      hit |= all;
      for (unsigned l = 0; l < width; ++l) mask |= static_cast<std::uint64_t>(hit[l] & 1) << (v * width + l);
    }
    return mask;
  };
  // The last k - cut draws of the first n queued lanes; the lanes after them move up.
  const auto run_queue = [&](unsigned n) {
    const vec* q = reinterpret_cast<const vec*>(queue);  // row r, vector v: q[r * stride + v]
    vec seed[vecs], row[vecs], top[vecs], pos[Cards][vecs];
    for (unsigned v = 0; v < vecs; ++v) {
      seed[v] = q[v];
      row[v] = q[stride + v];
      top[v] = q[2 * stride + v];
      for (unsigned c = 0; c < Cards; ++c) pos[c][v] = q[(3 + c) * stride + v];
    }
    for (std::uint32_t w = 1; w <= k; ++w)
      for (unsigned v = 0; v < vecs; ++v) {
        seed[v] = 1812433253u * (seed[v] ^ (seed[v] >> 30)) + w;
        if (w >= cut) queue_words[(w - cut) * vecs + v] = seed[v];
      }
    draws(cut, k, row, pos, top, [&](std::size_t t) { return queue_words + (t - cut) * vecs; });
    std::uint64_t mask = hits(pos, top);
    if (n < lanes) mask &= (std::uint64_t{1} << n) - 1;
    for (; mask; mask &= mask - 1) out.push_back(queued_seed[__builtin_ctzll(mask)]);
    if (queued > n)
      for (std::size_t r = 0; r < queue_rows; ++r)
        std::copy(queue + r * capacity + n, queue + r * capacity + queued, queue + r * capacity);
    std::copy(queued_seed + n, queued_seed + queued, queued_seed);
    queued -= n;
  };

  vec lane_index{};
  for (unsigned l = 0; l < width; ++l) lane_index[l] = l;
  for (std::uint64_t done = 0; done < count; done += group * lanes) {
    vec row[group * vecs];
    for (unsigned v = 0; v < group * vecs; ++v) {
      row[v] = lane_index + static_cast<std::uint32_t>(first + done + v * width);  // mt_srand takes 32 bits
      words[v] = row[v];
    }
    // init_genrand: s[w] = 1812433253 (s[w-1] ^ (s[w-1] >> 30)) + w. Three loops (keep
    // s[1..cut], run on to 396, then draw) keep the rows in registers in the long middle one.
    std::uint32_t w = 1;
    for (; w <= cut; ++w)
      for (unsigned v = 0; v < group * vecs; ++v) {
        row[v] = 1812433253u * (row[v] ^ (row[v] >> 30)) + w;
        words[std::size_t{w} * group * vecs + v] = row[v];
      }
    for (; w < 397; ++w)
#pragma GCC unroll 32
      for (unsigned v = 0; v < group * vecs; ++v) row[v] = 1812433253u * (row[v] ^ (row[v] >> 30)) + w;
    for (unsigned h = 0; h < group && done + h * lanes < count; ++h) {
      const std::uint64_t base = done + h * lanes, left = count - base;
      vec top[vecs], pos[Cards][vecs];
      for (unsigned v = 0; v < vecs; ++v) {
        top[v] = zero;
        for (unsigned c = 0; c < Cards; ++c) pos[c][v] = zero + cards.start[c];
      }
      vec* const half = row + h * vecs;
      draws(0, cut, half, pos, top, [&](std::size_t t) { return words + (t * group + h) * vecs; });
      const std::uint64_t in_range = left < lanes ? (std::uint64_t{1} << left) - 1 : ~std::uint64_t{0};
      if (cut == k) {
        if (const std::uint64_t mask = hits(pos, top) & in_range) push_hits(out, first + base, mask);
        continue;
      }
      // Queue the lanes whose tracked cards can still land on target (or that are doubtful):
      // a card whose target is final must be on it, any other must not be on a final position.
      const std::uint32_t settled = plan.steps[cut - 1].i;  // positions >= settled are final
      std::uint64_t alive = 0;
      for (unsigned v = 0; v < vecs; ++v) {
        veci keep = ~veci{};
        for (unsigned c = 0; c < Cards; ++c)
          keep &= cards.target[c] >= settled ? pos[c][v] == cards.target[c] : pos[c][v] < settled;
        keep |= top[v] > lowest_limit;
        for (unsigned l = 0; l < width; ++l)  // branch-free: a lane's fate here is a coin toss
          alive |= static_cast<std::uint64_t>(keep[l] & 1) << (v * width + l);
      }
      for (alive &= in_range; alive; alive &= alive - 1) {
        const unsigned l = static_cast<unsigned>(__builtin_ctzll(alive)), v = l / width, e = l % width;
        std::uint32_t* q = queue + queued;
        q[0] = static_cast<std::uint32_t>(first + base + l);  // mt_srand takes 32 bits
        q[capacity] = half[v][e];
        q[2 * capacity] = top[v][e];
        for (unsigned c = 0; c < Cards; ++c) q[(3 + c) * capacity] = pos[c][v][e];
        queued_seed[queued++] = first + base + l;
      }
      if (queued >= lanes) run_queue(lanes);
    }
  }
  if (queued) run_queue(queued);
  std::sort(out.begin() + static_cast<std::ptrdiff_t>(found_before), out.end());
}

// Two or three tracked cards (tracked_cards), one instantiation each.
template <int Isa>
inline void php_scan(std::uint64_t first, std::uint64_t count, const scan_plan& plan, std::vector<std::uint64_t>& out) {
  const tracked_cards cards(plan);
  if (cards.count == 3)
    php_scan<Isa, 3>(first, count, plan, cards, out);
  else
    php_scan<Isa, 2>(first, count, plan, cards, out);
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
[[gnu::flatten]] void php_baseline(std::uint64_t f, std::uint64_t c, const scan_plan& p,
                                   std::vector<std::uint64_t>& o) {
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
