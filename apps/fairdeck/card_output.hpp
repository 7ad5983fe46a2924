// Card lists and hold'em deals as text and JSON, one spelling for every subcommand.
#pragma once

#include <span>

#include <nlohmann/json.hpp>

#include "fairdeck/cards/card.hpp"
#include "fairdeck/cards/deal.hpp"

namespace fairdeck::cli {

// ["Ac", "Td", ...]
[[nodiscard]] nlohmann::json cards_json(std::span<const card_t> cards, const deck_spec& spec = {},
                                        format_options fo = {});

// {"seats": [[..2 cards..], ...] (seat 1 first), "burns", "flop", "turn", "river"}
[[nodiscard]] nlohmann::json holdem_json(const holdem_deal& d, const deck_spec& spec = {}, format_options fo = {});

// "Seat  1: Ah Kd" per seat (seats numbered from 1), then flop, turn and river with burns.
void print_holdem(const holdem_deal& d, const deck_spec& spec = {}, format_options fo = {}, int indent = 0);

}  // namespace fairdeck::cli
