// clang 14 libc++: std::shuffle(b, e, std::mt19937(S)) and std::shuffle(b, e,
// std::default_random_engine(S)), emulated so the result is the same under any standard library.
//
// Engines: std::mt19937 (fairdeck::mt19937_32) and libc++'s default_random_engine, which is
// minstd_rand (Park, Miller & Stockmeyer 1993, multiplier 48271, modulus 2^31-1; outputs in
// [1, 2^31-2]; fairdeck::minstd_rand). Both constructors take an unsigned long on LP64:
// mt19937 keeps S mod 2^32, minstd_rand S mod (2^31-1) with 0 replaced by 1.
//
// std::shuffle (__algorithm/shuffle.h) walks from the bottom: position k swaps with
// k + uniform_int_distribution<ptrdiff_t>(0, n-1-k). That distribution (__random/
// uniform_int_distribution.h) draws w = ceil(log2(range)) bits from __independent_bits_engine
// and rejects results >= range. __independent_bits_engine (the algorithm of the standard's
// independent_bits_engine, [rand.adapt.ibits]) splits w bits over n0 draws of w0 bits and
// n - n0 draws of w0 + 1 bits, rejecting raw outputs (minus min()) at or above y0 / y1; its
// masks are computed in the engine's result_type, unsigned long for both engines here.
#include <bit>
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <utility>

#include "fairdeck/random/legacy.hpp"
#include "fairdeck/runtimes/internal/factories.hpp"

namespace fairdeck::runtimes::internal {
namespace {

// __independent_bits_engine<Engine, uint64_t> with Engine::result_type = unsigned long.
template <class G>
class independent_bits {
 public:
  independent_bits(G& g, std::size_t w) : g_(g), w_(w) {
    n_ = w_ / m + (w_ % m != 0);
    w0_ = w_ / n_;
    y0_ = w0_ < wdt ? (rp >> w0_) << w0_ : 0;
    if (rp - y0_ > y0_ / n_) {
      ++n_;
      w0_ = w_ / n_;
      y0_ = w0_ < wdt ? (rp >> w0_) << w0_ : 0;
    }
    n0_ = n_ - w_ % n_;
    y1_ = w0_ < wdt - 1 ? (rp >> (w0_ + 1)) << (w0_ + 1) : 0;
    mask0_ = w0_ > 0 ? ~std::uint64_t{0} >> (edt - w0_) : 0;
    mask1_ = w0_ < edt - 1 ? ~std::uint64_t{0} >> (edt - (w0_ + 1)) : ~std::uint64_t{0};
  }

  std::uint64_t operator()() {
    std::uint64_t s = 0;
    for (std::size_t k = 0; k < n0_; ++k) {
      std::uint64_t u;
      do u = std::uint64_t{g_()} - G::min();
      while (u >= y0_);
      s = w0_ < 64 ? s << w0_ : 0;
      s += u & mask0_;
    }
    for (std::size_t k = n0_; k < n_; ++k) {
      std::uint64_t u;
      do u = std::uint64_t{g_()} - G::min();
      while (u >= y1_);
      s = w0_ < 63 ? s << (w0_ + 1) : 0;
      s += u & mask1_;
    }
    return s;
  }

 private:
  static constexpr std::uint64_t rp = std::uint64_t{G::max()} - G::min() + 1;  // engine range, never 0 here
  static constexpr std::size_t m = std::bit_width(rp) - 1;                     // __log2<rp>: floor(log2(rp))
  static constexpr std::size_t wdt = 64, edt = 64;                              // uint64_t, unsigned long
  G& g_;
  std::size_t w_, w0_ = 0, n_ = 0, n0_ = 0;
  std::uint64_t y0_ = 0, y1_ = 0, mask0_ = 0, mask1_ = 0;
};

// uniform_int_distribution<ptrdiff_t>(0, b)(g) as libc++ 14 computes it, for b >= 1.
template <class G>
std::uint64_t uniform(G& g, std::uint64_t b) {
  const std::uint64_t rp = b + 1;
  std::size_t w = 64 - static_cast<std::size_t>(std::countl_zero(rp)) - 1;
  if ((rp & (std::numeric_limits<std::uint64_t>::max() >> (64 - w))) != 0) ++w;
  independent_bits<G> e(g, w);
  std::uint64_t u;
  do u = e();
  while (u >= rp);
  return u;
}

template <class Engine>
class libcxx_shuffler final : public runtime_shuffler::impl {
 public:
  explicit libcxx_shuffler(Engine&& g) : g_(std::move(g)) {}
  void shuffle(std::span<std::uint32_t> a) override {
    if (a.size() < 2) return;
    for (std::size_t k = 0, d = a.size() - 1; d > 0; ++k, --d) {
      const std::uint64_t i = uniform(g_, d);
      if (i != 0) std::swap(a[k], a[k + i]);
    }
  }

 private:
  Engine g_;
};

}  // namespace

impl_ptr make_libcxx(std::uint64_t seed, bool default_engine) {
  if (default_engine)
    return std::make_unique<libcxx_shuffler<minstd_rand>>(minstd_rand(static_cast<std::uint32_t>(seed % 0x7fffffffu)));
  return std::make_unique<libcxx_shuffler<mt19937_32>>(mt19937_32(static_cast<std::uint32_t>(seed)));
}

}  // namespace fairdeck::runtimes::internal
