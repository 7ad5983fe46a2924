// Exact null distributions of the certification battery's tallies under i.i.d. uniform input,
// computed by small dynamic programmes in double precision (no tables copied from papers,
// so no rounding of published 4-digit probabilities; tests check them against closed forms
// and simulation).
#pragma once

#include <cstdint>
#include <vector>

namespace fairdeck::certify {

// Longest run of ones in a block of m independent bits with P(1) = p: element r is
// P(longest run == r), r = 0..m. NIST SP 800-22 rev. 1a §2.4 tabulates this for p = 1/2 and
// m = 8, 128, 10^4; here it is computed for any m (the battery uses one block per word).
[[nodiscard]] std::vector<double> longest_run_law(unsigned m, double p);

// Number of distinct values among k independent uniform symbols from an alphabet of d
// (Knuth TAOCP vol. 2, 3rd ed., §3.3.2 D, the "simpler" poker test): element r is P(r
// distinct), r = 0..k (r = 0 has probability 0). Equals d(d-1)...(d-r+1)/d^k {k r}.
[[nodiscard]] std::vector<double> distinct_law(unsigned d, unsigned k);

// Coupon collector (Knuth §3.3.2 E): length of a segment of uniform symbols from an alphabet
// of d that first contains all d. Element i is P(length == d + i) for d + i < cap, and the
// last element is P(length >= cap). cap > d.
[[nodiscard]] std::vector<double> coupon_law(unsigned d, unsigned cap);

// Gap test (Knuth §3.3.2 C): gap length r between hits of probability p: p (1-p)^r for
// r < cap, and (1-p)^cap for the last element (r >= cap).
[[nodiscard]] std::vector<double> gap_law(double p, unsigned cap);

// Upper Poisson tail P(X >= x) for X ~ Poisson(lambda).
[[nodiscard]] double poisson_upper_tail(double x, double lambda);

}  // namespace fairdeck::certify
