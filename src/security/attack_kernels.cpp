// SIMD lane models of the LCG engines and the seed filter, compiled per instruction set
// (target attributes + a run-time CPU check, so the library needs no -march flag).
#include "fairdeck/security/internal/attack_kernel.hpp"
#include "fairdeck/security/internal/runtime_kernels.hpp"

#include <algorithm>
#include <type_traits>

namespace fairdeck::detail {
namespace {

// Each lane model keeps one engine per lane in plain arrays; draw(l, b) advances lane l and
// maps its output below the bound prepared by prepare(bound), exactly as the vendor did.

// Delphi: RandSeed := RandSeed * $08088405 + 1; Random(n) = (RandSeed * n) shr 32.
struct delphi_lanes {
  std::uint32_t s[lanes];
  explicit delphi_lanes(std::uint64_t first) {
    for (unsigned l = 0; l < lanes; ++l) s[l] = static_cast<std::uint32_t>(first + l);
  }
  using bound_t = std::uint32_t;
  static bound_t prepare(std::uint32_t bound) { return bound; }
  std::uint32_t draw(unsigned l, bound_t n) {
    s[l] = s[l] * 0x08088405u + 1u;
    return static_cast<std::uint32_t>((static_cast<std::uint64_t>(s[l]) * static_cast<std::uint64_t>(n)) >> 32);
  }
};

// MSVC: holdrand = holdrand * 214013 + 2531011; rand() = bits 16..30; rand() % n. The
// modulo runs in float: x < 2^15, so the truncated quotient is off by at most one, fixed.
struct msvc_lanes {
  std::uint32_t s[lanes];
  explicit msvc_lanes(std::uint64_t first) {
    for (unsigned l = 0; l < lanes; ++l) s[l] = static_cast<std::uint32_t>(first + l);
  }
  struct bound_t {
    std::int32_t n;
    float inv;
  };
  static bound_t prepare(std::uint32_t bound) {
    const auto b = static_cast<std::int32_t>(bound > 0x8000u ? 0x8000u : bound);  // x % n == x for n >= 2^15
    return {b, 1.0f / static_cast<float>(b)};
  }
  std::uint32_t draw(unsigned l, bound_t b) {
    s[l] = s[l] * 214013u + 2531011u;
    const auto x = static_cast<std::int32_t>((s[l] >> 16) & 0x7fff);
    const auto q = static_cast<std::int32_t>(static_cast<float>(x) * b.inv);
    std::int32_t r = x - q * b.n;
    r = r < 0 ? r + b.n : r;
    r = r >= b.n ? r - b.n : r;
    return static_cast<std::uint32_t>(r);
  }
};

// minstd_rand: x = x * 48271 mod (2^31 - 1) (Mersenne-prime reduction); minstd() % n with
// the quotient in double (x < 2^31: off by at most one, fixed).
struct minstd_lanes {
  std::uint64_t x[lanes];
  explicit minstd_lanes(std::uint64_t first) {
    for (unsigned l = 0; l < lanes; ++l) {
      const std::uint64_t v = static_cast<std::uint32_t>(first + l) % 0x7fffffffu;
      x[l] = v == 0 ? 1 : v;
    }
  }
  struct bound_t {
    std::int64_t n;
    double inv;
  };
  static bound_t prepare(std::uint32_t bound) { return {bound, 1.0 / bound}; }
  std::uint32_t draw(unsigned l, bound_t b) {
    std::uint64_t p = x[l] * 48271u;
    p = (p & 0x7fffffffu) + (p >> 31);
    p = p >= 0x7fffffffu ? p - 0x7fffffffu : p;
    x[l] = p;
    const auto q = static_cast<std::int64_t>(static_cast<double>(p) * b.inv);
    std::int64_t r = static_cast<std::int64_t>(p) - q * b.n;
    r = r < 0 ? r + b.n : r;
    r = r >= b.n ? r - b.n : r;
    return static_cast<std::uint32_t>(r);
  }
};

// glibc rand(): srandom_r's Park-Miller fill (as a Mersenne-prime reduction, equal to glibc's
// Schrage steps for every 32-bit seed), 310 discarded outputs, then rand() % n with the
// quotient in double (outputs < 2^31: off by at most one, fixed). All lanes share the ring
// positions, so every state update is one vector add.
struct glibc_lanes {
  static constexpr unsigned degree = 31, separation = 3;
  static constexpr std::uint64_t m31 = 0x7fffffff;
  std::uint32_t r[degree][lanes];
  unsigned front = separation, rear = 0;

