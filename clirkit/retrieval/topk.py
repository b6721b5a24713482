"""Top-k ranking in numpy: the twin of :mod:`clirkit.retrieval.kernels` (the compiled one) and its fallback.

:func:`rank_sums` takes the arguments of :func:`clirkit.retrieval.kernels.rank_sums` and gives the same counts,
documents and scores: each query's contributions are summed into one dense row of the documents, term
after term (a very common term's dense vector in one vectorized add, an order of magnitude cheaper per
posting than a scatter-add), and the row's top cells taken before the next query. :func:`compiled_ranker`
says which of the two ranks (numba's when it is installed and works). :func:`top_k` and
:func:`top_k_dense` select the top cells of score matrices made elsewhere (the boosted ranker's).

Selection avoids sorting a whole row: a strided sample of the row bounds its k-th largest cell from below,
the cells reaching the bound are sorted, and a row where too few reach it is done again with all its
matched cells. Ties go to the smaller column (documents are stored in docid order).
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import scipy.sparse as sp

from clirkit import jit

_DENSE_CELLS_PER_BATCH = 16_000_000  # bounds the (queries x docs) block of top_k's densified slices (128 MB)
_GROUP_BYTES = 16 * 2**20  # float32 rows ranked together (_top_k_block): they stay in the last-level cache
_ROW_BITS, _VALUE_BITS, _COLUMN_BITS = 9, 31, 24  # the 64-bit sort key of such a group
_ranker: Callable | bool | None = None  # compiled_ranker's answer once asked (False: numpy ranks)
_KERNELS, _FALLBACK = "clirkit.retrieval.kernels", "ranking with numpy, the same runs"


def rank_sums(
    bounds: np.ndarray,
    starts: np.ndarray,
    ends: np.ndarray,
    weights: np.ndarray,
    dense_slots: np.ndarray,
    indices: np.ndarray,
    data: np.ndarray,
    dense: np.ndarray,
    n_docs: int,
    k: int,
    positive: bool,
    floors: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The top ``k`` documents of each query from its weighted posting rows, in numpy: the arguments and
    the result of :func:`clirkit.retrieval.kernels.rank_sums` (query q's terms are ``bounds[q]:bounds[q + 1]`` of
    ``starts``, ``ends``, ``weights`` and ``dense_slots``; a term with a dense slot >= 0 is added as that
    row of ``dense``, read only when ``positive``; a query keeps only the documents scoring above its
    ``floors`` cell), except that the scores are float64.

    Returns ``(counts, documents, scores)``: how many documents each query keeps (int64, 0 for a query
    matching nothing), then the documents (int64) and scores (float64) in run order. Positive float32 rows
    are ranked a group at a time (:func:`_top_k_block`), others one by one (:func:`_top_k_row`).
    """
    dtype = weights.dtype
    n_queries = len(bounds) - 1
    unmatched = 0.0 if positive else -np.inf
    grouped = positive and dtype == np.float32 and n_docs < 2**_COLUMN_BITS
    group = max(1, min(2**_ROW_BITS, _GROUP_BYTES // max(4 * n_docs, 1))) if grouped else 1
    block = np.empty((min(group, n_queries), n_docs), dtype=dtype)
    hit = None if positive else np.empty(n_docs, dtype=bool)
    pending: list[int] = []  # the queries whose rows fill the block
    bounds = bounds.tolist()
    terms = list(zip(dense_slots.tolist(), starts.tolist(), ends.tolist(), weights.tolist()))
    out_rows, out_cols, out_values = [], [], []

    def rank_pending() -> None:  # the top cells of the rows in the block, at once
        rows, cols, values = _top_k_block(block[: len(pending)], k)
        out_rows.append(np.asarray(pending, dtype=np.int64)[rows])
        out_cols.append(cols)
        out_values.append(values)
        pending.clear()

    for q in range(n_queries):
        if bounds[q] == bounds[q + 1]:
            continue
        row = block[len(pending)]
        row.fill(0.0)
        if hit is not None:
            hit.fill(False)
        for slot, lo, hi, w in terms[bounds[q] : bounds[q + 1]]:
            if slot >= 0:
                row += dense[slot] if w == 1.0 else dtype.type(w) * dense[slot]
                continue
            docs, values = indices[lo:hi], data[lo:hi]
            np.add.at(row, docs, values if w == 1.0 else dtype.type(w) * values)
            if hit is not None:
                hit[docs] = True
        if hit is not None:
            row[~hit] = -np.inf
        if not grouped:
            cols, values = _top_k_row(row, unmatched, k)
            out_rows.append(np.full(len(cols), q, dtype=np.int64))
            out_cols.append(cols)
            out_values.append(values)
            continue
        pending.append(q)
        if len(pending) == len(block):
            rank_pending()
    if pending:
        rank_pending()
    sizes = np.zeros(n_queries, dtype=np.int64)
    if not out_rows:
        return sizes, np.zeros(0, dtype=np.int64), np.zeros(0)
    rows, values = np.concatenate(out_rows), np.concatenate(out_values).astype(np.float64)
    above = values > np.asarray(floors, dtype=np.float64)[rows]  # the top k, less those at or below the floor
    sizes += np.bincount(rows[above], minlength=n_queries)
    return sizes, np.concatenate(out_cols).astype(np.int64)[above], values[above]


def compiled_ranker() -> Callable | None:
    """:func:`clirkit.retrieval.kernels.rank_sums` when numba is installed, else None (:func:`rank_sums` ranks); None
    also when the environment variable ``CLIRKIT_NUMBA`` is ``0``. Loaded once, on the first search
    (:func:`clirkit.jit.kernels`)."""
    global _ranker
    if _ranker is None:
        compiled = jit.kernels(_KERNELS, _FALLBACK)
        _ranker = jit.held(compiled.rank_sums) if compiled is not None else False
    return _ranker if callable(_ranker) else None


def without_numba(error: BaseException) -> None:
    """Rank with numpy from now on, numba having failed with ``error``; say so once on stderr."""
    global _ranker
    _ranker = False
    jit.without_numba(_KERNELS, error, _FALLBACK)


def accumulate(rows: np.ndarray, cols: np.ndarray, values: np.ndarray, n_rows: int, n_cols: int) -> np.ndarray:
    """Sum ``values`` into a dense (n_rows x n_cols) block; cells with no entry are -inf."""
    keys = rows.astype(np.int64) * n_cols + cols
    # with no entry at all bincount returns integers, which cannot hold -inf
    dense = np.bincount(keys, weights=values, minlength=n_rows * n_cols).astype(np.float64, copy=False)
    hit = np.zeros(n_rows * n_cols, dtype=bool)
    hit[keys] = True
    dense[~hit] = -np.inf
    return dense.reshape(n_rows, n_cols)


def top_k_dense(dense: np.ndarray, unmatched: float, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The top ``k`` cells of each row of a dense score block, skipping cells equal to ``unmatched``.

    ``unmatched`` marks documents that match no query term: -inf, or 0 when
    every match scores > 0. Returns ``(rows, cols, values)`` ordered by row,
    then value descending, then column ascending (columns are docids in sorted
    order, so ties go to the smaller docid, also at the cut-off).
    """
    out_cols, out_values = [], []
    for row in dense:
        cols, values = _top_k_row(row, unmatched, k)
        out_cols.append(cols)
        out_values.append(values)
    if not out_cols:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0)
    counts = [len(c) for c in out_cols]
    return (
        np.repeat(np.arange(len(counts)), counts),
        np.concatenate(out_cols).astype(np.int64),
        np.concatenate(out_values),
    )


def _top_k_row(row: np.ndarray, unmatched: float, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The top ``k`` cells of one row as ``(columns, values)``, value descending then column ascending,
    skipping cells equal to ``unmatched`` (:func:`top_k_dense`)."""
    kk = min(k, len(row))
    candidates, bound = _candidates(row, kk, unmatched)
    values = row[candidates]
    if len(values) > kk:
        threshold = np.partition(values, len(values) - kk)[len(values) - kk]  # the row's k-th largest
        above = values > threshold
        tied = np.flatnonzero(values == threshold)[: kk - int(np.count_nonzero(above))]  # smallest docids
        above[tied] = True
        candidates, values = candidates[above], values[above]
        bound = threshold
    if not bound > unmatched:  # cells that match nothing may be among the candidates
        matched = values != unmatched
        candidates, values = candidates[matched], values[matched]
    if unmatched == 0.0 and len(values) > 1:  # positive values: one sort of (float32 value, column) keys
        rounded = values.astype(np.float32)  # rounding keeps the order (ties may appear)
        keys = (~rounded.view(np.uint32)).astype(np.uint64) << np.uint64(32) | candidates.astype(np.uint64)
        keys.sort()
        ordered = (keys & np.uint64(0xFFFFFFFF)).astype(np.int64)
        exact = row[ordered]
        if values.dtype == np.float32:
            return ordered, exact
        bucket = exact.astype(np.float32)  # two values in one float32 bucket: their order is the columns'
        if not np.any((bucket[1:] == bucket[:-1]) & (exact[1:] != exact[:-1])):
            return ordered, exact
    order = np.argsort(-values, kind="stable")  # candidates ascend, so ties keep docid order
    return candidates[order], values[order]


def _top_k_block(block: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`top_k_dense` of a float32 block whose matched cells are > 0 and unmatched ones 0, with at most
    2**_ROW_BITS rows and 2**_COLUMN_BITS columns, in a fixed number of numpy calls whatever its rows.

    A strided 1/8 sample of each row bounds its k-th largest cell from below (about 1.5k cells reach the
    bound); the cells reaching it are sorted at once as 64-bit keys (row, value descending, column), and the
    first k of each row kept. A row where fewer than k cells reach the bound is redone with all its matched
    cells.
    """
    g, n = block.shape
    kk = min(k, n)
    smallest = np.float32(np.finfo(np.float32).tiny)
    bound = np.full(g, smallest, dtype=np.float32)
    if n >= 8 * kk:
        sample = block[:, ::8]
        width = sample.shape[1]
        rank = min(width - 1, max(1, (3 * kk) // 16))
        # unmatched cells become distinct tiny negatives: numpy's introselect is 15x slower on equal values
        # (matched ones do not change: the bound is checked by counting anyway)
        sample = sample - np.arange(1, width + 1, dtype=np.float32) * np.float32(1e-30)
        sample.partition(width - rank, axis=1)
        bound = np.maximum(sample[:, width - rank], smallest)
    flat = block.reshape(-1)  # 2-D nonzero and fancy indexing are 5-10x slower than 1-D
    cells = np.flatnonzero(block >= bound[:, None])
    rows, cols = np.divmod(cells, n)
    short = np.flatnonzero((np.bincount(rows, minlength=g) < kk) & (bound > smallest))
    if len(short):  # the sample's bound was above the k-th cell: take every matched cell of those rows
        redo = np.isin(rows, short, invert=True)
        more_rows, more_cols = np.divmod(np.flatnonzero(block[short] > 0), n)
        rows = np.concatenate([rows[redo], short[more_rows]])
        cols = np.concatenate([cols[redo], more_cols])
        cells = rows * n + cols
    values = flat[cells]
    keys = rows.astype(np.uint64) << np.uint64(_VALUE_BITS + _COLUMN_BITS)
    keys |= (np.uint32(0x7FFFFFFF) - values.view(np.uint32)).astype(np.uint64) << np.uint64(_COLUMN_BITS)
    keys |= cols.astype(np.uint64)
    keys.sort()
    rows = (keys >> np.uint64(_VALUE_BITS + _COLUMN_BITS)).astype(np.int64)
    cols = (keys & np.uint64(2**_COLUMN_BITS - 1)).astype(np.int64)
    counts = np.bincount(rows, minlength=g)
    rank = np.arange(len(rows)) - np.repeat(np.cumsum(counts) - counts, counts)
    keep = rank < kk
    rows, cols = rows[keep], cols[keep]
    return rows, cols, flat[rows * n + cols]


def _candidates(row: np.ndarray, k: int, unmatched: float) -> tuple[np.ndarray, float]:
    """Ascending columns of a superset of the row's top ``k`` matched cells, and a value all of them reach.

    A strided sample (1/8, or 1/3 to 1/7 of a row shorter than 8k) of the matched cells (> ``unmatched``)
    gives a value with about 2k cells above; keeping the cells >= that value is one comparison pass instead
    of a full selection. If fewer than k cells qualify, the bound was too high: take every matched cell.
    Unmatched cells never enter a selection (numpy's introselect is 15x slower on an array of mostly equal
    values).
    """
    n = len(row)
    stride = min(8, n // max(k, 1))
    if stride >= 3:
        sample = row[::stride]
        sample = sample[sample > unmatched]
        rank = min(len(sample) - 1, max(1, (2 * k) // stride))
        if rank >= 1:
            sample.partition(len(sample) - rank)
            bound = sample[len(sample) - rank]
            candidates = np.flatnonzero(row >= bound)
            if len(candidates) >= k:
                return candidates, float(bound)
    return np.flatnonzero(row > unmatched), unmatched


def top_k(scores: sp.csr_matrix, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`top_k_dense` of a CSR score matrix whose stored entries are the candidates
    (columns are the tie order), densified in row slices of bounded size."""
    scores = scores.tocsr()
    n_rows, n_cols = scores.shape
    step = max(1, _DENSE_CELLS_PER_BATCH // max(n_cols, 1))
    parts = []
    for lo in range(0, n_rows, step):
        block = scores[lo : lo + step].tocoo()
        rows, cols, values = top_k_dense(accumulate(block.row, block.col, block.data, *block.shape), -np.inf, k)
        parts.append((rows + lo, cols, values))
    if not parts:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0)
    rows, cols, values = (np.concatenate(arrays) for arrays in zip(*parts))
    return rows, cols, values
