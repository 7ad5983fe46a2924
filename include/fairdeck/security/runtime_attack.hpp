// Seed searches against the shuffles real software ships (fairdeck/runtimes/runtime.hpp):
// which runtimes fall to `fairdeck attack --algorithm NAME`, over which seeds, and why the
// others do not. The search itself is run_attack (security/attack.hpp) with
// attack_spec::runtime set: SIMD filters for PHP (MT19937, only the state words the first
// draws need), Go (the ALFG words as direct Lehmer powers), Java and .NET (the legacy lane
// models), a replay of runtime_shuffler for the rest; every candidate is confirmed with the
// runtime's own shuffle, so a reported seed is exactly one whose deck fits.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "fairdeck/cards/card.hpp"
#include "fairdeck/runtimes/runtime.hpp"

namespace fairdeck {

// The catalogue's search facts (runtimes/runtime.hpp runtime_seed_search) for one runtime.
struct runtime_attack_info {
  runtimes::runtime_id id;
  bool searchable = false;         // false: attack refuses, `why` says why
  std::uint64_t last_seed = 0;     // searchable seeds are 0..last_seed (one per generator state)
  bool time_seeds = false;         // --around/--window make sense (clock or tick-count seeds)
  std::string_view seeds;          // what a seed is, for the user
  std::string_view why;            // refused: the reason; searchable: what the full search takes
};
[[nodiscard]] const runtime_attack_info& attack_info(runtimes::runtime_id id) noexcept;

// The deck runtime_shuffler(id, seed) leaves when it shuffles 0..deck_size-1 (first call).
[[nodiscard]] std::vector<card_t> runtime_deck(runtimes::runtime_id id, std::uint64_t seed, std::size_t deck_size);

}  // namespace fairdeck
