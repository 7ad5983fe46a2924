// The battery's tallies (private to src/certify): each sees the whole stream once, in
// order, and turns its counts into a test_result at the end. See certify/battery.hpp.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "fairdeck/certify/battery.hpp"
#include "fairdeck/certify/result.hpp"

namespace fairdeck::certify::detail {

// Bit-level tests on blocks of `block_bits` bits with P(1) = p (raw words: one block per
// word, p = 1/2). Bits are in stream order from the block's most significant bit.
class bit_tests {
 public:
  bit_tests(unsigned block_bits, double p, std::string family);
  void add_block(std::uint64_t block) noexcept;
  void add_blocks(std::span<const std::uint64_t> blocks) noexcept {
    for (std::uint64_t b : blocks) add_block(b);
  }
  void results(std::vector<test_result>& out) const;

 private:
  unsigned m_;
  double p_;
  std::string family_{};
  std::uint64_t mask_;
  std::uint64_t blocks_ = 0, ones_ = 0, transitions_ = 0;
  int last_bit_ = -1;
  std::vector<std::uint64_t> longest_{};  // [longest run of ones in a block]
};

// Lowest bit of each value against itself at fixed lags (HAC §5.4.4 (v), centred).
class lowbit_autocorrelation {
 public:
  lowbit_autocorrelation(double p, std::string family);
  void add(std::span<const std::uint64_t> values);
  void results(std::vector<test_result>& out) const;
  static std::vector<std::uint64_t> lags();

 private:
  void process(bool final);
  double p_;
  std::string family_{};
  std::vector<std::uint64_t> lag_{};
  std::vector<std::uint64_t> bits_{};  // packed, LSB first; bits_[0] is stream word `base_`
  std::uint64_t base_ = 0;           // stream index (in 64-bit words) of bits_[0]
  std::uint64_t pending_ = 0, pending_count_ = 0;
  std::vector<std::uint64_t> next_{};  // per lag: next first-word index to process
  std::vector<std::uint64_t> pairs_, both_, first_, second_;
};

// Value-level tests (Knuth §3.3.2 and birthday spacings).
class value_tests {
 public:
  value_tests(const stream_spec& spec, const battery_settings& settings);
  void add(std::span<const std::uint64_t> values);
  void results(std::vector<test_result>& out) const;

 private:
  struct birthday {
    std::string name{};
    unsigned t = 2;                  // values per point
    std::uint64_t k = 0;             // cells
    std::uint64_t n = 0;             // points per replicate
    unsigned shift = 0, bits = 0;    // raw: cell coordinate = (x >> shift) & (2^bits - 1)
    std::uint64_t radix = 0;         // scaled: cell = sum x_i radix^i
    std::vector<std::uint64_t> points{};
    std::uint64_t partial = 0;
    unsigned partial_count = 0;
    std::uint64_t replicates = 0, collisions = 0;
  };
  void add_one(std::uint64_t x);
  void birthday_add(birthday& b, std::uint64_t x);
  static std::uint64_t birthday_collisions(std::vector<std::uint64_t>& points, std::uint64_t k);
  void frequency_result(std::vector<test_result>& out) const;
  void serial_result(std::vector<test_result>& out) const;
  void knuth_results(std::vector<test_result>& out) const;
  void birthday_results(std::vector<test_result>& out) const;

  stream_spec spec_;
  battery_settings settings_;
  std::string family_{};
  std::uint64_t n_ = 0;
  // frequency
  std::vector<std::uint64_t> freq_{};
  unsigned freq_bytes_ = 0;        // raw: bytes per word counted
  std::uint64_t freq_width_ = 1;   // scaled: values per category
  // serial correlation
  double mean_ = 0, scale_ = 1, var_ = 1;
  std::vector<double> history_;    // ring of the last k centred values
  std::size_t ring_pos_ = 0;
  std::vector<double> lag_sum_, lag_block_;
  std::uint64_t block_count_ = 0;
  // gap
  std::uint64_t gap_limit_ = 0;    // hit: x < gap_limit_
  unsigned gap_cap_ = 0;
  std::uint64_t gap_run_ = 0;
  bool gap_started_ = false;
  std::vector<std::uint64_t> gaps_{};
  // symbols for poker / coupon: symbol = raw ? x >> shift : x / width
  unsigned poker_d_ = 0, coupon_d_ = 0, poker_shift_ = 0, coupon_shift_ = 0;
  std::uint64_t poker_width_ = 0, coupon_width_ = 0;
  std::uint64_t poker_mask_ = 0;
  unsigned poker_fill_ = 0;
  std::vector<std::uint64_t> poker_{};
  std::uint64_t coupon_mask_ = 0, coupon_len_ = 0;
  unsigned coupon_cap_ = 0;
  std::vector<std::uint64_t> coupons_{};
  // permutation
  std::array<std::uint64_t, 5> perm_{};
  unsigned perm_fill_ = 0;
  std::uint64_t perm_ties_ = 0;
  std::vector<std::uint64_t> perms_{};
  // birthday spacings
  std::vector<birthday> birthdays_;
};

// Smallest d in [lo, hi] dividing n, or 0 (largest when `largest`).
[[nodiscard]] unsigned divisor_in(std::uint64_t n, unsigned lo, unsigned hi, bool largest);

}  // namespace fairdeck::certify::detail
