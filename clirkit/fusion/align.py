"""Alignment of runs on a common index of (query, document) pairs, shared by every fusion method.

:func:`align` cuts each run to its top ``depth`` rows and maps every row to an
integer pair number: ids are grouped by a verified 64-bit hash
(:func:`factorize`), then one ``np.unique`` runs over the combined integer
codes. Per-query sums, minima and maxima then become ``bincount``/``reduceat``
segment reductions and the output ranking is one integer ``lexsort``
(:meth:`AlignedRuns.ranked`): nothing is looped per document. Tuning aligns
once and re-weights many times (:mod:`clirkit.tuning`), selecting each
query's top ``depth`` with :class:`TopK` instead of ranking every pair.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from clirkit.errors import ClirkitError
from clirkit.hashing import string_hash
from clirkit.packedrun import PackedRun
from clirkit.run import Run, check_depth, check_run_tag, take_strings
from clirkit.runinputs import shown
from clirkit.sortedunique import sorted_unique


@dataclass(frozen=True)
class AlignedRuns:
    """All runs' rows on a common index of (query, document) pairs.

    Attributes:
        runs: the input runs (a :class:`~clirkit.packedrun.PackedRun` as it is), tied rows in docid order
            (:func:`docid_ties`), each cut to its top ``depth`` rows.
        pair: for run i, ``pair[i]`` maps its rows to pair numbers (one per row; these codes, and those
            of the next two, are int32 when the runs hold fewer than 2^31 rows, else int64).
        row_query: for run i, ``row_query[i]`` maps its rows to query codes (one per row).
        pair_q, pair_d: query code and document code of each pair (one per pair);
            pairs are numbered in (query id, document id) order.
        uq, ud: the query ids and document ids (str arrays), sorted, so code order is id order.
        query_rank: each query code's position in first-appearance order over the runs (int64).
        packed: every input run was a :class:`~clirkit.packedrun.PackedRun`: so is :meth:`ranked`'s.
    """

    runs: list[Run]
    pair: list[np.ndarray]
    row_query: list[np.ndarray]
    pair_q: np.ndarray
    pair_d: np.ndarray
    uq: np.ndarray
    ud: np.ndarray
    query_rank: np.ndarray
    packed: bool = False

    @property
    def n_queries(self) -> int:
        """Number of distinct queries over all runs."""
        return len(self.uq)

    @property
    def n_pairs(self) -> int:
        """Number of distinct (query, document) pairs over all runs."""
        return len(self.pair_q)

    def top_k(self, depth: int) -> TopK:
        """The per-query top ``depth`` of these pairs, for many score vectors (:class:`TopK`); ClirkitError for a
        ``depth`` that is not an integer >= 1."""
        check_depth(depth)
        return TopK(self.pair_q, self.n_queries, depth)

    def ranked(self, scores: np.ndarray, depth: int, tag: str) -> Run | PackedRun:
        """The pairs as a run (packed when the inputs were: :attr:`packed`), top ``depth`` per query.

        Args:
            scores: one score per pair (float64, length :attr:`n_pairs`).
            depth: rows kept per query.
            tag: the run's tag.

        Returns:
            A run with queries in first-appearance order, scores descending,
            ties by docid ascending.

        Each query's top ``depth`` pairs are chosen first (:class:`TopK`, scores finite), then only those sorted.
        ClirkitError, before any work, for scores that are not numbers, one per pair, a ``depth`` that is not an
        integer >= 1 or a ``tag`` a run file cannot hold (:func:`~clirkit.run.check_run_tag`).
        """
        scores = self._pair_scores(scores)
        check_depth(depth)
        check_run_tag(tag)
        kept = np.flatnonzero(TopK(self.pair_q, self.n_queries, depth).mask(scores))
        # pairs are numbered in (query, docid) order and lexsort is stable: equal scores keep docid order
        kept = kept[np.lexsort((-scores[kept], self.query_rank[self.pair_q[kept]]))]
        by_rank = np.empty_like(self.query_rank)  # the query codes in first-appearance order
        by_rank[self.query_rank] = np.arange(len(by_rank))
        sizes = np.bincount(self.pair_q, minlength=self.n_queries)[by_rank]  # pairs of each, in that order
        if self.packed:
            return PackedRun.from_codes(
                self.uq[by_rank], np.minimum(sizes, depth), self.ud, self.pair_d[kept], scores[kept], tag=tag
            )
        documents = take_strings(self.ud, self.pair_d[kept])
        # (each pair once by construction: not checked again)
        return Run._from_groups(
            self.uq[by_rank], np.minimum(sizes, depth), documents, scores[kept], tag=tag, pairs_known=True
        )

    def _pair_scores(self, scores) -> np.ndarray:
        """``scores`` as a float64 array if they are real numbers, one per pair (:attr:`n_pairs`); else
        ClirkitError."""
        given = np.asarray(scores)
        if given.ndim != 1 or given.dtype.kind not in "iuf" or len(given) != self.n_pairs:
            what = f"{len(given)} of them" if given.ndim == 1 and given.dtype.kind in "iuf" else shown(scores)
            raise ClirkitError(f"AlignedRuns.ranked: scores must be numbers, one per pair ({self.n_pairs}), got {what}")
        return given.astype(np.float64, copy=False)


class TopK:
    """Which pairs are in their query's top ``depth`` in the order of :meth:`AlignedRuns.ranked` (score
    descending, ties by docid ascending), for many score vectors over the same pairs.

    Made once per alignment and depth (:meth:`AlignedRuns.top_k`): the queries with more than ``depth`` pairs
    are laid out in a padded (query x pair) matrix; each :meth:`mask` is one ``np.partition`` of its rows (the
    ``depth``-th best score of each such query) and a few passes over their pairs, where a full ranking is a
    sort of every pair. On runs aligned at ``depth`` a query has at most (runs x ``depth``) pairs, so the
    matrix holds at most as many cells per deep query.
    """

    def __init__(self, pair_q: np.ndarray, n_queries: int, depth: int) -> None:
        sizes = np.bincount(pair_q, minlength=n_queries)
        deep = np.flatnonzero(sizes > depth)
        self.n_pairs, self.depth = len(pair_q), depth
        self.sizes = sizes[deep]  # pairs of each deep query (pairs of a query are contiguous, by docid)
        first = (np.cumsum(sizes) - sizes)[deep]
        self.row = np.repeat(np.arange(len(deep)), self.sizes)  # of each pair of a deep query, in pair order
        self.starts = np.cumsum(self.sizes) - self.sizes  # where each deep query's pairs begin among them
        col = np.arange(len(self.row)) - np.repeat(self.starts, self.sizes)
        self.pairs = np.repeat(first, self.sizes) + col
        self.width = int(self.sizes.max()) if len(deep) else 0
        self.cells = self.row * self.width + col  # each pair's place in the padded matrix (row-major)
        self._matrix: np.ndarray | None = None  # the deep queries' scores, padded with -inf; made on first use

    def mask(self, scores: np.ndarray) -> np.ndarray:
        """True for the pairs in their query's top ``depth`` by ``scores`` (one finite score per pair),
        ties at the cut taken in docid order: the rows :meth:`AlignedRuns.ranked` keeps."""
        if not len(self.sizes):
            return np.ones(self.n_pairs, dtype=bool)
        s = scores[self.pairs] if len(self.pairs) < self.n_pairs else scores
        if self._matrix is None:
            self._matrix = np.full((len(self.sizes), self.width), -np.inf)
        self._matrix.ravel()[self.cells] = s  # (the padding stays -inf)
        cut = np.partition(self._matrix, self.width - self.depth, axis=1)[:, self.width - self.depth][self.row]
        above = s > cut
        room = self.depth - np.add.reduceat(above, self.starts, dtype=np.int64)  # places left for the cut's ties
        tied = np.flatnonzero(s == cut)  # few: at least the cut of each query
        rows = self.row[tied]
        first = np.flatnonzero(np.concatenate(([True], rows[1:] != rows[:-1])))
        nth = np.arange(len(tied)) - np.repeat(first, np.diff(np.append(first, len(tied))))  # in docid order
        above[tied[nth < room[rows]]] = True
        if len(self.pairs) == self.n_pairs:
            return above
        keep = np.ones(self.n_pairs, dtype=bool)
        keep[self.pairs] = above
        return keep


def factorize(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Integer codes of string ids.

    Args:
        values: ids (any array; non-unicode arrays are converted with ``astype(str)``).

    Returns:
        ``(uniques, codes, appearance)``: the sorted distinct ids (str array),
        the code of each value (int64, ``uniques[codes] == values``), and each
        unique's rank in first-appearance order (int64).
    """
    uniques, (codes,), appearance = factorize_parts([values])
    return uniques, codes, appearance


