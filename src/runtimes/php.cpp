// PHP 8.2: mt_srand(S); shuffle($a).
//
// mt_srand takes a PHP int and keeps its low 32 bits (php_mt_srand(uint32_t)); the generator is
// MT19937 with the reference seeding (Matsumoto & Nishimura, init_genrand), so
// fairdeck::mt19937_32 is bit-exact. shuffle() (ext/standard/array.c, php_array_data_shuffle)
// walks from the top: for (n_left = n - 1; n_left > 0; --n_left) swap a[n_left] with
// a[php_mt_rand_range(0, n_left)]. php_mt_rand_range (ext/random/random.c, rand_range32) takes
// one full 32-bit output, masks for a power-of-two range, and otherwise rejects outputs above
// UINT32_MAX - (UINT32_MAX % umax) - 1 before reducing modulo umax (note the "- 1": PHP
// rejects one value more than it needs to; reproduced because it consumes extra outputs).
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <utility>

#include "fairdeck/random/legacy.hpp"
#include "fairdeck/runtimes/internal/factories.hpp"

namespace fairdeck::runtimes::internal {
namespace {

class php_shuffle final : public runtime_shuffler::impl {
 public:
  explicit php_shuffle(std::uint64_t seed) : mt_(static_cast<std::uint32_t>(seed)) {}

  void shuffle(std::span<std::uint32_t> a) override {
    // Past 2^32 elements PHP switches to rand_range64 (two outputs per draw); no PHP array that
    // large fits in memory_limit, so it is refused rather than emulated untested.
    if (a.size() > 0xffffffffu) throw std::invalid_argument("php: shuffle() of more than 2^32-1 elements");
    for (std::size_t n_left = a.size() == 0 ? 0 : a.size() - 1; n_left > 0; --n_left) {
      const std::size_t j = range32(static_cast<std::uint32_t>(n_left));
      if (j != n_left) std::swap(a[n_left], a[j]);
    }
  }

 private:
  // rand_range32(umax): uniform in [0, umax].
  std::uint32_t range32(std::uint32_t umax) {
    std::uint32_t result = mt_();
    if (umax == 0xffffffffu) return result;
    ++umax;
    if ((umax & (umax - 1)) == 0) return result & (umax - 1);
    const std::uint32_t limit = 0xffffffffu - (0xffffffffu % umax) - 1;
    while (result > limit) result = mt_();
    return result % umax;
  }

  mt19937_32 mt_;
};

}  // namespace

impl_ptr make_php(std::uint64_t seed) { return std::make_unique<php_shuffle>(seed); }

}  // namespace fairdeck::runtimes::internal
