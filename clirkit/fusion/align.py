"""Alignment of runs on a common index of (query, document) pairs, shared by every fusion method.

:func:`align` cuts each run to its top ``depth`` rows and maps every row to an
integer pair number: ids are grouped by a verified 64-bit hash
(:func:`factorize`), then one ``np.unique`` runs over the combined integer
codes. Per-query sums, minima and maxima then become ``bincount``/``reduceat``
segment reductions and the output ranking is one integer ``lexsort``
(:meth:`AlignedRuns.ranked`): nothing is looped per document. Tuning aligns
once and re-weights many times (:mod:`clirkit.tuning`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from clirkit.errors import ClirkitError
from clirkit.run import Run


@dataclass(frozen=True)
class AlignedRuns:
    """All runs' rows on a common index of (query, document) pairs.

    Attributes:
        runs: the input runs, each cut to its top ``depth`` rows.
        pair: for run i, ``pair[i]`` maps its rows to pair numbers (int64, one per row).
        row_query: for run i, ``row_query[i]`` maps its rows to query codes (int64, one per row).
        pair_q, pair_d: query code and document code of each pair (int64, one per pair);
            pairs are numbered in (query id, document id) order.
        uq, ud: the query ids and document ids (str arrays), sorted, so code order is id order.
        query_rank: each query code's position in first-appearance order over the runs (int64).
    """

    runs: list[Run]
    pair: list[np.ndarray]
    row_query: list[np.ndarray]
    pair_q: np.ndarray
    pair_d: np.ndarray
    uq: np.ndarray
    ud: np.ndarray
    query_rank: np.ndarray

    @property
    def n_queries(self) -> int:
        """Number of distinct queries over all runs."""
        return len(self.uq)

    @property
    def n_pairs(self) -> int:
        """Number of distinct (query, document) pairs over all runs."""
        return len(self.pair_q)

    def ranked(self, scores: np.ndarray, depth: int, tag: str) -> Run:
        """The pairs as a run, top ``depth`` per query.

        Args:
            scores: one score per pair (float64, length :attr:`n_pairs`).
            depth: rows kept per query.
            tag: the run's tag.

        Returns:
            A run with queries in first-appearance order, scores descending,
            ties by docid ascending.
        """
        # pairs are numbered in (query, docid) order and lexsort is stable: equal scores keep docid order
        order = np.lexsort((-scores, self.query_rank[self.pair_q]))
        q = self.pair_q[order]
        starts = np.flatnonzero(np.r_[True, q[1:] != q[:-1]]) if len(q) else np.zeros(0, dtype=np.int64)
        rank = np.arange(len(q)) - np.repeat(starts, np.diff(np.r_[starts, len(q)]))
        keep = order[rank < depth]
        return Run(self.uq[self.pair_q[keep]], self.ud[self.pair_d[keep]], scores[keep], tag=tag)


def string_hash(values: np.ndarray) -> np.ndarray:
    """A 64-bit polynomial hash (uint64, one per string) of each string of one unicode array,
    over its code points and padding. :func:`factorize` groups ids by it."""
    width = values.dtype.itemsize // 4
    chars = values.view(np.uint32).reshape(len(values), width).astype(np.uint64)
    h = np.zeros(len(values), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for j in range(width):
            h = h * np.uint64(0x100000001B3) + chars[:, j] * np.uint64(0x9E3779B97F4A7C15) + np.uint64(j + 1)
            h ^= h >> np.uint64(29)
    return h


def factorize(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Integer codes of string ids.

    Args:
        values: ids (any array; non-unicode arrays are converted with ``astype(str)``).

    Returns:
        ``(uniques, codes, appearance)``: the sorted distinct ids (str array),
        the code of each value (int64, ``uniques[codes] == values``), and each
        unique's rank in first-appearance order (int64).

    Groups equal strings by :func:`string_hash` (one integer sort instead of
    a string sort of every row), checks that every member of a group equals
    its representative, and falls back to ``np.unique`` on a collision.
    """
    values = np.ascontiguousarray(values if values.dtype.kind == "U" else values.astype(str))
    if len(values) == 0:
        return values, np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    _, first, inverse = np.unique(string_hash(values), return_index=True, return_inverse=True)
    reps = values[first]
    if not np.array_equal(reps[inverse], values):
        _, first, inverse = np.unique(values, return_index=True, return_inverse=True)
        reps = values[first]
    order = np.argsort(reps, kind="stable")
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    appearance = np.empty(len(order), dtype=np.int64)
    appearance[rank[np.argsort(first, kind="stable")]] = np.arange(len(order))
    return reps[order], rank[inverse], appearance


def query_starts(run: Run) -> np.ndarray:
    """Row offsets where each query's rows begin (int64, one per query; rows of a query are contiguous)."""
    if len(run) == 0:
        return np.zeros(0, dtype=np.int64)
    change = np.flatnonzero(run.qids[1:] != run.qids[:-1]) + 1
    return np.concatenate(([0], change)).astype(np.int64)


def align(runs: Sequence[Run], depth: int | None) -> AlignedRuns:
    """Put the runs' rows on a common index of (query, document) pairs.

    Args:
        runs: one or more runs (each grouped by query, in rank order).
        depth: each run is cut to its top ``depth`` rows per query first (None: all rows).

    Returns:
        The :class:`AlignedRuns`.

    Raises:
        ClirkitError: no run given.
    """
    if len(runs) == 0:
        raise ClirkitError("aggregation needs at least one run")
    cut = [run.top(depth) if depth is not None else run for run in runs]
    # a run's rows are grouped by query: factorize one id per group, then repeat it over the group
    starts = [query_starts(r) for r in cut]
    heads = np.concatenate([r.qids[s] for r, s in zip(cut, starts)])
    sizes = np.concatenate([np.diff(np.append(s, len(r))) for r, s in zip(cut, starts)])
    uq, head_code, query_rank = factorize(heads)
    qinv = np.repeat(head_code, sizes)
    docids = np.concatenate([r.docids for r in cut])
    ud, dinv, _ = factorize(docids)
    width = max(len(ud), 1)
    ukey, kinv = np.unique(qinv.astype(np.int64) * width + dinv, return_inverse=True)
    bounds = np.cumsum([0] + [len(r) for r in cut])
    pair = [kinv[bounds[i]:bounds[i + 1]] for i in range(len(cut))]
    row_query = [qinv[bounds[i]:bounds[i + 1]] for i in range(len(cut))]
    return AlignedRuns(cut, pair, row_query, ukey // width, ukey % width, uq, ud, query_rank)
