// g++ 12 libstdc++: std::shuffle(b, e, std::mt19937(S)) and std::shuffle(b, e,
// std::default_random_engine(S)), emulated so the result is the same under any standard library.
//
// Engines: std::mt19937 is fully specified by the standard (fairdeck::mt19937_32);
// libstdc++'s default_random_engine is minstd_rand0 (Park & Miller 1988, multiplier 16807,
// modulus 2^31-1, outputs in [1, 2^31-2]; fairdeck::minstd_rand0). Both constructors take an
// unsigned long on LP64: mt19937 keeps S mod 2^32, the LCG S mod (2^31-1) with 0 replaced by 1.
//
// std::shuffle (bits/stl_algo.h) walks from the bottom. When the engine's range R = max - min
// satisfies R / n >= n it draws two swap positions per call (__gen_two_uniform_ints: one
// uniform x in [0, (i+1)(i+2)) gives x / (i+2) and x % (i+2)), after one single draw in [0, 1]
// when n is even; otherwise one uniform_int_distribution draw in [0, i] per position.
// uniform_int_distribution<unsigned long> (bits/uniform_int_dist.h) downscales a 32-bit engine
// with Lemire's nearly divisionless method (Lemire 2019, "Fast Random Integer Generation in
// an Interval", ACM TOMACS 29(1)), any other engine by rejection above a multiple of the
// range and one division, and upscales by recursion for ranges wider than the engine's.
#include <cstdint>
#include <memory>
#include <span>
#include <utility>

#include "fairdeck/random/legacy.hpp"
#include "fairdeck/runtimes/internal/factories.hpp"

namespace fairdeck::runtimes::internal {
namespace {

// uniform_int_distribution<unsigned long>{a, b}(g) as libstdc++ 12 computes it.
template <class G>
std::uint64_t uniform(G& g, std::uint64_t a, std::uint64_t b) {
  constexpr std::uint64_t urngmin = G::min(), urngrange = std::uint64_t{G::max()} - G::min();
  const std::uint64_t urange = b - a;
  std::uint64_t ret;
  if (urngrange > urange) {
    const std::uint64_t uerange = urange + 1;
    if constexpr (urngrange == 0xffffffffu) {
      // _S_nd<uint64_t>(g, uint32_t(uerange)): Lemire's method.
      const auto range = static_cast<std::uint32_t>(uerange);
      std::uint64_t product = std::uint64_t{g()} * range;
      auto low = static_cast<std::uint32_t>(product);
      if (low < range) {
        const std::uint32_t threshold = static_cast<std::uint32_t>(-range) % range;
        while (low < threshold) {
          product = std::uint64_t{g()} * range;
          low = static_cast<std::uint32_t>(product);
        }
      }
      ret = product >> 32;
    } else {
      const std::uint64_t scaling = urngrange / uerange, past = uerange * scaling;
      do ret = std::uint64_t{g()} - urngmin;
      while (ret >= past);
      ret /= scaling;
    }
  } else if (urngrange < urange) {
    std::uint64_t tmp;
    do {
      constexpr std::uint64_t uerngrange = urngrange + 1;
      tmp = uerngrange * uniform(g, 0, urange / uerngrange);
      ret = tmp + (std::uint64_t{g()} - urngmin);
    } while (ret > urange || ret < tmp);
  } else {
    ret = std::uint64_t{g()} - urngmin;
  }
  return ret + a;
}

template <class G>
void libstdcxx_shuffle(G& g, std::span<std::uint32_t> a) {
  if (a.empty()) return;
  constexpr std::uint64_t urngrange = std::uint64_t{G::max()} - G::min();
  const std::uint64_t urange = a.size();
  std::size_t i = 1;
  if (urngrange / urange >= urange) {
    if (urange % 2 == 0) {
      std::swap(a[i], a[uniform(g, 0, 1)]);
      ++i;
    }
    while (i != a.size()) {
      const std::uint64_t swap_range = i + 1;
      const std::uint64_t x = uniform(g, 0, swap_range * (swap_range + 1) - 1);
      std::swap(a[i++], a[x / (swap_range + 1)]);
      std::swap(a[i++], a[x % (swap_range + 1)]);
    }
    return;
  }
  for (; i != a.size(); ++i) std::swap(a[i], a[uniform(g, 0, i)]);
}

template <class Engine>
class libstdcxx_shuffler final : public runtime_shuffler::impl {
 public:
  explicit libstdcxx_shuffler(Engine&& g) : g_(std::move(g)) {}
  void shuffle(std::span<std::uint32_t> a) override { libstdcxx_shuffle(g_, a); }

 private:
  Engine g_;
};

}  // namespace

impl_ptr make_libstdcxx(std::uint64_t seed, bool default_engine) {
  if (default_engine)  // the unsigned long seed is kept mod 2^31-1 (0 becomes 1)
    return std::make_unique<libstdcxx_shuffler<minstd_rand0>>(minstd_rand0(static_cast<std::uint32_t>(seed % 0x7fffffffu)));
  return std::make_unique<libstdcxx_shuffler<mt19937_32>>(mt19937_32(static_cast<std::uint32_t>(seed)));
}

}  // namespace fairdeck::runtimes::internal
