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
from typing import Sequence

import numpy as np

from clirkit.errors import ClirkitError
from clirkit.run import Qrels, Run

WEIGHTINGS = ("difference", "one", "positive")


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


def _index_of(values: np.ndarray, universe: Sequence[str]) -> np.ndarray:
    """Position of each value in ``universe`` (-1 when absent)."""
    universe = np.asarray(universe, dtype=str)
    order = np.argsort(universe, kind="stable")
    sorted_u = universe[order]
    pos = np.searchsorted(sorted_u, values)
    pos = np.minimum(pos, max(len(sorted_u) - 1, 0))
    found = (len(sorted_u) > 0) & (sorted_u[pos] == values) if len(sorted_u) else np.zeros(len(values), bool)
    return np.where(found, order[pos], -1).astype(np.int64)


def _uniform_negatives(rng: np.random.Generator, qrow: np.ndarray, n_docs: int, relevant_keys: np.ndarray,
                       m: int) -> np.ndarray:
    """``m`` documents per entry of ``qrow``, uniform over docs not in ``relevant_keys`` (q*n_docs+d, sorted)."""
    out = rng.integers(0, n_docs, size=(len(qrow), m))
    qcol = np.repeat(qrow[:, None], m, axis=1)
    bad = np.isin(qcol * n_docs + out, relevant_keys)
    while bad.any():
        out[bad] = rng.integers(0, n_docs, size=int(bad.sum()))
        bad[bad] = np.isin(qcol[bad] * n_docs + out[bad], relevant_keys)
    return out