  static std::uint64_t times_16807_mod(std::uint64_t w) {  // w < 2^32
    std::uint64_t x = 16807 * w;
    x = (x & m31) + (x >> 31);
    x = (x & m31) + (x >> 31);
    return x >= m31 ? x - m31 : x;
  }
  explicit glibc_lanes(std::uint64_t first) {
    for (unsigned l = 0; l < lanes; ++l) {
      auto seed = static_cast<std::uint32_t>(first + l);
      seed = seed == 0 ? 1 : seed;
      r[0][l] = seed;
      // glibc keeps the word as int32: a seed >= 2^31 is negative, i.e. seed - 2^32 = seed + 2m (mod m).
      std::uint64_t w = seed < 0x80000000u ? seed : std::uint64_t{seed} - 0x100000000ull + 2 * m31;
      for (unsigned i = 1; i < degree; ++i) {
        w = times_16807_mod(w);
        r[i][l] = static_cast<std::uint32_t>(w);
      }
    }
    for (unsigned k = 0; k < 10 * degree; ++k) {
      for (unsigned l = 0; l < lanes; ++l) r[front][l] += r[rear][l];
      advance();
    }
  }
  void end_step() { advance(); }  // every lane has taken this step's output
  void advance() {
    front = front + 1 == degree ? 0 : front + 1;
    rear = rear + 1 == degree ? 0 : rear + 1;
  }
  struct bound_t {
    std::int64_t n;
    double inv;
  };
  static bound_t prepare(std::uint32_t bound) { return {bound, 1.0 / bound}; }
  std::uint32_t draw(unsigned l, bound_t b) {
    const std::uint32_t v = r[front][l] += r[rear][l];
    const auto x = static_cast<std::int64_t>(v >> 1);
    const auto q = static_cast<std::int64_t>(static_cast<double>(x) * b.inv);
    std::int64_t rem = x - q * b.n;
    rem = rem < 0 ? rem + b.n : rem;
    rem = rem >= b.n ? rem - b.n : rem;
    return static_cast<std::uint32_t>(rem);
  }
};

// java.util.Random: seed = (seed * 0x5DEECE66D + 0xB) mod 2^48, next(31) = seed >> 17;
// nextInt(n) = (n * next(31)) >> 31 for powers of two, else next(31) % n with a rejection
// loop. A lane that hits the (rare) rejection would need an extra draw: it is marked
// doubtful and handed to the reference check instead of being followed.
struct java_lanes {
  static constexpr std::uint64_t multiplier = 0x5DEECE66DULL, mask = (std::uint64_t{1} << 48) - 1;
  std::uint64_t s[lanes];
  std::uint32_t doubt[lanes] = {};
  explicit java_lanes(std::uint64_t first) {
    for (unsigned l = 0; l < lanes; ++l) s[l] = ((first + l) ^ multiplier) & mask;
  }
  struct bound_t {
    std::int64_t n;
    double inv;
    bool power_of_two;
  };
  static bound_t prepare(std::uint32_t bound) { return {bound, 1.0 / bound, (bound & (bound - 1)) == 0}; }
  std::uint32_t draw(unsigned l, bound_t b) {
    s[l] = (s[l] * multiplier + 0xB) & mask;
    const auto r = static_cast<std::int64_t>(s[l] >> 17);
    if (b.power_of_two) return static_cast<std::uint32_t>((b.n * r) >> 31);
    const auto q = static_cast<std::int64_t>(static_cast<double>(r) * b.inv);
    std::int64_t v = r - q * b.n;
    v = v < 0 ? v + b.n : v;
    v = v >= b.n ? v - b.n : v;
    doubt[l] |= static_cast<std::uint32_t>(r - v + (b.n - 1) > 0x7fffffff);  // Java's int overflow test
    return static_cast<std::uint32_t>(v);
  }
};

// .NET System.Random(seed): the ran3 fill of dotnet_random's constructor run for all lanes
// at once (indices are shared), then Next(n) = (int)(Next() * (1.0 / int.MaxValue) * n),
// the same double operations as the reference. Seeds are below 2^31, so |seed| = seed.
struct dotnet_lanes {
  static constexpr std::int32_t mbig = 0x7fffffff;
  std::int32_t a[56][lanes];
  unsigned inext = 1, inextp = 22;  // the indices the coming draw uses (C#: after ++)

