// The seeds a runtime's emulation accepts, and the one text that says so. runtime_shuffler
// (runtime.hpp) refuses a seed outside [min_seed(id), info(id).max_seed] with
// seed_range_error; fresh_seed draws inside it.
#pragma once

#include <cstdint>
#include <string>

#include "fairdeck/runtimes/runtime.hpp"

namespace fairdeck::runtimes {

// Smallest seed accepted: 1 for node and node-sort (node --random_seed=0 means an unseeded,
// OS-entropy Math.random: nothing to replay), 0 for the others.
[[nodiscard]] std::uint64_t min_seed(runtime_id id) noexcept;

// "node takes a seed in [1, 4294967295] (node --random_seed=S; 0 means an unseeded,
// OS-entropy Math.random), got 0": the one text for a seed out of range, whichever check
// finds it.
[[nodiscard]] std::string seed_range_error(runtime_id id, std::uint64_t seed);

}  // namespace fairdeck::runtimes
