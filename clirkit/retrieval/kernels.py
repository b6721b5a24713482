"""Compiled BM25 ranking (numba), used when numba is installed (``pip install 'clirkit[fast]'``).

One call ranks every query of a batch: each query's contributions are summed into one dense row of the
documents, in the order numpy's path adds them (term after term; a very common term's dense vector, else
its postings as stored) and in the postings' own precision, so the sums, and therefore the runs, are the
same bytes whichever path ranks them. Queries are summed a few at a time, each into its own row: a dense
vector that several of them add next is read once for all of them (:func:`_add_group`). A strided sample of
a row gives a bound that about 2 k cells reach; one pass moves those cells out (zeroing the row for the next
queries) and the first k of them are sorted exactly.
No numpy call per query term, no selection pass over the row.

Imported only by :func:`clirkit.retrieval.topk.compiled_ranker`, which falls back to numpy without numba or with the
environment variable ``CLIRKIT_NUMBA=0``. numba compiles each precision once, on first use (about 10 s),
and caches the machine code on disk (next to this file, or in its user-wide cache); loading it costs a
process about 0.7 s, which the compiled ranking repays on searches reading some 10^8 postings.
"""

from __future__ import annotations

import numba
import numpy as np

_SAMPLE_STRIDE = 64  # every 64th cell of a row bounds its k-th largest from below ...
_SAMPLE_ABOVE = 2  # ... with about 2 k cells reaching the bound (fewer than k in about 1 row in 300)
_FEW = 64  # the r-th largest of a sample is found by insertion up to r = _FEW, else by selection
_SIGN = np.uint64(2**63)  # the sign bit of a float64
_NO_BITS = np.uint64(2**64 - 1)
# positive sums are made for up to _GROUP queries at once, their rows (4.8 MB at 100,000 float64 documents)
# within _GROUP_BYTES, so that they stay in the last-level cache; a dense vector is added to up to _FUSED
# of them in one pass (on the Zipf benchmark, 6 rows: the float64 kernel 10-15% faster than one row at a
# time, float32 the same; 4 rows about 10%, 8 and 12 rows no faster than 6)
_GROUP = 6
_GROUP_BYTES = 8 * 2**20
_FUSED = 4


