#include "fairdeck/certify/battery.hpp"

#include <bit>
#include <cmath>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

#include "accumulators.hpp"
#include "fairdeck/certify/validity.hpp"

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
  // Never below birthday_min_cell_bits (validity.hpp): there the Poisson law is off.
  for (unsigned b = 60; b >= birthday_min_cell_bits; b -= 2) {
    const double n = std::cbrt(64.0 * std::ldexp(1.0, static_cast<int>(b)));
    s.birthday_cell_bits = b;
    if (8 * n <= static_cast<double>(values)) break;
  }
  return s;
}

namespace detail {

// The battery's tests, in report order: one accumulator each, defined next to the others of
// its kind (battery_bits.cpp, battery_values.cpp, battery_birthday.cpp). A new test is a
// factory there and a row here; the calibration test (tests/certify_test.cpp) covers every
// registered test under the null.
std::unique_ptr<accumulator> make_monobit(const stream_setup&);
std::unique_ptr<accumulator> make_runs(const stream_setup&);
std::unique_ptr<accumulator> make_longest_run(const stream_setup&);
std::unique_ptr<accumulator> make_lowbit_autocorrelation(const stream_setup&);
std::unique_ptr<accumulator> make_frequency(const stream_setup&);
std::unique_ptr<accumulator> make_serial_correlation(const stream_setup&);
std::unique_ptr<accumulator> make_gap(const stream_setup&);
std::unique_ptr<accumulator> make_poker(const stream_setup&);
std::unique_ptr<accumulator> make_coupon_collector(const stream_setup&);
std::unique_ptr<accumulator> make_permutation(const stream_setup&);
std::unique_ptr<accumulator> make_birthday_spacings(const stream_setup&);
std::unique_ptr<accumulator> make_birthday_spacings_low(const stream_setup&);
std::unique_ptr<accumulator> make_lagged_sum(const stream_setup&);
std::unique_ptr<accumulator> make_matrix_rank_32(const stream_setup&);
std::unique_ptr<accumulator> make_matrix_rank_64(const stream_setup&);
std::unique_ptr<accumulator> make_linear_complexity(const stream_setup&);

namespace {
constexpr registration registry[] = {
    // monobit: ones among the bits [NIST SP 800-22 rev. 1a §2.1]
    {input::bit_blocks, make_monobit},
    // runs: runs of equal bits, conditional on the ones [A. Wald & J. Wolfowitz, Ann. Math.
    // Statist. 11, 1940; NIST §2.3]
    {input::bit_blocks, make_runs},
    // longest-run: longest run of ones per block, exact law by DP [NIST §2.4]
    {input::bit_blocks, make_longest_run},
    // lowbit-autocorrelation: lowest bit against itself at lags 1..16 and 2^5..2^20; short
    // low-bit periods (LCGs mod 2^k, Java) [Menezes, van Oorschot, Vanstone, Handbook of
    // Applied Cryptography §5.4.4 (v)]
    {input::values, make_lowbit_autocorrelation},
    // frequency: bytes of raw words, values of scaled draws; Pearson chi2 [Knuth, TAOCP vol. 2,
    // 3rd ed., §3.3.2 A]
    {input::values, make_frequency},
    // serial-correlation: values at lags 1..k, chi2(k) of the k z-scores [Knuth §3.3.2 K]
    {input::values, make_serial_correlation},
    // gap: gaps between values in the lowest eighth [Knuth §3.3.2 C]
    {input::values, make_gap},
    // poker: distinct symbols among 5 [Knuth §3.3.2 D]
    {input::values, make_poker},
    // coupon-collector: segment lengths until all d symbols are seen [Knuth §3.3.2 E]
    {input::values, make_coupon_collector},
    // permutation: relative order of 5 consecutive values, 120 orders [Knuth §3.3.2 F]
    {input::values, make_permutation},
    // birthday-spacings (-low): collisions among spacings of n points in k cells, Poisson(n^3/4k)
    // [Marsaglia 1985; Knuth §3.3.2 J; L'Ecuyer & Simard, "On the performance of birthday
    // spacings tests with certain families of random number generators", Math. Comput.
    // Simul. 55, 2001; TestU01 smarsa_BirthdaySpacings]. Points are pairs of words (t = 2)
    // from the high bits and (raw words wider than a coordinate) from the low bits, or t
    // consecutive scaled draws.
    {input::values, make_birthday_spacings},
    {input::values, make_birthday_spacings_low},
    // lagged-sum: x_i - x_(i-r) -/+ x_(i-s) mod q at lagged-Fibonacci lags, exactly uniform
    // under H0; chi2 summed over the lag pairs [glibc random_r.c; Knuth §3.2.2; Marsaglia &
    // Zaman 1991] (battery_linear.cpp, with the next three)
    {input::values, make_lagged_sum},
    // matrix-rank-32/-64: GF(2) ranks of square bit matrices, exact law [NIST §2.5; Marsaglia;
    // Kovalenko 1972; TestU01 smarsa_MatrixRank]
    {input::bit_blocks, make_matrix_rank_32},
    {input::bit_blocks, make_matrix_rank_64},
    // linear-complexity: Berlekamp–Massey on 1,000-bit blocks, exact law [NIST §2.10;
    // Rueppel 1986; TestU01 scomp_LinearComp]
    {input::bit_blocks, make_linear_complexity},
};
}  // namespace
}  // namespace detail

