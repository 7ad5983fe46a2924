// The state of a mental-poker table (docs/mental-poker.md §10) as a table keeps it, and the two
// writes on it. The table holds no card secret: only the players' public shares (with their
// keygen proofs), the timeout and where the hand in progress stands. The transcript itself is
// the table's log (records mental_hand and mental_step, docs/log-format.md): what the server
// answers to GET .../transcript is rebuilt from those records.
//
// Guarantee (with mental.hpp's apply_mental): a step is appended to the log only as step
// `steps` of the hand in progress, in the transaction that advances `steps`, so two steps can
// never take the same place in a transcript; the fairdeckd API verified it against exactly the
// `steps` records before it (fairdeck::mental::verify_hand) before it submitted the write.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fairdeck/mental/transcript.hpp"

namespace fairdeck::service {

inline constexpr unsigned default_mental_timeout = 60;  // seconds a player may take to act
inline constexpr unsigned max_mental_timeout = 86400;

struct mental_table {
  std::vector<mental::public_share> players;  // in seat order; seats == players
  unsigned timeout = default_mental_timeout;  // seconds
  struct hand_progress {
    std::uint64_t hand = 0;       // the table's hand number (from 1)
    std::string id;               // the transcript's hand id (32 hex)
    std::uint64_t first_seq = 0;  // seq of its mental_hand record
    std::uint64_t steps = 0;      // steps accepted so far
    std::string head;             // the transcript hash h after them (128 hex)
    std::int64_t since_ms = 0;    // when the last of them (or the hand) was accepted, ms since the epoch
  };
  std::optional<hand_progress> hand;  // the current hand (a new hand replaces it)
};

// POST /v1/tables/{t}/mental/hands: the API built the hand (fairdeck::mental::new_hand over the
// table's players) and its header hash h_0.
struct open_mental_hand {
  std::string table;
  std::string id;    // 32 hex
  std::string head;  // h_0, 128 hex
};
// POST /v1/tables/{t}/mental/hands/{h}/steps: a step the API verified as step `step` of hand `hand`.
struct mental_step_write {
  std::string table;
  std::uint64_t hand = 0;
  std::uint64_t step = 0;  // its index in the transcript (0-based)
  unsigned player = 0;     // 1-based
  std::string head;        // h after it, 128 hex
  std::string body;        // the step object, compact JSON
};

}  // namespace fairdeck::service
