"""Per-query retrieval measures with trec_eval's semantics, vectorized over columnar runs.

:func:`evaluate` turns a :class:`~clirkit.run.Run` and :class:`~clirkit.run.Qrels`
into an :class:`Evaluation`: one row per query, one column per measure. Measures
are named as users write them (:func:`parse_measure`):

=======================  =======================================================
``AP`` (``MAP``)          average precision: sum of P@k at each relevant retrieved
                          rank k, divided by the number of relevant judged documents
``AP@k``                  the same over the top k only (trec_eval ``map_cut_k``)
``PRES@N``                Magdy & Jones' PRES, browsing depth N (``PRES``: N = 1000)
``nDCG@k``                trec_eval ``ndcg_cut_k``: gain = grade, discount
                          log2(rank+1), ideal ranking from all judged documents;
                          ``nDCG`` = no cut
``P@k``, ``R@k``          precision (always divided by k) and recall in the top k
``RR`` (``MRR``)          reciprocal rank of the first relevant document (``RR@k``)
``P_mr@k``                SCS paper: 1 if a main-relevant document (grade >=
                          ``main_grade``) is in the top k, else 0 (not divided by k)
``P_r@k``                 SCS paper: precision at k of relevant documents
``MRR_mr``, ``MRR_r``     reciprocal rank of the first main-relevant / relevant one
=======================  =======================================================

trec_eval's names are accepted too: ``map``, ``map_cut_10``, ``P_10``,
``ndcg_cut_10``, ``recall_1000``, ``recip_rank``. A document is relevant when
its grade is >= ``rel_threshold`` (trec_eval ``-l``, default 1); nDCG always
uses the raw grades as gains (as trec_eval does, whatever ``-l``).

Semantics follow trec_eval 9 (checked against pytrec_eval in the tests):

- Ranking: by default each query's rows are re-sorted by score compared as
  32-bit floats, descending, ties broken by docid descending (byte order), as
  trec_eval does whatever the order of the file. ``ties="run"`` keeps the
  run's own order instead. Only the first ``depth`` rows (default 1000, as in
  SPEC §8) of the re-sorted list count; ``depth=None`` keeps all.
- A run query absent from the qrels is ignored (reported in
  :attr:`Evaluation.ignored_queries`).
- A qrels query with no relevant document (only grades below the threshold)
  is evaluated like any other and scores 0 on every measure: trec_eval and
  pytrec_eval do the same and count it in the mean.
- ``average="qrels"`` (trec_eval ``-c``): one row per query of the qrels, a
  query without run lines scores 0. ``average="run"`` (trec_eval's default):
  one row per run query that the qrels judge.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable, Sequence

import numpy as np

from clirkit.errors import ClirkitError
from clirkit.run import Qrels, Run

DEFAULT_MEASURES = ("AP", "PRES@1000", "nDCG@10", "P@10", "RR")
SCS_MEASURES = ("P_mr@1", "P_mr@5", "P_r@5", "nDCG@5", "AP", "MRR_mr", "MRR_r")
AVERAGES = ("qrels", "run")
TIES = ("trec_eval", "run")

MEASURE_NAMES_HELP = (
    "AP, AP@k, PRES@N, nDCG, nDCG@k, P@k, R, R@k, RR, RR@k, P_mr@k, P_r@k, MRR_mr, MRR_r "
    "(also MAP, MRR and trec_eval's map, P_10, ndcg_cut_10, recall_1000, recip_rank)"
)


# --------------------------------------------------------------------------- measure names

@dataclass(frozen=True)
class Measure:
    """A parsed measure name.

    Attributes:
        name: canonical spelling, e.g. ``"nDCG@10"``; used as the column name.
        kind: one of ``AP PRES nDCG P R RR P_mr P_r MRR_mr MRR_r``.
        cutoff: rank cutoff k (N for PRES), or None for "the whole ranking".
    """

    name: str
    kind: str
    cutoff: int | None


# kind, canonical spelling, whether the cutoff is required / allowed / forbidden, default cutoff
_BASES: dict[str, tuple[str, str, str, int | None]] = {
    "ap": ("AP", "AP", "optional", None),
    "map": ("AP", "AP", "optional", None),
    "pres": ("PRES", "PRES", "optional", 1000),
    "ndcg": ("nDCG", "nDCG", "optional", None),
    "p": ("P", "P", "required", None),
    "r": ("R", "R", "optional", None),
    "recall": ("R", "R", "optional", None),
    "rr": ("RR", "RR", "optional", None),
    "mrr": ("RR", "RR", "optional", None),
    "p_mr": ("P_mr", "P_mr", "required", None),
    "p_r": ("P_r", "P_r", "required", None),
    "mrr_mr": ("MRR_mr", "MRR_mr", "forbidden", None),
    "mrr_r": ("MRR_r", "MRR_r", "forbidden", None),
}
_TREC_NAMES = [
    (re.compile(r"map_cut_(\d+)"), "ap"),
    (re.compile(r"p_(\d+)"), "p"),
    (re.compile(r"ndcg_cut_(\d+)"), "ndcg"),
    (re.compile(r"recall_(\d+)"), "r"),
]
_USER_NAME = re.compile(r"([a-z_]+?)(?:@(\d+))?")


def parse_measure(name: str) -> Measure:
    """Parse a user's measure name (case-insensitive) into a :class:`Measure`.

    Raises:
        ClirkitError: unknown name, missing or invalid cutoff.
    """
    text = str(name).strip()
    low = text.lower()
    base, cutoff_text = None, None
    if low == "recip_rank":
        base = "rr"
    else:
        for pattern, trec_base in _TREC_NAMES:
            m = pattern.fullmatch(low)
            if m:
                base, cutoff_text = trec_base, m.group(1)
                break
    if base is None:
        m = _USER_NAME.fullmatch(low)
        if m and m.group(1) in _BASES:
            base, cutoff_text = m.group(1), m.group(2)
    if base is None:
        raise ClirkitError(f"unknown measure {text!r}; known measures: {MEASURE_NAMES_HELP}")
    kind, canonical, rule, default = _BASES[base]
    cutoff = int(cutoff_text) if cutoff_text is not None else default
    if rule == "required" and cutoff is None:
        raise ClirkitError(f"measure {text!r} needs a cutoff, e.g. {canonical}@10")
    if rule == "forbidden" and cutoff_text is not None:
        raise ClirkitError(f"measure {text!r} takes no cutoff; write {canonical}")
    if cutoff is not None and cutoff < 1:
        raise ClirkitError(f"measure {text!r}: the cutoff must be at least 1")
    return Measure(f"{canonical}@{cutoff}" if cutoff is not None else canonical, kind, cutoff)


def parse_measures(names: Iterable[str] | str) -> list[Measure]:
    """Parse several names (a list, or one comma-separated string); duplicates are dropped."""
    if isinstance(names, str):
        names = names.split(",")
    out: list[Measure] = []
    for name in names:
        for part in str(name).split(","):
            if part.strip():
                m = parse_measure(part)
                if m not in out:
                    out.append(m)
    if not out:
        raise ClirkitError("no measure given")
    return out


# --------------------------------------------------------------------------- result

@dataclass(frozen=True)
class Evaluation:
    """Per-query values of several measures for one run.

    Attributes:
        measures: canonical measure names, the columns of ``values``.
        qids: query ids of the rows (str array).
        values: float64 array (len(qids), len(measures)).
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
        """Per-query values of one measure (any accepted spelling)."""
        name = parse_measure(measure).name
        if name not in self.measures:
            raise ClirkitError(f"measure {name} was not computed (have {', '.join(self.measures)})")
        return self.values[:, self.measures.index(name)]

    def mean(self) -> dict[str, float]:
        """Mean of each measure over the rows (see :attr:`average`)."""
        means = self.values.mean(axis=0)
        return {m: float(v) for m, v in zip(self.measures, means)}

    def per_query(self) -> dict[str, dict[str, float]]:
        """``{qid: {measure: value}}``."""
        return {q: dict(zip(self.measures, row)) for q, row in zip(self.qids.tolist(), self.values.tolist())}

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

