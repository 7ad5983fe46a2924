"""Provably fair dealing (docs/provably-fair.md): the same decks as ``fairdeck fair``.

commit to a secret server seed (publish ``commitment(seed)``), deal from
HMAC-SHA256(seed, "<client seed>:<nonce>:<k>"), reveal the seed afterwards; anyone
re-derives the deal with ``verify()``.
"""

from ._fairdeck import fair as _fair

commitment = _fair.commitment
deal = _fair.deal
new_seed = _fair.new_seed
verify = _fair.verify
# the player's side of a fairdeckd hand with seat commitments
fresh_seat_seed = _fair.fresh_seat_seed
seat_commitment = _fair.seat_commitment
seed_matches_commitment = _fair.seed_matches_commitment
check_hand = _fair.check_hand

__all__ = ["check_hand", "commitment", "deal", "fresh_seat_seed", "new_seed", "seat_commitment",
           "seed_matches_commitment", "verify"]
