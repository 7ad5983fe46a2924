// Bit-level tests: monobit, runs, longest run (NIST SP 800-22 §2.1, 2.3, 2.4) and the
// low-bit autocorrelation (HAC §5.4.4 (v)). One accumulator per test; registered in
// battery.cpp. See certify/battery.hpp.
#include <algorithm>
#include <bit>
#include <cmath>

#include <fmt/format.h>

#include "accumulators.hpp"
#include "fairdeck/certify/null_laws.hpp"
#include "fairdeck/certify/validity.hpp"
#include "fairdeck/stats/tests.hpp"

namespace fairdeck::certify::detail {
namespace {

// monobit: ones among the bits of every block.
class monobit final : public accumulator {
 public:
  monobit(unsigned block_bits, double p, std::string family) : m_(block_bits), p_(p), family_(std::move(family)) {}
  void add(std::span<const std::uint64_t> blocks) override {
    blocks_ += blocks.size();
    for (std::uint64_t b : blocks) ones_ += static_cast<std::uint64_t>(std::popcount(b));
  }
  void results(std::vector<test_result>& out) const override {
    const std::uint64_t n = blocks_ * m_;
    const double nd = static_cast<double>(n), q = p_ * (1 - p_);
    test_result r{.name = "monobit",
                  .family = family_,
                  .description = "proportion of one bits (a biased bit in the output)",
                  .reference = "NIST SP 800-22 rev. 1a §2.1; binomial, normal approximation",
                  .distribution = "normal",
                  .sample = n,
                  .min_sample = validity_of("monobit").min,
                  .unit = "bits"};
    if (n < r.min_sample) return out.push_back(invalid(std::move(r), needs(r.min_sample, n, r.unit)));
    const double z = (static_cast<double>(ones_) - nd * p_) / std::sqrt(nd * q);
    r.statistic = z;
    r.p_value = two_sided_normal(z);
    r.expected = nd * p_;
    r.note = fmt::format("{} ones in {} bits (expected share {:.6g}, observed {:.6g})", ones_, n, p_,
                         static_cast<double>(ones_) / nd);
    r.effect = effect_kind::normal;
    r.effect_n = nd;
    r.effect_scale = std::sqrt(q);
    r.effect_unit = "bias |P(1) - expected|";
    out.push_back(std::move(r));
  }

 private:
  unsigned m_;
  double p_;
  std::string family_;
  std::uint64_t blocks_ = 0, ones_ = 0;
};

// runs: runs of equal bits across the whole bit stream, conditional on the ones.
class runs final : public accumulator {
 public:
  runs(unsigned block_bits, std::string family)
      : m_(block_bits),
        family_(std::move(family)),
        mask_(block_bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << block_bits) - 1) {}
  void add(std::span<const std::uint64_t> blocks) override {
    for (std::uint64_t b : blocks) {
      ++blocks_;
      ones_ += static_cast<std::uint64_t>(std::popcount(b));
      transitions_ += static_cast<std::uint64_t>(std::popcount((b ^ (b >> 1)) & (mask_ >> 1)));
      const int first = static_cast<int>((b >> (m_ - 1)) & 1);
      if (last_bit_ >= 0 && first != last_bit_) ++transitions_;
      last_bit_ = static_cast<int>(b & 1);
    }
  }
  void results(std::vector<test_result>& out) const override {
    const std::uint64_t n = blocks_ * m_;
    const double nd = static_cast<double>(n);
    test_result r{.name = "runs",
                  .family = family_,
                  .description = "number of runs of equal bits, given the number of ones (oscillation)",
                  .reference = "Wald & Wolfowitz 1940, conditional on the ones; NIST SP 800-22 §2.3",
                  .distribution = "normal",
                  .sample = n,
                  .min_sample = validity_of("runs").min,
                  .unit = "bits"};
    const double n1 = static_cast<double>(ones_), n0 = nd - n1;
    const double mean = 1 + 2 * n1 * n0 / nd;
    const double var = n > 1 ? 2 * n1 * n0 * (2 * n1 * n0 - nd) / (nd * nd * (nd - 1)) : 0;
    if (n < r.min_sample || !(var > 0))
      return out.push_back(invalid(std::move(r), n < r.min_sample ? needs(r.min_sample, n, r.unit) : "all bits equal"));
    const double runs = static_cast<double>(transitions_) + 1, z = (runs - mean) / std::sqrt(var);
    r.statistic = z;
    r.p_value = two_sided_normal(z);
    r.expected = mean;
    r.note = fmt::format("{} runs, {:.1f} expected", transitions_ + 1, mean);
    r.effect = effect_kind::normal;
    r.effect_n = nd;
    r.effect_scale = std::sqrt(var * nd) / mean;
    r.effect_unit = "relative change in the number of runs";
    out.push_back(std::move(r));
  }

