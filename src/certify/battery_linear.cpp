// Linear and lagged relations on raw bits and values: lagged sums (additive and
// subtract-with-borrow lagged-Fibonacci relations), binary-matrix rank (NIST SP 800-22 §2.5;
// Marsaglia's 32x32 rank test; TestU01 smarsa_MatrixRank) and linear complexity by
// Berlekamp–Massey (NIST §2.10; TestU01 scomp_LinearComp). One accumulator per test,
// registered in battery.cpp; minima in certify/validity.hpp. See certify/battery.hpp.
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

// lagged-sum: d_i = x_i - x_{i-r} - sign * x_{i-s} mod q for each lag pair. Under H0 (i.i.d.
// uniform symbols in Z_q) every d_i is uniform given x_1..x_{i-1} (x_i enters with
// coefficient 1), so each histogram is exactly multinomial(positions, 1/q); and two relations
// of different lag pairs share no variable set, so every pair of their d's is jointly uniform:
// the histograms' cell counts are uncorrelated and the sum of their Pearson statistics is
// chi2 with the summed df (asymptotically, >= 5 expected per cell). An additive lagged
// Fibonacci generator x_i = x_{i-r} + x_{i-s} (+ carry) puts every d_i in {0, 1}.
//
// Lags: glibc random_r.c TYPE_1..TYPE_4 (x^7+x^3+1, x^15+x+1, x^31+x^3+1, x^63+x+1; rand()
// is TYPE_3), Mitchell–Moore (24, 55) (Knuth TAOCP vol. 2 §3.2.2 (7)), Marsaglia's (5, 17),
// and the subtract-with-borrow x_i = x_{i-10} - x_{i-24} - c of Marsaglia & Zaman 1991 /
// RANLUX (sign -1). Compare dieharder's dab_monobit2 and TestU01's sknuth/smarsa lag tests.
struct lag_relation {
  unsigned r, s;
  int sign;  // +1: x_i - x_{i-r} - x_{i-s}; -1: x_i - x_{i-r} + x_{i-s}
};
constexpr lag_relation lag_relations[] = {{3, 7, 1},   {1, 15, 1}, {3, 31, 1},  {1, 63, 1},
                                          {24, 55, 1}, {5, 17, 1}, {10, 24, -1}};
constexpr unsigned max_lag = 63;
constexpr std::size_t relation_count = std::size(lag_relations);

// One symbol stream and its histograms (one per relation).
class lag_view {
 public:
  explicit lag_view(unsigned q) : q_(q), hist_(relation_count * q, 0) {}
  void push(unsigned x) {
    hist_buf_[head_ & 63] = static_cast<std::uint16_t>(x);
    if (head_ >= max_lag) {
      if (q_ == 256) {
        for (std::size_t j = 0; j < relation_count; ++j) {
          const auto& l = lag_relations[j];
          const unsigned a = hist_buf_[(head_ - l.r) & 63], b = hist_buf_[(head_ - l.s) & 63];
          ++hist_[j * 256 + ((l.sign > 0 ? x - a - b : x - a + b) & 255u)];
        }
      } else {
        for (std::size_t j = 0; j < relation_count; ++j) {
          const auto& l = lag_relations[j];
          const unsigned a = hist_buf_[(head_ - l.r) & 63], b = hist_buf_[(head_ - l.s) & 63];
          unsigned d = l.sign > 0 ? x + 2 * q_ - a - b : x + q_ - a + b;  // in [0, 3q)
          if (d >= q_) d -= q_;
          if (d >= q_) d -= q_;
          ++hist_[j * q_ + d];
        }
      }
      ++positions_;
    }
    ++head_;
  }
  [[nodiscard]] std::uint64_t positions() const { return positions_; }
  [[nodiscard]] unsigned q() const { return q_; }
  // Pearson statistic of relation j against uniform.
  [[nodiscard]] double chi2(std::size_t j) const {
    const double e = static_cast<double>(positions_) / q_;
    double x2 = 0;
    for (unsigned c = 0; c < q_; ++c) {
      const double o = static_cast<double>(hist_[j * q_ + c]);
      x2 += (o - e) * (o - e) / e;
    }
    return x2;
  }

