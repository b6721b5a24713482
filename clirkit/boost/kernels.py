"""Compiled boosting rounds (numba), used when numba is installed (``pip install 'clirkit[fast]'``), and the
loops of the streamed set-up (:mod:`clirkit.boost.streamed`: a block's product from the documents' rows, the
buckets' bits and occurrence counts, W+/W- added pair after pair).

Each loop makes the same floating-point operations in the same order as the sparse product and the numpy
code it replaces (a pair's sum runs over the tuples in ascending order, from 0, each term ``v_t * |x|``; a bucket
adds its pairs' sums; a gain is ``(sqrt(max(W+, 0)) - sqrt(max(W-, 0)))**2`` or ``|max(W+, 0) - max(W-, 0)|``),
so the statistics, and the models, are the same bits whichever path makes them. Imported only through
:func:`clirkit.boost.pairmap.kernels`; the arrays are those of :class:`~clirkit.boost.pairmap.PairMap` and of
:class:`~clirkit.boost.rounds.PairBooster` (``W``: each bucket's W+ and W- side by side, one cache line).
"""

from __future__ import annotations

import numba
import numpy as np
from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic

_PREFETCH = 16  # W rows asked for this many entries ahead of their update


@intrinsic
def _prefetch(typingctx, array, row):
    """Ask for the cache line of ``array[row]`` (of ``array[row, 0]`` if 2-d): LLVM's prefetch, for reading and
    writing. The rounds update W's rows at random; a prefetch leaves no load waiting in the pipeline."""

    def codegen(context, builder, signature, args):
        kind, row_kind = signature.args
        data = context.make_array(kind)(context, builder, args[0])
        index = [args[1]] + [context.get_constant(row_kind, 0)] * (kind.ndim - 1)
        at = cgutils.get_item_pointer(context, builder, kind, data, index, wraparound=False)
        byte = ir.IntType(8).as_pointer()
        int32 = ir.IntType(32)
        signature = ir.FunctionType(ir.VoidType(), [byte, int32, int32, int32])
        fn = cgutils.get_or_insert_function(builder.module, signature, "llvm.prefetch.p0i8")
        # (address, 1: for a write, 3: keep in all cache levels, 1: data)
        builder.call(
            fn, [builder.bitcast(at, byte), ir.Constant(int32, 1), ir.Constant(int32, 3), ir.Constant(int32, 1)]
        )
        return context.get_dummy_value()

    return types.void(array, row), codegen


@numba.njit(cache=True, nogil=True, inline="always")
def _gain(wp, wm, exact):
    if wp < 0.0:  # np.maximum(w, 0.0) keeps -0.0
        wp = 0.0
    if wm < 0.0:
        wm = 0.0
    if exact:
        d = np.sqrt(wp) - np.sqrt(wm)
        return d * d
    return abs(wp - wm)


@numba.njit(cache=True, nogil=True)
def _by_source(query, qptr, qsrc, rows, n_sources):
    """The (tuple, source) entries of the tuples ``rows`` grouped by source, tuples ascending (a counting sort):
    ``(start, entry_row, entry_a)``, source i's entries at ``start[i]:start[i + 1]``, each the position of its
    tuple in ``rows`` and of the source in the tuple's query."""
    start = np.zeros(n_sources + 1, np.int64)
    for r in range(len(rows)):
        q = query[rows[r]]
        for a in range(qptr[q], qptr[q + 1]):
            start[qsrc[a] + 1] += 1
    for i in range(n_sources):
        start[i + 1] += start[i]
    fill = start[:-1].copy()
    entry_row = np.empty(start[-1], np.int64)
    entry_a = np.empty(start[-1], np.int64)
    for r in range(len(rows)):
        q = query[rows[r]]
        for a in range(qptr[q], qptr[q + 1]):
            i = qsrc[a]
            entry_row[fill[i]] = r
            entry_a[fill[i]] = a - qptr[q]
            fill[i] += 1
    return start, entry_row, entry_a