  static std::int32_t wrap_sub(std::int32_t x, std::int32_t y) {
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(x) - static_cast<std::uint32_t>(y));
  }
  explicit dotnet_lanes(std::uint64_t first) {
    std::int32_t mj[lanes], mk[lanes];
    for (unsigned l = 0; l < lanes; ++l) {
      mj[l] = 161803398 - static_cast<std::int32_t>((first + l) & 0x7fffffff);
      a[55][l] = mj[l];
      mk[l] = 1;
    }
    for (unsigned i = 1; i < 55; ++i) {
      const unsigned ii = (21 * i) % 55;
      for (unsigned l = 0; l < lanes; ++l) {
        a[ii][l] = mk[l];
        std::int32_t next = wrap_sub(mj[l], mk[l]);
        mk[l] = next < 0 ? next + mbig : next;
        mj[l] = a[ii][l];
      }
    }
    for (unsigned k = 1; k < 5; ++k)
      for (unsigned i = 1; i < 56; ++i) {
        const unsigned other = 1 + (i + 30) % 55;
        for (unsigned l = 0; l < lanes; ++l) {
          const std::int32_t v = wrap_sub(a[i][l], a[other][l]);
          a[i][l] = v < 0 ? v + mbig : v;
        }
      }
  }
  using bound_t = double;
  static bound_t prepare(std::uint32_t bound) { return static_cast<double>(bound); }
  std::uint32_t draw(unsigned l, bound_t n) {
    std::int32_t v = wrap_sub(a[inext][l], a[inextp][l]);
    v = v == mbig ? v - 1 : v;
    v = v < 0 ? v + mbig : v;
    a[inext][l] = v;
    return static_cast<std::uint32_t>(static_cast<std::int32_t>(v * (1.0 / mbig) * n));
  }
  void end_step() {
    inext = inext == 55 ? 1 : inext + 1;
    inextp = inextp == 55 ? 1 : inextp + 1;
  }
};

// std::mt19937 seeded with 32 bits: only what the first `steps` outputs need is computed.
// Output k (k < 227) of the first twist reads words k, k+1 and k+397 of the seeded state,
// so the seeding recurrence stops at word 396 + steps and no full twist is ever run.
struct mt19937_lanes {
  static constexpr unsigned max_steps = 227;
  std::vector<std::uint32_t> x;  // word w of lane l at [w * lanes + l]
  unsigned k = 0;
  mt19937_lanes(std::uint64_t first, std::size_t steps) : x((397 + steps) * lanes) {
    std::uint32_t row[lanes];
    for (unsigned l = 0; l < lanes; ++l) row[l] = static_cast<std::uint32_t>(first + l);
    std::uint32_t* out = x.data();
    for (std::size_t w = 0; w < 397 + steps; ++w) {
      if (w > 0)
        for (unsigned l = 0; l < lanes; ++l)
          row[l] = 1812433253u * (row[l] ^ (row[l] >> 30)) + static_cast<std::uint32_t>(w);
      std::copy(row, row + lanes, out + w * lanes);
    }
  }
  struct bound_t {
    std::int64_t n;
    double inv;
  };
  static bound_t prepare(std::uint32_t bound) { return {bound, 1.0 / bound}; }
  std::uint32_t draw(unsigned l, bound_t b) {
    const std::uint32_t* at = x.data() + std::size_t{k} * lanes;
    const std::uint32_t y = (at[l] & 0x80000000u) | (at[lanes + l] & 0x7fffffffu);
    std::uint32_t v = at[397 * lanes + l] ^ (y >> 1) ^ ((y & 1u) ? 0x9908b0dfu : 0u);
    v ^= v >> 11;
    v ^= (v << 7) & 0x9d2c5680u;
    v ^= (v << 15) & 0xefc60000u;
    v ^= v >> 18;
    // mt() % n, quotient in double (v < 2^32: off by at most one, fixed).
    const auto xv = static_cast<std::int64_t>(v);
    const auto q = static_cast<std::int64_t>(static_cast<double>(xv) * b.inv);
    std::int64_t r = xv - q * b.n;
    r = r < 0 ? r + b.n : r;
    r = r >= b.n ? r - b.n : r;
    return static_cast<std::uint32_t>(r);
  }
  void end_step() { ++k; }
};

template <class Lanes>
inline void scan(std::uint64_t first, std::uint64_t count, const scan_plan& plan, std::vector<std::uint64_t>& out) {
  for (std::uint64_t done = 0; done < count; done += lanes) {
    Lanes eng = [&] {
      if constexpr (std::is_constructible_v<Lanes, std::uint64_t, std::size_t>)
        return Lanes(first + done, plan.step_count);
      else
        return Lanes(first + done);
    }();
    std::uint32_t a[lanes], b[lanes];
    for (unsigned l = 0; l < lanes; ++l) {
      a[l] = plan.start[0];
      b[l] = plan.start[1];
    }
    for (std::size_t k = 0; k < plan.step_count; ++k) {
      const std::uint32_t i = plan.steps[k].i;
      const auto bound = Lanes::prepare(plan.steps[k].bound);
      for (unsigned l = 0; l < lanes; ++l) {
        // swap(i, j) moves a card at i to j and at j to i: xor with i ^ j (0 when i == j).
        const std::uint32_t j = eng.draw(l, bound), d = i ^ j, pa = a[l], pb = b[l];
        a[l] = pa ^ ((pa == i ? d : 0u) ^ (pa == j ? d : 0u));
        b[l] = pb ^ ((pb == i ? d : 0u) ^ (pb == j ? d : 0u));
      }
      if constexpr (requires { eng.end_step(); }) eng.end_step();
    }
    std::uint64_t mask = 0;
    for (unsigned l = 0; l < lanes; ++l)
      mask |= static_cast<std::uint64_t>(a[l] == plan.target[0] && b[l] == plan.target[1]) << l;
    if constexpr (requires { eng.doubt; })
      for (unsigned l = 0; l < lanes; ++l) mask |= static_cast<std::uint64_t>(eng.doubt[l] != 0) << l;
    const std::uint64_t left = count - done;
    if (left < lanes) mask &= (std::uint64_t{1} << left) - 1;  // lanes past the range
    if (mask) push_hits(out, first + done, mask);
  }
}

// x86-64: one build of each lane model per instruction set, picked at run time (detect()).
// Other architectures (aarch64, ...): the portable build only, which the compiler vectorises
// for the target's own SIMD; the _avx512 / _avx2 names then refer to it.
#if defined(__x86_64__)
#define FAIRDECK_SCANNERS(NAME, LANES)                                                                 \
  [[gnu::target("avx512f,avx512vl,avx512bw,avx512dq"), gnu::flatten]] void NAME##_avx512(              \
      std::uint64_t f, std::uint64_t c, const scan_plan& p, std::vector<std::uint64_t>& o) {           \
    scan<LANES>(f, c, p, o);                                                                           \
  }                                                                                                    \
  [[gnu::target("avx2,fma"), gnu::flatten]] void NAME##_avx2(std::uint64_t f, std::uint64_t c,         \
                                                             const scan_plan& p,                       \
                                                             std::vector<std::uint64_t>& o) {          \
    scan<LANES>(f, c, p, o);                                                                           \
  }                                                                                                    \
  [[gnu::flatten]] void NAME##_baseline(std::uint64_t f, std::uint64_t c, const scan_plan& p,          \
                                        std::vector<std::uint64_t>& o) {                               \
    scan<LANES>(f, c, p, o);                                                                           \
  }
