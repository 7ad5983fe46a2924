#include "fairdeck/shuffle/mixing.hpp"

#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include <boost/multiprecision/cpp_int.hpp>
#include <fmt/format.h>

#include "exact_ratio.hpp"

namespace fairdeck {
namespace {

namespace mp = boost::multiprecision;
using big = mp::cpp_int;
using detail::factorial;
using detail::to_decimal;
using detail::to_double;

void check_inputs(std::uint64_t n, std::uint64_t shuffles) {
  if (n < 1 || n > riffle_mixing_max_cards)
    throw std::invalid_argument(fmt::format("riffle mixing: n = {} cards is outside 1..{}", n, riffle_mixing_max_cards));
  if (shuffles > riffle_mixing_max_shuffles)
    throw std::invalid_argument(
        fmt::format("riffle mixing: {} shuffles is more than the limit {}", shuffles, riffle_mixing_max_shuffles));
}

// Eulerian numbers A(n, k), k = 0..n-1: permutations of n with k descents, i.e. with k+1
// rising sequences. A(m, k) = (k+1) A(m-1, k) + (m-k) A(m-1, k-1), updated in place from the
// top down; only the lower half is computed, the row being symmetric (A(m, k) = A(m, m-1-k)).
// Returns an empty row when stopped.
std::vector<big> eulerian_row(std::uint64_t n, const run_control& control, std::uint64_t total_units) {
  std::vector<big> a(n);
  a[0] = 1;
  for (std::uint64_t m = 2; m <= n; ++m) {
    const std::uint64_t half = (m - 1) / 2;
    for (std::uint64_t k = half; k >= 1; --k) {
      a[k] *= k + 1;
      a[k] += a[k - 1] * (m - k);
    }
    for (std::uint64_t k = half + 1; k < m; ++k) a[k] = a[m - 1 - k];
    if (m % 32 == 0) {
      if (control.stopped()) return {};
      control.progress(m, total_units);
    }
  }
  return a;
}

// Product of the n consecutive integers first, first+1, ..., first+n-1 (first may be big), as
// a balanced product tree so that the big multiplications can use Karatsuba.
big rising_product(const big& first, std::uint64_t n) {
  if (n <= 16) {
    big p = 1;
    for (std::uint64_t i = 0; i < n; ++i) p *= first + i;
    return p;
  }
  const std::uint64_t half = n / 2;
  return rising_product(first, half) * rising_product(first + half, n - half);
}

// Everything about K riffles of n cards that the exported functions need: with M = 2^K and
// D = 2^(Kn), F(r) = C(M + n - r, n) n! = (M-r+1)(M-r+2)...(M-r+n) (0 when r > M), so that an
// arrangement with r rising sequences has probability F(r) / (n! D).
struct riffle_terms {
  std::uint64_t n;
  unsigned log2_D;
  big M, D;
  explicit riffle_terms(std::uint64_t cards, std::uint64_t shuffles)
      : n(cards), log2_D(static_cast<unsigned>(shuffles * cards)), M(big(1) << static_cast<unsigned>(shuffles)),
        D(big(1) << log2_D) {}
  // F(1) = M (M+1) ... (M+n-1)
  [[nodiscard]] big first() const { return rising_product(M, n); }
  // F(r) -> F(r+1) = F(r) (M - r) / (M - r + n), exact.
  void next(big& F, std::uint64_t r) const {
    if (F == 0) return;
    if (M <= r) {
      F = 0;
      return;
    }
    F *= M - r;
    F /= M - r + n;
  }
  [[nodiscard]] big F(std::uint64_t r) const { return M < r ? big(0) : rising_product(M - (r - 1), n); }

  // The largest r with F(r) > D, i.e. with P(r) above 1/n! (0 if none). F falls with r, so this
  // is where the deviation changes sign. Located in doubles, with log F(r)/D = sum over
  // i = 1..n of log1p((i - r)/M), then confirmed or moved one step at a time exactly.
  [[nodiscard]] std::uint64_t last_above_uniform() const {
    const double m = std::ldexp(1.0, static_cast<int>(mp::msb(M)));
    double g = 0;  // log(F(r)/D) at r = 1
    for (std::uint64_t i = 1; i <= n; ++i) g += std::log1p(static_cast<double>(i - 1) / m);
    std::uint64_t r = 0;
    while (r < n && g > 0) {  // g is log(F(r+1)/D) here
      ++r;
      if (static_cast<double>(r) >= m) break;
      g += std::log1p(-static_cast<double>(r) / m) - std::log1p(static_cast<double>(n - r) / m);
    }
    big f = r ? F(r) : big(0);
    while (r >= 1 && !(f > D)) f = --r ? F(r) : big(0);
    for (big up = F(r + 1); r < n && up > D; ++r) next(up, r + 1);
    return r;
  }

