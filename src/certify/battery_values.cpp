// Value-level tests: frequency, serial correlation, gap, poker, coupon collector and
// permutation (Knuth TAOCP vol. 2 §3.3.2 A, K, C, D, E, F). One accumulator per test;
// registered in battery.cpp. See certify/battery.hpp.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include "accumulators.hpp"
#include "fairdeck/certify/null_laws.hpp"
#include "fairdeck/certify/validity.hpp"
#include "fairdeck/stats/tests.hpp"

namespace fairdeck::certify::detail {
namespace {


std::uint64_t total(const std::vector<std::uint64_t>& counts) {
  return std::accumulate(counts.begin(), counts.end(), std::uint64_t{0});
}

// frequency: bytes of raw words, or values (blocks of values for wide ranges) of draws.
class frequency final : public accumulator {
 public:
  explicit frequency(const stream_setup& s) : raw_(s.raw), range_(s.spec.range), family_(s.spec.family) {
    if (raw_) {
      bytes_ = s.spec.bits / 8;
      freq_.assign(256, 0);
    } else {
      const std::uint64_t k = std::min<std::uint64_t>(range_, 1u << 16);
      width_ = range_ / k + (range_ % k ? 1 : 0);
      freq_.assign(range_ / width_ + (range_ % width_ ? 1 : 0), 0);
    }
  }
  void add(std::span<const std::uint64_t> values) override {
    if (raw_) {
      for (std::uint64_t x : values)
        for (unsigned b = 0; b < bytes_; ++b) ++freq_[(x >> (8 * b)) & 0xff];
    } else {
      for (std::uint64_t x : values) ++freq_[x / width_];
    }
  }
  void results(std::vector<test_result>& out) const override {
    const std::uint64_t n = total(freq_);
    std::vector<double> null(freq_.size());
    if (raw_) {
      std::fill(null.begin(), null.end(), 1.0 / 256);
    } else {
      for (std::size_t c = 0; c < null.size(); ++c) {
        const std::uint64_t lo = c * width_, hi = std::min(range_, lo + width_);
        null[c] = static_cast<double>(hi - lo) / static_cast<double>(range_);
      }
    }
    const double pmin = *std::min_element(null.begin(), null.end());
    test_result r{.name = "frequency",
                  .family = family_,
                  .description = raw_ ? fmt::format("how often each byte value occurs ({} low bytes of each word)",
                                                    bytes_)
                                 : width_ == 1 ? std::string("how often each value occurs")
                                               : fmt::format("how often each block of {} values occurs", width_),
                  .reference = "Pearson chi-square against the uniform law (Knuth §3.3.2 A)",
                  .distribution = "chi2",
                  .sample = n,
                  .min_sample = static_cast<std::uint64_t>(std::ceil(min_expected_per_cell / pmin)),
                  .unit = raw_ ? "bytes" : "values"};
    if (n < r.min_sample)
      return out.push_back(invalid(std::move(r), needs(r.min_sample, n, r.unit) + " (5 expected per category)"));
    chi2_against(r, std::vector<double>(freq_.begin(), freq_.end()), null);
    r.note = fmt::format("{} categories", freq_.size());
    out.push_back(std::move(r));
  }