def make_tuples(qrels: Qrels, query_ids: Sequence[str], docids: Sequence[str], *, negatives: int = 1,
                min_grade: int = 1, candidates: Run | None = None, candidate_depth: int = 1000,
                grade_pairs: int = 0, weighting: str = "difference", max_positives: int = 0,
                seed: int = 0) -> Tuples:
    """Sample training tuples.

    Args:
        qrels: graded judgments; rows of queries not in ``query_ids`` or documents
            not in ``docids`` are ignored.
        query_ids: the training queries (tuple ``query`` indexes this list).
        docids: the collection (tuple ``pos``/``neg`` index this list).
        negatives: sampled d- per d+ (uniform or from ``candidates``).
        min_grade: grades >= this are relevant (d+ candidates).
        candidates: a run giving hard negatives (its top ``candidate_depth`` per
            query, minus judged-relevant docs); queries with no such candidate
            fall back to uniform sampling.
        grade_pairs: additional d- per d+ drawn among the query's judged docs of a
            lower grade (>= ``min_grade``); 0 disables.
        weighting: one of ``WEIGHTINGS``.
        max_positives: if > 0, at most this many d+ per query (a uniform sample).
        seed: random seed.
    Returns:
        :class:`Tuples`, sorted by (query, d+, d-); duplicates are kept.
    """
    if weighting not in WEIGHTINGS:
        raise ClirkitError(f"unknown tuple weighting {weighting!r}; choose one of {', '.join(WEIGHTINGS)}")
    if negatives < 0 or grade_pairs < 0 or negatives + grade_pairs == 0:
        raise ClirkitError("need negatives >= 0, grade_pairs >= 0 and at least one of them > 0")
    rng = np.random.default_rng(seed)
    n_docs = len(docids)
    qi = _index_of(qrels.qids, query_ids)
    di = _index_of(qrels.docids, docids)
    keep = (qi >= 0) & (di >= 0)
    qi, di, rel = qi[keep], di[keep], qrels.rels[keep]
    is_rel = rel >= min_grade
    order = np.lexsort((di, -rel, qi))
    qi, di, rel, is_rel = qi[order], di[order], rel[order], is_rel[order]
    relevant_keys = np.unique(qi[is_rel] * n_docs + di[is_rel])

    pq, pd, pr = qi[is_rel], di[is_rel], rel[is_rel]
    if max_positives > 0 and len(pq):
        shuffled = np.lexsort((rng.random(len(pq)), pq))
        starts = np.searchsorted(pq[shuffled], pq[shuffled], side="left")
        rank_in_query = np.arange(len(pq)) - starts
        chosen = np.sort(shuffled[rank_in_query < max_positives])
        pq, pd, pr = pq[chosen], pd[chosen], pr[chosen]
    if len(pq) == 0:
        raise ClirkitError("no relevant (query, document) pair of the qrels is in the training queries "
                           "and the collection: check the query and document ids")

    parts_q, parts_p, parts_n, parts_w = [], [], [], []

    def add(q, p, pgrade, n, ngrade):
        w = {"difference": pgrade - np.maximum(ngrade, 0), "one": np.ones(len(q)),
             "positive": pgrade}[weighting].astype(np.float64)
        ok = w > 0
        parts_q.append(q[ok]), parts_p.append(p[ok]), parts_n.append(n[ok]), parts_w.append(w[ok])

    if negatives > 0:
        negs = _uniform_negatives(rng, pq, n_docs, relevant_keys, negatives)
        if candidates is not None:
            negs = _hard_negatives(rng, candidates, query_ids, docids, candidate_depth, relevant_keys,
                                   pq, negs)
        judged_keys = qi * n_docs + di
        jorder = np.argsort(judged_keys, kind="stable")
        q_rep = np.repeat(pq, negatives)
        n_flat = negs.reshape(-1)
        keys = q_rep * n_docs + n_flat
        pos_in = np.searchsorted(judged_keys[jorder], keys)
        pos_in = np.minimum(pos_in, max(len(jorder) - 1, 0))
        hit = judged_keys[jorder][pos_in] == keys if len(jorder) else np.zeros(len(keys), bool)
        ngrade = np.where(hit, rel[jorder][pos_in] if len(jorder) else 0, 0)
        add(q_rep, np.repeat(pd, negatives), np.repeat(pr, negatives).astype(np.float64), n_flat,
            ngrade.astype(np.float64))

    if grade_pairs > 0:
        # judged docs sorted by (query, grade ascending) so a positive's lower grades are a prefix range
        jq, jd, jr = qi[is_rel], di[is_rel], rel[is_rel]
        o = np.lexsort((jd, jr, jq))
        jq, jd, jr = jq[o], jd[o], jr[o]
        big = int(jr.max()) + 1
        combined = jq * big + jr
        lo = np.searchsorted(combined, pq * big + min_grade, side="left")
        hi = np.searchsorted(combined, pq * big + pr, side="left")
        count = hi - lo
        has = count > 0
        r = rng.random((len(pq), grade_pairs))
        pick = lo[:, None] + np.floor(r * count[:, None]).astype(np.int64)
        pick = pick[has].reshape(-1)
        add(np.repeat(pq[has], grade_pairs), np.repeat(pd[has], grade_pairs),
            np.repeat(pr[has], grade_pairs).astype(np.float64), jd[pick], jr[pick].astype(np.float64))

    tuples = Tuples.from_arrays(np.concatenate(parts_q), np.concatenate(parts_p), np.concatenate(parts_n),
                                np.concatenate(parts_w))
    if len(tuples) == 0:
        raise ClirkitError("the qrels gave no training tuple with a positive weight")
    return tuples


def _hard_negatives(rng, candidates: Run, query_ids, docids, depth: int, relevant_keys: np.ndarray,
                    pq: np.ndarray, uniform: np.ndarray) -> np.ndarray:
    """Replace uniform negatives by uniform draws from each query's candidate list, where it has one."""
    n_docs = len(docids)
    top = candidates.top(depth)
    cq = _index_of(top.qids, query_ids)
    cd = _index_of(top.docids, docids)
    ok = (cq >= 0) & (cd >= 0)
    cq, cd = cq[ok], cd[ok]
    ok = ~np.isin(cq * n_docs + cd, relevant_keys)
    cq, cd = cq[ok], cd[ok]
    o = np.lexsort((cd, cq))
    cq, cd = cq[o], cd[o]
    lo = np.searchsorted(cq, pq, side="left")
    hi = np.searchsorted(cq, pq, side="right")
    count = hi - lo
    m = uniform.shape[1]
    r = rng.random((len(pq), m))
    pick = lo[:, None] + np.floor(r * count[:, None]).astype(np.int64)
    has = count > 0
    out = uniform.copy()
    out[has] = cd[pick[has]]
    return out
