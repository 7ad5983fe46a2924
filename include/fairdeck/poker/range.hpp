// Hold'em hole cards and hand ranges in the standard notation.
//
//   AhKh, "Ah Kh", 10h9h    two exact cards
//   QQ  QQ+  99-66          pairs: one, that pair and every higher one, a span
//   AKs AKo AK              suited (4 combos), offsuit (12), both (16)
//   ATs+  KTo+              same high card, kicker up to one below it (ATs AJs AQs AKs)
//   A5s-A2s                 same high card, kickers 5 down to 2
//   random (or *)           all 1326 two-card hands
//   comma-separated lists of any of these ("QQ+,AKs,AhKd").
// A range is a set: a combo listed twice counts once, and every combo in it is equally
// likely before card removal (equity.hpp conditions on the other players' cards).
#pragma once

#include <array>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "fairdeck/cards/card.hpp"

namespace fairdeck::poker {

using hole_cards = std::array<card_t, 2>;  // two distinct cards, lower index first

// Raised for text that is not a hand or range; what() names the offending item.
class range_parse_error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Exactly two distinct cards written with or without spaces ("AhKh", "Ah Kh", "10h9h",
// "A♥K♥"); nullopt if the text is not two cards. Duplicate cards throw range_parse_error.
[[nodiscard]] std::optional<hole_cards> parse_hole_cards(std::string_view text);

// Cards written one after another with or without spaces or commas ("7c8d9h", "7c 8d,9h").
// Throws range_parse_error naming the first bad token. Does not check for duplicates.
[[nodiscard]] std::vector<card_t> parse_card_run(std::string_view text);

// The combos of a range, sorted and distinct. Throws range_parse_error.
[[nodiscard]] std::vector<hole_cards> parse_range(std::string_view text);

// Cards as a bit set (bit c for card c).
[[nodiscard]] constexpr std::uint64_t card_bit(card_t c) noexcept { return std::uint64_t{1} << c; }
[[nodiscard]] constexpr std::uint64_t card_bits(const hole_cards& h) noexcept { return card_bit(h[0]) | card_bit(h[1]); }

}  // namespace fairdeck::poker
