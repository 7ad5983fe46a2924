#include "fairdeck/certify/battery.hpp"

#include <bit>
#include <cmath>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

#include "accumulators.hpp"

namespace fairdeck::certify {

stream_spec stream_spec::raw_words(unsigned bits) {
  if (bits < 8 || bits > 64) throw std::invalid_argument(fmt::format("word size must be 8..64 bits, not {}", bits));
  return {kind::raw, bits, 0, "raw"};
}

stream_spec stream_spec::scaled(std::uint64_t range) {
  if (range < 2) throw std::invalid_argument(fmt::format("the range must be at least 2, not {}", range));
  return {kind::scaled, 0, range, "scaled"};
}

std::string stream_spec::describe() const {
  return type == kind::raw ? fmt::format("{}-bit words", bits) : fmt::format("draws in [0, {})", range);
}

battery_settings battery_settings::for_volume(std::uint64_t values) {
  battery_settings s;
  // Largest even cell count 2^b (b <= 60) whose replicate (2 n values, n = cbrt(64 * 2^b))
  // fits 4 times into `values`.
  for (unsigned b = 60; b >= 12; b -= 2) {
    const double n = std::cbrt(64.0 * std::ldexp(1.0, static_cast<int>(b)));
    s.birthday_cell_bits = b;
    if (8 * n <= static_cast<double>(values)) break;
  }
  return s;
}

struct battery::impl {
  stream_spec spec;
  std::uint64_t n = 0;
  detail::bit_tests bits;
  detail::lowbit_autocorrelation lowbit;
  detail::value_tests values;
  // Scaled ranges that are not a power of two: indicator bits packed 64 to a block.
  bool pack = false;
  std::uint64_t half = 0, block = 0;
  unsigned block_fill = 0;

  static unsigned block_bits(const stream_spec& s) {
    if (s.type == stream_spec::kind::raw) return s.bits;
    if (std::has_single_bit(s.range) && s.range >= 256) return static_cast<unsigned>(std::countr_zero(s.range));
    return 64;
  }
  static double bit_p(const stream_spec& s) {
    if (block_bits(s) != 64 || s.type == stream_spec::kind::raw ||
        (std::has_single_bit(s.range) && s.range >= 256))
      return 0.5;
    return static_cast<double>(s.range / 2) / static_cast<double>(s.range);
  }
  static double low_p(const stream_spec& s) {
    if (s.type == stream_spec::kind::raw) return 0.5;
    return static_cast<double>(s.range / 2) / static_cast<double>(s.range);  // odd values among [0, range)
  }

  impl(stream_spec s, const battery_settings& settings)
      : spec(std::move(s)), bits(block_bits(spec), bit_p(spec), spec.family), lowbit(low_p(spec), spec.family),
        values(spec, settings) {
    pack = spec.type == stream_spec::kind::scaled && !(std::has_single_bit(spec.range) && spec.range >= 256);
    half = spec.range / 2;
  }
};

battery::battery(stream_spec spec, battery_settings settings) {
  if (spec.family.empty()) spec.family = spec.type == stream_spec::kind::raw ? "raw" : "scaled";
  if (spec.type == stream_spec::kind::raw) (void)stream_spec::raw_words(spec.bits);
  else (void)stream_spec::scaled(spec.range);
  p_ = std::make_unique<impl>(std::move(spec), settings);
}
battery::~battery() = default;
battery::battery(battery&&) noexcept = default;
battery& battery::operator=(battery&&) noexcept = default;

void battery::feed(std::span<const std::uint64_t> v) {
  impl& s = *p_;
  if (s.pack) {
    // Indicator x < floor(range/2), most significant bit first within a block.
    for (std::uint64_t x : v) {
      s.block = (s.block << 1) | (x < s.half ? 1u : 0u);
      if (++s.block_fill == 64) {
        s.bits.add_block(s.block);
        s.block = 0;
        s.block_fill = 0;
      }
    }
  } else {
    s.bits.add_blocks(v);
  }
  s.lowbit.add(v);
  s.values.add(v);
  s.n += v.size();
}

std::uint64_t battery::values() const noexcept { return p_->n; }
const stream_spec& battery::spec() const noexcept { return p_->spec; }

std::vector<test_result> battery::results() const {
  std::vector<test_result> out;
  p_->bits.results(out);
  p_->lowbit.results(out);
  p_->values.results(out);
  return out;
}

}  // namespace fairdeck::certify
