// Where each null law of the certification battery holds: the data below which a test's
// p-value would come from a law that is wrong (an approximation outside its range, or too few
// expected counts per cell), so the test reports `invalid` with "needs N, has M" instead of a
// p-value. One table for the whole battery: every accumulator reads its minimum here, and
// tests/certify_test.cpp (CertifyValidity.DocsTableMatchesTheCode) checks that the "minimum
// data" column of docs/certify.md says the same numbers.
//
// Rules (docs/certify.md "Valid approximations only"):
// - Pearson chi-square: at least 5 expected per cell (Cochran, "Some methods for strengthening
//   the common chi-square tests", Biometrics 10, 1954); smaller cells are pooled first.
// - Normal approximations of counts (monobit, runs): 100 bits (NIST SP 800-22 §2.1.7, §2.3.7).
// - Birthday spacings: the collision count is Poisson(n^3/4k) only in the limit n, k -> inf
//   with n^3/4k fixed (L'Ecuyer & Simard 2001, Thm. 1); far off at k = 2^12 cells, 64 points
//   and within the calibration tolerance from k = 2^30 cells, n = 4,096 points (8,192 words
//   per replicate at t = 2) — tests/certify_test.cpp checks the p-values at that size.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace fairdeck::certify {

struct validity {
  std::string_view test;  // the test's stable name
  std::uint64_t min;      // minimum sample, in `unit` (0: set per stream from `rule`)
  std::string_view unit;  // what `min` counts (the test_result's unit)
  std::string_view rule;  // where the law holds, in words (the docs' "minimum data" column)
};

// Smallest expected count per cell of a chi-square test (after pooling).
inline constexpr double min_expected_per_cell = 5;
// Birthday spacings: at least 2^birthday_min_cell_bits cells (then n = cbrt(64 k) = 4,096).
inline constexpr unsigned birthday_min_cell_bits = 30;

inline constexpr validity validity_table[] = {
    {"monobit", 100, "bits", "100 bits (normal approximation)"},
    {"runs", 100, "bits", "100 bits (normal approximation)"},
    {"longest-run", 100, "blocks", "100 blocks"},
    {"lowbit-autocorrelation", 1000, "pairs at lag 1", "1,000 pairs per lag"},
    {"frequency", 0, "values", "5 expected per category"},
    {"serial-correlation", 1016, "values", "1,016 values (1,000 + k, k = 16 lags)"},
    {"gap", 200, "gaps", "200 gaps"},
    {"poker", 200, "groups of 5", "200 groups of 5"},
    {"coupon-collector", 200, "segments", "200 segments"},
    {"permutation", 600, "groups of 5", "600 groups of 5 (5 expected per order)"},
    {"birthday-spacings", 1, "replicates", "1 replicate of at least 2^30 cells (n = 4,096 points, 8,192 words)"},
    {"birthday-spacings-low", 1, "replicates", "1 replicate of at least 2^30 cells (n = 4,096 points, 8,192 words)"},
    {"lagged-sum", 0, "values", "5 expected per cell: 5q + 63 values (q = 256 symbols, or the range)"},
    {"matrix-rank-32", 38, "matrices", "38 matrices (5 expected at rank <= 30)"},
    {"matrix-rank-64", 38, "matrices", "38 matrices (5 expected at rank <= 62)"},
    {"linear-complexity", 200, "blocks", "200 blocks of 1,000 bits (NIST §2.10.7)"},
    {"first-card", 0, "decks", "5 expected per card: 5n decks (n cards)"},
    {"first-suit", 0, "decks", "5 expected per suit: 20 decks of 52 cards"},
    {"first-rank", 0, "decks", "5 expected per rank: 65 decks of 52 cards"},
    {"position-card", 0, "decks", "5 expected per cell: 5n decks (260 of 52 cards)"},
    {"position-suit", 0, "decks", "5 expected per cell: 20 decks of 52 cards"},
    {"position-rank", 0, "decks", "5 expected per cell: 65 decks of 52 cards"},
    {"orders", 0, "decks", "5 expected per order: 5 n! decks (n <= 8)"},
    {"successions", 100, "decks", "100 decks (normal approximation)"},
    {"audit-other", 1, "decks",
     "1 deck (max-cell: exact binomial tails; rising-sequences, serial: pooled by the audit)"},
    {"repeat-top", 475, "consecutive pairs", "476 consecutive decks (475 pairs: never repeating is rejected)"},
    {"hand-categories", 200, "hands", "200 hands, then 5 expected per pooled category"},
    {"hole2-categories", 100, "hands", "100 hands (5 expected pairs)"},
};

// The row of `test` (std::logic_error for a name not in the table: a programming error).
[[nodiscard]] const validity& validity_of(std::string_view test);

// 1234567 -> "1,234,567" (how notes, power statements and docs spell counts).
[[nodiscard]] std::string with_commas(std::uint64_t v);

// "needs 100 bits, has 64" — the note of a test below its minimum.
[[nodiscard]] std::string needs(std::uint64_t need, std::uint64_t has, std::string_view unit);

}  // namespace fairdeck::certify
