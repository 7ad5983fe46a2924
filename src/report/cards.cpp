#include "fairdeck/report/cards.hpp"

#include <fmt/format.h>


namespace fairdeck::report {

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

std::string holdem_text(const holdem_deal& d, const deck_spec& spec, format_options fo, int indent) {
  const std::string pad(static_cast<std::size_t>(indent), ' ');
  std::string out;
  auto it = std::back_inserter(out);
  for (std::size_t s = 0; s < d.hole.size(); ++s)
    fmt::format_to(it, "{}Seat {:>2}: {}\n", pad, s + 1, format_cards(d.hole[s], spec, fo));
  fmt::format_to(it, "{}Flop:    {}   (burn {})\n", pad, format_cards(d.flop, spec, fo), format_card(d.burns[0], spec, fo));
  fmt::format_to(it, "{}Turn:    {}   (burn {})\n", pad, format_card(d.turn, spec, fo), format_card(d.burns[1], spec, fo));
  fmt::format_to(it, "{}River:   {}   (burn {})\n", pad, format_card(d.river, spec, fo), format_card(d.burns[2], spec, fo));
  return out;
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

std::string game_text(const game_request& g, std::span<const card_t> deck, const deck_spec& spec, format_options fo) {
  if (g.holdem) return holdem_text(deal_holdem(deck, g.players), spec, fo);
  std::string out;
  if (g.hands) {
    const auto hands = deal_hands(deck, g.hands, g.cards);
    for (std::size_t h = 0; h < hands.size(); ++h)
      fmt::format_to(std::back_inserter(out), "Hand {:>2}: {}\n", h + 1, format_cards(hands[h], spec, fo));
  }
  return out;
}

}  // namespace fairdeck::report
