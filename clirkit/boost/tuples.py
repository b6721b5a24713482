"""Training tuples (q, d+, d-) for pairwise boosting, sampled from graded qrels.

Every judged-relevant document d+ of a query (grade >= ``min_grade``) is paired
with ``negatives`` documents d- drawn uniformly from the collection minus the
query's judged-relevant documents, or (hard negatives) uniformly from a
candidate run's top ``candidate_depth`` minus the judged-relevant ones.
Optionally each d+ is also paired with ``grade_pairs`` judged documents of a
lower positive grade (e.g. grade 2 over grade 1). Each tuple carries an
importance weight D (``weighting``):

- ``"difference"``: rel(d+) - rel(d-), with unjudged/non-relevant grades as 0;
- ``"one"``: 1 for every tuple;
- ``"positive"``: rel(d+).

Sampling is vectorized and driven by one ``numpy.random.Generator`` seeded
with ``seed``, so the same inputs and seed give the same tuples.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

import numpy as np

from clirkit.constraints import MinimumGrade, validate
from clirkit.errors import ClirkitError, too_big_as_memory
from clirkit.progress import say
from clirkit.run import Qrels, Run
from clirkit.sortedunique import sorted_unique

if TYPE_CHECKING:
    from clirkit.boost.base import BaseScores

WEIGHTINGS = ("difference", "one", "positive")


class NoTupleError(ClirkitError):
    """No training tuple can be sampled from the qrels (a command line names the qrels file in front)."""


class ExtraTupleError(ClirkitError):
    """No tuple can be sampled from the extra judgments (known items, triples): ``extra tuples: REASON``; a
    command line names their files in front of ``reason`` instead."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"extra tuples: {reason}")
        self.reason = reason


@dataclass(frozen=True)
class Tuples:
    """Training tuples as parallel arrays, sorted by (query, d+, d-).

    Attributes:
        query: int64 row of the query in the caller's query list.
        pos, neg: int64 rows of d+ and d- in the caller's document list.
        weight: float64 importance weight D > 0.
    """

    query: np.ndarray
    pos: np.ndarray
    neg: np.ndarray
    weight: np.ndarray

    def __len__(self) -> int:
        return len(self.query)

    def subset(self, rows: np.ndarray) -> "Tuples":
        """The tuples at ``rows`` (an index array, kept in the given order)."""
        return Tuples(self.query[rows], self.pos[rows], self.neg[rows], self.weight[rows])

    def joined(self, other: "Tuples", weight: float = 1.0) -> "Tuples":
        """These tuples and ``other`` (its weights times ``weight``), sorted into (query, d+, d-) order."""
        return Tuples.from_arrays(
            np.concatenate([self.query, other.query]),
            np.concatenate([self.pos, other.pos]),
            np.concatenate([self.neg, other.neg]),
            np.concatenate([self.weight, weight * other.weight]),
        )

    @classmethod
    def from_arrays(cls, query, pos, neg, weight=None) -> "Tuples":
        """Tuples from plain sequences, sorted into (query, d+, d-) order."""
        query = np.asarray(query, dtype=np.int64)
        pos = np.asarray(pos, dtype=np.int64)
        neg = np.asarray(neg, dtype=np.int64)
        weight = np.ones(len(query)) if weight is None else np.asarray(weight, dtype=np.float64)
        if not (len(query) == len(pos) == len(neg) == len(weight)):
            raise ValueError("tuple arrays differ in length")
        if np.any(weight <= 0):
            raise ValueError("tuple weights must be positive")
        order = np.lexsort((neg, pos, query))
        return cls(query[order], pos[order], neg[order], weight[order])


def index_of(values: np.ndarray, universe: Sequence[str]) -> np.ndarray:
    """Position of each value in ``universe`` (-1 when absent)."""
    universe = np.asarray(universe, dtype=str)
    if not len(universe):  # (no position to look up: order[pos] below would index an empty array)
        return np.full(len(values), -1, dtype=np.int64)
    order = np.argsort(universe, kind="stable")
    sorted_u = universe[order]
    pos = np.searchsorted(sorted_u, values)
    pos = np.minimum(pos, max(len(sorted_u) - 1, 0))
    found = sorted_u[pos] == values
    return np.where(found, order[pos], -1).astype(np.int64)