 private:
  bool raw_;
  std::uint64_t range_;
  std::string family_;
  std::vector<std::uint64_t> freq_{};
  unsigned bytes_ = 0;       // raw: bytes per word counted
  std::uint64_t width_ = 1;  // scaled: values per category
};

// serial-correlation: V = (x - (R-1)/2) / R against the values 1..k before it. V has variance
// (1 - 1/R^2) / 12. Products are summed in blocks of 2^16 values (rounding).
class serial_correlation final : public accumulator {
 public:
  explicit serial_correlation(const stream_setup& s) : family_(s.spec.family) {
    const unsigned k = std::clamp(s.settings.serial_lags, 1u, 64u);
    mean_ = (s.range - 1) / 2;
    scale_ = 1 / s.range;
    var_ = (1 - 1 / (s.range * s.range)) / 12;
    history_.assign(std::bit_ceil(k), 0.0);
    lag_sum_.assign(k, 0.0);
    lag_block_.assign(k, 0.0);
  }
  void add(std::span<const std::uint64_t> values) override {
    const std::size_t mask = history_.size() - 1, k = lag_sum_.size();
    for (std::uint64_t x : values) {
      const double v = (static_cast<double>(x) - mean_) * scale_;
      const std::size_t have = static_cast<std::size_t>(std::min<std::uint64_t>(n_, k));
      for (std::size_t lag = 1; lag <= have; ++lag) lag_block_[lag - 1] += v * history_[(ring_pos_ - lag) & mask];
      history_[ring_pos_ & mask] = v;
      ++ring_pos_;
      if (++block_count_ == block) {
        for (std::size_t i = 0; i < k; ++i) lag_sum_[i] += lag_block_[i], lag_block_[i] = 0;
        block_count_ = 0;
      }
      ++n_;
    }
  }
  void results(std::vector<test_result>& out) const override {
    const std::size_t k = lag_sum_.size();
    test_result r{.name = "serial-correlation",
                  .family = family_,
                  .description = fmt::format("correlation between values 1..{} apart", k),
                  .reference = "Knuth §3.3.2 K; z_L = sum V_i V_(i+L) / (sqrt(n - L) var), sum of z^2 ~ chi2(k)",
                  .distribution = "chi2",
                  .sample = n_,
                  .min_sample = validity_of("serial-correlation").min - 16 + k,
                  .unit = "values"};
    if (n_ < r.min_sample) return out.push_back(invalid(std::move(r), needs(r.min_sample, n_, r.unit)));
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

 private:
  static constexpr unsigned block = 1u << 16;
  std::string family_;
  std::uint64_t n_ = 0;
  double mean_ = 0, scale_ = 1, var_ = 1;
  std::vector<double> history_;  // ring of the last k centred values
  std::size_t ring_pos_ = 0;
  std::vector<double> lag_sum_, lag_block_;
  std::uint64_t block_count_ = 0;
};

// gap: gaps between hits, a hit being a value in the lowest eighth (the exact share for
// scaled ranges), against the geometric law; gaps of cap or more pooled.
class gap final : public accumulator {
 public:
  explicit gap(const stream_setup& s) : family_(s.spec.family) {
    limit_ = s.raw ? std::uint64_t{1} << (s.spec.bits - 3) : std::max<std::uint64_t>(1, s.spec.range / 8);
    p_ = static_cast<double>(limit_) / s.range;  // raw: exactly 1/8
    cap_ = p_ >= 1 ? 1 : static_cast<unsigned>(std::min(4096.0, std::ceil(std::log(1e-12) / std::log1p(-p_))));
    gaps_.assign(cap_ + 1, 0);
  }
  void add(std::span<const std::uint64_t> values) override {
    for (std::uint64_t x : values) {
      if (x < limit_) {
        if (started_) ++gaps_[std::min<std::uint64_t>(run_, cap_)];
        started_ = true;
        run_ = 0;
      } else {
        ++run_;
      }
    }
  }
  void results(std::vector<test_result>& out) const override {
    const std::uint64_t gaps = total(gaps_);
    test_result r{.name = "gap",
                  .family = family_,
                  .description = fmt::format("gaps between values below {} (share {:.4g})", limit_, p_),
                  .reference = "Knuth §3.3.2 C; geometric law, pooled chi-square",
                  .distribution = "chi2",
                  .sample = gaps,
                  .min_sample = validity_of("gap").min,
                  .unit = "gaps"};
    if (!(p_ < 1)) return out.push_back(invalid(std::move(r), "every value is a hit (range too small)"));
    if (gaps < r.min_sample) return out.push_back(invalid(std::move(r), needs(r.min_sample, gaps, r.unit)));
    chi2_against(r, std::vector<double>(gaps_.begin(), gaps_.end()), gap_law(p_, cap_));
    out.push_back(std::move(r));
  }

