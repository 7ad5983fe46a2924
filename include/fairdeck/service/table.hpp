// A dealing table and the four writes on it (open, set a seat's client seed, deal, rotate),
// independent of the database. Stores run `apply` inside one of their transactions.
//
// Guarantees (docs/service.md): a deal takes the table's next nonce and next log seq and
// writes its record in the same transaction that advances them, so a nonce is never used
// twice (the stores also enforce UNIQUE(table, nonce)); the hand's client seed is
// fair::combine_client_seeds of the seats' seeds in seat order; the deck is
// fair::deal_deck(server seed, client seed, nonce, shoe). The server seed exists in clear
// only inside apply (wiped on return) and leaves it only in a rotate record, once retired.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "fairdeck/cards/card.hpp"
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
};

// What a store gives `apply`: reads and writes inside one open transaction.
class transaction {
 public:
  virtual ~transaction() = default;
  // The table, locked for update until the transaction ends; nullopt if it does not exist.
  virtual std::optional<table_state> load(std::string_view id) = 0;
  virtual void insert(const table_state& t) = 0;  // throws table_exists when the id is taken
  virtual void update(const table_state& t) = 0;
  virtual void append(const record& r) = 0;
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
  std::string table;
  game_spec game{};
};
struct rotate {
  std::string table;
};
using write_request = std::variant<open_table, set_client_seed, deal, rotate>;

// The table a write is about (open_table: its requested id, "" when the server picks one).
[[nodiscard]] const std::string& table_of(const write_request& r) noexcept;

// Outcome classes map to HTTP statuses in the API layer.
enum class outcome { ok, bad_request, not_found, conflict, unavailable, overloaded };

struct write_result {
  outcome code = outcome::ok;
  std::string error;         // one line; never contains a secret
  std::string table;         // open_table: the new table's id
  std::string commitment;    // open_table, rotate: the commitment now in force
  std::optional<record> rec; // the record written (open, deal, rotate)
  std::vector<card_t> deck;  // deal: the shoe in dealing order
  unsigned seats = 0;        // deal: for games
  std::shared_ptr<const tree_batch> log;  // the record's tree after its batch (receipt_json)
};

[[nodiscard]] write_result failure(outcome code, std::string error);
// Runs one write inside `tx`. Every check comes before the first write, so an invalid
// request returns a failure having written nothing; store errors (and a sealed seed that
// does not open) propagate as exceptions and the caller rolls the transaction back.
[[nodiscard]] write_result apply(const write_request& req, transaction& tx, const secret_key& key);

// A fresh table id: "t" + 20 hex digits (80 random bits).
[[nodiscard]] std::string new_table_id();

}  // namespace fairdeck::service
