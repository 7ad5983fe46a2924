// Reading deals off a shuffled deck (position 0 is the top card, dealt first).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "fairdeck/cards/card.hpp"

namespace fairdeck {

// Texas hold'em in the standard order: one card to each player in turn, twice; burn,
// flop (3); burn, turn; burn, river. Uses 2P + 8 cards, so 2 <= P <= 22 on 52 cards.
inline constexpr unsigned holdem_min_players = 2;
inline constexpr unsigned holdem_max_players = 22;

struct holdem_layout {
  unsigned players;
  // Deck position of seat s's k-th hole card (k = 0, 1).
  [[nodiscard]] constexpr std::size_t hole(unsigned seat, unsigned k) const noexcept { return std::size_t{k} * players + seat; }
  [[nodiscard]] constexpr std::size_t burn(unsigned i) const noexcept {
    return std::size_t{2} * players + (i == 0 ? 0 : i == 1 ? 4 : 6);
  }
  [[nodiscard]] constexpr std::size_t flop(unsigned i) const noexcept { return std::size_t{2} * players + 1 + i; }
  [[nodiscard]] constexpr std::size_t turn() const noexcept { return std::size_t{2} * players + 5; }
  [[nodiscard]] constexpr std::size_t river() const noexcept { return std::size_t{2} * players + 7; }
  [[nodiscard]] constexpr std::size_t cards_used() const noexcept { return std::size_t{2} * players + 8; }
};

struct holdem_deal {
  std::vector<std::array<card_t, 2>> hole;  // per seat, in dealing order
  std::array<card_t, 3> burns;
  std::array<card_t, 3> flop;
  card_t turn;
  card_t river;
};

// Throws std::invalid_argument if P is outside [2, 22] or the deck is too short.
[[nodiscard]] holdem_deal deal_holdem(std::span<const card_t> deck, unsigned players);

// H hands of C cards, dealt one card at a time round the table (hand h gets positions
// h, H + h, 2H + h, ...). Throws std::invalid_argument if H*C exceeds the deck.
[[nodiscard]] std::vector<std::vector<card_t>> deal_hands(std::span<const card_t> deck, unsigned hands, unsigned cards);

// What to deal from a shuffled deck: hold'em for `players`, or `hands` hands of `cards`
// cards round the table, or nothing (just the deck). One rule for every front end (the CLI's
// `deal`/`fair deal`, fairdeckd's deals): validate_game says what cannot be dealt, and each
// front end words it in its own terms (a flag, a JSON field, a table's seats).
struct game_request {
  bool holdem = false;
  unsigned players = 0;
  unsigned hands = 0;
  unsigned cards = 0;
  [[nodiscard]] bool any() const noexcept { return holdem || hands || cards; }
};

enum class game_problem {
  holdem_with_hands,       // hold'em deals by players, not hands x cards
  holdem_without_players,  // hold'em with players == 0
  players_out_of_range,    // outside [holdem_min_players, holdem_max_players]
  hands_without_cards,     // exactly one of hands, cards is 0
  deck_too_small,          // cards_needed(g) > the deck's size
};

// Cards the deal takes from the top of the deck (hold'em: 2P + 8 with burns); 0 for nothing.
// Meaningful once validate_game found no problem with the players.
[[nodiscard]] std::uint64_t cards_needed(const game_request& g) noexcept;
// The first problem that keeps `g` from being dealt from `deck`, or nullopt. O(1).
[[nodiscard]] std::optional<game_problem> validate_game(const game_request& g, const deck_spec& deck) noexcept;
// The problem in the library's own words ("hold'em needs 2 to 22 players, got 1").
[[nodiscard]] std::string describe(game_problem p, const game_request& g, const deck_spec& deck);

}  // namespace fairdeck
