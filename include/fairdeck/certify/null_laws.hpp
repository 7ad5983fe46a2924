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

// Rank over GF(2) of an m x q matrix of independent fair bits (Kovalenko 1972; NIST SP 800-22
// §3.5 with m = q = 32: 0.2888, 0.5776, 0.1336 for ranks 32, 31, <= 30): element r is
// P(rank == r), r = 0..min(m, q); P(r) = 2^(r(q+m-r) - mq) prod_(i<r) (1-2^(i-q))(1-2^(i-m))/(1-2^(i-r)).
[[nodiscard]] std::vector<double> matrix_rank_law(unsigned m, unsigned q);

// Linear complexity L of n independent fair bits (Rueppel, "Analysis and Design of Stream
// Ciphers", 1986, Prop. 4.2): element L is P(L), L = 0..n; the number of sequences of
// complexity L is 1 (L = 0), 2^(2L-1) (1 <= L <= n/2) and 2^(2(n-L)) (L > n/2). NIST SP
// 800-22 §2.10 bins this law into 7 classes; here it is exact.
[[nodiscard]] std::vector<double> linear_complexity_law(unsigned n);

// Upper Poisson tail P(X >= x) for X ~ Poisson(lambda).
[[nodiscard]] double poisson_upper_tail(double x, double lambda);

}  // namespace fairdeck::certify
