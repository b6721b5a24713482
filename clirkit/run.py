"""Runs and qrels as columnar arrays.

A :class:`Run` is what every method produces: parallel arrays of query ids,
document ids and scores, grouped by query (queries in first-appearance order)
and, within a query, in rank order. :class:`Qrels` holds graded judgments the
same way. Both are plain data; reading and writing them is in
:mod:`clirkit.formats`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator

import numpy as np


def _str_array(values) -> np.ndarray:
    arr = np.asarray(values)
    if arr.size == 0:
        return np.zeros(0, dtype="<U1")
    if arr.dtype.kind != "U":
        arr = arr.astype(str)
    return arr


def take_strings(strings: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """``strings[positions]`` for a str array, gathered as raw fixed-size records (about 1.5x faster than
    gathering them as str)."""
    return np.take(_records(strings), positions).view(strings.dtype)


def _repeat_strings(strings: np.ndarray, repeats: np.ndarray) -> np.ndarray:
    """``np.repeat(strings, repeats)`` for a str array, copied as raw fixed-size records."""
    return np.repeat(_records(strings), repeats).view(strings.dtype)


def _records(strings: np.ndarray) -> np.ndarray:
    """A str array seen as raw records of its width (itself if the width is 0)."""
    return strings.view(np.dtype((np.void, strings.dtype.itemsize))) if strings.dtype.itemsize else strings


def _group_bounds(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Start offsets of the runs of equal consecutive ``keys`` and their values."""
    if len(keys) == 0:
        return np.zeros(1, dtype=np.int64), keys[:0]
    change = np.flatnonzero(keys[1:] != keys[:-1]) + 1
    starts = np.concatenate(([0], change, [len(keys)])).astype(np.int64)
    return starts, keys[starts[:-1]]


