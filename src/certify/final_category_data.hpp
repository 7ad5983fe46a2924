// The exact final-category counts of every preflop class (final_category_counts in
// fairdeck/certify/hands.hpp), generated into final_category_data.cpp by
// tools/final_category_gen.cpp.
#pragma once

#include <cstdint>

#include "fairdeck/certify/hands.hpp"

namespace fairdeck::certify::internal {

// [class][category]: boards out of C(50,5) = 2,118,760 (each fits 32 bits).
extern const std::uint32_t final_category_data[poker::preflop_classes][poker::category_count];

}  // namespace fairdeck::certify::internal
