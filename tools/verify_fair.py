#!/usr/bin/env python3
"""Independent fairdeck provably-fair verifier (docs/provably-fair.md). Standard library only.
Usage: verify_fair.py SERVER_SEED_HEX CLIENT_SEED NONCE [DECKS [JOKERS]]
Prints the commitment, then the deck top card first; compare both with what was published."""
import hashlib, hmac, sys

def words(seed, client_seed, nonce):  # 4-byte big-endian words of HMAC blocks k = 0, 1, 2, ...
    for k in range(2**64):
        block = hmac.new(seed, f"{client_seed}:{nonce}:{k}".encode(), hashlib.sha256).digest()
        yield from (int.from_bytes(block[i:i + 4], "big") for i in range(0, 32, 4))

def deal(seed, client_seed, nonce, decks=1, jokers=0):
    stream, deck = words(seed, client_seed, nonce), list(range(52 * decks + jokers))
    for i in range(len(deck) - 1, 0, -1):  # uniform j in [0, i]: reject words >= limit
        limit = (i + 1) * (2**32 // (i + 1))
        j = next(w for w in stream if w < limit) % (i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck

def name(card, decks):
    return f"X{card - 52 * decks + 1}" if card >= 52 * decks else "A23456789TJQK"[card % 13] + "cdhs"[card % 52 // 13]

if __name__ == "__main__":
    seed, client_seed, nonce, *shoe = sys.argv[1:]
    decks, jokers = int(shoe[0]) if shoe else 1, int(shoe[1]) if len(shoe) > 1 else 0
    print(hashlib.sha256(bytes.fromhex(seed)).hexdigest())
    print(" ".join(name(c, decks) for c in deal(bytes.fromhex(seed), client_seed, int(nonce), decks, jokers)))
