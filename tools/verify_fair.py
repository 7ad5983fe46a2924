#!/usr/bin/env python3
"""Independent fairdeck provably-fair verifier (docs/provably-fair.md). Standard library only.
Usage: verify_fair.py SERVER_SEED_HEX CLIENT_SEED NONCE [DECKS [JOKERS]]
Prints the commitment, then the deck top card first; compare both with what was published.
Inputs are checked as fairdeck checks them (exit 2 naming the problem)."""
import hashlib, hmac, re, sys

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

def check(seed, client_seed, nonce, decks, jokers):  # the spec's input rules; None if all fine
    if not re.fullmatch(r"[0-9a-fA-F]{64}", seed): return "server seed must be 64 hex digits (32 bytes)"
    if not re.fullmatch(r"0|[1-9][0-9]*", nonce) or int(nonce) >= 2**64:
        return f"nonce {nonce!r} is not a decimal integer 0..18446744073709551615 without leading zeros"
    raw = client_seed.encode("utf-8", "surrogateescape")
    try: raw.decode("utf-8")
    except UnicodeDecodeError: return "client seed is not valid UTF-8"
    if not raw or len(raw) > 1024: return "client seed must be 1..1024 bytes"
    if any(b < 0x20 or b == 0x7f for b in raw): return "client seed contains a control character"
    if not (re.fullmatch(r"[0-9]+", decks) and re.fullmatch(r"[0-9]+", jokers)): return "DECKS and JOKERS are counts"
    if not (1 <= int(decks) <= 1000 and int(jokers) <= 1000): return "DECKS must be 1..1000 and JOKERS 0..1000"

if __name__ == "__main__":
    if not 4 <= len(sys.argv) <= 6: sys.exit(__doc__)
    seed, client_seed, nonce, *shoe = sys.argv[1:]
    decks, jokers = shoe[0] if shoe else "1", shoe[1] if len(shoe) > 1 else "0"
    if problem := check(seed, client_seed, nonce, decks, jokers):
        print(f"verify_fair.py: error: {problem}", file=sys.stderr)
        sys.exit(2)
    print(hashlib.sha256(bytes.fromhex(seed)).hexdigest())
    print(" ".join(name(c, int(decks)) for c in deal(bytes.fromhex(seed), client_seed, int(nonce), int(decks), int(jokers))))
