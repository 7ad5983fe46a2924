#include "card_output.hpp"

#include <fmt/format.h>

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

}  // namespace fairdeck::cli
