#include <cstdint>
#include <limits>
#include <span>

#include "fairdeck/random/os_entropy.hpp"
#include "fairdeck/runtimes/runtime.hpp"
#include "fairdeck/runtimes/seed_range.hpp"

namespace fairdeck::runtimes {

std::uint64_t fresh_seed(runtime_id id) {
  const std::uint64_t limit = info(id).max_seed + 1;  // 0: every 64-bit value
  constexpr std::uint64_t top = std::numeric_limits<std::uint64_t>::max();
  for (;;) {  // rejection: uniform below limit
    std::uint64_t seed = 0;
    os_entropy(std::as_writable_bytes(std::span(&seed, 1)));
    if (limit == 0) return seed;
    if (seed < top - top % limit && seed % limit >= min_seed(id)) return seed % limit;
  }
}

}  // namespace fairdeck::runtimes
