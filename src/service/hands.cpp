// Hands with seat commitments (hands.hpp): the five hand writes and the stored hand state.
#include "hands.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "fairdeck/security/provably_fair.hpp"
#include "fairdeck/service/mental.hpp"

namespace fairdeck::service {
namespace {

using json = nlohmann::json;

// The seats (from 1) whose entry is still "".
std::vector<unsigned> missing(const std::vector<std::string>& per_seat) {
  std::vector<unsigned> out;
  for (std::size_t i = 0; i < per_seat.size(); ++i)
    if (per_seat[i].empty()) out.push_back(static_cast<unsigned>(i + 1));
  return out;
}

record hand_record(const table_state& t, record_type type, std::uint64_t hand) {
  record r;
  r.seq = t.next_seq;
  r.type = type;
  r.table = t.id;
  r.time = utc_now();
  r.hand = hand;
  return r;
}

// Seals r after the table's head, appends it and stores the table.
void append(table_state& t, record& r, transaction& tx) {
  if (r.hash.empty()) seal(r, t.head_hash);
  append_to_chain(t, r, tx);
}

write_result answer(const table_state& t, std::uint64_t hand, std::optional<record> r) {
  write_result out;
  out.table = t.id;
  out.commitment = t.commitment;
  out.seats = t.seats;
  out.hand = hand;
  out.rec = std::move(r);
  return out;
}

// The table and its hand in progress `hand`, or the failure to answer.
struct located {
  std::optional<table_state> t;
  write_result fail;
};
located locate(transaction& tx, const std::string& table, std::uint64_t hand) {
  located out;
  out.t = tx.load(table);
  if (!out.t) {
    out.fail = failure(outcome::not_found, fmt::format("no table '{}'", table));
  } else if (!out.t->hand || out.t->hand->hand != hand) {
    out.fail = hand >= 1 && hand <= out.t->hands
                   ? failure(outcome::conflict, fmt::format("hand {} is over (dealt or aborted)", hand))
                   : failure(outcome::not_found, fmt::format("table '{}' has no hand {}", table, hand));
    out.t.reset();
  }
  return out;
}

std::optional<write_result> bad_seat(const table_state& t, unsigned seat) {
  if (seat < 1 || seat > t.seats)
    return failure(outcome::not_found, fmt::format("table '{}' has seats 1..{}", t.id, t.seats));
  return std::nullopt;
}

}  // namespace

write_result apply_hand(const open_hand& req, transaction& tx, batch_keys&) {
  auto t = tx.load(req.table);
  if (!t) return failure(outcome::not_found, fmt::format("no table '{}'", req.table));
  if (t->mental) return refuse_on_mental_table(t->id);
  if (t->hand)
    return failure(outcome::conflict,
                   fmt::format("hand {} is in progress: deal or abort it before opening another", t->hand->hand));
  if (t->next_nonce == UINT64_MAX) return failure(outcome::conflict, "nonce counter exhausted; open a new table");
  t->hands += 1;
  record r = hand_record(*t, record_type::hand_open, t->hands);
  r.nonce = t->next_nonce;  // reserved now: dealt or aborted, no other deal ever takes it
  r.commitment = t->commitment;
  r.seats = t->seats;
  t->hand = table_state::hand_progress{t->hands, r.nonce, std::vector<std::string>(t->seats),
                                       std::vector<std::string>(t->seats)};
  t->next_nonce += 1;
  append(*t, r, tx);
  return answer(*t, t->hands, std::move(r));
}

write_result apply_hand(const commit_seat& req, transaction& tx, batch_keys&) {
  auto [t, fail] = locate(tx, req.table, req.hand);
  if (!t) return fail;
  if (auto bad = bad_seat(*t, req.seat)) return *bad;
  std::string c = req.commitment;
  std::transform(c.begin(), c.end(), c.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  if (c.size() != 64 || !std::all_of(c.begin(), c.end(), [](char ch) { return std::isxdigit(static_cast<unsigned char>(ch)); }))
    return failure(outcome::bad_request, "a commitment is 64 hex digits: hex(SHA-256(client seed))");
  auto& h = *t->hand;
  std::string& mine = h.commitments[req.seat - 1];
  if (!mine.empty()) {
    if (mine != c)
      return failure(outcome::conflict,
                     fmt::format("seat {} has already committed to hand {}; a commitment cannot be changed", req.seat,
                                 h.hand));
    write_result same = answer(*t, h.hand, std::nullopt);
    same.repeated = true;
    return same;
  }
  if (std::any_of(h.seeds.begin(), h.seeds.end(), [](const std::string& s) { return !s.empty(); }))
    return failure(outcome::conflict, fmt::format("hand {} is revealing: commitments are closed", h.hand));
  mine = c;
  record r = hand_record(*t, record_type::commit, h.hand);
  r.seat = req.seat;
  r.seat_commitment = c;
  append(*t, r, tx);
  return answer(*t, h.hand, std::move(r));
}

write_result apply_hand(const reveal_seat& req, transaction& tx, batch_keys&) {
  auto [t, fail] = locate(tx, req.table, req.hand);
  if (!t) return fail;
  if (auto bad = bad_seat(*t, req.seat)) return *bad;
  try {
    fair::validate_client_seed(req.client_seed);
  } catch (const fair::fair_input_error& e) {
    return failure(outcome::bad_request, e.what());
  }
  auto& h = *t->hand;
  if (const auto waiting = missing(h.commitments); !waiting.empty())
    return failure(outcome::conflict, fmt::format("not every seat has committed to hand {} yet ({} of {}; seat {} has not)",
                                                  h.hand, t->seats - waiting.size(), t->seats, waiting.front()));
  std::string& mine = h.seeds[req.seat - 1];
  if (!mine.empty()) {
    if (mine != req.client_seed)
      return failure(outcome::conflict,
                     fmt::format("seat {} has already revealed its seed for hand {}; it cannot be changed", req.seat, h.hand));
    write_result same = answer(*t, h.hand, std::nullopt);
    same.repeated = true;
    return same;
  }
  // The seed itself is not echoed: a mistyped secret should not reach a log.
  if (fair::seat_commitment(req.client_seed) != h.commitments[req.seat - 1])
    return failure(outcome::conflict,
                   fmt::format("the seed does not hash to seat {}'s commitment for hand {}", req.seat, h.hand));
  mine = req.client_seed;
  record r = hand_record(*t, record_type::reveal, h.hand);
  r.seat = req.seat;
  r.client_seed = req.client_seed;
  append(*t, r, tx);
  return answer(*t, h.hand, std::move(r));
}

write_result apply_hand(const deal_hand& req, transaction& tx, batch_keys& keys) {
  auto [t, fail] = locate(tx, req.table, req.hand);
  if (!t) return fail;
  const auto h = *t->hand;
  if (const auto waiting = missing(h.seeds); !waiting.empty())
    return failure(outcome::conflict, fmt::format("not every seat has revealed its seed for hand {} yet (seat {} has not)",
                                                  h.hand, waiting.front()));
  if (const auto bad = check_game(req.game, *t)) return failure(outcome::bad_request, *bad);
  record r = hand_record(*t, record_type::hand_deal, h.hand);
  r.nonce = h.nonce;
  r.commitment = t->commitment;
  r.seat_seeds = h.seeds;
  write_result out;
  deal_cards(*t, keys, r, out);
  t->hand.reset();
  append(*t, r, tx);
  write_result done = answer(*t, h.hand, std::move(r));
  done.deck = std::move(out.deck);
  return done;
}

write_result apply_hand(const abort_hand& req, transaction& tx, batch_keys&) {
  auto [t, fail] = locate(tx, req.table, req.hand);
  if (!t) return fail;
  const auto h = *t->hand;
  record r = hand_record(*t, record_type::abort, h.hand);
  r.nonce = h.nonce;
  r.uncommitted = missing(h.commitments);
  r.unrevealed = missing(h.seeds);
  if (r.unrevealed.empty())
    return failure(outcome::conflict,
                   fmt::format("every seat has revealed its seed for hand {}: it can only be dealt", h.hand));
  t->aborts.resize(std::max<std::size_t>(t->aborts.size(), t->seats), 0);
  t->missed_commits.resize(std::max<std::size_t>(t->missed_commits.size(), t->seats), 0);
  // After every commitment, withholding a reveal is the one lever a seat has: counted.
  if (r.uncommitted.empty())
    for (const unsigned s : r.unrevealed) t->aborts[s - 1] += 1;
  else
    for (const unsigned s : r.uncommitted) t->missed_commits[s - 1] += 1;
  t->hand.reset();
  append(*t, r, tx);
  return answer(*t, h.hand, std::move(r));
}

// ---- the stored form ----

std::string hand_state_text(const table_state& t) {
  if (t.hands == 0 && !t.hand && !t.mental) return {};
  json j{{"hands", t.hands}, {"aborts", t.aborts}, {"missed_commits", t.missed_commits}};
  if (t.hand)
    j["hand"] = json{{"hand", t.hand->hand},
                     {"nonce", t.hand->nonce},
                     {"commitments", t.hand->commitments},
                     {"seeds", t.hand->seeds}};
  if (t.mental) j["mental"] = mental_state_json(*t.mental);
  return j.dump();
}

void read_hand_state(table_state& t, std::string_view text) {
  t.hands = 0;
  t.hand.reset();
  t.mental.reset();
  t.aborts.assign(t.seats, 0);
  t.missed_commits.assign(t.seats, 0);
  if (text.empty()) return;
  try {
    const json j = json::parse(text);
    t.hands = j.at("hands").get<std::uint64_t>();
    t.aborts = j.at("aborts").get<std::vector<std::uint64_t>>();
    t.missed_commits = j.at("missed_commits").get<std::vector<std::uint64_t>>();
    t.aborts.resize(std::max<std::size_t>(t.aborts.size(), t.seats), 0);
    t.missed_commits.resize(std::max<std::size_t>(t.missed_commits.size(), t.seats), 0);
    if (const auto it = j.find("hand"); it != j.end()) {
      table_state::hand_progress h;
      h.hand = it->at("hand").get<std::uint64_t>();
      h.nonce = it->at("nonce").get<std::uint64_t>();
      h.commitments = it->at("commitments").get<std::vector<std::string>>();
      h.seeds = it->at("seeds").get<std::vector<std::string>>();
      if (h.commitments.size() != t.seats || h.seeds.size() != t.seats)
        throw std::invalid_argument("hand state: one entry per seat expected");
      t.hand = std::move(h);
    }
    if (const auto it = j.find("mental"); it != j.end()) t.mental = read_mental_state(*it);
  } catch (const json::exception& e) {
    throw std::invalid_argument(fmt::format("table '{}': unreadable hand state ({})", t.id, e.what()));
  }
}

}  // namespace fairdeck::service