@numba.njit(cache=True, nogil=True, inline="always")
def _source_row(
    k0, k1, entry_row, entry_a, rows, change, query, qb, nu, dptr, du, dcol, dval, code, sums, first, row_code, cols
):
    """One source's row of the product, its entries ``k0:k1`` (tuples ascending): each column ``2 j + (x < 0)``
    summed from 0 in ``sums``, the delta entry that first had it in ``first`` and its code in ``row_code``; the
    columns listed in ``cols`` as first met; returns how many."""
    n = 0
    for k in range(k0, k1):
        r = entry_row[k]
        t = rows[r]
        q = query[t]
        v = change[r]
        base = qb[q] + entry_a[k] * nu[q]
        for e in range(dptr[t], dptr[t + 1]):
            x = dval[e]
            col = 2 * np.int64(dcol[e])
            if x < 0:
                col += 1
                x = -x
            if first[col] < 0:
                first[col] = e
                row_code[col] = code[base + du[e]]
                cols[n] = col
                n += 1
            sums[col] += v * x
    return n


@numba.njit(cache=True, nogil=True)
def code_sums(query, qptr, qsrc, dptr, du, dcol, dval, qb, nu, code, weights, n_sources, n_targets, wp, wm):
    """W+ and W- of every pair (by code) over all the tuples, tuple t weighing ``weights[t]``, written into ``wp``
    and ``wm`` (zeros, one a code, given): the product made as :func:`round_update` makes it, source after source
    (a pair's sums are final when its source's row is)."""
    rows = np.arange(len(query))
    start, entry_row, entry_a = _by_source(query, qptr, qsrc, rows, n_sources)
    sums = np.zeros(2 * n_targets)
    first = np.full(2 * n_targets, -1, np.int64)
    row_code = np.empty(2 * n_targets, np.int64)
    cols = np.empty(2 * n_targets, np.int64)
    for i in range(n_sources):
        n = _source_row(
            start[i],
            start[i + 1],
            entry_row,
            entry_a,
            rows,
            weights,
            query,
            qb,
            nu,
            dptr,
            du,
            dcol,
            dval,
            code,
            sums,
            first,
            row_code,
            cols,
        )
        for k in range(n):
            col = cols[k]
            c = row_code[col]
            if c < 0:
                c = -1 - c
            if col & 1:
                wm[c] = sums[col]
            else:
                wp[c] = sums[col]
            sums[col] = 0.0
            first[col] = -1


