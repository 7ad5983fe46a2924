"""fairdeck.shuffle and fairdeck.permutation: in place, exact, every dtype, same as the CLI."""

import array
import math

import numpy as np
import pytest

import fairdeck


def xo(seed=1):
    return fairdeck.Engine("xoshiro256pp", seed=seed)


def test_shuffle_1e7_is_a_permutation():
    n = 10**7
    a = np.arange(n, dtype=np.int64)
    fairdeck.shuffle(a, xo(), threads=2)
    assert not np.array_equal(a, np.arange(n))
    # a permutation: every value once
    seen = np.zeros(n, dtype=np.bool_)
    seen[a] = True
    assert seen.all()
    # top-level buckets mixed globally: the first 10^5 items come from the whole range
    assert a[:100000].max() > 0.99 * n and a[:100000].min() < 0.01 * n


def test_order_never_depends_on_threads():
    n = 3 * 10**6  # big enough for buckets and lanes
    orders = []
    for threads in (1, 2, 3):
        a = np.arange(n, dtype=np.uint32)
        fairdeck.shuffle(a, xo(5), threads=threads)
        orders.append(a)
    assert np.array_equal(orders[0], orders[1]) and np.array_equal(orders[0], orders[2])
    assert np.array_equal(orders[0], fairdeck.permutation(n, xo(5)))


def test_permutation_is_the_in_place_shuffle_of_arange():
    # permutation(n) is what shuffle() makes of arange(n) (the in-place huge shuffle), for the
    # scatter path and for a small n. (`fairdeck shuffle-file` orders lines by random keys so
    # it can work beyond memory: a different, also exactly uniform, order for the same seed.)
    for n in (1_500_000, 10):
        a = np.arange(n, dtype=np.uint32)
        fairdeck.shuffle(a, fairdeck.Engine("pcg64", seed=2))
        got = fairdeck.permutation(n, fairdeck.Engine("pcg64", seed=2))
        assert got.dtype == np.uint32 and np.array_equal(got, a)
        assert np.array_equal(np.sort(got), np.arange(n, dtype=np.uint32))


DTYPES = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64, np.float16, np.float32,
          np.float64, np.longdouble, np.complex64, np.complex128, np.bool_, "datetime64[s]", "timedelta64[ns]", "S5"]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("n", [0, 1, 7, 1000, 200_000])
def test_every_dtype_moves_items_whole(dtype, n):
    orig = (np.arange(n) % 251).astype(dtype)
    a = orig.copy()
    e = xo(3)
    fairdeck.shuffle(a, e)
    assert e.calls == 1
    assert np.array_equal(np.sort(a), np.sort(orig))
    if n >= 1000 and dtype is not np.bool_:
        assert not np.array_equal(a, orig)


@pytest.mark.parametrize("dtype", [np.int32, np.uint32, np.float32])
def test_four_byte_items_follow_the_permutation(dtype):
    n = 300_000
    orig = np.random.default_rng(0).integers(0, 2**20, n).astype(dtype)
    a = orig.copy()
    fairdeck.shuffle(a, xo(8))
    assert np.array_equal(a, orig[fairdeck.permutation(n, xo(8))])


def test_structured_and_odd_sized_items():
    rec = np.dtype([("id", np.int32), ("x", np.float64), ("tag", "S3")])  # 15 bytes
    orig = np.zeros(50_000, dtype=rec)
    orig["id"] = np.arange(50_000)
    orig["x"] = orig["id"] * 0.5
    orig["tag"] = [b"abc"[i % 3:] for i in range(50_000)]
    a = orig.copy()
    fairdeck.shuffle(a, xo())
    order = a["id"]
    assert sorted(order.tolist()) == list(range(50_000)) and not np.array_equal(order, np.arange(50_000))
    assert np.array_equal(a, orig[order])  # records moved whole


def test_object_arrays_move_references():
    objs = [object() for _ in range(1000)]
    a = np.array(objs, dtype=object)
    fairdeck.shuffle(a, xo())
    assert sorted(map(id, a)) == sorted(map(id, objs)) and list(a) != objs


