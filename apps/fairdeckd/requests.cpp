// Request bodies of fairdeckd (requests.hpp).
#include "requests.hpp"

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <set>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace fairdeck::service {
namespace {

using json = nlohmann::json;

// A JSON object, or bad_body. Refused besides malformed JSON: duplicate keys at any depth
// (which of two values counts would be up to the parser) and numbers out of a double's range.
json parse_object(std::string_view body, bool empty_ok) {
  if (body.empty() && empty_ok) return json::object();
  std::vector<std::set<std::string>> keys;  // per open object
  const json::parser_callback_t no_duplicates = [&keys](int, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::object_start) keys.emplace_back();
    else if (event == json::parse_event_t::object_end && !keys.empty()) keys.pop_back();
    else if (event == json::parse_event_t::key && !keys.empty() && !keys.back().insert(parsed.get<std::string>()).second)
      throw bad_body(fmt::format("duplicate field \"{}\"", parsed.get<std::string>()));
    return true;
  };
  json j;
  try {
    j = json::parse(body, no_duplicates);
  } catch (const json::parse_error& e) {
    throw bad_body(fmt::format("malformed JSON at byte {}", e.byte));
  } catch (const json::out_of_range&) {
    throw bad_body("a number in the body is too large");
  } catch (const json::exception& e) {
    throw bad_body(fmt::format("malformed JSON body (error {})", e.id));
  }
  if (!j.is_object()) throw bad_body("the body must be a JSON object");
  return j;
}

void only_keys(const json& j, std::initializer_list<std::string_view> keys) {
  for (const auto& [k, v] : j.items()) {
    (void)v;
    if (std::find(keys.begin(), keys.end(), k) == keys.end()) throw bad_body(fmt::format("unknown field \"{}\"", k));
  }
}

// The integer field `key` in min..max (the range the error names is the one checked).
std::optional<std::uint64_t> opt_uint(const json& j, const char* key, std::uint64_t min, std::uint64_t max) {
  auto it = j.find(key);
  if (it == j.end()) return std::nullopt;
  if (!it->is_number_unsigned() || it->get<std::uint64_t>() < min || it->get<std::uint64_t>() > max)
    throw bad_body(fmt::format("\"{}\" must be an integer {}..{}", key, min, max));
  return it->get<std::uint64_t>();
}

std::optional<std::string> opt_string(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end()) return std::nullopt;
  if (!it->is_string()) throw bad_body(fmt::format("\"{}\" must be a string", key));
  return it->get<std::string>();
}

// A mental table's players: one public share per seat, each the object `fairdeck mental keygen`
// prints ({"format": "fairdeck-mental-pub/v1", "proof": …, "public": …}) with a valid proof of
// knowledge, no share twice; and its timeout.
mental_table parse_mental_players(const json& j, unsigned seats) {
  mental_table m;
  m.timeout = static_cast<unsigned>(opt_uint(j, "timeout", 1, max_mental_timeout).value_or(default_mental_timeout));
  const auto it = j.find("players");
  if (it == j.end() || !it->is_array())
    throw bad_body("a mental table needs \"players\": the public share of each seat's player, in seat order");
  if (seats < mental::min_players || seats > mental::max_players)
    throw bad_body(fmt::format("a mental table has {}..{} seats", mental::min_players, mental::max_players));
  if (it->size() != seats) throw bad_body(fmt::format("\"players\" has {} shares for {} seats", it->size(), seats));
  for (std::size_t i = 0; i < it->size(); ++i) {
    mental::public_share p;
    try {
      p = mental::parse_public_share((*it)[i].dump());
    } catch (const std::exception& e) {
      throw bad_body(fmt::format("players[{}]: {}", i, e.what()));
    }
    if (!mental::verify_public_share(p))
      throw bad_body(fmt::format("players[{}]: the proof of knowledge of the key share does not verify", i));
    for (const auto& q : m.players)
      if (q.pub == p.pub) throw bad_body(fmt::format("players[{}] repeats another player's public share", i));
    m.players.push_back(p);
  }
  return m;
}

}  // namespace

open_table parse_open(std::string_view body) {
  const json j = parse_object(body, false);
  only_keys(j, {"seats", "decks", "jokers", "table", "mode", "players", "timeout"});
  open_table o;
  const auto seats = opt_uint(j, "seats", 1, max_seats);
  if (!seats) throw bad_body(fmt::format("\"seats\" (an integer 1..{}) is required", max_seats));
  o.seats = static_cast<unsigned>(*seats);
  o.spec.decks = static_cast<unsigned>(opt_uint(j, "decks", 1, max_decks).value_or(1));
  o.spec.jokers = static_cast<unsigned>(opt_uint(j, "jokers", 0, max_jokers).value_or(0));
  if (auto id = opt_string(j, "table")) {
    if (!valid_table_id(*id)) throw bad_body("\"table\" must match [A-Za-z0-9_-]{1,64}");
    o.id = std::move(*id);
  }
  const auto mode = opt_string(j, "mode").value_or("standing");
  if (mode == "mental") o.mental = parse_mental_players(j, o.seats);
  else if (mode != "standing") throw bad_body(fmt::format("unknown mode \"{}\" (standing or mental)", mode));
  else if (j.contains("players") || j.contains("timeout")) throw bad_body("\"players\" and \"timeout\" need \"mode\": \"mental\"");
  return o;
}

set_client_seed parse_seed(std::string_view body, std::string table, unsigned seat) {
  const json j = parse_object(body, false);
  only_keys(j, {"client_seed", "nonce"});
  auto seed = opt_string(j, "client_seed");
  if (!seed) throw bad_body("\"client_seed\" (a string) is required");
  return set_client_seed{std::move(table), seat, std::move(*seed), opt_uint(j, "nonce", 0, UINT64_MAX)};
}

deal parse_deal(std::string_view body, std::string table) {
  const json j = parse_object(body, true);
  only_keys(j, {"game", "hands", "cards"});
  deal d{std::move(table), {}};
  if (auto g = opt_string(j, "game")) {
    if (*g != "holdem") throw bad_body(fmt::format("unknown game \"{}\" (supported: holdem)", *g));
    if (j.contains("hands") || j.contains("cards")) throw bad_body("\"game\" does not take \"hands\"/\"cards\"");
    d.game.holdem = true;
  }
  d.game.hands = static_cast<unsigned>(opt_uint(j, "hands", 0, 100000).value_or(0));
  d.game.cards = static_cast<unsigned>(opt_uint(j, "cards", 0, 100000).value_or(0));
  return d;
}

void parse_rotate(std::string_view body) {
  parse_no_fields(body);  // no fields yet: any field is refused, nothing rotates
}

json parse_step_body(std::string_view body) { return parse_object(body, false); }

void parse_no_fields(std::string_view body) { only_keys(parse_object(body, true), {}); }

commit_seat parse_commit(std::string_view body, std::string table, std::uint64_t hand, unsigned seat) {
  const json j = parse_object(body, false);
  only_keys(j, {"commitment"});
  auto c = opt_string(j, "commitment");
  if (!c) throw bad_body("\"commitment\" (64 hex digits: hex(SHA-256(client seed))) is required");
  return commit_seat{std::move(table), hand, seat, std::move(*c)};
}

reveal_seat parse_reveal(std::string_view body, std::string table, std::uint64_t hand, unsigned seat) {
  const json j = parse_object(body, false);
  only_keys(j, {"client_seed"});
  auto seed = opt_string(j, "client_seed");
  if (!seed) throw bad_body("\"client_seed\" (a string) is required");
  return reveal_seat{std::move(table), hand, seat, std::move(*seed)};
}

}  // namespace fairdeck::service
