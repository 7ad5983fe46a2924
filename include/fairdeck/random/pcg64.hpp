// PCG64 (O'Neill 2014, pcg-cpp's setseq_xsl_rr_128_64) and std::mt19937_64, wrapped as
// move-only fairdeck engines with fairdeck's seeding rules.
#pragma once

#include <cstdint>
#include <random>

#include <pcg_random.hpp>

#include "fairdeck/random/splitmix64.hpp"

namespace fairdeck {

class pcg64 {
 public:
  using result_type = std::uint64_t;

  // 128-bit state from two SplitMix64 outputs of `seed`; `stream` selects the increment.
  explicit pcg64(std::uint64_t seed, std::uint64_t stream = 0) noexcept : g_(make(seed, stream)) {}

  pcg64(const pcg64&) = delete;
  pcg64& operator=(const pcg64&) = delete;
  pcg64(pcg64&&) noexcept = default;
  pcg64& operator=(pcg64&&) noexcept = default;

  static constexpr result_type min() noexcept { return 0; }
  static constexpr result_type max() noexcept { return ~result_type{0}; }
  result_type operator()() noexcept { return g_(); }

 private:
  static ::pcg64 make(std::uint64_t seed, std::uint64_t stream) noexcept {
    splitmix64 sm(seed);
    const pcg_extras::pcg128_t hi = sm(), lo = sm();
    return ::pcg64((hi << 64) | lo, pcg_extras::pcg128_t{stream});
  }
  ::pcg64 g_;
};

// std::mt19937_64 seeded exactly as the standard does with a u64 (for comparisons with
// code that uses <random> directly).
class mt19937_64 {
 public:
  using result_type = std::uint64_t;
  explicit mt19937_64(std::uint64_t seed) : g_(seed) {}
  mt19937_64(const mt19937_64&) = delete;
  mt19937_64& operator=(const mt19937_64&) = delete;
  mt19937_64(mt19937_64&&) noexcept = default;
  mt19937_64& operator=(mt19937_64&&) noexcept = default;
  static constexpr result_type min() noexcept { return 0; }
  static constexpr result_type max() noexcept { return ~result_type{0}; }
  result_type operator()() { return g_(); }

 private:
  std::mt19937_64 g_;
};

}  // namespace fairdeck