struct battery::impl {
  stream_spec spec;
  battery_settings settings;
  std::uint64_t n = 0;
  // Every applicable test, in registry order, and which of them read bit blocks.
  std::vector<std::unique_ptr<detail::accumulator>> tests;
  std::vector<detail::accumulator*> by_values, by_blocks;
  // Scaled ranges that are not a power of two: indicator bits packed 64 to a block.
  bool pack = false;
  std::uint64_t half = 0, block = 0;
  unsigned block_fill = 0;
  std::vector<std::uint64_t> packed{};

  static unsigned block_bits(const stream_spec& s) {
    if (s.type == stream_spec::kind::raw) return s.bits;
    if (std::has_single_bit(s.range) && s.range >= 256) return static_cast<unsigned>(std::countr_zero(s.range));
    return 64;
  }
  static double bit_p(const stream_spec& s) {
    if (block_bits(s) != 64 || s.type == stream_spec::kind::raw || (std::has_single_bit(s.range) && s.range >= 256))
      return 0.5;
    return static_cast<double>(s.range / 2) / static_cast<double>(s.range);
  }
  static double low_p(const stream_spec& s) {
    if (s.type == stream_spec::kind::raw) return 0.5;
    return static_cast<double>(s.range / 2) / static_cast<double>(s.range);  // odd values among [0, range)
  }

  impl(stream_spec s, const battery_settings& set) : spec(std::move(s)), settings(set) {
    const bool raw = spec.type == stream_spec::kind::raw;
    const detail::stream_setup setup{.spec = spec,
                                     .settings = settings,
                                     .raw = raw,
                                     .range = raw ? std::ldexp(1.0, static_cast<int>(spec.bits))
                                                  : static_cast<double>(spec.range),
                                     .block_bits = block_bits(spec),
                                     .block_p = bit_p(spec),
                                     .low_p = low_p(spec)};
    for (const auto& r : detail::registry) {
      auto t = r.make(setup);
      if (!t) continue;
      (r.reads == detail::input::bit_blocks ? by_blocks : by_values).push_back(t.get());
      tests.push_back(std::move(t));
    }
    pack = spec.type == stream_spec::kind::scaled && !(std::has_single_bit(spec.range) && spec.range >= 256);
    half = spec.range / 2;
  }
};

battery::battery(stream_spec spec, battery_settings settings) {
  if (spec.family.empty()) spec.family = spec.type == stream_spec::kind::raw ? "raw" : "scaled";
  if (spec.type == stream_spec::kind::raw)
    (void)stream_spec::raw_words(spec.bits);
  else
    (void)stream_spec::scaled(spec.range);
  p_ = std::make_unique<impl>(std::move(spec), settings);
}
battery::~battery() = default;
battery::battery(battery&&) noexcept = default;
battery& battery::operator=(battery&&) noexcept = default;

void battery::feed(std::span<const std::uint64_t> v) {
  impl& s = *p_;
  std::span<const std::uint64_t> blocks = v;
  if (s.pack) {
    // Indicator x < floor(range/2), most significant bit first within a block.
    s.packed.clear();
    for (std::uint64_t x : v) {
      s.block = (s.block << 1) | (x < s.half ? 1u : 0u);
      if (++s.block_fill == 64) {
        s.packed.push_back(s.block);
        s.block = 0;
        s.block_fill = 0;
      }
    }
    blocks = s.packed;
  }
  for (auto* t : s.by_blocks) t->add(blocks);
  for (auto* t : s.by_values) t->add(v);
  s.n += v.size();
}

std::uint64_t battery::values() const noexcept { return p_->n; }
const stream_spec& battery::spec() const noexcept { return p_->spec; }

std::vector<test_result> battery::results() const {
  std::vector<test_result> out;
  for (const auto& t : p_->tests) t->results(out);
  return out;
}

}  // namespace fairdeck::certify
