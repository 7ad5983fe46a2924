// The Monte Carlo equity interval (poker/equity.hpp: equity_interval).
#include <algorithm>
#include <cmath>

#include "fairdeck/poker/equity.hpp"

namespace fairdeck::poker {

share_interval equity_interval(const equity_result& r, std::size_t player) noexcept {
  if (r.exact) {
    const double e = equity_share(r, player);
    return {e, e};
  }
  const std::uint64_t n = r.outcomes;
  if (n == 0) return {0, 1};
  const player_tally& t = r.players[player];
  const double u = static_cast<double>(r.pot), dn = static_cast<double>(n);
  const double mean = static_cast<double>(t.share) / u / dn;
  const double var = std::max(0.0, static_cast<double>(t.share_sq) / (u * u) / dn - mean * mean);
  const double half = 1.959963984540054 * std::sqrt(var / dn);
  return {std::max(0.0, mean - half), std::min(1.0, mean + half)};
}

}  // namespace fairdeck::poker