@dataclass(frozen=True)
class Run:
    """A ranked result list for many queries, as parallel arrays.

    Attributes:
        qids: query id of each row (str array, length n).
        docids: document id of each row (str array, length n).
        scores: score of each row (float64 array, length n); higher is better.
        tag: the run name written in the sixth TREC column.

    Rows of one query are contiguous and in rank order (rank 1 first).
    Use :meth:`ranked` to build a run from unordered rows with clirkit's
    deterministic order: score descending, ties by docid ascending.
    """

    qids: np.ndarray
    docids: np.ndarray
    scores: np.ndarray
    tag: str = "clirkit"
    _starts: np.ndarray = field(init=False, repr=False, compare=False)
    _query_order: np.ndarray = field(init=False, repr=False, compare=False)
    _unique_pairs: bool = field(default=False, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        qids, docids = _str_array(self.qids), _str_array(self.docids)
        scores = np.asarray(self.scores, dtype=np.float64)
        if not (len(qids) == len(docids) == len(scores)):
            raise ValueError(f"Run arrays differ in length: {len(qids)}, {len(docids)}, {len(scores)}")
        object.__setattr__(self, "qids", qids)
        object.__setattr__(self, "docids", docids)
        object.__setattr__(self, "scores", scores)
        starts, order = _group_bounds(qids)
        if len(set(order.tolist())) != len(order):
            raise ValueError("Run rows of one query must be contiguous")
        object.__setattr__(self, "_starts", starts)
        object.__setattr__(self, "_query_order", order)

    @classmethod
    def from_groups(cls, query_ids, sizes, docids, scores, *, tag: str = "clirkit") -> "Run":
        """A run from its queries in run order and the number of rows of each, the rows (documents and
        scores) being already in rank order: query ``query_ids[i]`` owns the next ``sizes[i]`` rows, and a
        query with 0 rows is left out. The same run as ``Run(qids, docids, scores)`` with each query id
        repeated over its rows, without comparing the ids of consecutive rows to find the queries.
        """
        query_ids, docids = _str_array(query_ids), _str_array(docids)
        sizes, scores = np.asarray(sizes, dtype=np.int64), np.asarray(scores, dtype=np.float64)
        if len(query_ids) != len(sizes) or (sizes < 0).any() or not int(sizes.sum()) == len(docids) == len(scores):
            raise ValueError(f"Run groups do not match the rows: {len(query_ids)} queries, {len(sizes)} sizes "
                             f"summing to {int(sizes.sum())}, {len(docids)} documents, {len(scores)} scores")
        kept = sizes > 0
        order = query_ids[kept]
        if len(set(order.tolist())) != len(order):
            _, first, counts = np.unique(order, return_index=True, return_counts=True)
            repeated = str(order[first[counts > 1].min()])
            raise ValueError(f"Run rows of one query must be contiguous: query {repeated!r} has two groups of rows")
        run = object.__new__(cls)  # the fields __post_init__ would derive, set from the groups
        starts = np.concatenate(([0], np.cumsum(sizes[kept])))
        for name, value in (("qids", _str_array(_repeat_strings(order, sizes[kept]))), ("docids", docids),
                            ("scores", scores), ("tag", tag), ("_starts", starts), ("_query_order", order),
                            ("_unique_pairs", False)):
            object.__setattr__(run, name, value)
        return run

    @classmethod
    def ranked(cls, qids, docids, scores, *, tag: str = "clirkit", depth: int | None = None,
               query_order=None) -> "Run":
        """Sort rows into clirkit's order and keep the top ``depth`` per query.

        Queries come in ``query_order`` if given (ids absent from it are
        dropped), else in order of first appearance. Within a query: score
        descending, ties by docid ascending.
        """
        qids, docids = _str_array(qids), _str_array(docids)
        scores = np.asarray(scores, dtype=np.float64)
        if query_order is None:
            _, first = np.unique(qids, return_index=True)
            query_order = qids[np.sort(first)]
        query_order = _str_array(query_order)
        position = {q: i for i, q in enumerate(query_order.tolist())}
        qpos = np.fromiter((position.get(q, -1) for q in qids.tolist()), dtype=np.int64, count=len(qids))
        keep = qpos >= 0
        qids, docids, scores, qpos = qids[keep], docids[keep], scores[keep], qpos[keep]
        order = np.lexsort((docids, -scores, qpos))
        run = cls(qids[order], docids[order], scores[order], tag=tag)
        return run.top(depth) if depth is not None else run

    def _with_unique_pairs(self) -> "Run":
        """This run, noted as listing no (query, document) pair twice: its reader checked, so
        :func:`clirkit.metrics.evaluate` need not check again. For readers only (the arrays must not
        change afterwards)."""
        object.__setattr__(self, "_unique_pairs", True)
        return self

    def __len__(self) -> int:
        return len(self.qids)

    @property
    def query_ids(self) -> list[str]:
        """The run's queries, in the run's order."""
        return self._query_order.tolist()

    def groups(self) -> Iterator[tuple[str, slice]]:
        """Yield ``(qid, slice)`` of each query's rows, in the run's order."""
        for i, q in enumerate(self._query_order.tolist()):
            yield q, slice(int(self._starts[i]), int(self._starts[i + 1]))

    def query_sizes(self) -> np.ndarray:
        """The number of rows of each query, in the run's order (int64)."""
        return np.diff(self._starts)

    def ranks(self) -> np.ndarray:
        """1-based rank of each row within its query (int64 array)."""
        counts = np.diff(self._starts)
        return np.arange(len(self.qids), dtype=np.int64) - np.repeat(self._starts[:-1], counts) + 1

    def top(self, depth: int) -> "Run":
        """The first ``depth`` rows of every query (this run itself when no query has more)."""
        if len(self) == 0 or np.diff(self._starts).max() <= depth:
            return self
        keep = self.ranks() <= depth
        return Run(self.qids[keep], self.docids[keep], self.scores[keep], tag=self.tag)

    def for_query(self, qid: str) -> tuple[np.ndarray, np.ndarray]:
        """``(docids, scores)`` of one query (empty arrays if absent)."""
        for q, sl in self.groups():
            if q == qid:
                return self.docids[sl], self.scores[sl]
        return self.docids[:0], self.scores[:0]

    def to_dict(self) -> dict[str, dict[str, float]]:
        """``{qid: {docid: score}}`` in run order (pytrec_eval's and ranx's run layout)."""
        out: dict[str, dict[str, float]] = {}
        for q, sl in self.groups():
            out[q] = dict(zip(self.docids[sl].tolist(), self.scores[sl].tolist()))
        return out

    @classmethod
    def from_dict(cls, run: dict, *, tag: str = "clirkit", depth: int | None = None) -> "Run":
        """A run from ``{qid: {docid: score}}``, ranked by :meth:`ranked` (score descending, ties by docid)."""
        qids = [q for q, docs in run.items() for _ in docs]
        docids = [d for docs in run.values() for d in docs]
        scores = [float(s) for docs in run.values() for s in docs.values()]
        return cls.ranked(qids, docids, scores, tag=tag, depth=depth, query_order=list(run))

    def to_frame(self):
        """A pandas DataFrame with columns ``qid, docid, rank, score`` (pandas is optional)."""
        import pandas as pd

        return pd.DataFrame({"qid": self.qids, "docid": self.docids, "rank": self.ranks(), "score": self.scores})

    @classmethod
    def from_frame(cls, frame, *, tag: str = "clirkit", depth: int | None = None) -> "Run":
        """A run from a DataFrame with columns ``qid, docid, score`` (any row order), ranked by :meth:`ranked`."""
        return cls.ranked(frame["qid"].astype(str).to_numpy(), frame["docid"].astype(str).to_numpy(),
                          frame["score"].to_numpy(dtype=np.float64), tag=tag, depth=depth)

    def with_tag(self, tag: str) -> "Run":
        return Run(self.qids, self.docids, self.scores, tag=tag)


@dataclass(frozen=True)
class Qrels:
    """Graded relevance judgments as parallel arrays.

    Attributes:
        qids, docids: str arrays, length n.
        rels: int64 grades, length n; rel <= 0 means judged not relevant.
    """

    qids: np.ndarray
    docids: np.ndarray
    rels: np.ndarray

    def __post_init__(self) -> None:
        qids, docids = _str_array(self.qids), _str_array(self.docids)
        rels = np.asarray(self.rels, dtype=np.int64)
        if not (len(qids) == len(docids) == len(rels)):
            raise ValueError(f"Qrels arrays differ in length: {len(qids)}, {len(docids)}, {len(rels)}")
        object.__setattr__(self, "qids", qids)
        object.__setattr__(self, "docids", docids)
        object.__setattr__(self, "rels", rels)

    def __len__(self) -> int:
        return len(self.qids)

    @property
    def query_ids(self) -> list[str]:
        """Judged queries in order of first appearance."""
        _, first = np.unique(self.qids, return_index=True)
        return self.qids[np.sort(first)].tolist()

    def to_dict(self) -> dict[str, dict[str, int]]:
        """``{qid: {docid: grade}}`` (the shape pytrec_eval takes)."""
        out: dict[str, dict[str, int]] = {}
        for q, d, r in zip(self.qids.tolist(), self.docids.tolist(), self.rels.tolist()):
            out.setdefault(q, {})[d] = r
        return out

    def subset(self, qids) -> "Qrels":
        """The judgments of the given queries only."""
        keep = np.isin(self.qids, _str_array(list(qids)))
        return Qrels(self.qids[keep], self.docids[keep], self.rels[keep])
