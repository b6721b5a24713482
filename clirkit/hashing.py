"""64-bit hashes of string arrays and of (query, docid) pairs, computed without a loop per string.

Used to join a run with its qrels (:mod:`clirkit.metrics`) and to find a document listed twice for a
query (:mod:`clirkit.formats`). Equal keys are always checked against the strings themselves.
"""

from __future__ import annotations

import numpy as np

_QUERY_MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)
_ROWS_PER_PASS = 1 << 16


def _splitmix64(x: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        x = x.astype(np.uint64) + _QUERY_MULTIPLIER
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return x ^ (x >> np.uint64(31))


def string_hash(docids: np.ndarray) -> np.ndarray:
    """64-bit hash of each string of ``docids`` (a str array): sum over pairs of code points of (pair as
    uint64) x a fixed odd multiplier per pair position.

    The multiplier of a position depends on the position only and padding is 0,
    so equal strings hash alike whatever the arrays' string widths.
    """
    arr = np.ascontiguousarray(docids)
    if arr.dtype.kind != "U":
        arr = arr.astype(str)
    width = arr.dtype.itemsize // 4
    chars = arr.view(np.uint32).reshape(len(arr), width)
    mult = _splitmix64(np.arange((width + 1) // 2)) | np.uint64(1)
    out = np.empty(len(arr), dtype=np.uint64)
    for lo in range(0, len(arr), _ROWS_PER_PASS):  # bounds the padded copy below
        part = chars[lo : lo + _ROWS_PER_PASS]
        if width % 2:
            part = np.concatenate((part, np.zeros((len(part), 1), dtype=np.uint32)), axis=1)
        with np.errstate(over="ignore"):
            out[lo : lo + _ROWS_PER_PASS] = part.view(np.uint64) @ mult  # two code points a word; wraps mod 2^64
    return out


def pair_keys(codes: np.ndarray, docids) -> np.ndarray:
    """64-bit key of each (integer code, docid) pair: equal pairs get equal keys, different pairs
    almost surely different ones (callers check equal keys against the real values). Computed in
    row slices, so the temporaries stay small whatever the number of rows (``docids``: a str array, or what gives
    one for a slice: a packed run's ids, :class:`clirkit.metrics._CodedIds`)."""
    out = np.empty(len(docids), dtype=np.uint64)
    for lo in range(0, len(docids), _ROWS_PER_PASS):
        hi = lo + _ROWS_PER_PASS
        with np.errstate(over="ignore"):
            x = string_hash(docids[lo:hi]) ^ (codes[lo:hi].astype(np.uint64) * _QUERY_MULTIPLIER)
            x ^= x >> np.uint64(31)
            x *= np.uint64(0xBF58476D1CE4E5B9)
            x ^= x >> np.uint64(29)
        out[lo:hi] = x
    return out
