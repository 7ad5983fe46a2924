// Placeholder until tools/preflop_table_gen.cpp has run.
#include "fairdeck/poker/internal/preflop_data.hpp"
namespace fairdeck::poker::internal {
const std::uint32_t preflop_table_data[preflop_pairs][4] = {};
}  // namespace fairdeck::poker::internal