 private:
  unsigned m_;
  std::string family_;
  std::uint64_t mask_;
  std::uint64_t blocks_ = 0, ones_ = 0, transitions_ = 0;
  int last_bit_ = -1;
};

// longest-run: the longest run of ones in each block, against its exact law.
class longest_run final : public accumulator {
 public:
  longest_run(unsigned block_bits, double p, std::string family)
      : m_(block_bits), p_(p), family_(std::move(family)), longest_(block_bits + 1, 0) {}
  void add(std::span<const std::uint64_t> blocks) override {
    for (std::uint64_t b : blocks) {
      unsigned run = 0;
      for (std::uint64_t x = b; x; x &= x << 1) ++run;
      ++longest_[run];
    }
    blocks_ += blocks.size();
  }
  void results(std::vector<test_result>& out) const override {
    test_result r{.name = "longest-run",
                  .family = family_,
                  .description = fmt::format("longest run of ones in each {}-bit block", m_),
                  .reference = "NIST SP 800-22 §2.4; exact law of the longest run by dynamic programming",
                  .distribution = "chi2",
                  .sample = blocks_,
                  .min_sample = validity_of("longest-run").min,
                  .unit = "blocks"};
    if (blocks_ < r.min_sample) return out.push_back(invalid(std::move(r), needs(r.min_sample, blocks_, r.unit)));
    chi2_against(r, std::vector<double>(longest_.begin(), longest_.end()), longest_run_law(m_, p_));
    out.push_back(std::move(r));
  }

 private:
  unsigned m_;
  double p_;
  std::string family_;
  std::uint64_t blocks_ = 0;
  std::vector<std::uint64_t> longest_;  // [longest run of ones in a block]
};

// lowbit-autocorrelation: the lowest bit of each value against itself at fixed lags (HAC
// §5.4.4 (v), centred). The bits are packed 64 to a word and processed in batches; only the
// words the longest lag still needs are kept.
class lowbit_autocorrelation final : public accumulator {
 public:
  lowbit_autocorrelation(double p, std::string family);
  void add(std::span<const std::uint64_t> values) override;
  void results(std::vector<test_result>& out) const override;

 private:
  static inline const std::uint64_t min_pairs = validity_of("lowbit-autocorrelation").min;
  static constexpr std::size_t compact_words = std::size_t{1} << 15;
  static std::vector<std::uint64_t> lags();
  void process();

