// Is a shuffle run fair? Two conditions, both required:
//   1. the algorithm is exactly uniform given ideal draws (shuffle_spec::fair()), and
//   2. every bounded draw "index below i" it makes is exactly uniform with this engine.
// fairdeck's own engines draw with Lemire's exact method (random/bounded.hpp). Legacy
// emulations keep their historical mapping (rand() % n, (seed * n) >> 32, ...), which is
// biased for every bound that does not divide their output count, and cannot reach indices
// at or above their output count at all (msvc-rand's 15-bit rand(): 32768). A shoe of n cards
// asks Fisher-Yates for every bound 2..n, so the largest bound decides. A sort step draws
// whole 64-bit keys (exactly, on any engine) and makes the order uniform by itself.
#pragma once

#include <cstdint>
#include <string>

#include "fairdeck/random/engine_registry.hpp"
#include "fairdeck/shuffle/algorithm.hpp"

namespace fairdeck {

struct bounded_draw_quality {
  bool exact = true;
  std::string bias;  // one line naming the bias; empty when exact
};

// How engine `id` draws indices below every bound 2..max_bound.
[[nodiscard]] bounded_draw_quality draw_quality(engine_id id, std::uint64_t max_bound);

struct shuffle_fairness {
  bool fair = true;
  std::string warning;  // one line for stderr when not fair; empty when fair
};

// The verdict for shuffling an n-card shoe with `algo` on engine `id`.
[[nodiscard]] shuffle_fairness assess_fairness(const shuffle_spec& algo, engine_id id, std::uint64_t n);

}  // namespace fairdeck