def test_rows_of_2d_arrays_move_whole():
    orig = np.arange(30_000).reshape(10_000, 3)
    a = orig.copy()
    fairdeck.shuffle(a, xo())
    assert np.array_equal(a, orig[a[:, 0] // 3])
    assert not np.array_equal(a, orig)
    with pytest.raises(ValueError, match="non-contiguous"):
        fairdeck.shuffle(np.arange(20).reshape(4, 5).T)


def test_strided_views_shuffle_in_place():
    base = np.arange(100_000, dtype=np.int64)
    view = base[::2]
    fairdeck.shuffle(view, xo())
    assert np.array_equal(base[1::2], np.arange(1, 100_000, 2))  # untouched
    assert sorted(base[::2].tolist()) == list(range(0, 100_000, 2))
    assert not np.array_equal(base[::2], np.arange(0, 100_000, 2))
    rev = np.arange(1000)[::-1]
    fairdeck.shuffle(rev, xo())
    assert sorted(rev.tolist()) == list(range(1000))


def test_other_buffers_and_lists():
    b = bytearray(range(256))
    fairdeck.shuffle(b, xo())
    assert sorted(b) == list(range(256)) and b != bytearray(range(256))
    arr = array.array("d", range(1000))
    fairdeck.shuffle(arr, xo())
    assert sorted(arr) == list(range(1000))
    lst = list("abcdefghijklmnop")
    fairdeck.shuffle(lst, xo())
    assert sorted(lst) == list("abcdefghijklmnop") and lst != sorted(lst)


def test_bad_input_raises():
    ro = np.arange(10)
    ro.setflags(write=False)
    with pytest.raises(ValueError, match="read-only"):
        fairdeck.shuffle(ro)
    with pytest.raises(ValueError, match="read-only"):
        fairdeck.shuffle(b"immutable bytes")
    with pytest.raises(TypeError):
        fairdeck.shuffle((1, 2, 3))
    with pytest.raises(ValueError, match="0-dimensional"):
        fairdeck.shuffle(np.array(5))
    with pytest.raises(ValueError, match="threads"):
        fairdeck.shuffle(np.arange(10), threads=0)
    with pytest.raises(ValueError, match="threads"):
        fairdeck.permutation(10, threads=257)
    with pytest.raises(ValueError, match="dtype"):
        fairdeck.permutation(10, dtype=np.int8)
    with pytest.raises(TypeError):
        fairdeck.shuffle(np.arange(10), engine=42)


def test_small_arrays_are_exactly_uniform():
    # All 3! orders of 3 items, 60,000 shuffles from one seeded engine (each use a fresh
    # derived seed): chi-square with 5 df; the bound 37.0 is exceeded with p < 1e-6.
    e = xo(2024)
    counts = {}
    for _ in range(60_000):
        a = np.arange(3, dtype=np.uint8)
        fairdeck.shuffle(a, e)
        key = bytes(a)
        counts[key] = counts.get(key, 0) + 1
    assert len(counts) == 6
    chi2 = sum((c - 10_000) ** 2 / 10_000 for c in counts.values())
    assert chi2 < 37.0, counts


def test_secure_default_differs_each_time():
    a, b = np.arange(1000), np.arange(1000)
    fairdeck.shuffle(a)
    fairdeck.shuffle(b, fairdeck.SecureEngine())
    assert not np.array_equal(a, b)
    assert math.isclose(a.sum(), 999 * 1000 / 2)


def test_long_calls_release_the_gil():
    import threading
    import time

    a = np.arange(2 * 10**7)
    done = threading.Event()
    worker = threading.Thread(target=lambda: (fairdeck.shuffle(a, xo(), threads=1), done.set()))
    ticks = 0
    worker.start()
    while not done.is_set():  # runs only while the shuffle does not hold the GIL
        ticks += 1
        time.sleep(0.001)
    worker.join()
    assert ticks >= 5