def evaluate(run: Run, qrels: Qrels, measures: Iterable[str] | str = DEFAULT_MEASURES, *,
             rel_threshold: int = 1, main_grade: int = 2, depth: int | None = 1000,
             ties: str = "trec_eval", average: str = "qrels") -> Evaluation:
    """Evaluate a run against graded judgments.

    Args:
        run: the ranked results (any number of queries).
        qrels: graded judgments; a grade >= ``rel_threshold`` is relevant.
        measures: names as accepted by :func:`parse_measure`.
        rel_threshold: minimum grade of a relevant document (trec_eval ``-l``).
        main_grade: minimum grade of a "main relevant" document (P_mr, MRR_mr).
        depth: only the first ``depth`` ranks of each query count (None: all).
        ties: ``"trec_eval"`` (re-sort by float32 score desc, docid desc) or
            ``"run"`` (keep the run's order).
        average: ``"qrels"`` or ``"run"``: which queries get a row.

    Returns:
        An :class:`Evaluation` with values in [0, 1].

    Raises:
        ClirkitError: empty run or qrels, NaN scores, a docid twice for one
            query, no run query in the qrels, bad options or measure names.
    """
    specs = parse_measures(measures)
    if ties not in TIES:
        raise ClirkitError(f"ties must be one of {', '.join(TIES)}, got {ties!r}")
    if average not in AVERAGES:
        raise ClirkitError(f"average must be one of {', '.join(AVERAGES)}, got {average!r}")
    if depth is not None and depth < 1:
        raise ClirkitError(f"depth must be at least 1, got {depth}")
    if rel_threshold < 1:
        # unjudged documents get grade 0 here, so a threshold <= 0 would make them relevant
        raise ClirkitError(f"rel_threshold must be at least 1, got {rel_threshold}")
    if main_grade < rel_threshold:
        raise ClirkitError(f"main_grade ({main_grade}) must not be below rel_threshold ({rel_threshold})")
    if len(qrels) == 0:
        raise ClirkitError("the qrels are empty: no judgments")
    if len(run) == 0:
        raise ClirkitError("the run is empty: no result lines")
    nan = np.isnan(run.scores)
    if nan.any():
        i = int(np.flatnonzero(nan)[0])
        raise ClirkitError(f"the run's score for query {run.qids[i]}, document {run.docids[i]} is NaN")

    judged = _JudgedQueries(qrels, rel_threshold)
    run_queries = np.asarray(run.query_ids)
    starts = np.flatnonzero(run.ranks() == 1)
    counts = np.diff(np.append(starts, len(run)))
    group_code = judged.codes_of(run_queries)
    in_qrels = group_code >= 0
    if not in_qrels.any():
        raise ClirkitError(
            f"none of the run's {len(run_queries)} queries (e.g. {run_queries[0]!r}) is in the qrels "
            f"({len(judged.ids)} queries, e.g. {judged.ids[0]!r}): are these the qrels of this run?")
    ignored = tuple(run_queries[~in_qrels].tolist())

    row_code = np.repeat(group_code, counts)
    keep = row_code >= 0
    docids, scores = run.docids, run.scores
    if not keep.all():
        row_code, docids, scores = row_code[keep], docids[keep], scores[keep]
    grades = _lookup_grades(row_code, docids, judged)

    group_code = group_code[in_qrels]
    n_groups = len(group_code)
    group = np.repeat(np.arange(n_groups), counts[in_qrels])
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

    ranked = _Ranked(group, rank, grades, starts, n_groups)
    values = np.empty((n_groups, len(specs)), dtype=np.float64)
    for j, spec in enumerate(specs):
        values[:, j] = _compute(spec, ranked, judged, group_code, rel_threshold, main_grade)

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
    return Evaluation(tuple(s.name for s in specs), qids, values, average, run.tag, missing, ignored)


