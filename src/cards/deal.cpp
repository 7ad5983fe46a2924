#include "fairdeck/cards/deal.hpp"

#include <stdexcept>

#include <fmt/format.h>

namespace fairdeck {

holdem_deal deal_holdem(std::span<const card_t> deck, unsigned players) {
  if (players < holdem_min_players || players > holdem_max_players)
    throw std::invalid_argument(fmt::format("hold'em needs {} to {} players, got {}", holdem_min_players,
                                            holdem_max_players, players));
  const holdem_layout at{players};
  if (deck.size() < at.cards_used())
    throw std::invalid_argument(fmt::format("{} players need {} cards but the deck has {}", players,
                                            at.cards_used(), deck.size()));
  holdem_deal d{};
  d.hole.resize(players);
  for (unsigned s = 0; s < players; ++s) d.hole[s] = {deck[at.hole(s, 0)], deck[at.hole(s, 1)]};
  for (unsigned i = 0; i < 3; ++i) {
    d.burns[i] = deck[at.burn(i)];
    d.flop[i] = deck[at.flop(i)];
  }
  d.turn = deck[at.turn()];
  d.river = deck[at.river()];
  return d;
}

std::vector<std::vector<card_t>> deal_hands(std::span<const card_t> deck, unsigned hands, unsigned cards) {
  if (hands == 0 || cards == 0) throw std::invalid_argument("a deal needs at least 1 hand of at least 1 card");
  const auto need = static_cast<unsigned long long>(hands) * cards;
  if (need > deck.size())
    throw std::invalid_argument(fmt::format("{} hands of {} cards need {} cards but the deck has {}", hands, cards,
                                            need, deck.size()));
  std::vector<std::vector<card_t>> out(hands);
  for (unsigned c = 0; c < cards; ++c)
    for (unsigned h = 0; h < hands; ++h) out[h].push_back(deck[std::size_t{c} * hands + h]);
  return out;
}

std::uint64_t cards_needed(const game_request& g) noexcept {
  if (g.holdem) return holdem_layout{g.players}.cards_used();
  return std::uint64_t{g.hands} * g.cards;
}

std::optional<game_problem> validate_game(const game_request& g, const deck_spec& deck) noexcept {
  if (g.holdem && (g.hands || g.cards)) return game_problem::holdem_with_hands;
  if (g.holdem && !g.players) return game_problem::holdem_without_players;
  if (g.holdem && (g.players < holdem_min_players || g.players > holdem_max_players))
    return game_problem::players_out_of_range;
  if (!g.holdem && (g.hands == 0) != (g.cards == 0)) return game_problem::hands_without_cards;
  if (cards_needed(g) > deck.size()) return game_problem::deck_too_small;
  return std::nullopt;
}

std::string describe(game_problem p, const game_request& g, const deck_spec& deck) {
  switch (p) {
    case game_problem::holdem_with_hands: return "hold'em deals by players, not by hands and cards";
    case game_problem::holdem_without_players:
    case game_problem::players_out_of_range:
      return fmt::format("hold'em needs {} to {} players, got {}", holdem_min_players, holdem_max_players, g.players);
    case game_problem::hands_without_cards: return "hands and cards go together (both at least 1)";
    case game_problem::deck_too_small:
      return fmt::format("this deal needs {} cards but the deck has {}", cards_needed(g), deck.size());
  }
  return "this deal cannot be dealt";
}

}  // namespace fairdeck
