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
//
// Weighted ranges (parse_weighted_range) add, per item:
//   AA@50  QsQc@25     weight in percent (0-100, up to two decimals)
//   JTo:0.25           weight as a fraction (0-1, up to four decimals)
//   15%                the top 15 % of all 1,326 combos by the preflop ranking of
//                      preflop_table.hpp (hand classes by equity against a random hand)
// A combo of weight w % is held w/100 as often as an unweighted one; a combo listed again
// takes the weight of its last mention; weight 0 removes it.
#pragma once

#include <array>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "fairdeck/cards/card.hpp"

namespace fairdeck::poker {

using hole_cards = std::array<card_t, 2>;  // two distinct cards, lower index first

// Combo weights are integers in units of weight_unit = 100 % (so 0.01 % steps).
inline constexpr std::uint32_t weight_unit = 10000;

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

// The combos of a range, sorted and distinct. Throws range_parse_error (also for weights:
// use parse_weighted_range).
[[nodiscard]] std::vector<hole_cards> parse_range(std::string_view text);

struct weighted_range {
  std::vector<hole_cards> combos;       // sorted, distinct, weight > 0
  std::vector<std::uint32_t> weights;   // parallel, in weight_unit; empty when all are 100 %
};
[[nodiscard]] weighted_range parse_weighted_range(std::string_view text);

// Cards as a bit set (bit c for card c).
[[nodiscard]] constexpr std::uint64_t card_bit(card_t c) noexcept { return std::uint64_t{1} << c; }
[[nodiscard]] constexpr std::uint64_t card_bits(const hole_cards& h) noexcept { return card_bit(h[0]) | card_bit(h[1]); }

}  // namespace fairdeck::poker
