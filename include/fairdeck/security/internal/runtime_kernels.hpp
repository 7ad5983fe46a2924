// Seed filters for the runtime shuffles (src/security/attack_php.cpp, attack_go.cpp), same
// contract as the legacy lane scanners (attack_kernel.hpp): append every seed whose tracked
// cards land on target, plus seeds the filter could not follow; the caller confirms each.
#pragma once

#include <cstddef>
#include <vector>

#include "fairdeck/security/internal/attack_kernel.hpp"

namespace fairdeck::detail {

// nullptr when the shuffle needs more draws than the filter models (PHP: 226, Go: 273).
[[nodiscard]] seed_scanner php_scanner(std::size_t step_count);
[[nodiscard]] seed_scanner go_scanner(std::size_t step_count);

// Every PHP kernel this CPU can run, named by instruction set ("baseline", "avx2", "avx512"):
// for the tests (all must find the same seeds) and the benchmarks. php_scanner picks the last.
struct named_scanner {
  const char* isa;
  seed_scanner scan;
};
[[nodiscard]] std::vector<named_scanner> php_kernels();

// The variant for this CPU's instruction set (lane_isa()).
[[nodiscard]] seed_scanner pick_scanner(seed_scanner avx512, seed_scanner avx2, seed_scanner baseline) noexcept;

}  // namespace fairdeck::detail