#else
#define FAIRDECK_SCANNERS(NAME, LANES)                                                                 \
  [[gnu::flatten]] void NAME##_baseline(std::uint64_t f, std::uint64_t c, const scan_plan& p,          \
                                        std::vector<std::uint64_t>& o) {                               \
    scan<LANES>(f, c, p, o);                                                                           \
  }                                                                                                    \
  constexpr auto& NAME##_avx512 = NAME##_baseline;                                                     \
  constexpr auto& NAME##_avx2 = NAME##_baseline;
#endif

FAIRDECK_SCANNERS(delphi, delphi_lanes)
FAIRDECK_SCANNERS(msvc, msvc_lanes)
FAIRDECK_SCANNERS(minstd, minstd_lanes)
FAIRDECK_SCANNERS(glibc, glibc_lanes)
FAIRDECK_SCANNERS(java, java_lanes)
FAIRDECK_SCANNERS(dotnet, dotnet_lanes)
FAIRDECK_SCANNERS(mt19937, mt19937_lanes)
#undef FAIRDECK_SCANNERS

enum class isa { avx512, avx2, baseline };

isa detect() noexcept {
#if !defined(__x86_64__)
  return isa::baseline;  // no x86 kernels built (see FAIRDECK_SCANNERS)
#else
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq"))
    return isa::avx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return isa::avx2;
  return isa::baseline;
#endif
}

