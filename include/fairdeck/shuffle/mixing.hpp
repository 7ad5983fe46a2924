// How close K Gilbert–Shannon–Reeds riffles of n cards come to a uniform shuffle, computed
// exactly (Bayer & Diaconis, "Trailing the dovetail shuffle to its lair", Ann. Appl. Probab.
// 2(2), 1992): after K riffles of a deck in order, an arrangement with r rising sequences has
// probability C(2^K + n - r, n) / 2^(Kn), and A(n, r-1) arrangements (Eulerian numbers) have r
// rising sequences. All sums are done in exact integer arithmetic (Boost.Multiprecision);
// only the final quotients are rounded, to the nearest double.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fairdeck/util/run_control.hpp"

namespace fairdeck {

// Largest inputs riffle_mixing() accepts: the cost grows like n^2 (Eulerian numbers of
// n log n bits) plus, per K, a binary-split sum over (K n)-bit numbers; at both limits together
// it takes about 4 s of CPU. 8 decks (416 cards) and 20 riffles take about 6 ms.
inline constexpr std::uint64_t riffle_mixing_max_cards = 2080;  // 40 decks
inline constexpr std::uint64_t riffle_mixing_max_shuffles = 200;

struct riffle_distance {
  std::uint64_t shuffles = 0;    // K
  double total_variation = 0;    // 1/2 sum over all n! orders |P_K(order) - 1/n!|
  double separation = 0;         // max over orders of 1 - n! P_K(order)
  std::string total_variation_digits;  // the exact value to 30 decimals, rounded: "0.334..."
  std::string separation_digits;
};

// K = 1..max_shuffles for a deck of n cards (n >= 1). Stops early (returning the rows done so
// far, possibly none) when control says so; reports progress in units of n + max_shuffles.
// Throws std::invalid_argument outside 1..riffle_mixing_max_cards / 1..riffle_mixing_max_shuffles.
[[nodiscard]] std::vector<riffle_distance> riffle_mixing(std::uint64_t n, std::uint64_t max_shuffles,
                                                         const run_control& control = {});

// Distribution of the number of rising sequences (physical.hpp: rising_sequences()) after K
// riffles of n cards in order: element r-1 is P(R = r) = A(n, r-1) C(2^K + n - r, n) / 2^(Kn).
// K = 0 is the unshuffled deck (R = 1). Needs 1 <= n <= riffle_mixing_max_cards and
// K <= riffle_mixing_max_shuffles.
[[nodiscard]] std::vector<double> rising_sequence_distribution(std::uint64_t n, std::uint64_t shuffles);

// The same for K = 1..max_shuffles at once (element K-1), sharing the Eulerian numbers; stops
// early like riffle_mixing().
[[nodiscard]] std::vector<std::vector<double>> rising_sequence_distributions(std::uint64_t n, std::uint64_t max_shuffles,
                                                                             const run_control& control = {});

// The same under a uniform shuffle: A(n, r-1) / n!.
[[nodiscard]] std::vector<double> uniform_rising_sequence_distribution(std::uint64_t n);

// Probability that K riffles of n cards in order produce one given arrangement with r rising
// sequences: C(2^K + n - r, n) / 2^(Kn).
[[nodiscard]] double riffle_arrangement_probability(std::uint64_t n, std::uint64_t shuffles, std::uint64_t r);

// What an audit of a given size can detect of K riffles (test power, from the distances and
// laws above): stats/power.hpp, riffle_detectability_table().

}  // namespace fairdeck