 private:
  unsigned q_;
  std::vector<std::uint64_t> hist_;
  std::array<std::uint16_t, 64> hist_buf_{};
  std::uint64_t head_ = 0, positions_ = 0;
};

class lagged_sum final : public accumulator {
 public:
  // q: symbols of the lane (low byte: 256; scaled draws: the range); bytes: also every byte
  // of each word, little-endian (words of a multiple of 8 bits wider than 8).
  lagged_sum(unsigned q, bool low_byte, unsigned word_bytes, std::string family)
      : low_byte_(low_byte), word_bytes_(word_bytes), family_(std::move(family)), lane_(q) {
    if (word_bytes_ > 1) bytes_.emplace_back(256);
  }
  void add(std::span<const std::uint64_t> values) override {
    for (std::uint64_t v : values) {
      lane_.push(static_cast<unsigned>(low_byte_ ? (v & 0xFF) : v));
      if (!bytes_.empty())
        for (unsigned k = 0; k < word_bytes_; ++k) bytes_[0].push(static_cast<unsigned>((v >> (8 * k)) & 0xFF));
    }
  }
  void results(std::vector<test_result>& out) const override {
    const unsigned q = lane_.q();
    test_result r{.name = "lagged-sum",
                  .family = family_,
                  .description = fmt::format("x_i - x_(i-r) -/+ x_(i-s) mod {} at {} lagged-Fibonacci lag pairs ({})",
                                             q, relation_count,
                                             low_byte_ ? (bytes_.empty() ? "low byte of each value"
                                                                         : "low byte of each value, and every byte")
                                                       : "values"),
                  .reference =
                      "lagged sums uniform on Z_q under H0 (exact, triangular); Pearson chi2 summed over the "
                      "lag pairs (glibc random_r.c lags, Knuth §3.2.2, Marsaglia & Zaman 1991; cf. dieharder "
                      "dab_monobit2)",
                  .distribution = "chi2",
                  .sample = lane_.positions() + (lane_.positions() ? max_lag : 0),
                  .min_sample = static_cast<std::uint64_t>(min_expected_per_cell) * q + max_lag,
                  .unit = "values"};
    if (lane_.positions() * 1.0 / q < min_expected_per_cell)
      return out.push_back(invalid(std::move(r), needs(r.min_sample, r.sample, r.unit)));
    double x2 = 0, df = 0, worst = -1;
    std::string worst_name;
    auto take = [&](const lag_view& v, const char* what) {
      for (std::size_t j = 0; j < relation_count; ++j) {
        const double c = v.chi2(j);
        x2 += c;
        df += v.q() - 1;
        const double z = (c - (v.q() - 1)) / std::sqrt(2.0 * (v.q() - 1));
        if (z > worst) {
          worst = z;
          const auto& l = lag_relations[j];
          worst_name = fmt::format("{} lags ({}, {}{})", what, l.r, l.s, l.sign < 0 ? ", subtractive" : "");
        }
      }
    };
    take(lane_, low_byte_ ? "low bytes," : "values,");
    if (!bytes_.empty() && bytes_[0].positions() * 1.0 / 256 >= min_expected_per_cell) take(bytes_[0], "all bytes,");
    r.statistic = x2;
    r.df = df;
    r.p_value = stats::chi2_upper(x2, df);
    r.note = fmt::format("largest excess at {} (z = {:.1f})", worst_name, worst);
    r.effect = effect_kind::chi2;
    r.effect_n = static_cast<double>(lane_.positions());
    r.effect_unit = "Cohen's w of a lagged sum";
    out.push_back(std::move(r));
  }

 private:
  bool low_byte_;
  unsigned word_bytes_;
  std::string family_;
  lag_view lane_;
  std::vector<lag_view> bytes_;
};

