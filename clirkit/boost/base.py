"""Boosting from a base ranker (SPEC §5): the base run's scores, normalized per query.

The boosted model is f(q, d) = beta * f0(q, d) + q^T W d, where f0 is a base
system's score divided by the largest score of the query in the base run (so
f0 is in [0, 1]) and 0 for a document the base run does not list. Boosting
starts every tuple from the margin beta * (f0(q, d+) - f0(q, d-)), which is
the same as multiplying its importance weight D by exp(-beta * (f0(q, d+) -
f0(q, d-))) before the weights are normalized; beta = 0 is plain BoostCLIR.

Base scores are kept only where the base run has rows (its candidate lists),
as sorted (query row, document row) keys, never as a queries x documents matrix.
A base run may come in parts (e.g. one Run per batch of queries, each query in
one part) encoded one after the other (:class:`CompactRun`), so a large run never
has to be held as one Run of strings.

A boosted ranker's base is a system: a run given as the base becomes one, a :class:`HeldRun`
(:func:`base_system`, the one place it changes form), which holds its rows for every query
(``holds_run``: a boosted ranker trains from all of them, searching it for nothing).
"""

from __future__ import annotations

from typing import Iterable, Sequence, Union

import numpy as np

from clirkit.boost.tuples import Tuples, index_of, lookup_sorted, values_at
from clirkit.errors import ClirkitError
from clirkit.estimator import System, takes_resources
from clirkit.run import Run
from clirkit.runsystem import RunFile

NORMALIZATION = "query-max"  # how f0 is made from the base scores (recorded in models)
MAX_BETA = 100.0  # exp(beta) must stay a float64 with room: f0 differences are in [-1, 1]


class CompactRun:
    """A base run held as integer codes, for runs too large to keep as strings.

    Attributes:
        query_ids, doc_ids: str arrays of the distinct query and document ids.
        qcode, dcode: int32 index of each row's query / document in those arrays.
        f0: float64 normalized score of each row (:func:`normalized_scores`).
        rank: int32 1-based rank of each row within its query.
        tag: the run tag of the first part.

    Build it with :meth:`from_runs` from Runs that split a run by query (e.g. one
    per batch of queries as a system searches them): a row takes 20 bytes.
    """

    def __init__(self, query_ids, doc_ids, qcode, dcode, f0, rank, tag: str = "") -> None:
        self.query_ids = np.asarray(query_ids, dtype=str)
        self.doc_ids = np.asarray(doc_ids, dtype=str)
        self.qcode, self.dcode = np.asarray(qcode, np.int32), np.asarray(dcode, np.int32)
        self.f0, self.rank = np.asarray(f0, np.float64), np.asarray(rank, np.int32)
        self.tag = tag

    def __len__(self) -> int:
        return len(self.qcode)

    @classmethod
    def from_runs(cls, runs: Iterable[Run]) -> "CompactRun":
        """Encode Runs (each query in one of them) one after the other."""
        qids: list[str] = []
        doc_code: dict[str, int] = {}
        cols: list[list[np.ndarray]] = [[], [], [], []]
        tag = None
        for run in runs:
            tag = run.tag if tag is None else tag
            ranks = run.ranks()
            qcode = np.cumsum(ranks == 1, dtype=np.int32) + np.int32(len(qids) - 1)
            qids.extend(run.query_ids)
            uniq, inv = np.unique(run.docids, return_inverse=True)
            codes = np.fromiter((doc_code.setdefault(d, len(doc_code)) for d in uniq.tolist()), np.int32, len(uniq))
            for col, values in zip(cols, (qcode, codes[inv], normalized_scores(run), ranks)):
                col.append(values)
        if len(set(qids)) != len(qids):
            raise ClirkitError("a query of the base run appears in two of its parts")
        joined = [np.concatenate(c) if c else np.zeros(0) for c in cols]
        return cls(qids, list(doc_code), *joined, tag=tag or "")

    def describe(self) -> dict:
        """JSON-ready summary: tag, number of queries and rows."""
        return {"tag": self.tag, "queries": len(self.query_ids), "rows": len(self)}


BaseRun = Union[Run, Sequence[Run], CompactRun]  # a base run: whole, in parts split by query, or encoded


