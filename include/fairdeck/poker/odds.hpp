// How often each poker category appears among K-card draws (K = 5, 6, 7): exactly, by
// enumerating every hand, or by Monte Carlo with the partial shuffle and deck reuse.
#pragma once

#include <array>
#include <cstdint>

#include "fairdeck/poker/hand_eval.hpp"
#include "fairdeck/random/engine_registry.hpp"
#include "fairdeck/util/run_control.hpp"

namespace fairdeck::poker {

struct category_counts {
  unsigned cards = 7;
  std::uint64_t hands = 0;  // hands counted: all C(52, K), or the trials run
  std::array<std::uint64_t, category_count> count{};
  bool complete = true;  // false when run_control stopped the work early
};

// Every K-card hand once on `threads` threads (0 = one per core); the counts are exact
// integers, so the result never depends on the thread count. Throws std::invalid_argument
// unless 5 <= K <= 7.
[[nodiscard]] category_counts exact_category_counts(unsigned cards, unsigned threads = 0, const run_control& rc = {});

// Monte Carlo: each trial partially shuffles (partial_shuffle.hpp) only K cards of a deck that is
// reused as it is from the previous trial, then evaluates the K dealt cards. Trials run in
// chunks of odds_chunk_trials; chunk i starts from a fresh deck and uses engine stream i,
// so the counts depend only on (engine, cards, trials), never on the thread count.
inline constexpr std::uint64_t odds_chunk_trials = std::uint64_t{1} << 16;
[[nodiscard]] category_counts sample_category_counts(unsigned cards, std::uint64_t trials, const engine_spec& engine,
                                                     unsigned threads = 0, const run_control& rc = {});

// Two-sided Clopper-Pearson ("exact") confidence interval for a binomial proportion,
// Clopper & Pearson, Biometrika 26(4), 1934. Never narrower than the nominal level.
struct proportion_interval {
  double low;
  double high;
};
[[nodiscard]] proportion_interval clopper_pearson(std::uint64_t successes, std::uint64_t trials, double confidence = 0.95);

}  // namespace fairdeck::poker
