"""fairdeck: provably fair, unpredictable, fast and auditable card shuffling, from Python.

A thin layer over the C++ library (docs/python.md). Randomness comes from an engine:
``engine=None`` everywhere means a fresh secure engine (ChaCha20 keyed from OS entropy);
``Engine("xoshiro256pp", seed=42)`` is reproducible (and therefore not secure), and its first
use gives exactly what the ``fairdeck`` CLI gives for ``--engine xoshiro256pp --seed 42``.
Errors raise ValueError (bad input), TypeError (wrong kind of object), OSError (no entropy,
unwritable output) with the library's messages; long calls release the GIL and stop on Ctrl-C.
"""

from __future__ import annotations

from collections.abc import MutableSequence as _MutableSequence

from . import _fairdeck
from ._fairdeck import (  # noqa: F401
    CATEGORIES,
    AuditResult,
    Deck,
    Engine,
    EntropyError,
    OutputError,
    SecureEngine,
    audit,
    audit_shuffle,
    card_name,
    deal,
    engines,
    equity,
    evaluate,
    odds,
    parse_cards,
    permutation,
)
from . import fair  # noqa: F401

__all__ = [
    "CATEGORIES", "AuditResult", "Deck", "Engine", "EntropyError", "OutputError", "SecureEngine", "audit",
    "audit_shuffle", "card_name", "category", "deal", "engines", "equity", "evaluate", "fair", "odds",
    "parse_cards", "permutation", "shuffle",
]
__version__ = "0.1.0"


def shuffle(array, engine=None, threads=None):
    """Shuffles ``array`` in place, exactly uniformly over all n! orders; returns None.

    ``array``: a numpy array (any dtype, including structured; N-D arrays are shuffled along
    the first axis, rows moving whole, and must be C-contiguous), any writable object with the
    buffer protocol (bytearray, memoryview, array.array) or a Python list. Strided 1-D views
    (``a[::2]``) are shuffled in place too. Read-only buffers raise ValueError.

    Uses the library's in-place parallel shuffle (huge_shuffle: Sanders 1998, Penschuck 2023)
    for every size: the order depends only on the engine use, n and the item size, never on
    ``threads`` (None: one per core). ``shuffle(numpy.arange(n, dtype=numpy.uint32), e)``
    equals ``permutation(n, e)`` for the same engine use. The GIL is released for plain data;
    Ctrl-C raises KeyboardInterrupt and leaves the array a permutation of its input (not
    uniformly shuffled). Object arrays (and records with object fields) are shuffled holding
    the GIL. Threads may shuffle one array at the same time: fairdeck runs such calls one
    after the other (shuffles of different arrays run in parallel), so it ends a permutation.
    """
    if isinstance(array, _MutableSequence) and not hasattr(array, "__buffer__") and _is_list_like(array):
        items = list(array)  # one snapshot (atomic for a list): another thread's shuffle
        order = permutation(len(items), engine, threads)  # cannot mix two states
        array[:] = [items[i] for i in order]
        return None
    if type(array).__module__ == "numpy" and getattr(array, "dtype", None) is not None and array.dtype.kind in "mM":
        # datetime64/timedelta64 export no buffer; the same bytes as opaque items do (a view)
        array = array.view(_numpy().dtype((_numpy().void, array.dtype.itemsize)))
    _fairdeck._shuffle_buffer(array, engine, threads)
    return None


def _numpy():
    import numpy

    return numpy


def _is_list_like(obj) -> bool:
    try:
        memoryview(obj)
    except TypeError:
        return True
    return False


def category(strength):
    """The category name (one of CATEGORIES) of a strength from evaluate(), or an array of
    category codes (0 high card .. 8 straight flush) for an array of strengths."""
    if isinstance(strength, int):
        return CATEGORIES[strength >> 12]
    import numpy

    return (numpy.asarray(strength) >> 12).astype(numpy.uint8)
