#include "card_output.hpp"

#include <fmt/format.h>

#include "command.hpp"

namespace fairdeck::cli {

nlohmann::json cards_json(std::span<const card_t> cards, const deck_spec& spec, format_options fo) {
  nlohmann::json out = nlohmann::json::array();
  for (card_t c : cards) out.push_back(format_card(c, spec, fo));
  return out;
}

nlohmann::json holdem_json(const holdem_deal& d, const deck_spec& spec, format_options fo) {
  nlohmann::json seats = nlohmann::json::array();
  for (const auto& h : d.hole) seats.push_back(cards_json(h, spec, fo));
  return {{"seats", seats},
          {"burns", cards_json(d.burns, spec, fo)},
          {"flop", cards_json(d.flop, spec, fo)},
          {"turn", format_card(d.turn, spec, fo)},
          {"river", format_card(d.river, spec, fo)}};
}

void print_holdem(const holdem_deal& d, const deck_spec& spec, format_options fo, int indent) {
  const std::string pad(static_cast<std::size_t>(indent), ' ');
  for (std::size_t s = 0; s < d.hole.size(); ++s)
    fmt::print("{}Seat {:>2}: {}\n", pad, s + 1, format_cards(d.hole[s], spec, fo));
  fmt::print("{}Flop:    {}   (burn {})\n", pad, format_cards(d.flop, spec, fo), format_card(d.burns[0], spec, fo));
  fmt::print("{}Turn:    {}   (burn {})\n", pad, format_card(d.turn, spec, fo), format_card(d.burns[1], spec, fo));
  fmt::print("{}River:   {}   (burn {})\n", pad, format_card(d.river, spec, fo), format_card(d.burns[2], spec, fo));
}

void check_game(const game_request& g, const deck_spec& spec) {
  if (g.holdem && (g.hands || g.cards)) throw usage_error("hold'em takes --players, not --hands/--cards");
  if (g.holdem && !g.players) throw usage_error("hold'em needs --players P (2..22)");
  if (g.holdem && (g.players < holdem_min_players || g.players > holdem_max_players))
    throw usage_error(fmt::format("--players must be {}..{}, got {}", holdem_min_players, holdem_max_players, g.players));
  if (!g.holdem && (g.hands || g.cards) && !(g.hands && g.cards))
    throw usage_error("--hands H and --cards C go together (both at least 1)");
  const std::size_t need = g.holdem ? holdem_layout{g.players}.cards_used() : std::size_t{g.hands} * g.cards;
  if (need > spec.size()) throw usage_error(fmt::format("this deal needs {} cards but the deck has {}", need, spec.size()));
}

void add_game_json(nlohmann::json& j, const game_request& g, std::span<const card_t> deck, const deck_spec& spec,
                   format_options fo) {
  if (g.holdem) {
    j.update({{"game", "holdem"}, {"players", g.players}});
    j.update(holdem_json(deal_holdem(deck, g.players), spec, fo));
  } else if (g.hands) {
    nlohmann::json hs = nlohmann::json::array();
    for (const auto& h : deal_hands(deck, g.hands, g.cards)) hs.push_back(cards_json(h, spec, fo));
    j.update({{"hands", hs}, {"cards_per_hand", g.cards}});
  }
}

void print_game(const game_request& g, std::span<const card_t> deck, const deck_spec& spec, format_options fo) {
  if (g.holdem) {
    print_holdem(deal_holdem(deck, g.players), spec, fo);
  } else if (g.hands) {
    const auto hands = deal_hands(deck, g.hands, g.cards);
    for (std::size_t h = 0; h < hands.size(); ++h) fmt::print("Hand {:>2}: {}\n", h + 1, format_cards(hands[h], spec, fo));
  }
}

}  // namespace fairdeck::cli
