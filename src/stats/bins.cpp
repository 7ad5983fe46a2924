// Pooling of sparse chi-squared bins (stats/bins.hpp).
#include "fairdeck/stats/bins.hpp"

namespace fairdeck::stats {

pooled_bins pool_bins(const std::vector<double>& values, const std::vector<double>& null, double trials,
                      double min_expected) {
  pooled_bins out;
  double vb = 0, ub = 0;
  for (std::size_t i = 0; i < null.size(); ++i) {
    vb += values[i];
    ub += null[i];
    if (ub * trials >= min_expected) {
      out.values.push_back(vb);
      out.null.push_back(ub);
      vb = ub = 0;
    }
  }
  if (!out.null.empty()) {  // a thin tail joins the last bin
    out.values.back() += vb;
    out.null.back() += ub;
  }
  return out;
}

}  // namespace fairdeck::stats
