// Hands with seat commitments (table.hpp): the writes of POST /v1/tables/{t}/hands and
// .../hands/{h}/{seats/{s}/commit, seats/{s}/reveal, deal, abort}, run by `apply`.
//
// The protocol and its guarantee are in docs/provably-fair.md ("Hands no one can grind"): a
// hand opens under the server seed commitment in force and takes the table's next nonce; each
// seat commits to hex(SHA-256(its client seed)); only once every seat has committed may seeds
// be revealed, each checked against its seat's commitment; only once every seat has revealed
// is the hand dealt, from the published spec with combine_client_seeds(seeds in seat order)
// and the hand's nonce. A commitment or seed is never replaced (the same one again is answered
// without a record); a hand is dealt or aborted exactly once; an abort names the seats that
// did not commit / reveal and counts them per seat; a hand whose seats all revealed cannot be
// aborted (its outcome is then known to the operator: aborting it would be choosing).
#pragma once

#include "fairdeck/service/table.hpp"

namespace fairdeck::service {

[[nodiscard]] write_result apply_hand(const open_hand& req, transaction& tx, batch_keys& keys);
[[nodiscard]] write_result apply_hand(const commit_seat& req, transaction& tx, batch_keys& keys);
[[nodiscard]] write_result apply_hand(const reveal_seat& req, transaction& tx, batch_keys& keys);
[[nodiscard]] write_result apply_hand(const deal_hand& req, transaction& tx, batch_keys& keys);
[[nodiscard]] write_result apply_hand(const abort_hand& req, transaction& tx, batch_keys& keys);

// The deal shared by both ways of dealing: r.seat_seeds and r.nonce set, fills r's client
// seed, shoe and cards and seals it after the table's head; out.deck gets the shoe. The seed
// comes from `keys` (opened once per batch and table, wiped with the batch). table.cpp.
void deal_cards(table_state& t, batch_keys& keys, record& r, write_result& out);

// Every table write that adds a record ends here: r (sealed after t's head) becomes the head,
// the table's next seq advances, and both the record and the table are stored. table.cpp.
void append_to_chain(table_state& t, const record& r, transaction& tx);

}  // namespace fairdeck::service
