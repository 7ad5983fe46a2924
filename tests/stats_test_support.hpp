// Statistics only the tests need (moved out of the public stats/tests.hpp): a uniformity test
// for p-values, to show that the audit's tests are calibrated, and the uncorrected textbook
// position x card chi-square, to show that it is not.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "fairdeck/stats/counts.hpp"
#include "fairdeck/stats/tests.hpp"

namespace fairdeck::stats {

// The uncorrected textbook version of matrix_test (Pearson X^2 over the n x n position x card
// counts against chi2((n-1)^2)), kept to show in tests that it is miscalibrated: rows and
// columns are both fixed by the deal (docs/audit.md).
[[nodiscard]] inline double naive_matrix_p_value(const audit_counts& c) {
  const double n = static_cast<double>(c.n), t = static_cast<double>(c.trials), e = t / n;
  double x2 = 0;
  for (std::uint64_t v : c.position_card) x2 += (static_cast<double>(v) - e) * (static_cast<double>(v) - e) / e;
  return chi2_upper(x2, (n - 1) * (n - 1));
}

// One-sample Kolmogorov-Smirnov test of values against Uniform(0,1): D and its asymptotic
// p-value with Stephens' (1970) small-sample correction. Used to prove calibration.
struct ks_result {
  double d = 0;
  double p_value = 1;
};
[[nodiscard]] inline ks_result ks_uniform(std::vector<double> values) {
  ks_result r;
  if (values.empty()) return r;
  std::sort(values.begin(), values.end());
  const double m = static_cast<double>(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double x = std::clamp(values[i], 0.0, 1.0);
    r.d = std::max({r.d, static_cast<double>(i + 1) / m - x, x - static_cast<double>(i) / m});
  }
  // Stephens (1970), "Use of the Kolmogorov-Smirnov, Cramer-von Mises and related
  // statistics without extensive tables", JRSS B 32: scaled D for the asymptotic series.
  const double lambda = (std::sqrt(m) + 0.12 + 0.11 / std::sqrt(m)) * r.d;
  if (lambda < 0.2) return r;  // p = 1 to double precision
  double p = 0;
  for (int k = 1; k <= 100; ++k) p += (k % 2 ? 2.0 : -2.0) * std::exp(-2.0 * k * k * lambda * lambda);
  r.p_value = std::clamp(p, 0.0, 1.0);
  return r;
}

}  // namespace fairdeck::stats
