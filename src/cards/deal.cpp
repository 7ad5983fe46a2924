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

}  // namespace fairdeck
