#!/usr/bin/env python3
"""Writes a table's log (docs/log-format.md) for the browser verifier's tests, independently of
the C++ code: records, canonical text and hash chain from the contract; decks from the doc's own
Python verifier (tools/verify_fair.py). Standard library only.

Usage: gen_log.py SPEC_JSON   (prints {"table": ..., "records": [...]})
SPEC: {"table": "t1", "seats": 2, "decks": 1, "jokers": 0, "seeds": [HEX, HEX, ...],
       "events": ["deal" | "rotate" | ["deal", [seat seeds]] , ...],
       "mutate": [{"seq": N, "field": F, "value": V}, ...]}   # applied BEFORE hashing,
so a mutated log has a sound hash chain and only the later rules (nonces, seeds, cards) can
catch it. Deals use the seeds ["s1", "s2", ...] unless given; seed i is in force until the
i-th rotation.
"""
import hashlib
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
from verify_fair import deal, name  # noqa: E402  (the spec's reference deal)

FIELDS = {
    "open": "seq prev_hash type table time seats decks jokers commitment".split(),
    "deal": "seq prev_hash type table time nonce commitment seat_seeds client_seed decks jokers cards".split(),
    "rotate": "seq prev_hash type table time revealed_seed commitment next_commitment".split(),
}


def canonical_text(rec):
    lines = ["fairdeck-log-v1"]
    for f in FIELDS[rec["type"]]:
        if f == "seat_seeds":
            lines += [f"seat_seed={s}" for s in rec["seat_seeds"]]
        else:
            lines.append(f"{f}={rec[f]}")
    return "".join(line + "\n" for line in lines)


def hand_client_seed(seats):
    if len(seats) == 1:
        return seats[0]
    msg = b"fairdeck-seats-v1:" + b"".join(b"%d:%s," % (len(s.encode()), s.encode()) for s in seats)
    return hashlib.sha256(msg).hexdigest()


def commitment(seed_hex):
    return hashlib.sha256(bytes.fromhex(seed_hex)).hexdigest()


def make_log(spec):
    table, decks, jokers = spec.get("table", "t1"), spec.get("decks", 1), spec.get("jokers", 0)
    seats_n, seeds = spec.get("seats", 2), spec["seeds"]
    mutate = {}
    for m in spec.get("mutate", []):
        mutate.setdefault(m["seq"], []).append(m)
    records, seed_i, nonce = [], 0, 0

    def add(rec):
        rec["seq"] = len(records)
        rec["table"] = table
        rec["time"] = f"2026-11-23T12:{len(records) // 60:02d}:{len(records) % 60:02d}.000Z"
        rec["prev_hash"] = records[-1]["hash"] if records else "0" * 64
        for m in mutate.get(rec["seq"], []):
            rec[m["field"]] = m["value"]
        rec["hash"] = hashlib.sha256(canonical_text(rec).encode()).hexdigest()
        records.append(rec)

    add({"type": "open", "seats": seats_n, "decks": decks, "jokers": jokers, "commitment": commitment(seeds[0])})
    for ev in spec["events"]:
        kind, args = (ev, None) if isinstance(ev, str) else (ev[0], ev[1])
        if kind == "deal":
            seats = args or [f"s{i + 1}" for i in range(seats_n)]
            cs = hand_client_seed(seats)
            cards = " ".join(name(c, decks) for c in deal(bytes.fromhex(seeds[seed_i]), cs, nonce, decks, jokers))
            add({"type": "deal", "nonce": nonce, "commitment": commitment(seeds[seed_i]), "seat_seeds": seats,
                 "client_seed": cs, "decks": decks, "jokers": jokers, "cards": cards})
            nonce += 1
        else:
            add({"type": "rotate", "revealed_seed": seeds[seed_i], "commitment": commitment(seeds[seed_i]),
                 "next_commitment": commitment(seeds[seed_i + 1])})
            seed_i += 1
    return {"table": table, "records": records}


if __name__ == "__main__":
    print(json.dumps(make_log(json.loads(sys.argv[1])), ensure_ascii=False))