  // Binary splitting (the classic trick for hypergeometric-like sums) of
  // sum_{r=a}^{b-1} A(n, r-1) F(r), with F(r) = L(r) U(r), L(r) = (M-1)...(M-r+1) and
  // U(r) = M (M+1) ... (M+n-r): for a range, pl = L(b)/L(a), pu = U(a)/U(b) and
  // t = sum A(n, r-1) (L(r)/L(a)) (U(r)/U(b)), so sum = L(a) U(b) t. Halves combine with
  // t = t_left pu_right + pl_left t_right, keeping every multiplication balanced: far fewer
  // limb operations than adding n products of an n log n-bit and a Kn-bit number.
  struct split {
    big pl, pu, t;
  };
  [[nodiscard]] split sum_split(const std::vector<big>& eulerian, std::uint64_t a, std::uint64_t b) const {
    if (b - a == 1) {
      big pu = M + (n - a);
      big t = eulerian[a - 1] * pu;
      return {M - a, std::move(pu), std::move(t)};
    }
    const std::uint64_t mid = a + (b - a) / 2;
    split left = sum_split(eulerian, a, mid);
    split right = sum_split(eulerian, mid, b);
    left.t *= right.pu;
    right.t *= left.pl;
    left.t += right.t;
    left.pl *= right.pl;
    left.pu *= right.pu;
    return left;
  }
  // sum_{r=1}^{R} A(n, r-1) F(r) for R >= 1 (L(1) = 1).
  [[nodiscard]] big weighted_prefix(const std::vector<big>& eulerian, std::uint64_t R) const {
    return sum_split(eulerian, 1, R + 1).t * rising_product(M, n - R);
  }
};

}  // namespace

std::vector<riffle_distance> riffle_mixing(std::uint64_t n, std::uint64_t max_shuffles, const run_control& control) {
  check_inputs(n, max_shuffles);
  if (max_shuffles < 1) throw std::invalid_argument("riffle mixing: needs at least one shuffle");
  const std::uint64_t total_units = n + max_shuffles;
  const auto eulerian = eulerian_row(n, control, total_units);
  std::vector<riffle_distance> rows;
  if (eulerian.empty()) return rows;
  const big n_factorial = factorial(n);
  for (std::uint64_t K = 1; K <= max_shuffles; ++K) {
    if (control.stopped()) break;
    const riffle_terms t(n, K);
    // TV = sum over r with P(r) > 1/n! of A(n, r-1) (P(r) - 1/n!): the positive deviations
    // carry half the L1 distance. P(r) - 1/n! = (F(r) - D) / (n! D), and F falls with r, so
    // the positive part is the prefix r = 1..R.
    const std::uint64_t R = t.last_above_uniform();
    big excess = 0;
    if (R) {
      big count = 0;
      for (std::uint64_t r = 1; r <= R; ++r) count += eulerian[r - 1];
      excess = t.weighted_prefix(eulerian, R) - (count << t.log2_D);
    }
    const big tv_den = n_factorial << t.log2_D;
    // Separation: 1 - n! min P = 1 - F(n) / D, the least likely order being the reversed deck
    // (r = n); F(n) = M (M-1) ... (M-n+1), zero when M < n.
    const big sep_num = t.D - t.F(n);
    rows.push_back({K, to_double(excess, tv_den), to_double(sep_num, t.D), to_decimal(excess, tv_den),
                    to_decimal(sep_num, t.D)});
    control.progress(n + K, total_units);
  }
  return rows;
}

namespace {
std::vector<double> distribution_from_row(const std::vector<big>& eulerian, const big& n_factorial, std::uint64_t n,
                                          std::uint64_t shuffles) {
  const riffle_terms t(n, shuffles);
  const big den = n_factorial << t.log2_D;
  std::vector<double> out(n);
  big F = t.first();
  for (std::uint64_t r = 1; r <= n; ++r) {
    out[r - 1] = to_double(eulerian[r - 1] * F, den);
    t.next(F, r);
  }
  return out;
}
}  // namespace

std::vector<double> rising_sequence_distribution(std::uint64_t n, std::uint64_t shuffles) {
  check_inputs(n, shuffles);
  return distribution_from_row(eulerian_row(n, {}, 0), factorial(n), n, shuffles);
}

std::vector<std::vector<double>> rising_sequence_distributions(std::uint64_t n, std::uint64_t max_shuffles,
                                                               const run_control& control) {
  check_inputs(n, max_shuffles);
  const auto eulerian = eulerian_row(n, control, n + max_shuffles);
  std::vector<std::vector<double>> out;
  if (eulerian.empty()) return out;
  const big n_factorial = factorial(n);
  for (std::uint64_t K = 1; K <= max_shuffles && !control.stopped(); ++K) {
    out.push_back(distribution_from_row(eulerian, n_factorial, n, K));
    control.progress(n + K, n + max_shuffles);
  }
  return out;
}

std::vector<double> uniform_rising_sequence_distribution(std::uint64_t n) {
  check_inputs(n, 0);
  const auto eulerian = eulerian_row(n, {}, 0);
  const big n_factorial = factorial(n);
  std::vector<double> out(n);
  for (std::uint64_t r = 1; r <= n; ++r) out[r - 1] = to_double(eulerian[r - 1], n_factorial);
  return out;
}

double riffle_arrangement_probability(std::uint64_t n, std::uint64_t shuffles, std::uint64_t r) {
  check_inputs(n, shuffles);
  if (r < 1 || r > n)
    throw std::invalid_argument(fmt::format("riffle mixing: {} rising sequences is outside 1..{}", r, n));
  const riffle_terms t(n, shuffles);
  if (t.M < r) return 0.0;
  return to_double(rising_product(t.M - (r - 1), n), factorial(n) * t.D);
}

}  // namespace fairdeck