  double p_;
  std::string family_;
  std::vector<std::uint64_t> lag_;
  std::vector<std::uint64_t> bits_{};  // packed, LSB first; bits_[0] is stream word `base_`
  std::uint64_t base_ = 0;             // stream index (in 64-bit words) of bits_[0]
  std::uint64_t pending_ = 0, pending_count_ = 0;
  std::vector<std::uint64_t> next_;  // per lag: next first-word index to process
  std::vector<std::uint64_t> pairs_, both_, first_, second_;
};

std::vector<std::uint64_t> lowbit_autocorrelation::lags() {
  std::vector<std::uint64_t> l;
  for (std::uint64_t i = 1; i <= 16; ++i) l.push_back(i);
  for (unsigned e = 5; e <= 20; ++e) l.push_back(std::uint64_t{1} << e);
  return l;
}

lowbit_autocorrelation::lowbit_autocorrelation(double p, std::string family)
    : p_(p),
      family_(std::move(family)),
      lag_(lags()),
      next_(lag_.size(), 0),
      pairs_(lag_.size(), 0),
      both_(lag_.size(), 0),
      first_(lag_.size(), 0),
      second_(lag_.size(), 0) {}

void lowbit_autocorrelation::add(std::span<const std::uint64_t> values) {
  for (std::uint64_t v : values) {
    pending_ |= (v & 1) << pending_count_;
    if (++pending_count_ == 64) {
      bits_.push_back(pending_);
      pending_ = pending_count_ = 0;
      if (bits_.size() % 4096 == 0) process();
    }
  }
}

void lowbit_autocorrelation::process() {
  const std::uint64_t end = base_ + bits_.size();
  for (std::size_t li = 0; li < lag_.size(); ++li) {
    const std::uint64_t q = lag_[li] / 64, r = lag_[li] % 64;
    std::uint64_t i = next_[li];
    std::uint64_t both = 0, first = 0, second = 0;
    for (; i + q + (r ? 1 : 0) < end; ++i) {
      const std::uint64_t a = bits_[i - base_];
      const std::uint64_t b = r ? (bits_[i + q - base_] >> r) | (bits_[i + q + 1 - base_] << (64 - r))
                                : bits_[i + q - base_];
      both += static_cast<std::uint64_t>(std::popcount(a & b));
      first += static_cast<std::uint64_t>(std::popcount(a));
      second += static_cast<std::uint64_t>(std::popcount(b));
    }
    pairs_[li] += 64 * (i - next_[li]);
    both_[li] += both;
    first_[li] += first;
    second_[li] += second;
    next_[li] = i;
  }
  const std::uint64_t keep_from = *std::min_element(next_.begin(), next_.end());
  if (keep_from - base_ >= compact_words) {
    bits_.erase(bits_.begin(), bits_.begin() + static_cast<std::ptrdiff_t>(keep_from - base_));
    base_ = keep_from;
  }
}

void lowbit_autocorrelation::results(std::vector<test_result>& out) const {
  lowbit_autocorrelation done = *this;
  done.process();
  test_result r{.name = "lowbit-autocorrelation",
                .family = family_,
                .description = "lowest bit against itself 1..16 and 32..2^20 values later (short low-bit periods)",
                .reference =
                    "Menezes, van Oorschot & Vanstone, Handbook of Applied Cryptography §5.4.4 (v), "
                    "centred; sum of squared z-scores ~ chi2(lags)",
                .distribution = "chi2",
                .sample = done.pairs_[0],
                .min_sample = min_pairs,
                .unit = "pairs at lag 1"};
  const double q = p_ * (1 - p_);
  double x2 = 0, worst = 0;
  std::uint64_t worst_lag = 0, used = 0, max_lag = 0;
  for (std::size_t li = 0; li < lag_.size(); ++li) {
    if (done.pairs_[li] < min_pairs) continue;
    const double m = static_cast<double>(done.pairs_[li]);
    const double c = static_cast<double>(done.both_[li]) -
                     p_ * (static_cast<double>(done.first_[li]) + static_cast<double>(done.second_[li])) + m * p_ * p_;
    const double z = c / (std::sqrt(m) * q);
    x2 += z * z;
    ++used;
    max_lag = lag_[li];
    if (std::abs(z) > worst) worst = std::abs(z), worst_lag = lag_[li];
  }
  if (used == 0) {
    out.push_back(invalid(std::move(r), needs(min_pairs, done.pairs_[0], "pairs at lag 1")));
    return;
  }
  r.statistic = x2;
  r.df = static_cast<double>(used);
  r.p_value = stats::chi2_upper(x2, *r.df);
  r.note = fmt::format("{} lags up to {} (lags need >= 1000 pairs); largest |z| = {:.2f} at lag {}", used, max_lag,
                       worst, worst_lag);
  r.effect = effect_kind::chi2;
  r.effect_n = static_cast<double>(done.pairs_[0]);
  r.effect_unit = "low-bit autocorrelation at one lag";
  out.push_back(std::move(r));
}

}  // namespace

std::unique_ptr<accumulator> make_monobit(const stream_setup& s) {
  return std::make_unique<monobit>(s.block_bits, s.block_p, s.spec.family);
}
std::unique_ptr<accumulator> make_runs(const stream_setup& s) {
  return std::make_unique<runs>(s.block_bits, s.spec.family);
}
std::unique_ptr<accumulator> make_longest_run(const stream_setup& s) {
  return std::make_unique<longest_run>(s.block_bits, s.block_p, s.spec.family);
}
std::unique_ptr<accumulator> make_lowbit_autocorrelation(const stream_setup& s) {
  return std::make_unique<lowbit_autocorrelation>(s.low_p, s.spec.family);
}

}  // namespace fairdeck::certify::detail
