// fairdeckd's mental-poker table mode, the store side (mental.hpp, mental_state.hpp):
// the table's mental state, its two writes, the transcript rebuilt from the log, turn rules
// and who a hand waits for. docs/mental-poker.md §10.
#include "fairdeck/service/mental.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "hands.hpp"

namespace fairdeck::service {
namespace {

using json = nlohmann::json;

bool lower_hex(std::string_view s, std::size_t n) {
  return s.size() == n && s.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

// A transcript with no players and `steps`, as parse_hand reads it (the players are not needed
// to read a step; verify_hand checks the step against the real header).
json skeleton(const mental::hand& h) {
  return json{{"format", mental::hand_format}, {"table", h.table},        {"hand", h.id},
              {"decks", h.spec.decks},         {"jokers", h.spec.jokers}, {"players", json::array()},
              {"steps", json::array()}};
}

// Appends a sealed record to the table's chain and stores both: the answer carries the record.
write_result append_sealed(table_state& t, record r, transaction& tx) {
  append_to_chain(t, r, tx);
  write_result out;
  out.table = t.id;
  out.hand = r.hand;
  out.rec = std::move(r);
  return out;
}

}  // namespace

std::string players_text(std::span<const mental::public_share> players) {
  std::string out;
  for (const auto& p : players) {
    if (!out.empty()) out.push_back(' ');
    out += mental::hex(p.pub) + mental::to_hex(p.proof);
  }
  return out;
}

std::vector<mental::public_share> parse_players(std::string_view text) {
  std::vector<mental::public_share> out;
  while (!text.empty()) {
    const auto sp = text.find(' ');
    const auto item = text.substr(0, sp);
    if (item.size() != 192) throw std::invalid_argument("players: each share is 192 hex digits");
    out.push_back({mental::parse_point(item.substr(0, 64), "a player's public share"),
                   mental::parse_sigma_proof(item.substr(64), "a player's keygen proof")});
    if (sp == std::string_view::npos) break;
    text.remove_prefix(sp + 1);
    if (text.empty()) throw std::invalid_argument("players: ends with a space");
  }
  return out;
}

json mental_state_json(const mental_table& m) {
  json j{{"players", players_text(m.players)}, {"timeout", m.timeout}};
  if (m.hand)
    j["hand"] = json{{"hand", m.hand->hand},   {"id", m.hand->id},     {"first_seq", m.hand->first_seq},
                     {"steps", m.hand->steps}, {"head", m.hand->head}, {"since_ms", m.hand->since_ms}};
  return j;
}

mental_table read_mental_state(const json& j) {
  mental_table m;
  try {
    m.players = parse_players(j.at("players").get<std::string>());
  } catch (const std::invalid_argument& e) {
    throw json::other_error::create(501, fmt::format("mental players: {}", e.what()), &j);
  }
  m.timeout = j.at("timeout").get<unsigned>();
  if (const auto it = j.find("hand"); it != j.end()) {
    mental_table::hand_progress h;
    h.hand = it->at("hand").get<std::uint64_t>();
    h.id = it->at("id").get<std::string>();
    h.first_seq = it->at("first_seq").get<std::uint64_t>();
    h.steps = it->at("steps").get<std::uint64_t>();
    h.head = it->at("head").get<std::string>();
    h.since_ms = it->at("since_ms").get<std::int64_t>();
    m.hand = std::move(h);
  }
  return m;
}

write_result refuse_on_mental_table(const std::string& table) {
  return failure(
      outcome::conflict,
      fmt::format("table '{}' is a mental-poker table: the players deal its hands (/v1/tables/{}/mental/hands)", table,
                  table));
}

std::int64_t now_ms() noexcept {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

write_result apply_mental(const open_mental_hand& req, transaction& tx) {
  auto t = tx.load(req.table);
  if (!t) return failure(outcome::not_found, fmt::format("no table '{}'", req.table));
  if (!t->mental) return failure(outcome::conflict, fmt::format("table '{}' is not a mental-poker table", req.table));
  if (!lower_hex(req.id, 32) || !lower_hex(req.head, 128))
    return failure(outcome::bad_request, "a mental hand needs a 32-hex-digit id and a 128-hex-digit head");
  if (t->hands == UINT64_MAX / 2) return failure(outcome::conflict, "hand counter exhausted; open a new table");
  // A hand id is used once per table (the log verifier refuses a repeat: it would replay the
  // earlier hand's transcript). The API draws 128 random bits, so an earlier hand's id comes
  // back with negligible odds; the table's last hand, kept here, is checked in this transaction.
  if (const auto& cur = t->mental->hand; cur && cur->id == req.id)
    return failure(outcome::conflict,
                   fmt::format("hand id {} is already hand {}'s: a hand id is used once", req.id, cur->hand));
  record r;
  r.seq = t->next_seq;
  r.type = record_type::mental_hand;
  r.table = t->id;
  r.time = utc_now();
  r.hand = t->hands + 1;
  r.mental_id = req.id;
  r.seats = static_cast<unsigned>(t->mental->players.size());
  r.decks = t->spec.decks;
  r.jokers = t->spec.jokers;
  r.players = players_text(t->mental->players);
  r.head = req.head;
  seal(r, t->head_hash);
  t->hands = r.hand;
  t->mental->hand = mental_table::hand_progress{r.hand, r.mental_id, r.seq, 0, r.head, now_ms()};
  const unsigned seats = r.seats;
  auto out = append_sealed(*t, std::move(r), tx);
  out.seats = seats;
  return out;
}

write_result apply_mental(const mental_step_write& req, transaction& tx) {
  auto t = tx.load(req.table);
  if (!t) return failure(outcome::not_found, fmt::format("no table '{}'", req.table));
  if (!t->mental) return failure(outcome::conflict, fmt::format("table '{}' is not a mental-poker table", req.table));
  auto& cur = t->mental->hand;
  if (!cur || req.hand > cur->hand) return failure(outcome::not_found, fmt::format("no mental hand {}", req.hand));
  if (req.hand != cur->hand)
    return failure(outcome::conflict,
                   fmt::format("hand {} is over: hand {} is the table's hand now", req.hand, cur->hand));
  if (req.step != cur->steps)
    return failure(outcome::conflict,
                   fmt::format("step {} of hand {} was taken by another message; fetch the transcript and build the "
                               "step again",
                               req.step, req.hand));
  if (req.player < 1 || req.player > t->mental->players.size() || !lower_hex(req.head, 128) || req.body.empty())
    return failure(outcome::bad_request, "a mental step needs a player of the table, a head and a body");
  record r;
  r.seq = t->next_seq;
  r.type = record_type::mental_step;
  r.table = t->id;
  r.time = utc_now();
  r.hand = req.hand;
  r.step = req.step;
  r.seat = req.player;
  r.head = req.head;
  r.body = req.body;
  seal(r, t->head_hash);
  cur->steps += 1;
  cur->head = r.head;
  cur->since_ms = now_ms();
  return append_sealed(*t, std::move(r), tx);
}

mental::hand hand_of_record(const record& r) {
  if (r.type != record_type::mental_hand) throw std::invalid_argument("not a mental_hand record");
  mental::hand h;
  h.table = r.table;
  h.id = r.mental_id;
  h.spec = deck_spec{r.decks, r.jokers};
  h.players = parse_players(r.players);
  if (h.players.size() != r.seats)
    throw std::invalid_argument(fmt::format("record {}: {} players for {} seats", r.seq, h.players.size(), r.seats));
  return h;
}

mental::hand transcript_from_records(std::span<const record> recs) {
  if (recs.empty()) throw std::invalid_argument("no mental_hand record");
  mental::hand h = hand_of_record(recs[0]);
  for (std::size_t i = 1; i < recs.size(); ++i) {
    const record& r = recs[i];
    if (r.type == record_type::mental_hand) break;
    if (r.type != record_type::mental_step || r.hand != recs[0].hand) continue;
    if (r.step != h.steps.size())
      throw std::invalid_argument(
          fmt::format("record {}: step {} where step {} was expected", r.seq, r.step, h.steps.size()));
    try {
      h.steps.push_back(parse_step(json::parse(r.body), h));
    } catch (const std::exception& e) {
      throw std::invalid_argument(fmt::format("record {}: its step does not read: {}", r.seq, e.what()));
    }
    if (player_of(h.steps.back()) != r.seat)
      throw std::invalid_argument(fmt::format("record {}: seat {} is not the step's player", r.seq, r.seat));
  }
  return h;
}

mental::step parse_step(const json& step, const mental::hand& h) {
  if (!step.is_object()) throw mental::format_error("the step is not a JSON object");
  json t = skeleton(h);
  t["steps"].push_back(step);
  mental::hand one = mental::parse_hand(t.dump());
  if (one.steps.size() != 1) throw mental::format_error("not one step");
  return std::move(one.steps[0]);
}

std::string step_body(const mental::step& s) {
  mental::hand h;
  h.table = "t";
  h.id = std::string(32, '0');
  h.steps.push_back(s);
  return json::parse(mental::to_json(h)).at("steps").at(0).dump();
}

std::uint32_t player_of(const mental::step& s) noexcept {
  return std::visit([](const auto& x) { return x.player; }, s);
}

namespace {

// (recipient, position) -> the players who revealed it to that recipient
using reveal_map = std::map<std::pair<std::uint32_t, std::uint32_t>, std::set<unsigned>>;

reveal_map reveals_of(const mental::hand& h, std::size_t& shuffles, std::size_t& reveals) {
  reveal_map out;
  shuffles = reveals = 0;
  for (const auto& s : h.steps) {
    if (std::holds_alternative<mental::shuffle_step>(s)) {
      ++shuffles;
      continue;
    }
    const auto& r = std::get<mental::reveal_step>(s);
    ++reveals;
    for (const auto p : r.positions) out[{r.to, p}].insert(r.player);
  }
  return out;
}

}  // namespace

mental_status hand_status(const mental::hand& h) {
  mental_status st;
  const auto revealed = reveals_of(h, st.shuffles, st.reveals);
  const auto n = static_cast<unsigned>(h.players.size());
  if (st.shuffles < n) {
    st.next = "shuffle";
    st.awaited = {static_cast<unsigned>(st.shuffles + 1)};
    return st;
  }
  std::map<std::pair<std::uint32_t, std::vector<unsigned>>, std::vector<std::uint32_t>> groups;
  std::set<unsigned> all;
  for (const auto& [key, by] : revealed) {
    std::vector<unsigned> missing;
    for (unsigned p = 1; p <= n; ++p)
      if (p != key.first && !by.contains(p)) missing.push_back(p);
    if (missing.empty()) continue;
    all.insert(missing.begin(), missing.end());
    groups[{key.first, missing}].push_back(key.second);
  }
  for (auto& [key, positions] : groups) st.pending.push_back({key.first, std::move(positions), key.second});
  st.awaited.assign(all.begin(), all.end());
  if (!st.awaited.empty()) st.next = "reveal";
  return st;
}

std::optional<std::string> turn_problem(const mental::hand& h, const mental::step& s) {
  std::size_t shuffles = 0, reveals = 0;
  const auto revealed = reveals_of(h, shuffles, reveals);
  const auto n = h.players.size();
  if (const auto* sh = std::get_if<mental::shuffle_step>(&s)) {
    if (shuffles >= n) return "every player has shuffled already";
    if (sh->player != shuffles + 1)
      return fmt::format("it is player {}'s turn to shuffle, not player {}'s", shuffles + 1, sh->player);
    return std::nullopt;
  }
  const auto& r = std::get<mental::reveal_step>(s);
  if (shuffles < n)
    return fmt::format("reveals start once every player has shuffled (player {} is due to shuffle)", shuffles + 1);
  const auto to_text = [](std::uint32_t to) {
    return to == mental::to_all ? std::string("all") : fmt::format("player {}", to);
  };
  for (const auto p : r.positions) {
    const auto it = revealed.find({r.to, p});
    if (it != revealed.end() && it->second.contains(r.player))
      return fmt::format("player {} has already revealed position {} to {}", r.player, p, to_text(r.to));
    if (it != revealed.end()) continue;  // an opening another player started: r.player follows
    // r.player starts an opening of p. A position opened to a player is that player's card:
    // only its owner starts showing it to others (its own hole cards at a showdown). Else any
    // player could open another's card to all and have the owner awaited, then logged as stalled.
    std::vector<std::uint32_t> owners;
    for (std::uint32_t v = 1; v <= n; ++v)
      if (revealed.contains({v, p})) owners.push_back(v);
    if (owners.empty() || std::find(owners.begin(), owners.end(), r.player) != owners.end()) continue;
    if (owners.size() == 1)
      return fmt::format("position {} was opened to player {}: only player {} starts opening it to {}", p, owners[0],
                         owners[0], to_text(r.to));
    return fmt::format("position {} was opened to players {}: only one of them starts opening it to {}", p,
                       fmt::join(owners, " and "), to_text(r.to));
  }
  return std::nullopt;
}

}  // namespace fairdeck::service
