#!/usr/bin/env python3
"""An independent implementation of RFC 9162 section 2.1 (Merkle trees, inclusion and
consistency proofs and their verification), written from the RFC's text with hashlib only.
It shares no code with fairdeck: tests feed it fairdeck's roots and proofs and it recomputes
them from the leaves and runs the RFC's verification algorithms on them.

    rfc9162_reference.py CASES.json   (written by tests/tlog_merkle_test.cpp)
exits 0 when everything agrees, 1 (naming the first disagreement) otherwise."""
import hashlib
import json
import sys


def leaf_hash(entry: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + entry).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def largest_power_of_two_below(n: int) -> int:
    k = 1
    while k << 1 < n:
        k <<= 1
    return k


def mth(leaves):  # 2.1.1: leaves are leaf hashes
    n = len(leaves)
    if n == 0:
        return hashlib.sha256(b"").digest()
    if n == 1:
        return leaves[0]
    k = largest_power_of_two_below(n)
    return node_hash(mth(leaves[:k]), mth(leaves[k:]))


def path(m, leaves):  # 2.1.3.1
    n = len(leaves)
    if n == 1:
        return []
    k = largest_power_of_two_below(n)
    if m < k:
        return path(m, leaves[:k]) + [mth(leaves[k:])]
    return path(m - k, leaves[k:]) + [mth(leaves[:k])]


def subproof(m, leaves, b):  # 2.1.4.1
    n = len(leaves)
    if m == n:
        return [] if b else [mth(leaves)]
    k = largest_power_of_two_below(n)
    if m <= k:
        return subproof(m, leaves[:k], b) + [mth(leaves[k:])]
    return subproof(m - k, leaves[k:], False) + [mth(leaves[:k])]


def verify_inclusion(leaf_index, tree_size, leaf, proof, root):  # 2.1.3.2
    if leaf_index >= tree_size:
        return False
    fn, sn, r = leaf_index, tree_size - 1, leaf
    for p in proof:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            if not fn & 1:
                while not fn & 1 and fn != 0:
                    fn >>= 1
                    sn >>= 1
        else:
            r = node_hash(r, p)
        fn >>= 1
        sn >>= 1
    return sn == 0 and r == root


def verify_consistency(first, second, first_hash, second_hash, proof):  # 2.1.4.2
    if first == second:
        return not proof and first_hash == second_hash
    path_ = list(proof)
    if first & (first - 1) == 0:
        path_ = [first_hash] + path_
    if not path_:
        return False
    fn, sn = first - 1, second - 1
    while fn & 1:
        fn >>= 1
        sn >>= 1
    fr = sr = path_[0]
    for c in path_[1:]:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            fr = node_hash(c, fr)
            sr = node_hash(c, sr)
            if not fn & 1:
                while not fn & 1 and fn != 0:
                    fn >>= 1
                    sn >>= 1
        else:
            sr = node_hash(sr, c)
        fn >>= 1
        sn >>= 1
    return fr == first_hash and sr == second_hash and sn == 0


def fail(why):
    print("rfc9162_reference: " + why, file=sys.stderr)
    sys.exit(1)


def check_cases(doc):
    leaves = [leaf_hash(s.encode()) for s in doc["leaves"]]
    checked = 0
    for case in doc["cases"]:
        n = case["size"]
        root = mth(leaves[:n])
        if root.hex() != case["root"]:
            fail(f"root of {n} leaves differs")
        for inc in case.get("inclusion", []):
            m = inc["index"]
            got = [bytes.fromhex(h) for h in inc["path"]]
            if got != path(m, leaves[:n]):
                fail(f"inclusion proof of {m} in {n} differs")
            if not verify_inclusion(m, n, leaves[m], got, root):
                fail(f"inclusion proof of {m} in {n} does not verify")
            checked += 1
        for con in case.get("consistency", []):
            m = con["from"]
            got = [bytes.fromhex(h) for h in con["proof"]]
            if con["from_root"] != mth(leaves[:m]).hex():
                fail(f"root of {m} leaves differs")
            if got != subproof(m, leaves[:n], True):
                fail(f"consistency proof {m} -> {n} differs")
            if not verify_consistency(m, n, mth(leaves[:m]), root, got):
                fail(f"consistency proof {m} -> {n} does not verify")
            checked += 1
    if checked == 0:
        fail("no proofs to check")
    print(f"rfc9162_reference: {checked} proofs agree")


def main(argv):
    if len(argv) == 2:
        with open(argv[1], encoding="utf-8") as f:
            check_cases(json.load(f))
        return
    fail("usage: rfc9162_reference.py CASES.json")


if __name__ == "__main__":
    main(sys.argv)
