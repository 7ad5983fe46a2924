// Card lists and hold'em deals as text and JSON, one spelling for the CLI, fairdeckd and Python.
#pragma once

#include <span>
#include <string>

#include <nlohmann/json.hpp>

#include "fairdeck/cards/card.hpp"
#include "fairdeck/cards/deal.hpp"

namespace fairdeck::report {

// ["Ac", "Td", ...]
[[nodiscard]] nlohmann::json cards_json(std::span<const card_t> cards, const deck_spec& spec = {},
                                        format_options fo = {});

// {"seats": [[..2 cards..], ...] (seat 1 first), "burns", "flop", "turn", "river"}
[[nodiscard]] nlohmann::json holdem_json(const holdem_deal& d, const deck_spec& spec = {}, format_options fo = {});

// "Seat  1: Ah Kd" per seat (seats numbered from 1), then flop, turn and river with burns.
[[nodiscard]] std::string holdem_text(const holdem_deal& d, const deck_spec& spec = {}, format_options fo = {},
                                      int indent = 0);

// Adds the deal to j: "game", "players" and holdem_json's keys, or "hands" (list of lists)
// and "cards_per_hand". Nothing for an empty request. `g` must pass validate_game.
void add_game_json(nlohmann::json& j, const game_request& g, std::span<const card_t> deck, const deck_spec& spec,
                   format_options fo);

// "Seat  1: ..." lines (hold'em) or "Hand  1: ..." lines.
[[nodiscard]] std::string game_text(const game_request& g, std::span<const card_t> deck, const deck_spec& spec,
                                    format_options fo);

}  // namespace fairdeck::report
