// The table writes of table.hpp, on top of the dealing spec (security/provably_fair.hpp).
#include "fairdeck/service/table.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "fairdeck/cards/deal.hpp"
#include "fairdeck/random/os_entropy.hpp"
#include "fairdeck/security/provably_fair.hpp"
#include "fairdeck/service/mental.hpp"
#include "hands.hpp"

namespace fairdeck::service {
namespace {

write_result do_open(const open_table& req, transaction& tx, const secret_key& key) {
  if (req.seats < 1 || req.seats > max_seats)
    return failure(outcome::bad_request, fmt::format("seats must be 1..{}", max_seats));
  try {
    validate(req.spec);
  } catch (const std::invalid_argument& e) {
    return failure(outcome::bad_request, e.what());
  }
  table_state t;
  t.id = req.id.empty() ? new_table_id() : req.id;
  if (!valid_table_id(t.id)) return failure(outcome::bad_request, "table id must match [A-Za-z0-9_-]{1,64}");
  t.seats = req.seats;
  t.spec = req.spec;
  const auto seed = fair::server_seed::generate();
  t.sealed_seed = seal_seed(seed, key, t.id);
  t.commitment = fair::commitment(seed);
  t.seat_seeds.assign(req.seats, std::string());
  if (req.mental && req.mental->players.size() != req.seats)
    return failure(outcome::bad_request, "a mental-poker table has one player's public share per seat");
  t.mental = req.mental;
  record r;
  r.seq = 0;
  r.type = record_type::open;
  r.table = t.id;
  r.time = utc_now();
  r.seats = t.seats;
  r.decks = t.spec.decks;
  r.jokers = t.spec.jokers;
  r.commitment = t.commitment;
  seal(r, zero_hash);
  t.next_seq = 1;
  t.head_hash = r.hash;
  try {
    tx.insert(t);
  } catch (const table_exists&) {
    return failure(outcome::conflict, fmt::format("table '{}' already exists", t.id));
  }
  tx.append(r);
  write_result out;
  out.table = t.id;
  out.commitment = t.commitment;
  out.rec = std::move(r);
  return out;
}

write_result do_set_seed(const set_client_seed& req, transaction& tx) {
  auto t = tx.load(req.table);
  if (!t) return failure(outcome::not_found, fmt::format("no table '{}'", req.table));
  if (t->mental) return refuse_on_mental_table(t->id);
  if (req.seat < 1 || req.seat > t->seats)
    return failure(outcome::not_found, fmt::format("table '{}' has seats 1..{}", req.table, t->seats));
  try {
    fair::validate_client_seed(req.client_seed);
  } catch (const fair::fair_input_error& e) {
    return failure(outcome::bad_request, e.what());
  }
  if (req.for_nonce && *req.for_nonce != t->next_nonce) {
    return failure(outcome::conflict, *req.for_nonce < t->next_nonce
                                          ? fmt::format("hand {} has already been dealt", *req.for_nonce)
                                          : fmt::format("hand {} is not open yet (next hand: {})", *req.for_nonce,
                                                        t->next_nonce));
  }
  t->seat_seeds[req.seat - 1] = req.client_seed;
  tx.update(*t);
  write_result out;
  out.table = t->id;
  out.commitment = t->commitment;
  return out;
}

}  // namespace

void deal_cards(table_state& t, batch_keys& keys, record& r, write_result& out) {
  r.client_seed = fair::combine_client_seeds(r.seat_seeds);
  r.decks = t.spec.decks;
  r.jokers = t.spec.jokers;
  if (is_v1_seal(t.sealed_seed)) {
    const auto seed = open_seed(t.sealed_seed, keys.key(), t.id, t.commitment);
    out.deck = fair::deal_deck(seed, r.client_seed, r.nonce, t.spec);
    t.sealed_seed = seal_seed(seed, keys.key(), t.id);  // bind an older seal to its table
  } else {
    out.deck = fair::deal_deck(keys.keyed(t.sealed_seed, t.id, t.commitment), r.client_seed, r.nonce, t.spec);
  }
  r.cards = format_cards(out.deck, t.spec);
  seal(r, t.head_hash);
}

void append_to_chain(table_state& t, const record& r, transaction& tx) {
  t.next_seq += 1;
  t.head_hash = r.hash;
  tx.append(r);
  tx.update(t);
}

std::optional<std::string> check_game(const game_spec& g, const table_state& t) {
  const game_request req{g.holdem, g.holdem ? t.seats : 0, g.holdem ? 0 : g.hands, g.holdem ? 0 : g.cards};
  const auto problem = validate_game(req, t.spec);
  if (!problem) return std::nullopt;
  switch (*problem) {
    case game_problem::holdem_with_hands:  // not reachable: hold'em ignores hands and cards here
    case game_problem::holdem_without_players:
    case game_problem::players_out_of_range:
      return fmt::format("hold'em needs {}..{} seats; this table has {}", holdem_min_players, holdem_max_players,
                         t.seats);
    case game_problem::hands_without_cards: return "\"hands\" and \"cards\" go together (both at least 1)";
    case game_problem::deck_too_small: break;
  }
  if (g.holdem) return "the shoe is too small for hold'em at this table";
  return fmt::format("{} hands of {} cards need more than the {} cards of the shoe", g.hands, g.cards, t.spec.size());
}

namespace {

// What an idempotency key binds: the request's parameters (the table is the key's scope).
std::string deal_fingerprint(const deal& req) {
  return fmt::format("holdem={} hands={} cards={}", req.game.holdem ? 1 : 0, req.game.hands, req.game.cards);
}

// A retried deal: the stored record answered again, cards from the record itself.
write_result replay_deal(const deal& req, const table_state& t, const transaction::idempotent_deal& done,
                         transaction& tx) {
  if (done.fingerprint != deal_fingerprint(req))
    return failure(outcome::conflict, "this Idempotency-Key was already used on this table for a different deal request");
  auto rec = tx.record_at(req.table, done.seq);
  if (!rec || rec->type != record_type::deal)
    throw std::runtime_error(fmt::format("idempotency key of table '{}' names record {}, not a deal", req.table, done.seq));
  write_result out;
  const deck_spec spec{rec->decks, rec->jokers};
  out.deck = parse_cards(rec->cards, spec);
  out.table = t.id;
  out.commitment = rec->commitment;
  out.seats = t.seats;
  out.rec = std::move(rec);
  out.replayed = true;
  return out;
}

write_result do_deal(const deal& req, transaction& tx, batch_keys& keys) {
  auto t = tx.load(req.table);
  if (!t) return failure(outcome::not_found, fmt::format("no table '{}'", req.table));
  if (t->mental) return refuse_on_mental_table(t->id);
  if (!req.idempotency_key.empty()) {
    if (!valid_idempotency_key(req.idempotency_key))
      return failure(outcome::bad_request, fmt::format("an Idempotency-Key is 1..{} printable ASCII characters", max_idempotency_key));
    if (const auto done = tx.find_idempotency(req.table, req.idempotency_key)) return replay_deal(req, *t, *done, tx);
  }
  if (t->hand)
    return failure(outcome::conflict, fmt::format("hand {} is in progress; deal it through its hand", t->hand->hand));
  for (unsigned s = 0; s < t->seats; ++s)
    if (t->seat_seeds[s].empty())
      return failure(outcome::conflict, fmt::format("seat {} has no client seed yet", s + 1));
  if (const auto bad = check_game(req.game, *t)) return failure(outcome::bad_request, *bad);
  if (t->next_nonce == UINT64_MAX) return failure(outcome::conflict, "nonce counter exhausted; open a new table");
  record r;
  r.seq = t->next_seq;
  r.type = record_type::deal;
  r.table = t->id;
  r.time = utc_now();
  r.nonce = t->next_nonce;
  r.commitment = t->commitment;
  r.seat_seeds = t->seat_seeds;
  write_result out;
  deal_cards(*t, keys, r, out);
  t->next_nonce += 1;
  append_to_chain(*t, r, tx);
  if (!req.idempotency_key.empty())
    tx.store_idempotency(req.table, req.idempotency_key, transaction::idempotent_deal{deal_fingerprint(req), r.seq});
  out.table = t->id;
  out.commitment = t->commitment;
  out.seats = t->seats;
  out.rec = std::move(r);
  return out;
}

write_result do_rotate(const rotate& req, transaction& tx, const secret_key& key) {
  auto t = tx.load(req.table);
  if (!t) return failure(outcome::not_found, fmt::format("no table '{}'", req.table));
  if (t->hand)
    return failure(outcome::conflict,
                   fmt::format("hand {} is in progress: the seed cannot be rotated until it is dealt or aborted",
                               t->hand->hand));
  const auto fresh = fair::server_seed::generate();
  record r;
  r.seq = t->next_seq;
  r.type = record_type::rotate;
  r.table = t->id;
  r.time = utc_now();
  r.revealed_seed = open_seed(t->sealed_seed, key, t->id, t->commitment).hex();  // retired now: public from here on
  r.commitment = t->commitment;
  r.next_commitment = fair::commitment(fresh);
  seal(r, t->head_hash);
  t->sealed_seed = seal_seed(fresh, key, t->id);
  t->commitment = r.next_commitment;
  append_to_chain(*t, r, tx);
  write_result out;
  out.table = t->id;
  out.commitment = t->commitment;
  out.rec = std::move(r);
  return out;
}

}  // namespace

write_result failure(outcome code, std::string error) {
  write_result r;
  r.code = code;
  r.error = std::move(error);
  return r;
}

write_result apply(const write_request& req, transaction& tx, batch_keys& keys) {
  const secret_key& key = keys.key();
  return std::visit(
      [&](const auto& r) -> write_result {
        using T = std::decay_t<decltype(r)>;
        if constexpr (std::is_same_v<T, open_table>) return do_open(r, tx, key);
        else if constexpr (std::is_same_v<T, set_client_seed>) return do_set_seed(r, tx);
        else if constexpr (std::is_same_v<T, deal>) return do_deal(r, tx, keys);
        else if constexpr (std::is_same_v<T, rotate>) return do_rotate(r, tx, key);
        else if constexpr (std::is_same_v<T, open_mental_hand> || std::is_same_v<T, mental_step_write>)
          return apply_mental(r, tx);
        else return apply_hand(r, tx, keys);
      },
      req);
}

const std::string& table_of(const write_request& r) noexcept {
  return std::visit(
      [](const auto& w) -> const std::string& {
        if constexpr (std::is_same_v<std::decay_t<decltype(w)>, open_table>) return w.id;
        else return w.table;
      },
      r);
}

std::string new_table_id() {
  std::array<std::uint8_t, 10> bytes{};
  os_entropy(std::as_writable_bytes(std::span(bytes)));
  std::string id = "t";
  for (const auto b : bytes) id += fmt::format("{:02x}", b);
  return id;
}

bool valid_idempotency_key(std::string_view key) noexcept {
  if (key.empty() || key.size() > max_idempotency_key) return false;
  return std::all_of(key.begin(), key.end(), [](char c) { return c >= 0x21 && c <= 0x7e; });
}

std::optional<transaction::idempotent_deal> transaction::find_idempotency(std::string_view, std::string_view) {
  throw std::runtime_error("this store keeps no idempotency keys");
}
void transaction::store_idempotency(std::string_view, std::string_view, const idempotent_deal&) {
  throw std::runtime_error("this store keeps no idempotency keys");
}
std::optional<record> transaction::record_at(std::string_view, std::uint64_t) {
  throw std::runtime_error("this store cannot read records inside a write");
}

}  // namespace fairdeck::service
