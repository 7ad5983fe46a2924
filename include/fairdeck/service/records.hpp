// A table's log: records, their canonical text, the SHA-256 hash chain and its check.
//
// The format is a contract shared with the browser verifier and the CLI:
// docs/log-format.md (with an example log that tests/service/records_test.cpp reproduces).
// Guarantee: verify_log accepts a log exactly when the rules of "Checking a log" hold (the
// chain, nonces, commitments, re-derived deals, and every hand's seat commitments: each
// commit before any reveal of its hand, each reveal hashing to its seat's commitment, one
// deal or abort per hand, the deal from exactly the revealed seeds), and otherwise names the
// first record that fails and why. Record types `open`, `deal` and `rotate` are those of the
// first logs, byte for byte; a `deal` is a standing-seed deal, which trusts the operator.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace fairdeck::fair {
class server_seed;
}

namespace fairdeck::service {

// mental_hand, mental_step: a mental-poker table's hand and its steps (docs/mental-poker.md §10).
enum class record_type { open, deal, rotate, hand_open, commit, reveal, hand_deal, abort, mental_hand, mental_step };
[[nodiscard]] std::string_view type_name(record_type t) noexcept;
// Does a record of this type take a nonce (the stores' UNIQUE(table, nonce))? A standing-seed
// deal and a hand_open (which reserves its hand's nonce); a hand's deal or abort reuses it.
[[nodiscard]] constexpr bool takes_nonce(record_type t) noexcept {
  return t == record_type::deal || t == record_type::hand_open;
}

inline constexpr std::string_view zero_hash = "0000000000000000000000000000000000000000000000000000000000000000";

// One log record. Fields not used by its type stay empty / zero.
struct record {
  std::uint64_t seq = 0;
  record_type type = record_type::open;
  std::string table;
  std::string time;       // YYYY-MM-DDTHH:MM:SS.mmmZ
  std::string prev_hash;  // 64 hex digits
  std::string hash;       // 64 hex digits
  // open
  unsigned seats = 0;
  // open, deal
  unsigned decks = 1;
  unsigned jokers = 0;
  // open, deal, rotate, hand_open, hand_deal: the commitment in force
  std::string commitment;
  // deal, hand_deal (hand_open, abort: nonce)
  std::uint64_t nonce = 0;
  std::vector<std::string> seat_seeds;
  std::string client_seed;  // reveal: the seat's client seed
  std::string cards;
  // hand_open, commit, reveal, hand_deal, abort: the hand (numbered 1, 2, ... per table);
  // hand_open also has seats
  std::uint64_t hand = 0;
  unsigned seat = 0;                 // commit, reveal (from 1)
  std::string seat_commitment;       // commit: hex(SHA-256(the seat's client seed))
  std::vector<unsigned> uncommitted; // abort: seats without a commitment
  std::vector<unsigned> unrevealed;  // abort: seats that did not reveal
  // rotate
  std::string revealed_seed;
  std::string next_commitment;
  // mental_hand (also hand, seats, decks, jokers): the transcript's hand id and the players'
  // public shares, each 192 hex digits (public share ‖ keygen proof), separated by spaces
  std::string mental_id;
  std::string players;
  // mental_hand, mental_step: the transcript hash h after the record (128 hex digits)
  std::string head;
  // mental_step (also hand, seat = the player): the step's place in the transcript and the step
  // object, compact JSON (keys sorted)
  std::uint64_t step = 0;
  std::string body;