def factorize_parts(parts: Sequence[np.ndarray]) -> tuple[np.ndarray, list[np.ndarray], np.ndarray]:
    """Integer codes of the string ids of several arrays taken as one, without joining them.

    Returns ``(uniques, codes, appearance)`` as :func:`factorize` does for the concatenation of
    ``parts``, with ``codes`` split back into one int64 array per part.

    Groups equal strings by :func:`clirkit.hashing.string_hash` (one integer sort instead of
    a string sort of every row), checks that every member of a group equals
    its representative (slice by slice, so no copy of the strings is made), and falls back to
    ``np.unique`` on a collision.
    """
    parts = [np.ascontiguousarray(p if p.dtype.kind == "U" else p.astype(str)) for p in parts]
    bounds = np.cumsum([0] + [len(p) for p in parts])
    if bounds[-1] == 0:
        return np.zeros(0, dtype="<U1"), [np.zeros(0, dtype=np.int64) for _ in parts], np.zeros(0, dtype=np.int64)
    hashes = np.concatenate([string_hash(p) for p in parts])
    by_hash = np.argsort(hashes, kind="stable")
    sorted_hashes = hashes[by_hash]
    del hashes
    new_group = np.concatenate(([True], sorted_hashes[1:] != sorted_hashes[:-1]))
    del sorted_hashes
    first = by_hash[new_group]  # stable sort: a group's first row in order
    inverse = np.empty(bounds[-1], dtype=np.int64)
    inverse[by_hash] = np.cumsum(new_group) - 1
    del by_hash, new_group
    reps = _gather(parts, bounds, first)
    if not all(
        np.array_equal(reps[inverse[b + lo : b + min(lo + _CHECK_ROWS, len(p))]], p[lo : lo + _CHECK_ROWS])
        for p, b in zip(parts, bounds)
        for lo in range(0, len(p), _CHECK_ROWS)
    ):
        _, first, inverse = np.unique(np.concatenate(parts), return_index=True, return_inverse=True)
        reps = _gather(parts, bounds, first)
    order = np.argsort(reps, kind="stable")
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    appearance = np.empty(len(order), dtype=np.int64)
    appearance[rank[np.argsort(first, kind="stable")]] = np.arange(len(order))
    codes = rank[inverse]
    return reps[order], [codes[bounds[i] : bounds[i + 1]] for i in range(len(parts))], appearance


