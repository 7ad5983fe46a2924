// Cards, deck specs and their text form.
//
// Encoding (fixed, see DEVELOPERS.md): index i in [0, 52) is suit i / 13 in the order
// clubs, diamonds, hearts, spades, and rank i % 13 in the order A,2,...,10,J,Q,K.
// Copy d of a multi-deck shoe occupies [52d, 52d + 52); jokers follow all copies.
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace fairdeck {

using card_t = std::uint16_t;  // a card's index in its shoe; 2^16 cards is plenty

inline constexpr unsigned cards_per_deck = 52;
inline constexpr unsigned ranks_per_suit = 13;

// A shoe of `decks` standard 52-card decks plus `jokers` jokers.
struct deck_spec {
  unsigned decks = 1;
  unsigned jokers = 0;

  [[nodiscard]] constexpr std::size_t size() const noexcept {
    return std::size_t{decks} * cards_per_deck + jokers;
  }
  friend constexpr bool operator==(const deck_spec&, const deck_spec&) = default;
};

// Largest shoe fairdeck accepts: keeps card_t in range and stops silly inputs early.
inline constexpr unsigned max_decks = 1000;
inline constexpr unsigned max_jokers = 1000;

// Throws std::invalid_argument naming the bad field when the spec is out of range.
void validate(const deck_spec& spec);

// Suit and rank of a non-joker card (any copy of a shoe); suit in [0,4), rank in [0,13).
[[nodiscard]] constexpr unsigned suit_of(card_t c) noexcept { return (c % cards_per_deck) / ranks_per_suit; }
[[nodiscard]] constexpr unsigned rank_of(card_t c) noexcept { return c % ranks_per_suit; }
[[nodiscard]] constexpr unsigned copy_of(card_t c) noexcept { return c / cards_per_deck; }
[[nodiscard]] constexpr bool is_joker(card_t c, const deck_spec& s) noexcept {
  return c >= std::size_t{s.decks} * cards_per_deck;
}

// The canonical (factory) order 0, 1, ..., n-1.
[[nodiscard]] std::vector<card_t> make_deck(const deck_spec& spec);

// Raised for text that is not a card; what() names the offending token.
class card_parse_error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

struct format_options {
  bool unicode = false;     // suits as ♣♦♥♠ instead of c d h s
};

// "Ac", "Td" ("10d" also parses), "K♠", jokers "X1".."Xj". Multi-deck shoes: the text
// names a face, not a copy, so parse returns copy 0 and `parse_cards` in a shoe context
// assigns copies in order of appearance (the first "Ah" is copy 0, the second copy 1...).
[[nodiscard]] std::string format_card(card_t c, const deck_spec& spec, format_options opt = {});
[[nodiscard]] std::string format_cards(std::span<const card_t> cards, const deck_spec& spec,
                                       format_options opt = {});

// Parses one token. Throws card_parse_error. Jokers must exist in `spec`.
[[nodiscard]] card_t parse_card(std::string_view token, const deck_spec& spec = {});

// Parses a whitespace- or comma-separated list. Repeated faces take successive copies of
// the shoe; more copies than the shoe holds is an error naming the token.
[[nodiscard]] std::vector<card_t> parse_cards(std::string_view text, const deck_spec& spec = {});

}  // namespace fairdeck