@numba.njit(cache=True, nogil=True)
def round_update(
    query,
    qptr,
    qsrc,
    dptr,
    du,
    dcol,
    dval,
    qb,
    nu,
    code,
    rows,
    change,
    W,
    extra_bucket,
    block_max,
    block_stale,
    block,
    exact,
    n_sources,
    sums,
    first,
    row_code,
    cols,
    add_c,
    add_p,
    add_m,
    out_b,
    out_g,
):
    """One chunk of a round: the product of the tuples ``rows`` (ascending) weighted by ``change``, added to W.

    As ``scipy.sparse`` multiplies ``Qt^T`` by ``Delta``: source after source, each source's tuples in ascending
    order summed into a dense row of the columns ``2 j + (x < 0)``, each column's sum started from 0. Every
    column with a non-zero sum is a pair's W+ or W- entry, added to its bucket's row of ``W`` (W+, W-, the
    stored gain); the bucket's gain before the chunk and after are compared as :meth:`PairBooster._add` does
    (its block marked stale where the gain fell, its block maximum raised). The sums of a bucket of two pairs or
    more (code ``-1 - c`` in the table) are added in the product's order: by source, and within a source by the
    delta entry that first had the pair, descending (the order scipy's product lists a row); their gains are
    made when all are in. ``sums`` (0.0), ``first`` (-1), ``row_code`` and ``cols``, ``2 T`` entries each, hold
    the dense row; they are left as found. ``add_c``, ``add_p``, ``add_m``, ``out_b`` and ``out_g`` are scratch
    arrays of one entry a pair occurrence of the chunk at least: with fewer, nothing is done and minus that
    number is returned (0 otherwise).
    """
    nb = W.shape[0]
    total = 0
    for r in range(len(rows)):
        t = rows[r]
        total += (qptr[query[t] + 1] - qptr[query[t]]) * (dptr[t + 1] - dptr[t])
    if total > min(len(add_c), len(out_b)):
        return -total
    start, entry_row, entry_a = _by_source(query, qptr, qsrc, rows, n_sources)
    # each source's row of the product; then a pair of an unshared bucket (code >= 0) updates its bucket, both
    # signs together (the gain before either sum is added); the others' sums (code -1 - c) are added in the
    # product's order and listed, with their bucket's gain before the chunk (stored gains change only at the end)
    n_out = 0
    # the unshared buckets' sums, (bucket, W+ sum, W- sum), added after the rows, W's rows asked for ahead
    n_add = 0
    for i in range(n_sources):
        if start[i] == start[i + 1]:
            continue
        n = _source_row(
            start[i],
            start[i + 1],
            entry_row,
            entry_a,
            rows,
            change,
            query,
            qb,
            nu,
            dptr,
            du,
            dcol,
            dval,
            code,
            sums,
            first,
            row_code,
            cols,
        )
        for k in range(n):
            col = cols[k]
            if first[col] < 0:  # done with its other sign
                continue
            c = row_code[col]
            if c >= 0:
                pair = col & ~1
                sp = sums[pair]
                sm = sums[pair + 1]
                if sp != 0.0 or sm != 0.0:  # the product lists no entry whose sum is 0
                    add_c[n_add] = c
                    add_p[n_add] = sp
                    add_m[n_add] = sm
                    n_add += 1
                sums[pair] = 0.0
                sums[pair + 1] = 0.0
                first[pair] = -1
                first[pair + 1] = -1
        for k in range(n - 1, -1, -1):  # the shared buckets' columns, the latest first met first
            col = cols[k]
            if first[col] >= 0:
                value = sums[col]
                if value != 0.0:
                    c = -1 - row_code[col]
                    b = c if c < nb else extra_bucket[c - nb]
                    W[b, col & 1] += value
                    out_b[n_out] = b
                    out_g[n_out] = W[b, 2]
                    n_out += 1
                sums[col] = 0.0
                first[col] = -1
    for k in range(n_add):
        if k + _PREFETCH < n_add:
            _prefetch(W, add_c[k + _PREFETCH])
        c = add_c[k]
        wp = W[c, 0]
        wm = W[c, 1]
        g0 = W[c, 2]
        sp = add_p[k]
        sm = add_m[k]
        if sp != 0.0:
            wp += sp
            W[c, 0] = wp
        if sm != 0.0:
            wm += sm
            W[c, 1] = wm
        g = _gain(wp, wm, exact)
        W[c, 2] = g
        _refresh(c, g, g0, block_max, block_stale, block)
    for k in range(n_out):  # the shared buckets' gains, all their sums in
        b = out_b[k]
        g = _gain(W[b, 0], W[b, 1], exact)
        W[b, 2] = g
        _refresh(b, g, out_g[k], block_max, block_stale, block)
    return 0


@numba.njit(cache=True, nogil=True, inline="always")
def _refresh(b, g, before, block_max, block_stale, block):
    """Bucket ``b``'s gain is ``g`` now (``before`` before the chunk): its block stale if it fell, its block
    maximum raised (branch-free: the outcomes are unpredictable)."""
    j = b // block
    block_stale[j] = block_stale[j] | (g < before)
    m = block_max[j]
    block_max[j] = g if g > m else m


