"""Per-query retrieval measures with trec_eval's semantics, vectorized over columnar runs.

:func:`evaluate` turns a :class:`~clirkit.run.Run` and :class:`~clirkit.run.Qrels`
into an :class:`Evaluation`: one row per query, one column per measure. The
measures, their names (``AP``, ``P@10``, ``nDCG@10``, ``P(rel=2)@10`` and
trec_eval's ``map``, ``P_10``, ``ndcg_cut.10``, ``recip_rank``, ``Rprec``,
``num_rel_ret``, ...) and their definitions live in the registry,
:mod:`clirkit.measures`; this module computes them. A document is relevant when
its grade is >= ``rel_threshold`` (trec_eval ``-l``, default 1) or the
measure's own ``(rel=N)``; nDCG always uses the raw grades as gains (as
trec_eval does, whatever ``-l``).

Semantics follow trec_eval 9 (checked against pytrec_eval in the tests):

- Ranking: by default each query's rows are re-sorted by score compared as
  32-bit floats, descending, ties broken by docid descending (byte order), as
  trec_eval does whatever the order of the file. ``ties="run"`` keeps the
  run's own order instead. Only the first ``depth`` rows (default 1000, as in
  SPEC §8) of the re-sorted list count; ``depth=None`` keeps all. A measure
  whose cutoff is beyond ``depth`` (``R@2000`` at 1000) is refused: it would
  count a document at rank 1500 as not retrieved, where trec_eval reads every rank.
- A run query absent from the qrels is ignored (reported in
  :attr:`Evaluation.ignored_queries`).
- A qrels query with no relevant document (only grades below the threshold)
  is evaluated like any other and counted in the mean: it scores 0 on every
  measure but NumRet, which counts its rows retrieved (within ``depth``) as for
  any query. pytrec_eval gives the same when the query has a judgment of grade
  0 or more; for a query whose judgments are all negative it reports
  ``num_ret`` 0 for some such queries (depending on the others) and crashes on
  grades of -2 and below, so it is no oracle there.
- ``average="qrels"`` (trec_eval ``-c``): one row per query of the qrels, a
  query without run lines scores 0 on every measure (NumRel included, as
  trec_eval ``-c`` does). ``average="run"`` (trec_eval's default): one row per
  run query that the qrels judge.
- Summaries are means over the rows, the counts (NumRet, NumRel, NumRelRet)
  included; trec_eval and ir_measures print the sums of those three.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable, Union

import numpy as np

from clirkit.errors import ClirkitError, counted
from clirkit.hashing import pair_keys
from clirkit.measures import (
    DEFAULT_DEPTH,
    DEFAULT_MEASURES,
    MEASURE_NAMES_HELP,
    REGISTRY,
    SCS_MEASURES,
    Measure,
    MeasureDef,
    parse_measure,
    parse_measures,
    register,
)
from clirkit.metricchecks import AVERAGES, NAMES, TIES, check_evaluation, checked_measures, main_grade_of
from clirkit.run import Qrels, Run

if TYPE_CHECKING:
    from clirkit.packedrun import PackedRun

__all__ = [
    "AVERAGES",
    "DEFAULT_MEASURES",
    "MEASURE_NAMES_HELP",
    "NAMES",
    "REGISTRY",
    "SCS_MEASURES",
    "TIES",
    "Evaluation",
    "Measure",
    "MeasureDef",
    "RankedQueries",
    "evaluate",
    "parse_measure",
    "parse_measures",
    "register",
]


# --------------------------------------------------------------------------- result


@dataclass(frozen=True)
class Evaluation:
    """Per-query values of several measures for one run.

    Attributes:
        measures: measure names, the columns of ``values``: canonical
            (``P@10``), or as the user wrote them (``P_10``) when
            :func:`evaluate` was called with ``names="given"``.
        qids: query ids of the rows (str array).
        values: float64 array (len(qids), len(measures)); in [0, 1] except the
            counts (NumRet, NumRel, NumRelRet).
        average: ``"qrels"`` (rows = all queries of the qrels, missing ones 0)
            or ``"run"`` (rows = run queries that the qrels judge).
        tag: the run's tag.
        missing_queries: qrels queries without any run line (score 0 under
            ``average="qrels"``, absent under ``"run"``).
        ignored_queries: run queries absent from the qrels (never scored).
    """

    measures: tuple[str, ...]
    qids: np.ndarray
    values: np.ndarray
    average: str
    tag: str = "clirkit"
    missing_queries: tuple[str, ...] = field(default=())
    ignored_queries: tuple[str, ...] = field(default=())

    @property
    def n_queries(self) -> int:
        return len(self.qids)

    def column(self, measure: str) -> np.ndarray:
        """Per-query values of one measure: a column name, or any spelling of a computed measure."""
        if measure in self.measures:
            return self.values[:, self.measures.index(measure)]
        wanted = parse_measure(measure)
        for j, name in enumerate(self.measures):
            if parse_measure(name) == wanted:
                return self.values[:, j]
        raise ClirkitError(f"measure {wanted.name} was not computed (have {', '.join(self.measures)})")

    def mean(self) -> dict[str, float]:
        """Mean of each measure over the rows (see :attr:`average`)."""
        means = self.values.mean(axis=0)
        return {m: float(v) for m, v in zip(self.measures, means)}

    def per_query(self) -> dict[str, dict[str, float]]:
        """``{qid: {measure: value}}``."""
        return {q: dict(zip(self.measures, row)) for q, row in zip(self.qids.tolist(), self.values.tolist())}

    def to_frame(self, layout: str = "wide"):
        """The per-query values as a pandas DataFrame (pandas is optional): ``layout="wide"``: a ``qid`` column and
        one column per measure, a row per query (:attr:`average` says which); ``"long"``: columns ``qid, measure,
        value``, a row per query and measure (ir_measures' ``iter_calc`` and ``pt.Experiment(perquery=True)``)."""
        import pandas as pd

        if layout == "long":
            n, m = self.values.shape
            return pd.DataFrame(
                {
                    "qid": np.repeat(self.qids, m).astype(object),
                    "measure": np.tile(np.asarray(self.measures, dtype=object), n),
                    "value": self.values.ravel(),
                }
            )
        if layout != "wide":
            raise ClirkitError(f"layout must be wide or long, got {layout!r}")
        return pd.DataFrame({"qid": self.qids.astype(object), **dict(zip(self.measures, self.values.T))})

    def describe(self) -> str:
        """One line saying what the mean is over."""
        if self.average == "qrels":
            text = f"mean over the {self.n_queries} queries of the qrels"
            if self.missing_queries:
                text += f" ({len(self.missing_queries)} without run lines count 0)"
        else:
            text = f"mean over the {self.n_queries} run queries judged in the qrels"
        if self.ignored_queries:
            text += f"; {len(self.ignored_queries)} run queries not in the qrels ignored"
        return text


# --------------------------------------------------------------------------- evaluation


def evaluate(
    run: Run | PackedRun,
    qrels: Qrels,
    measures: Iterable[str | Measure] | str = DEFAULT_MEASURES,
    *,
    rel_threshold: int = 1,
    main_grade: int | None = None,
    depth: int | None = DEFAULT_DEPTH,
    ties: str = "trec_eval",
    average: str = "qrels",
    names: str = "canonical",
) -> Evaluation:
    """Evaluate a run against graded judgments.

    Args:
        run: the ranked results, a :class:`~clirkit.run.Run` (or the :class:`~clirkit.packedrun.PackedRun` of one,
            evaluated without the query id of each row; a ``{qid: {docid: score}}`` dict:
            ``Run.from_dict``; any number of queries; a run of no rows scores
            each judged query 0 with ``average="qrels"`` and is refused with ``"run"``).
        qrels: graded judgments (:class:`~clirkit.run.Qrels`); a grade >= ``rel_threshold`` is relevant.
        measures: a name or a list or tuple of names as accepted by
            :func:`~clirkit.measures.parse_measures` (comma-separated, any registered spelling), parsed
            :class:`~clirkit.measures.Measure` objects, or ir_measures' measure
            objects (``AP``, ``nDCG@10``, ``R@1000``). A cutoff above ``depth`` is refused.
        rel_threshold: minimum grade of a relevant document (trec_eval ``-l``), a whole number >= 1,
            for the measures without their own ``(rel=N)``.
        main_grade: minimum grade of a "main relevant" document (P_mr, MRR_mr), a whole number >=
            ``rel_threshold``, given only with one of those measures; None: 2, or ``rel_threshold`` if higher.
        depth: only the first ``depth`` ranks of each query count, a whole number >= 1 (None: all); every
            measure's cutoff must be within it (``PRES@2000`` needs ``depth >= 2000`` or None).
        ties: ``"trec_eval"`` (re-sort by float32 score desc, docid desc) or
            ``"run"`` (keep the run's order).
        average: ``"qrels"`` or ``"run"``: which queries get a row.
        names: ``"canonical"`` (columns named ``P@10`` whatever the spelling) or
            ``"given"`` (columns named as written, e.g. ``P_10``).

    Returns:
        An :class:`Evaluation`, one column per distinct measure (a measure
        given twice in two spellings is computed once, under the first).

    Raises:
        ClirkitError: a run or qrels of another type, empty qrels, an empty run with ``average="run"``, NaN
            scores, a docid twice for one query, no run query in the qrels, bad options or measure names, a
            measure cutoff beyond ``depth``, a ``main_grade`` below ``rel_threshold`` or that no measure reads.
    """
    check_evaluation(
        run,
        qrels,
        ties=ties,
        average=average,
        names=names,
        depth=depth,
        rel_threshold=rel_threshold,
        main_grade=main_grade,
    )
    specs = checked_measures(measures, depth)
    main_grade = main_grade_of(specs, rel_threshold, main_grade)
    judged = _JudgedQueries(qrels)
    run_queries = np.asarray(run.query_ids)
    group_code = judged.codes_of(run_queries)
    in_qrels = group_code >= 0
    if len(run_queries) and not in_qrels.any():
        raise ClirkitError(
            f"none of the run's {counted(len(run_queries), 'query', 'queries')} (e.g. {str(run_queries[0])!r}) is in "
            f"the qrels ({counted(len(judged.ids), 'query', 'queries')}, e.g. {str(judged.ids[0])!r}): are these the "
            "qrels of this run?"
        )
    ignored = tuple(run_queries[~in_qrels].tolist())

    values = np.empty((int(in_qrels.sum()), len(specs)), dtype=np.float64)
    if len(values):  # (a run of no rows: every judged query is missing and scores 0)
        ranking = _ranked_queries(run, judged, group_code, ties=ties, depth=depth)
        for j, spec in enumerate(specs):
            values[:, j] = spec.definition.compute(ranking, spec.cutoff, spec.level(rel_threshold, main_grade))
    group_code = group_code[in_qrels]

    qrels_order = judged.codes_of(np.asarray(qrels.query_ids))
    present = np.zeros(len(judged.ids), dtype=bool)
    present[group_code] = True
    missing = tuple(judged.ids[qrels_order[~present[qrels_order]]].tolist())
    if average == "qrels":
        table = np.zeros((len(judged.ids), len(specs)), dtype=np.float64)
        table[group_code] = values
        qids, values = judged.ids[qrels_order], table[qrels_order]
    else:
        qids = run_queries[in_qrels]
    columns = tuple(s.label if names == "given" else s.name for s in specs)
    return Evaluation(columns, qids, values, average, run.tag, missing, ignored)


def _ranked_queries(
    run: Run | PackedRun, judged: _JudgedQueries, group_code: np.ndarray, *, ties: str, depth: int | None
) -> RankedQueries:
    """The rows of ``run`` whose query is judged (``group_code``: each run query's code in ``judged``, -1 if
    none), with their grades, in final rank order (``ties``) and cut at ``depth``."""
    counts = run.query_sizes()
    in_qrels = group_code >= 0
    row_code = np.repeat(group_code, counts)
    keep = row_code >= 0
    docids: Ids
    if isinstance(run, Run):
        docids, unique = run.docids, run._unique_pairs
    else:  # a PackedRun (its rows are a Run's: each pair once)
        docids, unique = _CodedIds(run.documents, run.codes), True
    scores = run.scores
    if not keep.all():
        row_code, docids, scores = row_code[keep], docids[keep], scores[keep]
    grades = _lookup_grades(row_code, docids, judged, unique)
    del row_code

    group_code = group_code[in_qrels]
    group = np.repeat(np.arange(len(group_code)), counts[in_qrels])
    if ties == "trec_eval":
        order = _trec_eval_order(group, scores, docids, grades)
        if order is not None:
            grades = grades[order]
    starts = np.flatnonzero(np.concatenate(([True], group[1:] != group[:-1])))
    rank = np.arange(len(group), dtype=np.int64) - np.repeat(starts, np.diff(np.append(starts, len(group)))) + 1
    if depth is not None and rank.max() > depth:
        cut = rank <= depth
        group, rank, grades = group[cut], rank[cut], grades[cut]
        starts = np.flatnonzero(rank == 1)
    return RankedQueries(group, rank, grades, starts, judged, group_code)


class _CodedIds:
    """The document id of each row of a :class:`~clirkit.packedrun.PackedRun` (``values[codes]``), made only for
    the rows asked for: an id for an integer, a str array for a slice, a :class:`_CodedIds` for an index array or
    mask (the evaluation hashes the ids a slice at a time and reads a few by row)."""

    def __init__(self, values: np.ndarray, codes: np.ndarray) -> None:
        self.values, self.codes = values, codes

    def __len__(self) -> int:
        return len(self.codes)

    def __getitem__(self, rows):
        if isinstance(rows, np.ndarray):
            return _CodedIds(self.values, self.codes[rows])
        return self.values[self.codes[rows]]

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        return self.values[self.codes] if dtype is None else self.values[self.codes].astype(dtype)

    def tolist(self) -> list[str]:
        return self.values[self.codes].tolist()


Ids = Union[np.ndarray, _CodedIds]
"""A column of document ids: a str array, or a packed run's (:class:`_CodedIds`)."""


class RankedQueries:
    """The evaluated rows of every query in final rank order, and the per-query reductions that the
    measure functions of :mod:`clirkit.measures` are written with.

    Rows are grouped by query (contiguous groups 0..n_queries-1, each starting at rank 1) and cut at
    ``depth``. Per-row arrays have one entry per row, per-query arrays one per group. The measures of
    :mod:`clirkit.measures` sum over the rows that :meth:`hits` picks (the relevant ones, a few per
    cent of a deep run), in row order, so their sums equal those over every row bit for bit.

    Attributes:
        group: query group of each row (int64).
        rank: 1-based rank of each row (int64).
        grades: judged grade of each row, 0 when unjudged (int64).
        n_queries: number of groups.
    """

    def __init__(
        self,
        group: np.ndarray,
        rank: np.ndarray,
        grades: np.ndarray,
        starts: np.ndarray,
        judged: _JudgedQueries,
        group_code: np.ndarray,
    ) -> None:
        self.group, self.rank, self.grades, self._starts = group, rank, grades, starts
        self.n_queries = len(group_code)
        self._judged, self._code = judged, group_code
        self._n_judged: dict[int, np.ndarray] = {}
        self._positive: np.ndarray | None = None

    def hits(self, level: int, k: int | None = None) -> np.ndarray:
        """The rows with grade >= ``level`` within rank ``k`` (all ranks when None), as ascending row
        indices: by query, then rank. The measures that only look at relevant rows work on these few."""
        if level < 1:
            rows = np.flatnonzero(self.grades >= level)
        else:
            if self._positive is None:
                self._positive = np.flatnonzero(self.grades > 0)
            rows = self._positive
            rows = rows[self.grades[rows] >= level] if level > 1 else rows
        return rows[self.rank[rows] <= k] if k is not None else rows

    def count_rows(self, rows: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
        """Per query: the sum of ``weights`` (one per row of ``rows``; 1 when None) as float64.

        The same sums as :meth:`count` over all rows with zeros elsewhere: the terms add in row order."""
        sums = np.bincount(self.group[rows], weights=weights, minlength=self.n_queries)
        return sums if weights is not None else sums.astype(np.float64)

    def nth_in_query(self, rows: np.ndarray) -> np.ndarray:
        """Per row of ``rows`` (ascending): its 1-based position among the rows of ``rows`` of its query
        (of the hits, :meth:`hits_so_far`)."""
        groups = self.group[rows]
        first = np.flatnonzero(np.concatenate(([True], groups[1:] != groups[:-1])))
        return np.arange(1, len(rows) + 1) - np.repeat(first, np.diff(np.append(first, len(rows))))

    def first_rank_of(self, rows: np.ndarray) -> np.ndarray:
        """Per query: the rank of its first row of ``rows`` (ascending), 0 when it has none (int64)."""
        groups = self.group[rows]
        first = np.concatenate(([True], groups[1:] != groups[:-1])) if len(rows) else np.zeros(0, dtype=bool)
        out = np.zeros(self.n_queries, dtype=np.int64)
        out[groups[first]] = self.rank[rows[first]]
        return out

    def relevant(self, level: int) -> np.ndarray:
        """Per row: grade >= ``level`` (bool)."""
        return self.grades >= level

    def top(self, k: int | None) -> np.ndarray:
        """Per row: rank <= ``k`` (bool; all True when ``k`` is None)."""
        return np.ones(len(self.rank), dtype=bool) if k is None else self.rank <= k

    def count(self, weights: np.ndarray) -> np.ndarray:
        """Per query: the sum of per-row ``weights`` (bool or numbers) as float64."""
        return np.bincount(self.group, weights=weights, minlength=self.n_queries)

    def n_judged(self, level: int) -> np.ndarray:
        """Per query: judged documents with grade >= ``level``, retrieved or not (int64)."""
        if level not in self._n_judged:
            self._n_judged[level] = self._judged.count_at_least(level)[self._code]
        return self._n_judged[level]

    def hits_so_far(self, mask: np.ndarray) -> np.ndarray:
        """Per row: how many rows of ``mask`` its query has at this rank or above (int64)."""
        cum = np.cumsum(mask)
        starts = self._starts
        return cum - np.repeat(cum[starts] - mask[starts], np.diff(np.append(starts, len(mask))))

    def first_rank(self, mask: np.ndarray) -> np.ndarray:
        """Per query: the rank of its first row in ``mask``, 0 when it has none (int64)."""
        big = np.iinfo(np.int64).max
        first = np.minimum.reduceat(np.where(mask, self.rank, big), self._starts)
        return np.where(first < big, first, 0)

    def dcg(self, k: int | None) -> np.ndarray:
        """Per query: sum of grade / log2(rank + 1) over the rows of positive grade within ``k``."""
        rows = self.hits(1, k)
        return self.count_rows(rows, self.grades[rows] / np.log2(self.rank[rows] + 1.0))

    def ideal_dcg(self, k: int | None) -> np.ndarray:
        """Per query: DCG of the ideal ranking of all its judged positive grades, top ``k``."""
        return self._judged.ideal_dcg(k)[self._code]

    def per_row(self, values: np.ndarray) -> np.ndarray:
        """Per-query ``values`` repeated on each row of the query."""
        return np.asarray(values)[self.group]

    def divide(self, num: np.ndarray | float, den: np.ndarray) -> np.ndarray:
        """Per query: ``num / den`` as float64, 0 where ``den`` is 0."""
        den = np.asarray(den, dtype=np.float64)
        return np.divide(num, den, out=np.zeros(len(den), dtype=np.float64), where=den > 0)


class _JudgedQueries:
    """The qrels indexed by query code (position in the sorted unique query ids)."""

    def __init__(self, qrels: Qrels) -> None:
        # the distinct ids of the runs of equal consecutive ids (qrels come grouped by query): few to sort
        qids = qrels.qids
        starts = np.flatnonzero(np.concatenate(([True], qids[1:] != qids[:-1]))) if len(qids) else np.zeros(0, int)
        self.ids, code = np.unique(qids[starts], return_inverse=True)
        self.row_code = np.repeat(code.astype(np.int64).ravel(), np.diff(np.append(starts, len(qids))))
        self.docids = qrels.docids
        self.rels = qrels.rels
        self._ideal_order: np.ndarray | None = None

    def codes_of(self, qids: np.ndarray) -> np.ndarray:
        """Code of each query id, -1 when the qrels do not have it."""
        if len(qids) == 0:
            return np.zeros(0, dtype=np.int64)
        pos = np.minimum(np.searchsorted(self.ids, qids), len(self.ids) - 1)
        return np.where(self.ids[pos] == qids, pos, -1).astype(np.int64)

    def count_at_least(self, grade: int) -> np.ndarray:
        """Per query code: judged documents with a grade >= ``grade``."""
        return np.bincount(self.row_code, weights=self.rels >= grade, minlength=len(self.ids)).astype(np.int64)

    def ideal_dcg(self, cutoff: int | None) -> np.ndarray:
        """Per query code: DCG of the ideal ranking of all judged positive grades, top ``cutoff``."""
        if self._ideal_order is None:
            self._ideal_order = np.lexsort((-self.rels, self.row_code))
        codes = self.row_code[self._ideal_order]
        gains = self.rels[self._ideal_order]
        first = np.flatnonzero(np.concatenate(([True], codes[1:] != codes[:-1])))
        pos = np.arange(len(codes)) - np.repeat(first, np.diff(np.append(first, len(codes)))) + 1
        use = gains > 0
        if cutoff is not None:
            use &= pos <= cutoff
        weights = np.where(use, gains / np.log2(pos + 1.0), 0.0)
        return np.bincount(codes, weights=weights, minlength=len(self.ids))


# --------------------------------------------------------------------------- ordering


def _trec_eval_order(group: np.ndarray, scores: np.ndarray, docids: Ids, grades: np.ndarray) -> np.ndarray | None:
    """Row permutation giving trec_eval's ranking within each group, or None if already in it.

    Rows are grouped by ``group`` (contiguous). Within a group: score as
    float32 descending, then docid descending. Every measure depends only on
    where the rows of positive grade land, so tie blocks made only of rows
    with grade <= 0 are left as they are (any order of them scores the same).
    """
    with np.errstate(over="ignore"):
        s32 = scores.astype(np.float32)  # as trec_eval: beyond float32's range becomes +-inf
    same_group = group[1:] == group[:-1]
    order = None
    if (same_group & (s32[1:] > s32[:-1])).any():
        order = np.lexsort((-s32, group))
        s32, docids, grades = s32[order], docids[order], grades[order]
    tied = same_group & (s32[1:] == s32[:-1])
    if tied.any():
        block = np.cumsum(np.concatenate(([True], ~tied)), dtype=np.intp)
        matters = np.zeros(block[-1] + 1, dtype=bool)
        matters[block[grades > 0]] = True
        in_tie = np.concatenate((tied, [False])) | np.concatenate(([False], tied))
        sel = np.flatnonzero(in_tie & matters[block])
        if len(sel):
            # ascending (-block, docid), reversed: blocks ascending, docid descending within a block
            sub = np.lexsort((np.asarray(docids[sel]), -block[sel]))[::-1]
            perm = np.arange(len(group))
            perm[sel] = sel[sub]
            order = perm if order is None else order[perm]
    return order


# --------------------------------------------------------------------------- joining run and qrels


class _HashCollision(Exception):
    """Two different (query, docid) pairs hashed alike: use the exact path."""


def _lookup_grades(row_code: np.ndarray, docids: Ids, judged: _JudgedQueries, unique_pairs: bool = False) -> np.ndarray:
    """Grade of each run row (0 if unjudged); raises ClirkitError on duplicate pairs (the run's are not
    looked for when ``unique_pairs`` says its reader did)."""
    try:
        return _lookup_grades_hashed(row_code, docids, judged, unique_pairs)
    except _HashCollision:
        return _lookup_grades_exact(row_code, docids, judged)


def _lookup_grades_hashed(
    row_code: np.ndarray, docids: Ids, judged: _JudgedQueries, unique_pairs: bool = False
) -> np.ndarray:
    qkeys = pair_keys(judged.row_code, judged.docids)
    qorder = np.argsort(qkeys)
    sorted_q = qkeys[qorder]
    same = np.flatnonzero(sorted_q[1:] == sorted_q[:-1])
    for i in same.tolist():
        a, b = qorder[i], qorder[i + 1]
        if judged.row_code[a] == judged.row_code[b] and judged.docids[a] == judged.docids[b]:
            raise ClirkitError(
                f"the qrels judge document {judged.docids[a]} twice for query {judged.ids[judged.row_code[a]]}"
            )
        raise _HashCollision

    rkeys = pair_keys(row_code, docids)
    sorted_r = np.sort(rkeys) if not unique_pairs else rkeys[:0]
    dup = sorted_r[1:][sorted_r[1:] == sorted_r[:-1]]  # the repeated keys
    del sorted_r
    if len(dup):
        a, b = np.flatnonzero(rkeys == dup[0])[:2]
        if row_code[a] == row_code[b] and docids[a] == docids[b]:
            raise ClirkitError(f"the run lists document {docids[a]} more than once for query {judged.ids[row_code[a]]}")
        raise _HashCollision

    # a bitmap of the judged keys' low bits picks the few candidate rows, which are then looked up
    bits = int(min(24, max(16, np.ceil(np.log2(len(sorted_q) + 1)) + 4)))
    mask = np.uint64((1 << bits) - 1)
    bitmap = np.zeros(1 << bits, dtype=bool)
    bitmap[(sorted_q & mask).view(np.intp)] = True
    cand = np.flatnonzero(bitmap[(rkeys & mask).view(np.intp)])
    del bitmap
    keys = rkeys[cand]
    in_order = np.argsort(keys)  # sorted needles: each search starts where the last ended
    pos = np.empty(len(cand), dtype=np.intp)
    pos[in_order] = np.minimum(np.searchsorted(sorted_q, keys[in_order]), len(sorted_q) - 1)
    hit = sorted_q[pos] == keys
    rows, idx = cand[hit], qorder[pos[hit]]
    if not ((judged.row_code[idx] == row_code[rows]).all() and (judged.docids[idx] == np.asarray(docids[rows])).all()):
        raise _HashCollision
    grades = np.zeros(len(rkeys), dtype=np.int64)
    grades[rows] = judged.rels[idx]
    return grades


def _lookup_grades_exact(row_code: np.ndarray, docids: Ids, judged: _JudgedQueries) -> np.ndarray:
    """Dictionary join, used only when the hashed join meets a collision."""
    table: dict[tuple[int, str], int] = {}
    for c, d, g in zip(judged.row_code.tolist(), judged.docids.tolist(), judged.rels.tolist()):
        if (c, d) in table:
            raise ClirkitError(f"the qrels judge document {d} twice for query {judged.ids[c]}")
        table[(c, d)] = g
    pairs = list(zip(row_code.tolist(), docids.tolist()))
    if len(set(pairs)) < len(pairs):
        seen: set[tuple[int, str]] = set()
        for c, d in pairs:
            if (c, d) in seen:
                raise ClirkitError(f"the run lists document {d} more than once for query {judged.ids[c]}")
            seen.add((c, d))
    return np.fromiter((table.get(p, 0) for p in pairs), dtype=np.int64, count=len(pairs))
