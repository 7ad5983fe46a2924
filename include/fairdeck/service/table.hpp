// A dealing table and the writes on it, independent of the database. Stores run `apply`
// inside one of their transactions. Two ways to deal:
//  - standing seeds (open, set a seat's client seed, deal, rotate): the operator, who can open
//    the sealed server seed, is trusted not to grind a seat it controls (docs/provably-fair.md);
//  - hands with seat commitments (open_hand, commit_seat, reveal_seat, deal_hand, abort_hand;
//    src/service/hands.cpp): every seat commits to SHA-256 of a secret seed before any seed is
//    revealed, so as long as one seat is honest nobody can choose the deal; the most anyone can
//    do is abort, which is logged and counted per seat.
//
// Guarantees (docs/service.md): a deal takes the table's next nonce and next log seq and
// writes its record in the same transaction that advances them, so a nonce is never used
// twice (the stores also enforce UNIQUE(table, nonce)); the hand's client seed is
// fair::combine_client_seeds of the seats' seeds in seat order; the deck is
// fair::deal_deck(server seed, client seed, nonce, shoe). The server seed exists in clear
// only inside apply (wiped on return) and leaves it only in a rotate record, once retired.
// Hands: at most one hand in progress per table; it takes the next nonce when it opens (so a
// nonce is never reused, aborted or not); while it is in progress the table's seed cannot be
// rotated and no standing-seed deal is made; a seat's commitment and seed are never replaced;
// reveals only once every seat committed, the deal only once every seat revealed, exactly once;
// the deck is fair::deal_deck(server seed, combine_client_seeds(revealed seeds in seat order),
// the hand's nonce, shoe). Every accepted hand write appends its record in the same transaction.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "fairdeck/cards/card.hpp"
#include "fairdeck/service/mental_state.hpp"
#include "fairdeck/service/records.hpp"
#include "fairdeck/service/secrets.hpp"