@numba.njit(cache=True, nogil=True)
def tuples_with(src, tgt, qc_ptr, qc_idx, qptr, dc_ptr, dc_idx, dc_data, pos, neg, docval):
    """The tuples t whose x_k(t) = sum over the bucket's pairs (``src``, ``tgt``) of d+_j - d-_j (for a query with
    source i) is not 0, ascending, and x_k(t): as :meth:`PairBooster.tuples_with` makes them (a pair's non-zero
    values, summed per tuple from 0 in the pairs' order). ``docval`` (0.0, one a document) is left as found."""
    total = 0
    for p in range(len(src)):
        for k in range(qc_ptr[src[p]], qc_ptr[src[p] + 1]):
            total += qptr[qc_idx[k] + 1] - qptr[qc_idx[k]]
    rows = np.empty(total, np.int64)
    xs = np.empty(total)
    n = 0
    for p in range(len(src)):
        j = tgt[p]
        for k in range(dc_ptr[j], dc_ptr[j + 1]):
            docval[dc_idx[k]] = dc_data[k]
        for k in range(qc_ptr[src[p]], qc_ptr[src[p] + 1]):
            q = qc_idx[k]
            for t in range(qptr[q], qptr[q + 1]):
                x = docval[pos[t]] - docval[neg[t]]
                if x != 0:
                    rows[n] = t
                    xs[n] = x
                    n += 1
        for k in range(dc_ptr[j], dc_ptr[j + 1]):
            docval[dc_idx[k]] = 0.0
    if len(src) == 1:  # ascending already: a source's queries are, and their tuples
        return rows[:n], xs[:n]
    order = np.argsort(rows[:n], kind="mergesort")  # stable: a tuple's values in the pairs' order
    out_rows = np.empty(n, np.int64)
    out_x = np.empty(n)
    m = 0
    k = 0
    while k < n:
        t = rows[order[k]]
        x = 0.0
        while k < n and rows[order[k]] == t:
            x += xs[order[k]]
            k += 1
        if x != 0:
            out_rows[m] = t
            out_x[m] = x
            m += 1
    return out_rows[:m], out_x[:m]


@numba.njit(cache=True, nogil=True)
def target_lists(qbound, dptr, dcol, n_targets, du, targets):
    """Each query's target list, as :meth:`PairMap.build` makes it with numpy: the sorted distinct targets of its
    tuples' deltas (query q's tuples are ``qbound[q]:qbound[q + 1]``), one list after the other in ``targets``, and
    each delta entry's position ``du`` in its query's list (both given, ``len(dcol)`` each: numpy's memory, which
    a large array takes in huge pages). Returns ``(nu, uptr)``: each list's length and start."""
    n_queries = len(qbound) - 1
    nu = np.zeros(n_queries, np.int64)
    uptr = np.zeros(n_queries + 1, np.int64)
    at = np.full(n_targets, -1, np.int64)  # a target's position in the list being made, or -1
    n = 0
    for q in range(n_queries):
        first = n
        for e in range(dptr[qbound[q]], dptr[qbound[q + 1]]):
            j = dcol[e]
            if at[j] < 0:
                at[j] = 0
                targets[n] = j
                n += 1
        targets[first:n].sort()
        for k in range(first, n):
            at[targets[k]] = k - first
        for e in range(dptr[qbound[q]], dptr[qbound[q + 1]]):
            du[e] = at[dcol[e]]
        for k in range(first, n):
            at[targets[k]] = -1
        nu[q] = n - first
        uptr[q + 1] = n
    return nu, uptr


@numba.njit(cache=True, nogil=True)
def pair_ids(qb, uptr, nu, targets, qptr, qsrc, n_sources, n_targets, table, tgt):
    """The pairs (source, target of a query of that source) numbered in key order, source after source, as
    :meth:`PairMap.build` numbers them with numpy: ``table[qb[q] + a * nu[q] + u]`` is the id of (query q's a-th
    source, its u-th target, ``targets[uptr[q] + u]``: :func:`target_lists`) and ``tgt[id]`` the pair's target
    (``table`` and ``tgt`` given, ``qb[-1]`` each). Returns ``src_ptr``: source s holds ids ``src_ptr[s]:src_ptr[s +
    1]``."""
    n_queries = len(nu)
    at = np.full(n_targets, -1, np.int64)
    queries = np.arange(n_queries)  # each source's (query, a) entries, queries ascending
    sstart, entry_q, entry_a = _by_source(queries, qptr, qsrc, queries, n_sources)
    src_ptr = np.zeros(n_sources + 1, np.int64)
    n_pairs = 0
    for i in range(n_sources):  # (target_lists' marking written out again: as helpers they took 2x the time)
        first = n_pairs
        for k in range(sstart[i], sstart[i + 1]):
            q = entry_q[k]
            for u in range(uptr[q], uptr[q + 1]):
                j = targets[u]
                if at[j] < 0:
                    at[j] = 0
                    tgt[n_pairs] = j
                    n_pairs += 1
        tgt[first:n_pairs].sort()
        for p in range(first, n_pairs):
            at[tgt[p]] = p
        for k in range(sstart[i], sstart[i + 1]):
            q = entry_q[k]
            base = qb[q] + entry_a[k] * nu[q]
            for u in range(nu[q]):
                table[base + u] = at[targets[uptr[q] + u]]
        for p in range(first, n_pairs):
            at[tgt[p]] = -1
        src_ptr[i + 1] = n_pairs
    return src_ptr


