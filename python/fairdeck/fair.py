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

__all__ = ["commitment", "deal", "new_seed", "verify"]