namespace fairdeck::service {

class tree_batch;  // log_tree.hpp

inline constexpr unsigned max_seats = 100;

struct table_state {
  std::string id;
  unsigned seats = 0;
  deck_spec spec{};
  std::string sealed_seed;  // seal_seed() of the seed in force, bound to this table
  std::string commitment;   // its commitment (public)
  std::uint64_t next_nonce = 0;
  std::uint64_t next_seq = 0;
  std::string head_hash;                // hash of record next_seq - 1
  std::vector<std::string> seat_seeds;  // one per seat, "" while unset
  // hands with seat commitments (stored as one JSON text: hand_state_text / read_hand_state)
  struct hand_progress {
    std::uint64_t hand = 0, nonce = 0;
    std::vector<std::string> commitments;  // per seat, "" while not committed
    std::vector<std::string> seeds;        // per seat, "" while not revealed
  };
  std::uint64_t hands = 0;  // hands opened so far (the last one's number)
  std::optional<hand_progress> hand;  // the hand in progress
  std::vector<std::uint64_t> aborts;          // per seat: aborted hands it withheld its reveal in
  std::vector<std::uint64_t> missed_commits;  // per seat: aborted hands it never committed in
  // a mental-poker table (mental_state.hpp): the players deal, the server holds no card secret
  std::optional<mental_table> mental;
};

// The hand fields of a table as the stores keep them: "" for a table that never had a hand
// (and tables from before hands), else a JSON object. read_hand_state throws
// std::invalid_argument for text it did not write.
[[nodiscard]] std::string hand_state_text(const table_state& t);
void read_hand_state(table_state& t, std::string_view text);

// What a store gives `apply`: reads and writes inside one open transaction.
class transaction {
 public:
  virtual ~transaction() = default;
  // The table, locked for update until the transaction ends; nullopt if it does not exist.
  virtual std::optional<table_state> load(std::string_view id) = 0;
  virtual void insert(const table_state& t) = 0;  // throws table_exists when the id is taken
  virtual void update(const table_state& t) = 0;
  virtual void append(const record& r) = 0;
  // Idempotency keys of deals (docs/service.md, "Retries"): the request fingerprint and log
  // seq stored under (table, key), written in the deal's own transaction. A store without
  // them throws (the deal then fails, it is never dealt twice silently).
  struct idempotent_deal {
    std::string fingerprint;
    std::uint64_t seq = 0;
  };
  virtual std::optional<idempotent_deal> find_idempotency(std::string_view table, std::string_view key);
  virtual void store_idempotency(std::string_view table, std::string_view key, const idempotent_deal& d);
  // The record at `seq` of `table` as committed (nullopt if there is none).
  virtual std::optional<record> record_at(std::string_view table, std::uint64_t seq);
};

class table_exists : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// ---- the writes ----
struct open_table {
  unsigned seats = 0;
  deck_spec spec{};
  std::string id;  // empty: the server picks one
  std::optional<mental_table> mental{};  // {"mode": "mental"}: the players' shares, one per seat
};
struct set_client_seed {
  std::string table;
  unsigned seat = 0;  // from 1
  std::string client_seed;
  std::optional<std::uint64_t> for_nonce;  // the hand it is meant for; must still be open
};
// What to read off the deck besides the whole shoe (as the CLI's `fair deal` has it).
struct game_spec {
  bool holdem = false;  // one hand per seat
  unsigned hands = 0;   // or `hands` hands of `cards` cards
  unsigned cards = 0;
};
struct deal {
  deal() = default;
  explicit deal(std::string t, game_spec g = {}, std::string key = {})
      : table(std::move(t)), game(g), idempotency_key(std::move(key)) {}
  std::string table;
  game_spec game{};
  // The client's Idempotency-Key (1..max_idempotency_key printable ASCII), "" without one.
  // A deal with a key that was already used on this table answers the stored deal (same
  // record, same cards) when the request is the same, and a conflict when it differs.
  std::string idempotency_key;
};
inline constexpr std::size_t max_idempotency_key = 128;
// Whether `key` may be an Idempotency-Key: 1..max_idempotency_key characters 0x21..0x7e.
[[nodiscard]] bool valid_idempotency_key(std::string_view key) noexcept;
struct rotate {
  std::string table;
};
// ---- hands with seat commitments ----
struct open_hand {  // POST /v1/tables/{t}/hands
  std::string table;
};
struct commit_seat {  // PUT .../hands/{h}/seats/{s}/commit
  std::string table;
  std::uint64_t hand = 0;
  unsigned seat = 0;       // from 1
  std::string commitment;  // hex(SHA-256(client seed)), 64 hex digits
};
struct reveal_seat {  // PUT .../hands/{h}/seats/{s}/reveal
  std::string table;
  std::uint64_t hand = 0;
  unsigned seat = 0;
  std::string client_seed;
};
struct deal_hand {  // POST .../hands/{h}/deal
  std::string table;
  std::uint64_t hand = 0;
  game_spec game{};
};
struct abort_hand {  // POST .../hands/{h}/abort
  std::string table;
  std::uint64_t hand = 0;
};
using write_request = std::variant<open_table, set_client_seed, deal, rotate, open_hand, commit_seat, reveal_seat,
                                   deal_hand, abort_hand, open_mental_hand, mental_step_write>;

// The table a write is about (open_table: its requested id, "" when the server picks one).
[[nodiscard]] const std::string& table_of(const write_request& r) noexcept;

// Outcome classes map to HTTP statuses in the API layer. unavailable: nothing of the write
// was stored; unknown: it may have been (its commit's outcome was lost, store.hpp).
enum class outcome { ok, bad_request, not_found, conflict, unavailable, overloaded, unknown };

struct write_result {
  outcome code = outcome::ok;
  std::string error;         // one line; never contains a secret
  std::string table;         // open_table: the new table's id
  std::string commitment;    // open_table, rotate: the commitment now in force
  std::optional<record> rec; // the record written (open, deal, rotate)
  std::vector<card_t> deck;  // deal: the shoe in dealing order
  unsigned seats = 0;        // deal: for games
  std::uint64_t hand = 0;    // hand writes: the hand
  bool repeated = false;     // commit/reveal: the same value again; answered, nothing written
  bool replayed = false;     // deal: an Idempotency-Key retry answered from its stored record (not in this batch's tree)
  std::shared_ptr<const tree_batch> log;  // the record's tree after its batch (receipt_json)
};

[[nodiscard]] write_result failure(outcome code, std::string error);
// Runs one write inside `tx`. Every check comes before the first write, so an invalid
// request returns a failure having written nothing; store errors (and a sealed seed that
// does not open) propagate as exceptions and the caller rolls the transaction back.
// `keys`: the at-rest key, and the seeds opened so far in this batch (secrets.hpp).
[[nodiscard]] write_result apply(const write_request& req, transaction& tx, batch_keys& keys);

// The shared rule (fairdeck::validate_game) worded for a table: its seats are the players.
[[nodiscard]] std::optional<std::string> check_game(const game_spec& g, const table_state& t);

// A fresh table id: "t" + 20 hex digits (80 random bits).
[[nodiscard]] std::string new_table_id();

}  // namespace fairdeck::service
