// The generated heads-up preflop table (src/poker/preflop_table_data.cpp, written by
// tools/preflop_table_gen.cpp): for classes a <= b, row preflop_pair_index(a, b) holds
// {outcomes, wins of a, wins of b, ties} of exact_equity(class a, class b).
#pragma once

#include <cstdint>

namespace fairdeck::poker::internal {

inline constexpr unsigned preflop_pairs = 169 * 170 / 2;
[[nodiscard]] constexpr unsigned preflop_pair_index(unsigned a, unsigned b) noexcept {
  return a * 169 - a * (a - 1) / 2 + (b - a);
}
extern const std::uint32_t preflop_table_data[preflop_pairs][4];

}  // namespace fairdeck::poker::internal
