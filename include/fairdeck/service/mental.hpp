// fairdeckd's mental-poker table mode (docs/mental-poker.md §10): the server orders, checks and
// logs the players' messages and holds no card secret. This is the service side of
// fairdeck::mental (include/fairdeck/mental/): the table's state and writes (mental_state.hpp),
// the transcript rebuilt from the table's log, the turn rules and who a hand is waiting for.
//
// Guarantees:
//  * The server never learns a card: it stores the players' public shares (Y_i with their keygen
//    proofs) and the steps they send (re-encrypted decks, partial decryptions, proofs); a card
//    opened to player t needs t's secret share, which never leaves t (spec §5).
//  * transcript_from_records rebuilds exactly the transcript the records hold (to_json of it is
//    the canonical text `fairdeck mental verify` accepts), or throws naming the record.
//  * step_body is the canonical compact JSON of a step (what a mental_step record carries), so
//    the stored step does not depend on how the client spaced or ordered its JSON.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "fairdeck/mental/transcript.hpp"
#include "fairdeck/service/records.hpp"
#include "fairdeck/service/table.hpp"

namespace fairdeck::service {

// A mental_hand record's `players`: each share as 192 hex digits (public ‖ keygen proof),
// separated by single spaces; parse_players throws std::invalid_argument.
[[nodiscard]] std::string players_text(std::span<const mental::public_share> players);
[[nodiscard]] std::vector<mental::public_share> parse_players(std::string_view text);

// The table's mental state inside its stored hand state (hand_state_text, hands.cpp).
[[nodiscard]] nlohmann::json mental_state_json(const mental_table& m);
[[nodiscard]] mental_table read_mental_state(const nlohmann::json& j);  // throws nlohmann::json::exception

// The writes (apply() in table.cpp runs them).
[[nodiscard]] write_result apply_mental(const open_mental_hand& req, transaction& tx);
[[nodiscard]] write_result apply_mental(const mental_step_write& req, transaction& tx);

// The answer of a write refused because `table` is a mental table (deals, client seeds and
// seat-commitment hands do not apply to it).
[[nodiscard]] write_result refuse_on_mental_table(const std::string& table);

// The hand a mental_hand record starts, with no steps. Throws std::invalid_argument.
[[nodiscard]] mental::hand hand_of_record(const record& r);
// The transcript of the hand whose mental_hand record is recs[0], followed by its mental_step
// records in order (records of other types and hands are skipped). Throws std::invalid_argument
// naming the record that does not fit (wrong step number, unreadable body).
[[nodiscard]] mental::hand transcript_from_records(std::span<const record> recs);

// One step object as the CLI appends it to the transcript's "steps", parsed for hand h (its
// shoe fixes the deck size). Throws mental::format_error naming the field.
[[nodiscard]] mental::step parse_step(const nlohmann::json& step, const mental::hand& h);
// The canonical compact JSON of a step (keys sorted, no spaces).
[[nodiscard]] std::string step_body(const mental::step& s);
[[nodiscard]] std::uint32_t player_of(const mental::step& s) noexcept;

// Who a hand waits for. After the shuffles, an opening (positions to a player, or to all)
// started by one reveal waits for the other players who must reveal the same positions to the
// same recipient (everyone but the recipient; to all: everyone).
struct mental_status {
  std::size_t shuffles = 0, reveals = 0;
  std::string next;               // "shuffle", "reveal", or "" (nobody is awaited)
  std::vector<unsigned> awaited;  // seats, ascending
  struct opening {
    std::uint32_t to = mental::to_all;
    std::vector<std::uint32_t> positions;
    std::vector<unsigned> awaited;
  };
  std::vector<opening> pending;
};
[[nodiscard]] mental_status hand_status(const mental::hand& h);
// Why `s` may not be the next step of h now (it is out of turn, repeats an earlier reveal, or
// starts an opening of a position already opened to another player: only the player it was
// opened to starts showing it to others), or nullopt. Answered with 409; a step in turn is then
// verified (400 when it does not).
[[nodiscard]] std::optional<std::string> turn_problem(const mental::hand& h, const mental::step& s);

// Milliseconds since the epoch, now.
[[nodiscard]] std::int64_t now_ms() noexcept;

}  // namespace fairdeck::service