@dataclass(frozen=True)
class _Ranked:
    """Evaluated rows in final rank order: query group, 1-based rank and grade of each row."""

    group: np.ndarray
    rank: np.ndarray
    grades: np.ndarray
    starts: np.ndarray
    n_groups: int


class _JudgedQueries:
    """The qrels indexed by query code (position in the sorted unique query ids)."""

    def __init__(self, qrels: Qrels, rel_threshold: int) -> None:
        self.ids, self.row_code = np.unique(qrels.qids, return_inverse=True)
        self.row_code = self.row_code.astype(np.int64).ravel()
        self.docids = qrels.docids
        self.rels = qrels.rels
        self.n_relevant = np.bincount(self.row_code, weights=qrels.rels >= rel_threshold,
                                      minlength=len(self.ids)).astype(np.int64)
        self._ideal_order: np.ndarray | None = None

    def codes_of(self, qids: np.ndarray) -> np.ndarray:
        """Code of each query id, -1 when the qrels do not have it."""
        if len(qids) == 0:
            return np.zeros(0, dtype=np.int64)
        pos = np.minimum(np.searchsorted(self.ids, qids), len(self.ids) - 1)
        return np.where(self.ids[pos] == qids, pos, -1).astype(np.int64)

    def count_at_least(self, grade: int) -> np.ndarray:
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


