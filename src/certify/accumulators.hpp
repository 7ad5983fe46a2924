// The battery's tallies (private to src/certify): one accumulator per test. Each sees the
// whole stream once, in order, and turns its counts into test_results at the end. The
// battery (battery.cpp) builds them from its registry, feeds them and collects the results in
// registry order. See certify/battery.hpp for the tests and their sources.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "fairdeck/certify/battery.hpp"
#include "fairdeck/certify/result.hpp"

namespace fairdeck::certify::detail {

// One test's state. `add` takes the stream in order, in spans of any size: values, or for
// the bit tests (registered as input::bit_blocks) blocks of `stream_setup::block_bits` bits
// with P(1) = block_p, most significant bit first. `results` appends the test's result(s)
// and does not change the state (a battery may report, read on, and report again).
class accumulator {
 public:
  virtual ~accumulator() = default;
  virtual void add(std::span<const std::uint64_t> data) = 0;
  virtual void results(std::vector<test_result>& out) const = 0;
};

// What a test needs to know about the stream, computed once by the battery.
struct stream_setup {
  const stream_spec& spec;
  const battery_settings& settings;
  bool raw = true;           // raw words (spec.bits) or scaled draws in [0, spec.range)
  double range = 0;          // 2^bits or the scaled range, as a double
  unsigned block_bits = 64;  // bit tests: bits per block
  double block_p = 0.5;      // bit tests: P(1) of each bit of a block
  double low_p = 0.5;        // P(lowest bit of a value = 1)
};

enum class input { values, bit_blocks };

// A test in the battery's registry: what it reads and how to build it (nullptr: the test
// does not apply to this stream and reports nothing, e.g. birthday-spacings-low on a stream
// whose words are no wider than the points' coordinates).
struct registration {
  input reads;
  std::unique_ptr<accumulator> (*make)(const stream_setup&);
};

// Smallest d in [lo, hi] dividing n, or 0 (largest when `largest`).
[[nodiscard]] unsigned divisor_in(std::uint64_t n, unsigned lo, unsigned hi, bool largest);

}  // namespace fairdeck::certify::detail
