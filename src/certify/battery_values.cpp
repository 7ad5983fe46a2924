// Value-level tests: frequency, serial correlation, gap, poker, coupon collector,
// permutation (Knuth TAOCP vol. 2 §3.3.2) and birthday spacings. See certify/battery.hpp.
#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include "accumulators.hpp"
#include "fairdeck/certify/null_laws.hpp"
#include "fairdeck/stats/tests.hpp"

namespace fairdeck::certify::detail {
namespace {

constexpr unsigned serial_block = 1u << 16;
constexpr std::uint64_t min_groups = 200;

// LSD radix sort with 11-bit digits over the low `key_bits` bits (keys < 2^key_bits).
// Linear time; the birthday test sorts 2^22 keys twice per replicate.
void radix_sort(std::vector<std::uint64_t>& keys, unsigned key_bits, std::vector<std::uint64_t>& scratch) {
  constexpr unsigned digit = 11, buckets = 1u << digit;
  scratch.resize(keys.size());
  for (unsigned shift = 0; shift < key_bits; shift += digit) {
    std::array<std::size_t, buckets + 1> count{};
    for (std::uint64_t k : keys) ++count[((k >> shift) & (buckets - 1)) + 1];
    for (unsigned b = 0; b < buckets; ++b) count[b + 1] += count[b];
    for (std::uint64_t k : keys) scratch[count[(k >> shift) & (buckets - 1)]++] = k;
    keys.swap(scratch);
  }
}

unsigned bits_for(std::uint64_t k) { return static_cast<unsigned>(std::bit_width(k)); }

}  // namespace

unsigned divisor_in(std::uint64_t n, unsigned lo, unsigned hi, bool largest) {
  unsigned found = 0;
  for (unsigned d = lo; d <= hi; ++d)
    if (n % d == 0) {
      found = d;
      if (!largest) break;
    }
  return found;
}

value_tests::value_tests(const stream_spec& spec, const battery_settings& settings)
    : spec_(spec), settings_(settings), family_(spec.family) {
  const bool raw = spec.type == stream_spec::kind::raw;
  const double range = raw ? std::ldexp(1.0, static_cast<int>(spec.bits)) : static_cast<double>(spec.range);
  // frequency
  if (raw) {
    freq_bytes_ = spec.bits / 8;
    freq_.assign(256, 0);
  } else {
    const std::uint64_t k = std::min<std::uint64_t>(spec.range, 1u << 16);
    freq_width_ = spec.range / k + (spec.range % k ? 1 : 0);
    freq_.assign(spec.range / freq_width_ + (spec.range % freq_width_ ? 1 : 0), 0);
  }
  // serial correlation: V = (x - (R-1)/2) / R has variance (1 - 1/R^2) / 12.
  const unsigned k = std::clamp(settings.serial_lags, 1u, 64u);
  mean_ = (range - 1) / 2;
  scale_ = 1 / range;
  var_ = (1 - 1 / (range * range)) / 12;
  history_.assign(std::bit_ceil(k), 0.0);
  lag_sum_.assign(k, 0.0);
  lag_block_.assign(k, 0.0);
  // gap: hits in the lowest eighth (exact share for scaled ranges)
  double p = 0.125;
  if (raw) {
    gap_limit_ = std::uint64_t{1} << (spec.bits - 3);
  } else {
    gap_limit_ = std::max<std::uint64_t>(1, spec.range / 8);
    p = static_cast<double>(gap_limit_) / range;
  }
  gap_cap_ = p >= 1 ? 1 : static_cast<unsigned>(std::min(4096.0, std::ceil(std::log(1e-12) / std::log1p(-p))));
  gaps_.assign(gap_cap_ + 1, 0);
  // poker (d <= 16) and coupon collector (d <= 8) symbols
  if (raw) {
    poker_d_ = 16, poker_shift_ = spec.bits - 4;
    coupon_d_ = 8, coupon_shift_ = spec.bits - 3;
  } else {
    poker_d_ = divisor_in(spec.range, 2, 16, true);
    if (poker_d_ == 0 && spec.range <= 64) poker_d_ = static_cast<unsigned>(spec.range);
    coupon_d_ = divisor_in(spec.range, 2, 8, true);
    if (coupon_d_ == 0 && spec.range <= 64) coupon_d_ = static_cast<unsigned>(spec.range);
    if (poker_d_) poker_width_ = spec.range / poker_d_;
    if (coupon_d_) coupon_width_ = spec.range / coupon_d_;
  }
  poker_.assign(6, 0);
  if (coupon_d_) {
    coupon_cap_ = static_cast<unsigned>(std::ceil(coupon_d_ * (std::log(coupon_d_) + 10)));
    coupons_.assign(coupon_cap_ - coupon_d_ + 1, 0);
  }
  perms_.assign(120, 0);
  // birthday spacings
  const unsigned cell_bits = std::clamp(settings.birthday_cell_bits, 12u, 62u);
  auto points_for = [&](std::uint64_t cells) {
    const double n = std::floor(std::cbrt(64.0 * static_cast<double>(cells)));
    return static_cast<std::uint64_t>(std::min(n, std::ldexp(1.0, static_cast<int>(settings.birthday_max_log2_points))));
  };
  if (raw) {
    const unsigned s = std::min(spec.bits, cell_bits / 2);
    birthday hi{.name = "birthday-spacings", .t = 2, .k = std::uint64_t{1} << (2 * s), .n = 0, .shift = spec.bits - s,
                .bits = s};
    hi.n = points_for(hi.k);
    birthdays_.push_back(hi);
    if (spec.bits > s) {
      birthday lo = hi;
      lo.name = "birthday-spacings-low";
      lo.shift = 0;
      birthdays_.push_back(lo);
    }
  } else {
    const double log2r = std::log2(range);
    unsigned t = std::max(1u, static_cast<unsigned>(std::floor(cell_bits / log2r)));
    if (log2r * t <= 62.5) {
      std::uint64_t cells = 1;
      for (unsigned i = 0; i < t; ++i) cells *= spec.range;
      birthday b{.name = "birthday-spacings", .t = t, .k = cells, .n = points_for(cells), .radix = spec.range};
      birthdays_.push_back(b);
    }
  }
  for (auto& b : birthdays_) b.points.reserve(b.n);
}

void value_tests::birthday_add(birthday& b, std::uint64_t x) {
  if (b.radix) {
    b.partial = b.partial * b.radix + x;
  } else {
    b.partial = (b.partial << b.bits) | ((x >> b.shift) & ((std::uint64_t{1} << b.bits) - 1));
  }
  if (++b.partial_count < b.t) return;
  b.points.push_back(b.partial);
  b.partial = 0;
  b.partial_count = 0;
  if (b.points.size() == b.n) {
    b.collisions += birthday_collisions(b.points, b.k);
    ++b.replicates;
    b.points.clear();
  }
}

std::uint64_t value_tests::birthday_collisions(std::vector<std::uint64_t>& y, std::uint64_t k) {
  static thread_local std::vector<std::uint64_t> scratch;
  const unsigned kb = bits_for(k);
  radix_sort(y, kb, scratch);
  // Spacings S_j = y_(j+1) - y_(j), and S_n = y_(1) + k - y_(n) (Knuth §3.3.2 J).
  const std::uint64_t wrap = y.front() + k - y.back();
  for (std::size_t j = 0; j + 1 < y.size(); ++j) y[j] = y[j + 1] - y[j];
  y.back() = wrap;
  radix_sort(y, kb, scratch);
  std::uint64_t equal = 0;
  for (std::size_t j = 1; j < y.size(); ++j) equal += y[j] == y[j - 1];
  return equal;
}

void value_tests::add_one(std::uint64_t x) {
  const bool raw = spec_.type == stream_spec::kind::raw;
  // frequency
  if (raw) {
    for (unsigned b = 0; b < freq_bytes_; ++b) ++freq_[(x >> (8 * b)) & 0xff];
  } else {
    ++freq_[x / freq_width_];
  }
  // serial correlation (lags 1..k over a ring of the last values)
  const double v = (static_cast<double>(x) - mean_) * scale_;
  const std::size_t mask = history_.size() - 1, k = lag_sum_.size();
  const std::size_t have = static_cast<std::size_t>(std::min<std::uint64_t>(n_, k));
  for (std::size_t lag = 1; lag <= have; ++lag) lag_block_[lag - 1] += v * history_[(ring_pos_ - lag) & mask];
  history_[ring_pos_ & mask] = v;
  ++ring_pos_;
  if (++block_count_ == serial_block) {
    for (std::size_t i = 0; i < k; ++i) lag_sum_[i] += lag_block_[i], lag_block_[i] = 0;
    block_count_ = 0;
  }
  // gap
  if (x < gap_limit_) {
    if (gap_started_) ++gaps_[std::min<std::uint64_t>(gap_run_, gap_cap_)];
    gap_started_ = true;
    gap_run_ = 0;
  } else {
    ++gap_run_;
  }
  // poker: distinct symbols among 5 consecutive (non-overlapping groups); d <= 64
  if (poker_d_) {
    poker_mask_ |= std::uint64_t{1} << (raw ? x >> poker_shift_ : x / poker_width_);
    if (++poker_fill_ == 5) {
      ++poker_[static_cast<unsigned>(std::popcount(poker_mask_))];
      poker_mask_ = 0;
      poker_fill_ = 0;
    }
  }
  // permutation: relative order of 5 consecutive values (non-overlapping); ties discarded,
  // which keeps the 120 orders equally likely (exchangeability).
  perm_[perm_fill_] = x;
  if (++perm_fill_ == 5) {
    perm_fill_ = 0;
    unsigned code = 0;
    bool tie = false;
    for (unsigned i = 0; i < 5; ++i) {
      unsigned smaller = 0;
      for (unsigned j = i + 1; j < 5; ++j) {
        smaller += perm_[j] < perm_[i];
        tie |= perm_[j] == perm_[i];
      }
      code = code * (5 - i) + smaller;
    }
    if (tie)
      ++perm_ties_;
    else
      ++perms_[code];
  }
  // coupon collector
  if (coupon_d_) {
    const std::uint64_t s = raw ? x >> coupon_shift_ : x / coupon_width_;
    coupon_mask_ |= std::uint64_t{1} << s;
    ++coupon_len_;
    if (static_cast<unsigned>(std::popcount(coupon_mask_)) == coupon_d_ || coupon_len_ == coupon_cap_) {
      ++coupons_[std::min<std::uint64_t>(coupon_len_, coupon_cap_) - coupon_d_];
      coupon_mask_ = 0;
      coupon_len_ = 0;
    }
  }
  // birthday spacings
  for (auto& b : birthdays_) birthday_add(b, x);
  ++n_;
}

void value_tests::add(std::span<const std::uint64_t> values) {
  for (std::uint64_t x : values) add_one(x);
}


void value_tests::frequency_result(std::vector<test_result>& out) const {
  const bool raw = spec_.type == stream_spec::kind::raw;
  const std::uint64_t n = std::accumulate(freq_.begin(), freq_.end(), std::uint64_t{0});
  std::vector<double> null(freq_.size());
  if (raw) {
    std::fill(null.begin(), null.end(), 1.0 / 256);
  } else {
    for (std::size_t c = 0; c < null.size(); ++c) {
      const std::uint64_t lo = c * freq_width_, hi = std::min(spec_.range, lo + freq_width_);
      null[c] = static_cast<double>(hi - lo) / static_cast<double>(spec_.range);
    }
  }
  const double pmin = *std::min_element(null.begin(), null.end());
  test_result r{.name = "frequency", .family = family_,
                .description = raw ? fmt::format("how often each byte value occurs ({} low bytes of each word)", freq_bytes_)
                               : freq_width_ == 1 ? std::string("how often each value occurs")
                                                  : fmt::format("how often each block of {} values occurs", freq_width_),
                .reference = "Pearson chi-square against the uniform law (Knuth §3.3.2 A)",
                .distribution = "chi2", .sample = n,
                .min_sample = static_cast<std::uint64_t>(std::ceil(5 / pmin)),
                .unit = raw ? "bytes" : "values"};
  if (n < r.min_sample) {
    out.push_back(invalid(std::move(r), "fewer than 5 expected per category"));
    return;
  }
  chi2_against(r, std::vector<double>(freq_.begin(), freq_.end()), null);
  r.note = fmt::format("{} categories", freq_.size());
  out.push_back(std::move(r));
}

void value_tests::serial_result(std::vector<test_result>& out) const {
  const std::size_t k = lag_sum_.size();
  test_result r{.name = "serial-correlation", .family = family_,
                .description = fmt::format("correlation between values 1..{} apart", k),
                .reference = "Knuth §3.3.2 K; z_L = sum V_i V_(i+L) / (sqrt(n - L) var), sum of z^2 ~ chi2(k)",
                .distribution = "chi2", .sample = n_, .min_sample = 1000 + k, .unit = "values"};
  if (n_ < r.min_sample) {
    out.push_back(invalid(std::move(r), fmt::format("fewer than {} values", r.min_sample)));
    return;
  }
  double x2 = 0, worst = 0;
  std::size_t worst_lag = 0;
  for (std::size_t i = 0; i < k; ++i) {
    const double m = static_cast<double>(n_ - (i + 1));
    const double z = (lag_sum_[i] + lag_block_[i]) / (std::sqrt(m) * var_);
    x2 += z * z;
    if (std::abs(z) > worst) worst = std::abs(z), worst_lag = i + 1;
  }
  r.statistic = x2;
  r.df = static_cast<double>(k);
  r.p_value = stats::chi2_upper(x2, *r.df);
  r.note = fmt::format("largest |z| = {:.2f} at lag {} (correlation {:.3g})", worst, worst_lag,
                       worst / std::sqrt(static_cast<double>(n_)));
  r.effect = effect_kind::chi2;
  r.effect_n = static_cast<double>(n_);
  r.effect_unit = "serial correlation at one lag";
  out.push_back(std::move(r));
}

void value_tests::knuth_results(std::vector<test_result>& out) const {
  const double range = spec_.type == stream_spec::kind::raw ? std::ldexp(1.0, static_cast<int>(spec_.bits))
                                                            : static_cast<double>(spec_.range);
  {
    const std::uint64_t gaps = std::accumulate(gaps_.begin(), gaps_.end(), std::uint64_t{0});
    const double p = static_cast<double>(gap_limit_) / range;
    test_result r{.name = "gap", .family = family_,
                  .description = fmt::format("gaps between values below {} (share {:.4g})", gap_limit_, p),
                  .reference = "Knuth §3.3.2 C; geometric law, pooled chi-square", .distribution = "chi2",
                  .sample = gaps, .min_sample = min_groups, .unit = "gaps"};
    if (gaps < min_groups || !(p < 1))
      out.push_back(invalid(std::move(r), p < 1 ? "fewer than 200 gaps" : "every value is a hit (range too small)"));
    else
      chi2_against(r, std::vector<double>(gaps_.begin(), gaps_.end()), gap_law(p, gap_cap_)), out.push_back(std::move(r));
  }
  {
    const std::uint64_t groups = std::accumulate(poker_.begin(), poker_.end(), std::uint64_t{0});
    test_result r{.name = "poker", .family = family_,
                  .description = fmt::format("distinct symbols among 5 consecutive values, alphabet of {}", poker_d_),
                  .reference = "Knuth §3.3.2 D (distinct-value form), exact law", .distribution = "chi2",
                  .sample = groups, .min_sample = min_groups, .unit = "groups of 5"};
    if (!poker_d_)
      out.push_back(invalid(std::move(r), "the range has no divisor in 2..16 and exceeds 64: no uniform alphabet"));
    else if (groups < min_groups)
      out.push_back(invalid(std::move(r), "fewer than 200 groups"));
    else
      chi2_against(r, std::vector<double>(poker_.begin(), poker_.end()), distinct_law(poker_d_, 5)),
          out.push_back(std::move(r));
  }
  {
    const std::uint64_t segs = std::accumulate(coupons_.begin(), coupons_.end(), std::uint64_t{0});
    test_result r{.name = "coupon-collector", .family = family_,
                  .description = fmt::format("values needed to see all {} symbols", coupon_d_),
                  .reference = "Knuth §3.3.2 E, exact law by dynamic programming", .distribution = "chi2",
                  .sample = segs, .min_sample = min_groups, .unit = "segments"};
    if (!coupon_d_)
      out.push_back(invalid(std::move(r), "the range has no divisor in 2..8 and exceeds 64: no uniform alphabet"));
    else if (segs < min_groups)
      out.push_back(invalid(std::move(r), "fewer than 200 segments"));
    else
      chi2_against(r, std::vector<double>(coupons_.begin(), coupons_.end()), coupon_law(coupon_d_, coupon_cap_)),
          out.push_back(std::move(r));
  }
  {
    const std::uint64_t groups = std::accumulate(perms_.begin(), perms_.end(), std::uint64_t{0});
    test_result r{.name = "permutation", .family = family_,
                  .description = "relative order of 5 consecutive values (120 orders; groups with ties left out)",
                  .reference = "Knuth §3.3.2 F; uniform over 5! orders", .distribution = "chi2",
                  .sample = groups, .min_sample = 600, .unit = "groups of 5"};
    if (groups < r.min_sample) {
      out.push_back(invalid(std::move(r), "fewer than 600 groups without ties (5 per order)"));
    } else {
      chi2_against(r, std::vector<double>(perms_.begin(), perms_.end()), std::vector<double>(120, 1.0 / 120));
      r.note = fmt::format("{} groups with ties left out", perm_ties_);
      out.push_back(std::move(r));
    }
  }
}

void value_tests::birthday_results(std::vector<test_result>& out) const {
  for (const auto& b : birthdays_) {
    const double n = static_cast<double>(b.n), k = static_cast<double>(b.k);
    const double lambda = n * n * n / (4 * k), total = lambda * static_cast<double>(b.replicates);
    test_result r{.name = b.name, .family = family_,
                  .description = b.radix ? fmt::format("equal spacings among {} points of {} consecutive values "
                                                       "(k = {:.3g} cells)", b.n, b.t, k)
                                         : fmt::format("equal spacings among {} points from {} bits of 2 consecutive "
                                                       "values ({} bits; k = 2^{} cells)", b.n, b.bits,
                                                       b.shift ? "high" : "low", 2 * b.bits),
                  .reference = "Marsaglia 1985; Knuth §3.3.2 J; L'Ecuyer & Simard 2001: collisions ~ Poisson(n^3/4k) "
                               "per replicate, upper tail",
                  .distribution = "poisson", .sample = b.replicates, .min_sample = 1, .unit = "replicates"};
    if (b.replicates == 0) {
      out.push_back(invalid(std::move(r), fmt::format("needs {} values for one replicate", b.n * b.t)));
      continue;
    }
    r.statistic = static_cast<double>(b.collisions);
    r.p_value = poisson_upper_tail(r.statistic, total);
    r.note = fmt::format("{} collisions, {:.1f} expected (lambda = {:.3g} per replicate)", b.collisions, total, lambda);
    r.effect = effect_kind::poisson_rate;
    r.effect_n = total;
    r.null_rate = total;
    out.push_back(std::move(r));
  }
}

void value_tests::results(std::vector<test_result>& out) const {
  frequency_result(out);
  serial_result(out);
  knuth_results(out);
  birthday_results(out);
}

}  // namespace fairdeck::certify::detail
