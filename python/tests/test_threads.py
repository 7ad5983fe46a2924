"""fairdeck.shuffle from several Python threads (issue #27, item 6).

Object arrays are shuffled holding the GIL (their items are owned references); plain arrays
without it, one fairdeck call at a time on any given bytes (a claim on the buffer's address
range), while calls on disjoint buffers run in parallel. None of these tests measures time:
the deadlines only turn a deadlock into a failure instead of a hang.
"""

import os
import subprocess
import sys
import textwrap
import threading

import numpy as np

import fairdeck
from fairdeck import _fairdeck

DEADLINE = 300  # seconds; only to fail instead of hanging


def run_threads(*targets):
    errors = []
    start = threading.Barrier(len(targets))

    def wrap(target):
        def run():
            try:
                start.wait()
                target()
            except BaseException as e:  # noqa: BLE001 - reported below
                errors.append(e)
        return run

    threads = [threading.Thread(target=wrap(t)) for t in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join(DEADLINE)
    assert not any(t.is_alive() for t in threads), "a shuffle thread hung"
    assert not errors, errors


def test_two_threads_shuffle_one_object_array():
    # Before the fix: a segfault (references moved without the GIL while the other thread
    # moved them too). In a subprocess so that a crash is a failure, not the end of pytest.
    code = textwrap.dedent("""
        import sys, threading
        import numpy as np
        import fairdeck

        def race(a, objs, rounds, threads):
            before = [sys.getrefcount(o) for o in objs]
            go = threading.Barrier(2)
            def work(seed):
                go.wait()
                e = fairdeck.Engine("xoshiro256pp", seed=seed)
                for _ in range(rounds):
                    fairdeck.shuffle(a, e, threads=threads)
            ts = [threading.Thread(target=work, args=(s,)) for s in (1, 2)]
            for t in ts: t.start()
            for t in ts: t.join()
            ids = sorted(map(id, a["o"] if a.dtype.names else a))
            assert ids == sorted(map(id, objs)), "not a permutation of the objects"
            after = [sys.getrefcount(o) for o in objs]
            assert after == before, "reference counts changed"

        for n, rounds in ((200_000, 8), (3_000, 300)):   # the threaded and the small path
            objs = [object() for _ in range(n)]
            race(np.array(objs, dtype=object), objs, rounds, 2)
            rec = np.zeros(n, dtype=[("o", object), ("i", np.int64)])   # a record holding objects
            rec["o"] = objs
            race(rec, objs, rounds, 2)
            race(np.array(objs, dtype=object)[::2], objs[::2], rounds, 1)   # a strided view
        print("ok")
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=DEADLINE,
                          env=os.environ.copy())
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", (proc.returncode, proc.stdout, proc.stderr[-2000:])


def test_two_threads_shuffle_one_int_array_end_with_a_permutation():
    for n, rounds in ((1_000_000, 6), (2_000, 400)):
        a = np.arange(n, dtype=np.int64)

        def work(seed, threads):
            e = fairdeck.Engine("pcg64", seed=seed)
            return lambda: [fairdeck.shuffle(a, e, threads=threads) for _ in range(rounds)]

        run_threads(work(1, 2), work(2, 1), work(3, 1))
        assert np.array_equal(np.sort(a), np.arange(n)), f"n={n}: not a permutation"
        assert not np.array_equal(a, np.arange(n))


def test_overlapping_views_are_shuffled_one_at_a_time():
    # a[::2], a[1::2] and a[5000:] share bytes: every shuffle moves items within its own view,
    # so the whole array stays a permutation, and each view keeps its own items.
    base = np.arange(400_000, dtype=np.int32)
    evens, odds, tail = base[::2], base[1::2], base[5000:]
    views = (evens, odds, tail, base)
    run_threads(*[(lambda v=v, s=s: [fairdeck.shuffle(v, fairdeck.Engine("pcg64", seed=s)) for _ in range(4)])
                  for s, v in enumerate(views)])
    assert np.array_equal(np.sort(base), np.arange(400_000))


def test_two_threads_shuffle_one_list():
    n = 100_000
    lst = list(range(n))
    run_threads(*[(lambda s=s: [fairdeck.shuffle(lst, fairdeck.Engine("pcg64", seed=s)) for _ in range(20)])
                  for s in (1, 2)])
    assert sorted(lst) == list(range(n))


def test_a_claimed_buffer_waits_and_others_run_in_parallel():
    # A claim on x (what a running shuffle holds) makes a shuffle of x wait for it, while a
    # shuffle of y (disjoint memory) runs to completion meanwhile: concurrent shuffles of
    # different arrays are not serialised.
    x = np.arange(300_000, dtype=np.float64)
    y = np.arange(300_000, dtype=np.float64)
    assert _fairdeck._buffer_claims() == (0, 0)
    with _fairdeck._claim_buffer(x):
        assert _fairdeck._buffer_claims() == (1, 0)
        other = threading.Thread(target=fairdeck.shuffle, args=(y, fairdeck.Engine("pcg64", seed=1)))
        other.start()
        other.join(DEADLINE)
        assert not other.is_alive(), "a shuffle of a disjoint array waited for the claim"
        assert not np.array_equal(y, np.arange(300_000)) and np.array_equal(np.sort(y), np.arange(300_000))

        same = threading.Thread(target=fairdeck.shuffle, args=(x[10:20], fairdeck.Engine("pcg64", seed=1)))
        same.start()
        waited = threading.Event()
        for _ in range(DEADLINE * 100):  # until the shuffle of x's bytes is waiting for the claim
            if _fairdeck._buffer_claims() == (1, 1):
                break
            waited.wait(0.01)
        assert _fairdeck._buffer_claims() == (1, 1)
        assert np.array_equal(x, np.arange(300_000))  # untouched while claimed
    same.join(DEADLINE)
    assert not same.is_alive()
    assert _fairdeck._buffer_claims() == (0, 0)
    assert not np.array_equal(x[10:20], np.arange(10, 20)) and np.array_equal(np.sort(x[10:20]), np.arange(10, 20))