@numba.njit(cache=True, nogil=True)
def rank_sums(bounds, starts, ends, weights, dense_slots, indices, data, dense, n_docs, k, positive, floors):
    """The top ``k`` documents of each query from its weighted posting rows, of those scoring above its floor.

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
        floors: (n_queries,) float64; query q keeps only documents whose sum is > ``floors[q]`` (-inf: all):
            a shard searched after others passes the score its query's list already holds ``k`` documents
            at, so that only documents that enter the list are selected and sorted.

    Returns:
        ``(counts, cols, values)``: how many documents each query keeps (int64), then each query's
        documents (int64) and sums (``data``'s dtype) in run order, value descending then document
        ascending.
    """
    n_queries = len(bounds) - 1
    kk = min(k, n_docs)
    group = max(1, min(_GROUP, _GROUP_BYTES // max(n_docs * data.itemsize, 1))) if positive else 1
    rows = np.zeros((group, n_docs), dtype=data.dtype)
    at, stop = np.empty(group, dtype=np.int64), np.empty(group, dtype=np.int64)
    hit = np.zeros(0 if positive else n_docs, dtype=np.bool_)
    stride = min(_SAMPLE_STRIDE, n_docs // max(kk, 1))
    sample = np.empty(n_docs // max(stride, 1) + 1, dtype=data.dtype)
    candidate_cols = np.empty(n_docs, dtype=np.int64)
    candidate_values = np.empty(n_docs, dtype=data.dtype)
    keys, spare_keys = np.empty(n_docs, dtype=np.uint32), np.empty(n_docs, dtype=np.uint32)
    order, spare_order = np.empty(n_docs, dtype=np.int64), np.empty(n_docs, dtype=np.int64)
    histograms = np.empty((4, 256), dtype=np.int64)
    top = np.empty(_FEW, dtype=data.dtype)
    counts = np.zeros(n_queries, dtype=np.int64)
    cols = np.empty(n_queries * kk, dtype=np.int64)
    values = np.empty(n_queries * kk, dtype=data.dtype)
    out = 0
    for first in range(0, n_queries, group):
        n_rows = min(group, n_queries - first)
        if positive:
            _add_group(rows, first, n_rows, at, stop, bounds, starts, ends, weights, dense_slots, indices, data, dense)
        for q in range(first, first + n_rows):
            if bounds[q] == bounds[q + 1]:
                continue
            row = rows[q - first]
            if not positive:
                _add_terms(
                    row,
                    hit,
                    bounds[q],
                    bounds[q + 1],
                    starts,
                    ends,
                    weights,
                    dense_slots,
                    indices,
                    data,
                    dense,
                    positive,
                )
            # a bound about 2 k cells reach, from a strided sample of the matched cells; if fewer reach it, the
            # row is made again (the scan zeroes it as it reads it) and scanned with a lower bound
            n_sample = 0
            if stride >= 4:
                for d in range(0, n_docs, stride):
                    if row[d] > 0 if positive else hit[d]:
                        sample[n_sample] = row[d]
                        n_sample += 1
            rank = max(1, int(_SAMPLE_ABOVE * kk) // max(stride, 1))
            floor = floors[q]
            while True:
                everything = rank >= n_sample
                bound = 0.0 if everything else _largest(sample, n_sample, rank, top)
                if floor > -np.inf and (everything or floor >= bound):  # every cell above the floor, at once
                    n = _above(
                        candidate_cols,
                        candidate_values,
                        _scan(row, hit, floor, False, positive, candidate_cols, candidate_values),
                        floor,
                    )
                    break
                n = _scan(row, hit, bound, everything, positive, candidate_cols, candidate_values)
                if n >= kk or everything:
                    n = _above(candidate_cols, candidate_values, n, floor)
                    break
                _add_terms(
                    row,
                    hit,
                    bounds[q],
                    bounds[q + 1],
                    starts,
                    ends,
                    weights,
                    dense_slots,
                    indices,
                    data,
                    dense,
                    positive,
                )
                rank *= 4
            ranked = _sort_top(candidate_values, n, kk, keys, spare_keys, order, spare_order, histograms)
            m = min(n, kk)
            for i in range(m):
                cols[out + i] = candidate_cols[ranked[i]]
                values[out + i] = candidate_values[ranked[i]]
            counts[q] = m
            out += m
    return counts, cols[:out], values[:out]


@numba.njit(cache=True, nogil=True)
def _add_group(rows, first, n_rows, at, stop, bounds, starts, ends, weights, dense_slots, indices, data, dense):
    """Add the terms of queries ``first:first + n_rows`` to ``rows[:n_rows]`` (zeros), each row its own query's
    terms in its order (see :func:`rank_sums`; ``positive`` only: dense vectors are read). ``at``, ``stop``:
    work space, ``n_rows`` long.

    Each row's scattered terms are added up to its next dense term; then the dense term next in the most rows
    is added to up to ``_FUSED`` of them in one pass over its vector (read once, not once per row), and so on.
    A row's additions stay in its query's order, so its sums are those of :func:`_add_terms`, bit for bit."""
    n_docs = rows.shape[1]
    for g in range(n_rows):
        at[g], stop[g] = bounds[first + g], bounds[first + g + 1]
    while True:
        for g in range(n_rows):  # the scattered terms before each row's next dense term
            row = rows[g]
            t = at[g]
            while t < stop[g] and dense_slots[t] < 0:
                w = weights[t]
                for p in range(starts[t], ends[t]):
                    row[np.uint32(indices[p])] += w * data[p]  # unsigned: no negative-index wrap-around
                t += 1
            at[g] = t
        slot, most = -1, 0  # the dense term next in the most rows
        for g in range(n_rows):
            if at[g] < stop[g]:
                rows_next = 0
                for h in range(n_rows):
                    rows_next += at[h] < stop[h] and dense_slots[at[h]] == dense_slots[at[g]]
                if rows_next > most:
                    slot, most = dense_slots[at[g]], rows_next
        if slot < 0:
            return
        g0 = g1 = g2 = g3 = -1  # the first _FUSED rows it is next in
        taken = 0
        for g in range(n_rows):
            if taken < _FUSED and at[g] < stop[g] and dense_slots[at[g]] == slot:
                if taken == 0:
                    g0 = g
                elif taken == 1:
                    g1 = g
                elif taken == 2:
                    g2 = g
                else:
                    g3 = g
                taken += 1
        vector = dense[slot]
        r0, w0 = rows[g0], weights[at[g0]]
        if taken == 1:
            for d in range(n_docs):
                r0[d] += w0 * vector[d]
        elif taken == 2:
            r1, w1 = rows[g1], weights[at[g1]]
            for d in range(n_docs):
                v = vector[d]
                r0[d] += w0 * v
                r1[d] += w1 * v
        elif taken == 3:
            r1, w1, r2, w2 = rows[g1], weights[at[g1]], rows[g2], weights[at[g2]]
            for d in range(n_docs):
                v = vector[d]
                r0[d] += w0 * v
                r1[d] += w1 * v
                r2[d] += w2 * v
        else:
            r1, w1, r2, w2, r3, w3 = rows[g1], weights[at[g1]], rows[g2], weights[at[g2]], rows[g3], weights[at[g3]]
            for d in range(n_docs):
                v = vector[d]
                r0[d] += w0 * v
                r1[d] += w1 * v
                r2[d] += w2 * v
                r3[d] += w3 * v
        for g in (g0, g1, g2, g3):
            if g >= 0:
                at[g] += 1


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
def _above(candidate_cols, candidate_values, n, floor):
    """Keep the candidates whose value is > ``floor`` (in order, at the front); returns how many."""
    if not floor > -np.inf:
        return n
    kept = 0
    for i in range(n):
        if candidate_values[i] > floor:
            candidate_cols[kept] = candidate_cols[i]
            candidate_values[kept] = candidate_values[i]
            kept += 1
    return kept


@numba.njit(cache=True, nogil=True)
def _sort_descending(values, n, keys, spare_keys, order, spare_order):
    """The positions of ``values[:n]`` by value descending, equal values in position order (:func:`_sort_top`
    of all of them). Returns ``order`` or ``spare_order`` (all four arrays are work space, each at least ``n``
    long)."""
    return _sort_top(values, n, n, keys, spare_keys, order, spare_order, np.empty((4, 256), dtype=np.int64))


@numba.njit(cache=True, nogil=True)
def _sort_top(values, n, k, keys, spare_keys, order, spare_order, histograms):
    """The positions of the first ``min(n, k)`` of ``values[:n]`` in run order (value descending, equal values
    in position order), first in the array returned (``order`` or ``spare_order``; the four arrays are work
    space, each at least ``n`` long; ``histograms`` is (4, 256) int64 work space).

    Each value's key is its float64's bits ordered as unsigned integers (descending), less the smallest key,
    shifted right until the largest fits in 32 bits: in value order, and distinct for distinct values unless
    shifted. Keys whose top byte is past the k-th key's are dropped, the rest put in order by a stable radix
    sort (one counting pass, then one pass per byte that differs), and each run of equal keys holding distinct
    values (only if shifted) put in order by exact value (:func:`_shell_sort`) unless it already is."""
    m = min(n, k)
    if m == 0:
        return order
    wide, bits = spare_order.view(np.float64), spare_order.view(np.uint64)  # (work space until the keys)
    lowest, highest = _NO_BITS, np.uint64(0)
    for i in range(n):
        wide[i] = values[i] + 0.0  # float32 widens exactly; + 0.0 makes -0.0 equal to 0.0
        u = bits[i]
        u = u if u & _SIGN else ~(u | _SIGN)  # descending: negative values as they are, others flipped
        bits[i] = u
        lowest = min(lowest, u)
        highest = max(highest, u)
    shift = np.uint64(0)
    while (highest - lowest) >> shift > np.uint64(0xFFFFFFFF):
        shift += np.uint64(1)
    histograms[:] = 0
    top = histograms[3]
    for i in range(n):
        key = np.uint32((bits[i] - lowest) >> shift)
        keys[i] = key
        top[key >> 24] += 1
    cut, above = 0, top[0]  # the top byte of the m-th key
    while above < m:
        cut += 1
        above += top[cut]
    kept = 0
    for i in range(n):  # (no branch: half the keys go, in no order)
        key = keys[i]
        keys[kept] = key
        order[kept] = i
        kept += (key >> 24) <= cut
    top[:] = 0
    for i in range(kept):  # histograms of each byte: the same in any order of the keys
        key = keys[i]
        histograms[0, key & 255] += 1
        histograms[1, (key >> 8) & 255] += 1
        histograms[2, (key >> 16) & 255] += 1
        histograms[3, key >> 24] += 1
    for byte in range(4):
        at_shift = 8 * byte
        histogram = histograms[byte]
        if histogram[(keys[0] >> at_shift) & 255] == kept:  # every key has this byte: nothing moves
            continue
        start = 0
        for b in range(256):
            start, histogram[b] = start + histogram[b], start
        for i in range(kept):  # the slot is taken before the stores: equal bytes in a row do not wait on them
            key = keys[i]
            b = (key >> at_shift) & 255
            at = histogram[b]
            histogram[b] = at + 1
            spare_keys[at] = key
            spare_order[at] = order[i]
        keys, spare_keys = spare_keys, keys
        order, spare_order = spare_order, order
    if shift > 0:  # distinct values may share a key
        lo = 0
        while lo < m:
            hi = lo + 1
            while hi < kept and keys[hi] == keys[lo]:
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
def _largest(a, n, r, top):
    """The ``r``-th largest of ``a[:n]`` (1 <= r <= n): for ``r`` up to ``len(top)``, the smallest of the ``r``
    largest kept in ascending order in ``top`` while ``a`` is read once (most values are below it: one
    comparison each); else :func:`_select`, which reorders ``a``."""
    if r > len(top):
        return _select(a, n, n - r)
    for i in range(r):  # the first r, by insertion
        v = a[i]
        j = i
        while j > 0 and top[j - 1] > v:
            top[j] = top[j - 1]
            j -= 1
        top[j] = v
    for i in range(r, n):
        v = a[i]
        if v > top[0]:  # it joins the r largest, top[0] leaves
            j = 1
            while j < r and top[j] < v:
                top[j - 1] = top[j]
                j += 1
            top[j - 1] = v
    return top[0]


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


@numba.njit(cache=True, nogil=True)
def merge_ranked(sizes_a, parts_a, cols_a, scores_a, sizes_b, parts_b, cols_b, scores_b, depth):
    """The twin of :func:`clirkit.retrieval.rankmerge.merge_ranked` (its arguments: the arrays of two ranked lists, then
    ``depth``; the same result): per query, one pass over the two lists' rows, the higher score first and a's
    row first on a tie."""
    n_queries = len(sizes_a)
    total = 0
    for q in range(n_queries):
        total += min(depth, sizes_a[q] + sizes_b[q])
    sizes = np.empty(n_queries, dtype=np.int64)
    parts = np.empty(total, dtype=parts_a.dtype)
    cols = np.empty(total, dtype=cols_a.dtype)
    scores = np.empty(total, dtype=np.float64)
    a = b = out = 0
    for q in range(n_queries):
        end_a, end_b = a + sizes_a[q], b + sizes_b[q]
        m = min(depth, sizes_a[q] + sizes_b[q])
        for i in range(out, out + m):
            if b >= end_b or (a < end_a and scores_a[a] >= scores_b[b]):
                parts[i], cols[i], scores[i] = parts_a[a], cols_a[a], scores_a[a]
                a += 1
            else:
                parts[i], cols[i], scores[i] = parts_b[b], cols_b[b], scores_b[b]
                b += 1
        sizes[q] = m
        out += m
        a, b = end_a, end_b
    return sizes, parts, cols, scores