// Collects the bit stream (blocks of m bits, most significant first) into 64-bit words.
class bit_packer {
 public:
  explicit bit_packer(unsigned m) : m_(m) {}
  template <class F>
  void put(std::uint64_t v, F&& emit) {
    if (have_ + m_ < 64) {
      acc_ = (acc_ << m_) | v;
      have_ += m_;
      return;
    }
    const unsigned take = 64 - have_;
    const std::uint64_t top = m_ == take ? v : v >> (m_ - take);
    emit(take == 64 ? top : (acc_ << take) | top);
    have_ = m_ - take;
    acc_ = have_ ? v & ((std::uint64_t{1} << have_) - 1) : 0;
  }

 private:
  unsigned m_;
  unsigned have_ = 0;
  std::uint64_t acc_ = 0;
};

// Rank over GF(2) of `rows` rows of `cols` <= 64 bits.
unsigned gf2_rank(std::array<std::uint64_t, 64>& a, unsigned rows, unsigned cols) {
  unsigned rank = 0;
  for (unsigned c = 0; c < cols && rank < rows; ++c) {
    const std::uint64_t bit = std::uint64_t{1} << (cols - 1 - c);
    unsigned p = rank;
    while (p < rows && !(a[p] & bit)) ++p;
    if (p == rows) continue;
    std::swap(a[p], a[rank]);
    const std::uint64_t pivot = a[rank], shift = cols - 1 - c;
    for (unsigned i = rank + 1; i < rows; ++i)
      a[i] ^= pivot & (std::uint64_t{0} - ((a[i] >> shift) & 1));  // branch-free
    ++rank;
  }
  return rank;
}

// matrix-rank-M: ranks of M x M binary matrices filled row by row from the bit stream.
class matrix_rank final : public accumulator {
 public:
  matrix_rank(unsigned size, unsigned block_bits, std::string family)
      : m_(size), packer_(block_bits), family_(std::move(family)), ranks_(size + 1, 0) {}
  void add(std::span<const std::uint64_t> blocks) override {
    for (std::uint64_t b : blocks) packer_.put(b, [this](std::uint64_t w) { word(w); });
  }
  void results(std::vector<test_result>& out) const override {
    const auto& v = validity_of(fmt::format("matrix-rank-{}", m_));
    test_result r{.name = std::string(v.test),
                  .family = family_,
                  .description = fmt::format("rank over GF(2) of {0}x{0} matrices of consecutive bits", m_),
                  .reference =
                      "NIST SP 800-22 §2.5 / Marsaglia; exact rank law of a random binary matrix "
                      "(Kovalenko 1972), Pearson chi2",
                  .distribution = "chi2",
                  .sample = matrices_,
                  .min_sample = v.min,
                  .unit = std::string(v.unit)};
    if (matrices_ < r.min_sample) return out.push_back(invalid(std::move(r), needs(r.min_sample, matrices_, r.unit)));
    chi2_against(r, std::vector<double>(ranks_.begin(), ranks_.end()), matrix_rank_law(m_, m_));
    if (r.valid())
      r.note = fmt::format("{} of {} matrices of full rank ({:.4f} expected)", ranks_[m_], matrices_,
                           matrix_rank_law(m_, m_)[m_]);
    out.push_back(std::move(r));
  }

 private:
  void word(std::uint64_t w) {
    if (m_ == 32) {
      rows_[fill_++] = w >> 32;
      rows_[fill_++] = w & 0xFFFFFFFFu;
    } else {
      rows_[fill_++] = w;
    }
    if (fill_ == m_) {
      ++ranks_[gf2_rank(rows_, m_, m_)];
      ++matrices_;
      fill_ = 0;
    }
  }
  unsigned m_;
  bit_packer packer_;
  std::string family_;
  std::array<std::uint64_t, 64> rows_{};
  unsigned fill_ = 0;
  std::uint64_t matrices_ = 0;
  std::vector<std::uint64_t> ranks_;
};

// Bit i of the result is bit 63 - i of x (swap halves of ever smaller groups, then bytes).
std::uint64_t reverse_bits(std::uint64_t x) {
  x = ((x >> 1) & 0x5555555555555555u) | ((x & 0x5555555555555555u) << 1);
  x = ((x >> 2) & 0x3333333333333333u) | ((x & 0x3333333333333333u) << 2);
  x = ((x >> 4) & 0x0F0F0F0F0F0F0F0Fu) | ((x & 0x0F0F0F0F0F0F0F0Fu) << 4);
  return __builtin_bswap64(x);  // std::byteswap is C++23
}