def _compute(spec: Measure, r: _Ranked, judged: _JudgedQueries, group_code: np.ndarray,
             rel_threshold: int, main_grade: int) -> np.ndarray:
    """Per-group values of one measure."""
    k = spec.cutoff
    within = np.ones(len(r.rank), dtype=bool) if k is None else r.rank <= k
    level = main_grade if spec.kind in ("P_mr", "MRR_mr") else rel_threshold
    hit = r.grades >= level
    n_rel = judged.n_relevant[group_code] if level == rel_threshold else judged.count_at_least(level)[group_code]

    def per_group(weights: np.ndarray) -> np.ndarray:
        return np.bincount(r.group, weights=weights, minlength=r.n_groups)

    if spec.kind == "AP":
        cum = np.cumsum(hit)
        cum_in_group = cum - np.repeat(cum[r.starts] - hit[r.starts], np.diff(np.append(r.starts, len(hit))))
        total = per_group(np.where(hit & within, cum_in_group / r.rank, 0.0))
        return _safe_divide(total, n_rel)
    if spec.kind in ("P", "P_r"):
        return per_group(hit & within) / k
    if spec.kind == "R":
        return _safe_divide(per_group(hit & within), n_rel)
    if spec.kind == "P_mr":
        return (per_group(hit & within) > 0).astype(np.float64)
    if spec.kind in ("RR", "MRR_mr", "MRR_r"):
        big = np.iinfo(np.int64).max
        first = np.minimum.reduceat(np.where(hit & within, r.rank, big), r.starts)
        return np.where(first < big, 1.0 / np.where(first < big, first, 1), 0.0)
    if spec.kind == "nDCG":
        gains = np.where(within & (r.grades > 0), r.grades / np.log2(r.rank + 1.0), 0.0)
        return _safe_divide(per_group(gains), judged.ideal_dcg(k)[group_code])
    if spec.kind == "PRES":
        return _pres(hit & within, r, n_rel, k)
    raise AssertionError(spec.kind)


def _pres(found: np.ndarray, r: _Ranked, n: np.ndarray, n_max: int) -> np.ndarray:
    """PRES (Magdy & Jones 2010) per group, from the relevant rows within rank ``n_max``.

    The n - n_R relevant documents not found are placed at ranks
    n_max + i, i = n_R+1..n. Then PRES = 1 - (sum r_i / n - (n+1)/2) / n_max
    = (n n_max + n(n+1)/2 - sum r_i) / (n n_max), computed in exact integers
    up to one final division. 0 when n = 0.
    """
    n_found = np.bincount(r.group, weights=found, minlength=r.n_groups).astype(np.int64)
    rank_sum = np.bincount(r.group, weights=np.where(found, r.rank, 0), minlength=r.n_groups).astype(np.int64)
    total = rank_sum + (n - n_found) * n_max + (n * (n + 1) - n_found * (n_found + 1)) // 2
    numerator = n * n_max + n * (n + 1) // 2 - total
    return _safe_divide(numerator.astype(np.float64), (n * n_max).astype(np.float64))


def _safe_divide(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    den = np.asarray(den, dtype=np.float64)
    return np.divide(num, den, out=np.zeros(len(num), dtype=np.float64), where=den > 0)


# --------------------------------------------------------------------------- ordering

def _trec_eval_order(group: np.ndarray, scores: np.ndarray, docids: np.ndarray,
                     grades: np.ndarray) -> np.ndarray | None:
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
        block = np.cumsum(np.concatenate(([True], ~tied)))
        matters = np.zeros(block[-1] + 1, dtype=bool)
        matters[block[grades > 0]] = True
        in_tie = np.concatenate((tied, [False])) | np.concatenate(([False], tied))
        sel = np.flatnonzero(in_tie & matters[block])
        if len(sel):
            # ascending (-block, docid), reversed: blocks ascending, docid descending within a block
            sub = np.lexsort((docids[sel], -block[sel]))[::-1]
            perm = np.arange(len(group))
            perm[sel] = sel[sub]
            order = perm if order is None else order[perm]
    return order


# --------------------------------------------------------------------------- joining run and qrels

_QUERY_MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)