def compact(base: BaseRun) -> CompactRun:
    """The base run as a :class:`CompactRun` (encoded part by part)."""
    if isinstance(base, CompactRun):
        return base
    return CompactRun.from_runs([base] if isinstance(base, Run) else base)


class HeldRun(RunFile):
    """A base run given whole, as a system: what a boosted ranker's ``base`` is when it is a run
    (:func:`base_system`); a :class:`~clirkit.runsystem.RunFile` that holds its run encoded.

    Args:
        run: the run: a :class:`~clirkit.run.Run`, Runs that split it by query, or a :class:`CompactRun`.

    ``fit`` encodes it (``run_``, a :class:`CompactRun`). It holds its rows for every query (``holds_run``): a
    boosted ranker trains from all of them, and ``search(topics)`` gives each topic's rows as a RunFile does,
    scored by their normalized base score f0 (all a CompactRun keeps of a score; a boosted ranker normalizes them
    to themselves), tagged by default with the run's tag.
    """

    holds_run = True  # a system that searches has no such attribute
    file_keys: dict = {}  # not a kind of experiment files: a run given in Python

    def __init__(self, *, run: BaseRun | None = None) -> None:
        self.run = run

    def fit(self, resources=None) -> "HeldRun":
        """Encode the run (``run_``), its rows in query and rank order (``order_``), each query's (``rows_``)."""
        if resources is not None:
            takes_resources(self, resources)
        if self.run is None:
            raise ClirkitError("a held run needs its run: HeldRun(run=...) (a Run, Runs or a CompactRun)")
        self.run_ = run = compact(self.run)
        self.order_ = np.lexsort((run.rank, run.qcode))  # rows by query code, then rank
        codes = run.qcode[self.order_]
        every = np.arange(len(run.query_ids))
        starts, stops = np.searchsorted(codes, every, "left"), np.searchsorted(codes, every, "right")
        self.rows_ = {q: slice(a, b) for q, a, b in zip(run.query_ids.tolist(), starts.tolist(), stops.tolist())}
        return self

    def _run_tag(self) -> str:
        return self.run_.tag or self.default_tag

    def _picked(self, rows, tag: str) -> Run:
        run, rows = self.run_, self.order_[rows]
        return Run(run.query_ids[run.qcode[rows]], run.doc_ids[run.dcode[rows]], run.f0[rows], tag=tag)


def base_system(base) -> System | None:
    """A boosted ranker's ``base`` as a system: None (standalone) and a system as they are, a run (a
    :data:`BaseRun`) as a fitted :class:`HeldRun`. The one place a base changes form; the user's ``base``
    parameter is left as given. ClirkitError naming what ``base`` takes for anything else (a system's name, a path)."""
    if base is None or isinstance(base, System):
        return base
    runs = isinstance(base, (list, tuple)) and len(base) > 0 and all(isinstance(r, Run) for r in base)
    if not (isinstance(base, (Run, CompactRun)) or runs):
        shown = f"{type(base).__name__} {base!r:.40}" if isinstance(base, str) else type(base).__name__
        raise ClirkitError(
            "base: expected a fitted system (e.g. PSQ().fit(...), a Fusion, RunFile(run=PATH or a DataFrame).fit() "
            "for a run made elsewhere), a Run, Runs that split one by query, or None (standalone boosting); "
            f"got {shown}"
        )
    return HeldRun(run=base).fit()


def held_run(system: System | None) -> CompactRun | None:
    """The run a base ``system`` holds for every query (``holds_run``: a :class:`HeldRun`), encoded; None for a
    system that searches, or no base."""
    return getattr(system, "run_", None) if getattr(system, "holds_run", False) else None


def normalized_scores(run: Run) -> np.ndarray:
    """f0 of each row of ``run``: its score divided by its query's largest score (float64, in [0, 1]).

    The scores must be finite and >= 0 (BM25 scores are); a query whose largest
    score is 0 gets f0 = 0 everywhere.
    """
    scores = run.scores
    if len(scores) == 0:
        return np.zeros(0)
    if not np.all(np.isfinite(scores)):
        raise ClirkitError(f"the base run {run.tag!r} has a score that is not a finite number")
    if scores.min() < 0:
        raise ClirkitError(
            f"the base system's run (tag {run.tag!r}) has negative scores; a base ranker's scores must be "
            "non-negative (BM25, DT, PSQ or a fusion of them; a boosted ranker's or SCS's may be negative)"
        )
    starts = np.flatnonzero(run.ranks() == 1)
    top = np.maximum.reduceat(scores, starts)
    top = np.repeat(top, np.diff(np.append(starts, len(scores))))
    return np.divide(scores, top, out=np.zeros(len(scores)), where=top > 0)