@numba.njit(cache=True, nogil=True)
def tuple_delta_ptr(pos, neg, indptr, indices, data):
    """The indptr of :func:`tuple_deltas`: each tuple's count of non-zero ``d+ - d-`` entries, summed."""
    n = len(pos)
    ptr = np.zeros(n + 1, np.int64)
    for t in range(n):
        a, a_end = indptr[pos[t]], indptr[pos[t] + 1]
        b, b_end = indptr[neg[t]], indptr[neg[t] + 1]
        k = 0
        while a < a_end or b < b_end:
            if b == b_end or (a < a_end and indices[a] < indices[b]):
                k += data[a] != 0
                a += 1
            elif a == a_end or indices[b] < indices[a]:
                k += data[b] != 0
                b += 1
            else:
                k += data[a] - data[b] != 0
                a += 1
                b += 1
        ptr[t + 1] = ptr[t] + k
    return ptr


@numba.njit(cache=True, nogil=True)
def tuple_delta_entries(pos, neg, indptr, indices, data, ptr, cols, values):
    """The columns and values of :func:`tuple_deltas` written into ``cols`` and ``values`` (``ptr[-1]`` each,
    given: :func:`tuple_delta_ptr`)."""
    for t in range(len(pos)):
        a, a_end = indptr[pos[t]], indptr[pos[t] + 1]
        b, b_end = indptr[neg[t]], indptr[neg[t] + 1]
        k = ptr[t]
        while a < a_end or b < b_end:
            if b == b_end or (a < a_end and indices[a] < indices[b]):
                j, x = indices[a], data[a] - 0.0
                a += 1
            elif a == a_end or indices[b] < indices[a]:
                j, x = indices[b], 0.0 - data[b]
                b += 1
            else:
                j, x = indices[a], data[a] - data[b]
                a += 1
                b += 1
            if x != 0:
                cols[k] = j
                values[k] = x
                k += 1


@numba.njit(cache=True, nogil=True)
def tuple_deltas(pos, neg, indptr, indices, data):
    """``Dm[pos] - Dm[neg]`` of a canonical CSR ``Dm`` (sorted, distinct columns), as scipy's subtraction makes it:
    each row the columns of either row ascending, ``a - b`` (``a`` or ``-b`` where one row lacks the column), the
    zero results left out: ``(indptr, indices, data)``."""
    ptr = tuple_delta_ptr(pos, neg, indptr, indices, data)
    cols = np.empty(ptr[len(pos)], indices.dtype)
    values = np.empty(ptr[len(pos)])
    tuple_delta_entries(pos, neg, indptr, indices, data, ptr, cols, values)
    return ptr, cols, values


@numba.njit(cache=True, nogil=True)
def set_bits(words, twice, thrice, ids):
    """Set bit ``id & 63`` of ``words[id >> 6]`` for each of ``ids``; of ``twice`` for an id met before, of
    ``thrice`` for one met twice before (empty arrays: not kept). Returns the ids that met a set ``twice`` bit:
    the pairs of buckets of three or more, counted each (:meth:`BucketBitmap.add`)."""
    one = np.uint64(1)
    levels = len(twice) > 0
    shared = 0
    for k in range(len(ids)):
        b = ids[k]
        w, bit = b >> 6, one << np.uint64(b & 63)
        if not levels or not words[w] & bit:
            words[w] |= bit
        elif not twice[w] & bit:
            twice[w] |= bit
        elif not thrice[w] & bit:
            thrice[w] |= bit
            shared += 3
        else:
            shared += 1
    return shared


