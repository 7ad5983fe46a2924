#include "fairdeck/certify/null_laws.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <boost/math/special_functions/gamma.hpp>

namespace fairdeck::certify {

std::vector<double> longest_run_law(unsigned m, double p) {
  if (m == 0 || !(p > 0 && p < 1)) throw std::invalid_argument("longest_run_law: m >= 1 and 0 < p < 1");
  // below[L] = P(no run of L+1 ones) = P(longest <= L): DP over the current run length.
  std::vector<double> at_most(m + 1, 1.0);
  for (unsigned limit = 0; limit < m; ++limit) {
    std::vector<double> state(limit + 1, 0.0), next(limit + 1);
    state[0] = 1;
    for (unsigned i = 0; i < m; ++i) {
      std::fill(next.begin(), next.end(), 0.0);
      for (unsigned j = 0; j <= limit; ++j) {
        next[0] += state[j] * (1 - p);
        if (j + 1 <= limit) next[j + 1] += state[j] * p;
      }
      state.swap(next);
    }
    double s = 0;
    for (double v : state) s += v;
    at_most[limit] = s;
  }
  std::vector<double> law(m + 1);
  for (unsigned r = 0; r <= m; ++r) law[r] = at_most[r] - (r ? at_most[r - 1] : 0.0);
  return law;
}

std::vector<double> distinct_law(unsigned d, unsigned k) {
  if (d == 0 || k == 0) throw std::invalid_argument("distinct_law: d, k >= 1");
  std::vector<double> state(k + 1, 0.0), next(k + 1);
  state[0] = 1;
  for (unsigned i = 0; i < k; ++i) {
    std::fill(next.begin(), next.end(), 0.0);
    for (unsigned r = 0; r <= i; ++r) {
      const double seen = std::min(1.0, static_cast<double>(r) / d);
      next[r] += state[r] * seen;
      if (r < k) next[r + 1] += state[r] * (1 - seen);
    }
    state.swap(next);
  }
  return state;
}

std::vector<double> coupon_law(unsigned d, unsigned cap) {
  if (d == 0 || cap <= d) throw std::invalid_argument("coupon_law: cap > d >= 1");
  // state[r]: P(r distinct seen after i draws and not yet complete).
  std::vector<double> state(d, 0.0), next(d);
  state[0] = 1;
  std::vector<double> law;
  double done = 0;
  for (unsigned i = 1; i < cap; ++i) {
    std::fill(next.begin(), next.end(), 0.0);
    double complete_now = 0;
    for (unsigned r = 0; r < d; ++r) {
      const double seen = static_cast<double>(r) / d;
      next[r] += state[r] * seen;
      if (r + 1 == d)
        complete_now += state[r] * (1 - seen);
      else
        next[r + 1] += state[r] * (1 - seen);
    }
    state.swap(next);
    if (i >= d) law.push_back(complete_now);
    done += complete_now;
  }
  law.push_back(std::max(0.0, 1 - done));
  return law;
}

std::vector<double> gap_law(double p, unsigned cap) {
  if (!(p > 0 && p < 1) || cap == 0) throw std::invalid_argument("gap_law: 0 < p < 1, cap >= 1");
  std::vector<double> law(cap + 1);
  double q = 1;
  for (unsigned r = 0; r < cap; ++r, q *= 1 - p) law[r] = p * q;
  law[cap] = q;
  return law;
}

double poisson_upper_tail(double x, double lambda) {
  if (x <= 0) return 1.0;
  return boost::math::gamma_p(x, lambda);
}

std::vector<double> matrix_rank_law(unsigned m, unsigned q) {
  if (m == 0 || q == 0 || m > 1000 || q > 1000) throw std::invalid_argument("matrix_rank_law: 1 <= m, q <= 1000");
  const unsigned top = std::min(m, q);
  std::vector<double> law(top + 1);
  for (unsigned r = 0; r <= top; ++r) {
    double log2p = static_cast<double>(r) * (q + m - r) - static_cast<double>(m) * q, prod = 1;
    for (unsigned i = 0; i < r; ++i) {
      const int ii = static_cast<int>(i);
      prod *= (1 - std::ldexp(1.0, ii - static_cast<int>(q))) * (1 - std::ldexp(1.0, ii - static_cast<int>(m))) /
              (1 - std::ldexp(1.0, ii - static_cast<int>(r)));
    }
    law[r] = std::ldexp(prod, static_cast<int>(std::max(-2000.0, log2p)));
  }
  return law;
}

std::vector<double> linear_complexity_law(unsigned n) {
  if (n == 0 || n > 100000) throw std::invalid_argument("linear_complexity_law: 1 <= n <= 100000");
  std::vector<double> law(n + 1);
  const int nn = static_cast<int>(n);
  law[0] = std::ldexp(1.0, -nn);
  for (unsigned l = 1; l <= n; ++l) {
    const int ll = static_cast<int>(l);
    law[l] = 2 * l <= n ? std::ldexp(1.0, 2 * ll - 1 - nn) : std::ldexp(1.0, 2 * (nn - ll) - nn);
  }
  return law;
}

}  // namespace fairdeck::certify
