// CPython 3.11: random.Random(S).shuffle(x).
//
// Seeding (Modules/_randommodule.c, random_seed): an int seed is replaced by abs(S), split
// into 32-bit words from the least significant end (at least one word, so 0 gives [0]), and
// fed to MT19937's init_by_array (Matsumoto & Nishimura, mt19937ar.c) — not init_genrand, so
// std::mt19937(S) does not reproduce it. shuffle (Lib/random.py) walks from the top:
// for i in reversed(range(1, len(x))): j = _randbelow(i + 1); swap x[i], x[j], and
// _randbelow(n) = _randbelow_with_getrandbits: k = n.bit_length(); draw getrandbits(k) until
// it is below n. getrandbits(k) for k <= 32 is the top k bits of one 32-bit output; for larger
// k it concatenates outputs from the least significant 32-bit word up, the last one shifted.
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "fairdeck/runtimes/internal/factories.hpp"

namespace fairdeck::runtimes::internal {
namespace {

// MT19937 as mt19937ar.c, with init_by_array (which the standard engine does not offer).
class mt19937ar {
 public:
  explicit mt19937ar(std::span<const std::uint32_t> key) {
    init_genrand(19650218u);
    std::size_t i = 1, j = 0;
    for (std::size_t k = std::max<std::size_t>(n, key.size()); k > 0; --k) {
      mt_[i] = (mt_[i] ^ ((mt_[i - 1] ^ (mt_[i - 1] >> 30)) * 1664525u)) + key[j] + static_cast<std::uint32_t>(j);
      if (++i >= n) {
        mt_[0] = mt_[n - 1];
        i = 1;
      }
      if (++j >= key.size()) j = 0;
    }
    for (std::size_t k = n - 1; k > 0; --k) {
      mt_[i] = (mt_[i] ^ ((mt_[i - 1] ^ (mt_[i - 1] >> 30)) * 1566083941u)) - static_cast<std::uint32_t>(i);
      if (++i >= n) {
        mt_[0] = mt_[n - 1];
        i = 1;
      }
    }
    mt_[0] = 0x80000000u;
  }

  std::uint32_t operator()() noexcept {
    if (mti_ >= n) twist();
    std::uint32_t y = mt_[mti_++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    return y ^ (y >> 18);
  }

 private:
  static constexpr std::size_t n = 624, m = 397;

  void init_genrand(std::uint32_t s) noexcept {
    mt_[0] = s;
    for (std::size_t i = 1; i < n; ++i)
      mt_[i] = 1812433253u * (mt_[i - 1] ^ (mt_[i - 1] >> 30)) + static_cast<std::uint32_t>(i);
    mti_ = n;
  }

  void twist() noexcept {
    for (std::size_t k = 0; k < n; ++k) {
      const std::uint32_t y = (mt_[k] & 0x80000000u) | (mt_[(k + 1) % n] & 0x7fffffffu);
      mt_[k] = mt_[(k + m) % n] ^ (y >> 1) ^ ((y & 1u) ? 0x9908b0dfu : 0u);
    }
    mti_ = 0;
  }

  std::array<std::uint32_t, n> mt_{};
  std::size_t mti_ = n;
};

std::vector<std::uint32_t> seed_words(std::uint64_t seed) {
  std::vector<std::uint32_t> key{static_cast<std::uint32_t>(seed)};
  if (seed >> 32) key.push_back(static_cast<std::uint32_t>(seed >> 32));
  return key;
}

class python_shuffle final : public runtime_shuffler::impl {
 public:
  explicit python_shuffle(std::uint64_t seed) : mt_(seed_words(seed)) {}

  void shuffle(std::span<std::uint32_t> x) override {
    for (std::size_t i = x.size() == 0 ? 0 : x.size() - 1; i > 0; --i) std::swap(x[i], x[randbelow(i + 1)]);
  }

 private:
  std::uint64_t randbelow(std::uint64_t bound) {
    const auto k = static_cast<unsigned>(std::bit_width(bound));
    std::uint64_t r = getrandbits(k);
    while (r >= bound) r = getrandbits(k);
    return r;
  }

  // getrandbits(k), 1 <= k <= 64.
  std::uint64_t getrandbits(unsigned k) {
    if (k <= 32) return mt_() >> (32 - k);
    const std::uint64_t low = mt_();
    return low | (std::uint64_t{mt_() >> (64 - k)} << 32);
  }

  mt19937ar mt_;
};

}  // namespace

impl_ptr make_python(std::uint64_t seed) { return std::make_unique<python_shuffle>(seed); }

}  // namespace fairdeck::runtimes::internal
