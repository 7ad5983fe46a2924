// Negative seeds, read as the runtime reads them (security/attack.hpp parse_seed_range):
// Java (the java engine and runtime) takes a signed long and new Random(S) keeps
// (S ^ 0x5DEECE66D) mod 2^48, so S counts as its two's complement mod 2^48 (-1 is 2^48 - 1;
// a range across 0 is two ranges and is refused with both halves named); .NET Framework takes
// a signed int and new Random(S) uses |S| (int.MinValue: int.MaxValue), so -5..-1 is 1..5.
// Other engines and runtimes refuse negative seeds.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "fairdeck/runtimes/runtime.hpp"

namespace fairdeck {

// For a seed range with negative seeds that `runtime` accepts: one line naming the seeds it
// maps to ("new Random(S) keeps S mod 2^48 (Java's signed long) -5..-1: seeds
// 281474976710651..281474976710655"); nullopt otherwise.
[[nodiscard]] std::optional<std::string> negative_seed_note(std::string_view text, runtimes::runtime_id runtime);

}  // namespace fairdeck