 private:
  std::string family_;
  std::uint64_t limit_ = 0;  // hit: x < limit_
  double p_ = 0;             // limit_ / range, as reported
  unsigned cap_ = 0;
  std::uint64_t run_ = 0;
  bool started_ = false;
  std::vector<std::uint64_t> gaps_{};
};

// A uniform alphabet of d symbols for poker / coupon collector: symbol = raw ? x >> shift
// : x / width. Raw words: the top log2(max_d) bits. Draws: the largest divisor of the range
// in 2..max_d (the range itself when it is at most 64), else none (d = 0).
struct alphabet {
  unsigned d = 0, shift = 0;
  std::uint64_t width = 0;
  bool raw = true;
  alphabet(const stream_setup& s, unsigned log2_max_d) : raw(s.raw) {
    const unsigned max_d = 1u << log2_max_d;
    if (raw) {
      d = max_d, shift = s.spec.bits - log2_max_d;
      return;
    }
    d = divisor_in(s.spec.range, 2, max_d, true);
    if (d == 0 && s.spec.range <= 64) d = static_cast<unsigned>(s.spec.range);
    if (d) width = s.spec.range / d;
  }
  [[nodiscard]] std::uint64_t symbol(std::uint64_t x) const noexcept { return raw ? x >> shift : x / width; }
};

// poker: distinct symbols among 5 consecutive values (non-overlapping groups); d <= 64.
class poker final : public accumulator {
 public:
  explicit poker(const stream_setup& s) : a_(s, 4), family_(s.spec.family) {}
  void add(std::span<const std::uint64_t> values) override {
    if (!a_.d) return;
    for (std::uint64_t x : values) {
      mask_ |= std::uint64_t{1} << a_.symbol(x);
      if (++fill_ == 5) {
        ++counts_[static_cast<unsigned>(std::popcount(mask_))];
        mask_ = 0;
        fill_ = 0;
      }
    }
  }
  void results(std::vector<test_result>& out) const override {
    const std::uint64_t groups = total(counts_);
    test_result r{.name = "poker",
                  .family = family_,
                  .description = fmt::format("distinct symbols among 5 consecutive values, alphabet of {}", a_.d),
                  .reference = "Knuth §3.3.2 D (distinct-value form), exact law",
                  .distribution = "chi2",
                  .sample = groups,
                  .min_sample = validity_of("poker").min,
                  .unit = "groups of 5"};
    if (!a_.d)
      return out.push_back(
          invalid(std::move(r), "the range has no divisor in 2..16 and exceeds 64: no uniform alphabet"));
    if (groups < r.min_sample) return out.push_back(invalid(std::move(r), needs(r.min_sample, groups, r.unit)));
    chi2_against(r, std::vector<double>(counts_.begin(), counts_.end()), distinct_law(a_.d, 5));
    out.push_back(std::move(r));
  }

 private:
  alphabet a_;
  std::string family_;
  std::uint64_t mask_ = 0;
  unsigned fill_ = 0;
  std::vector<std::uint64_t> counts_ = std::vector<std::uint64_t>(6, 0);  // [distinct symbols]
};

// coupon-collector: values until all d symbols have appeared (d <= 8); lengths of cap or
// more pooled.
class coupon_collector final : public accumulator {
 public:
  explicit coupon_collector(const stream_setup& s) : a_(s, 3), family_(s.spec.family) {
    if (a_.d) {
      cap_ = static_cast<unsigned>(std::ceil(a_.d * (std::log(a_.d) + 10)));
      counts_.assign(cap_ - a_.d + 1, 0);
    }
  }
  void add(std::span<const std::uint64_t> values) override {
    if (!a_.d) return;
    for (std::uint64_t x : values) {
      mask_ |= std::uint64_t{1} << a_.symbol(x);
      ++len_;
      if (static_cast<unsigned>(std::popcount(mask_)) == a_.d || len_ == cap_) {
        ++counts_[std::min<std::uint64_t>(len_, cap_) - a_.d];
        mask_ = 0;
        len_ = 0;
      }
    }
  }
  void results(std::vector<test_result>& out) const override {
    const std::uint64_t segs = total(counts_);
    test_result r{.name = "coupon-collector",
                  .family = family_,
                  .description = fmt::format("values needed to see all {} symbols", a_.d),
                  .reference = "Knuth §3.3.2 E, exact law by dynamic programming",
                  .distribution = "chi2",
                  .sample = segs,
                  .min_sample = validity_of("coupon-collector").min,
                  .unit = "segments"};
    if (!a_.d)
      return out.push_back(
          invalid(std::move(r), "the range has no divisor in 2..8 and exceeds 64: no uniform alphabet"));
    if (segs < r.min_sample) return out.push_back(invalid(std::move(r), needs(r.min_sample, segs, r.unit)));
    chi2_against(r, std::vector<double>(counts_.begin(), counts_.end()), coupon_law(a_.d, cap_));
    out.push_back(std::move(r));
  }

