// A slow, obviously-correct poker evaluator: tries every 5-card subset and judges each by
// the textbook rules. For tests and as the baseline in benchmarks; use hand_eval.hpp for
// real work.
#pragma once

#include <cstdint>
#include <span>

#include "fairdeck/cards/card.hpp"
#include "fairdeck/poker/hand_eval.hpp"

namespace fairdeck::poker {

// category << 20 | the deciding ranks (poker ranks 0 = deuce .. 12 = ace, 4 bits each, most
// significant first, zero-padded to five). Larger value = better hand; equal = tie.
// Accepts 5..7 distinct cards of one deck (unchecked).
[[nodiscard]] std::uint32_t reference_value(std::span<const card_t> cards);
[[nodiscard]] constexpr hand_category reference_category(std::uint32_t value) noexcept {
  return static_cast<hand_category>(value >> 20);
}

}  // namespace fairdeck::poker
