// Pooling of sparse chi-squared bins: the binning shared by the audit's rising-sequences test
// (stats/tests.hpp), the certification battery's chi2_against (certify/result.hpp) and the
// power prediction (stats/power.hpp), so the predicted and the measured test are the same.
#pragma once

#include <vector>

namespace fairdeck::stats {

// Neighbouring bins are pooled in order, from the first, until each expects at least
// `min_expected` of `trials` under `null` (the usual rule of thumb for Pearson's chi-squared
// approximation, Cochran, "Some methods for strengthening the common chi-square tests",
// Biometrics 10(4), 1954); a thin tail that never reaches it joins the last bin. Both
// vectors have the same length; the result is empty when no bin reaches min_expected.
struct pooled_bins {
  std::vector<double> values;  // pooled `values` (counts or probabilities)
  std::vector<double> null;    // pooled null probabilities
};
[[nodiscard]] pooled_bins pool_bins(const std::vector<double>& values, const std::vector<double>& null, double trials,
                                    double min_expected = 5);

}  // namespace fairdeck::stats
