// Reading deals off a shuffled deck (position 0 is the top card, dealt first).
#pragma once

#include <array>
#include <cstddef>
#include <span>
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

}  // namespace fairdeck