@numba.njit(cache=True, nogil=True)
def add_support(counts, hist, slots, occurrences, saturation):
    """Add each of ``occurrences`` to ``counts[slot]`` (uint8), stopping at ``saturation``, and keep ``hist`` (the
    slots of each count, 0 left alone) up to date (:meth:`SupportCounts.add`): the same counts as numpy's."""
    for k in range(len(slots)):
        s = slots[k]
        old = np.int64(counts[s])
        new = old + np.int64(occurrences[k])
        if new > saturation:
            new = saturation
        if new != old:
            if old > 0:
                hist[old] -= 1
            hist[new] += 1
            counts[s] = new


@numba.njit(cache=True, nogil=True)
def block_product(a, b, qt_ptr, qt_idx, qt_val, pos, neg, d_ptr, d_idx, d_data, unit, n_targets, bound):
    """Rows ``a:b`` of Qt^T diag(v) Delta as CSR ``(indptr, indices, data)``, Delta made from the documents' rows
    as they are read (never held): as :class:`~clirkit.boost.streamed.ProductBlocks` makes them with scipy. Row i
    runs over its tuples t (``qt_idx``, ascending, with ``qt_val`` v_t) and the target n-grams j where d+ and d-
    differ (the two sorted rows merged, x = d+_j - d-_j as scipy subtracts them), adding v_t |x| (1 with
    ``unit``) to column 2j (x > 0) or 2j + 1 (x < 0) from 0; a row's columns ascending, a sum of 0 left out."""
    n_cols = 2 * n_targets
    sums = np.zeros(n_cols)
    seen = np.zeros(n_cols, np.bool_)
    touched = np.empty(n_cols, np.int64)
    out_ptr = np.zeros(b - a + 1, np.int64)
    out_idx = np.empty(bound, np.int64)
    out_val = np.empty(bound)
    n = 0
    for i in range(a, b):
        m = 0
        for k in range(qt_ptr[i], qt_ptr[i + 1]):
            t = qt_idx[k]
            v = qt_val[k]
            p, p_end = d_ptr[pos[t]], d_ptr[pos[t] + 1]
            q, q_end = d_ptr[neg[t]], d_ptr[neg[t] + 1]
            while p < p_end or q < q_end:
                if q >= q_end or (p < p_end and d_idx[p] < d_idx[q]):
                    j, x = d_idx[p], d_data[p]
                    p += 1
                elif p >= p_end or d_idx[q] < d_idx[p]:
                    j, x = d_idx[q], 0.0 - d_data[q]
                    q += 1
                else:
                    j, x = d_idx[p], d_data[p] - d_data[q]
                    p += 1
                    q += 1
                if x == 0.0:
                    continue
                col = 2 * j + (1 if x < 0.0 else 0)
                if not seen[col]:
                    seen[col] = True
                    touched[m] = col
                    m += 1
                sums[col] += 1.0 if unit else v * abs(x)
        cols = np.sort(touched[:m])
        for c in cols:
            if sums[c] != 0.0:
                out_idx[n] = c
                out_val[n] = sums[c]
                n += 1
            sums[c] = 0.0
            seen[c] = False
        out_ptr[i - a + 1] = n
    return out_ptr, out_idx[:n], out_val[:n]


@numba.njit(cache=True, nogil=True)
def scatter_sums(Wp, Wm, bucket, first, indices, data):
    """Add each product entry (column ``indices``, value ``data``) of pair p (entries ``first[p]:first[p + 1]``)
    to W+ (even column) or W- (odd) of its compact bucket ``bucket[p]`` (-1: left out), in order: as numpy's
    ``np.add.at`` over the entries (:func:`clirkit.boost.streamed.stream_sums`)."""
    n = len(bucket)
    for p in range(n):
        if p + _PREFETCH < n and bucket[p + _PREFETCH] >= 0:
            _prefetch(Wp, bucket[p + _PREFETCH])
            _prefetch(Wm, bucket[p + _PREFETCH])
        k = bucket[p]
        if k < 0:
            continue
        for e in range(first[p], first[p + 1]):
            if indices[e] & 1:
                Wm[k] += data[e]
            else:
                Wp[k] += data[e]