// Linear complexity of n <= 1024 bits (Berlekamp–Massey over GF(2), bit-parallel: Massey 1969,
// IEEE Trans. Inf. Theory 15(1)). `s` holds bit t of the block at word t/64, bit t%64. O(n^2/64)
// word operations; c and b are copied only over the words their degree can use (at most L/64+1).
unsigned linear_complexity_of(const std::uint64_t* s, unsigned n) {
  constexpr unsigned cap = 24;  // 1024 bits of sequence, and c, b of degree <= 1024 shifted
  const unsigned words = n / 64 + 3, in = (n + 63) / 64, unused = 64 * in - n;
  std::array<std::uint64_t, cap> rev{}, c{}, b{}, t{};
  // rev: bit j = s_(n-1-j), so sum_i c_i s_(N-i) = sum_i c_i rev_(n-1-N+i). It is the reversal
  // of the in*64-bit number s (bits past n cleared) shifted down by the unused top bits.
  for (unsigned i = 0; i < in; ++i) {
    const std::uint64_t w = i == 0 && n % 64 ? s[in - 1] & ((std::uint64_t{1} << (n % 64)) - 1) : s[in - 1 - i];
    rev[i] = reverse_bits(w);
  }
  if (unused)
    for (unsigned i = 0; i < in; ++i) rev[i] = (rev[i] >> unused) | (rev[i + 1] << (64 - unused));
  c[0] = b[0] = 1;
  unsigned L = 0, lb = 0;  // deg C <= L, deg B <= lb
  int m = -1;
  for (unsigned N = 0; N < n; ++N) {
    const unsigned o = n - 1 - N, q = o / 64, sh = o % 64;
    std::uint64_t acc = 0;
    if (sh)
      for (unsigned w = 0; w <= L / 64; ++w) acc ^= ((rev[q + w] >> sh) | (rev[q + w + 1] << (64 - sh))) & c[w];
    else
      for (unsigned w = 0; w <= L / 64; ++w) acc ^= rev[q + w] & c[w];
    if (!__builtin_parityll(acc)) continue;  // the discrepancy; parity without a popcnt call
    const unsigned k = N - static_cast<unsigned>(m), kq = k / 64, ks = k % 64, used = L / 64 + 1;
    const bool longer = 2 * L <= N;
    if (longer) std::copy_n(c.begin(), used, t.begin());
    for (unsigned w = 0; w <= lb / 64 && w + kq < words; ++w) {
      c[w + kq] ^= b[w] << ks;
      if (ks && w + kq + 1 < words) c[w + kq + 1] ^= b[w] >> (64 - ks);
    }
    if (longer) {
      // The old B had degree lb <= L: its words all lie below `used`, so they are overwritten.
      lb = L;
      L = N + 1 - L;
      m = static_cast<int>(N);
      std::copy_n(t.begin(), used, b.begin());
    }
  }
  return L;
}

// linear-complexity: L of consecutive 1,000-bit blocks (NIST §2.10: 500 <= M <= 5000) against
// its exact law; an LFSR of degree < 500 (or a bit plane of one) gives L <= its degree in
// every block. Berlekamp–Massey is quadratic, so the test reads the first 5,000 blocks.
class linear_complexity final : public accumulator {
 public:
  static constexpr unsigned block = 1000;
  static constexpr std::uint64_t max_blocks = 5000;  // 5 10^6 bits (NIST asks for >= 10^6)
  linear_complexity(unsigned block_bits, std::string family)
      : packer_(block_bits), family_(std::move(family)), counts_(block + 1, 0) {}
  void add(std::span<const std::uint64_t> blocks) override {
    for (std::uint64_t x : blocks) {
      if (done_ >= max_blocks) return;
      packer_.put(x, [this](std::uint64_t w) { word(w); });
    }
  }
  void results(std::vector<test_result>& out) const override {
    const auto& v = validity_of("linear-complexity");
    test_result r{.name = "linear-complexity",
                  .family = family_,
                  .description = fmt::format("linear complexity (Berlekamp–Massey) of {}-bit blocks (the first {})",
                                             block, max_blocks),
                  .reference =
                      "NIST SP 800-22 §2.10; exact law of the linear complexity of a random sequence "
                      "(Rueppel 1986), Pearson chi2",
                  .distribution = "chi2",
                  .sample = done_,
                  .min_sample = v.min,
                  .unit = std::string(v.unit)};
    if (done_ < r.min_sample) return out.push_back(invalid(std::move(r), needs(r.min_sample, done_, r.unit)));
    chi2_against(r, std::vector<double>(counts_.begin(), counts_.end()), linear_complexity_law(block));
    if (r.valid()) {
      const auto lo = static_cast<unsigned>(std::find_if(counts_.begin(), counts_.end(), [](auto c) { return c; }) -
                                            counts_.begin());
      r.note = fmt::format("{} blocks; smallest linear complexity {} ({} expected about)", done_, lo, block / 2);
    }
    out.push_back(std::move(r));
  }

