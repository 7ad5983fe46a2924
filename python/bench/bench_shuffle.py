#!/usr/bin/env python3
"""Benchmarks of the Python bindings (not a test): medians of repeated runs in one process.

  1. Shuffling n float64 in place (default 10^8, 800 MB): fairdeck.shuffle (threads=1 and 2)
     against numpy.random.default_rng().shuffle and rng.permutation(array) (numpy's fastest
     ways, single-threaded), as ratios within the same run. Goal: >= 5x numpy with 2 threads.
  2. Evaluating 10^7 random 7-card hands from Python (fairdeck.evaluate on a (10^7, 7)
     uint8 array, and the same as int64, one thread and all cores). Goal: >= 100 M hands/s.

Usage: PYTHONPATH=build/release/python /usr/bin/python3 python/bench/bench_shuffle.py [--n N] [--repeat R]
The machine may be shared and noisy: every figure is the median of R runs, and the ratios
compare runs made in the same process, interleaved.
"""

import argparse
import os
import statistics
import time

import numpy as np

import fairdeck


def timed(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def timed_cpu(fn):
    """(wall seconds, CPU seconds of this process: every thread's)"""
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def random_hands(count, rng):
    """count independent uniform 7-card hands (rows of distinct cards), by rejection."""
    hands = rng.integers(0, 52, (count, 7), dtype=np.uint8)
    while True:
        s = np.sort(hands, axis=1)
        bad = np.nonzero((s[:, 1:] == s[:, :-1]).any(axis=1))[0]
        if bad.size == 0:
            return hands
        hands[bad] = rng.integers(0, 52, (bad.size, 7), dtype=np.uint8)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=10**8, help="float64 items to shuffle (default 1e8)")
    ap.add_argument("--hands", type=int, default=10**7, help="7-card hands to evaluate (default 1e7)")
    ap.add_argument("--repeat", type=int, default=5, help="runs per contender (median reported)")
    args = ap.parse_args()

    print(f"fairdeck {fairdeck.__version__}, numpy {np.__version__}, {os.cpu_count()} CPUs; medians of {args.repeat}")
    data = np.random.default_rng(0).random(args.n)
    rng = np.random.default_rng(1)
    engine = fairdeck.Engine("xoshiro256pp", seed=1)
    contenders = {
        "numpy rng.shuffle(a)": lambda: rng.shuffle(data),
        "numpy rng.permutation(a)": lambda: rng.permutation(data),
        "fairdeck.shuffle(a, xoshiro256pp, threads=1)": lambda: fairdeck.shuffle(data, engine, threads=1),
        "fairdeck.shuffle(a, xoshiro256pp, threads=2)": lambda: fairdeck.shuffle(data, engine, threads=2),
        "fairdeck.shuffle(a) (secure, threads=2)": lambda: fairdeck.shuffle(data, threads=2),
    }
    times = {name: [] for name in contenders}
    for _ in range(args.repeat):  # interleaved, so drifting load hits every contender alike
        for name, fn in contenders.items():
            times[name].append(timed(fn))
    base = statistics.median(times["numpy rng.shuffle(a)"])
    print(f"\nshuffle {args.n:.0e} float64 in place ({args.n * 8 / 1e6:.0f} MB)")
    print(f"{'contender':<48} {'median s':>9} {'M items/s':>10} {'vs rng.shuffle':>15}")
    for name, t in times.items():
        m = statistics.median(t)
        print(f"{name:<48} {m:>9.3f} {args.n / m / 1e6:>10.1f} {base / m:>14.2f}x")

    hands = random_hands(args.hands, np.random.default_rng(2))
    fairdeck.evaluate(hands[:1000])  # tables built once, outside the timing
    print(f"\nevaluate {args.hands:.0e} random 7-card hands from Python; per CPU-second = what one")
    print("core does when it is not shared (CPU time of every thread; on a loaded machine wall time is longer)")
    for dtype in (np.uint8, np.int64):  # int64: numpy's default integers, 8 times the bytes to read
        a = hands.astype(dtype)
        for label, threads in (("1 thread", 1), ("all cores", None)):
            runs = [timed_cpu(lambda: fairdeck.evaluate(a, threads=threads)) for _ in range(args.repeat)]
            wall = statistics.median(r[0] for r in runs)
            cpu = statistics.median(r[1] for r in runs)
            print(f"  {np.dtype(dtype).name:<6} {label:<10} {args.hands / wall / 1e6:8.1f} M hands/s wall "
                  f"(median {wall:.3f} s), {args.hands / cpu / 1e6:8.1f} M hands per CPU-second")


if __name__ == "__main__":
    main()
