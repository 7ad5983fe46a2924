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

// What to deal from a shuffled deck, for `deal` and `fair deal`: hold'em for `players`, or
// `hands` hands of `cards` cards round the table, or nothing (just the deck).
struct game_request {
  bool holdem = false;
  unsigned players = 0;
  unsigned hands = 0;
  unsigned cards = 0;
  [[nodiscard]] bool any() const noexcept { return holdem || hands || cards; }
};

// Throws usage_error naming the problem (players out of range, --hands without --cards, more
// cards than the deck has, ...). Callers check their own spelling of the game first.
void check_game(const game_request& g, const deck_spec& spec);

// Adds the deal to j: "game", "players" and holdem_json's keys, or "hands" (list of lists)
// and "cards_per_hand". Nothing for an empty request.
void add_game_json(nlohmann::json& j, const game_request& g, std::span<const card_t> deck, const deck_spec& spec,
                   format_options fo);

// "Seat  1: ..." lines (hold'em) or "Hand  1: ..." lines.
void print_game(const game_request& g, std::span<const card_t> deck, const deck_spec& spec, format_options fo);

}  // namespace fairdeck::cli
