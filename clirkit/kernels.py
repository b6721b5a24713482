"""Compiled BM25 ranking (numba), used when numba is installed (``pip install 'clirkit[fast]'``).

One call ranks every query of a batch: each query's contributions are summed into one dense row of the
documents, in the order numpy's path adds them (term after term; a very common term's dense vector, else
its postings as stored) and in the postings' own precision, so the sums, and therefore the runs, are the
same bytes whichever path ranks them. A strided sample of the row gives a bound that about 2 k cells
reach; one pass moves those cells out (zeroing the row for the next query) and they are sorted exactly.
No numpy call per query term, no selection pass over the row.

Imported only by :func:`clirkit.topk.compiled_ranker`, which falls back to numpy without numba or with the
environment variable ``CLIRKIT_NUMBA=0``. numba compiles each precision once, on first use (about 10 s),
and caches the machine code on disk (next to this file, or in its user-wide cache); loading it costs a
process about 0.7 s, which the compiled ranking repays on searches reading some 10^8 postings.
"""
from __future__ import annotations

import numba
import numpy as np

_SAMPLE_STRIDE = 64  # every 64th cell of a row bounds its k-th largest from below ...
_SAMPLE_ABOVE = 2  # ... with about 2 k cells reaching the bound (fewer than k in about 1 row in 300)