def _gather(parts: Sequence[np.ndarray], bounds: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """The strings at global positions ``rows`` of the parts taken as one array."""
    width = max(p.dtype.itemsize // 4 for p in parts)
    out = np.empty(len(rows), dtype=f"<U{max(width, 1)}")
    part_of = np.searchsorted(bounds, rows, side="right") - 1
    for i, p in enumerate(parts):
        sel = part_of == i
        out[sel] = p[rows[sel] - bounds[i]]
    return out


_CHECK_ROWS = 1 << 20


def query_starts(run: Run | PackedRun) -> np.ndarray:
    """Row offsets where each query's rows begin (int64, one per query; rows of a query are contiguous)."""
    sizes = run.query_sizes()
    return (np.cumsum(sizes) - sizes).astype(np.int64)


def _ids(run: Run | PackedRun) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """``(query ids in run order, document strings, each row's index into them or None: one per row)``: a
    packed run's documents are its distinct ids, so they are factorized, not its rows."""
    if isinstance(run, PackedRun):
        return run.query_order, run.documents, run.codes
    return run.qids[query_starts(run)], run.docids, None


def fusion_inputs(runs: Sequence[Run], depth, tag: str | None = None) -> list[Run]:
    """The runs of a fusion method (:func:`~clirkit.fusion.interpolate`, :func:`~clirkit.fusion.borda`) as a list,
    checked with its ``depth`` and ``tag`` before any work: a list of at least one run (a :class:`~clirkit.run.Run`
    or a :class:`~clirkit.packedrun.PackedRun` each), a depth that is an integer >= 1
    (:func:`clirkit.run.check_depth`) and a tag None (the method's own) or one a run file can hold
    (:func:`clirkit.run.check_run_tag`); ClirkitError otherwise."""
    runs = _listed_runs(runs)
    check_depth(depth)
    if tag is not None:
        check_run_tag(tag)
    return runs


def _listed_runs(runs) -> list:
    """``runs`` as a list if it is a list (a tuple, ...) of at least one run (a :class:`~clirkit.run.Run` or a
    :class:`~clirkit.packedrun.PackedRun` each); else ClirkitError naming the first member that is not one."""
    if isinstance(runs, (Run, PackedRun, str, bytes, dict)) or not hasattr(runs, "__iter__"):
        raise ClirkitError(f"aggregation takes a list of runs, got a {type(runs).__name__}: give [run1, run2, ...]")
    runs = list(runs)
    if len(runs) == 0:
        raise ClirkitError("aggregation needs at least one run")
    odd = next((i for i, run in enumerate(runs) if not isinstance(run, (Run, PackedRun))), None)
    if odd is not None:
        raise ClirkitError(
            f"aggregation: run {odd + 1} is a {type(runs[odd]).__name__}, not a run (Run.from_dict(...), "
            "read_run(path))"
        )
    return runs


def docid_ties(run: Run | PackedRun) -> Run | PackedRun:
    """``run`` with the rows of a query that tie (equal float64 scores) in docid order (ascending, by code point:
    clirkit's order of ties, :meth:`~clirkit.run.Run.ranked`'s, in which every run clirkit makes is written), so
    that what is made of its ranks (the cut at a depth, Borda's points) does not depend on the order in which tied
    rows were given (a file's lines). ``run`` itself when its ties are in that order already (a packed run stays
    packed), else a :class:`~clirkit.run.Run`."""
    scores = run.scores
    if len(scores) < 2:
        return run
    sizes = run.query_sizes()
    tied = scores[1:] == scores[:-1]
    tied[np.cumsum(sizes)[:-1] - 1] = False  # (the last row of a query and the first of the next)
    first = np.flatnonzero(tied)  # row i ties with row i + 1
    if not len(first):
        return run
    if isinstance(run, PackedRun):  # its distinct ids' order compared, not the strings of its tied rows
        order = np.empty(len(run.documents), dtype=np.int64)
        order[np.argsort(run.documents)] = np.arange(len(run.documents))
        if (order[run.codes[first]] < order[run.codes[first + 1]]).all():
            return run
        run = run.unpack()
    elif (run.docids[first] < run.docids[first + 1]).all():
        return run
    block = np.cumsum(np.concatenate(([True], ~tied)), dtype=np.intp)  # a number per run of tied rows, rising
    rows = sorted_unique(np.concatenate((first, first + 1)))
    perm = np.arange(len(scores))
    perm[rows] = rows[np.lexsort((run.docids[rows], block[rows]))]  # blocks in their order, docids ascending
    return Run._from_groups(
        np.asarray(run.query_ids), sizes, run.docids[perm], scores[perm], tag=run.tag, pairs_known=True
    )


def align(runs: Sequence[Run], depth: int | None) -> AlignedRuns:
    """Put the runs' rows on a common index of (query, document) pairs.

    Args:
        runs: one or more runs (each grouped by query, in rank order; tied rows are taken in docid order, whatever
            their order in the run: :func:`docid_ties`).
        depth: each run is cut to its top ``depth`` rows per query first (None: all rows).

    Returns:
        The :class:`AlignedRuns`.

    Raises:
        ClirkitError: no run given, a member of ``runs`` that is not a run, or a ``depth`` that is not an integer
        >= 1 (or None).
    """
    runs = _listed_runs(runs)
    check_depth(depth, every_row=True)
    packed = all(isinstance(run, PackedRun) for run in runs)
    cut: list = [docid_ties(run) for run in runs]  # (Runs and PackedRuns)
    cut = [run.top(depth) if depth is not None else run for run in cut]
    # a run's rows are grouped by query: factorize one id per group, then repeat it over the group
    ids = [_ids(r) for r in cut]
    heads = np.concatenate([i[0] for i in ids])
    sizes = np.concatenate([r.query_sizes() for r in cut])
    uq, head_code, query_rank = factorize(heads)
    qinv = np.repeat(head_code, sizes)
    ud, dinvs, _ = factorize_parts([i[1] for i in ids])
    dinv = np.concatenate([d if i[2] is None else d[i[2]] for d, i in zip(dinvs, ids)])
    del dinvs, ids
    width = max(len(ud), 1)
    keys = qinv.astype(np.int64) * width + dinv
    del dinv
    ukey, kinv = np.unique(keys, return_inverse=True)
    del keys
    code = np.int32 if len(qinv) < 2**31 else np.int64  # codes of rows, pairs, queries and documents
    kinv, qinv = kinv.astype(code), qinv.astype(code)
    bounds = np.cumsum([0] + [len(r) for r in cut])
    pair = [kinv[bounds[i] : bounds[i + 1]] for i in range(len(cut))]
    row_query = [qinv[bounds[i] : bounds[i + 1]] for i in range(len(cut))]
    return AlignedRuns(
        cut, pair, row_query, (ukey // width).astype(code), (ukey % width).astype(code), uq, ud, query_rank, packed
    )