def _splitmix64(x: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        x = x.astype(np.uint64) + _QUERY_MULTIPLIER
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return x ^ (x >> np.uint64(31))


def _docid_hash(docids: np.ndarray) -> np.ndarray:
    """64-bit hash of each docid: sum over pairs of code points of (pair as uint64) x a fixed odd
    multiplier per pair position.

    The multiplier of a position depends on the position only and padding is 0,
    so equal strings hash alike whatever the arrays' string widths.
    """
    arr = np.ascontiguousarray(docids)
    if arr.dtype.kind != "U":
        arr = arr.astype(str)
    width = arr.dtype.itemsize // 4
    chars = arr.view(np.uint32).reshape(len(arr), width)
    if width % 2:
        chars = np.concatenate((chars, np.zeros((len(arr), 1), dtype=np.uint32)), axis=1)
    pairs = chars.view(np.uint64)  # (n, ceil(width / 2)): two code points per word
    mult = _splitmix64(np.arange(pairs.shape[1])) | np.uint64(1)
    with np.errstate(over="ignore"):
        return pairs @ mult  # integer matmul: one pass, wraps modulo 2^64


def _pair_keys(codes: np.ndarray, docids: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        x = _docid_hash(docids) ^ (codes.astype(np.uint64) * _QUERY_MULTIPLIER)
        x ^= x >> np.uint64(31)
        x *= np.uint64(0xBF58476D1CE4E5B9)
        x ^= x >> np.uint64(29)
    return x


class _HashCollision(Exception):
    """Two different (query, docid) pairs hashed alike: use the exact path."""


def _lookup_grades(row_code: np.ndarray, docids: np.ndarray, judged: _JudgedQueries) -> np.ndarray:
    """Grade of each run row (0 if unjudged); raises ClirkitError on duplicate pairs."""
    try:
        return _lookup_grades_hashed(row_code, docids, judged)
    except _HashCollision:
        return _lookup_grades_exact(row_code, docids, judged)


def _lookup_grades_hashed(row_code: np.ndarray, docids: np.ndarray, judged: _JudgedQueries) -> np.ndarray:
    qkeys = _pair_keys(judged.row_code, judged.docids)
    qorder = np.argsort(qkeys, kind="stable")
    sorted_q = qkeys[qorder]
    same = np.flatnonzero(sorted_q[1:] == sorted_q[:-1])
    for i in same.tolist():
        a, b = qorder[i], qorder[i + 1]
        if judged.row_code[a] == judged.row_code[b] and judged.docids[a] == judged.docids[b]:
            raise ClirkitError(f"the qrels judge document {judged.docids[a]} twice for query "
                               f"{judged.ids[judged.row_code[a]]}")
        raise _HashCollision

    rkeys = _pair_keys(row_code, docids)
    sorted_r = np.sort(rkeys)
    dup = np.flatnonzero(sorted_r[1:] == sorted_r[:-1])
    if len(dup):
        a, b = np.flatnonzero(rkeys == sorted_r[dup[0]])[:2]
        if row_code[a] == row_code[b] and docids[a] == docids[b]:
            raise ClirkitError(f"the run lists document {docids[a]} more than once for query "
                               f"{judged.ids[row_code[a]]}")
        raise _HashCollision

    # a bitmap of the judged keys' low bits picks the few candidate rows, which are then looked up
    bits = int(min(24, max(16, np.ceil(np.log2(len(sorted_q) + 1)) + 4)))
    mask = np.uint64((1 << bits) - 1)
    bitmap = np.zeros(1 << bits, dtype=bool)
    bitmap[(sorted_q & mask).astype(np.intp)] = True
    cand = np.flatnonzero(bitmap[(rkeys & mask).astype(np.intp)])
    pos = np.minimum(np.searchsorted(sorted_q, rkeys[cand]), len(sorted_q) - 1)
    hit = sorted_q[pos] == rkeys[cand]
    rows, idx = cand[hit], qorder[pos[hit]]
    if not ((judged.row_code[idx] == row_code[rows]).all() and (judged.docids[idx] == docids[rows]).all()):
        raise _HashCollision
    grades = np.zeros(len(rkeys), dtype=np.int64)
    grades[rows] = judged.rels[idx]
    return grades


def _lookup_grades_exact(row_code: np.ndarray, docids: np.ndarray, judged: _JudgedQueries) -> np.ndarray:
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