class BaseScores:
    """Normalized base scores f0 at (query row, document row) pairs.

    Args:
        run: the base system's run (a :data:`BaseRun`); rows of queries not in
            ``query_ids`` or documents not in ``docids`` are ignored.
        query_ids, docids: the caller's query and document lists (rows index them).

    The rows are held in key order (``query row * n_docs + document row``: by query row, then document row) as
    the sorted keys, f0 (float64) and rank (int32): 20 bytes a row. Attributes ``qrow``, ``drow`` (int64),
    ``f0`` and ``rank`` (1-based within the query) give them in that order.
    """

    def __init__(self, run: BaseRun, query_ids: Sequence[str], docids: Sequence[str]) -> None:
        run = compact(run)
        self.n_docs = len(docids)
        keys, drow = index_of(run.query_ids, query_ids)[run.qcode], index_of(run.doc_ids, docids)[run.dcode]
        kept = np.flatnonzero((keys >= 0) & (drow >= 0))
        keys *= self.n_docs
        keys += drow
        del drow  # (the run's rows are many: one array of them at a time beside the keys)
        keys = keys[kept]
        order = np.argsort(keys)  # the keys are distinct: any sort gives this order
        self._keys = keys[order]
        del keys
        kept = kept[order]
        self._values, self._rank = run.f0[kept], run.rank[kept]

    def __len__(self) -> int:
        return len(self._keys)

    @property
    def qrow(self) -> np.ndarray:
        """The query row of each row (int64, ascending)."""
        return self._keys // max(self.n_docs, 1)

    @property
    def drow(self) -> np.ndarray:
        """The document row of each row (int64)."""
        return self._keys % max(self.n_docs, 1)

    @property
    def f0(self) -> np.ndarray:
        """The normalized base score of each row (float64, in [0, 1])."""
        return self._values

    @property
    def rank(self) -> np.ndarray:
        """The 1-based rank of each row within its query in the base run (int32)."""
        return self._rank

    def listed_queries(self, n_queries: int) -> np.ndarray:
        """Whether the base run has a row for each of the query rows ``0 .. n_queries - 1`` (bool)."""
        bounds = np.arange(n_queries + 1, dtype=np.int64) * self.n_docs
        return np.diff(np.searchsorted(self._keys, bounds)) > 0

    def at(self, qrow: np.ndarray, drow: np.ndarray) -> np.ndarray:
        """f0 at each (query row, document row) pair: 0 where the base run has no such row."""
        return values_at(self._keys, self._values, self._key(qrow, drow))

    def candidate_keys(self, depth: int | None = None) -> np.ndarray:
        """Sorted ``query row * n_docs + document row`` of the rows ranked within ``depth`` (all if None)."""
        return self._keys if depth is None else self._keys[self._rank <= depth]

    def retrieved(self, qrow: np.ndarray, drow: np.ndarray) -> np.ndarray:
        """Whether the base run lists each (query row, document row) pair (bool)."""
        return lookup_sorted(self._keys, self._key(qrow, drow))[0]

    def _key(self, qrow, drow) -> np.ndarray:
        return np.asarray(qrow, dtype=np.int64) * self.n_docs + np.asarray(drow, dtype=np.int64)

    def start_tuples(self, tuples: Tuples, beta: float) -> Tuples:
        """``tuples`` with each weight D multiplied by exp(-beta * (f0(q, d+) - f0(q, d-))).

        With ``beta == 0`` the tuples are returned unchanged (plain boosting, bit for bit).
        """
        if beta == 0:
            return tuples
        margin = beta * (self.at(tuples.query, tuples.pos) - self.at(tuples.query, tuples.neg))
        return Tuples(tuples.query, tuples.pos, tuples.neg, tuples.weight * np.exp(-margin))