 private:
  void word(std::uint64_t w) {
    // 64-bit words, most significant bit first, into bit t of buf_ (t = stream order): the
    // reversed word goes in at bit fill_, split over two words of buf_ and, at the end of a
    // block, over two blocks.
    std::uint64_t r = reverse_bits(w);
    unsigned have = 64;
    while (have && done_ < max_blocks) {
      const unsigned take = std::min(have, block - fill_), at = fill_ % 64;
      const std::uint64_t part = take == 64 ? r : r & ((std::uint64_t{1} << take) - 1);
      buf_[fill_ / 64] |= part << at;
      if (at && take > 64 - at) buf_[fill_ / 64 + 1] |= part >> (64 - at);
      fill_ += take;
      have -= take;
      r = take == 64 ? 0 : r >> take;
      if (fill_ == block) {
        ++counts_[linear_complexity_of(buf_.data(), block)];
        ++done_;
        buf_.fill(0);
        fill_ = 0;
      }
    }
  }
  bit_packer packer_;
  std::string family_;
  std::array<std::uint64_t, block / 64 + 1> buf_{};
  unsigned fill_ = 0;
  std::uint64_t done_ = 0;
  std::vector<std::uint64_t> counts_;
};

}  // namespace

// Raw words: the low byte of each value (and every byte of 16/24/32/.../64-bit words);
// scaled draws in [0, N): the values mod N for N <= 256, the low byte for N = 2^k >= 256.
std::unique_ptr<accumulator> make_lagged_sum(const stream_setup& s) {
  if (s.raw) {
    const unsigned bytes = s.spec.bits % 8 == 0 ? s.spec.bits / 8 : 1;
    return std::make_unique<lagged_sum>(256, true, bytes, s.spec.family);
  }
  if (s.spec.range <= 256)
    return std::make_unique<lagged_sum>(static_cast<unsigned>(s.spec.range), false, 1, s.spec.family);
  if (std::has_single_bit(s.spec.range)) return std::make_unique<lagged_sum>(256, true, 1, s.spec.family);
  return nullptr;
}

// Bit tests of the words' own bits only (raw words, power-of-two ranges >= 256): the laws
// assume fair bits, and the one indicator bit per draw of other ranges would need 155,648
// draws for 38 matrices of 64x64 (lagged-sum tests those draws directly).
bool words_bits(const stream_setup& s) { return s.block_p == 0.5 && (s.raw || s.block_bits != 64); }
std::unique_ptr<accumulator> make_matrix_rank_32(const stream_setup& s) {
  if (!words_bits(s)) return nullptr;
  return std::make_unique<matrix_rank>(32, s.block_bits, s.spec.family);
}
std::unique_ptr<accumulator> make_matrix_rank_64(const stream_setup& s) {
  if (!words_bits(s)) return nullptr;
  return std::make_unique<matrix_rank>(64, s.block_bits, s.spec.family);
}
std::unique_ptr<accumulator> make_linear_complexity(const stream_setup& s) {
  if (!words_bits(s)) return nullptr;
  return std::make_unique<linear_complexity>(s.block_bits, s.spec.family);
}

}  // namespace fairdeck::certify::detail
