"""Golden vectors from CPython: random.Random(S).shuffle(x). Usage: gen_python.py cases.txt

Output format: tests/runtimes/cases.txt.
"""
import random
import struct
import sys


def fnv1a64(values):
    h = 0xCBF29CE484222325
    for b in struct.pack("<%dI" % len(values), *values):
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def main():
    for line in open(sys.argv[1]):
        if not line.strip() or line.startswith("#"):
            continue
        seed, n, shuffles = (int(f) for f in line.split())
        rng = random.Random(seed)
        for k in range(1, shuffles + 1):
            x = list(range(n))
            rng.shuffle(x)
            body = "fnv1a64=%016x" % fnv1a64(x) if n > 1000 else " ".join(map(str, x))
            print(("%d %d %d %s" % (seed, n, k, body)).rstrip())


main()