 private:
  alphabet a_;
  std::string family_;
  std::uint64_t mask_ = 0, len_ = 0;
  unsigned cap_ = 0;
  std::vector<std::uint64_t> counts_{};  // [segment length - d]
};

// permutation: relative order of 5 consecutive values (non-overlapping); groups with ties
// are discarded, which keeps the 120 orders equally likely (exchangeability).
class permutation final : public accumulator {
 public:
  explicit permutation(const stream_setup& s) : family_(s.spec.family) {}
  void add(std::span<const std::uint64_t> values) override {
    for (std::uint64_t x : values) {
      group_[fill_] = x;
      if (++fill_ < 5) continue;
      fill_ = 0;
      unsigned code = 0;
      bool tie = false;
      for (unsigned i = 0; i < 5; ++i) {
        unsigned smaller = 0;
        for (unsigned j = i + 1; j < 5; ++j) {
          smaller += group_[j] < group_[i];
          tie |= group_[j] == group_[i];
        }
        code = code * (5 - i) + smaller;
      }
      if (tie)
        ++ties_;
      else
        ++orders_[code];
    }
  }
  void results(std::vector<test_result>& out) const override {
    const std::uint64_t groups = total(orders_);
    test_result r{.name = "permutation",
                  .family = family_,
                  .description = "relative order of 5 consecutive values (120 orders; groups with ties left out)",
                  .reference = "Knuth §3.3.2 F; uniform over 5! orders",
                  .distribution = "chi2",
                  .sample = groups,
                  .min_sample = validity_of("permutation").min,
                  .unit = "groups of 5"};
    if (groups < r.min_sample)
      return out.push_back(invalid(std::move(r), needs(r.min_sample, groups, "groups of 5 without ties")));
    chi2_against(r, std::vector<double>(orders_.begin(), orders_.end()), std::vector<double>(120, 1.0 / 120));
    r.note = fmt::format("{} groups with ties left out", ties_);
    out.push_back(std::move(r));
  }

 private:
  std::string family_;
  std::array<std::uint64_t, 5> group_{};
  unsigned fill_ = 0;
  std::uint64_t ties_ = 0;
  std::vector<std::uint64_t> orders_ = std::vector<std::uint64_t>(120, 0);
};

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

std::unique_ptr<accumulator> make_frequency(const stream_setup& s) { return std::make_unique<frequency>(s); }
std::unique_ptr<accumulator> make_serial_correlation(const stream_setup& s) {
  return std::make_unique<serial_correlation>(s);
}
std::unique_ptr<accumulator> make_gap(const stream_setup& s) { return std::make_unique<gap>(s); }
std::unique_ptr<accumulator> make_poker(const stream_setup& s) { return std::make_unique<poker>(s); }
std::unique_ptr<accumulator> make_coupon_collector(const stream_setup& s) {
  return std::make_unique<coupon_collector>(s);
}
std::unique_ptr<accumulator> make_permutation(const stream_setup& s) { return std::make_unique<permutation>(s); }

}  // namespace fairdeck::certify::detail