  friend bool operator==(const record&, const record&) = default;
};

// "fairdeck-log-v1\n" then "key=value\n" for each field of the type, in canonical order.
[[nodiscard]] std::string canonical_text(const record& r);
// Lowercase hex SHA-256 of canonical_text(r).
[[nodiscard]] std::string compute_hash(const record& r);
// Sets r.prev_hash and r.hash (chaining r after a record whose hash is prev).
void seal(record& r, std::string_view prev);

// Parses canonical_text() back (the stores keep records in this form: what is stored is
// exactly what is hashed); `hash` is the stored hash. Throws std::invalid_argument.
[[nodiscard]] record record_from_canonical(std::string_view text, std::string_view hash);

// JSON form used by GET /v1/tables/{t}/log (the field set of the record's type only).
[[nodiscard]] nlohmann::json to_json(const record& r);
// Parses one record; throws std::invalid_argument naming the missing or mistyped field.
[[nodiscard]] record record_from_json(const nlohmann::json& j);

// "YYYY-MM-DDTHH:MM:SS.mmmZ" for now (UTC).
[[nodiscard]] std::string utc_now();
// The same for `ms` milliseconds since 1970-01-01T00:00:00Z (negative: before it; a year beyond
// 9999 has more digits). Throws std::invalid_argument when the C library cannot place it.
[[nodiscard]] std::string utc_time(std::int64_t ms);
// [A-Za-z0-9_-]{1,64}
[[nodiscard]] bool valid_table_id(std::string_view id) noexcept;

struct log_check {
  bool ok = true;
  std::optional<std::uint64_t> failed_seq;  // first failing record (when !ok)
  std::string reason;                       // why, in words
  std::size_t deals = 0;
  std::size_t deals_verified = 0;    // cards re-derived from a revealed seed
  std::size_t deals_unrevealed = 0;  // under the seed still in force: not checkable yet
  // hands with seat commitments (deals counts their deals too)
  std::size_t hands = 0;          // hand_open records
  std::size_t hands_dealt = 0;
  std::size_t hands_aborted = 0;
  std::optional<std::uint64_t> hand_in_progress;  // opened, neither dealt nor aborted yet
  // Per seat (index 0 = seat 1): aborted hands in which the seat withheld its reveal after
  // every seat had committed (the one lever a seat has), and aborted hands in which it never
  // committed.
  std::vector<std::uint64_t> aborts;
  std::vector<std::uint64_t> missed_commits;
  // mental-poker hands: their records, and the hands whose transcript re-verified from the log
  // (fairdeck::mental::verify_hand over the mental_hand record and its steps)
  std::size_t mental_hands = 0;
  std::size_t mental_steps = 0;
  std::size_t mental_hands_verified = 0;
};

// Checks `records` by docs/log-format.md "Checking a log". `after` is the N of a partial log
// (records from N + 1; the first record's prev_hash and commitment state taken on trust).
[[nodiscard]] log_check verify_log(const std::vector<record>& records, std::optional<std::uint64_t> after = {});

// The rollback check of a kept answer (docs/provably-fair.md, "Rollback"): does `log` hold the
// record numbered `seq` with exactly this hash? A client that kept a deal answer's seq and
// hash finds a rolled-back and re-dealt hand missing from every later (verified) log.
[[nodiscard]] bool log_contains(const std::vector<record>& log, std::uint64_t seq, std::string_view hash) noexcept;

// verify_log one record at a time, for a log that grows: feeding a log's records in order, in
// any number of add() calls, gives exactly the log_check verify_log gives for all of them at
// once. Each record is checked once (its hash, and its deck once its seed is revealed); the
// state kept between calls is the chain head, the commitment in force, the next nonce and the
// deals still waiting for their seed. After the first failing record, later ones are ignored.
class log_verifier {
 public:
  explicit log_verifier(std::optional<std::uint64_t> after = {});
  void add(const record& r);
  [[nodiscard]] bool failed() const noexcept { return !check_.ok; }
  [[nodiscard]] std::uint64_t records() const noexcept { return count_; }
  // As verify_log of every record added so far.
  [[nodiscard]] log_check result() const;

 private:
  struct pending_deal {  // what rule 5 needs of a deal once its seed is revealed
    std::uint64_t seq = 0, nonce = 0;
    unsigned decks = 1, jokers = 0;
    std::string client_seed, cards;
  };
  struct hand_progress {  // the hand in progress
    std::uint64_t hand = 0, nonce = 0;
    bool known = true;  // opened inside this log (a partial log may start in the middle of one)
    std::vector<std::string> commitments, seeds;  // per seat, "" while not given
    std::size_t committed = 0, revealed = 0;
  };
  void fail(std::uint64_t seq, std::string why);
  void check_revealed(const fair::server_seed& seed);
  void add_hand_record(const record& r);
  void count_seats(unsigned seats);
  void add_mental_record(const record& r);  // mental_log.cpp
  void finish_mental_hand(log_check& check) const;

  log_check check_;
  std::uint64_t first_seq_ = 0;
  std::uint64_t count_ = 0;
  std::string table_;
  std::string prev_hash_;
  std::optional<std::string> in_force_;  // commitment in force (unknown at the start of a partial log)
  std::optional<std::uint64_t> next_nonce_;
  std::vector<pending_deal> pending_;  // deals under the commitment in force
  std::optional<unsigned> seats_;      // the table's seats (from its open record)
  std::optional<std::pair<unsigned, unsigned>> shoe_;  // the table's decks and jokers (from its open record)
  std::optional<std::uint64_t> last_hand_;
  std::optional<hand_progress> hand_;
  // the mental hand being read: its mental_hand record and steps, verified when it ends
  std::vector<record> mental_;
  std::optional<std::uint64_t> last_mental_hand_;
  // the table's mental hands read so far: each one's mental_id (-> its hand), and the players
  // of the first (every later hand has the same)
  std::map<std::string, std::uint64_t, std::less<>> mental_ids_;
  std::optional<std::pair<std::uint64_t, std::string>> mental_players_;
};

}  // namespace fairdeck::service