def lookup_sorted(sorted_keys: np.ndarray, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(found, position)`` of each of ``keys`` in the ascending array ``sorted_keys`` (position is
    only meaningful where found)."""
    keys = np.asarray(keys)
    if len(sorted_keys) == 0:
        return np.zeros(len(keys), dtype=bool), np.zeros(len(keys), dtype=np.int64)
    pos = np.minimum(np.searchsorted(sorted_keys, keys), len(sorted_keys) - 1)
    return sorted_keys[pos] == keys, pos


def values_at(sorted_keys: np.ndarray, values: np.ndarray, keys: np.ndarray, default: float = 0.0) -> np.ndarray:
    """``values[i]`` where ``keys`` equals ``sorted_keys[i]`` (ascending), ``default`` where it is absent (float64)."""
    found, pos = lookup_sorted(sorted_keys, keys)
    if len(sorted_keys) == 0:
        return np.full(len(found), default, dtype=np.float64)
    return np.where(found, values[pos], default).astype(np.float64)


def _uniform_negatives(
    rng: np.random.Generator, qrow: np.ndarray, n_docs: int, relevant_keys: np.ndarray, m: int
) -> np.ndarray:
    """``m`` documents per entry of ``qrow``, uniform over docs not in ``relevant_keys`` (q*n_docs+d, sorted);
    -1 in the rows of a query that judges every document relevant (:func:`_all_relevant`: none to draw)."""
    out = rng.integers(0, n_docs, size=(len(qrow), m))
    qcol = np.repeat(qrow[:, None], m, axis=1)
    full = _all_relevant(qrow, n_docs, relevant_keys)
    out[full] = -1
    bad = lookup_sorted(relevant_keys, qcol * n_docs + out)[0]
    bad[full] = False  # every other row has a document to draw: the redraws end
    while bad.any():
        out[bad] = rng.integers(0, n_docs, size=int(bad.sum()))
        bad[bad] = lookup_sorted(relevant_keys, qcol[bad] * n_docs + out[bad])[0]
    return out


def _all_relevant(qrow: np.ndarray, n_docs: int, relevant_keys: np.ndarray) -> np.ndarray:
    """Whether the query of each entry of ``qrow`` judges every one of the ``n_docs`` documents relevant
    (``relevant_keys``: the sorted, distinct ``query * n_docs + document`` keys of the relevant pairs)."""
    if len(qrow) == 0:
        return np.zeros(0, dtype=bool)
    counts = np.bincount(relevant_keys // n_docs, minlength=int(qrow.max()) + 1)
    return counts[qrow] >= n_docs


@too_big_as_memory()
def make_tuples(
    qrels: Qrels,
    query_ids: Sequence[str],
    docids: Sequence[str],
    *,
    negatives: int = 1,
    min_grade: int = 1,
    candidates: Run | None = None,
    candidate_depth: int = 1000,
    grade_pairs: int = 0,
    weighting: str = "difference",
    max_positives: int = 0,
    hard_negatives: int = 0,
    base: "BaseScores | None" = None,
    seed: int | Sequence[int] = 0,
    what: str = "training",
    quiet: bool = True,
) -> Tuples:
    """Sample training tuples.

    Args:
        qrels: graded judgments; rows of queries not in ``query_ids`` or documents
            not in ``docids`` are ignored.
        query_ids: the training queries (tuple ``query`` indexes this list).
        docids: the collection (tuple ``pos``/``neg`` index this list).
        negatives: sampled d- per d+ (uniform or from ``candidates``).
        min_grade: grades >= this are relevant (d+ candidates): an int >= 1, as the ranker's
            (:class:`~clirkit.constraints.MinimumGrade`; unjudged documents have grade 0).
        candidates: a run whose top ``candidate_depth`` per query, minus the
            judged-relevant docs, gives the ``negatives`` instead of uniform draws
            (queries with no candidate fall back to uniform sampling); the
            standalone form of hard negatives.
        grade_pairs: additional d- per d+ drawn among the query's judged docs of a
            lower grade (>= ``min_grade``); 0 disables.
        weighting: one of ``WEIGHTINGS``.
        max_positives: if > 0, at most this many d+ per query (a uniform sample).
        hard_negatives: d- per d+ drawn from the ``base`` run's top
            ``candidate_depth`` in addition to the ``negatives`` uniform ones, only
            for a d+ that the base run lists for its query (at any rank): when the
            base system misses d+, a hard tuple would teach the topic, not a
            correction of the ranking.
        base: the base run as :class:`clirkit.boost.base.BaseScores` over
            ``query_ids`` and ``docids`` (needed by ``hard_negatives``).
        seed: random seed (an int or a sequence of ints).
        what: the queries' name in the messages ("training", "extra").
        quiet: if False, say how many queries judge every document relevant (no negative to draw for them:
            their d+ get no uniform d-).
    Returns:
        :class:`Tuples`, sorted by (query, d+, d-); duplicates are kept.
    Raises:
        InvalidParameterError: a ``min_grade`` that is not an int >= 1 (a ClirkitError).
        NoTupleError: every query with a relevant document judges every document relevant, and no other
            tuple is left (e.g. of ``grade_pairs``); or no judgment of ``qrels`` reaches ``min_grade``.
    """
    validate({"min_grade": [MinimumGrade()]}, {"min_grade": min_grade}, "make_tuples")
    _check_sampling(weighting, negatives, grade_pairs, hard_negatives, base)
    rng = np.random.default_rng(seed)
    judged = _Judged(qrels, query_ids, docids, min_grade)
    pq, pd, pr = judged.positives(rng, max_positives)
    parts = _Parts(weighting, judged)
    if negatives > 0:
        negs = _uniform_negatives(rng, pq, judged.n_docs, judged.relevant_keys, negatives)
        if candidates is not None:
            negs = _hard_negatives(
                rng,
                _candidate_keys(candidates, query_ids, docids, candidate_depth),
                judged.n_docs,
                judged.relevant_keys,
                pq,
                negs,
            )
        parts.against(pq, pd, pr, negs)
    if grade_pairs > 0:
        parts.add(*judged.lower_grade_pairs(rng, pq, pd, pr, grade_pairs, min_grade))
    if hard_negatives > 0:
        listed = base.retrieved(pq, pd)
        hq, hd, hr = pq[listed], pd[listed], pr[listed]
        negs = _hard_negatives(
            rng,
            base.candidate_keys(candidate_depth),
            judged.n_docs,
            judged.relevant_keys,
            hq,
            np.full((len(hq), hard_negatives), -1, dtype=np.int64),
        )
        parts.against(hq, hd, hr, negs)  # a query whose candidates are all relevant gives no hard tuple (-1)
    if negatives > 0:
        _all_relevant_queries(pq, query_ids, judged, what, parts.any(), quiet)
    return parts.tuples()


def _all_relevant_queries(
    pq: np.ndarray, query_ids: Sequence[str], judged: "_Judged", what: str, sampled: bool, quiet: bool
) -> None:
    """The queries of ``pq`` that judge every document relevant (no negative to draw for them): said (unless
    ``quiet``) when some are, an error when they are all and no tuple was ``sampled``."""
    queries = sorted_unique(pq)
    full = queries[_all_relevant(queries, judged.n_docs, judged.relevant_keys)]
    if len(full) == 0:
        return
    example = query_ids[int(full[0])]
    if not sampled and len(full) == len(queries):
        more = f" and {len(full) - 1} more" if len(full) > 1 else ""
        raise NoTupleError(
            f"no {what} tuple: every {what} query judges every document relevant (query {example}{more}), "
            "so no negative document can be sampled"
        )
    say(
        f"boost: {len(full)} of the {len(queries)} {what} queries with a relevant document judge every document "
        f"relevant (e.g. {example}): no negative to sample for them",
        quiet=quiet,
    )


def _check_sampling(weighting: str, negatives: int, grade_pairs: int, hard_negatives: int, base) -> None:
    if weighting not in WEIGHTINGS:
        raise ClirkitError(f"unknown tuple weighting {weighting!r}; choose one of {', '.join(WEIGHTINGS)}")
    if negatives < 0 or grade_pairs < 0 or hard_negatives < 0 or negatives + grade_pairs + hard_negatives == 0:
        raise ClirkitError("need negatives, grade_pairs and hard_negatives >= 0 and at least one of them > 0")
    if hard_negatives > 0 and base is None:
        raise ClirkitError("hard negatives need the base system's run")


class _Judged:
    """The qrels' rows over the caller's queries and documents: ``qi``, ``di``, ``rel`` (query row, document
    row, grade) sorted by query, grade descending, document; ``is_rel`` (grade >= ``min_grade``), the sorted
    ``query * n_docs + document`` keys of the relevant pairs, and every judged pair's grade by its key."""

    def __init__(self, qrels: Qrels, query_ids: Sequence[str], docids: Sequence[str], min_grade: int) -> None:
        n_docs = self.n_docs = len(docids)
        qi, di = index_of(qrels.qids, query_ids), index_of(qrels.docids, docids)
        keep = (qi >= 0) & (di >= 0)
        qi, di, rel = qi[keep], di[keep], qrels.rels[keep]
        order = np.lexsort((di, -rel, qi))
        self.qi, self.di, self.rel = qi[order], di[order], rel[order]
        self.is_rel = self.rel >= min_grade
        self.min_grade, self.top_grade = min_grade, int(qrels.rels.max()) if len(qrels) else None
        self.relevant_keys = sorted_unique(self.qi[self.is_rel] * n_docs + self.di[self.is_rel])
        jorder = np.argsort(self.qi * n_docs + self.di, kind="stable")
        self._keys, self._grades = (self.qi * n_docs + self.di)[jorder], self.rel[jorder]

    def grade_of(self, q: np.ndarray, d: np.ndarray) -> np.ndarray:
        """Judged grade of each (q, d) (0 when unjudged)."""
        return values_at(self._keys, self._grades, q * self.n_docs + d)

    def positives(self, rng: np.random.Generator, max_positives: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(query, document, grade)`` of the relevant pairs: at most ``max_positives`` per query (a uniform
        sample) when it is > 0."""
        pq, pd, pr = self.qi[self.is_rel], self.di[self.is_rel], self.rel[self.is_rel]
        if max_positives > 0 and len(pq):
            shuffled = np.lexsort((rng.random(len(pq)), pq))
            starts = np.searchsorted(pq[shuffled], pq[shuffled], side="left")
            rank_in_query = np.arange(len(pq)) - starts
            chosen = np.sort(shuffled[rank_in_query < max_positives])
            pq, pd, pr = pq[chosen], pd[chosen], pr[chosen]
        if len(pq) == 0 and self.top_grade is not None and self.top_grade < self.min_grade:
            raise NoTupleError(
                f"no judgment reaches the minimum grade of a relevant document ({self.min_grade}): the highest "
                f"grade is {self.top_grade}"
            )
        if len(pq) == 0:
            raise ClirkitError(
                "no relevant (query, document) pair of the qrels is in the training queries "
                "and the collection: check the query and document ids"
            )
        return pq, pd, pr

    def lower_grade_pairs(
        self, rng: np.random.Generator, pq: np.ndarray, pd: np.ndarray, pr: np.ndarray, m: int, min_grade: int
    ) -> tuple[np.ndarray, ...]:
        """``m`` pairs per positive (``pq``, ``pd``, ``pr``) with a judged document of its query of a lower grade
        (>= ``min_grade``), drawn uniformly: ``(query, d+, grade+, d-, grade-)``."""
        # judged docs sorted by (query, grade ascending) so a positive's lower grades are a prefix range
        jq, jd, jr = self.qi[self.is_rel], self.di[self.is_rel], self.rel[self.is_rel]
        o = np.lexsort((jd, jr, jq))
        jq, jd, jr = jq[o], jd[o], jr[o]
        big = int(jr.max()) + 1
        combined = jq * big + jr
        lo = np.searchsorted(combined, pq * big + min_grade, side="left")
        hi = np.searchsorted(combined, pq * big + pr, side="left")
        count = hi - lo
        has = count > 0
        r = rng.random((len(pq), m))
        pick = lo[:, None] + np.floor(r * count[:, None]).astype(np.int64)
        pick = pick[has].reshape(-1)
        return (
            np.repeat(pq[has], m),
            np.repeat(pd[has], m),
            np.repeat(pr[has], m).astype(np.float64),
            jd[pick],
            jr[pick].astype(np.float64),
        )


class _Parts:
    """The tuples sampled so far, with their ``weighting``'s weights; those of weight <= 0 are left out."""

    def __init__(self, weighting: str, judged: _Judged) -> None:
        self.weighting, self.judged = weighting, judged
        self.parts: list[tuple[np.ndarray, ...]] = []

    def add(self, q: np.ndarray, p: np.ndarray, pgrade: np.ndarray, n: np.ndarray, ngrade: np.ndarray) -> None:
        w = {"difference": pgrade - np.maximum(ngrade, 0), "one": np.ones(len(q)), "positive": pgrade}[
            self.weighting
        ].astype(np.float64)
        ok = w > 0
        self.parts.append((q[ok], p[ok], n[ok], w[ok]))

    def against(self, q: np.ndarray, p: np.ndarray, pgrade: np.ndarray, negs: np.ndarray) -> None:
        """Each positive ``(q, p, pgrade)`` against each document of its row of ``negs`` (-1: none)."""
        m = negs.shape[1]
        q_rep, n_flat = np.repeat(q, m), negs.reshape(-1)
        found = n_flat >= 0
        q_rep, n_flat = q_rep[found], n_flat[found]
        self.add(
            q_rep,
            np.repeat(p, m)[found],
            np.repeat(pgrade, m).astype(np.float64)[found],
            n_flat,
            self.judged.grade_of(q_rep, n_flat),
        )

    def any(self) -> bool:
        """Whether a tuple was sampled so far."""
        return any(len(part[0]) for part in self.parts)

    def tuples(self) -> Tuples:
        tuples = Tuples.from_arrays(*(np.concatenate([part[i] for part in self.parts]) for i in range(4)))
        if len(tuples) == 0:
            raise ClirkitError("the qrels gave no training tuple with a positive weight")
        return tuples


def _candidate_keys(candidates: Run, query_ids, docids, depth: int | None) -> np.ndarray:
    """Sorted ``query_row * len(docids) + doc_row`` of the candidate run's top ``depth`` rows (all if None)."""
    top = candidates.top(depth) if depth is not None else candidates
    cq, cd = index_of(top.qids, query_ids), index_of(top.docids, docids)
    ok = (cq >= 0) & (cd >= 0)
    return np.sort(cq[ok] * len(docids) + cd[ok])


def _hard_negatives(
    rng, keys: np.ndarray, n_docs: int, relevant_keys: np.ndarray, pq: np.ndarray, fallback: np.ndarray
) -> np.ndarray:
    """Uniform draws (``fallback.shape[1]`` per entry of ``pq``) among each query's candidates (sorted
    ``query * n_docs + doc`` ``keys``) minus its relevant documents; ``fallback``'s rows where a query
    has none."""
    keys = keys[~lookup_sorted(relevant_keys, keys)[0]]
    cq, cd = keys // n_docs, keys % n_docs
    lo = np.searchsorted(cq, pq, side="left")
    hi = np.searchsorted(cq, pq, side="right")
    count = hi - lo
    m = fallback.shape[1]
    r = rng.random((len(pq), m))
    pick = lo[:, None] + np.floor(r * count[:, None]).astype(np.int64)
    has = count > 0
    out = fallback.copy()
    out[has] = cd[pick[has]]
    return out