isa best() noexcept {
  static const isa found = detect();
  return found;
}

seed_scanner pick(seed_scanner avx512, seed_scanner avx2, seed_scanner baseline) noexcept {
  const isa i = best();
  return i == isa::avx512 ? avx512 : i == isa::avx2 ? avx2 : baseline;
}

}  // namespace

seed_scanner pick_scanner(seed_scanner avx512, seed_scanner avx2, seed_scanner baseline) noexcept {
  return pick(avx512, avx2, baseline);
}

// Out of line (and in another function than the flattened scanners) so allocation code
// stays out of the hot loops.
[[gnu::noinline]] void push_hits(std::vector<std::uint64_t>& out, std::uint64_t first, std::uint64_t hits) {
  while (hits) {
    out.push_back(first + static_cast<unsigned>(__builtin_ctzll(hits)));
    hits &= hits - 1;
  }
}

std::vector<swap_step> swap_steps(shuffle_kind kind, std::size_t n) {
  std::vector<swap_step> steps;
  const auto n32 = static_cast<std::uint32_t>(n);
  switch (kind) {
    case shuffle_kind::asf1999:
      if (n32 >= 2)
        for (std::uint32_t i = 0; i < n32; ++i) steps.push_back({i, n32 - 1});
      break;
    case shuffle_kind::naive:
      for (std::uint32_t i = 0; i < n32; ++i) steps.push_back({i, n32});
      break;
    case shuffle_kind::fisher_yates:
      for (std::uint32_t i = n32; i > 1; --i) steps.push_back({i - 1, i});
      break;
    case shuffle_kind::partial:
    case shuffle_kind::sort:
    case shuffle_kind::riffle:
    case shuffle_kind::overhand:
    case shuffle_kind::cut:
    case shuffle_kind::shelf:
      break;  // not lane-modelled: the attack accepts only the three swap shuffles
  }
  return steps;
}

seed_scanner lane_scanner(engine_id engine, std::size_t step_count, bool hand_tuned) {
  switch (engine) {
    case engine_id::mt19937:
      if (step_count > mt19937_lanes::max_steps) return nullptr;
      return pick(&mt19937_avx512, &mt19937_avx2, &mt19937_baseline);
    case engine_id::delphi:
      return pick(hand_tuned ? &delphi_scan_avx512 : &delphi_avx512, &delphi_avx2, &delphi_baseline);
    case engine_id::msvc_rand: return pick(&msvc_avx512, &msvc_avx2, &msvc_baseline);
    case engine_id::minstd: return pick(&minstd_avx512, &minstd_avx2, &minstd_baseline);
    case engine_id::glibc_rand: return pick(&glibc_avx512, &glibc_avx2, &glibc_baseline);
    case engine_id::java: return pick(&java_avx512, &java_avx2, &java_baseline);
    case engine_id::dotnet: return pick(&dotnet_avx512, &dotnet_avx2, &dotnet_baseline);
    default: return nullptr;
  }
}

const char* lane_isa() noexcept {
  const isa i = best();
  return i == isa::avx512 ? "avx512" : i == isa::avx2 ? "avx2" : "baseline";
}

}  // namespace fairdeck::detail