@numba.njit(cache=True, nogil=True)
def rank_sums(bounds, starts, ends, weights, dense_slots, indices, data, dense, n_docs, k, positive):
    """The top ``k`` documents of each query from its weighted posting rows.

    Args:
        bounds: (n_queries + 1,) int64; query q's terms are ``bounds[q]:bounds[q + 1]`` of the next four.
        starts, ends: (n_terms,) int64 ranges of ``indices``/``data`` holding each term's postings.
        weights: (n_terms,) w_q of each term, in ``data``'s dtype (a posting adds ``w_q * data``).
        dense_slots: (n_terms,) int64 row of ``dense`` holding the term's postings as a dense vector, or -1
            (read only when ``positive``).
        indices: int32 document of each posting (>= 0); data: float64 or float32 weight of each posting.
        dense: (n_dense, n_docs) posting weights of very common rows as dense vectors (0 where no posting).
        n_docs: the number of documents; k: how many to keep per query (>= 1).
        positive: every contribution is > 0, so a document matching no term is the one whose sum is 0;
            else matched documents are those with a posting (flagged), whatever their sum.

    Returns:
        ``(counts, cols, values)``: how many documents each query keeps (int64), then each query's
        documents (int64) and sums (``data``'s dtype) in run order, value descending then document
        ascending.
    """
    n_queries = len(bounds) - 1
    kk = min(k, n_docs)
    row = np.zeros(n_docs, dtype=data.dtype)
    hit = np.zeros(0 if positive else n_docs, dtype=np.bool_)
    stride = min(_SAMPLE_STRIDE, n_docs // max(kk, 1))
    sample = np.empty(n_docs // max(stride, 1) + 1, dtype=data.dtype)
    candidate_cols = np.empty(n_docs, dtype=np.int64)
    candidate_values = np.empty(n_docs, dtype=data.dtype)
    keys, spare_keys = np.empty(n_docs, dtype=np.uint32), np.empty(n_docs, dtype=np.uint32)
    order, spare_order = np.empty(n_docs, dtype=np.int64), np.empty(n_docs, dtype=np.int64)
    counts = np.zeros(n_queries, dtype=np.int64)
    cols = np.empty(n_queries * kk, dtype=np.int64)
    values = np.empty(n_queries * kk, dtype=data.dtype)
    out = 0
    for q in range(n_queries):
        if bounds[q] == bounds[q + 1]:
            continue
        _add_terms(row, hit, bounds[q], bounds[q + 1], starts, ends, weights, dense_slots, indices, data, dense,
                   positive)
        # a bound about 2 k cells reach, from a strided sample of the matched cells; if fewer reach it, the
        # row is made again (the scan zeroes it as it reads it) and scanned with a lower bound
        n_sample = 0
        if stride >= 4:
            for d in range(0, n_docs, stride):
                if row[d] > 0 if positive else hit[d]:
                    sample[n_sample] = row[d]
                    n_sample += 1
        rank = max(1, int(_SAMPLE_ABOVE * kk) // max(stride, 1))
        while True:
            everything = rank >= n_sample
            bound = 0.0 if everything else _select(sample, n_sample, n_sample - rank)
            n = _scan(row, hit, bound, everything, positive, candidate_cols, candidate_values)
            if n >= kk or everything:
                break
            _add_terms(row, hit, bounds[q], bounds[q + 1], starts, ends, weights, dense_slots, indices, data,
                       dense, positive)
            rank *= 4
        ranked = _sort_descending(candidate_values, n, keys, spare_keys, order, spare_order)
        m = min(n, kk)
        for i in range(m):
            cols[out + i] = candidate_cols[ranked[i]]
            values[out + i] = candidate_values[ranked[i]]
        counts[q] = m
        out += m
    return counts, cols[:out], values[:out]


@numba.njit(cache=True, nogil=True)
def _add_terms(row, hit, lo, hi, starts, ends, weights, dense_slots, indices, data, dense, positive):
    """Add the query terms ``lo:hi`` to ``row`` in order (see :func:`rank_sums`), flagging matched cells in
    ``hit`` unless ``positive``."""
    n_docs = len(row)
    for t in range(lo, hi):
        w = weights[t]
        if positive and dense_slots[t] >= 0:
            vector = dense[dense_slots[t]]
            for d in range(n_docs):
                row[d] += w * vector[d]
            continue
        for p in range(starts[t], ends[t]):
            row[np.uint32(indices[p])] += w * data[p]  # unsigned: no negative-index wrap-around
        if not positive:
            for p in range(starts[t], ends[t]):
                hit[np.uint32(indices[p])] = True


@numba.njit(cache=True, nogil=True)
def _scan(row, hit, bound, everything, positive, candidate_cols, candidate_values):
    """Move the matched cells of ``row`` that reach ``bound`` (every matched cell if ``everything``) to the
    candidates, in column order, zeroing ``row`` and ``hit``; returns how many."""
    n = 0
    if positive:  # a cell reaching a bound > 0 is matched
        if everything or not bound > 0:
            bound = 5e-324  # the smallest float64 > 0: v >= bound iff v > 0
        for d in range(len(row)):
            v = row[d]
            row[d] = 0
            if v >= bound:
                candidate_cols[n] = d
                candidate_values[n] = v
                n += 1
        return n
    for d in range(len(row)):
        v = row[d]
        row[d] = 0
        if hit[d] and (everything or v >= bound):
            candidate_cols[n] = d
            candidate_values[n] = v
            n += 1
        hit[d] = False
    return n


@numba.njit(cache=True, nogil=True)
def _sort_descending(values, n, keys, spare_keys, order, spare_order):
    """The positions of ``values[:n]`` by value descending, equal values in position order: a stable radix
    sort of the values rounded to float32 (one counting pass, then one pass per byte of the 32-bit key that
    differs), then each run of values sharing a float32 put in order by exact value (:func:`_shell_sort`)
    unless it already is (a run of equal values always is).
    Returns ``order`` or ``spare_order`` (all four arrays are work space, each at least ``n`` long)."""
    # + 0.0 makes -0.0 equal to 0.0; rounding to float32 keeps the order (ties may appear)
    rounded = (values[:n] + 0.0).astype(np.float32).view(np.uint32)
    for i in range(n):
        bits = rounded[i]
        keys[i] = ~bits & np.uint32(0x7FFFFFFF) if bits < np.uint32(0x80000000) else bits  # descending
        order[i] = i
    histograms = np.zeros((4, 256), dtype=np.int64)  # of each byte: the same in any order of the keys
    for i in range(n):
        key = keys[i]
        histograms[0, key & 255] += 1
        histograms[1, (key >> 8) & 255] += 1
        histograms[2, (key >> 16) & 255] += 1
        histograms[3, key >> 24] += 1
    for byte in range(4):
        shift = 8 * byte
        histogram = histograms[byte]
        if n == 0 or histogram[(keys[0] >> shift) & 255] == n:  # every key has this byte: nothing moves
            continue
        start = 0
        for b in range(256):
            start, histogram[b] = start + histogram[b], start
        for i in range(n):  # the slot is taken before the stores: equal bytes in a row do not wait on them
            key = keys[i]
            b = (key >> shift) & 255
            at = histogram[b]
            histogram[b] = at + 1
            spare_keys[at] = key
            spare_order[at] = order[i]
        keys, spare_keys = spare_keys, keys
        order, spare_order = spare_order, order
    lo = 0
    while lo < n:
        hi = lo + 1
        while hi < n and keys[hi] == keys[lo]:
            hi += 1
        if hi - lo > 1 and not _in_order(order, lo, hi, values):  # (runs of equal values already are)
            _shell_sort(order, lo, hi, values)
        lo = hi
    return order


@numba.njit(cache=True, nogil=True)
def _in_order(order, lo, hi, values):
    """Whether ``order[lo:hi]`` (positions in ``values``) is by value descending, then position."""
    for i in range(lo + 1, hi):
        if _follows(values, order[i - 1], order[i]):
            return False
    return True


@numba.njit(cache=True, nogil=True, inline="always")  # (a call per comparison costs 15% of the sort)
def _follows(values, a, b):
    """Whether position ``a`` of ``values`` comes after position ``b`` in run order (value descending, then
    position)."""
    return values[a] < values[b] or (values[a] == values[b] and a > b)


@numba.njit(cache=True, nogil=True)
def _shell_sort(order, lo, hi, values):
    """Sort ``order[lo:hi]`` (positions in ``values``) by exact value descending, then position: a Shell
    sort (gaps of Ciura), insertion sort for the short runs of values sharing a float32."""
    for gap in (701, 301, 132, 57, 23, 10, 4, 1):
        for i in range(lo + gap, hi):
            j, p = i, order[i]
            while j >= lo + gap and _follows(values, order[j - gap], p):
                order[j] = order[j - gap]
                j -= gap
            order[j] = p


@numba.njit(cache=True, nogil=True)
def _select(a, n, kth):
    """The ``kth`` smallest (from 0) of ``a[:n]``, which is reordered (Hoare's selection, median of three;
    numpy's partition takes numba seconds to compile)."""
    lo, hi = 0, n - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if a[mid] < a[lo]:
            a[mid], a[lo] = a[lo], a[mid]
        if a[hi] < a[lo]:
            a[hi], a[lo] = a[lo], a[hi]
        if a[hi] < a[mid]:
            a[hi], a[mid] = a[mid], a[hi]
        pivot = a[mid]
        i, j = lo, hi
        while i <= j:
            while a[i] < pivot:
                i += 1
            while pivot < a[j]:
                j -= 1
            if i <= j:
                a[i], a[j] = a[j], a[i]
                i += 1
                j -= 1
        if kth <= j:
            hi = j
        elif kth >= i:
            lo = i
        else:
            return a[kth]
    return a[kth]
