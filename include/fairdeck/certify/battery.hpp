// The certification battery on a stream of integers: an RNG's raw words (values in
// [0, 2^bits)) or its scaled draws (values in [0, range)). One pass, streaming, bounded
// memory; feed() any number of times, results() at the end (or after a stop).
//
// Tests: monobit, runs, longest-run (NIST SP 800-22), lowbit-autocorrelation (HAC §5.4.4),
// frequency, serial-correlation, gap, poker, coupon-collector, permutation (Knuth TAOCP vol.
// 2 §3.3.2) and birthday-spacings (Marsaglia 1985; L'Ecuyer & Simard 2001). Names are stable
// JSON identifiers; the registry in src/certify/battery.cpp lists every test with the source
// of its null law, in report order, and docs/certify.md describes each (what it detects,
// minimum data). Below its minimum a test is `invalid`, never `pass`.
// Bit tests on scaled draws whose range is not a power of two use the indicator
// x < floor(range/2) (its probability is exact), packed 64 to a block.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "fairdeck/certify/result.hpp"
#include "fairdeck/util/run_control.hpp"

namespace fairdeck::certify {

struct stream_spec {
  enum class kind { raw, scaled };
  kind type = kind::raw;
  unsigned bits = 64;       // raw: 8..64
  std::uint64_t range = 0;  // scaled: values in [0, range), range >= 2
  std::string family;       // default "raw" / "scaled"

  [[nodiscard]] static stream_spec raw_words(unsigned bits);  // throws std::invalid_argument
  [[nodiscard]] static stream_spec scaled(std::uint64_t range);
  [[nodiscard]] std::string describe() const;  // "64-bit words", "draws in [0, 52)"
};

struct battery_settings {
  unsigned serial_lags = 16;        // serial-correlation lags 1..k
  unsigned birthday_cell_bits = 60; // log2 of the number of cells k (about)
  // Points per birthday-spacings replicate: n = cbrt(64 k) so lambda = n^3 / 4k = 16, capped here.
  unsigned birthday_max_log2_points = 22;
  // Smaller birthday cells so a run of `values` values has >= 4 replicates (the default
  // 2^60 cells need 2^23 values per replicate).
  [[nodiscard]] static battery_settings for_volume(std::uint64_t values);
};

class battery {
 public:
  explicit battery(stream_spec spec, battery_settings settings = {});
  ~battery();
  battery(battery&&) noexcept;
  battery& operator=(battery&&) noexcept;

  // Values must lie in the stream's range (readers check; out-of-range is undefined here).
  void feed(std::span<const std::uint64_t> values);
  [[nodiscard]] std::uint64_t values() const noexcept;
  [[nodiscard]] const stream_spec& spec() const noexcept;
  // Every test's statistic and p-value (results not decided yet: see decide()).
  [[nodiscard]] std::vector<test_result> results() const;

 private:
  struct impl;
  std::unique_ptr<impl> p_;
};

}  // namespace fairdeck::certify
